//! A connector's quota declaration from its catalog, checked once at start: window (with its
//! time zone resolved), limit, thresholds, and whether calls carry figures at all. The catalogs
//! come from `connector::load` (a directory, or the shipped ones compiled in).

use jiff::Timestamp;

use crate::window::{Bounds, Window, WindowError};

const DEFAULT_WARN: u8 = 80;
const DEFAULT_CRITICAL: u8 = 95;

/// A connector's quota declaration, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    pub connector: String,
    /// `None` when the catalog declares no window (reported as `unknown`).
    pub window: Option<Window>,
    pub limit: Option<i64>,
    pub warn_percent: u8,
    pub critical_percent: u8,
    /// The catalog names a remaining or consumed header, a header family or body figures, so
    /// calls carry figures.
    pub measurable: bool,
    /// The remaining is a balance a purchase refills (`quota.balance`): no forecast.
    pub balance: bool,
}

/// A catalog quota declaration that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("connector `{connector}`: quota: {problem}")]
pub struct PolicyError {
    pub connector: String,
    pub problem: String,
}

impl Policy {
    /// The policy of a catalog; `None` when it declares no quota.
    ///
    /// Thresholds: the lowest listed warns, the highest pages (100 when only one is listed);
    /// none listed means 80 and 95.
    pub fn from_catalog(c: &catalog::Catalog) -> Result<Option<Self>, PolicyError> {
        let Some(q) = &c.quota else {
            return Ok(None);
        };
        let bad = |problem: String| PolicyError {
            connector: c.connector.to_string(),
            problem,
        };
        let window = match &q.window {
            Some(w) => Some(Window::from_catalog(w).map_err(|e: WindowError| bad(e.to_string()))?),
            None => None,
        };
        if let Some(t) = q.thresholds.iter().find(|t| **t == 0 || **t > 100) {
            return Err(bad(format!("threshold {t} % is outside 1..=100")));
        }
        if q.limit.is_some_and(|l| l <= 0) {
            return Err(bad("limit must be positive".into()));
        }
        let (warn, critical) = match (q.thresholds.iter().min(), q.thresholds.iter().max()) {
            (Some(lo), Some(hi)) if q.thresholds.len() > 1 => (*lo, *hi),
            (Some(only), _) => (*only, 100),
            _ => (DEFAULT_WARN, DEFAULT_CRITICAL),
        };
        Ok(Some(Policy {
            connector: c.connector.to_string(),
            window,
            limit: q.limit,
            warn_percent: warn,
            critical_percent: critical,
            measurable: q.remaining.is_some()
                || q.consumed.is_some()
                || q.headers.is_some()
                || q.body.is_some(),
            balance: q.balance,
        }))
    }

    /// The window containing `now`, when one is declared and representable.
    pub fn bounds(&self, now: Timestamp) -> Option<Bounds> {
        self.window.as_ref().and_then(|w| w.bounds(now).ok())
    }
}

/// Every connector with its quota policy (`None` without a quota declaration), in catalog order.
pub fn policies(
    catalogs: &[catalog::Catalog],
) -> Result<Vec<(String, Option<Policy>)>, PolicyError> {
    catalogs
        .iter()
        .map(|c| Ok((c.connector.to_string(), Policy::from_catalog(c)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_from_catalog_reads_thresholds_and_checks_the_zone() {
        let yaml = |quota: &str| {
            format!(
                "connector: demo\nbase_url: https://x.test\n{quota}\ntools:\n  - name: demo_info_get\n    \
                 risk: low\n    description: Info.\n    get: /info\n"
            )
        };
        let load = |quota: &str| {
            let c = catalog::parse("demo.yaml", &yaml(quota)).unwrap();
            Policy::from_catalog(&c)
        };
        assert_eq!(load("").unwrap(), None);
        let p = load("quota: { remaining: x-left, limit: 100, window: { day: UTC } }")
            .unwrap()
            .unwrap();
        assert_eq!((p.warn_percent, p.critical_percent), (80, 95));
        assert!(p.measurable);
        let p = load("quota: { limit: 100, thresholds: [70], window: { rolling_hours: 1 } }")
            .unwrap()
            .unwrap();
        assert_eq!((p.warn_percent, p.critical_percent), (70, 100));
        assert!(!p.measurable);
        let p = load("quota: { consumed: x-c, thresholds: [90, 60, 75] }")
            .unwrap()
            .unwrap();
        assert_eq!((p.warn_percent, p.critical_percent), (60, 90));
        let err = load("quota: { remaining: x, window: { calendar_month: Mars/Olympus } }")
            .unwrap_err()
            .to_string();
        assert!(err.contains("Mars/Olympus"), "{err}");
        assert!(load("quota: { remaining: x, thresholds: [0] }").is_err());
    }

    #[test]
    fn papierkram_quota_is_ten_thousand_a_berlin_month() {
        let all = policies(&connector::load(None).unwrap()).unwrap();
        let (_, policy) = all.iter().find(|(n, _)| n == "papierkram").unwrap();
        let p = policy.as_ref().unwrap();
        assert_eq!(p.limit, Some(10_000));
        assert_eq!((p.warn_percent, p.critical_percent), (80, 95));
        assert!(p.measurable);
        assert_eq!(p.window.as_ref().unwrap().describe(), "month Europe/Berlin");
    }
}
