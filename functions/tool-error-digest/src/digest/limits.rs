//! The "Limits hit" section: `rate_limited` audit events per scope and caller, from the
//! `limits-hit` rows.

use std::collections::BTreeMap;

use crate::rows::{LimitRow, MISSING};

/// Scope/caller pairs shown; the rest are summed in one line.
pub const LIMITS_SHOWN: usize = 10;

/// The caller of a refusal that came before authentication (an IP limit): nobody is known, and
/// the IP itself is never logged.
pub const NO_CALLER: &str = "-";

/// Requests or tool calls one limit refused one caller in the week.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitHit {
    /// The audit reason without `limit_`: `ip`, `caller`, `daily`, `budget`.
    pub scope: String,
    /// The user pseudonym when known, else the key id, else [`NO_CALLER`].
    pub caller: String,
    pub refused: u64,
}

/// One [`LimitHit`] per scope and caller, most refused first (then by scope and caller). Rows of
/// one caller under several key ids, or from several log group batches, are added up.
pub fn limits_hit(rows: &[LimitRow]) -> Vec<LimitHit> {
    let mut counts: BTreeMap<(String, String), u64> = BTreeMap::new();
    for r in rows {
        let reason = r.reason.as_deref().unwrap_or(MISSING);
        let scope = reason.strip_prefix("limit_").unwrap_or(reason).to_string();
        let caller = r
            .user
            .as_deref()
            .or(r.key_id.as_deref())
            .unwrap_or(NO_CALLER)
            .to_string();
        *counts.entry((scope, caller)).or_default() += r.refused;
    }
    let mut hits: Vec<LimitHit> = counts
        .into_iter()
        .filter(|(_, refused)| *refused > 0)
        .map(|((scope, caller), refused)| LimitHit {
            scope,
            caller,
            refused,
        })
        .collect();
    // Stable: ties stay in scope, caller order from the map.
    hits.sort_by_key(|h| std::cmp::Reverse(h.refused));
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(reason: &str, user: Option<&str>, key_id: Option<&str>, refused: u64) -> LimitRow {
        LimitRow {
            reason: Some(reason.into()),
            user: user.map(str::to_string),
            key_id: key_id.map(str::to_string),
            refused,
        }
    }

    fn pairs(hits: &[LimitHit]) -> Vec<(&str, &str, u64)> {
        hits.iter()
            .map(|h| (h.scope.as_str(), h.caller.as_str(), h.refused))
            .collect()
    }

    #[test]
    fn limits_hit_are_counted_per_scope_and_caller_most_first() {
        let hits = limits_hit(&[
            row("limit_ip", None, None, 4),
            row("limit_caller", Some("u_1"), Some("dev"), 5),
            row("limit_caller", Some("u_1"), Some("laptop"), 2),
            row("limit_caller", None, Some("ci"), 2),
            row("limit_budget", Some("u_1"), Some("dev"), 3),
            row("limit_daily", Some("u_2"), Some("dev"), 1),
        ]);
        assert_eq!(
            pairs(&hits),
            [
                ("caller", "u_1", 7),
                ("ip", "-", 4),
                ("budget", "u_1", 3),
                ("caller", "ci", 2),
                ("daily", "u_2", 1),
            ]
        );
    }

    #[test]
    fn the_caller_is_the_pseudonym_then_the_key_id_then_a_dash() {
        let hits = limits_hit(&[
            row("limit_caller", Some("u_9"), Some("dev"), 1),
            row("limit_caller", None, Some("dev"), 1),
            row("limit_ip", None, None, 1),
        ]);
        let callers: Vec<&str> = hits.iter().map(|h| h.caller.as_str()).collect();
        assert_eq!(callers, ["dev", "u_9", "-"]);
    }

    #[test]
    fn batches_add_up_and_odd_reasons_are_kept_as_they_are() {
        let hits = limits_hit(&[
            row("limit_ip", None, None, 2),
            row("limit_ip", None, None, 3),
            row("quota", None, Some("k"), 1),
            LimitRow {
                reason: None,
                user: None,
                key_id: None,
                refused: 1,
            },
            row("limit_daily", None, Some("k"), 0),
        ]);
        assert_eq!(
            pairs(&hits),
            [("ip", "-", 5), ("(none)", "-", 1), ("quota", "k", 1)]
        );
    }

    #[test]
    fn no_rows_no_limits_hit() {
        assert!(limits_hit(&[]).is_empty());
    }
}
