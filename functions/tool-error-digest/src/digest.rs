//! Building the digest from typed query rows: pure data in, [`Digest`] out, no SDK types.
//!
//! A call failed when its status is not `ok`. Tools are ranked by failed calls, then by error
//! rate, then by name. A tool is newly failing when it had failed calls this week and none the
//! week before (whether or not it was called then).

use jiff::Timestamp;
use jiff::civil::Date;

use crate::period::Period;
use crate::rows::{
    DayRow, FailureRow, LatencyRow, LimitRow, MissRow, Sample, SpendRow, TotalRow, WriteRow,
};
use crate::trace::Region;

mod build;
mod connectors;
mod latency;
mod limits;
mod missing;
mod spend;
mod writes;
pub use build::build;
pub use connectors::{CONNECTOR_TOOLS_SHOWN, ConnectorFailures, connector_failures};
pub use latency::{LATENCY_SHOWN, ToolLatency, tool_latency};
pub use limits::{LIMITS_SHOWN, LimitHit, NO_CALLER, limits_hit};
pub use missing::{
    MISSING_SHOWN, Miss, MissingCapabilities, NO_MATCH_PREFIX, UNKNOWN_TOOL, missing_capabilities,
    no_match_words,
};
pub use spend::{ConnectorSpend, SPEND_TOOLS_SHOWN, ToolSpend, spend};
pub use writes::{ToolWrites, WRITES_SHOWN, Writes, writes};

/// Tools shown in detail.
pub const TOP_TOOLS: usize = 5;
/// Sample requests per top tool.
pub const SAMPLES_PER_TOOL: usize = 3;

/// What the queries returned for the digest's week.
#[derive(Debug, Clone, Default)]
pub struct ThisWeek {
    pub totals: Vec<TotalRow>,
    pub failures: Vec<FailureRow>,
    pub per_day: Vec<DayRow>,
    /// `limits-hit`: refusals by a rate limit or budget.
    pub limits: Vec<LimitRow>,
    /// `tool-latency`: call durations per tool.
    pub latency: Vec<LatencyRow>,
    /// `missing-capabilities`: searches without a match, calls of unknown tools.
    pub missing: Vec<MissRow>,
    /// `writes`: calls of write tools per connector and tool.
    pub writes: Vec<WriteRow>,
    /// `spend`: what calls of tools that spend spent, per connector, unit and tool.
    pub spend: Vec<SpendRow>,
}

/// Everything [`build`] needs.
#[derive(Debug, Clone)]
pub struct Input {
    pub period: Period,
    pub this_week: ThisWeek,
    /// `tool-totals` over the week before.
    pub previous_totals: Vec<TotalRow>,
    /// `tool-latency` over the week before.
    pub previous_latency: Vec<LatencyRow>,
    pub dashboard_url: Option<String>,
    /// The region whose console the trace links open; without one, no links.
    pub trace_region: Option<Region>,
    /// A query returned the 10,000-row maximum, so counts may be short.
    pub truncated_by_row_cap: bool,
    /// Result rows that could not be read (logged with their content).
    pub unreadable_rows: usize,
}

/// Calls and failed calls over a week.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    pub calls: u64,
    pub errors: u64,
    /// Tools called at least once.
    pub tools_called: usize,
    /// Tools with at least one failed call.
    pub tools_failing: usize,
}

impl Totals {
    /// Failed calls per call, `None` without calls.
    pub fn error_rate(&self) -> Option<f64> {
        rate(self.errors, self.calls)
    }
}

/// How a count moved against the week before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trend {
    /// Nothing the week before, something now.
    New,
    Up(u64),
    Down(u64),
    Unchanged,
}

impl Trend {
    pub fn of(previous: u64, now: u64) -> Trend {
        match (previous, now) {
            (0, n) if n > 0 => Trend::New,
            (p, n) if n > p => Trend::Up(n - p),
            (p, n) if n < p => Trend::Down(p - n),
            _ => Trend::Unchanged,
        }
    }
}

/// One status/reason combination of a tool's failed calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    pub status: String,
    pub reason: Option<String>,
    pub errors: u64,
    pub last_seen: Option<Timestamp>,
}

/// A top failing tool, in detail.
#[derive(Debug, Clone, PartialEq)]
pub struct FailingTool {
    pub tool: String,
    pub calls: u64,
    pub errors: u64,
    pub previous_calls: u64,
    pub previous_errors: u64,
    /// Most failed calls first.
    pub causes: Vec<Cause>,
    pub last_seen: Option<Timestamp>,
    /// The latest failed calls, at most [`SAMPLES_PER_TOOL`].
    pub samples: Vec<Sample>,
    /// Why there are no samples, when they could not be fetched.
    pub samples_note: Option<String>,
}

impl FailingTool {
    pub fn error_rate(&self) -> Option<f64> {
        rate(self.errors, self.calls)
    }

    pub fn trend(&self) -> Trend {
        Trend::of(self.previous_errors, self.errors)
    }

    pub fn is_new(&self) -> bool {
        self.previous_errors == 0
    }
}

/// A tool failing this week with no failed call the week before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewlyFailing {
    pub tool: String,
    pub errors: u64,
    /// It was called the week before (without failing), rather than not at all.
    pub called_before: bool,
}

