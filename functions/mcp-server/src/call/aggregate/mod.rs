//! Aggregation tools: compositions declared in the catalog (all pages of list tools, exact
//! decimal sums, counts, group-by, top N) answering in a compact result. A source that fails
//! part-way, or the call's deadline running out, is reported with the figures marked partial,
//! never silently dropped; a figure whose source could not be read at all (refused, not set
//! up, down on its first page) is left out rather than shown as zero, so an aggregation that
//! read nothing answers its status and no figures. Sums use checked arithmetic: an overflow is an `error`, not a panic.
//!
//! The steps, one file each: `template` fills the sources' arguments and the `days` periods
//! from the call's; `read` reads every page of each source; `measure` computes the figures;
//! `answer` puts them in the result, partial where a source failed.

mod answer;
mod measure;
mod read;
mod template;

use std::collections::BTreeMap;

use catalog::{Aggregate, Status};
use serde_json::Value;

use super::outcome::Outcome;
use crate::contract::args::ValidArgs;
use crate::inventory::DeployedCatalog;
use crate::progress::{Pages, Progress};
use crate::upstream::{Credentials, Deadline, Meter, Upstream};

/// Upper bound on pages per source (10,000 items at 100 per page), to protect the quota.
const MAX_PAGES: u32 = 100;

/// The upstream requests an aggregation may send at most: every page of every source (what
/// its budget reservation asks for).
pub(super) fn requests_at_most(agg: &Aggregate) -> u64 {
    agg.sources.len() as u64 * u64::from(MAX_PAGES)
}

/// What reading one source produced.
struct Fetched {
    items: Vec<Value>,
    failure: Option<Outcome>,
    /// Pages read before the failure, if any.
    pages_read: u32,
}

#[expect(
    clippy::too_many_arguments,
    reason = "the call's parts as the stage has them: a struct of them would only rename them"
)]
pub(super) async fn run(
    upstream: &Upstream,
    conn: &DeployedCatalog,
    agg: &Aggregate,
    valid: &ValidArgs,
    deadline: &Deadline,
    meter: &Meter,
    progress: &Progress,
    credentials: Credentials<'_>,
) -> Outcome {
    let vars = template::variables(valid);
    // Day-by-day measures are checked before any request: a bad zone costs no quota.
    let periods = match template::periods(&agg.result, &vars) {
        Ok(p) => p,
        Err(e) => return Outcome::failed(Status::InvalidInput, "invalid_argument", e.0),
    };
    let mut reader = read::Reader {
        upstream,
        conn,
        deadline,
        meter,
        progress,
        credentials,
        quota: None,
        pages: Pages::new(agg.sources.len()),
    };
    let mut fetched = BTreeMap::new();
    for (name, source) in &agg.sources {
        match reader.source(name, source, &vars, &valid.values).await {
            Ok(read) => fetched.insert(name.clone(), read),
            Err(refused) => return refused,
        };
    }
    answer::answer(agg, &fetched, &periods).with_quota(reader.quota)
}
