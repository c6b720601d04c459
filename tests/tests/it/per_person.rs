//! What the tests of the connectors that act as each person (gsuite.rs, m365.rs) share: a
//! server for one such connector against a local oidc-provider, and every tool's own example
//! called as a person who has connected (`ok`, whole, within the result budget the budget test
//! holds the other connectors to: their tools answer `connection_required` to its API key).

use integration_tests::oidc::Op;
use integration_tests::person::claims;
use integration_tests::{KEY, Rpc, Server, TempDir, free_port};
use serde_json::{Value, json};

use crate::connect::Browser;

/// A port for the server, its resource URL, and one oidc-provider for that resource with
/// `scopes` (ours and the upstream's), which plays the upstream's authorization server too.
pub(crate) fn provider(scopes: &str) -> (u16, String, Op) {
    provider_with(scopes, &[])
}

/// [`provider`] with more `op.mjs` options (`--refresh-ttl 604800`: Google's testing-mode
/// refresh tokens).
pub(crate) fn provider_with(scopes: &str, extra: &[&str]) -> (u16, String, Op) {
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let op = Op::start_with(0, &resource, &format!("mcp:tools {scopes}"), extra);
    (port, resource, op)
}

/// Each of `people` (name, bearer) calls `tool` with `args`, is asked to connect, and follows
/// the link in a simulated browser: signed in at ours, then at the upstream, landing on the
/// page that says `landed` (`Microsoft 365 is connected`). Answers the last page landed on.
pub(crate) async fn connect(
    url: &str,
    people: &[(&str, &str)],
    tool: &str,
    args: Value,
    landed: &str,
) -> String {
    let mut last = String::new();
    for (who, bearer) in people {
        let asked = Rpc::with_bearer(url, bearer).tool(tool, args.clone()).await;
        assert_eq!(asked["status"], "connection_required", "{asked}");
        let link = asked["connect_url"].as_str().unwrap();
        let page = Browser::new().open(link, who, None).await;
        assert_eq!(page.status, 200, "{}", page.body);
        assert!(page.body.contains(landed), "{}", page.body);
        last = page.body;
    }
    last
}

/// `who` calls `tool`, which needs more than their connection allows so far: they are asked
/// to connect again (`scope_required`), nothing reaches the upstream, and their link asks the
/// provider for it (incremental consent) and lands on the connected page.
pub(crate) async fn more_access(url: &str, (who, bearer): (&str, &str), tool: &str, args: Value) {
    let asked = Rpc::with_bearer(url, bearer).tool(tool, args).await;
    assert_eq!(asked["status"], "connection_required", "{asked}");
    let hint = asked["hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains("without the access this tool needs"),
        "{asked}"
    );
    let link = asked["connect_url"].as_str().unwrap();
    let page = Browser::new().open(link, who, None).await;
    assert_eq!(page.status, 200, "{}", page.body);
}

/// A write that reaches people, as `bearer`: asked without confirmation it waits for one; its
/// dry run's preview names `recipient` and shows `subject`; nothing has reached the upstream
/// while `sent_nothing()` holds; confirmed through the Python SDK's form (one process) it is ok.
pub(crate) async fn confirmed_write(
    url: &str,
    bearer: &str,
    (tool, args): (&str, &Value),
    (recipient, subject): (&str, &str),
    sent_nothing: impl Fn() -> bool,
) {
    let asked = Rpc::with_bearer(url, bearer).tool(tool, args.clone()).await;
    assert_eq!(asked["status"], "confirmation_required", "{asked}");
    let mut dry = args.clone();
    dry["dry_run"] = json!(true);
    let preview = Rpc::with_bearer(url, bearer).tool(tool, dry).await;
    assert_eq!(
        preview["preview"]["notifies"],
        json!([recipient]),
        "{preview}"
    );
    assert!(preview.to_string().contains(subject), "{preview}");
    assert!(sent_nothing(), "nothing sent before the confirmation");
    let sent = integration_tests::confirm_as(url, bearer, tool, args);
    assert_eq!(sent["structured"]["status"], "ok", "{sent}");
}

