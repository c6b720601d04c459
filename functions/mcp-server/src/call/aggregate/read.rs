//! Reading an aggregation's sources: every page of each list tool (at most [`MAX_PAGES`]),
//! filtered, with the quota figures of every request and progress by pages read; a failure
//! part-way is kept beside what was read.

use std::collections::BTreeMap;

use catalog::{Pager, QuotaFigures, Source, Status, Text, Tool};
use serde_json::{Map, Value};

use super::measure::matches;
use super::template::argument;
use super::{Fetched, MAX_PAGES};
use crate::call::outcome::Outcome;
use crate::contract::args::{self, ValidArgs};
use crate::contract::cursor::{Cursor, ListShape};
use crate::inventory::{DeployedCatalog, Registry};
use crate::progress::{self, Pages, Progress, Update};
use crate::upstream::{Credentials, Deadline, Meter, NextPage, NextRefused, Reply, Upstream};

/// What reading the sources needs, and what it gathers across them: the quota figures of every
/// request, and the pages read for progress.
pub(super) struct Reader<'a> {
    pub(super) upstream: &'a Upstream,
    pub(super) conn: &'a DeployedCatalog,
    pub(super) deadline: &'a Deadline,
    pub(super) meter: &'a Meter,
    pub(super) progress: &'a Progress,
    pub(super) credentials: Credentials<'a>,
    pub(super) quota: Option<QuotaFigures>,
    pub(super) pages: Pages,
}

/// One source as it is read: its name, the list tool it reads and how that tool pages.
struct Listed<'a> {
    name: &'a Text,
    source: &'a Source,
    tool: &'a Tool,
    pager: Pager,
    page_size: u32,
}

impl Reader<'_> {
    /// Every page of one source, filtered; a failure part-way is kept beside what was read.
    /// `Err` is a source the catalog declares wrongly or whose arguments do not validate:
    /// nothing is read, and the call answers that.
    pub(super) async fn source(
        &mut self,
        name: &Text,
        source: &Source,
        vars: &BTreeMap<String, String>,
        values: &BTreeMap<String, Value>,
    ) -> Result<Fetched, Outcome> {
        self.pages.start_source();
        let conn = self.conn;
        let (tool, mut valid, pager) = prepared(conn, source, vars, values)?;
        // An unpaged list is read whole in its one answer.
        let page_size = if pager.ask == catalog::Ask::Unpaged {
            u32::MAX
        } else {
            pager.max_page_size.min(100)
        };
        let listed = Listed {
            name,
            source,
            tool,
            pager,
            page_size,
        };
        let mut read = Fetched {
            items: Vec::new(),
            failure: None,
            pages_read: 0,
        };
        // Lists paged by cursor: where the next page is (none: the first page).
        let mut cursor = None;
        for page in 1..=MAX_PAGES {
            if let Some(list) = valid.list.as_mut() {
                list.page = page;
                list.page_size = page_size;
                list.cursor = cursor.take();
            }
            let more = match self.page(&listed, &valid, page, &mut read).await {
                Ok(more) => more,
                Err(failure) => {
                    read.failure = Some(failure);
                    break;
                }
            };
            match more {
                More::No => break,
                More::Page => {}
                More::After(next) => cursor = Some(next),
                More::Refused(why) => {
                    read.failure = Some(Outcome::failed(
                        Status::Unavailable,
                        "next_page_refused",
                        format!(
                            "{} named a next page of `{}` {why}; it is not followed, so \
                             `{name}` holds only the pages before it.",
                            Registry::title(&conn.catalog),
                            tool.name
                        ),
                    ));
                    break;
                }
            }
            if page == MAX_PAGES {
                read.failure = Some(Outcome::failed(
                    Status::Error,
                    "too_many_pages",
                    format!("`{name}` has more than {MAX_PAGES} pages; narrow the period."),
                ));
            }
        }
        Ok(read)
    }

    /// One page of a source: its items that pass the source's filter added to `read`, the
    /// request's quota counted, progress reported; `Err` is the failure that ends the source.
    async fn page(
        &mut self,
        listed: &Listed<'_>,
        valid: &ValidArgs,
        page: u32,
        read: &mut Fetched,
    ) -> Result<More, Outcome> {
        let (conn, tool) = (self.conn, listed.tool);
        let fetched = self
            .upstream
            .fetch(
                conn,
                tool,
                valid,
                self.deadline,
                self.meter,
                self.credentials,
            )
            .await;
        let mut reply = match fetched {
            Ok(reply) => reply,
            Err(e) => {
                self.quota = add_request(self.quota.take(), e.quota());
                return Err(Outcome::from_upstream(conn, tool, &e));
            }
        };
        self.quota = add_request(self.quota.take(), reply.quota);
        // Items scattered in one answer are gathered into the list its pager reads.
        if let Some(pattern) = &listed.source.items {
            let items = catalog::gather(&reply.body, pattern);
            reply.body = Value::Array(items);
        }
        let Some((page_items, more, total_items)) =
            page_of(&listed.pager, &reply, page, listed.page_size)
        else {
            return Err(Outcome::failed(
                Status::Unavailable,
                "upstream_unexpected_shape",
                format!(
                    "{} answered `{}` without its list: no data was read from it. \
                     Retry in a few minutes.",
                    Registry::title(&conn.catalog),
                    tool.name
                ),
            ));
        };
        read.pages_read += 1;
        read.items.extend(
            page_items
                .into_iter()
                .filter(|i| matches(i, &listed.source.filter)),
        );
        self.report(
            listed.name,
            page,
            listed.page_size,
            total_items,
            more != More::No,
        );
        Ok(more)
    }

    /// One page of `name` read: pages read of pages known, when the client watches.
    fn report(&mut self, name: &Text, page: u32, page_size: u32, total: Option<u64>, more: bool) {
        if !self.progress.wanted() {
            return;
        }
        let ahead = progress::pages_ahead(page, page_size, total, more);
        let (done, total) = self.pages.page_read(ahead);
        self.progress.report(Update {
            done: done as f64,
            total: Some(total as f64),
            message: format!("{name}: read page {page} ({done} of {total} pages known)"),
        });
    }
}

