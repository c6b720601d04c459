//! The stages of [`Pipeline::call`] after the budget, each a function with a typed input and
//! output: a stage goes on with its value or answers the call now ([`Flow`]).

use std::ops::ControlFlow;

use catalog::{Status, Tool};
use serde_json::{Map, Value};

use super::consent::{self, Channel, Consent, ConsentCheck, Presented};
use super::outcome::{Outcome, WriteFacts};
use super::{Caller, Pipeline, Request, aggregate, conversation, documents, dry_run, shape};
use crate::clock::now_s;
use crate::contract::args::{self, ValidArgs};
use crate::contract::risk;
use crate::inventory::{DeployedCatalog, Scope, View};
use crate::progress::{self, Progress};
use crate::upstream::{Credentials, Deadline, Happened, Meter, Reply};

/// A stage's result: go on with `T`, or answer the call now with this outcome.
pub(crate) type Flow<T> = ControlFlow<Outcome, T>;

/// A validated call within its budget: what every later stage reads.
pub(super) struct Call<'a> {
    pub(super) conn: &'a DeployedCatalog,
    pub(super) tool: &'a Tool,
    pub(super) valid: &'a ValidArgs,
    deadline: &'a Deadline,
    meter: &'a Meter,
    /// What the caller may call (the dry run's current record).
    view: &'a View,
    /// Where the upstream stage reports its progress.
    progress: &'a Progress,
    /// The tool writes (its audit line carries [`WriteFacts`]).
    pub(super) write: bool,
    /// The deployment's credentials, or the person's own token (the credentials stage).
    credentials: Credentials<'a>,
}

/// What a confirmation token and an idempotency key bind: the caller, the tool, the
/// arguments' digest; and the time the call is judged at.
pub(super) struct Bound {
    /// The caller: the key id, and the user when known.
    pub(super) who: String,
    /// `connector/tool`.
    pub(super) qualified: String,
    pub(super) digest: String,
    pub(super) now: u64,
}

/// What the upstream stage brought: the shaped outcome, and whether a failed write may have
/// happened.
pub(super) struct Executed {
    pub(super) outcome: Outcome,
    pub(super) happened: Happened,
}

/// Validate: the arguments against the contract (and the list shape of its catalog's paging),
/// normalised.
pub(super) fn validate(
    conn: &DeployedCatalog,
    tool: &Tool,
    arguments: &Map<String, Value>,
) -> Flow<ValidArgs> {
    let list = crate::contract::cursor::ListShape::of(&conn.catalog, tool);
    match args::validate(tool, list, arguments) {
        Ok(valid) => ControlFlow::Continue(valid),
        Err(e) => ControlFlow::Break(Outcome::failed(
            Status::InvalidInput,
            "invalid_argument",
            e.hint,
        )),
    }
}

/// Validate a remote MCP tool's arguments against the remote's input schema.
pub(super) fn validate_remote(
    remote: &crate::upstream::remote::RemoteTool,
    arguments: &Map<String, Value>,
) -> Flow<ValidArgs> {
    match crate::contract::json_schema::validate(&remote.tool, &remote.input_schema, arguments) {
        Ok(valid) => ControlFlow::Continue(valid),
        Err(e) => ControlFlow::Break(Outcome::failed(
            Status::InvalidInput,
            "invalid_argument",
            e.hint,
        )),
    }
}

impl<'a> Call<'a> {
    pub(super) fn new(
        conn: &'a DeployedCatalog,
        tool: &'a Tool,
        valid: &'a ValidArgs,
        deadline: &'a Deadline,
        meter: &'a Meter,
        view: &'a View,
        credentials: Credentials<'a>,
    ) -> Self {
        let write = risk::is_write(tool);
        Call {
            conn,
            tool,
            valid,
            deadline,
            meter,
            view,
            progress: &crate::progress::NONE,
            write,
            credentials,
        }
    }

