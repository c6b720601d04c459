//! `mcp-server smoke --url URL --key KEY`: the post-deploy check of what a client sees.
//!
//! One line per check, non-zero exit on any failure: `initialize` answers JSON (not an HTML bot
//! page), no `Set-Cookie`, `tools/list` equals the published allowlist, a raw tool is "tool not
//! found", no key gets 401, a foreign Origin is refused, `/health` is ok, and one read-only tool
//! call succeeds. With OAuth (`--oauth`, or whenever the 401 names resource metadata) the
//! discovery a client does follows: 401 → resource metadata → authorization server metadata.

pub(crate) mod discovery;

use reqwest::header::{HeaderMap, SET_COOKIE};
use serde_json::{Value, json};

/// The published tool list of the shipped catalogs (hosted view).
pub(crate) const ALLOWLIST: &str =
    include_str!("../../../../../shared/connector/catalogs/papierkram.allowlist");

#[derive(Debug, Clone, PartialEq)]
pub struct SmokeOptions {
    pub url: String,
    pub key: String,
    pub allowlist: Vec<String>,
    pub tool: String,
    pub args: Value,
    pub raw_tool: String,
    /// OAuth discovery must work (else checked only when the 401 names metadata).
    pub oauth: bool,
}

/// Names from an allowlist file: one per line, `#` comments and blank lines skipped.
pub(crate) fn parse_allowlist(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub detail: String,
}

fn check(name: &'static str, ok: bool, detail: impl Into<String>) -> Check {
    Check {
        name,
        ok,
        detail: detail.into(),
    }
}

struct Client {
    http: reqwest::Client,
    url: String,
    key: String,
}

impl Client {
    async fn rpc(
        &self,
        body: Value,
        key: Option<&str>,
        origin: Option<&str>,
    ) -> Result<(u16, HeaderMap, String), String> {
        let mut r = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .body(body.to_string());
        if let Some(k) = key {
            r = r.bearer_auth(k);
        }
        if let Some(o) = origin {
            r = r.header("origin", o);
        }
        let response = r.send().await.map_err(|e| format!("request failed: {e}"))?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response
            .text()
            .await
            .map_err(|e| format!("reading the body: {e}"))?;
        Ok((status, headers, text))
    }
}

fn call(tool: &str, args: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": tool, "arguments": args}})
}

pub(crate) async fn run(opts: &SmokeOptions) -> Vec<Check> {
    let mut smoke = Smoke {
        c: Client {
            http: crate::http_client(),
            url: opts.url.clone(),
            key: opts.key.clone(),
        },
        opts,
        cookies: 0,
    };
    let mut checks = vec![
        smoke.initialize().await,
        smoke.tools_list().await,
        smoke.raw_tool_hidden().await,
    ];
    let (no_key, challenge) = smoke.no_key().await;
    checks.push(no_key);
    match challenge {
        Some(seen) if opts.oauth || seen.names_oauth() => {
            checks.extend(discovery::run(&smoke.c.http, &opts.url, &seen).await);
        }
        None if opts.oauth => checks.push(check(
            "401 names metadata",
            false,
            "no 401 to start discovery from",
        )),
        _ => {}
    }
    checks.push(smoke.foreign_origin().await);
    checks.push(smoke.health().await);
    checks.push(smoke.read_only_call().await);
    checks.push(check(
        "no Set-Cookie",
        smoke.cookies == 0,
        format!("{} Set-Cookie header(s) seen", smoke.cookies),
    ));
    checks
}

/// One run of the checks against a deployment, counting the cookies its answers set.
struct Smoke<'a> {
    c: Client,
    opts: &'a SmokeOptions,
    cookies: usize,
}

