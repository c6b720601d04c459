//! Reading environment variables the way every hosted-mcp function does: a blank value counts as
//! unset, lists are comma-separated with blanks dropped, a bad value is a [`ConfigError`] naming
//! the variable ("NAME: problem").
//!
//! Each function's `config.rs` keeps its own variable-name `const`s, `ALL` list, defaults and
//! rules (infra's tests parse those files); only these reading helpers are shared, plus the one
//! rule both scheduled functions have in common ([`Env::log_groups`]).
//!
//! A crate of its own rather than a module of `audit`, `catalog` or `insights`: none of those is
//! about configuration, and this needs nothing but `thiserror`, so all three functions can depend
//! on it without pulling in anything else.
//!
//! ```
//! use env_config::Env;
//!
//! let env = Env::new(|name: &str| (name == "X_FORMAT").then(|| " text ".to_string()));
//! assert_eq!(env.log_format("X_FORMAT", true), Ok(false));
//! assert_eq!(env.positive("X_TIMEOUT_SECS", 120), Ok(120));
//! ```

use std::collections::HashMap;
use std::ops::RangeBounds;
use std::str::FromStr;

/// A bad variable: names it and says what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name}: {problem}")]
pub struct ConfigError {
    pub name: String,
    pub problem: String,
}

impl ConfigError {
    pub fn new(name: impl Into<String>, problem: impl Into<String>) -> Self {
        ConfigError {
            name: name.into(),
            problem: problem.into(),
        }
    }
}

/// A value with surrounding white space removed; `None` when nothing is left.
pub fn non_blank(value: &str) -> Option<&str> {
    Some(value.trim()).filter(|v| !v.is_empty())
}

/// A lookup over fixed `(name, value)` pairs, for tests: `Config::from_lookup(pairs(&[…]))`.
pub fn pairs(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| map.get(name).cloned()
}

/// Variables read through a lookup (`std::env::var` in production, a map in tests).
pub struct Env<F>(F);

impl<F: Fn(&str) -> Option<String>> Env<F> {
    pub fn new(lookup: F) -> Self {
        Env(lookup)
    }

    /// A variable, trimmed; `None` when unset, empty or white space.
    pub fn get(&self, name: &str) -> Option<String> {
        (self.0)(name).and_then(|v| non_blank(&v).map(str::to_string))
    }