    /// What reading the `current` record for this call may use.
    pub(super) fn reading(&self) -> dry_run::Reading<'_> {
        dry_run::Reading {
            deadline: self.deadline,
            meter: self.meter,
            view: self.view,
            credentials: self.credentials,
        }
    }

    /// The same call with other arguments (the fields `from_current` kept of the record).
    pub(super) fn with_valid<'b>(&self, valid: &'b ValidArgs) -> Call<'b>
    where
        'a: 'b,
    {
        Call {
            valid,
            ..self.with_credentials(self.credentials)
        }
    }

    /// The same call with other credentials (a renewed token).
    pub(super) fn with_credentials<'b>(&self, credentials: Credentials<'b>) -> Call<'b>
    where
        'a: 'b,
    {
        Call {
            credentials,
            ..*self
        }
    }

    /// The same call, reporting its progress to `progress`.
    pub(super) fn reporting(self, progress: &'a Progress) -> Self {
        Call { progress, ..self }
    }

    /// Whether the write stages (dry run, consent, claim, record) apply.
    pub(super) fn guarded(&self) -> bool {
        self.write || risk::needs_confirmation(self.tool)
    }

    pub(super) fn bound(&self, caller: &Caller) -> Bound {
        let connector = &self.conn.catalog.connector;
        Bound {
            who: caller.who(),
            qualified: format!("{connector}/{}", self.tool.name),
            digest: self.valid.digest(connector, &self.tool.name),
            now: now_s(),
        }
    }

    /// The write facts for the audit line, on writes and confirmed calls.
    pub(super) fn facts(
        &self,
        mut outcome: Outcome,
        confirmed_by: Option<&'static str>,
        idempotency: Option<&'static str>,
    ) -> Outcome {
        if self.write || confirmed_by.is_some() {
            outcome.write = Some(WriteFacts {
                dry_run: false,
                confirmed_by,
                idempotency,
            });
        }
        outcome
    }
}

impl Pipeline {
    /// Dry run: a write with `dry_run: true` answers its preview; nothing is written.
    pub(super) async fn dry_run(&self, call: &Call<'_>) -> Flow<()> {
        if !(call.write && call.valid.write.dry_run) {
            return ControlFlow::Continue(());
        }
        let mut outcome = match self.preview(call).await {
            Ok(preview) => dry_run::answer(call.tool, preview),
            Err(outcome) => outcome,
        };
        outcome.write = Some(WriteFacts {
            dry_run: true,
            ..WriteFacts::default()
        });
        ControlFlow::Break(outcome)
    }

    /// Consent: run, refuse, or answer `confirmation_required` with the preview and a token.
    pub(super) async fn consent(
        &self,
        call: &Call<'_>,
        bound: &Bound,
        request: Request<'_>,
    ) -> Flow<Consent> {
        if !risk::needs_confirmation(call.tool) {
            return ControlFlow::Continue(Consent::NotNeeded);
        }
        let keys = self.confirmation_keys().await;
        let elicitation = request.elicitation;
        let presented = Presented {
            token: elicitation
                .accepted
                .map(|t| (t, Channel::Elicitation))
                .or(call
                    .valid
                    .write
                    .confirmation_token
                    .as_deref()
                    .map(|t| (t, Channel::Token))),
            can_elicit: elicitation.available,
            token_confirms_critical: self.token_confirms_critical(&request.caller.scope),
        };
        let Bound {
            who,
            qualified,
            digest,
            now,
        } = bound;
        let outcome =
            match consent::check(call.tool, qualified, presented, who, digest, &keys, *now) {
                ConsentCheck::Go(consent) => return ControlFlow::Continue(consent),
                ConsentCheck::Refuse(outcome) => *outcome,
                ConsentCheck::Ask => match self.preview(call).await {
                    Ok(preview) => {
                        consent::ask(call.tool, qualified, who, digest, &keys, *now, preview)
                    }
                    Err(outcome) => outcome,
                },
            };
        ControlFlow::Break(call.facts(outcome, None, None))
    }

    /// Upstream, then shape: one request in the tool's shape, an aggregation over pages, or a
    /// read of a conversation's inbound events.
    pub(super) async fn execute(&self, call: &Call<'_>) -> Executed {
        let Call {
            conn,
            tool,
            valid,
            deadline,
            meter,
            progress,
            credentials,
            ..
        } = *call;
        if let Some(read) = &tool.inbound {
            let outcome = conversation::read(
                self.inbound.as_ref(),
                &self.upstream.secrets,
                conn,
                (tool, read),
                valid,
                crate::clock::now_s(),
            )
            .await;
            return Executed {
                outcome,
                happened: Happened::No,
            };
        }
        if let Some(agg) = &tool.aggregate {
            let outcome = aggregate::run(
                &self.upstream,
                conn,
                agg,
                valid,
                deadline,
                meter,
                progress,
                credentials,
            )
            .await;
            return Executed {
                outcome,
                happened: Happened::No,
            };
        }
        let fetch = self.upstream.fetch_reporting(
            conn,
            tool,
            valid,
            deadline,
            meter,
            credentials,
            progress,
        );
        // A remote MCP server reports its own progress; a REST request only that it is slow.
        let fetched = if conn.catalog.mcp.is_some() {
            fetch.await
        } else {
            let waiting = || progress::Update {
                done: 0.0,
                total: Some(1.0),
                message: format!(
                    "Waiting for {}'s answer to {}.",
                    crate::inventory::Registry::title(&conn.catalog),
                    tool.name
                ),
            };
            progress::noting_slow(progress, progress::SLOW_AFTER, waiting, fetch).await
        };
        match fetched {
            Ok(reply) => Executed {
                outcome: shaped(call, reply),
                happened: Happened::Yes,
            },
            Err(e) => Executed {
                outcome: Outcome::from_upstream(conn, tool, &e),
                happened: e.happened(),
            },
        }
    }

