//! The quota figures of one upstream answer, as the catalog's `quota` declares them: from its
//! response headers (headers of the API's own names, `x-remaining-quota`, or a header family,
//! `x-ratelimit-*` with named buckets or the IETF `RateLimit` fields), or from its JSON body by
//! pointer (`quota.body`, an account document's `/creditBalance`). Pure: the headers come in as
//! `(name, value)` pairs, the body parsed and the time as Unix seconds, so the mcp-server and
//! quota-alarm's probe read the same figures from the same answer.

use serde_json::Value;

use crate::{Quota, RateLimitHeaders, ResetFormat, Text};

/// The largest figure read from a body: 2^53 − 1, the largest whole number a producer working
/// in doubles (JavaScript) sends exactly. A larger one is no figure, never a rounded one; it
/// also keeps `limit − remaining` and the sum of a call's costs far inside `i64`.
pub const MAX_BODY_FIGURE: i64 = (1 << 53) - 1;

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
            && self.body.is_none()
            && !self.balance
    }

    /// Whether the answers of `tool` carry the body figures (`quota.body.tools`). The probe's
    /// answer always does; quota-alarm reads it with [`Quota::with_body`] directly.
    pub fn body_in(&self, tool: &str) -> bool {
        self.body
            .as_ref()
            .is_some_and(|b| b.tools.iter().any(|t| t == tool))
    }

    /// `figures` (read from an answer's headers) with the figures its JSON `body` carries at
    /// the declared pointers, for a 2xx answer of a tool in `quota.body.tools` or of the
    /// probe. A pointer that finds nothing, or anything but a whole number from 0 to
    /// [`MAX_BODY_FIGURE`], is no figure; a body's limit wins over the catalog's `limit`.
    pub fn with_body(&self, figures: QuotaFigures, body: &Value) -> QuotaFigures {
        let Some(declared) = &self.body else {
            return figures;
        };
        let at = |pointer: &Option<Text>| body_figure(body.pointer(pointer.as_deref()?)?);
        QuotaFigures {
            remaining: at(&declared.remaining).or(figures.remaining),
            consumed: at(&declared.consumed).or(figures.consumed),
            limit: at(&declared.limit).or(figures.limit),
            reset_s: figures.reset_s,
        }
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

    /// Where an answer's remaining quota is read from, for messages: the declared header, the
    /// family's (`x-ratelimit-remaining-long`, `ratelimit`), or the body's pointer.
    pub fn remaining_source(&self) -> String {
        let pointer = self.body.as_ref().and_then(|b| b.remaining.as_deref());
        match (self.headers, self.bucket.as_deref(), pointer) {
            (_, _, Some(p)) => format!("whole number at {p} in the body"),
            (Some(RateLimitHeaders::XRatelimit), None, _) => "x-ratelimit-remaining header".into(),
            (Some(RateLimitHeaders::XRatelimit), Some(b), _) => {
                format!("x-ratelimit-remaining-{b} header")
            }
            (Some(RateLimitHeaders::Ietf), _, _) => "ratelimit header".into(),
            (None, _, None) => format!("{} header", self.remaining.as_deref().unwrap_or_default()),
        }
    }
}

/// A body value as a figure: a JSON number that is whole (`8200` or `8200.0`) and from 0 to
/// [`MAX_BODY_FIGURE`]. A string, a fraction, a negative or a larger number is no figure.
fn body_figure(value: &Value) -> Option<i64> {
    let Value::Number(n) = value else {
        return None;
    };
    let whole = match n.as_i64() {
        Some(i) => i,
        None => {
            let f = n.as_f64()?;
            if f.fract() != 0.0 || f.abs() > MAX_BODY_FIGURE as f64 {
                return None;
            }
            f as i64
        }
    };
    (0..=MAX_BODY_FIGURE).contains(&whole).then_some(whole)
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
    fn body_figures_are_whole_numbers_at_their_pointers_and_nothing_else() {
        // Runway's organisation answer: the balance and the tier's monthly credits.
        let q = quota(
            "{ body: { remaining: /creditBalance, limit: /tier/maxMonthlyCreditSpend, \
             tools: [runway_organization_get] }, limit: 1 }",
        );
        let answer = serde_json::json!({"creditBalance": 8200,
            "tier": {"maxMonthlyCreditSpend": 10000.0, "models": {}}});
        let headers = q.figures(&[], NOW);
        assert_eq!(
            q.with_body(headers, &answer),
            QuotaFigures {
                remaining: Some(8_200),
                consumed: None,
                limit: Some(10_000),
                reset_s: None
            },
            "a body's limit wins over the catalog's"
        );
        let remaining = |value: serde_json::Value| {
            q.with_body(headers, &serde_json::json!({ "creditBalance": value }))
                .remaining
        };
        assert_eq!(remaining(serde_json::json!(0)), Some(0));
        assert_eq!(
            remaining(serde_json::json!(MAX_BODY_FIGURE)),
            Some(MAX_BODY_FIGURE)
        );
        for no_figure in [
            serde_json::json!("8200"),
            serde_json::json!(null),
            serde_json::json!(true),
            serde_json::json!({"credits": 8200}),
            serde_json::json!([8200]),
            serde_json::json!(-1),
            serde_json::json!(-0.5),
            serde_json::json!(12.5),
            serde_json::json!(MAX_BODY_FIGURE + 1),
            serde_json::json!(u64::MAX),
            serde_json::json!(1e300),
        ] {
            assert_eq!(remaining(no_figure.clone()), None, "{no_figure}");
        }
        let absent = q.with_body(headers, &serde_json::json!({"tier": []}));
        assert_eq!(
            (absent.remaining, absent.limit),
            (None, Some(1)),
            "absent: no figure, and the catalog's limit stays"
        );
        assert!(q.body_in("runway_organization_get"));
        assert!(!q.body_in("runway_task_get"));
        assert!(!q.is_budget_only());
    }

    #[test]
    fn body_pointers_unescape_and_a_quota_without_body_keeps_its_headers_figures() {
        let q = quota("{ body: { consumed: \"/usage/a~1b/cost~0s\", remaining: /left/0 } }");
        let answer = serde_json::json!({"usage": {"a/b": {"cost~s": 3}}, "left": [7, 9]});
        let figures = q.with_body(QuotaFigures::default(), &answer);
        assert_eq!((figures.consumed, figures.remaining), (Some(3), Some(7)));
        let headers_only = quota("{ remaining: x-left }");
        let from_headers = headers_only.figures(&[("x-left", "5")], NOW);
        assert_eq!(
            headers_only.with_body(from_headers, &serde_json::json!({"x-left": 1})),
            from_headers
        );
        assert_eq!(
            (
                q.remaining_source(),
                headers_only.remaining_source(),
                quota("{ headers: x_ratelimit, bucket: long }").remaining_source()
            ),
            (
                "whole number at /left/0 in the body".to_string(),
                "x-left header".to_string(),
                "x-ratelimit-remaining-long header".to_string()
            )
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
