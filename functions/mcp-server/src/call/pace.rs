//! The pace stage: a connector whose upstream declares its own request rate (`quota.rate`:
//! Lexware's two a second per API key) has every request of the call take its turn, one rate
//! for the whole deployment (`limits::Pace`, on the limits table), an aggregation a turn per
//! page. A request waits for its turn within the call's deadline; one whose turn would come
//! too late sends nothing and the call answers `rate_limited` with the seconds to retry
//! (`upstream_rate`, worded with the upstream's other faults). After the call, how long it
//! waited goes to its audit line (`paced_ms`).

use std::sync::Arc;

use crate::inventory::DeployedCatalog;
use crate::limits::Limits;
use crate::upstream::{Meter, Paced};

use super::Outcome;

/// The call's meter, its requests taking turns where the connector declares a rate.
pub(super) fn meter(meter: Meter, limits: &Arc<Limits>, conn: &DeployedCatalog) -> Meter {
    let catalog = &conn.catalog;
    let Some(rate) = catalog.quota.as_ref().and_then(|q| q.rate) else {
        return meter;
    };
    meter.pacing(Paced {
        limits: Arc::clone(limits),
        connector: catalog.connector.to_string(),
        rate,
        request_ms: catalog.timeout_ms,
    })
}

/// After the call: how long its requests waited for their turns, when they did.
pub(super) fn settle(outcome: &mut Outcome, meter: &Meter) {
    let waited = meter.waited_ms();
    if waited > 0 {
        outcome.paced_ms = Some(outcome.paced_ms.unwrap_or(0) + waited);
    }
}
