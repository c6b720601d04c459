//! Rules on `quota`: its window, where its figures are read, and its probe.

use crate::model::{Catalog, QuotaBody, RateLimitHeaders, ResetFormat};
use crate::template::placeholders;

/// The most requests a `rate` allows per its period (a rate that high needs no pacing), and
/// its longest period.
const MAX_RATE_REQUESTS: u32 = 1000;
const MAX_RATE_SECONDS: u32 = 3600;

/// A rate is a positive number of requests over one second to an hour.
pub(super) fn rate_is_bounded(c: &Catalog) -> Vec<String> {
    let Some(rate) = c.quota.as_ref().and_then(|q| q.rate) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if !(1..=MAX_RATE_REQUESTS).contains(&rate.requests) {
        out.push(format!(
            "quota.rate.requests must be 1 to {MAX_RATE_REQUESTS}, is {}",
            rate.requests
        ));
    }
    if !(1..=MAX_RATE_SECONDS).contains(&rate.seconds) {
        out.push(format!(
            "quota.rate.seconds must be 1 to {MAX_RATE_SECONDS}, is {}",
            rate.seconds
        ));
    }
    out
}

pub(super) fn window_has_one_kind(c: &Catalog) -> Vec<String> {
    let Some(w) = c.quota.as_ref().and_then(|q| q.window.as_ref()) else {
        return Vec::new();
    };
    let set = [
        w.calendar_month.is_some(),
        w.day.is_some(),
        w.rolling_hours.is_some(),
    ];
    if set.iter().filter(|s| **s).count() == 1 {
        return Vec::new();
    }
    vec!["quota.window needs exactly one of calendar_month, day, rolling_hours".into()]
}

/// The remaining requests come from one header or from one header family, whose bucket and
/// reset format belong to that family.
pub(super) fn headers_are_read_one_way(c: &Catalog) -> Vec<String> {
    let Some(q) = &c.quota else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if q.headers.is_some() && q.remaining.is_some() {
        out.push(
            "quota.remaining names a header, but quota.headers already reads the remaining \
             requests from its family: declare one"
                .into(),
        );
    }
    if let Some(bucket) = &q.bucket
        && !(bucket == "*"
            || (!bucket.is_empty()
                && bucket
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')))
    {
        out.push(format!(
            "quota.bucket `{bucket}` must be `*` or a name of letters, digits, `_` and `-`: \
             it becomes part of a header name"
        ));
    }
    if q.headers.is_none() && q.bucket.is_some() {
        out.push("quota.bucket names a bucket of a header family: declare quota.headers".into());
    }
    if q.headers != Some(RateLimitHeaders::XRatelimit) && q.reset != ResetFormat::Seconds {
        out.push(
            "quota.reset says how X-RateLimit-Reset counts: it needs `headers: x_ratelimit`".into(),
        );
    }
    out
}

/// Body figures are JSON pointers read from the answers that carry them, and a quota is read
/// one way: its figures share one unit, limit and window, so they come from bodies or from
/// headers, not both.
pub(super) fn body_is_read_by_pointer(c: &Catalog) -> Vec<String> {
    let Some((q, body)) = c
        .quota
        .as_ref()
        .and_then(|q| q.body.as_ref().map(|b| (q, b)))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let QuotaBody {
        remaining,
        consumed,
        limit,
        tools,
    } = body;
    let pointers = [
        ("remaining", remaining),
        ("consumed", consumed),
        ("limit", limit),
    ];
    if pointers.iter().all(|(_, p)| p.is_none()) {
        out.push(
            "quota.body declares no figure: give remaining, consumed or limit as JSON pointers"
                .into(),
        );
    }
    for (field, pointer) in pointers {
        if let Some(p) = pointer.as_deref().filter(|p| !is_pointer(p)) {
            out.push(format!(
                "quota.body.{field} `{p}` is not a JSON pointer: write `/creditBalance` or \
                 `/tier/limit` (`~0` for `~`, `~1` for `/` inside a name)"
            ));
        }
    }
    if q.remaining.is_some() || q.consumed.is_some() || q.headers.is_some() {
        out.push(
            "quota.body reads the figures from answers' bodies, but quota.remaining, \
             quota.consumed or quota.headers reads them from headers: a quota's figures share \
             one unit, declare one way"
                .into(),
        );
    }
    for name in tools {
        let has_request = c
            .tools
            .iter()
            .any(|t| &t.name == name && t.http().is_some());
        if !has_request {
            out.push(format!(
                "quota.body.tools names `{name}`, no tool of this catalog with its own request"
            ));
        }
    }
    if tools.is_empty() && q.probe.is_none() {
        out.push(
            "quota.body is read from no answer: list the tools whose answers carry it in \
             quota.body.tools, or declare quota.probe"
                .into(),
        );
    }
    out
}

/// A JSON pointer (RFC 6901) to a member: `/` then names, with `~` only as `~0` or `~1`.
fn is_pointer(p: &str) -> bool {
    p.starts_with('/')
        && p.split('~')
            .skip(1)
            .all(|after| after.starts_with('0') || after.starts_with('1'))
}

/// A balance is what remains, so it needs a remaining figure.
pub(super) fn balance_has_a_remaining_figure(c: &Catalog) -> Vec<String> {
    let Some(q) = c.quota.as_ref().filter(|q| q.balance) else {
        return Vec::new();
    };
    let body_remaining = q.body.as_ref().is_some_and(|b| b.remaining.is_some());
    if q.remaining.is_some() || q.headers.is_some() || body_remaining {
        return Vec::new();
    }
    vec![
        "quota.balance says the remaining is a balance: declare where it is read \
         (quota.remaining, quota.headers or quota.body.remaining)"
            .into(),
    ]
}

/// A probe is a fixed GET that learns the quota from its headers or body, sent now and then
/// while a window has no figures.
pub(super) fn probe_can_learn_the_quota(c: &Catalog) -> Vec<String> {
    let Some((q, p)) = c
        .quota
        .as_ref()
        .and_then(|q| q.probe.as_ref().map(|p| (q, p)))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if !p.get.starts_with('/') || !placeholders(&p.get).is_empty() {
        out.push("quota.probe.get must be a fixed path starting with `/`".into());
    }
    let body_remaining = q.body.as_ref().is_some_and(|b| b.remaining.is_some());
    if q.remaining.is_none() && q.headers.is_none() && !body_remaining {
        out.push(
            "quota.probe needs quota.remaining, quota.headers or quota.body.remaining: a probe \
             learns the quota only from a remaining figure"
                .into(),
        );
    }
    if q.window.is_none() {
        out.push(
            "quota.probe needs quota.window: it is sent when the window had no figures for a while"
                .into(),
        );
    }
    if p.quiet_hours == 0 {
        out.push("quota.probe.quiet_hours must be at least 1: each probe costs quota".into());
    }
    out
}
