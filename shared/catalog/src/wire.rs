//! Checks of a catalog's wire declarations: how requests authenticate (`auth`), the static
//! headers they carry (`headers`, per connector and per tool) and how errors come back
//! (`errors`). Pure: each problem is a sentence for the loader, which adds file and line.

use crate::model::{Auth, Catalog, ParamIn, Text, Tool};
use crate::placeholders;

/// Headers a catalog may not set as static headers: the platform's own, and credentials
/// (those belong in `auth`, whose values are secret fields).
const PLATFORM_HEADERS: &[&str] = &[
    "accept",
    "authorization",
    "proxy-authorization",
    "content-type",
    "content-length",
    "host",
    "cookie",
    "user-agent",
    "transfer-encoding",
    "connection",
];

const AUTH_SHAPES: &str = "auth is `{bearer: FIELD}`, `{header: NAME, secret: FIELD}`, `{header: NAME, \
     value: \"… {FIELD} …\"}`, `{query: NAME, secret: FIELD}`, `{basic: {username: FIELD, \
     password: FIELD}}` or `{oauth_user: {authorization_endpoint, token_endpoint, client_id, …}}`";

/// The connector-level problems, each with the top-level key it concerns.
pub(crate) fn problems(c: &Catalog) -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> =
        auth_problems(c).into_iter().map(|p| ("auth", p)).collect();
    out.extend(
        header_problems(&c.headers, &c.auth, &|_| false)
            .into_iter()
            .map(|p| ("headers", p)),
    );
    out.extend(error_problems(c).into_iter().map(|p| ("errors", p)));
    out
}

/// `errors`: JSON pointers, something declared, and one place for the message.
fn error_problems(c: &Catalog) -> Vec<String> {
    let Some(e) = &c.errors else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if e.message.is_empty() && !e.problem_details && e.status.is_none() && e.code.is_none() {
        out.push(
            "errors declares nothing: give `message`, `problem_details`, `status` or `code`".into(),
        );
    }
    if !e.message.is_empty() && c.error_message.is_some() {
        out.push(
            "the message is declared twice: `error_message` (dotted) or `errors.message` \
             (JSON pointers), not both"
                .into(),
        );
    }
    for pointer in e.message.iter().chain(&e.status).chain(&e.code) {
        if !pointer.starts_with('/') {
            out.push(format!(
                "errors: `{pointer}` is not a JSON pointer (write `/error/message`)"
            ));
        }
    }
    out
}

/// A tool's problems: its static headers, and query parameters that would share a name with a
/// query-parameter credential (the secret would then travel beside a model's value).
pub(crate) fn tool_problems(c: &Catalog, t: &Tool) -> Vec<String> {
    let header_param = |name: &str| {
        t.params
            .get(name)
            .is_some_and(|p| p.location == ParamIn::Header)
    };
    let mut out = header_problems(&t.headers, &c.auth, &header_param);
    out.extend(crate::headers::param_problems(t));
    out.extend(tool_scope_problems(c, t));
    if let Some(pager) = c.pager_for(t).filter(|_| t.list) {
        let names = pager.params();
        for (n, p) in t
            .params
            .iter()
            .filter(|(_, p)| p.location == ParamIn::Query)
        {
            let upstream = p.upstream_name(n);
            if names.contains(&upstream) {
                out.push(format!(
                    "param `{n}` goes up as `{upstream}`, a query parameter the paging sends"
                ));
            }
        }
        if matches!(pager.ask, crate::Ask::NextUrl | crate::Ask::LinkHeader)
            && t.http().is_some_and(|(m, _)| !m.is_read_only())
        {
            out.push(
                "a list paged by next URL is read with GET: the next page is a URL, not a body"
                    .into(),
            );
        }
    }
    if let Some(name) = &c.auth.query {
        let clash = t
            .params
            .iter()
            .filter(|(_, p)| p.location == ParamIn::Query)
            .any(|(n, p)| p.upstream_name(n) == name);
        let paging = c
            .pager_for(t)
            .is_some_and(|p| t.list && p.params().contains(&name.as_str()));
        if clash || paging {
            out.push(format!(
                "a query parameter is named `{name}`, the query parameter `auth` sends the secret in"
            ));
        }
    }
    out
}

