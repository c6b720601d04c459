//! Cutting a block-style YAML document's `paths:` into its path items by indentation, so each
//! is parsed on its own and the whole tree never sits in memory (YAML has no borrowed raw
//! value like JSON's). Anything unusual — flow style, anchors used across items, a chunk that
//! does not parse alone — gives `None`, and the caller parses the document whole.

use serde::de::IgnoredAny;
use std::collections::BTreeMap;

/// The document without its `paths:` section, and the section's path items (their text and
/// 0-based first line, by path, sorted like a parsed map).
pub(crate) struct Cut<'t> {
    pub(crate) rest: String,
    /// Where the `paths:` section was (its 0-based first line) and how many lines it had, to
    /// give places in `rest` as lines of the document.
    pub(crate) removed: (usize, usize),
    pub(crate) items: Vec<(String, usize, &'t str)>,
}

impl Cut<'_> {
    /// A 1-based line of `rest` as a line of the document.
    pub(crate) fn line_of_rest(&self, line: usize) -> usize {
        let (head, count) = self.removed;
        if line > head { line + count } else { line }
    }
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn blank_or_comment(line: &str) -> bool {
    let t = line.trim_start();
    t.is_empty() || t.starts_with('#')
}

/// A path item's key from its first line (`  /invoices/{id}:`), parsed as YAML only when
/// quoted or unusual, and then only within the flow nesting limit.
fn key(first: &str, max_flow_depth: usize) -> Option<String> {
    let t = first.trim();
    if let Some(plain) = t.strip_suffix(':')
        && plain.starts_with('/')
        && !plain.contains([':', '#', '\'', '"', '&', '*', '!', '|', '>'])
    {
        return Some(plain.to_string());
    }
    crate::flow_depth::check(t, max_flow_depth).ok()?;
    let one: BTreeMap<String, IgnoredAny> = yaml_serde::from_str(&format!("{t} ~")).ok()?;
    one.into_keys().next()
}

/// The cut, or `None` when the layout is not plain block style or the document seems to use
/// anchors or aliases (`key: &name`, `- *name`): an alias in one path item to an anchor
/// elsewhere would not parse alone.
pub(crate) fn cut(text: &str, max_flow_depth: usize) -> Option<Cut<'_>> {
    let anchors = [": &", "- &", ": *", "- *"].iter().any(|mark| {
        text.match_indices(mark).any(|(i, _)| {
            let name: String = text[i + 3..]
                .chars()
                .take_while(|c| !c.is_whitespace())
                .collect();
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-".contains(c))
        })
    });
    if anchors {
        return None;
    }
    // Byte offsets of each line start.
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    let line = |i: usize| -> &str {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        text[starts[i]..end].trim_end_matches(['\n', '\r'])
    };
    let n = if starts.last() == Some(&text.len()) {
        starts.len() - 1
    } else {
        starts.len()
    };
    let head = (0..n).find(|&i| {
        let l = line(i);
        l.strip_prefix("paths:").is_some_and(|r| {
            let r = r.trim();
            r.is_empty() || r.starts_with('#')
        })
    })?;
    let end = (head + 1..n)
        .find(|&i| !blank_or_comment(line(i)) && indent(line(i)) == 0)
        .unwrap_or(n);
    let body: Vec<usize> = (head + 1..end)
        .filter(|&i| !blank_or_comment(line(i)))
        .collect();
    let child = indent(line(*body.first()?));
    if child == 0 || line(body[0]).trim_start().starts_with(['-', '{', '[']) {
        return None;
    }
    let item_starts: Vec<usize> = body
        .iter()
        .copied()
        .filter(|&i| indent(line(i)) == child)
        .collect();
    let offset = |i: usize| starts.get(i).copied().unwrap_or(text.len());
    let mut items = Vec::with_capacity(item_starts.len());
    for (k, &first) in item_starts.iter().enumerate() {
        let last = item_starts.get(k + 1).copied().unwrap_or(end);
        let chunk = &text[offset(first)..offset(last)];
        items.push((key(line(first), max_flow_depth)?, first, chunk));
    }
    items.sort_by(|a, b| a.0.cmp(&b.0));
    let mut rest = String::with_capacity(text.len() - (offset(end) - offset(head)));
    rest.push_str(&text[..offset(head)]);
    rest.push_str(&text[offset(end)..]);
    Some(Cut {
        rest,
        removed: (head, end - head),
        items,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_paths_are_cut_into_items() {
        let text = "openapi: 3.0.0\npaths:\n  /b:\n    get:\n      summary: B\n\n  # a comment\n  '/a:x':\n    post: {}\ncomponents:\n  schemas: {}\n";
        let cut = cut(text, 64).unwrap();
        let keys: Vec<&str> = cut.items.iter().map(|(k, _, _)| k.as_str()).collect();
        assert_eq!(keys, ["/a:x", "/b"]);
        assert!(cut.items[1].2.contains("summary: B"));
        assert_eq!(
            (cut.items[0].1, cut.items[1].1),
            (7, 2),
            "0-based first lines"
        );
        assert_eq!((cut.line_of_rest(1), cut.line_of_rest(2)), (1, 10));
        assert_eq!(cut.rest, "openapi: 3.0.0\ncomponents:\n  schemas: {}\n");
    }

    #[test]
    fn unusual_layouts_are_left_whole() {
        let prose = "openapi: 3.0.0\npaths:\n  /a:\n    get:\n      summary: Terms &nbsp; more\n";
        assert!(
            cut(prose, 64).is_some(),
            "an ampersand in prose is no anchor"
        );
        assert!(cut("openapi: 3.0.0\npaths: {}\n", 64).is_none());
        let anchored = "openapi: 3.0.0\nx: &op {}\npaths:\n  /a:\n    get: *op\n";
        assert!(cut(anchored, 64).is_none(), "alias to an anchor elsewhere");
        assert!(cut("openapi: 3.0.0\n", 64).is_none());
    }
}
