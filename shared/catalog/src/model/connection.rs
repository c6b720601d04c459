//! How requests reach the upstream: authentication (the deployment's or each person's own),
//! error bodies, and a federated MCP server with its overlays.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::text::Text;

use super::kinds::{Risk, Status};

/// How requests authenticate upstream; absent means no credentials. One of:
/// `{bearer: FIELD}` (`Authorization: Bearer <FIELD>`), `{header: NAME, secret: FIELD}` (the
/// secret as the header's value), `{header: NAME, value: "Token {FIELD}"}` (a template over
/// secret fields), `{query: NAME, secret: FIELD}` (a query parameter, never shown in a preview
/// or a log), `{basic: {username: FIELD, password: FIELD}}` (HTTP basic) or
/// `{oauth_user: {…}}` (each person's own token from the upstream's authorization server).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Auth {
    /// `Authorization: Bearer <this secret field>`.
    #[serde(default)]
    pub bearer: Option<Text>,
    /// A named header carrying the secret field `secret`, or the template `value`.
    #[serde(default)]
    pub header: Option<Text>,
    #[serde(default)]
    pub secret: Option<Text>,
    /// With `header`: the header's value, `{field}` placeholders filled from secret fields
    /// (`Bearer {token}`, `{api_key}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Text>,
    /// A query parameter carrying the secret field `secret`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<Text>,
    /// HTTP basic authentication from two secret fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic: Option<BasicAuth>,
    /// Each person's own access token, got from the upstream's authorization server (code with
    /// PKCE) and kept in the vault: `Authorization: Bearer <their token>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth_user: Option<OAuthUser>,
}

/// The upstream's authorization server, for `auth: { oauth_user: … }`: where a person grants
/// us access (authorization code with PKCE) and where codes and refresh tokens are exchanged.
/// The client's id and secret are secret fields, not values.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OAuthUser {
    /// The authorization endpoint a person's browser is sent to (https; http only on loopback).
    pub authorization_endpoint: Text,
    /// The token endpoint codes and refresh tokens are exchanged at (https; http only on
    /// loopback).
    pub token_endpoint: Text,
    /// Secret field with our client id at the upstream.
    pub client_id: Text,
    /// Secret field with the client secret; absent for a public client (PKCE alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Text>,
    /// The scopes asked for; with the person and the connector they name the vault entry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<Text>,
    /// RFC 8707 resource indicator sent with the authorization and token requests, for
    /// authorization servers that support it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<Text>,
    /// RFC 7009 revocation endpoint (https; http only on loopback): a person's disconnect
    /// revokes their grant there too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation_endpoint: Option<Text>,
}

/// HTTP basic credentials: secret field names, not values.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BasicAuth {
    /// Secret field with the user name (or the API key, for APIs that send it as the user).
    pub username: Text,
    /// Secret field with the password; absent sends an empty one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<Text>,
}

impl Auth {
    /// The secret fields the credentials come from, in the order they are used.
    pub fn secret_fields(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        out.extend(self.bearer.as_deref());
        out.extend(self.secret.as_deref());
        if let Some(value) = &self.value {
            out.extend(crate::placeholders(value));
        }
        if let Some(basic) = &self.basic {
            out.push(&basic.username);
            out.extend(basic.password.as_deref());
        }
        if let Some(o) = &self.oauth_user {
            out.push(&o.client_id);
            out.extend(o.client_secret.as_deref());
            // A `{field}` in an endpoint (a tenant id in the path) is a secret field too.
            let endpoints = [&o.authorization_endpoint, &o.token_endpoint];
            for endpoint in endpoints.into_iter().chain(&o.revocation_endpoint) {
                out.extend(crate::placeholders(endpoint));
            }
        }
        out
    }
}

/// How an upstream answers errors. The message becomes `upstream_message` (one line, redacted);
/// the status decides the result status and its hint, as an HTTP status would.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Errors {
    /// JSON pointers (`/error/message`) to the message in an error body, tried in order; a
    /// string, or a list of strings joined with `; `.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub message: Vec<Text>,
    /// `application/problem+json` answers (RFC 9457): the message is `title: detail` when no
    /// pointer found one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub problem_details: bool,
    /// JSON pointer to a status inside a 2xx body (`/status`, `/error/code`): a number (or a
    /// numeric string) from 400 to 599 there makes the answer a refusal with that status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Text>,
    /// JSON pointer to the upstream's own error code in an error body (`/error/code`,
    /// `/error/status`): a number or a string, read as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Text>,
    /// The result status an error code means, overriding the one its HTTP status gives (Meta
    /// answers HTTP 400 with code 130429 for throttling): `{"130429": rate_limited}`. Keys are
    /// matched against the value at `code` as text.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub codes: BTreeMap<Text, Status>,
}

impl Errors {
    /// The status the catalog gives an error code, when it names that code.
    pub fn status_of_code(&self, code: &str) -> Option<Status> {
        self.codes.get(code).copied()
    }
}

/// A federated Streamable HTTP MCP server.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct McpRemote {
    /// The server's MCP endpoint; `{field}` placeholders are filled from the connector's secret
    /// fields, like `base_url`.
    pub url: Text,
    /// Time allowed for one request to the remote, milliseconds; the catalog's `timeout_ms`
    /// when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// How long a fetched tool list is used before it is fetched again, seconds.
    #[serde(default = "default_tools_ttl_s")]
    pub tools_ttl_s: u64,
    /// The remote tool names (or `*` globs) the deployment serves; every other remote tool is
    /// never listed nor callable. Explicit, so a remote adding a tool adds nothing here.
    pub allow: Vec<Text>,
    /// The local contract per remote tool name: risk, name, description, listing, untrusted
    /// fields.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub overlays: BTreeMap<Text, RemoteOverlay>,
    /// The hosts a remote may ask the person to open a link on (a URL elicitation, `https`
    /// only): exact host names, or `*.example.com` for its subdomains. Any other link, and every
    /// form asking for a password, key, token or card, is refused, never shown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub url_elicitation_hosts: Vec<Text>,
    /// The reviewed listing of each remote tool, by remote name: `sha256:` and 32 hex digits
    /// of its title, description, input schema and annotations, as the server logs them. Once
    /// any is declared, a remote tool without a matching pin is withheld until reviewed again.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pins: BTreeMap<Text, Text>,
}

fn default_tools_ttl_s() -> u64 {
    300
}

/// What the catalog says about one remote tool, over what the remote says.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RemoteOverlay {
    /// Our risk level; without it a tool the remote does not declare read-only is `high`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
    /// Our name for it instead of `<connector>_<remote name>`; must begin with the connector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Text>,
    /// Our description instead of the remote's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Text>,
    /// Listed in `tools/list` (default); `false` leaves it to search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core: Option<bool>,
    /// Result fields (dotted) holding text users wrote, marked as untrusted data.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub untrusted: Vec<Text>,
}
