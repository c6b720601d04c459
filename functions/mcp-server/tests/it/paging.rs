//! Declared paging against a fake upstream that speaks each style: numbered pages from 1 and
//! from 0, offset/limit (sevdesk's `{"objects": […]}`, no total), skip/take in Cal.com's
//! envelope, a cursor in the body (Google's `pageToken`), the next page's URL in the body
//! (Graph's `@odata.nextLink`; refused to another host or base path), an RFC 8288 `Link`
//! header over a bare array, an unpaged list cut into the model's pages; aggregations reading
//! every page by cursor, by `Link` and of an unpaged list in one request; a dry run's current
//! record on a connector that pages by cursor; the shipped Cal.com catalog, whose bookings
//! page by skip/take and whose event types and schedules come unpaged, answering one list
//! shape. Each test records what arrived and checks what the model got.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use crate::common::{
    TestApp, app_with, connector_secrets, serve_fake_upstream, tool_result as call,
};
use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use http::Request;
use serde_json::{Value, json};

/// The paging the fake upstream speaks.
#[derive(Clone, Copy, Debug)]
enum Speaks {
    /// `page` from 1, `per_page`; `{"data": […], "meta": {"total": 7}}`.
    Pages,
    /// `p` from 0, `size`; `{"items": […], "more": bool}`.
    PagesFromZero,
    /// `offset`, `limit`; `{"objects": […]}`.
    OffsetLimit,
    /// `skip`, `take`; Cal.com's `{status, data, pagination: {totalItems, hasNextPage}}`.
    SkipTake,
    /// `pageToken`, `pageSize`; `{"files": […], "nextPageToken": "…"}`.
    Token,
    /// Three a page from `cursor`; `{"value": […], "@odata.nextLink": "<next_base>?cursor=…"}`.
    NextLink,
    /// `page` from 1, `per_page`; a bare array and `Link: <…>; rel="next"`.
    Link,
    /// No paging: every item at once in `{"status": "success", "data": […]}`.
    Unpaged,
}

#[derive(Clone)]
struct Fake {
    speaks: Speaks,
    /// Where `NextLink` and `Link` point (`{host}` is the fake's own address).
    next_base: Arc<Mutex<String>>,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Fake {
    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
    fn last(&self) -> String {
        self.seen().pop().expect("the upstream saw a request")
    }
}

/// Seven items, ids 1 to 7, each worth 1.50, with a note long enough that a small output cap
/// cuts a page.
fn items(from: usize, n: usize) -> Vec<Value> {
    (from..(from + n).min(7))
        .map(|i| {
            json!({"id": i + 1, "name": format!("item {}", i + 1), "amount": "1.50",
                   "note": "n".repeat(300)})
        })
        .collect()
}

async fn fake(State(fake): State<Fake>, request: Request<axum::body::Body>) -> Response {
    let target = request
        .uri()
        .path_and_query()
        .map(|p| p.to_string())
        .unwrap_or_default();
    fake.seen.lock().unwrap().push(target);
    let host = request
        .headers()
        .get("host")
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default()
        .to_string();
    if !request.uri().path().ends_with("/items") {
        return axum::Json(json!({"data": {"id": 7, "name": "old name"}})).into_response();
    }
    let query: HashMap<String, String> = request
        .uri()
        .query()
        .map(|q| {
            url_pairs(q)
                .into_iter()
                .collect::<HashMap<String, String>>()
        })
        .unwrap_or_default();
    let num = |name: &str, default: usize| {
        query
            .get(name)
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let body = match fake.speaks {
        Speaks::Pages => {
            let size = num("per_page", 10);
            json!({"data": items((num("page", 1) - 1) * size, size), "meta": {"total": 7}})
        }
        Speaks::PagesFromZero => {
            let size = num("size", 10);
            let from = num("p", 0) * size;
            json!({"items": items(from, size), "more": from + size < 7})
        }
        Speaks::OffsetLimit => json!({"objects": items(num("offset", 0), num("limit", 10))}),
        Speaks::Unpaged => json!({"status": "success", "data": items(0, 7)}),
        Speaks::SkipTake => {
            let (skip, take) = (num("skip", 0), num("take", 10));
            json!({"status": "success", "data": items(skip, take),
                   "pagination": {"totalItems": 7, "hasNextPage": skip + take < 7,
                                  "itemsPerPage": take}})
        }
        Speaks::Token => {
            let from = query
                .get("pageToken")
                .and_then(|t| t.strip_prefix("tok-"))
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let size = num("pageSize", 10);
            let mut body = json!({"files": items(from, size)});
            if from + size < 7 {
                body["nextPageToken"] = json!(format!("tok-{}", from + size));
            }
            body
        }
        Speaks::NextLink => {
            let from = num("cursor", 0);
            let next = fake.next_base.lock().unwrap().replace("{host}", &host);
            let link = (from + 3 < 7).then(|| format!("{next}?cursor={}", from + 3));
            json!({"value": items(from, 3), "@odata.nextLink": link})
        }
        Speaks::Link => {
            let (page, size) = (num("page", 1), num("per_page", 10));
            let next = fake.next_base.lock().unwrap().replace("{host}", &host);
            let mut response = axum::Json(json!(items((page - 1) * size, size))).into_response();
            let last = 7usize.div_ceil(size);
            let mut links = vec![format!(
                "<{next}?page={last}&per_page={size}>; rel=\"last\""
            )];
            if page < last {
                links.insert(
                    0,
                    format!("<{next}?page={}&per_page={size}>; rel=\"next\"", page + 1),
                );
            }
            response
                .headers_mut()
                .insert("link", links.join(", ").parse().unwrap());
            return response;
        }
    };
    axum::Json(body).into_response()
}

/// `a=1&b=2` as decoded pairs.
fn url_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| {
            let decode = |s: &str| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8_lossy()
                    .into_owned()
            };
            (decode(k), decode(v))
        })
        .collect()
}

