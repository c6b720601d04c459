//! Aggregation tools: compositions declared in the catalog (all pages of list tools, exact
//! decimal sums, counts, group-by, top N) answering in a compact result. A source that fails
//! part-way, or the call's deadline running out, is reported with the figures marked partial,
//! never silently dropped; a figure whose source could not be read at all (refused, not set
//! up, down on its first page) is left out rather than shown as zero, so an aggregation that
//! read nothing answers its status and no figures. Sums use checked arithmetic: an overflow is an `error`, not a panic.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::str::FromStr;

use catalog::{Aggregate, Measure, Pager, QuotaFigures, Source, Status, Text};
use rust_decimal::Decimal;
use serde_json::{Map, Value, json};

use super::days::{self, Period};
use super::outcome::Outcome;
use super::shape;
use crate::contract::args::{self, ValidArgs};
use crate::contract::cursor::{Cursor, ListShape};
use crate::inventory::{DeployedCatalog, Registry};
use crate::progress::{self, Pages, Progress, Update};
use crate::upstream::{Credentials, Deadline, Meter, NextPage, NextRefused, Reply, Upstream};

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

/// A sum beyond `Decimal`'s range (about 7.9e28).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the figure `{0}` is beyond the exact decimal range")]
struct Overflow(String);

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
    let vars = variables(valid);
    // Day-by-day measures are checked before any request: a bad zone costs no quota.
    let periods = match periods(&agg.result, &vars) {
        Ok(p) => p,
        Err(e) => return Outcome::failed(Status::InvalidInput, "invalid_argument", e.0),
    };
    let mut reader = Reader {
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
        match reader.source(name, source, &vars).await {
            Ok(read) => fetched.insert(name.clone(), read),
            Err(refused) => return refused,
        };
    }
    answer(agg, &fetched, &periods).with_quota(reader.quota)
}

/// What reading the sources needs, and what it gathers across them: the quota figures of every
/// request, and the pages read for progress.
struct Reader<'a> {
    upstream: &'a Upstream,
    conn: &'a DeployedCatalog,
    deadline: &'a Deadline,
    meter: &'a Meter,
    progress: &'a Progress,
    credentials: Credentials<'a>,
    quota: Option<QuotaFigures>,
    pages: Pages,
}

