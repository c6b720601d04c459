//! One tool call as a pipeline of named stages, read top to bottom:
//!
//! 1. **validate** the arguments against the contract (`contract::args`);
//! 2. **policy**: what the risk level asks before the tool may run (`policy`);
//! 3. **budget**: the caller's daily budget of upstream requests on the connector (`budget`);
//! 4. **execute**: one upstream request (`plain`) or an aggregation over pages (`aggregate`),
//!    all within the call's [`Deadline`] and the budget's [`Meter`], what was sent booked;
//! 5. **shape**: the list shape, untrusted marking and the output budget (`shape`).
//!
//! Every stage answers with an [`Outcome`]; the MCP adapter turns it into a result in one place.

pub mod aggregate;
pub mod budget;
pub mod caller;
pub mod outcome;
pub mod policy;
pub mod shape;

pub use caller::Caller;
pub use outcome::Outcome;

use std::sync::Arc;

use catalog::{Status, Tool};
use serde_json::{Map, Value};

use crate::contract::args::{self, ValidArgs};
use crate::inventory::Connector;
use crate::limits::window::now_s;
use crate::limits::{Admission, Limits};
use crate::upstream::{Deadline, Meter, Upstream};

/// What a tool call needs, built once at start.
pub struct Pipeline {
    pub upstream: Upstream,
    /// Where spent upstream requests are booked.
    pub limits: Arc<Limits>,
    /// The default output budget; a tool's `max_result_bytes` overrides it.
    pub max_result_bytes: usize,
}

impl Pipeline {
    /// `admission` is what the edge counted for this call (the caller's budgets); none when
    /// limits are off.
    pub async fn call(
        &self,
        conn: &Connector,
        tool: &Tool,
        arguments: &Map<String, Value>,
        deadline: &Deadline,
        admission: Option<&Admission>,
    ) -> Outcome {
        let valid = match args::validate(tool, arguments) {
            Ok(v) => v,
            Err(e) => return Outcome::failed(Status::InvalidInput, "invalid_argument", e.hint),
        };
        if let Err(refused) = policy::check(tool, &valid) {
            return refused.into();
        }
        let budget = admission.and_then(|a| a.budgets.get(&conn.catalog.connector).copied());
        let meter = match budget::admit(conn, budget) {
            Ok(meter) => meter,
            Err(refused) => return *refused,
        };
        let mut outcome = match &tool.aggregate {
            Some(agg) => aggregate::run(&self.upstream, conn, agg, &valid, deadline, &meter).await,
            None => self.plain(conn, tool, &valid, deadline, &meter).await,
        };
        if let Some(a) = admission {
            self.limits
                .spent(&a.caller, &conn.catalog.connector, meter.sent(), now_s());
        }
        budget::settle(&mut outcome, conn, budget, &meter);
        shape::cap(
            &mut outcome,
            tool.max_result_bytes.unwrap_or(self.max_result_bytes),
        );
        outcome
    }

    /// One upstream request, its answer in the tool's shape.
    async fn plain(
        &self,
        conn: &Connector,
        tool: &Tool,
        valid: &ValidArgs,
        deadline: &Deadline,
        meter: &Meter,
    ) -> Outcome {
        let reply = match self
            .upstream
            .fetch(conn, tool, valid, deadline, meter)
            .await
        {
            Ok(r) => r,
            Err(e) => return Outcome::from_upstream(conn, tool, &e),
        };
        let outcome = match shape::ok(&conn.catalog, tool, valid.list.as_ref(), reply.body) {
            Ok(fields) => {
                let hint = shape::more_hint(&fields);
                Outcome {
                    hint,
                    ..Outcome::ok(fields)
                }
            }
            Err(e) => e.into(),
        };
        outcome.with_http(reply.http_status).with_quota(reply.quota)
    }
}
