//! One tool call as a pipeline of named stages, each a function with a typed input and output
//! (`stages`, `idempotency`, or the stage's own module), read top to bottom in
//! [`Pipeline::call`]:
//!
//! 1. **ask** the person for a missing argument the catalog lets them give, when the client can
//!    show a form, and put the answer in when the call comes back with it (`ask`); then
//!    **validate** the arguments against the contract (`contract::args`; a remote MCP tool's
//!    against the remote's input schema, `contract::json_schema`);
//! 2. **budget**: the caller's daily budget of upstream requests on the connector becomes the
//!    call's [`Meter`](crate::upstream::Meter) (`budget`), whose requests take turns at the
//!    upstream's own rate where the catalog declares one (`pace`); a tool that spends (`spends`)
//!    reserves what its arguments cost of the caller's daily spend in the upstream's unit, or
//!    is refused `rate_limited` (`spend`);
//!    then **credentials**: a connector with `auth: oauth_user` acts with the person's own
//!    token from the vault (`credentials`), refreshed shortly before it expires (`refresh`),
//!    or answers `connection_required` with their link, also when the grant lacks a scope the
//!    tool declares (`scopes`: the link then asks for it);
//! 3. **dry run**: a write with `dry_run: true` answers its [`Preview`] and stops (`dry_run`;
//!    the same preview in a person's words for a confirmation form: `form`);
//! 4. **consent**: what the risk level asks: a `high` or `critical` call runs only with a
//!    confirmation of its preview (`consent`);
//! 5. **idempotency claim**: a confirmed write, or one with an idempotency key, claims the key
//!    in the [`Ledger`], so it runs once (`idempotency`);
//! 6. **upstream**: one request (or an aggregation over pages, `aggregate`, or a read of the
//!    events the upstream pushed to us, `conversation`) within the call's
//!    [`Deadline`] and the budget's meter, reporting pages read of pages known to the call's
//!    [`Progress`] sink (`crate::progress`; a single request only that it is slow, a remote MCP
//!    tool the remote's own figures; the MCP adapter turns it into `notifications/progress` when
//!    the client asked);
//! 7. **shape**: the answer in the tool's shape: the list shape and untrusted marking (`shape`),
//!    a document answer embedded, as an image or as a link, and list items' record links
//!    (`documents`);
//! 8. **record**: the ledger keeps what came of a claimed write (so a retry replays it), or
//!    releases a claim that sent nothing;
//! 9. **settle** the budget: what was sent settles the reservation (the rest is returned), and
//!    a nearly spent budget rides along; the spend is kept when the call started something
//!    upstream, else given back (`spend`);
//! 10. **cap** the result to the output budget (`shape`); a list page cut there continues with
//!     a sealed cursor to its first item not shown (`resume`).
//! 11. **job**: a tool that starts an upstream job (`job` in its catalog) is followed: kept as
//!     a task for a client that holds tasks, else waited for within a bounded time and
//!     answered with its end or `pending` (`job`); a task's later reads and its cancel are
//!     [`Pipeline::task`] and [`Pipeline::cancel_task`].
//!
//! A remote MCP tool's call (`Pipeline::call_remote`) runs the same stages; a remote that asks
//! the person gets its state wrapped in ours and back only for the same call (`rounds`). Which
//! remote tools a caller sees is the pipeline's question too (`remote_tools`): a remote with
//! `auth: oauth_user` lists them to each person with their own token.
//!
//! A stage either goes on with a typed value or answers the call now ([`Flow`]); reads that
//! need no confirmation skip stages 3 to 5 and 8. Every answer is an [`Outcome`]; the MCP
//! adapter turns it into a result in one place.
//!
//! A completion (`completion/complete`) is a path through the same stages: one call of the
//! declared list tool, then matching and a short cache (`complete`, `short_cache`). A federated
//! prompt's argument is completed by its remote instead (`remote_prompt_complete`: one request, counted
//! on the caller's budget like a remote prompt's `prompts/get`, its answer kept in the same kind
//! of short cache).

mod aggregate;
mod ask;
mod budget;
mod caller;
mod complete;
mod connections;
mod consent;
mod conversation;
mod credentials;
mod current_fields;
mod days;
mod documents;
mod dry_run;
mod form;
mod idempotency;
mod job;
mod ledger;
mod outcome;
mod pace;
mod preview;
mod price;
mod refresh;
mod remote_prompt;
mod remote_prompt_complete;
mod remote_tools;
mod resume;
mod rounds;
mod scopes;
mod shape;
mod short_cache;
mod slots;
mod spend;
mod stages;
mod window;