/// Failed calls per day of the period for the top tools, for the chart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chart {
    pub days: Vec<Date>,
    /// `(tool, failed calls per day)`, in top-tool order.
    pub series: Vec<(String, Vec<u64>)>,
}

impl Chart {
    /// The largest stacked day total.
    pub fn max_day_total(&self) -> u64 {
        (0..self.days.len())
            .map(|d| self.series.iter().map(|(_, v)| v[d]).sum::<u64>())
            .max()
            .unwrap_or(0)
    }
}

/// The state the subject line announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Calls, some failed.
    Failing,
    /// Calls, none failed.
    AllClear,
    /// No tool call at all: the server was idle, or the audit logs are not where we look.
    NoCalls,
}

/// The weekly digest.
#[derive(Debug, Clone, PartialEq)]
pub struct Digest {
    pub period: Period,
    pub totals: Totals,
    pub previous_totals: Totals,
    /// The top [`TOP_TOOLS`] failing tools.
    pub top: Vec<FailingTool>,
    /// Failing tools beyond the top ones: how many, and their failed calls.
    pub other_failing: (usize, u64),
    /// Most failed calls first.
    pub newly_failing: Vec<NewlyFailing>,
    /// Tools that failed the week before and were called without failing this week.
    pub recovered: Vec<String>,
    pub chart: Chart,
    /// Requests and tool calls refused by a limit, per scope and caller, most first.
    pub limits_hit: Vec<LimitHit>,
    /// Call durations per tool, slowest p95 first.
    pub latency: Vec<ToolLatency>,
    /// What searches and calls asked for that no tool could do.
    pub missing: MissingCapabilities,
    /// Calls of write tools: executed, previewed, confirmed, refused, unknown outcomes.
    pub writes: Writes,
    /// What calls of tools that spend spent, per connector in its unit and per tool.
    pub spend: Vec<ConnectorSpend>,
    /// One section per connector with failed calls, most failed first.
    pub connectors: Vec<ConnectorFailures>,
    pub dashboard_url: Option<String>,
    /// The region whose console the trace links open; without one, no links.
    pub trace_region: Option<Region>,
    pub truncated_by_row_cap: bool,
    pub unreadable_rows: usize,
}

impl Digest {
    pub fn state(&self) -> State {
        match (self.totals.calls, self.totals.errors) {
            (0, 0) => State::NoCalls,
            (_, 0) => State::AllClear,
            _ => State::Failing,
        }
    }

    /// Overall failed calls per call.
    pub fn error_rate(&self) -> Option<f64> {
        self.totals.error_rate()
    }

    /// `3 tools failing, 1 new — week 48`, `All clear — week 48`, `No tool calls — week 48`.
    pub fn subject(&self) -> String {
        let week = self.period.week();
        match self.state() {
            State::Failing => {
                let n = self.totals.tools_failing;
                let tools = if n == 1 { "tool" } else { "tools" };
                let new = match self.newly_failing.len() {
                    0 => "none new".to_string(),
                    k => format!("{k} new"),
                };
                format!("{n} {tools} failing, {new} — week {week}")
            }
            State::AllClear => format!("All clear — week {week}"),
            State::NoCalls => format!("No tool calls — week {week}"),
        }
    }

    /// Whether to mail this digest: always, except a clean week when all-clear mails are off.
    /// A week without calls is sent regardless: it may mean the audit logs went missing. So is a
    /// week in which a limit refused something: a caller in a loop, or a cap set too low.
    pub fn should_send(&self, send_all_clear: bool) -> bool {
        self.state() != State::AllClear || send_all_clear || !self.limits_hit.is_empty()
    }

    /// Requests and tool calls refused by a limit in the week.
    pub fn refused(&self) -> u64 {
        self.limits_hit.iter().map(|h| h.refused).sum()
    }

    /// The tools whose latest failed calls the digest shows: the top tools, then each
    /// connector's worst tool, each once.
    pub fn sample_tools(&self) -> Vec<String> {
        let mut tools: Vec<String> = self.top.iter().map(|t| t.tool.clone()).collect();
        for c in &self.connectors {
            if !tools.iter().any(|t| t == c.worst_tool()) {
                tools.push(c.worst_tool().to_string());
            }
        }
        tools
    }

    /// Attaches the samples fetched for a tool, the latest [`SAMPLES_PER_TOOL`], to its top tool
    /// entry and to the section of the connector whose worst tool it is.
    pub fn set_samples(&mut self, tool: &str, mut samples: Vec<Sample>) {
        samples.sort_by_key(|s| std::cmp::Reverse(s.time));
        samples.truncate(SAMPLES_PER_TOOL);
        if let Some(t) = self.top.iter_mut().find(|t| t.tool == tool) {
            t.samples = samples.clone();
        }
        for c in self
            .connectors
            .iter_mut()
            .filter(|c| c.worst_tool() == tool)
        {
            c.worst = samples.clone();
        }
    }

    /// Records why a tool has no samples.
    pub fn set_samples_note(&mut self, tool: &str, note: String) {
        if let Some(t) = self.top.iter_mut().find(|t| t.tool == tool) {
            t.samples_note = Some(note.clone());
        }
        for c in self
            .connectors
            .iter_mut()
            .filter(|c| c.worst_tool() == tool)
        {
            c.samples_note = Some(note.clone());
        }
    }
}

pub(crate) fn rate(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}
