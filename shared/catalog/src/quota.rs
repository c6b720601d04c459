//! The quota figures of one upstream answer, read from its response headers as the catalog's
//! `quota` declares them: headers of the API's own names (`x-remaining-quota`), or a header
//! family (`x-ratelimit-*`, with named buckets, or the IETF `RateLimit` fields). Pure: the
//! headers come in as `(name, value)` pairs and the time as Unix seconds, so the mcp-server and
//! quota-alarm's probe read the same figures from the same answer.

use crate::{Quota, RateLimitHeaders, ResetFormat};

/// Quota figures read from an answer's headers (and the catalog's limit).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QuotaFigures {
    pub remaining: Option<i64>,
    pub consumed: Option<i64>,
    pub limit: Option<i64>,
    /// Seconds until the upstream's window resets, where a header family says so.
    pub reset_s: Option<u64>,
}

impl QuotaFigures {
    /// The figures of a call that made this request and then `later`: the later remaining,
    /// limit and reset, the costs added (a cost only one of them reported counts as is). Costs
    /// whose sum leaves `i64` (an upstream sending absurd headers) are no figure, never a wrong
    /// one.
    pub fn followed_by(self, later: QuotaFigures) -> QuotaFigures {
        let consumed = match (self.consumed, later.consumed) {
            (Some(a), Some(b)) => a.checked_add(b),
            (a, b) => a.or(b),
        };
        QuotaFigures {
            remaining: later.remaining.or(self.remaining),
            consumed,
            limit: later.limit.or(self.limit),
            reset_s: later.reset_s.or(self.reset_s),
        }
    }
}

/// One bucket (or IETF policy) as an answer reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Bucket {
    remaining: Option<i64>,
    limit: Option<i64>,
    reset_s: Option<u64>,
}

impl Bucket {
    /// How little is left: the remaining share of the limit (the remaining count when no limit
    /// is known). The tightest bucket is the one a caller runs into first.
    fn tightness(&self) -> Option<f64> {
        let remaining = self.remaining? as f64;
        Some(match self.limit {
            Some(limit) if limit > 0 => remaining / limit as f64,
            _ => remaining,
        })
    }
}

impl Quota {
    /// Only a caller budget: nothing the upstream reports is read (no headers, limit, window
    /// or probe), so it fits any connector, a remote MCP server's too.
    pub fn is_budget_only(&self) -> bool {
        self.limit.is_none()
            && self.window.is_none()
            && self.probe.is_none()
            && self.remaining.is_none()
            && self.consumed.is_none()
            && self.headers.is_none()
            && self.bucket.is_none()
    }

    /// The figures of one answer. `headers` are its response headers (names in any case);
    /// `now_s` is the Unix time, for resets sent as a time. A header that is absent or not a
    /// whole number is no figure; a limit an answer sends wins over the catalog's `limit`.
    pub fn figures<'a>(&self, headers: &[(&'a str, &'a str)], now_s: i64) -> QuotaFigures {
        let header = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| *v)
        };
        let number = |name: Option<&str>| whole(header(name?)?);
        let family = match self.headers {
            None => Bucket::default(),
            Some(RateLimitHeaders::XRatelimit) => {
                x_ratelimit(headers, self.bucket.as_deref(), self.reset, now_s)
            }
            Some(RateLimitHeaders::Ietf) => ietf(&header, self.bucket.as_deref()),
        };
        QuotaFigures {
            remaining: family.remaining.or(number(self.remaining.as_deref())),
            consumed: number(self.consumed.as_deref()),
            limit: family.limit.or(self.limit),
            reset_s: family.reset_s,
        }
    }

    /// The header an answer's remaining requests are read from, for messages: the declared
    /// one, or the family's (`x-ratelimit-remaining-long`, `ratelimit`).
    pub fn remaining_header(&self) -> String {
        match (self.headers, self.bucket.as_deref()) {
            (Some(RateLimitHeaders::XRatelimit), None) => "x-ratelimit-remaining".into(),
            (Some(RateLimitHeaders::XRatelimit), Some(b)) => format!("x-ratelimit-remaining-{b}"),
            (Some(RateLimitHeaders::Ietf), _) => "ratelimit".into(),
            (None, _) => self.remaining.as_deref().unwrap_or_default().to_string(),
        }
    }
}

/// A header value as a whole number (surrounding blanks allowed).
fn whole(value: &str) -> Option<i64> {
    value.trim().parse().ok()
}

