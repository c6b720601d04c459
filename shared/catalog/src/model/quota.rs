//! The upstream's quota and rate-limit declarations, and its health probe.

use serde::{Deserialize, Serialize};

use super::text::Text;

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Quota {
    /// A header family that reports the remaining requests, the limit and the reset
    /// (`x_ratelimit` or `ietf`), instead of a `remaining` header of the API's own name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<RateLimitHeaders>,
    /// With `headers`: the named bucket or policy to read (`X-RateLimit-Remaining-Long`, an IETF
    /// policy `"long"`); `"*"` reads every bucket sent and reports the tightest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket: Option<Text>,
    /// With `headers: x_ratelimit`: how `X-RateLimit-Reset` counts (seconds from now, or a Unix
    /// time).
    #[serde(default, skip_serializing_if = "ResetFormat::is_seconds")]
    pub reset: ResetFormat,
    /// Response header with the remaining quota.
    #[serde(default)]
    pub remaining: Option<Text>,
    /// Response header with the consumed quota.
    #[serde(default)]
    pub consumed: Option<Text>,
    /// Figures an upstream reports in the JSON body of some answers (an account or usage
    /// document) rather than in headers, read by JSON pointer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<QuotaBody>,
    /// The limit per window, when the upstream does not send it.
    #[serde(default)]
    pub limit: Option<i64>,
    #[serde(default)]
    pub window: Option<QuotaWindow>,
    /// The remaining is a balance that a purchase refills, not the window's reset (prepaid
    /// credits): quota-alarm compares it with the limit but forecasts no exhaustion.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub balance: bool,
    /// Utilisation percentages that warn, then page (default 80 and 95).
    #[serde(default = "default_thresholds")]
    pub thresholds: Vec<u8>,
    /// A cheap request `quota-alarm` sends itself when no call reported quota figures for a
    /// while, so a quiet month still has a current figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<QuotaProbe>,
    /// Upstream requests one caller may spend on this connector per UTC day (mcp-server's
    /// budget; aggregations count every page). Unset: no budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller_daily_budget: Option<u64>,
    /// What one caller may spend on this connector per UTC day in the upstream's own unit
    /// (mcp-server's spend limit; each tool's `spends` says what a call costs). Unset: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller_daily_spend: Option<super::spend::SpendLimit>,
    /// The upstream's own request rate, kept by the whole deployment together (every instance,
    /// every caller): its requests take turns, at most `requests` per `seconds`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
}

/// A request rate: at most `requests` per `seconds` (`{requests: 2, seconds: 1}`, Lexware's
/// two a second per API key).
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Rate {
    pub requests: u32,
    #[serde(default = "one_second")]
    pub seconds: u32,
}

impl Rate {
    /// The time between two requests' turns, in milliseconds (rounded up: never faster).
    pub fn interval_ms(&self) -> u64 {
        (u64::from(self.seconds) * 1000).div_ceil(u64::from(self.requests.max(1)))
    }

    /// `2 requests a second`, `600 requests a minute`, `10 requests per 5 seconds`.
    pub fn words(&self) -> String {
        let per = match self.seconds {
            1 => "a second".to_string(),
            60 => "a minute".to_string(),
            3600 => "an hour".to_string(),
            s => format!("per {s} seconds"),
        };
        let noun = if self.requests == 1 {
            "request"
        } else {
            "requests"
        };
        format!("{} {noun} {per}", self.requests)
    }
}

fn one_second() -> u32 {
    1
}

/// The rate-limit header families an upstream may send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RateLimitHeaders {
    /// `X-RateLimit-Limit`, `-Remaining`, `-Reset` (GitHub, Cal.com); with `bucket`, the
    /// bucket's name is appended (`X-RateLimit-Remaining-Long`).
    XRatelimit,
    /// The IETF fields: `RateLimit: "policy";r=…;t=…` with `RateLimit-Policy: "policy";q=…;w=…`,
    /// the earlier `RateLimit: limit=…, remaining=…, reset=…`, or the separate
    /// `RateLimit-Limit`, `-Remaining`, `-Reset`.
    Ietf,
}

/// How an `X-RateLimit-Reset` header counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResetFormat {
    /// Seconds until the window resets.
    #[default]
    Seconds,
    /// The Unix time (seconds) the window resets at.
    Epoch,
}

impl ResetFormat {
    fn is_seconds(&self) -> bool {
        *self == ResetFormat::Seconds
    }
}

/// Quota figures in the JSON body of the answers that carry them: JSON pointers to whole
/// numbers, read from a 2xx answer of the listed tools and of the quota's probe.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QuotaBody {
    /// Pointer to the remaining quota (`/creditBalance`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remaining: Option<Text>,
    /// Pointer to the quota consumed by this request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consumed: Option<Text>,
    /// Pointer to the limit (`/tier/maxMonthlyCreditSpend`); an answer's wins over the
    /// catalog's `limit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<Text>,
    /// The tools whose answers carry these figures (the probe's answer always does).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Text>,
}

/// The quiet-period probe of a quota.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QuotaProbe {
    /// Path (under `base_url`) of a cheap GET whose answer carries the quota figures.
    pub get: Text,
    /// Probe only after this many hours without quota figures: each probe costs quota too.
    #[serde(default = "default_quiet_hours")]
    pub quiet_hours: u32,
}

fn default_quiet_hours() -> u32 {
    6
}

fn default_thresholds() -> Vec<u8> {
    vec![80, 95]
}

/// The quota window; exactly one field is set.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QuotaWindow {
    /// Calendar month in this IANA time zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calendar_month: Option<Text>,
    /// Calendar day in this IANA time zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub day: Option<Text>,
    /// A rolling window of this many hours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolling_hours: Option<u32>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Health {
    /// Path (under `base_url`) of a cheap GET.
    pub get: Text,
}