/// The source's list tool, its arguments filled from `vars` and validated, and its paging;
/// `Err` when the catalog declares the source wrongly or its arguments do not validate.
#[expect(
    clippy::result_large_err,
    reason = "a refused source is the call's answer, made once per source, never on a hot path"
)]
fn prepared<'c>(
    conn: &'c DeployedCatalog,
    source: &Source,
    vars: &BTreeMap<String, String>,
    values: &BTreeMap<String, Value>,
) -> Result<(&'c Tool, ValidArgs, Pager), Outcome> {
    let Some(tool) = conn.catalog.tools.iter().find(|t| t.name == source.tool) else {
        return Err(Outcome::failed(
            Status::Error,
            "bad_aggregate",
            format!("Unknown source tool `{}`.", source.tool),
        ));
    };
    let mut arguments = Map::new();
    for (arg, template) in &source.args {
        if let Some(v) = argument(template, vars, values) {
            arguments.insert(arg.to_string(), v);
        }
    }
    let shape = ListShape::of(&conn.catalog, tool);
    let valid = args::validate(tool, shape, &arguments)
        .map_err(|e| Outcome::failed(Status::InvalidInput, "invalid_argument", e.hint))?;
    if source.items.is_some() {
        return Ok((tool, valid, Pager::unpaged("")));
    }
    let Some(pager) = conn.catalog.pager_for(tool) else {
        return Err(Outcome::failed(
            Status::Error,
            "bad_aggregate",
            format!(
                "`{}` is no list: its catalog declares no paging.",
                source.tool
            ),
        ));
    };
    Ok((tool, valid, pager))
}

/// The quota figures of the call so far after one more upstream request: the audit line and
/// `_quota` report what the whole call cost, not its last page.
fn add_request(call: Option<QuotaFigures>, request: Option<QuotaFigures>) -> Option<QuotaFigures> {
    match (call, request) {
        (Some(call), Some(request)) => Some(call.followed_by(request)),
        (call, request) => request.or(call),
    }
}

/// What follows a page an aggregation read.
#[derive(Debug, Clone, PartialEq)]
enum More {
    No,
    /// The next numbered page.
    Page,
    /// The page at this cursor.
    After(Cursor),
    /// A next page the connector may not reach.
    Refused(NextRefused),
}

/// One page's items, what follows and the list's item count when it says one; `None` when the
/// answer has no list. A numbered page is the last when the `more` flag says so or it is short
/// (and, for a declared `paging`, when the total is reached); a page by cursor is the last when
/// it names no next page.
fn page_of(
    pager: &Pager,
    reply: &Reply,
    page: u32,
    size: u32,
) -> Option<(Vec<Value>, More, Option<u64>)> {
    let read = pager.page(&reply.body, page, size)?;
    let items = read.items.to_vec();
    if pager.by_cursor() {
        let more = match &reply.next {
            _ if read.more == Some(false) => More::No,
            None => More::No,
            Some(NextPage::Follow(c)) => More::After(c.clone()),
            Some(NextPage::Refused(why)) => More::Refused(why.clone()),
        };
        return Some((items, more, read.total));
    }
    let reached = pager.infer_more
        && read
            .total
            .is_some_and(|t| u64::from(page) * u64::from(size) >= t);
    let last = !read.more.unwrap_or(true) || items.len() < size as usize || reached;
    let more = if last { More::No } else { More::Page };
    Some((items, more, read.total))
}