async fn spawn(speaks: Speaks) -> (SocketAddr, Fake) {
    let state = Fake {
        speaks,
        next_base: Arc::new(Mutex::new("http://{host}/v2/items".into())),
        seen: Arc::default(),
    };
    let router = Router::new().fallback(fake).with_state(state.clone());
    let addr = serve_fake_upstream(router).await;
    (addr, state)
}

/// A `wire` connector with this `paging`, a list tool, an aggregation over it, a get tool and
/// an update whose dry run shows the current record.
fn catalog(paging: &str) -> catalog::Catalog {
    let text = format!(
        r#"connector: wire
base_url: "http://{{host}}/v2"
secrets: [host, token]
auth: {{ bearer: token }}
paging: {paging}
tools:
  - name: wire_items_list
    risk: low
    list: true
    description: 'Lists items. Example: {{}}'
    get: /items
    fields: [id, name, amount]
    params:
      q: {{ type: string, description: "Only items matching this." }}
  - name: wire_items_total_get
    risk: low
    description: 'Counts and sums every item. Example: {{}}'
    aggregate:
      sources:
        all: {{ tool: wire_items_list }}
      result:
        - {{ name: items, count: all }}
        - {{ name: amount, sum: all.amount }}
  - name: wire_item_get
    risk: low
    description: 'Reads an item. Example: {{"id": 7}}'
    get: /items/{{id}}
    params:
      id: {{ type: integer, in: path, min: 1 }}
  - name: wire_item_update
    risk: medium
    effect: change
    audit_event: item.updated
    idempotent: true
    side_effects: Renames the item.
    failure_modes: ["404: no such item."]
    current: wire_item_get
    description: 'Renames an item. Example: {{"id": 7, "name": "new"}}'
    patch: /items/{{id}}
    params:
      id: {{ type: integer, in: path, min: 1 }}
      name: {{ type: string, in: body, max_length: 40 }}
"#
    );
    catalog::parse("wire.yaml", &text).unwrap_or_else(|e| panic!("{e}"))
}

fn app(upstream: SocketAddr, paging: &str) -> TestApp {
    app_capped(upstream, paging, None)
}

/// The app with `MCP_MAX_RESULT_BYTES` set to `cap`.
fn app_capped(upstream: SocketAddr, paging: &str, cap: Option<usize>) -> TestApp {
    let host = upstream.to_string();
    let fields = [("host", host.as_str()), ("token", "tok-0042")];
    let cap = cap.map(|c| c.to_string());
    let env: Vec<(&str, &str)> = cap
        .iter()
        .map(|c| ("MCP_MAX_RESULT_BYTES", c.as_str()))
        .collect();
    app_with(
        &env,
        vec![catalog(paging)],
        connector_secrets("wire", &fields),
    )
}

/// The ids of a result's items.
fn ids(result: &Value) -> Vec<i64> {
    result["items"]
        .as_array()
        .unwrap_or_else(|| panic!("no items: {result}"))
        .iter()
        .map(|i| i["id"].as_i64().unwrap())
        .collect()
}

/// A cursor as the server encodes one, forged by a caller.
fn forged(url: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("u::{url}"))
}

