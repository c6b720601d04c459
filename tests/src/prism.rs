//! Prism (`@stoplight/prism-cli`, pinned in `tests/tools/prism`) serving a connector's OpenAPI
//! document from `shared/connector/openapi/` with request validation on (`--errors`): the offline
//! upstream for any connector that has such a document. A request that breaks the document gets
//! Prism's own 422 and a `[VALIDATOR] ✖` line per violation in its output.
//!
//! Prism accepts query parameters the document does not declare and does not log query strings,
//! so a relay in front of it records each request and [`undeclared_query`] checks the names
//! against the document.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use serde_json::Value;
use tokio::net::TcpListener;

use crate::{Lines, tool};

/// A running `prism mock --errors <document>` on a loopback port, behind a recording relay.
pub struct Prism {
    child: Child,
    /// The relay's `http://127.0.0.1:<port>`: the document's paths hang directly below it
    /// (Prism ignores the base path of the document's `servers`).
    pub url: String,
    /// Prism's output, one line each.
    pub log: Lines,
    seen: Arc<Mutex<Vec<Received>>>,
    relay: tokio::task::JoinHandle<()>,
}

/// One request Prism received, from its log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    /// Upper case: `GET`, `POST`.
    pub method: String,
    pub path: String,
    /// Query parameter names, in order, repeated as sent.
    pub query: Vec<String>,
}

impl Prism {
    /// Starts Prism on `document` (with the pinned Node 22) on a port its OS picks, waiting
    /// until it says where it listens, and the relay in front of it; a document Prism refuses
    /// fails here with Prism's output.
    pub async fn start(document: &Path) -> Prism {
        let mut child = Command::new(tool("node/node_modules/.bin/node"))
            .arg(tool(
                "prism/node_modules/@stoplight/prism-cli/dist/index.js",
            ))
            .args(["mock", "--errors", "-h", "127.0.0.1", "-p", "0"])
            .arg(document)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start prism");
        let log = Lines::default();
        log.clone().follow(child.stdout.take().unwrap());
        log.clone().follow(child.stderr.take().unwrap());
        let ready = log.wait_for(
            |l| l.contains("Prism is listening") || l.contains("fatal"),
            Duration::from_secs(60),
        );
        let listening = ready.as_deref().and_then(|l| {
            let at = l.find("Prism is listening on ")? + "Prism is listening on ".len();
            Some(l[at..].trim().to_string())
        });
        let Some(target) = listening else {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "Prism did not start on {}:\n{}",
                document.display(),
                log.joined()
            );
        };
        let seen = Arc::new(Mutex::new(Vec::new()));
        let relay = Relay {
            target,
            seen: seen.clone(),
            http: reqwest::Client::new(),
        };
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let app = axum::Router::new()
            .fallback(forward)
            .with_state(Arc::new(relay));
        let relay = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Prism {
            child,
            url,
            log,
            seen,
            relay,
        }
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<Received> {
        self.seen.lock().unwrap().clone()
    }

    /// The validation errors so far, one message per violation.
    pub fn violations(&self) -> Vec<String> {
        self.log
            .all()
            .iter()
            .filter(|l| l.contains("[VALIDATOR] ✖"))
            .map(|l| {
                l.split_once("error")
                    .map_or(l.as_str(), |(_, m)| m)
                    .trim()
                    .to_string()
            })
            .collect()
    }

    /// Waits (up to 5 s: Prism's output may lag behind its answer) for a violation containing
    /// `needle`.
    pub fn violation(&self, needle: &str) -> Option<String> {
        self.log.wait_for(
            |l| l.contains("[VALIDATOR] ✖") && l.contains(needle),
            Duration::from_secs(5),
        )
    }
}