pub(crate) use budget::REASON as BUDGET_REASON;
pub(crate) use caller::{Caller, RequestMeta};
pub(crate) use connections::ConnectionsRequest;
pub(crate) use consent::carries_remote_state;
pub use consent::{Binding, Signer};
pub(crate) use credentials::{LINK_PURPOSE, LINK_TTL_S, LinkFor};
pub(crate) use documents::{Attachment, ItemLink};
pub(crate) use job::{Followed, Jobs, Question, gone as job_gone};
pub(crate) use ledger::Claim;
pub use ledger::{Ledger, TableLedger};
pub(crate) use outcome::{MediaLink, Outcome, ProtocolError, WriteFacts};
pub(crate) use preview::Preview;
pub(crate) use remote_prompt::{PromptAnswer, PromptFailure, PromptRequest};
pub(crate) use remote_prompt_complete::{PromptCompletion, RemoteCompleted};
pub(crate) use remote_tools::RemoteTools;
pub(crate) use rounds::{INVALID_REQUEST_STATE, Resume};
pub(crate) use spend::REASON as SPEND_REASON;
pub(crate) use stages::Flow;
// What the tests of other modules build outcomes with.
#[cfg(test)]
pub(crate) use form::Form;
#[cfg(test)]
pub(crate) use outcome::Confirmation;
#[cfg(test)]
pub(crate) use preview::RequestLine;

use std::ops::ControlFlow;
use std::sync::Arc;

use catalog::Tool;
use serde_json::{Map, Value};
use tracing::Instrument;

use crate::contract::args::ValidArgs;
use crate::inventory::{DeployedCatalog, View};
use crate::limits::Limits;
use crate::progress::Progress;
use crate::telemetry;
use crate::upstream::remote::RemoteTool;
use crate::upstream::{Credentials, Deadline, Upstream};
use crate::vault::VaultStore;
use stages::Call;

/// The upstream requests a call of `tool` may send at most, which the edge reserves of the
/// caller's budget before it runs: one, or every page of an aggregation's sources.
pub(crate) fn requests_at_most(tool: &Tool) -> u64 {
    tool.aggregate
        .as_deref()
        .map_or(1, aggregate::requests_at_most)
}

/// What the client can do for a confirmation, and what it brought back.
#[derive(Debug, Clone, Copy, Default)]
pub struct Elicitation<'a> {
    /// The client can show a person a form.
    pub available: bool,
    /// The token of a form a person accepted (the echoed `requestState`).
    pub accepted: Option<&'a str>,
    /// What the client can answer of a remote tool's input requests: its declared
    /// `elicitation`, `sampling` and `roots` capabilities (2026-07-28), passed on to the remote.
    pub input_capabilities: Option<&'a Map<String, Value>>,
    /// What a retried call brought back besides a confirmation: our state of a question this
    /// call asked (a remote's round, or an argument asked of the person) and the answers.
    pub resumed: Option<Resume<'a>>,
}

/// Who calls, within what time and budget, and what the client can do for a confirmation.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub caller: &'a Caller,
    /// What the caller's profile may call: a dry run shows a current record only when it may
    /// call the tool that reads it.
    pub view: &'a View,
    pub deadline: &'a Deadline,
    /// What the edge counted for this call (the caller's budgets); none when limits are off.
    pub admission: Option<&'a crate::limits::Admission>,
    pub elicitation: Elicitation<'a>,
    /// Where a long call reports pages read of pages known ([`Progress::none`] when nobody
    /// asked).
    pub progress: &'a Progress,
    /// What the client can do with an upstream job that goes on: hold a task, or wait.
    pub jobs: Jobs<'a>,
}

/// What a tool call needs, built once at start.
pub struct Pipeline {
    upstream: Upstream,
    /// Where what a call sent settles its budget reservation.
    limits: Arc<Limits>,
    /// The default output budget; a tool's `max_result_bytes` overrides it.
    max_result_bytes: usize,
    /// Where confirmed and keyed writes are claimed and recorded.
    ledger: Arc<Ledger>,
    /// Profiles (`*`: the whole deployment) whose critical tools accept a confirmation token.
    token_confirms_critical: Vec<String>,
    /// Recent list pages that answer completions.
    completions: complete::Completions,
    /// Recent answers of remotes to completions of their prompts' arguments.
    remote_completions: remote_prompt_complete::RemoteCompletions,
    /// Each person's own upstream tokens (connectors with `auth: oauth_user`).
    vault: Arc<dyn VaultStore>,
    /// The server's public base URL, where `/connect/<connector>` is; none without OAuth.
    connect_base: Option<String>,
    /// The tasks that follow upstream jobs.
    tasks: Arc<crate::tasks::TaskStore>,
    /// How long a call waits for its job when the client holds no tasks.
    job_wait: std::time::Duration,
    /// The events upstreams pushed to `/inbound/<connector>`, for tools that declare `inbound`.
    inbound: Arc<dyn crate::inbound::InboundStore>,
}