#[tokio::test]
async fn pages_from_one_keep_the_models_page_and_count_by_total() {
    let (addr, fake) = spawn(Speaks::Pages).await;
    let app = app(
        addr,
        "{ style: page, items: /data, page_param: page, size_param: per_page, total: /meta/total }",
    );
    let r = call(&app, "wire_items_list", json!({"page": 2, "page_size": 3})).await;
    assert_eq!(fake.last(), "/v2/items?page=2&per_page=3");
    assert_eq!(ids(&r), [4, 5, 6]);
    assert_eq!(
        (&r["page"], &r["total"], &r["has_more"]),
        (&json!(2), &json!(7), &json!(true))
    );
    assert_eq!(r["hint"], "More results: call again with page=3.", "{r}");
    let r = call(&app, "wire_items_list", json!({"page": 3, "page_size": 3})).await;
    assert_eq!((ids(&r), &r["has_more"]), (vec![7], &json!(false)));
    let r = call(&app, "wire_items_list", json!({"count_only": true})).await;
    assert_eq!(fake.last(), "/v2/items?page=1&per_page=1");
    assert_eq!(r["count"], 7, "{r}");
}

#[tokio::test]
async fn pages_from_zero_are_the_models_page_minus_one() {
    let (addr, fake) = spawn(Speaks::PagesFromZero).await;
    let app = app(
        addr,
        "{ style: page, items: /items, page_param: p, first_page: 0, size_param: size, more: /more }",
    );
    let r = call(&app, "wire_items_list", json!({"page_size": 3})).await;
    assert_eq!(fake.last(), "/v2/items?p=0&size=3");
    assert_eq!(
        (ids(&r), &r["page"], &r["has_more"]),
        (vec![1, 2, 3], &json!(1), &json!(true))
    );
    let r = call(&app, "wire_items_list", json!({"page": 3, "page_size": 3})).await;
    assert_eq!(fake.last(), "/v2/items?p=2&size=3");
    assert_eq!((ids(&r), &r["has_more"]), (vec![7], &json!(false)));
    let refused = call(&app, "wire_items_list", json!({"count_only": true})).await;
    assert_eq!(refused["status"], "invalid_input", "{refused}");
    assert!(
        refused["hint"]
            .as_str()
            .unwrap()
            .contains("reports no total"),
        "{refused}"
    );
}

#[tokio::test]
async fn offset_and_limit_over_a_list_without_a_total() {
    let (addr, fake) = spawn(Speaks::OffsetLimit).await;
    let app = app(
        addr,
        "{ style: offset, items: /objects, offset_param: offset, size_param: limit }",
    );
    let r = call(&app, "wire_items_list", json!({"page": 2, "page_size": 3})).await;
    assert_eq!(fake.last(), "/v2/items?offset=3&limit=3");
    assert_eq!(ids(&r), [4, 5, 6]);
    assert!(r.get("total").is_none(), "{r}");
    assert_eq!(r["has_more"], true, "a full page may have more behind it");
    let r = call(&app, "wire_items_list", json!({"page": 3, "page_size": 3})).await;
    assert_eq!(fake.last(), "/v2/items?offset=6&limit=3");
    assert_eq!((ids(&r), &r["has_more"]), (vec![7], &json!(false)));
    let small = self::app(
        addr,
        "{ style: offset, items: /objects, offset_param: offset, size_param: limit, max_page_size: 5 }",
    );
    let r = call(&small, "wire_items_list", json!({})).await;
    assert_eq!(
        fake.last(),
        "/v2/items?offset=0&limit=5",
        "the default fits the upstream"
    );
    assert_eq!(ids(&r), [1, 2, 3, 4, 5]);
    let over = call(&small, "wire_items_list", json!({"page_size": 6})).await;
    assert_eq!(over["status"], "invalid_input", "{over}");
    assert!(
        over["hint"].as_str().unwrap().contains("between 1 and 5"),
        "{over}"
    );
}

#[tokio::test]
async fn skip_and_take_in_cal_coms_envelope() {
    let (addr, fake) = spawn(Speaks::SkipTake).await;
    let app = app(
        addr,
        "{ style: offset, items: /data, offset_param: skip, size_param: take, total: /pagination/totalItems, more: /pagination/hasNextPage }",
    );
    let r = call(
        &app,
        "wire_items_list",
        json!({"page": 2, "page_size": 3, "fields": ["id"]}),
    )
    .await;
    assert_eq!(fake.last(), "/v2/items?skip=3&take=3");
    assert_eq!(r["items"], json!([{"id": 4}, {"id": 5}, {"id": 6}]));
    assert_eq!((&r["total"], &r["has_more"]), (&json!(7), &json!(true)));
    let r = call(&app, "wire_items_list", json!({"count_only": true})).await;
    assert_eq!(fake.last(), "/v2/items?skip=0&take=1");
    assert_eq!(r["count"], 7, "{r}");
}