    /// Comma-separated values, each trimmed, blanks dropped; empty when unset.
    pub fn list(&self, name: &str) -> Vec<String> {
        self.get(name)
            .map(|v| {
                v.split(',')
                    .filter_map(non_blank)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A number, `default` when unset; otherwise "`value` is not a valid number".
    pub fn number<T: FromStr + PartialOrd>(
        &self,
        name: &str,
        default: T,
    ) -> Result<T, ConfigError> {
        self.number_in(name, default, .., "a valid number")
    }

    /// A number in `range`, `default` when unset; otherwise "`value` is not {expected}".
    pub fn number_in<T: FromStr + PartialOrd>(
        &self,
        name: &str,
        default: T,
        range: impl RangeBounds<T>,
        expected: &str,
    ) -> Result<T, ConfigError> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .ok()
                .filter(|n| range.contains(n))
                .ok_or_else(|| ConfigError::new(name, format!("`{v}` is not {expected}"))),
        }
    }

    /// A whole number above zero, `default` when unset.
    pub fn positive(&self, name: &str, default: u64) -> Result<u64, ConfigError> {
        self.number_in(name, default, 1.., "a positive number")
    }

    /// `true` or `false`, `default` when unset.
    pub fn bool(&self, name: &str, default: bool) -> Result<bool, ConfigError> {
        self.either(name, default, ("true", true), ("false", false))
    }

    /// Whether logs are JSON: `json` or `text`, JSON by default on Lambda only.
    pub fn log_format(&self, name: &str, lambda: bool) -> Result<bool, ConfigError> {
        self.either(name, lambda, ("json", true), ("text", false))
    }

    /// The audit log groups a scheduled function queries: the `names` list and the `prefix`
    /// whose matching groups are added; on Lambda at least one of the two is required.
    pub fn log_groups(
        &self,
        names: &str,
        prefix: &str,
        lambda: bool,
    ) -> Result<(Vec<String>, Option<String>), ConfigError> {
        let (groups, prefix_value) = (self.list(names), self.get(prefix));
        if lambda && groups.is_empty() && prefix_value.is_none() {
            return Err(ConfigError::new(
                names,
                format!("required on Lambda (or {prefix}): the audit log groups"),
            ));
        }
        Ok((groups, prefix_value))
    }

    /// One of two words, `default` when unset; otherwise "`value` is neither a nor b".
    fn either<T>(
        &self,
        name: &str,
        default: T,
        (a, if_a): (&str, T),
        (b, if_b): (&str, T),
    ) -> Result<T, ConfigError> {
        match self.get(name) {
            None => Ok(default),
            Some(v) if v == a => Ok(if_a),
            Some(v) if v == b => Ok(if_b),
            Some(v) => Err(ConfigError::new(
                name,
                format!("`{v}` is neither {a} nor {b}"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> Env<impl Fn(&str) -> Option<String>> {
        Env::new(pairs(vars))
    }

    #[test]
    fn blank_counts_as_unset_and_values_are_trimmed() {
        let e = env(&[("A", "  "), ("B", ""), ("C", " x ")]);
        assert_eq!(e.get("A"), None);
        assert_eq!(e.get("B"), None);
        assert_eq!(e.get("C").as_deref(), Some("x"));
        assert_eq!(e.get("UNSET"), None);
    }

    #[test]
    fn list_drops_blanks_and_trims() {
        let e = env(&[("L", " a , ,b,, ")]);
        assert_eq!(e.list("L"), ["a", "b"]);
        assert!(e.list("UNSET").is_empty());
    }

    #[test]
    fn lambda_needs_log_groups_or_a_prefix() {
        let e = env(&[("G", " a , ,b"), ("P", "/aws/lambda/mcp-")]);
        assert_eq!(e.log_groups("NONE", "NO_PREFIX", false), Ok((vec![], None)));
        assert_eq!(
            e.log_groups("NONE", "NO_PREFIX", true)
                .unwrap_err()
                .to_string(),
            "NONE: required on Lambda (or NO_PREFIX): the audit log groups"
        );
        let (groups, prefix) = e.log_groups("G", "NO_PREFIX", true).unwrap();
        assert_eq!((groups, prefix), (vec!["a".into(), "b".into()], None));
        let (groups, prefix) = e.log_groups("NONE", "P", true).unwrap();
        assert!(groups.is_empty() && prefix.as_deref() == Some("/aws/lambda/mcp-"));
    }

    #[test]
    fn numbers_outside_the_range_name_the_variable() {
        let e = env(&[
            ("Z", "0"),
            ("S", "soon"),
            ("N", "-3"),
            ("BIG", "901"),
            ("OK", "7"),
        ]);
        assert_eq!(e.positive("UNSET", 120), Ok(120));
        assert_eq!(e.positive("OK", 120), Ok(7));
        assert_eq!(
            e.positive("Z", 120).unwrap_err().to_string(),
            "Z: `0` is not a positive number"
        );
        assert_eq!(e.positive("S", 1).unwrap_err().name, "S");
        assert_eq!(e.positive("N", 1).unwrap_err().name, "N");
        let err = e.number_in("BIG", 30, 1..=900, "a number of seconds from 1 to 900");
        assert_eq!(
            err.unwrap_err().to_string(),
            "BIG: `901` is not a number of seconds from 1 to 900"
        );
        assert_eq!(e.number("Z", 5usize), Ok(0));
        assert_eq!(
            e.number::<usize>("S", 5).unwrap_err().to_string(),
            "S: `soon` is not a valid number"
        );
    }

    #[test]
    fn bool_and_log_format_accept_two_words() {
        let e = env(&[
            ("T", "true"),
            ("F", "false"),
            ("Y", "yes"),
            ("J", "json"),
            ("X", "text"),
        ]);
        assert_eq!(e.bool("T", false), Ok(true));
        assert_eq!(e.bool("F", true), Ok(false));
        assert_eq!(e.bool("UNSET", true), Ok(true));
        assert_eq!(
            e.bool("Y", true).unwrap_err().to_string(),
            "Y: `yes` is neither true nor false"
        );
        assert_eq!(e.log_format("J", false), Ok(true));
        assert_eq!(e.log_format("X", true), Ok(false));
        assert_eq!(e.log_format("UNSET", true), Ok(true));
        assert_eq!(e.log_format("UNSET", false), Ok(false));
        assert_eq!(
            e.log_format("Y", false).unwrap_err().to_string(),
            "Y: `yes` is neither json nor text"
        );
    }
}
