//! Rules on `quota`: its window, where its figures are read, and its probe.

use crate::model::{Catalog, RateLimitHeaders, ResetFormat};
use crate::template::placeholders;

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

/// A probe is a fixed GET that learns the quota from its headers, sent now and then while a
/// window has no figures.
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
    if q.remaining.is_none() && q.headers.is_none() {
        out.push(
            "quota.probe needs quota.remaining or quota.headers: a probe learns the quota \
             only from those headers"
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