#[tokio::test]
async fn an_unpaged_list_asks_for_no_page_and_answers_the_models_pages_from_one_answer() {
    let (addr, fake) = spawn(Speaks::Unpaged).await;
    let app = app(addr, "{ style: unpaged, items: /data }");
    let r = call(&app, "wire_items_list", json!({"page": 2, "page_size": 3})).await;
    assert_eq!(fake.last(), "/v2/items");
    assert_eq!(ids(&r), [4, 5, 6]);
    assert_eq!(
        (&r["page"], &r["page_size"], &r["total"], &r["has_more"]),
        (&json!(2), &json!(3), &json!(7), &json!(true))
    );
    assert_eq!(r["hint"], "More results: call again with page=3.", "{r}");
    let r = call(&app, "wire_items_list", json!({"page": 3, "page_size": 3})).await;
    assert_eq!((ids(&r), &r["has_more"]), (vec![7], &json!(false)));
    let r = call(&app, "wire_items_list", json!({"page": 4, "page_size": 3})).await;
    assert_eq!((ids(&r), &r["has_more"]), (vec![], &json!(false)));
    let r = call(&app, "wire_items_list", json!({"count_only": true})).await;
    assert_eq!(fake.last(), "/v2/items");
    assert_eq!(r["count"], 7, "{r}");
}

#[tokio::test]
async fn a_cursor_in_the_body_goes_back_opaque_until_the_last_page() {
    let (addr, fake) = spawn(Speaks::Token).await;
    let app = app(
        addr,
        "{ style: cursor, items: /files, cursor_param: pageToken, size_param: pageSize, next: /nextPageToken }",
    );
    let first = call(&app, "wire_items_list", json!({"page_size": 3})).await;
    assert_eq!(fake.last(), "/v2/items?pageSize=3");
    assert_eq!(
        (ids(&first), &first["has_more"]),
        (vec![1, 2, 3], &json!(true))
    );
    assert!(first.get("page").is_none(), "{first}");
    let cursor = first["next_cursor"]
        .as_str()
        .expect("a next_cursor")
        .to_string();
    assert!(!cursor.contains("tok-"), "opaque: {cursor}");
    assert!(
        first["hint"]
            .as_str()
            .unwrap()
            .contains("cursor set to next_cursor")
    );
    let second = call(
        &app,
        "wire_items_list",
        json!({"page_size": 3, "cursor": cursor}),
    )
    .await;
    assert_eq!(fake.last(), "/v2/items?pageSize=3&pageToken=tok-3");
    assert_eq!(ids(&second), [4, 5, 6]);
    let cursor = second["next_cursor"].as_str().unwrap().to_string();
    let last = call(
        &app,
        "wire_items_list",
        json!({"page_size": 3, "cursor": cursor}),
    )
    .await;
    assert_eq!((ids(&last), &last["has_more"]), (vec![7], &json!(false)));
    assert!(last.get("next_cursor").is_none(), "{last}");
    let paged = call(&app, "wire_items_list", json!({"page": 2})).await;
    assert_eq!(paged["status"], "invalid_input");
    assert!(
        paged["hint"]
            .as_str()
            .unwrap()
            .contains("next_cursor as `cursor`"),
        "{paged}"
    );
    let before = fake.seen().len();
    let junk = call(&app, "wire_items_list", json!({"cursor": "tok-3"})).await;
    assert_eq!(junk["status"], "invalid_input", "{junk}");
    assert_eq!(fake.seen().len(), before, "a bad cursor sends nothing");
}

