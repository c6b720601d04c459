//! Templates with `{name}` placeholders (paths, URIs, header values), shared by the loader's
//! checks and the declarations that fill them.

/// The placeholders `{name}` in a template.
pub fn placeholders(template: &str) -> Vec<&str> {
    template
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_found_in_order() {
        assert_eq!(placeholders("/a/{x}/b/{y}"), vec!["x", "y"]);
        assert!(placeholders("/a").is_empty());
    }
}