/// `X-RateLimit-Limit`, `-Remaining`, `-Reset`, each with `-<bucket>` appended when a bucket is
/// named; `*` looks at every `X-RateLimit-Remaining[-<bucket>]` sent and takes the tightest.
fn x_ratelimit(
    headers: &[(&str, &str)],
    bucket: Option<&str>,
    reset: ResetFormat,
    now_s: i64,
) -> Bucket {
    let read = |suffix: &str| {
        let field = |kind: &str| {
            let name = format!("x-ratelimit-{kind}{suffix}");
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(&name))
                .and_then(|(_, v)| whole(v))
        };
        Bucket {
            remaining: field("remaining"),
            limit: field("limit"),
            reset_s: field("reset").map(|r| match reset {
                ResetFormat::Seconds => r.max(0) as u64,
                ResetFormat::Epoch => r.saturating_sub(now_s).max(0) as u64,
            }),
        }
    };
    match bucket {
        None => read(""),
        Some("*") => tightest(headers.iter().filter_map(|(name, _)| {
            let lower = name.to_ascii_lowercase();
            let rest = lower.strip_prefix("x-ratelimit-remaining")?;
            (rest.is_empty() || rest.starts_with('-')).then(|| read(rest))
        })),
        Some(name) => read(&format!("-{name}")),
    }
}

/// The IETF fields, newest form first: `RateLimit: "name";r=…;t=…` (limits from
/// `RateLimit-Policy: "name";q=…;w=…`), then `RateLimit: limit=…, remaining=…, reset=…`, then
/// the separate `RateLimit-Limit`, `-Remaining`, `-Reset`.
fn ietf<'a>(header: &impl Fn(&str) -> Option<&'a str>, bucket: Option<&str>) -> Bucket {
    if let Some(value) = header("ratelimit") {
        let listed = members(value);
        let is_dictionary = listed.first().is_some_and(|(item, _)| item.contains('='));
        if is_dictionary {
            let field = |key: &str| {
                listed.iter().find_map(|(item, _)| {
                    let (k, v) = item.split_once('=')?;
                    (k.trim() == key).then(|| whole(v)).flatten()
                })
            };
            return Bucket {
                remaining: field("remaining"),
                limit: field("limit"),
                reset_s: field("reset").map(|r| r.max(0) as u64),
            };
        }
        let policies = header("ratelimit-policy").map(members).unwrap_or_default();
        let quota_of = |name: &str| {
            policies
                .iter()
                .find(|(item, _)| unquote(item) == name)
                .and_then(|(_, params)| param(params, "q"))
        };
        let buckets = listed.iter().map(|(item, params)| {
            let name = unquote(item);
            (
                name,
                Bucket {
                    remaining: param(params, "r"),
                    limit: quota_of(name),
                    reset_s: param(params, "t").map(|t| t.max(0) as u64),
                },
            )
        });
        return match bucket {
            Some(wanted) if wanted != "*" => buckets
                .filter(|(name, _)| *name == wanted)
                .map(|(_, b)| b)
                .next()
                .unwrap_or_default(),
            _ => tightest(buckets.map(|(_, b)| b)),
        };
    }
    // `RateLimit-Limit: 100, 100;w=60` (the policy after the number in early drafts).
    let leading = |name: &str| {
        header(name).and_then(|v| whole(v.split([',', ';']).next().unwrap_or_default()))
    };
    Bucket {
        remaining: leading("ratelimit-remaining"),
        limit: leading("ratelimit-limit"),
        reset_s: leading("ratelimit-reset").map(|r| r.max(0) as u64),
    }
}

/// The members of a structured list or dictionary header (RFC 9651, the subset rate limits
/// use): `item;key=value;…` separated by commas, as (item, params).
fn members(value: &str) -> Vec<(&str, Vec<(&str, &str)>)> {
    value
        .split(',')
        .map(|member| {
            let mut parts = member.split(';').map(str::trim);
            let item = parts.next().unwrap_or_default();
            let params = parts.filter_map(|p| p.split_once('=')).collect();
            (item, params)
        })
        .filter(|(item, _)| !item.is_empty())
        .collect()
}

fn param(params: &[(&str, &str)], key: &str) -> Option<i64> {
    params
        .iter()
        .find(|(k, _)| k.trim() == key)
        .and_then(|(_, v)| whole(v))
}

fn unquote(item: &str) -> &str {
    item.trim().trim_matches('"')
}