#[tokio::test]
async fn a_next_url_in_the_body_is_followed_within_the_base_url_only() {
    let (addr, fake) = spawn(Speaks::NextLink).await;
    let app = app(
        addr,
        "{ style: next_url, items: /value, next: /@odata.nextLink }",
    );
    let first = call(&app, "wire_items_list", json!({})).await;
    assert_eq!(fake.last(), "/v2/items");
    assert_eq!(ids(&first), [1, 2, 3]);
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    let inside = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(&cursor)
        .unwrap();
    let inside = String::from_utf8(inside).unwrap();
    let (seal, url) = inside.strip_prefix("u:").unwrap().split_once(':').unwrap();
    assert_eq!(url, "/v2/items?cursor=3", "no host");
    assert!(!seal.is_empty(), "sealed, on the list's own path too");
    let second = call(&app, "wire_items_list", json!({"cursor": cursor})).await;
    assert_eq!(fake.last(), "/v2/items?cursor=3");
    assert_eq!(ids(&second), [4, 5, 6]);
    let before = fake.seen().len();
    for (forged_url, why) in [
        (
            "http://evil.test/v2/items?cursor=3".to_string(),
            "another host",
        ),
        (
            format!("http://{addr}/v3/items?cursor=3"),
            "outside the connector's base URL",
        ),
        (format!("http://{addr}/v2/admin?cursor=3"), "another list"),
        ("/v2/items?cursor=3".to_string(), "another list, or changed"),
        (
            "/v2/items?cursor=3&include=deleted".to_string(),
            "another list, or changed",
        ),
    ] {
        let r = call(
            &app,
            "wire_items_list",
            json!({"cursor": forged(&forged_url)}),
        )
        .await;
        assert_eq!(r["status"], "invalid_input", "{forged_url}: {r}");
        assert!(
            r["hint"].as_str().unwrap().contains(why),
            "{forged_url}: {r}"
        );
    }
    assert_eq!(fake.seen().len(), before, "a refused cursor sends nothing");
    let refused = call(&app, "wire_items_list", json!({"page_size": 3})).await;
    assert_eq!(
        refused["status"], "invalid_input",
        "no size_param: {refused}"
    );
}

#[tokio::test]
async fn an_upstreams_next_url_to_another_host_or_base_path_is_not_handed_out() {
    let (addr, fake) = spawn(Speaks::NextLink).await;
    let app = app(
        addr,
        "{ style: next_url, items: /value, next: /@odata.nextLink }",
    );
    for next in ["http://evil.test/v2/items", "http://{host}/other/items"] {
        *fake.next_base.lock().unwrap() = next.into();
        let r = call(&app, "wire_items_list", json!({})).await;
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!((ids(&r), &r["has_more"]), (vec![1, 2, 3], &json!(true)));
        assert!(r.get("next_cursor").is_none(), "{next}: {r}");
        assert!(r["hint"].as_str().unwrap().contains("not followed"), "{r}");
        let agg = call(&app, "wire_items_total_get", json!({})).await;
        assert_eq!(agg["status"], "unavailable", "{agg}");
        assert_eq!(agg["partial_data"]["items"], 3, "{agg}");
    }
}

#[tokio::test]
async fn a_link_header_pages_a_bare_array() {
    let (addr, fake) = spawn(Speaks::Link).await;
    let app = app(
        addr,
        "{ style: link_header, items: \"\", size_param: per_page }",
    );
    let first = call(&app, "wire_items_list", json!({"page_size": 3})).await;
    assert_eq!(fake.last(), "/v2/items?per_page=3");
    assert_eq!(
        (ids(&first), &first["page_size"]),
        (vec![1, 2, 3], &json!(3))
    );
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    let second = call(&app, "wire_items_list", json!({"cursor": cursor})).await;
    assert_eq!(fake.last(), "/v2/items?page=2&per_page=3");
    assert_eq!(ids(&second), [4, 5, 6]);
    let cursor = second["next_cursor"].as_str().unwrap().to_string();
    let last = call(&app, "wire_items_list", json!({"cursor": cursor})).await;
    assert_eq!((ids(&last), &last["has_more"]), (vec![7], &json!(false)));
}

#[tokio::test]
async fn a_link_elsewhere_under_the_base_url_is_followed_only_with_its_seal() {
    let (addr, fake) = spawn(Speaks::Link).await;
    // GitHub links /repositories/{id}/issues for /repos/{owner}/{repo}/issues.
    *fake.next_base.lock().unwrap() = "http://{host}/v2/repositories/7/items".into();
    let app = app(
        addr,
        "{ style: link_header, items: \"\", size_param: per_page, max_page_size: 3 }",
    );
    let first = call(&app, "wire_items_list", json!({"page_size": 3})).await;
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    let second = call(&app, "wire_items_list", json!({"cursor": cursor})).await;
    assert_eq!(fake.last(), "/v2/repositories/7/items?page=2&per_page=3");
    assert_eq!(ids(&second), [4, 5, 6]);
    let cursor = second["next_cursor"].as_str().unwrap().to_string();
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let inside = String::from_utf8(engine.decode(&cursor).unwrap()).unwrap();
    let (seal, url) = inside.strip_prefix("u:").unwrap().split_once(':').unwrap();
    assert!(!seal.is_empty(), "{inside}");
    let before = fake.seen().len();
    for tampered in [
        format!("u::{url}"),
        format!("u:{seal}:{}", url.replace("/items", "/hooks")),
    ] {
        let r = call(
            &app,
            "wire_items_list",
            json!({"cursor": engine.encode(&tampered)}),
        )
        .await;
        assert_eq!(r["status"], "invalid_input", "{tampered}: {r}");
        assert!(r["hint"].as_str().unwrap().contains("another list"), "{r}");
    }
    assert_eq!(fake.seen().len(), before, "a tampered cursor sends nothing");
    let agg = call(&app, "wire_items_total_get", json!({})).await;
    assert_eq!(agg["data"], json!({"items": 7, "amount": "10.50"}), "{agg}");
}