impl Reader<'_> {
    /// Every page of one source, filtered; a failure part-way is kept beside what was read.
    /// `Err` is a source the catalog declares wrongly or whose arguments do not validate:
    /// nothing is read, and the call answers that.
    async fn source(
        &mut self,
        name: &Text,
        source: &Source,
        vars: &BTreeMap<String, String>,
    ) -> Result<Fetched, Outcome> {
        self.pages.start_source();
        let conn = self.conn;
        let Some(tool) = conn.catalog.tools.iter().find(|t| t.name == source.tool) else {
            return Err(Outcome::failed(
                Status::Error,
                "bad_aggregate",
                format!("Unknown source tool `{}`.", source.tool),
            ));
        };
        let mut arguments = Map::new();
        for (arg, template) in &source.args {
            if let Some(v) = fill(template, vars) {
                arguments.insert(arg.to_string(), v);
            }
        }
        let shape = ListShape::of(&conn.catalog, tool);
        let mut valid = args::validate(tool, shape, &arguments)
            .map_err(|e| Outcome::failed(Status::InvalidInput, "invalid_argument", e.hint))?;
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
        // An unpaged list is read whole in its one answer.
        let page_size = if pager.ask == catalog::Ask::Unpaged {
            u32::MAX
        } else {
            pager.max_page_size.min(100)
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
            let fetched = self
                .upstream
                .fetch(
                    conn,
                    tool,
                    &valid,
                    self.deadline,
                    self.meter,
                    self.credentials,
                )
                .await;
            let reply = match fetched {
                Ok(reply) => reply,
                Err(e) => {
                    self.quota = add_request(self.quota.take(), e.quota());
                    read.failure = Some(Outcome::from_upstream(conn, tool, &e));
                    break;
                }
            };
            self.quota = add_request(self.quota.take(), reply.quota);
            let Some((page_items, more, total_items)) = page_of(&pager, &reply, page, page_size)
            else {
                read.failure = Some(Outcome::failed(
                    Status::Unavailable,
                    "upstream_unexpected_shape",
                    format!(
                        "{} answered `{}` without its list: no data was read from it. \
                         Retry in a few minutes.",
                        Registry::title(&conn.catalog),
                        tool.name
                    ),
                ));
                break;
            };
            read.pages_read += 1;
            read.items.extend(
                page_items
                    .into_iter()
                    .filter(|i| matches(i, &source.filter)),
            );
            self.report(name, page, page_size, total_items, more != More::No);
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

/// The answer from what the sources gave: the figures, or, when a source failed, its status
/// with the figures marked partial (those whose source read nothing left out).
fn answer(
    agg: &Aggregate,
    fetched: &BTreeMap<Text, Fetched>,
    periods: &BTreeMap<Text, Period>,
) -> Outcome {
    let data = match measures(&agg.result, fetched, periods) {
        Ok(data) => data,
        Err(Overflow(name)) => {
            return Outcome::failed(
                Status::Error,
                "decimal_overflow",
                format!(
                    "The figure `{name}` is beyond the exact decimal range (about 7.9e28), so it \
                     cannot be reported exactly: the upstream data holds implausible amounts. \
                     Narrow the period or the filter, and check the amounts with the list tools."
                ),
            );
        }
    };
    let failed: Vec<(&Text, &Outcome)> = fetched
        .iter()
        .filter_map(|(n, f)| f.failure.as_ref().map(|o| (n, o)))
        .collect();
    let Some((_, first)) = failed.first() else {
        return Outcome::ok(super::outcome::data(data));
    };
    let sources: Vec<Value> = failed
        .iter()
        .map(|(n, o)| json!({"source": n, "status": o.status.as_str(), "hint": o.hint}))
        .collect();
    let unread: Vec<&str> = fetched
        .iter()
        .filter(|(_, f)| f.failure.is_some() && f.pages_read == 0)
        .map(|(n, _)| n.as_str())
        .collect();
    let mut data = data;
    let left_out = without_figures_of(&mut data, &agg.result, &unread);
    let names = failed
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let first_hint = first.hint.as_deref().unwrap_or("");
    let mut fields = Map::new();
    fields.insert("failed_sources".into(), sources.into());
    let empty = data.as_object().is_none_or(Map::is_empty);
    if empty {
        return Outcome {
            status: first.status,
            hint: Some(format!(
                "Nothing could be read ({names}), so no figures are given. {first_hint}"
            )),
            reason: first.reason.clone(),
            protocol_error: first.protocol_error,
            ..Outcome::ok(fields)
        };
    }
    let left_out = match left_out.is_empty() {
        true => String::new(),
        false => format!(
            " Left out, as nothing of their source could be read: {}.",
            left_out.join(", ")
        ),
    };
    fields.insert("partial".into(), true.into());
    fields.insert("partial_data".into(), data);
    Outcome {
        status: first.status,
        hint: Some(format!(
            "Part of the data could not be read ({names}); the figures in `partial_data` are \
             incomplete.{left_out} {first_hint}"
        )),
        reason: first.reason.as_ref().map(|r| format!("partial_{r}")),
        ..Outcome::ok(fields)
    }
}

/// Removes from `data` every figure that depends on one of the `unread` sources (directly, or
/// through a difference of figures that do), and answers their names: a figure read from
/// nothing would show as zero, a free day or an empty list, which is a wrong answer.
fn without_figures_of(data: &mut Value, result: &[Measure], unread: &[&str]) -> Vec<String> {
    let mut blind: Vec<&str> = Vec::new();
    for m in result {
        let source = m
            .count
            .as_deref()
            .or(m
                .sum
                .as_deref()
                .map(|s| s.split_once('.').map_or(s, |(s, _)| s)))
            .or(m.top.as_ref().map(|t| t.of.as_str()))
            .or(m.items.as_ref().map(|i| i.of.as_str()))
            .or(m.days.as_ref().map(|d| d.of.as_str()));
        let from_blind = m
            .difference
            .iter()
            .flatten()
            .any(|operand| blind.contains(&operand.as_str()));
        if from_blind || source.is_some_and(|s| unread.contains(&s)) {
            blind.push(&m.name);
        }
    }
    if let Some(figures) = data.as_object_mut() {
        for name in &blind {
            figures.remove(*name);
        }
    }
    blind.into_iter().map(str::to_string).collect()
}

/// The quota figures of the call so far after one more upstream request: the audit line and
/// `_quota` report what the whole call cost, not its last page.
fn add_request(call: Option<QuotaFigures>, request: Option<QuotaFigures>) -> Option<QuotaFigures> {
    match (call, request) {
        (Some(call), Some(request)) => Some(call.followed_by(request)),
        (call, request) => request.or(call),
    }
}

/// The filled and checked period of every `days` measure, by measure name.
fn periods(
    result: &[Measure],
    vars: &BTreeMap<String, String>,
) -> Result<BTreeMap<Text, Period>, days::BadPeriod> {
    let text = |t: &str| match fill(&Value::String(t.to_string()), vars) {
        Some(Value::String(s)) => Ok(s),
        _ => Err(days::BadPeriod(format!(
            "`{t}` has no value: pass the argument it names."
        ))),
    };
    result
        .iter()
        .filter_map(|m| m.days.as_ref().map(|d| (m, d)))
        .map(|(m, d)| {
            let weekdays = d.weekdays.as_deref().map(text).transpose()?;
            let period = Period::resolve(
                d,
                &text(&d.from)?,
                &text(&d.zone)?,
                &text(&d.hours)?,
                weekdays.as_deref(),
            )?;
            Ok((m.name.clone(), period))
        })
        .collect()
}

/// Template variables: the tool's arguments, period bounds from `year`/`month`, and
/// `{week_end}` (the sixth day after a `week_start` date).
fn variables(valid: &ValidArgs) -> BTreeMap<String, String> {
    let mut vars: BTreeMap<String, String> = valid
        .values
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_str().map_or_else(|| v.to_string(), str::to_string),
            )
        })
        .collect();
    let year = valid.values.get("year").and_then(Value::as_i64);
    let month = valid.values.get("month").and_then(Value::as_i64);
    if let Some(y) = year.and_then(|y| i16::try_from(y).ok()) {
        if let Some(m) = month.and_then(|m| i8::try_from(m).ok())
            && let Ok(start) = jiff::civil::Date::new(y, m, 1)
        {
            vars.insert("month_start".into(), start.to_string());
            vars.insert("month_end".into(), start.last_of_month().to_string());
        }
        if let Ok(start) = jiff::civil::Date::new(y, 1, 1) {
            vars.insert("year_start".into(), start.to_string());
            vars.insert("year_end".into(), start.last_of_year().to_string());
        }
    }
    let week_start = valid.values.get("week_start").and_then(Value::as_str);
    if let Some(end) = week_start
        .and_then(|s| s.parse::<jiff::civil::Date>().ok())
        .and_then(|d| d.checked_add(jiff::ToSpan::days(6)).ok())
    {
        vars.insert("week_end".into(), end.to_string());
    }
    vars
}

