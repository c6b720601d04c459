//! The environment as the server sees it at start: real variables over a git-ignored
//! `.env.local`. Read once; never mutates the process environment.

use std::collections::HashMap;

/// The environment as seen at start: real variables over `.env.local`.
#[derive(Debug, Clone, Default)]
pub struct EnvSnapshot(HashMap<String, String>);

impl EnvSnapshot {
    /// The process environment over a git-ignored `.env.local` in the working directory.
    pub fn local() -> Self {
        Self::load(Some(std::path::Path::new(".env.local")))
    }

    /// Reads the process environment, with `dotenv` file values underneath.
    pub fn load(dotenv: Option<&std::path::Path>) -> Self {
        let mut vars = HashMap::new();
        if let Some(text) = dotenv.and_then(|p| std::fs::read_to_string(p).ok()) {
            vars.extend(parse_dotenv(&text));
        }
        vars.extend(std::env::vars());
        EnvSnapshot(vars)
    }

    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        EnvSnapshot(
            pairs
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    /// A copy with one variable set (start-up only; never mutates the process environment).
    pub fn with(mut self, name: &str, value: &str) -> Self {
        self.0.insert(name.to_string(), value.to_string());
        self
    }

    /// The names of every variable set.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    /// A variable exactly as set (blank included), `None` when unset.
    pub fn raw(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// A variable, `None` when unset or empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(|v| env_config::non_blank(v))
    }

    /// Every set (non-blank) variable whose name ends in `suffix`: the name before it, the value.
    pub fn ending_with<'a>(&'a self, suffix: &'a str) -> impl Iterator<Item = (&'a str, &'a str)> {
        self.0.iter().filter_map(move |(name, value)| {
            let prefix = name.strip_suffix(suffix).filter(|p| !p.is_empty())?;
            Some((prefix, env_config::non_blank(value)?))
        })
    }

    /// `<CONNECTOR>_<SUFFIX>` for a connector name.
    pub fn per_connector(&self, connector: &str, suffix: &str) -> Option<&str> {
        self.get(&format!("{}{suffix}", connector.to_ascii_uppercase()))
    }
}

/// `KEY=VALUE` lines; `#` comments and blank lines skipped, optional quotes removed.
fn parse_dotenv(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.strip_prefix("export ").unwrap_or(l).split_once('='))
        .map(|(k, v)| {
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or(v);
            (k.trim().to_string(), v.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_ending_in_a_suffix_are_found_by_their_prefix_blank_ones_not() {
        let env = EnvSnapshot::from_pairs([
            ("PAPIERKRAM_BASE_URL", "http://127.0.0.1:9/api/v1"),
            ("TICKETS_BASE_URL", " "),
            ("_BASE_URL", "x"),
            ("PAPIERKRAM_TOKEN", "t"),
        ]);
        let found: Vec<_> = env.ending_with("_BASE_URL").collect();
        assert_eq!(found, vec![("PAPIERKRAM", "http://127.0.0.1:9/api/v1")]);
    }

    #[test]
    fn dotenv_lines_are_parsed_and_comments_skipped() {
        let vars = parse_dotenv("# c\nA=1\nexport B=\"two words\"\n\nC = 3\n");
        assert_eq!(
            vars,
            vec![
                ("A".into(), "1".into()),
                ("B".into(), "two words".into()),
                ("C".into(), "3".into())
            ]
        );
    }
}