#[tokio::test]
async fn aggregations_read_every_page_by_cursor_and_by_link_header() {
    for (speaks, paging, pages) in [
        (
            Speaks::Token,
            "{ style: cursor, items: /files, cursor_param: pageToken, size_param: pageSize, next: /nextPageToken, max_page_size: 3 }",
            vec![
                "/v2/items?pageSize=3",
                "/v2/items?pageSize=3&pageToken=tok-3",
                "/v2/items?pageSize=3&pageToken=tok-6",
            ],
        ),
        (
            Speaks::Link,
            "{ style: link_header, items: \"\", size_param: per_page, max_page_size: 3 }",
            vec![
                "/v2/items?per_page=3",
                "/v2/items?page=2&per_page=3",
                "/v2/items?page=3&per_page=3",
            ],
        ),
        (
            Speaks::OffsetLimit,
            "{ style: offset, items: /objects, offset_param: offset, size_param: limit, max_page_size: 3 }",
            vec![
                "/v2/items?offset=0&limit=3",
                "/v2/items?offset=3&limit=3",
                "/v2/items?offset=6&limit=3",
            ],
        ),
        (
            Speaks::Unpaged,
            "{ style: unpaged, items: /data, max_page_size: 3 }",
            vec!["/v2/items"],
        ),
    ] {
        let (addr, fake) = spawn(speaks).await;
        let app = app(addr, paging);
        let r = call(&app, "wire_items_total_get", json!({})).await;
        assert_eq!(r["status"], "ok", "{speaks:?}: {r}");
        assert_eq!(
            r["data"],
            json!({"items": 7, "amount": "10.50"}),
            "{speaks:?}"
        );
        assert_eq!(fake.seen(), pages, "{speaks:?}: one request per page");
    }
}

#[tokio::test]
async fn a_dry_runs_current_record_reads_on_a_connector_paged_by_cursor() {
    let (addr, fake) = spawn(Speaks::Link).await;
    let app = app(
        addr,
        "{ style: link_header, items: \"\", size_param: per_page }",
    );
    let r = call(
        &app,
        "wire_item_update",
        json!({"id": 7, "name": "new name", "dry_run": true}),
    )
    .await;
    assert_eq!(r["status"], "ok", "{r}");
    assert_eq!(fake.seen(), ["/v2/items/7"]);
    assert_eq!(r["preview"]["current"]["name"], "old name", "{r}");
    assert_eq!(
        r["preview"]["changes"]["name"],
        json!({"from": "old name", "to": "new name"})
    );
}