/// Fills `{name}` placeholders; `None` when one has no value (the argument is left out).
fn fill(template: &Value, vars: &BTreeMap<String, String>) -> Option<Value> {
    let Value::String(text) = template else {
        return Some(template.clone());
    };
    let mut out = text.clone();
    for hole in catalog::placeholders(text) {
        out = out.replace(&format!("{{{hole}}}"), vars.get(hole)?);
    }
    Some(Value::String(out))
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

fn text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

fn matches(item: &Value, filter: &BTreeMap<Text, Vec<Text>>) -> bool {
    filter.iter().all(|(f, allowed)| {
        let value = text(shape::at(item, f));
        allowed.iter().any(|a| *a == value)
    })
}

/// A JSON number or numeric string as an exact decimal (the printed form, not the float).
fn decimal(v: Option<&Value>) -> Option<Decimal> {
    match v? {
        Value::Number(n) => Decimal::from_str(&n.to_string())
            .or_else(|_| Decimal::from_scientific(&n.to_string()))
            .ok(),
        Value::String(s) => Decimal::from_str(s.trim()).ok(),
        _ => None,
    }
}

/// Amounts as strings with two decimals: exact, and unambiguous for a model to read.
fn money(d: Decimal) -> Value {
    let mut d = d.round_dp(2);
    d.rescale(2);
    Value::String(d.to_string())
}

fn measures(
    result: &[Measure],
    fetched: &BTreeMap<Text, Fetched>,
    periods: &BTreeMap<Text, Period>,
) -> Result<Value, Overflow> {
    let mut out = Map::new();
    let mut sums: BTreeMap<&str, Decimal> = BTreeMap::new();
    let items_of = |source: &str, m: &Measure| -> Vec<&Value> {
        fetched
            .get(source)
            .map(|f| f.items.iter().filter(|i| matches(i, &m.filter)).collect())
            .unwrap_or_default()
    };
    for m in result {
        let value = if let Some(source) = &m.count {
            Value::from(items_of(source, m).len())
        } else if let Some(reference) = &m.sum {
            let (source, path) = reference.split_once('.').unwrap_or((reference, ""));
            let total = items_of(source, m)
                .iter()
                .filter_map(|i| decimal(shape::at(i, path)))
                .try_fold(Decimal::ZERO, |sum, d| sum.checked_add(d))
                .ok_or_else(|| Overflow(m.name.to_string()))?;
            sums.insert(&m.name, total);
            money(total)
        } else if let Some([a, b]) = m.difference.as_deref() {
            let total = sums
                .get(a.as_str())
                .copied()
                .unwrap_or_default()
                .checked_sub(sums.get(b.as_str()).copied().unwrap_or_default())
                .ok_or_else(|| Overflow(m.name.to_string()))?;
            sums.insert(&m.name, total);
            money(total)
        } else if let Some(top) = &m.top {
            let mut groups: BTreeMap<String, (Decimal, usize)> = BTreeMap::new();
            for item in items_of(&top.of, m) {
                let g = groups.entry(text(shape::at(item, &top.by))).or_default();
                let amount = top
                    .sum
                    .as_deref()
                    .and_then(|p| decimal(shape::at(item, p)))
                    .unwrap_or_default();
                g.0 =
                    g.0.checked_add(amount)
                        .ok_or_else(|| Overflow(m.name.to_string()))?;
                g.1 += 1;
            }
            let mut ranked: Vec<(String, (Decimal, usize))> = groups.into_iter().collect();
            ranked.sort_by(|x, y| match top.sum {
                Some(_) => y.1.0.cmp(&x.1.0).then(x.0.cmp(&y.0)),
                None => y.1.1.cmp(&x.1.1).then(x.0.cmp(&y.0)),
            });
            Value::Array(
                ranked
                    .into_iter()
                    .take(top.n)
                    .map(|(name, (total, count))| match top.sum {
                        Some(_) => json!({"name": name, "total": money(total), "count": count}),
                        None => json!({"name": name, "count": count}),
                    })
                    .collect(),
            )
        } else if let (Some(spec), Some(period)) = (&m.days, periods.get(m.name.as_str())) {
            days::compute(&items_of(&spec.of, m), spec, period)
        } else if let Some(spec) = &m.items {
            let mut picked = items_of(&spec.of, m);
            picked.sort_by(|x, y| {
                let order = compare(shape::at(x, &spec.sort), shape::at(y, &spec.sort));
                if spec.descending {
                    order.reverse()
                } else {
                    order
                }
            });
            Value::Array(
                picked
                    .into_iter()
                    .take(spec.n)
                    .map(|i| shape::project(i, &spec.fields))
                    .collect(),
            )
        } else {
            Value::Null
        };
        out.insert(m.name.to_string(), value);
    }
    Ok(Value::Object(out))
}

/// Numbers compare as decimals, everything else (ISO dates included) as text.
fn compare(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    match (decimal(a), decimal(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => text(a).cmp(&text(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fetched(items: Vec<Value>) -> BTreeMap<Text, Fetched> {
        BTreeMap::from([(
            "inc".into(),
            Fetched {
                items,
                failure: None,
                pages_read: 1,
            },
        )])
    }

    #[test]
    fn figures_of_a_source_read_from_nothing_are_left_out_with_their_differences() {
        let result = [
            measure(json!({"name": "income", "sum": "inc.total"})),
            measure(json!({"name": "expenses", "sum": "exp.total"})),
            measure(json!({"name": "result", "difference": ["income", "expenses"]})),
            measure(json!({"name": "invoices", "count": "inc"})),
        ];
        let mut data =
            json!({"income": "10.00", "expenses": "0.00", "result": "10.00", "invoices": 2});
        let left_out = without_figures_of(&mut data, &result, &["exp"]);
        assert_eq!(left_out, ["expenses", "result"]);
        assert_eq!(data, json!({"income": "10.00", "invoices": 2}));
    }

    fn measure(v: Value) -> Measure {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn sums_are_exact_decimals_not_floats() {
        let items = (0..10).map(|_| json!({"total": 0.1})).collect();
        let m = [measure(json!({"name": "s", "sum": "inc.total"}))];
        assert_eq!(
            measures(&m, &fetched(items), &BTreeMap::new()).unwrap()["s"],
            json!("1.00")
        );
    }

    #[test]
    fn string_amounts_and_filters_and_differences() {
        let items = vec![
            json!({"amount": "119.0", "state": "paid"}),
            json!({"amount": "80.5", "state": "overdue"}),
            json!({"amount": null, "state": "overdue"}),
        ];
        let m = [
            measure(json!({"name": "all", "sum": "inc.amount"})),
            measure(
                json!({"name": "overdue", "sum": "inc.amount", "where": {"state": ["overdue"]}}),
            ),
            measure(json!({"name": "rest", "difference": ["all", "overdue"]})),
            measure(json!({"name": "n", "count": "inc", "where": {"state": ["overdue"]}})),
        ];
        let out = measures(&m, &fetched(items), &BTreeMap::new()).unwrap();
        assert_eq!(
            out,
            json!({"all": "199.50", "overdue": "80.50", "rest": "119.00", "n": 2})
        );
    }

    #[test]
    fn top_groups_rank_by_sum_then_name() {
        let items = vec![
            json!({"c": {"name": "B"}, "t": 10}),
            json!({"c": {"name": "A"}, "t": 10}),
            json!({"c": {"name": "C"}, "t": 25.5}),
            json!({"c": {"name": "A"}, "t": 1}),
        ];
        let m = [measure(
            json!({"name": "top", "top": {"of": "inc", "by": "c.name", "sum": "t", "n": 2}}),
        )];
        assert_eq!(
            measures(&m, &fetched(items), &BTreeMap::new()).unwrap()["top"],
            json!([{"name": "C", "total": "25.50", "count": 1}, {"name": "A", "total": "11.00", "count": 2}])
        );
    }

    #[test]
    fn items_sort_by_date_and_project_fields() {
        let items = vec![
            json!({"id": 1, "due": "2026-03-01", "x": 1}),
            json!({"id": 2, "due": "2026-01-15", "x": 2}),
        ];
        let m = [measure(
            json!({"name": "next", "items": {"of": "inc", "fields": ["id", "due"], "sort": "due", "n": 1}}),
        )];
        assert_eq!(
            measures(&m, &fetched(items), &BTreeMap::new()).unwrap()["next"],
            json!([{"id": 2, "due": "2026-01-15"}])
        );
    }

    #[test]
    fn a_sum_beyond_the_decimal_range_is_an_error_not_a_panic() {
        let items = (0..3)
            .map(|_| json!({"t": "79228162514264337593543950335"}))
            .collect();
        let m = [measure(json!({"name": "s", "sum": "inc.t"}))];
        assert_eq!(
            measures(&m, &fetched(items), &BTreeMap::new()),
            Err(Overflow("s".into()))
        );
        let items = (0..3)
            .map(|_| json!({"c": "A", "t": "79228162514264337593543950335"}))
            .collect();
        let m = [measure(
            json!({"name": "top", "top": {"of": "inc", "by": "c", "sum": "t", "n": 2}}),
        )];
        assert_eq!(
            measures(&m, &fetched(items), &BTreeMap::new()),
            Err(Overflow("top".into()))
        );
    }

    #[test]
    fn month_variables_cover_the_whole_month() {
        let valid = ValidArgs {
            values: BTreeMap::from([("year".into(), json!(2024)), ("month".into(), json!(2))]),
            ..ValidArgs::default()
        };
        let vars = variables(&valid);
        assert_eq!(vars["month_start"], "2024-02-01");
        assert_eq!(vars["month_end"], "2024-02-29");
        assert_eq!(
            fill(&json!("{month_end}"), &vars),
            Some(json!("2024-02-29"))
        );
        assert_eq!(fill(&json!("{company_id}"), &vars), None);
    }
}