impl Pipeline {
    pub fn new(
        upstream: Upstream,
        limits: Arc<Limits>,
        max_result_bytes: usize,
        ledger: Arc<Ledger>,
        token_confirms_critical: Vec<String>,
    ) -> Self {
        Pipeline {
            upstream,
            limits,
            max_result_bytes,
            ledger,
            token_confirms_critical,
            completions: complete::Completions::default(),
            remote_completions: remote_prompt_complete::RemoteCompletions::default(),
            vault: Arc::new(crate::vault::MemoryVault::default()),
            connect_base: None,
            tasks: Arc::new(crate::tasks::TaskStore::default()),
            job_wait: job::DEFAULT_WAIT,
            inbound: Arc::new(crate::inbound::MemoryInbound::default()),
        }
    }

    /// With the store tasks are kept in, and how long a call waits for its job when the client
    /// holds no tasks.
    pub fn with_tasks(
        mut self,
        tasks: Arc<crate::tasks::TaskStore>,
        job_wait: std::time::Duration,
    ) -> Self {
        self.tasks = tasks;
        self.job_wait = job_wait;
        self
    }

    /// Where tasks are kept.
    pub fn tasks(&self) -> &crate::tasks::TaskStore {
        &self.tasks
    }

    /// How long a call waits for its job when the client holds no tasks.
    pub fn job_wait(&self) -> std::time::Duration {
        self.job_wait
    }

    /// With the vault people's own tokens are kept in, and the public base URL their connect
    /// links point at.
    /// Where the tools that declare `inbound` read the events upstreams pushed.
    pub fn with_inbound(mut self, inbound: Arc<dyn crate::inbound::InboundStore>) -> Self {
        self.inbound = inbound;
        self
    }

    pub fn with_vault(mut self, vault: Arc<dyn VaultStore>, connect_base: Option<String>) -> Self {
        self.vault = vault;
        self.connect_base = connect_base;
        self
    }

    /// The upstream client (the `/health` probes and resource reads use it too).
    pub fn upstream(&self) -> &Upstream {
        &self.upstream
    }

    /// One tool call, stage by stage.
    pub async fn call(
        &self,
        conn: &DeployedCatalog,
        tool: &Tool,
        arguments: &Map<String, Value>,
        request: Request<'_>,
    ) -> Outcome {
        if let Some(refused) = job::needs_a_task(tool, request.jobs) {
            return refused;
        }
        let keys = match ask::asks(tool) {
            true => self.confirmation_keys().await,
            false => Vec::new(),
        };
        let elicitation = request.elicitation;
        let arguments = match ask::fill(
            &keys,
            request.caller,
            &conn.catalog.connector,
            tool,
            arguments,
            elicitation.available,
            elicitation.resumed,
        ) {
            ControlFlow::Continue(arguments) => arguments,
            ControlFlow::Break(answer) => return answer,
        };
        let valid = match telemetry::stage("validate")
            .in_scope(|| stages::validate(conn, tool, &arguments))
        {
            ControlFlow::Continue(valid) => valid,
            ControlFlow::Break(answer) => return answer,
        };
        let outcome = self.validated(conn, tool, &valid, request).await;
        match tool.job.as_deref() {
            Some(job) => {
                // The job's answer is a new outcome: what starting it spent stays on it.
                let spent = outcome.spent.clone();
                let left = outcome.fields.get("_spend").cloned();
                let mut followed = Box::pin(self.job(conn, tool, job, outcome, request))
                    .instrument(telemetry::stage("job"))
                    .await;
                followed.spent = followed.spent.or(spent);
                if let Some(left) = left {
                    followed.fields.entry("_spend").or_insert(left);
                }
                followed
            }
            None => outcome,
        }
    }