/// Every paging style, walked with page sizes from 1 to past the end and an output cap that
/// cuts pages: following `next_cursor` (or the next page number) until `has_more` is false
/// returns every item exactly once, and no result is over the cap.
#[tokio::test]
async fn a_walk_cut_by_the_output_cap_returns_every_item_exactly_once_in_every_paging_style() {
    for (speaks, paging) in [
        (
            Speaks::Pages,
            "{ style: page, items: /data, page_param: page, size_param: per_page, total: /meta/total }",
        ),
        (
            Speaks::PagesFromZero,
            "{ style: page, items: /items, page_param: p, first_page: 0, size_param: size, more: /more }",
        ),
        (
            Speaks::OffsetLimit,
            "{ style: offset, items: /objects, offset_param: offset, size_param: limit }",
        ),
        (
            Speaks::SkipTake,
            "{ style: offset, items: /data, offset_param: skip, size_param: take, total: /pagination/totalItems, more: /pagination/hasNextPage }",
        ),
        (
            Speaks::Token,
            "{ style: cursor, items: /files, cursor_param: pageToken, size_param: pageSize, next: /nextPageToken }",
        ),
        (
            Speaks::NextLink,
            "{ style: next_url, items: /value, next: /@odata.nextLink }",
        ),
        (
            Speaks::Link,
            "{ style: link_header, items: \"\", size_param: per_page }",
        ),
        (Speaks::Unpaged, "{ style: unpaged, items: /data }"),
    ] {
        let (addr, _fake) = spawn(speaks).await;
        let mut cut = 0;
        for cap in [1024, 1500] {
            let app = app_capped(addr, paging, Some(cap));
            for size in [1, 2, 3, 7, 50, 100] {
                // Graph's next link chooses its own page size.
                let args = match speaks {
                    Speaks::NextLink => json!({}),
                    _ => json!({"page_size": size}),
                };
                let walk = crate::walks::walk(&app, "wire_items_list", args).await;
                cut += walk.cut;
                assert!(walk.largest <= cap, "{speaks:?} cap {cap}: {walk:?}");
                let mut ids: Vec<i64> = walk.ids.iter().map(|i| i.as_i64().unwrap()).collect();
                ids.sort_unstable();
                assert_eq!(
                    ids,
                    (1..=7).collect::<Vec<_>>(),
                    "{speaks:?} cap {cap} page_size {size}: {walk:?}"
                );
            }
        }
        assert!(cut > 0, "{speaks:?}: the cap cut no page");
    }
}

/// A cut page's cursor continues only unchanged, for the arguments of the call that was cut:
/// a changed skip, a forged seal or another filter is refused before anything is sent.
#[tokio::test]
async fn a_cut_pages_cursor_is_refused_changed_forged_or_with_other_arguments() {
    let (addr, fake) = spawn(Speaks::Pages).await;
    let paging =
        "{ style: page, items: /data, page_param: page, size_param: per_page, total: /meta/total }";
    let app = app_capped(addr, paging, Some(1024));
    let cut = call(&app, "wire_items_list", json!({"page_size": 7})).await;
    assert_eq!(cut["truncated"], true, "{cut}");
    let shown = ids(&cut).len();
    let cursor = cut["next_cursor"].as_str().unwrap().to_string();
    let rest = call(
        &app,
        "wire_items_list",
        json!({"page_size": 7, "cursor": cursor}),
    )
    .await;
    assert_eq!(ids(&rest).first(), Some(&(shown as i64 + 1)), "{rest}");
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let inside = String::from_utf8(engine.decode(&cursor).unwrap()).unwrap();
    let fields: Vec<&str> = inside.split(':').collect();
    let [kind, seal, page, size, skip, at] = fields[..] else {
        panic!("{inside}")
    };
    assert_eq!((kind, page, size, at), ("r", "1", "7", ""), "{inside}");
    let before = fake.seen().len();
    for (tampered, args) in [
        (format!("r:{seal}:1:7:0:"), json!({})),
        (format!("r:{seal}:1:7:{}:", shown - 1), json!({})),
        (format!("r:{seal}:2:7:{skip}:"), json!({})),
        (format!("r:{seal}:1:3:{skip}:"), json!({})),
        (format!("r:AAAAAAAAAAAAAAAAAAAAAA:1:7:{skip}:"), json!({})),
        (inside.clone(), json!({"q": "item"})),
    ] {
        let mut args = args;
        args["cursor"] = json!(engine.encode(&tampered));
        let r = call(&app, "wire_items_list", args.clone()).await;
        assert_eq!(r["status"], "invalid_input", "{tampered} {args}: {r}");
        assert!(
            r["hint"].as_str().unwrap().contains("with these arguments"),
            "{r}"
        );
    }
    assert_eq!(fake.seen().len(), before, "a refused cursor sends nothing");
}