    /// Precondition: a write that `requires` an open reply window reads it first; a closed
    /// one answers now, before any preview or upstream request.
    pub(super) async fn reply_window(
        &self,
        call: &Call<'_>,
    ) -> Flow<Option<super::window::ReplyWindow>> {
        super::window::check(
            self.inbound.as_ref(),
            &self.upstream.secrets,
            call.conn,
            call.tool,
            call.valid,
            now_s(),
        )
        .await
    }

    async fn preview(&self, call: &Call<'_>) -> Result<super::Preview, Outcome> {
        dry_run::preview(
            &self.upstream,
            call.conn,
            call.tool,
            call.valid,
            call.reading(),
        )
        .await
    }

    pub(super) async fn confirmation_keys(&self) -> Vec<Vec<u8>> {
        match self.upstream.secrets.get().await {
            Ok(s) => s.confirmation_keys.clone(),
            Err(_) => Vec::new(),
        }
    }

    /// Whether this caller's profile lets a token confirm a critical tool.
    fn token_confirms_critical(&self, scope: &Scope) -> bool {
        self.token_confirms_critical
            .iter()
            .any(|p| p == "*" || scope.profile() == Some(p.as_str()))
    }
}

/// Shape: a 2xx answer in the tool's shape (the list shape, untrusted marking, record links),
/// or its document.
fn shaped(call: &Call<'_>, reply: Reply) -> Outcome {
    let catalog = &call.conn.catalog;
    if let Some(document) = reply.document {
        return documents::answer(catalog, call.tool, call.valid, document)
            .with_http(reply.http_status)
            .with_quota(reply.quota);
    }
    // An item's link keeps its place among the items shown (a cut page's rest skips some).
    let skip = call.valid.list.as_ref().map_or(0, |l| l.skip());
    let links = documents::item_links(
        catalog.pager_for(call.tool),
        call.tool,
        call.valid.list.as_ref(),
        &reply.body,
    )
    .into_iter()
    .filter(|l| l.index >= skip)
    .map(|l| super::ItemLink {
        index: l.index - skip,
        ..l
    })
    .collect();
    let mut body = reply.body;
    let attachments = match documents::take_inline(catalog, call.tool, call.valid, &mut body) {
        Ok(attachments) => attachments,
        Err(refused) => {
            return (*refused)
                .with_http(reply.http_status)
                .with_quota(reply.quota);
        }
    };
    if let Some(parts) = call.tool.answer.as_ref().and_then(|a| a.parts.as_ref()) {
        catalog::decode_parts(parts, &mut body);
    }
    let mut outcome = match shape::ok(
        &call.conn.catalog,
        call.tool,
        call.valid.list.as_ref(),
        body,
        reply.next.as_ref(),
    ) {
        Ok(fields) => Outcome {
            hint: shape::more_hint(&fields),
            ..Outcome::ok(fields)
        },
        Err(e) => e.into(),
    };
    if outcome.status == Status::Ok {
        outcome.links = links;
        outcome.attachments = attachments;
        outcome.text = prose(call.tool, &outcome);
    }
    outcome.with_http(reply.http_status).with_quota(reply.quota)
}

/// The answer's prose where the tool declares it (`answer.text`): the string at that pointer of
/// the record.
fn prose(tool: &Tool, outcome: &Outcome) -> Option<String> {
    let pointer = tool.answer.as_ref()?.text.as_deref()?;
    let text = outcome.fields.get("data")?.pointer(pointer)?.as_str()?;
    Some(text.to_string())
}