fn auth_problems(c: &Catalog) -> Vec<String> {
    let a = &c.auth;
    let mut out = Vec::new();
    let set = |o: &Option<Text>| o.is_some();
    let shape_ok = match (
        set(&a.bearer),
        set(&a.header),
        set(&a.secret),
        set(&a.value),
        set(&a.query),
        a.basic.is_some(),
        a.oauth_user.is_some(),
    ) {
        // none; bearer; header + secret; header + value; query + secret; basic; oauth_user
        (false, false, false, false, false, false, false)
        | (true, false, false, false, false, false, false)
        | (false, true, true, false, false, false, false)
        | (false, true, false, true, false, false, false)
        | (false, false, true, false, true, false, false)
        | (false, false, false, false, false, true, false)
        | (false, false, false, false, false, false, true) => true,
        _ => false,
    };
    if let Some(o) = &a.oauth_user {
        out.extend(oauth_user_problems(o));
    }
    if !shape_ok {
        out.push(AUTH_SHAPES.to_string());
    }
    if let Some(value) = &a.value
        && placeholders(value).is_empty()
    {
        out.push(format!(
            "auth.value `{value}` names no secret field: write it as a template such as \
             `Bearer {{token}}` (a fixed header belongs in `headers`)"
        ));
    }
    if let Some(name) = &a.header
        && !is_token(name)
    {
        out.push(format!("auth.header `{name}` is not a valid header name"));
    }
    if let Some(name) = &a.query
        && (name.is_empty() || name.contains(['&', '=', '#', '?', ' ']))
    {
        out.push(format!(
            "auth.query `{name}` is not a plain query parameter name"
        ));
    }
    for f in a.secret_fields() {
        if !c.secrets.iter().any(|s| s == f) {
            out.push(format!(
                "auth uses secret `{f}` but `secrets` does not list it"
            ));
        }
    }
    out
}

/// An `oauth_user` authorization server: endpoints a browser and this server may reach
/// (https, http only on loopback), scopes as single words, an absolute `resource`.
fn oauth_user_problems(o: &crate::model::OAuthUser) -> Vec<String> {
    let mut out = Vec::new();
    for (key, url) in [
        ("authorization_endpoint", &o.authorization_endpoint),
        ("token_endpoint", &o.token_endpoint),
        (
            "revocation_endpoint",
            o.revocation_endpoint.as_ref().unwrap_or(&o.token_endpoint),
        ),
    ] {
        if !secure_or_loopback(url) {
            out.push(format!(
                "auth.oauth_user.{key} `{url}` must be an https URL (http only on 127.0.0.1, \
                 localhost or [::1])"
            ));
        }
    }
    if let Some(r) = &o.resource
        && !(r.starts_with("https://") || r.starts_with("http://"))
    {
        out.push(format!(
            "auth.oauth_user.resource `{r}` must be an absolute http(s) URL"
        ));
    }
    if o.scopes.iter().any(|s| !is_scope(s)) {
        out.push("auth.oauth_user.scopes: each scope is one word without spaces".into());
    }
    out
}

/// A tool's own scopes: only where a person's grant holds scopes, each one word, and together
/// with the connector's within what one authorization request carries.
fn tool_scope_problems(c: &Catalog, t: &Tool) -> Vec<String> {
    if t.scopes.is_empty() {
        return Vec::new();
    }
    let Some(o) = &c.auth.oauth_user else {
        return vec![
            "scopes: only a connector with `auth: oauth_user` asks a person for scopes".into(),
        ];
    };
    let mut out = Vec::new();
    if t.scopes.iter().any(|s| !is_scope(s)) {
        out.push("scopes: each scope is one word without spaces".into());
    }
    let more = c.tool_scopes();
    let all: std::collections::BTreeSet<&str> =
        o.scopes.iter().map(|s| s.as_str()).chain(more).collect();
    if all.len() > MAX_SCOPES {
        out.push(format!(
            "scopes: the connector's and its tools' scopes are {} together; at most \
             {MAX_SCOPES} can be asked for",
            all.len()
        ));
    }
    out
}