/// Cal.com's answers: bookings paged by skip/take in its envelope; event types (seven) and
/// schedules (two) each at once in `{status, data: [...]}`, as its API v2 document says.
async fn cal_com(
    State(seen): State<Arc<Mutex<Vec<String>>>>,
    request: Request<axum::body::Body>,
) -> Response {
    let target = request.uri().to_string();
    seen.lock().unwrap().push(target);
    let query: HashMap<String, String> = url_pairs(request.uri().query().unwrap_or_default())
        .into_iter()
        .collect();
    let body = match request.uri().path() {
        "/v2/event-types" => json!({"status": "success", "data": (1..=7).map(|i| json!({
            "id": i, "title": format!("Termin {i}"), "slug": format!("termin-{i}"),
            "lengthInMinutes": 30, "description": "Kennenlernen", "beforeEventBuffer": 0,
            "afterEventBuffer": 10, "price": 0, "currency": "EUR", "ownerId": 11
        })).collect::<Vec<_>>()}),
        "/v2/schedules" => json!({"status": "success", "data": [
            {"id": 21, "ownerId": 11, "name": "Bürozeiten", "timeZone": "Europe/Berlin",
             "isDefault": true, "availability": [], "overrides": []},
            {"id": 22, "ownerId": 11, "name": "Sommer", "timeZone": "Europe/Berlin",
             "isDefault": false, "availability": [], "overrides": []}
        ]}),
        "/v2/bookings" => {
            let num = |n: &str| query.get(n).and_then(|v| v.parse().ok()).unwrap_or(0usize);
            let (skip, take) = (num("skip"), num("take"));
            let data: Vec<Value> = (skip..(skip + take).min(7))
                .map(|i| {
                    json!({"id": i + 1, "uid": format!("bk_{i}"), "title": "Call",
                                "status": "accepted", "start": "2026-05-04T08:00:00Z",
                                "end": "2026-05-04T08:30:00Z", "attendees": []})
                })
                .collect();
            json!({"status": "success", "data": data,
                   "pagination": {"totalItems": 7, "hasNextPage": skip + take < 7}})
        }
        _ => return http::StatusCode::NOT_FOUND.into_response(),
    };
    axum::Json(body).into_response()
}

#[tokio::test]
async fn cal_coms_lists_answer_the_one_list_shape_whether_cal_com_pages_them_or_not() {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let router = Router::new().fallback(cal_com).with_state(seen.clone());
    let addr = serve_fake_upstream(router).await;
    let base = format!("http://{addr}/v2");
    let calcom: Vec<catalog::Catalog> = connector::load(None)
        .unwrap()
        .into_iter()
        .filter(|c| c.connector == "calcom")
        .collect();
    let app = app_with(
        &[("CALCOM_BASE_URL", base.as_str())],
        calcom,
        connector_secrets("calcom", &[("api_key", "cal_test_0123456789abcdef")]),
    );
    let last = || seen.lock().unwrap().last().cloned().unwrap();
    // The list shape's keys; `total` only where the list is counted (Cal.com counts no
    // bookings), `hint` only with more, `_…` the platform's notes.
    let shape = |r: &Value| -> Vec<String> {
        let mut keys: Vec<String> = r
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| !k.starts_with('_') && !["hint", "total"].contains(&k.as_str()))
            .cloned()
            .collect();
        keys.sort();
        keys
    };

    let bookings = call(
        &app,
        "calcom_bookings_list",
        json!({"page_size": 3, "fields": ["id", "uid"]}),
    )
    .await;
    assert_eq!(last(), "/v2/bookings?skip=0&take=3");
    assert_eq!(ids(&bookings), [1, 2, 3]);

    let types = call(&app, "calcom_event_types_list", json!({})).await;
    assert_eq!(last(), "/v2/event-types", "Cal.com pages no event types");
    assert_eq!(types["status"], "ok", "{types}");
    assert_eq!(ids(&types), [1, 2, 3, 4, 5, 6, 7], "{types}");
    assert!(types.get("data").is_none(), "no `data.data`: {types}");
    assert_eq!(shape(&types), shape(&bookings), "{types}\n{bookings}");
    assert_eq!(
        (&types["page"], &types["total"], &types["has_more"]),
        (&json!(1), &json!(7), &json!(false))
    );
    assert_eq!(
        types["items"][0],
        json!({"id": 1, "title": "Termin 1", "slug": "termin-1", "lengthInMinutes": 30,
               "beforeEventBuffer": 0, "afterEventBuffer": 10}),
        "the default fields"
    );

    let page = call(
        &app,
        "calcom_event_types_list",
        json!({"page": 2, "page_size": 3, "fields": ["id", "title"]}),
    )
    .await;
    assert_eq!(last(), "/v2/event-types");
    assert_eq!(ids(&page), [4, 5, 6]);
    assert_eq!(page["items"][0], json!({"id": 4, "title": "Termin 4"}));
    assert_eq!(page["has_more"], true);
    assert_eq!(
        page["hint"], "More results: call again with page=3.",
        "{page}"
    );
    let count = call(&app, "calcom_event_types_list", json!({"count_only": true})).await;
    assert_eq!(count["count"], 7, "{count}");

    let schedules = call(&app, "calcom_schedules_list", json!({})).await;
    assert_eq!(last(), "/v2/schedules");
    assert_eq!(ids(&schedules), [21, 22]);
    assert_eq!(shape(&schedules), shape(&bookings), "{schedules}");
}
