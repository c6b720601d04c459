//! Walking a list to its end as a model would: each result's `next_cursor` passed back as
//! `cursor`, else its next page number, until `has_more` is false. A page cut to fit the output
//! cap must continue where it was cut, so every walk, with any page size and any cap that lets
//! one item through, returns every record exactly once; here over every list tool of the
//! shipped Papierkram catalog against the sandbox's seeded account (and in `paging` over a fake
//! upstream per paging style). sevdesk and Cal.com have no sandbox with data of their own (their
//! tests run on Prism, which answers each document's examples), so their styles, offset/limit
//! and skip/take, are walked in `paging`.

use std::collections::BTreeMap;

use crate::common::{TestApp, app_with, connector_secrets, tool_result as call};
use serde_json::{Value, json};

/// What a walk saw: every item's id in the order shown, the calls it took, how many of its
/// results the output cap cut and the largest result's size.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    pub ids: Vec<Value>,
    pub calls: usize,
    pub cut: usize,
    pub largest: usize,
}

/// No list in these tests needs more calls than this; a walk that does is going round.
const MAX_CALLS: usize = 2_000;

/// Walks `tool` from `args` (the first page) to the end, following each result's own advice:
/// `next_cursor` as `cursor` when there is one, else `page` + 1; every other argument kept.
pub(crate) async fn walk(app: &TestApp, tool: &str, mut args: Value) -> Walk {
    let mut walk = Walk::default();
    loop {
        walk.calls += 1;
        assert!(
            walk.calls <= MAX_CALLS,
            "{tool} {args}: no end after {MAX_CALLS} calls"
        );
        let r = call(app, tool, args.clone()).await;
        assert_eq!(r["status"], "ok", "{tool} {args}: {r}");
        let items = r["items"]
            .as_array()
            .unwrap_or_else(|| panic!("{tool} {args}: no items: {r}"));
        walk.ids.extend(items.iter().map(|i| i["id"].clone()));
        walk.largest = walk.largest.max(r.to_string().len());
        if r["truncated"] == true {
            walk.cut += 1;
        }
        if r["has_more"] != true {
            assert!(r.get("next_cursor").is_none(), "{r}");
            return walk;
        }
        match (&r["next_cursor"], &r["page"]) {
            (Value::String(cursor), _) => args["cursor"] = json!(cursor),
            (_, Value::Number(page)) => args["page"] = json!(page.as_u64().unwrap() + 1),
            _ => panic!("{tool} {args}: more results, but neither a cursor nor a page: {r}"),
        }
    }
}

/// Every id once: the ids that came more than once, or the walk's ids as a set.
fn once(walk: &Walk) -> Result<Vec<String>, Vec<String>> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for id in &walk.ids {
        *seen.entry(id.to_string()).or_default() += 1;
    }
    let twice: Vec<String> = seen
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(id, _)| id.clone())
        .collect();
    if twice.is_empty() {
        Ok(seen.into_keys().collect())
    } else {
        Err(twice)
    }
}

const TOKEN: &str = "walks-upstream-token-0123";

/// The smallest output cap a deployment takes (`MCP_MAX_RESULT_BYTES`).
const SMALLEST_CAP: usize = 1024;

/// The shipped Papierkram catalog against a fresh sandbox, with `MCP_MAX_RESULT_BYTES` `cap`:
/// the app, the catalog's list tools and the sandbox's company ids.
async fn papierkram(cap: usize) -> (TestApp, Vec<String>, Vec<u64>) {
    let sandbox = papierkram_sandbox::SandboxState::new(TOKEN);
    let companies = sandbox.data().companies.iter().map(|c| c.id).collect();
    let (addr, _handle) = papierkram_sandbox::spawn(sandbox).await.unwrap();
    let catalogs: Vec<catalog::Catalog> = catalog::load_sources(mcp_server::EMBEDDED_CATALOGS)
        .unwrap()
        .into_iter()
        .filter(|c| c.connector == "papierkram")
        .collect();
    let lists = catalogs[0]
        .tools
        .iter()
        .filter(|t| t.list && !t.raw)
        .map(|t| t.name.to_string())
        .collect();
    let base = format!("http://{addr}/api/v1");
    let cap = cap.to_string();
    let env = [
        ("PAPIERKRAM_BASE_URL", base.as_str()),
        ("MCP_MAX_RESULT_BYTES", cap.as_str()),
        ("MCP_LIMITS", "off"),
    ];
    let fields = [("token", TOKEN), ("subdomain", "walks")];
    let app = app_with(&env, catalogs, connector_secrets("papierkram", &fields));
    (app, lists, companies)
}

/// The arguments that make up the whole of a list: none, or one walk per company for a list
/// of one company's records (`company_id` in its path).
fn scopes(tool: &str, companies: &[u64]) -> Vec<Value> {
    if tool == "papierkram_contact_persons_list" {
        companies
            .iter()
            .map(|id| json!({"company_id": id}))
            .collect()
    } else {
        vec![json!({})]
    }
}