impl Catalog {
    /// The scopes its tools declare (`scopes`), each once, in order: what a person may be asked
    /// for on first use of a tool, beyond the connector's own.
    pub fn tool_scopes(&self) -> Vec<&str> {
        let mut all: Vec<&str> = self
            .tools
            .iter()
            .flat_map(|t| &t.scopes)
            .map(|s| s.as_str())
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }
}

/// The most distinct scopes a connector and its tools may ask a person for.
pub const MAX_SCOPES: usize = 32;

fn is_scope(s: &str) -> bool {
    !s.is_empty() && !s.contains(char::is_whitespace) && !s.contains(char::is_control)
}

fn secure_or_loopback(url: &str) -> bool {
    if url.starts_with("https://") && url.len() > "https://".len() {
        return true;
    }
    let Some(rest) = url.strip_prefix("http://") else {
        return false;
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = host.rsplit_once(':').map_or(host, |(h, port)| {
        if port.chars().all(|c| c.is_ascii_digit()) && !h.is_empty() {
            h
        } else {
            host
        }
    });
    matches!(host, "127.0.0.1" | "localhost" | "[::1]")
}

/// Static headers' problems; a `{placeholder}` is allowed only where `param` names it (a
/// tool's `in: header` param).
fn header_problems(
    headers: &std::collections::BTreeMap<Text, Text>,
    auth: &Auth,
    param: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let mut out = Vec::new();
    for (name, value) in headers {
        let lower = name.to_ascii_lowercase();
        if !is_token(name) {
            out.push(format!("header `{name}` is not a valid header name"));
        } else if PLATFORM_HEADERS.contains(&lower.as_str())
            || auth
                .header
                .as_ref()
                .is_some_and(|h| h.eq_ignore_ascii_case(name))
        {
            out.push(format!(
                "header `{name}` is set by the platform or by `auth`; static headers may not set it"
            ));
        }
        if !value.chars().all(|c| c == '\t' || (' '..='~').contains(&c)) {
            out.push(format!(
                "header `{name}`: the value must be printable ASCII on one line"
            ));
        }
        if placeholders(value).into_iter().any(|p| !param(p)) {
            out.push(format!(
                "header `{name}`: headers are sent as written but for a tool's `in: header` \
                 params (`{{time_zone}}`); a secret belongs in `auth`"
            ));
        }
    }
    out
}

/// An HTTP header name (RFC 9110 token).
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

#[cfg(test)]
mod tests {
    use crate::{Credential, Tool};

    fn catalog(auth: &str, headers: &str) -> String {
        format!(
            r#"connector: shop
base_url: "https://api.example.com"
secrets: [token, user, password]
{auth}
{headers}
tools:
  - name: shop_items_get
    risk: low
    description: d
    get: /items
    params:
      q: {{ type: string }}
"#
        )
    }

    fn err(text: &str) -> String {
        crate::parse("shop.yaml", text).unwrap_err().to_string()
    }

    fn lookup(name: &str) -> Option<String> {
        match name {
            "token" => Some("t-1".into()),
            "user" => Some("u".into()),
            "password" => Some("p".into()),
            _ => None,
        }
    }

    #[test]
    fn every_auth_shape_loads_and_yields_its_credential() {
        for (auth, want) in [
            ("auth: { bearer: token }", Credential::Bearer("t-1".into())),
            (
                "auth: { header: Authorization, value: \"{token}\" }",
                Credential::Header {
                    name: "Authorization".into(),
                    value: "t-1".into(),
                },
            ),
            (
                "auth: { header: Authorization, value: \"Token {user}:{token}\" }",
                Credential::Header {
                    name: "Authorization".into(),
                    value: "Token u:t-1".into(),
                },
            ),
            (
                "auth: { header: X-Api-Key, secret: token }",
                Credential::Header {
                    name: "X-Api-Key".into(),
                    value: "t-1".into(),
                },
            ),
            (
                "auth: { query: api_key, secret: token }",
                Credential::Query {
                    name: "api_key".into(),
                    value: "t-1".into(),
                },
            ),
            (
                "auth: { basic: { username: user, password: password } }",
                Credential::Basic {
                    username: "u".into(),
                    password: Some("p".into()),
                },
            ),
            (
                "auth: { basic: { username: token } }",
                Credential::Basic {
                    username: "t-1".into(),
                    password: None,
                },
            ),
        ] {
            let c = crate::parse("shop.yaml", &catalog(auth, ""))
                .unwrap_or_else(|e| panic!("{auth}: {e}"));
            let got = c.auth.credential(lookup).unwrap().unwrap();
            assert!(!format!("{got:?}").contains("t-1"), "{got:?}");
            assert_eq!(got, want, "{auth}");
        }
    }

    #[test]
    fn a_template_is_filled_once_and_a_missing_field_is_named() {
        let filled = crate::fill_secret_template("Bearer {a}", |_| Some("{a}".into())).unwrap();
        assert_eq!(filled, "Bearer {a}");
        let err = crate::fill_secret_template("{a} {b}", |n| (n == "a").then(|| "x".into()));
        assert_eq!(err.unwrap_err().field(), "b");
    }

    #[test]
    fn bad_auth_declarations_name_the_auth_line() {
        for (auth, problem) in [
            (
                "auth: { bearer: token, query: k }",
                "auth is `{bearer: FIELD}`",
            ),
            ("auth: { query: k }", "auth is `{bearer: FIELD}`"),
            (
                "auth: { header: X-Key, secret: token, value: \"{token}\" }",
                "auth is",
            ),
            (
                "auth: { header: X-Key, value: fixed }",
                "names no secret field",
            ),
            (
                "auth: { header: \"X Key\", secret: token }",
                "not a valid header name",
            ),
            (
                "auth: { query: \"a=b\", secret: token }",
                "not a plain query parameter",
            ),
            (
                "auth: { header: X-Key, value: \"{nope}\" }",
                "secret `nope`",
            ),
            ("auth: { basic: { username: nope } }", "secret `nope`"),
        ] {
            let e = err(&catalog(auth, ""));
            assert!(e.starts_with("shop.yaml:4: "), "{auth}: {e}");
            assert!(e.contains(problem), "{auth}: {e}");
        }
    }

    #[test]
    fn a_tools_own_scopes_need_oauth_user_and_stay_within_one_request() {
        let tool = |auth: &str, scopes: &str| {
            format!(
                "connector: shop\nbase_url: https://a\nsecrets: [user]\n{auth}\ntools:\n  \
                 - {{ name: shop_items_get, risk: low, description: d, get: /i, scopes: {scopes} }}\n"
            )
        };
        let oauth = "auth: { oauth_user: { authorization_endpoint: \"https://a\", \
                     token_endpoint: \"https://a/t\", client_id: user, scopes: [read] } }";
        let c = crate::parse("shop.yaml", &tool(oauth, "[contacts.read]")).unwrap();
        assert_eq!(c.tools[0].scopes, ["contacts.read"]);
        let e = err(&tool("auth: { bearer: user }", "[contacts.read]"));
        assert!(
            e.contains("only a connector with `auth: oauth_user`"),
            "{e}"
        );
        assert!(err(&tool(oauth, "[\"a b\"]")).contains("one word"));
        let many: Vec<String> = (0..40).map(|i| format!("s{i}")).collect();
        let e = err(&tool(oauth, &format!("[{}]", many.join(", "))));
        assert!(e.contains("41 together; at most 32"), "{e}");
    }

    #[test]
    fn oauth_user_loads_alone_with_reachable_endpoints_and_listed_secrets() {
        let ok = "auth: { oauth_user: { authorization_endpoint: \"https://id.example/authorize\", \
                  token_endpoint: \"http://127.0.0.1:9/token\", client_id: user, \
                  client_secret: password, scopes: [mail.read, mail.send] } }";
        let c = crate::parse("shop.yaml", &catalog(ok, "")).unwrap();
        let o = c.auth.oauth_user.as_ref().unwrap();
        assert_eq!(o.scopes, ["mail.read", "mail.send"]);
        assert_eq!(c.auth.secret_fields(), ["user", "password"]);
        // The deployment's credential is none: each person's token is sent instead.
        assert_eq!(c.auth.credential(lookup).unwrap(), None);
        for (auth, problem) in [
            (
                "auth: { bearer: token, oauth_user: { authorization_endpoint: \"https://a\", token_endpoint: \"https://a/t\", client_id: user } }",
                "auth is `{bearer: FIELD}`",
            ),
            (
                "auth: { oauth_user: { authorization_endpoint: \"http://id.example/a\", token_endpoint: \"https://a/t\", client_id: user } }",
                "authorization_endpoint `http://id.example/a` must be an https URL",
            ),
            (
                "auth: { oauth_user: { authorization_endpoint: \"https://a\", token_endpoint: \"ftp://a/t\", client_id: user } }",
                "token_endpoint",
            ),
            (
                "auth: { oauth_user: { authorization_endpoint: \"https://a\", token_endpoint: \"https://a/t\", client_id: user, revocation_endpoint: \"http://id.example/r\" } }",
                "revocation_endpoint `http://id.example/r` must be an https URL",
            ),
            (
                "auth: { oauth_user: { authorization_endpoint: \"https://a\", token_endpoint: \"https://a/t\", client_id: nope } }",
                "secret `nope`",
            ),
            (
                "auth: { oauth_user: { authorization_endpoint: \"https://a\", token_endpoint: \"https://a/t\", client_id: user, scopes: [\"a b\"] } }",
                "one word",
            ),
            (
                "auth: { oauth_user: { authorization_endpoint: \"https://a\", token_endpoint: \"https://a/t\", client_id: user, resource: api } }",
                "absolute http(s) URL",
            ),
            (
                "auth: { oauth_user: { authorization_endpoint: \"https://a/{tenant}/authorize\", token_endpoint: \"https://a/t\", client_id: user } }",
                "secret `tenant`",
            ),
        ] {
            let e = err(&catalog(auth, ""));
            assert!(e.starts_with("shop.yaml:4: "), "{auth}: {e}");
            assert!(e.contains(problem), "{auth}: {e}");
        }
    }

    #[test]
    fn an_oauth_endpoint_may_hold_a_secret_field_like_a_base_url() {
        let entra = "auth: { oauth_user: { authorization_endpoint: \
                     \"https://login.example/{token}/oauth2/v2.0/authorize\", token_endpoint: \
                     \"https://login.example/{token}/oauth2/v2.0/token\", client_id: user } }";
        let c = crate::parse("shop.yaml", &catalog(entra, "")).unwrap();
        assert_eq!(c.auth.secret_fields(), ["user", "token", "token"]);
        let o = c.auth.oauth_user.as_ref().unwrap();
        let tenant = |f: &str| (f == "token").then(|| "organizations".to_string());
        assert_eq!(
            crate::fill_base_url(&o.token_endpoint, tenant).unwrap(),
            "https://login.example/organizations/oauth2/v2.0/token"
        );
    }

    #[test]
    fn a_remote_mcp_server_may_act_as_each_person() {
        let text = "connector: notes\nsecrets: [host, user]\nauth: { oauth_user: { \
                    authorization_endpoint: \"https://id.example/authorize\", \
                    token_endpoint: \"https://id.example/token\", client_id: user, \
                    scopes: [notes.read] } }\nmcp:\n  url: \"https://{host}/mcp\"\n  \
                    allow: [search_notes]\n";
        let c = crate::parse("notes.yaml", text).unwrap();
        assert!(c.mcp.is_some() && c.auth.oauth_user.is_some());
    }

    #[test]
    fn a_query_credential_may_not_share_a_name_with_a_tool_parameter() {
        let text = catalog("auth: { query: q, secret: token }", "");
        let e = err(&text);
        assert!(e.starts_with("shop.yaml:7: tool `shop_items_get`"), "{e}");
        assert!(e.contains("`q`"), "{e}");
    }

    #[test]
    fn static_headers_are_plain_and_never_credentials() {
        let ok = catalog(
            "auth: { header: X-Key, secret: token }",
            "headers: { cal-api-version: \"2024-08-13\", X-Client: hosted-mcp }",
        );
        let c = crate::parse("shop.yaml", &ok).unwrap();
        assert_eq!(c.headers["cal-api-version"], "2024-08-13");
        for (headers, problem) in [
            (
                "headers: { Authorization: \"Bearer x\" }",
                "set by the platform",
            ),
            ("headers: { x-key: v }", "set by the platform or by `auth`"),
            ("headers: { \"a b\": v }", "not a valid header name"),
            (
                "headers: { X-Token: \"{token}\" }",
                "a secret belongs in `auth`",
            ),
            ("headers: { X-Line: \"a\\nb\" }", "printable ASCII"),
        ] {
            let e = err(&catalog("auth: { header: X-Key, secret: token }", headers));
            assert!(e.starts_with("shop.yaml:5: "), "{headers}: {e}");
            assert!(e.contains(problem), "{headers}: {e}");
        }
        let tool_level = ok.replace(
            "    get: /items\n",
            "    get: /items\n    headers: { Content-Type: text/plain }\n",
        );
        let e = err(&tool_level);
        assert!(e.starts_with("shop.yaml:7: tool `shop_items_get`"), "{e}");
    }

    #[test]
    fn error_declarations_are_pointers_in_one_place() {
        let ok = catalog(
            "",
            "errors: { message: [/error/message], problem_details: true, status: /status }",
        );
        let c = crate::parse("shop.yaml", &ok).unwrap();
        let e = c.errors.unwrap();
        assert_eq!(
            (e.message.len(), e.problem_details, e.status.as_deref()),
            (1, true, Some("/status"))
        );
        for (errors, problem) in [
            ("errors: {}", "errors declares nothing"),
            ("errors: { message: [error.message] }", "not a JSON pointer"),
            ("errors: { status: status }", "not a JSON pointer"),
            (
                "error_message: message\nerrors: { message: [/message] }",
                "declared twice",
            ),
        ] {
            let e = err(&catalog("", errors));
            let line = if errors.starts_with("error_message") {
                6
            } else {
                5
            };
            assert!(
                e.starts_with(&format!("shop.yaml:{line}: ")),
                "{errors}: {e}"
            );
            assert!(e.contains(problem), "{errors}: {e}");
        }
    }

    #[test]
    fn a_tool_header_replaces_the_connectors_of_the_same_name() {
        let text = catalog(
            "",
            "headers: { cal-api-version: \"2024-08-13\", X-Client: a }",
        )
        .replace(
            "    get: /items\n",
            "    get: /items\n    headers: { Cal-Api-Version: \"2024-06-14\" }\n",
        );
        let c = crate::parse("shop.yaml", &text).unwrap();
        let tool: &Tool = &c.tools[0];
        assert_eq!(
            c.static_headers(Some(tool)),
            [("X-Client", "a"), ("Cal-Api-Version", "2024-06-14")]
        );
        assert_eq!(
            c.static_headers(None),
            [("X-Client", "a"), ("cal-api-version", "2024-08-13")]
        );
    }
}