impl Drop for Prism {
    fn drop(&mut self) {
        self.relay.abort();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Relay {
    target: String,
    seen: Arc<Mutex<Vec<Received>>>,
    http: reqwest::Client,
}

/// Records the request, then passes it to Prism and Prism's answer back.
async fn forward(
    State(relay): State<Arc<Relay>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    relay
        .seen
        .lock()
        .unwrap()
        .push(received(method.as_str(), &uri));
    let target = uri.path_and_query().map_or("/", |p| p.as_str());
    let request = relay
        .http
        .request(method, format!("{}{target}", relay.target))
        .body(body);
    crate::proxy::relayed(crate::proxy::with_end_to_end(request, &headers, &["host"])).await
}

/// The method, path and query parameter names of a request.
fn received(method: &str, uri: &Uri) -> Received {
    let query = uri
        .query()
        .unwrap_or_default()
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').map_or(p, |(name, _)| name))
        .map(|name| {
            percent_encoding::percent_decode_str(name)
                .decode_utf8_lossy()
                .into_owned()
        })
        .collect();
    Received {
        method: method.to_uppercase(),
        path: uri.path().to_string(),
        query,
    }
}

/// An OpenAPI document (YAML) as JSON.
pub fn document(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    yaml_serde::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

/// The `(METHOD, path template)` of every operation in `doc`.
pub fn operations(doc: &Value) -> Vec<(String, String)> {
    let mut all = Vec::new();
    for (template, item) in doc["paths"].as_object().into_iter().flatten() {
        for method in ["get", "put", "post", "delete", "patch"] {
            if item.get(method).is_some() {
                all.push((method.to_uppercase(), template.clone()));
            }
        }
    }
    all
}

/// Whether `path` is an instance of the path `template` (`/projects/{id}`).
pub fn path_matches(template: &str, path: &str) -> bool {
    let t: Vec<&str> = template.split('/').collect();
    let p: Vec<&str> = path.split('/').collect();
    t.len() == p.len()
        && t.iter()
            .zip(&p)
            .all(|(t, p)| t == p || (t.starts_with('{') && t.ends_with('}') && !p.is_empty()))
}

/// The query parameter names of `request` that its operation in `doc` does not declare, or why
/// no operation matches it.
pub fn undeclared_query(doc: &Value, request: &Received) -> Result<Vec<String>, String> {
    let method = request.method.to_lowercase();
    let operation = doc["paths"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(template, _)| path_matches(template, &request.path))
        .find_map(|(_, item)| item.get(&method))
        .ok_or_else(|| format!("no operation for {} {}", request.method, request.path))?;
    let declared: Vec<&str> = operation["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| match p["$ref"].as_str() {
            Some(r) => resolve(doc, r),
            None => p,
        })
        .filter(|p| p["in"] == "query")
        .filter_map(|p| p["name"].as_str())
        .collect();
    Ok(request
        .query
        .iter()
        .filter(|n| !declared.contains(&n.as_str()))
        .cloned()
        .collect())
}

/// A local `$ref` (`#/components/parameters/page`).
fn resolve<'a>(doc: &'a Value, reference: &str) -> &'a Value {
    let pointer = reference.trim_start_matches('#');
    doc.pointer(pointer)
        .unwrap_or_else(|| panic!("dangling $ref {reference}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_request_gives_method_path_and_query_names() {
        let uri: Uri = "/income/invoices?page=1&order_direction=desc&flag&contact%5Bid%5D=7"
            .parse()
            .unwrap();
        assert_eq!(
            received("get", &uri),
            Received {
                method: "GET".into(),
                path: "/income/invoices".into(),
                query: vec![
                    "page".into(),
                    "order_direction".into(),
                    "flag".into(),
                    "contact[id]".into()
                ],
            }
        );
    }

    #[test]
    fn undeclared_query_names_only_what_the_operation_lacks() {
        let doc = json!({
            "paths": {"/projects/{id}": {"get": {}}, "/projects": {"get": {"parameters": [
                {"$ref": "#/components/parameters/page"},
                {"name": "order_by", "in": "query"}]}}},
            "components": {"parameters": {"page": {"name": "page", "in": "query"}}}
        });
        let request = |path: &str, query: &[&str]| Received {
            method: "GET".into(),
            path: path.into(),
            query: query.iter().map(|q| q.to_string()).collect(),
        };
        assert_eq!(
            undeclared_query(&doc, &request("/projects", &["page", "order_by", "pgae"])),
            Ok(vec!["pgae".to_string()])
        );
        assert_eq!(
            undeclared_query(&doc, &request("/projects/7", &["page"])),
            Ok(vec!["page".to_string()])
        );
        assert!(undeclared_query(&doc, &request("/project/7", &[])).is_err());
    }
}