    /// One call of a remote MCP server's tool: its arguments validated against the remote's
    /// own input schema, then the same stages as a catalog tool's.
    pub async fn call_remote(
        &self,
        conn: &DeployedCatalog,
        remote: &RemoteTool,
        arguments: &Map<String, Value>,
        request: Request<'_>,
    ) -> Outcome {
        let mut valid = match telemetry::stage("validate")
            .in_scope(|| stages::validate_remote(remote, arguments))
        {
            ControlFlow::Continue(valid) => valid,
            ControlFlow::Break(answer) => return answer,
        };
        let connector = &conn.catalog.connector;
        let keys = self.confirmation_keys().await;
        // Without keys no question can be passed on (its state could not be signed), so the
        // remote hears that the client answers nothing.
        if !keys.is_empty() {
            valid.remote.capabilities = request
                .elicitation
                .input_capabilities
                .cloned()
                .unwrap_or_default();
        }
        if let Some(resume) = request.elicitation.resumed
            && let Err(refused) = rounds::resume(
                &keys,
                request.caller,
                connector,
                rounds::Asking::Tool(&remote.tool),
                &mut valid,
                resume,
            )
        {
            return *refused;
        }
        let mut outcome = self.validated(conn, &remote.tool, &valid, request).await;
        rounds::wrap(
            &keys,
            request.caller,
            connector,
            &remote.tool,
            &valid,
            &mut outcome,
        );
        outcome
    }

    /// Credentials: the person's entry (for an `oauth_user` connector), refreshed when it is
    /// about to expire; `None` for the deployment's.
    async fn credentials(
        &self,
        conn: &DeployedCatalog,
        needed: &[catalog::Text],
        caller: &Caller,
        connect: &credentials::ConnectLinks<'_>,
        now: u64,
    ) -> stages::Flow<Option<(crate::vault::EntryKey, crate::upstream::PersonToken)>> {
        let vault = &*self.vault;
        let Some((key, stored)) =
            credentials::lookup(vault, conn, needed, caller, connect, now).await?
        else {
            return ControlFlow::Continue(None);
        };
        let token = refresh::fresh(vault, &self.upstream, conn, &key, stored, connect, now).await?;
        ControlFlow::Continue(Some((key, token)))
    }

    /// Budget → guarded stages → settle → cap, for validated arguments.
    async fn validated(
        &self,
        conn: &DeployedCatalog,
        tool: &Tool,
        valid: &ValidArgs,
        request: Request<'_>,
    ) -> Outcome {
        let budget = request
            .admission
            .and_then(|a| a.budgets.get(conn.catalog.connector.as_str()).copied());
        let meter = match budget::admit(conn, budget) {
            Ok(meter) => pace::meter(meter, &self.limits, conn),
            Err(refused) => return *refused,
        };
        let spending = spend::reserve(&self.limits, conn, tool, valid, request.caller)
            .instrument(telemetry::stage("budget"))
            .await;
        let spending = match spending {
            ControlFlow::Continue(spending) => spending,
            ControlFlow::Break(refused) => {
                if let Some(a) = request.admission {
                    self.limits.settle(a, &conn.catalog.connector, 0);
                }
                return refused;
            }
        };
        let keys = match conn.catalog.auth.oauth_user {
            Some(_) => self.confirmation_keys().await,
            None => Vec::new(),
        };
        let connect = credentials::ConnectLinks {
            base: self.connect_base.as_deref(),
            keys: &keys,
        };
        let now = crate::clock::now_s();
        let person = self
            .credentials(conn, &tool.scopes, request.caller, &connect, now)
            .instrument(telemetry::stage("credentials"))
            .await;
        let mut outcome = match person {
            ControlFlow::Break(refused) => refused,
            ControlFlow::Continue(person) => {
                let owner = person.as_ref().map(|(key, _)| key.person().id());
                let as_who = match (&person, &owner) {
                    (Some((_, token)), Some(owner)) => Credentials::Person { owner, token },
                    _ => Credentials::Deployment,
                };
                let call = Call::new(
                    conn,
                    tool,
                    valid,
                    request.deadline,
                    &meter,
                    request.view,
                    as_who,
                )
                .reporting(request.progress);
                let outcome = self.run(&call, request).await;
                match (&person, &owner) {
                    (Some((key, _)), Some(owner)) if outcome.http_status == Some(401) => {
                        self.token_refused(&call, owner, key, &connect, now, request)
                            .await
                    }
                    _ => outcome,
                }
            }
        };
        telemetry::stage("settle").in_scope(|| {
            if let Some(a) = request.admission {
                self.limits.settle(a, &conn.catalog.connector, meter.sent());
            }
            budget::settle(&mut outcome, conn, budget, &meter);
            pace::settle(&mut outcome, &meter);
            spend::settle(spending.as_ref(), &mut outcome, conn, meter.sent());
        });
        let max_bytes = tool.max_result_bytes.unwrap_or(self.max_result_bytes);
        let keys = match &valid.list {
            Some(_) if !keys.is_empty() => keys,
            Some(_) => self.confirmation_keys().await,
            None => Vec::new(),
        };
        let by_cursor = conn.catalog.pager_for(tool).is_some_and(|p| p.by_cursor());
        telemetry::stage("cap").in_scope(|| {
            match resume::Continuation::of(&tool.name, valid, by_cursor, &keys) {
                Some(resume) => resume::cap(&mut outcome, max_bytes, &resume),
                None => shape::cap(&mut outcome, max_bytes),
            }
        });
        outcome
    }