/// The bucket with the least left; buckets without a remaining figure are ignored.
fn tightest(buckets: impl Iterator<Item = Bucket>) -> Bucket {
    buckets
        .filter_map(|b| Some((b.tightness()?, b)))
        .min_by(|(a, _), (b, _)| a.total_cmp(b))
        .map(|(_, b)| b)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quota(yaml: &str) -> Quota {
        yaml_serde::from_str(yaml).unwrap()
    }

    const NOW: i64 = 1_780_000_000;

    #[test]
    fn named_headers_are_read_as_whole_numbers() {
        let q = quota("{ remaining: x-remaining-quota, consumed: x-consumed-quota, limit: 10000 }");
        let figures = q.figures(
            &[("X-Remaining-Quota", " 9876 "), ("x-consumed-quota", "two")],
            NOW,
        );
        assert_eq!(
            figures,
            QuotaFigures {
                remaining: Some(9_876),
                consumed: None,
                limit: Some(10_000),
                reset_s: None
            }
        );
    }

    #[test]
    fn costs_add_up_over_pages_and_absurd_ones_are_no_figure() {
        let page = |remaining, consumed| QuotaFigures {
            remaining: Some(remaining),
            consumed,
            limit: Some(10_000),
            reset_s: None,
        };
        let call = page(120, Some(1))
            .followed_by(page(119, Some(1)))
            .followed_by(page(117, None))
            .followed_by(page(115, Some(2)));
        assert_eq!(call, page(115, Some(4)));
        let absurd = page(1, Some(i64::MAX)).followed_by(page(0, Some(1)));
        assert_eq!(
            absurd.consumed, None,
            "an overflowing cost is no figure, not a panic"
        );
    }

    #[test]
    fn x_ratelimit_reads_limit_remaining_and_reset_as_seconds_or_a_time() {
        let headers = [
            ("x-ratelimit-limit", "5000"),
            ("x-ratelimit-remaining", "4990"),
            ("x-ratelimit-reset", &*(NOW + 600).to_string()),
        ];
        let epoch = quota("{ headers: x_ratelimit, reset: epoch, limit: 1 }");
        assert_eq!(
            epoch.figures(&headers, NOW),
            QuotaFigures {
                remaining: Some(4_990),
                consumed: None,
                limit: Some(5_000),
                reset_s: Some(600)
            },
            "the limit an answer sends wins over the catalog's"
        );
        let seconds = quota("{ headers: x_ratelimit }");
        let figures = seconds.figures(&[("X-RateLimit-Reset", "42")], NOW);
        assert_eq!((figures.remaining, figures.reset_s), (None, Some(42)));
        let past = epoch.figures(&[("x-ratelimit-reset", "12")], NOW);
        assert_eq!(past.reset_s, Some(0), "a reset in the past is now");
    }

    #[test]
    fn named_buckets_are_read_by_name_or_the_tightest_of_all() {
        // Cal.com names its buckets in the header names.
        let headers = [
            ("x-ratelimit-limit-short", "10"),
            ("x-ratelimit-remaining-short", "9"),
            ("x-ratelimit-reset-short", "1"),
            ("x-ratelimit-limit-long", "120"),
            ("x-ratelimit-remaining-long", "6"),
            ("x-ratelimit-reset-long", "40"),
        ];
        let long = quota("{ headers: x_ratelimit, bucket: long }").figures(&headers, NOW);
        assert_eq!(
            (long.remaining, long.limit, long.reset_s),
            (Some(6), Some(120), Some(40))
        );
        let short = quota("{ headers: x_ratelimit, bucket: short }").figures(&headers, NOW);
        assert_eq!(short.remaining, Some(9));
        let any = quota("{ headers: x_ratelimit, bucket: \"*\" }").figures(&headers, NOW);
        assert_eq!(
            (any.remaining, any.limit),
            (Some(6), Some(120)),
            "6 of 120 is tighter than 9 of 10"
        );
        let none = quota("{ headers: x_ratelimit, bucket: \"*\" }").figures(&[], NOW);
        assert_eq!(none, QuotaFigures::default());
    }

    #[test]
    fn ietf_fields_in_each_draft_form() {
        let q = quota("{ headers: ietf }");
        let current = q.figures(
            &[
                ("RateLimit", "\"day\";r=900;t=3600, \"minute\";r=3;t=20"),
                (
                    "RateLimit-Policy",
                    "\"day\";q=1000;w=86400, \"minute\";q=60;w=60",
                ),
            ],
            NOW,
        );
        assert_eq!(
            (current.remaining, current.limit, current.reset_s),
            (Some(3), Some(60), Some(20)),
            "3 of 60 a minute is tighter than 900 of 1000 a day"
        );
        let day = quota("{ headers: ietf, bucket: day }").figures(
            &[
                ("ratelimit", "\"day\";r=900;t=3600, \"minute\";r=3;t=20"),
                ("ratelimit-policy", "\"day\";q=1000;w=86400"),
            ],
            NOW,
        );
        assert_eq!((day.remaining, day.limit), (Some(900), Some(1000)));
        let dictionary = q.figures(&[("ratelimit", "limit=100, remaining=50, reset=5")], NOW);
        assert_eq!(
            (dictionary.remaining, dictionary.limit, dictionary.reset_s),
            (Some(50), Some(100), Some(5))
        );
        let separate = q.figures(
            &[
                ("ratelimit-limit", "100, 100;w=60"),
                ("ratelimit-remaining", "7"),
                ("ratelimit-reset", "30"),
            ],
            NOW,
        );
        assert_eq!(
            (separate.remaining, separate.limit, separate.reset_s),
            (Some(7), Some(100), Some(30))
        );
        let garbage = q.figures(&[("ratelimit", ";;,,=\"\";r=x")], NOW);
        assert_eq!(garbage, QuotaFigures::default());
    }
}
