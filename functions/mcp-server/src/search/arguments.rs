//! The `search_tools` arguments as plain data: [`SearchRequest`], the [`Detail`] levels with the
//! number of tools up to which each is the default, and `limit` as clients send it. No MCP types,
//! so the handler only maps JSON onto these and the rules are unit-tested here.

use std::str::FromStr;

use serde_json::Value;

/// Largest `limit` a caller may ask for (the names level shows at most this many tools).
pub(crate) const MAX_LIMIT: usize = 2_000;
/// Tools shown with full schemas when the caller gives no `limit`.
pub(crate) const FULL_PAGE: usize = 10;

const FULL_UP_TO: usize = 25;
pub(super) const SUMMARY_UP_TO: usize = 250;
const NAMES_UP_TO: usize = 2_000;

#[derive(Debug, Clone, Default)]
pub struct SearchRequest {
    pub query: String,
    pub connector: Option<String>,
    /// `None`: chosen from the number of tools shown.
    pub detail: Option<Detail>,
    /// Tools to show; `None`: 10 at full detail, every match at the coarser levels.
    pub limit: Option<usize>,
}

impl SearchRequest {
    /// The request as `search_tools` arguments: what advice tells the model to send.
    pub fn arguments(&self) -> Value {
        let mut args = serde_json::Map::new();
        args.insert("query".into(), self.query.clone().into());
        if let Some(c) = &self.connector {
            args.insert("connector".into(), c.clone().into());
        }
        if let Some(d) = self.detail {
            args.insert("detail".into(), d.as_str().into());
        }
        if let Some(n) = self.limit {
            args.insert("limit".into(), n.into());
        }
        Value::Object(args)
    }
}

/// How much an answer says per tool, most first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detail {
    Full,
    Summary,
    Names,
    Counts,
}

impl Detail {
    pub fn as_str(self) -> &'static str {
        match self {
            Detail::Full => "full",
            Detail::Summary => "summary",
            Detail::Names => "names",
            Detail::Counts => "counts",
        }
    }

    /// The level for `n` tools when the caller names none.
    pub fn for_count(n: usize) -> Detail {
        if n <= FULL_UP_TO {
            Detail::Full
        } else if n <= SUMMARY_UP_TO {
            Detail::Summary
        } else if n <= NAMES_UP_TO {
            Detail::Names
        } else {
            Detail::Counts
        }
    }

    pub(super) fn coarser(self) -> Detail {
        match self {
            Detail::Full => Detail::Summary,
            Detail::Summary => Detail::Names,
            Detail::Names | Detail::Counts => Detail::Counts,
        }
    }

    pub(super) fn page(self) -> usize {
        match self {
            Detail::Full => FULL_PAGE,
            Detail::Summary => SUMMARY_UP_TO,
            Detail::Names | Detail::Counts => NAMES_UP_TO,
        }
    }
}

impl FromStr for Detail {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "full" => Ok(Detail::Full),
            "summary" => Ok(Detail::Summary),
            "names" => Ok(Detail::Names),
            "counts" => Ok(Detail::Counts),
            _ => Err(format!(
                "`detail` must be \"full\", \"summary\", \"names\" or \"counts\", not \"{}\".",
                crate::contract::names::shown(s)
            )),
        }
    }
}

/// `limit` as clients send it: a number or a numeric string (stale clients send `"5"`).
pub(crate) fn parse_limit(v: &Value) -> Result<usize, String> {
    let n = match v {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                .map(|f| f as u64)
        }),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    match n {
        Some(n) if (1..=MAX_LIMIT as u64).contains(&n) => Ok(n as usize),
        _ => Err(format!(
            "`limit` must be a whole number from 1 to {MAX_LIMIT} (a number or a numeric string \
             such as \"10\")."
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn limit_accepts_numbers_and_numeric_strings() {
        for (v, want) in [
            (json!(5), Ok(5)),
            (json!("5"), Ok(5)),
            (json!(" 12 "), Ok(12)),
            (json!(7.0), Ok(7)),
            (json!(2000), Ok(2000)),
        ] {
            assert_eq!(parse_limit(&v), want, "{v}");
        }
        for v in [
            json!(0),
            json!(-1),
            json!(2.5),
            json!("abc"),
            json!(true),
            json!(2001),
            json!(null),
        ] {
            let err = parse_limit(&v).unwrap_err();
            assert!(err.contains("whole number from 1 to 2000"), "{v}: {err}");
        }
        assert_eq!("Summary".parse::<Detail>(), Ok(Detail::Summary));
        assert!(
            "schemas"
                .parse::<Detail>()
                .unwrap_err()
                .contains("\"full\"")
        );
    }
}