/// Per list tool, per scope: the ids an uncut walk returned, each once.
type Expected = BTreeMap<String, Vec<Vec<String>>>;

/// `args` with `page_size` set.
fn sized(args: &Value, size: u32) -> Value {
    let mut args = args.clone();
    args["page_size"] = json!(size);
    args
}

/// Every list tool of the shipped Papierkram catalog walked uncut (a 4 MB cap, pages of 100):
/// each record once, as many as the sandbox's own total for the list, and the largest result.
async fn uncut() -> (Expected, BTreeMap<String, usize>, Vec<u64>, Vec<String>) {
    let (whole, lists, companies) = papierkram(4 * 1024 * 1024).await;
    assert!(lists.len() >= 12, "{lists:?}");
    let mut expected = Expected::new();
    let mut largest = BTreeMap::new();
    for tool in &lists {
        let mut per_scope = Vec::new();
        for args in scopes(tool, &companies) {
            let all = walk(&whole, tool, sized(&args, 100)).await;
            assert_eq!(all.cut, 0, "{tool} {args}: a cap of 4 MB cut a page");
            let ids = once(&all).unwrap_or_else(|twice| panic!("{tool} {args}: twice {twice:?}"));
            let mut count = args.clone();
            count["count_only"] = json!(true);
            let total = call(&whole, tool, count).await;
            assert_eq!(
                total["count"].as_u64(),
                Some(ids.len() as u64),
                "{tool} {args}: the sandbox's total: {total}"
            );
            let most = largest.entry(tool.clone()).or_default();
            *most = all.largest.max(*most);
            per_scope.push(ids);
        }
        assert!(
            per_scope.iter().any(|ids| !ids.is_empty()),
            "{tool}: the sandbox has none"
        );
        expected.insert(tool.clone(), per_scope);
    }
    (expected, largest, companies, lists)
}

/// Walks every list tool with each of `sizes` under output cap `cap`: each walk returns every
/// record of the uncut walk exactly once and no result is over the cap. Gives back, per tool,
/// how many results the cap cut and the largest uncut result.
async fn cut_walks(cap: usize, sizes: &[u32]) -> BTreeMap<String, (usize, usize)> {
    let (expected, largest, companies, lists) = uncut().await;
    let (app, _, _) = papierkram(cap).await;
    let mut cuts = BTreeMap::new();
    for tool in &lists {
        let mut cut = 0;
        for (args, want) in scopes(tool, &companies).iter().zip(&expected[tool]) {
            for &size in sizes {
                let w = walk(&app, tool, sized(args, size)).await;
                cut += w.cut;
                assert!(
                    w.largest <= cap,
                    "{tool} {args} cap {cap} page_size {size}: a result of {} bytes",
                    w.largest
                );
                let got = once(&w).unwrap_or_else(|twice| {
                    panic!("{tool} {args} cap {cap} page_size {size}: shown twice {twice:?}")
                });
                let missing: Vec<&String> = want.iter().filter(|id| !got.contains(id)).collect();
                assert!(
                    missing.is_empty() && got.len() == want.len(),
                    "{tool} {args} cap {cap} page_size {size}: {} of {} records, never \
                     shown: {missing:?}",
                    got.len(),
                    want.len()
                );
            }
        }
        println!("{tool}: cap {cap}, page sizes {sizes:?}: {cut} cut results");
        cuts.insert(tool.clone(), (cut, largest[tool]));
    }
    cuts
}

// Every list tool of the shipped Papierkram catalog against the sandbox, walked with page sizes
// from 1 to 100 under output caps that cut pages (the smallest a deployment takes, and one that
// cuts only larger pages), returns each record exactly once: the records a walk under a cap too
// large to cut returns, as many as the sandbox's own total for the list. No result is over its
// cap. One test per page size (and cap for the large pages), so they run side by side: 2 and 50
// would walk the same code as 3 and 100.

#[tokio::test]
async fn every_papierkram_list_walked_one_record_a_page_under_a_cutting_cap_returns_every_record_once()
 {
    for cap in [SMALLEST_CAP, 3000] {
        cut_walks(cap, &[1]).await;
    }
}

#[tokio::test]
async fn every_papierkram_list_walked_with_small_pages_under_a_cutting_cap_returns_every_record_once()
 {
    for cap in [SMALLEST_CAP, 3000] {
        cut_walks(cap, &[3, 7]).await;
    }
}

/// Pages of 100 under the smallest cap: every list with a result over that cap has results cut.
#[tokio::test]
async fn every_papierkram_list_walked_with_large_pages_under_the_smallest_cap_returns_every_record_once()
 {
    for (tool, (cut, largest)) in cut_walks(SMALLEST_CAP, &[100]).await {
        // A list whose every result fits in the smallest cap has nothing to cut.
        if largest > SMALLEST_CAP {
            assert!(cut > 0, "{tool}: no result cut under the smallest cap");
        }
    }
}

#[tokio::test]
async fn every_papierkram_list_walked_with_large_pages_under_a_larger_cap_returns_every_record_once()
 {
    cut_walks(3000, &[100]).await;
}