    /// The guarded stages' outcome, however they ended.
    async fn run(&self, call: &Call<'_>, request: Request<'_>) -> Outcome {
        match self.guarded(call, request).await {
            ControlFlow::Continue(outcome) | ControlFlow::Break(outcome) => outcome,
        }
    }

    /// An upstream 401 with the person's token: their refresh token renews it once, and a read
    /// is asked again with the new token. A write is not repeated here (its consent and claim
    /// were spent on the refused attempt): it answers that the connection was renewed and the
    /// call may be made again. No renewal, or a 401 again, clears the entry and asks the person
    /// to connect again.
    async fn token_refused(
        &self,
        call: &Call<'_>,
        owner: &str,
        key: &crate::vault::EntryKey,
        connect: &credentials::ConnectLinks<'_>,
        now: u64,
        request: Request<'_>,
    ) -> Outcome {
        let (vault, conn) = (&*self.vault, call.conn);
        let token =
            match refresh::after_refused(vault, &self.upstream, conn, key, connect, now).await {
                ControlFlow::Continue(token) => token,
                ControlFlow::Break(mut refused) => {
                    refused.http_status = Some(401);
                    return refused;
                }
            };
        if call.guarded() {
            let title = crate::inventory::Registry::title(&conn.catalog);
            return Outcome::failed(
                catalog::Status::Unavailable,
                "grant_renewed",
                format!(
                    "{title} refused your connection's token, which has now been renewed; {title} \
                     did not carry out this call. Call the tool again."
                ),
            );
        }
        let again = call.with_credentials(Credentials::Person {
            owner,
            token: &token,
        });
        let outcome = self.run(&again, request).await;
        if outcome.http_status != Some(401) {
            return outcome;
        }
        let mut refused = refresh::give_up(vault, &self.upstream, conn, key, connect, now).await;
        refused.http_status = Some(401);
        refused
    }

    /// Dry run → consent → idempotency claim → upstream → shape → record, for a validated
    /// call within its budget. A read that needs no confirmation goes straight to the
    /// upstream: reads pay for none of the write stages.
    async fn guarded(&self, call: &Call<'_>, request: Request<'_>) -> Flow<Outcome> {
        if !call.guarded() {
            return ControlFlow::Continue(self.upstream_stage(call).await.outcome);
        }
        // An update that sends back fields of the record reads them first (`from_current`).
        let kept = current_fields::keep(
            &self.upstream,
            call.conn,
            call.tool,
            call.valid,
            call.reading(),
        )
        .instrument(telemetry::stage("current_fields"))
        .await;
        let kept = match kept {
            Ok(kept) => kept,
            Err(refused) => return ControlFlow::Break(refused),
        };
        let with_kept = kept.as_ref().map(|valid| call.with_valid(valid));
        let call = with_kept.as_ref().unwrap_or(call);
        let window = self
            .reply_window(call)
            .instrument(telemetry::stage("reply_window"))
            .await?;
        let shown = |outcome| window::shown(outcome, window.as_ref());
        self.dry_run(call)
            .instrument(telemetry::stage("dry_run"))
            .await
            .map_break(shown)?;
        let bound = call.bound(request.caller);
        let consent = self
            .consent(call, &bound, request)
            .instrument(telemetry::stage("consent"))
            .await
            .map_break(shown)?;
        let claimed = self
            .claim(call, &bound, &consent)
            .instrument(telemetry::stage("idempotency"))
            .await?;
        let Some(key) = claimed else {
            let outcome = self.upstream_stage(call).await.outcome;
            return ControlFlow::Continue(call.facts(outcome, consent.channel(), None));
        };
        let executed = self.upstream_stage(call).await;
        self.record(&key, &executed)
            .instrument(telemetry::stage("record"))
            .await;
        ControlFlow::Continue(call.facts(executed.outcome, consent.channel(), Some("new")))
    }

    /// The upstream stage (`execute`) in its span. Boxed: the stage's future (an aggregation's
    /// kilobytes in a debug build) is then held once, on the heap, not copied into each frame
    /// that awaits it.
    async fn upstream_stage(&self, call: &Call<'_>) -> stages::Executed {
        Box::pin(self.execute(call))
            .instrument(telemetry::stage("upstream"))
            .await
    }
}