/// None of `secrets` (tokens, addresses, subjects) in what `server` printed, and none of the
/// `upstream_tokens` is one of our callers' (audience `resource`): those never leave us.
pub(crate) fn nothing_printed(
    server: &Server,
    secrets: &[String],
    upstream_tokens: &[String],
    resource: &str,
) {
    let printed = format!("{}\n{}", server.stdout.joined(), server.stderr.joined());
    for secret in secrets.iter().chain(upstream_tokens) {
        assert!(!printed.contains(secret.as_str()), "printed: {secret}");
    }
    assert!(
        !upstream_tokens.iter().any(|t| claims(t)["aud"] == resource),
        "our callers' tokens never went upstream"
    );
}

/// A running server and the directory its one catalog is read from.
pub(crate) struct Served {
    pub(crate) server: Server,
    _dir: TempDir,
}

/// A server on `port` serving only `connector`'s catalog `yaml` with its upstream at `api` and
/// the secret fields `fields` beside our client's (`("tenant", "…")`); `op` is both our
/// authorization server and the upstream's, where the connect client and our client at the
/// upstream are registered.
pub(crate) async fn serve(
    op: &Op,
    port: u16,
    connector: &str,
    (yaml, api): (&str, &str),
    fields: &[(&str, &str)],
) -> Served {
    let base = format!("http://127.0.0.1:{port}");
    let signed_in = format!("{base}/connect/{connector}/signed-in");
    let connections = format!("{base}/connections/signed-in");
    let (connect_client, _) = op.register_for(&[&signed_in, &connections], true).await;
    let callback = format!("{base}/connect/{connector}/callback");
    let (client, secret) = op.register(&callback, false).await;
    let dir = TempDir::new(connector);
    std::fs::write(dir.path.join(format!("{connector}.yaml")), yaml).unwrap();
    let upper = connector.to_uppercase();
    let owned = [
        ("MCP_API_KEYS".to_string(), format!("e2e:{KEY}")),
        (
            "MCP_PSEUDONYM_PEPPER".into(),
            format!("{connector}-test-pepper-0123456789abcdef"),
        ),
        ("MCP_OAUTH_ISSUER".into(), op.issuer().to_string()),
        ("MCP_RESOURCE_URL".into(), format!("{base}/mcp")),
        ("MCP_CONNECT_CLIENT_ID".into(), connect_client),
        (
            "MCP_CATALOG_DIR".into(),
            dir.path.to_str().unwrap().to_string(),
        ),
        (format!("{upper}_BASE_URL"), api.to_string()),
        (format!("{upper}_CLIENT_ID"), client),
        (format!("{upper}_CLIENT_SECRET"), secret.unwrap()),
    ];
    let fields = fields
        .iter()
        .map(|(f, v)| (format!("{upper}_{}", f.to_uppercase()), v.to_string()));
    let owned: Vec<(String, String)> = owned.into_iter().chain(fields).collect();
    let env: Vec<(&str, &str)> = owned
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    Served {
        server: Server::start_at(port, &[], &env),
        _dir: dir,
    }
}

/// Calls each tool of `connector` with its description's example as `who` (a write as its
/// dry run): `ok`, not cut, within 25 KB. A tool that needs more access than the person has
/// allowed yet asks for it first, and the person allows it. Prints the sizes.
pub(crate) async fn every_example_fits(url: &str, (who, bearer): (&str, &str), connector: &str) {
    let catalog = connector::load(None)
        .unwrap()
        .into_iter()
        .find(|c| c.connector == connector)
        .unwrap();
    for tool in &catalog.tools {
        let (_, example) = tool.description.rsplit_once("Example: ").unwrap();
        let mut args: Value = serde_json::from_str(example.trim()).unwrap();
        if !tool.is_read_only() && tool.aggregate.is_none() {
            args["dry_run"] = json!(true);
        }
        let mut answer = Rpc::with_bearer(url, bearer)
            .tool(&tool.name, args.clone())
            .await;
        if answer["status"] == "connection_required" && !tool.scopes.is_empty() {
            let link = answer["connect_url"].as_str().unwrap();
            assert_eq!(Browser::new().open(link, who, None).await.status, 200);
            answer = Rpc::with_bearer(url, bearer).tool(&tool.name, args).await;
        }
        assert_eq!(answer["status"], "ok", "{}: {answer}", tool.name);
        assert_ne!(answer["truncated"], true, "{}: cut", tool.name);
        let bytes = answer.to_string().len();
        println!("{:40} {bytes:6} B", tool.name.to_string());
        assert!(bytes <= 25 * 1024, "{}: {bytes} B", tool.name);
    }
}