impl Smoke<'_> {
    /// A request with the key; the cookies of its answer are counted.
    async fn rpc(&mut self, body: Value) -> Result<(u16, HeaderMap, String), String> {
        let answer = self.c.rpc(body, Some(&self.c.key), None).await?;
        self.cookies += answer.1.get_all(SET_COOKIE).iter().count();
        Ok(answer)
    }

    async fn initialize(&mut self) -> Check {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "hosted-mcp-smoke", "version": env!("CARGO_PKG_VERSION")}}});
        let (status, headers, text) = match self.rpc(init).await {
            Ok(answer) => answer,
            Err(e) => return check("initialize", false, e),
        };
        let json_type = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("application/json"));
        let version = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v["result"]["protocolVersion"].as_str().map(str::to_string));
        match (status, json_type, version) {
            (200, true, Some(v)) => check("initialize", true, format!("JSON, protocol {v}")),
            _ => check(
                "initialize",
                false,
                format!("HTTP {status}, not an MCP JSON reply: {}", preview(&text)),
            ),
        }
    }

    async fn tools_list(&mut self) -> Check {
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        let text = match self.rpc(list).await {
            Ok((_, _, text)) => text,
            Err(e) => return check("tools/list", false, e),
        };
        let names: Vec<String> = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v["result"]["tools"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|t| t["name"].as_str().map(str::to_string))
            .collect();
        let allowlist = &self.opts.allowlist;
        let extra: Vec<&String> = names.iter().filter(|n| !allowlist.contains(n)).collect();
        let missing: Vec<&String> = allowlist.iter().filter(|n| !names.contains(n)).collect();
        if extra.is_empty() && missing.is_empty() {
            check(
                "tools/list",
                true,
                format!("{} tools, equal to the allowlist", names.len()),
            )
        } else {
            check(
                "tools/list",
                false,
                format!("not the allowlist: extra {extra:?}, missing {missing:?}"),
            )
        }
    }

    async fn raw_tool_hidden(&mut self) -> Check {
        let raw = self.opts.raw_tool.clone();
        let text = match self.rpc(call(&raw, &json!({"path": "/"}))).await {
            Ok((_, _, text)) => text,
            Err(e) => return check("raw tool hidden", false, e),
        };
        let not_found = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| {
                v["error"]["message"]
                    .as_str()
                    .map(|m| m.contains("Tool not found"))
            })
            .unwrap_or(false);
        let seen = if not_found {
            "tool not found"
        } else {
            "reachable!"
        };
        check("raw tool hidden", not_found, format!("`{raw}`: {seen}"))
    }

    /// Without a key: 401 with a challenge, which also starts the OAuth discovery checks.
    async fn no_key(&self) -> (Check, Option<discovery::Challenge>) {
        let ping = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"});
        let (status, headers, body) = match self.c.rpc(ping, None, None).await {
            Ok(answer) => answer,
            Err(e) => return (check("no key → 401", false, e), None),
        };
        let seen = discovery::Challenge::read(&headers, &body);
        let detail = match (&seen.header, &seen.remapped) {
            (Some(_), _) => "with WWW-Authenticate".to_string(),
            (None, Some(_)) => format!(
                "WWW-Authenticate arrived renamed to {}",
                discovery::REMAPPED
            ),
            (None, None) => "without WWW-Authenticate".to_string(),
        };
        let ok = status == 401 && (seen.header.is_some() || seen.remapped.is_some());
        (
            check("no key → 401", ok, format!("HTTP {status} {detail}")),
            Some(seen),
        )
    }

    async fn foreign_origin(&self) -> Check {
        let ping = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"});
        match self
            .c
            .rpc(ping, Some(&self.c.key), Some("https://evil.example"))
            .await
        {
            Ok((status, _, _)) => check(
                "foreign Origin refused",
                status == 403,
                format!("HTTP {status}"),
            ),
            Err(e) => check("foreign Origin refused", false, e),
        }
    }

    async fn health(&self) -> Check {
        let url = &self.opts.url;
        let health_url = format!(
            "{}/health",
            url.trim_end_matches('/').trim_end_matches("/mcp")
        );
        match self
            .c
            .http
            .get(&health_url)
            .bearer_auth(&self.c.key)
            .send()
            .await
        {
            Ok(r) => {
                let status = r.status().as_u16();
                let body: Value = r.json().await.unwrap_or(Value::Null);
                check(
                    "/health",
                    status == 200 && body["ok"] == true,
                    format!("HTTP {status} {body}"),
                )
            }
            Err(e) => check("/health", false, format!("request failed: {e}")),
        }
    }

    async fn read_only_call(&mut self) -> Check {
        let (tool, args) = (self.opts.tool.clone(), self.opts.args.clone());
        let text = match self.rpc(call(&tool, &args)).await {
            Ok((_, _, text)) => text,
            Err(e) => return check("read-only tool call", false, e),
        };
        let status = serde_json::from_str::<Value>(&text).ok().and_then(|v| {
            v["result"]["structuredContent"]["status"]
                .as_str()
                .map(str::to_string)
        });
        let ok = status.as_deref() == Some("ok");
        let seen = status.unwrap_or_else(|| preview(&text));
        check("read-only tool call", ok, format!("`{tool}` → {seen}"))
    }
}

fn preview(text: &str) -> String {
    text.chars().take(80).collect::<String>().replace('\n', " ")
}

pub(crate) fn render(checks: &[Check]) -> String {
    checks
        .iter()
        .map(|c| {
            format!(
                "{:<4} {:<22} {}\n",
                if c.ok { "ok" } else { "FAIL" },
                c.name,
                c.detail
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowlist_skips_comments_and_blanks() {
        assert_eq!(
            parse_allowlist("# x\n\na_list\n  b_get \n"),
            vec!["a_list", "b_get"]
        );
        assert!(parse_allowlist(ALLOWLIST).contains(&"papierkram_invoices_list".to_string()));
    }

    #[test]
    fn render_marks_failures() {
        let out = render(&[check("a", true, "fine"), check("b", false, "broken")]);
        assert!(out.starts_with("ok   a"));
        assert!(out.contains("FAIL b"));
    }
}
