//! A remote's questions to the person (`input_required` of a tool call or a `prompts/get`),
//! screened before they reach anyone. A remote is a third party: what it asks must never look
//! like this server asking, nor lead the person anywhere the catalog did not allow. So each
//! elicitation's message says which remote asks; a URL elicitation passes only to an `https`
//! link on a host of the catalog's `mcp.url_elicitation_hosts`; and a form asking for a
//! password, secret, token, key or card (which the MCP specification forbids a form to ask;
//! those belong in a URL flow) is refused. A refused question refuses the whole round, typed
//! ([`UpstreamError::RemoteQuestionRefused`]): the person is not asked, the remote is not
//! answered. Sampling and roots requests pass as sent. Pure.

use catalog::McpRemote;
use serde_json::{Map, Value};

use super::text;
use crate::upstream::error::{RemoteInput, UpstreamError};

/// The longest remote message shown, characters.
const MAX_MESSAGE: usize = 500;

/// Words (after splitting on anything but letters and digits, and at lower-to-upper case
/// changes) that make a form field sensitive.
const SENSITIVE_WORDS: &[&str] = &[
    "password",
    "passwort",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "credential",
    "credentials",
    "cvv",
    "cvc",
    "pin",
    "otp",
    "ssn",
    "iban",
];
/// Pairs of consecutive words that make a form field sensitive.
const SENSITIVE_PAIRS: &[(&str, &str)] = &[
    ("api", "key"),
    ("access", "key"),
    ("private", "key"),
    ("secret", "key"),
    ("credit", "card"),
    ("card", "number"),
    ("security", "code"),
    ("social", "security"),
];

/// The remote's questions as the person may see them: every message says that `title` (the
/// remote of `connector`) asks; or why they are refused.
pub(super) fn screen(
    connector: &str,
    title: &str,
    remote: &McpRemote,
    mut asked: RemoteInput,
) -> Result<RemoteInput, UpstreamError> {
    let refused = |why: String| Err(UpstreamError::RemoteQuestionRefused(why));
    let Value::Object(requests) = &mut asked.requests else {
        return refused("its input requests are no object of requests".into());
    };
    for request in requests.values_mut() {
        if request.get("method").and_then(Value::as_str) != Some("elicitation/create") {
            continue;
        }
        let Some(params) = request.get_mut("params").and_then(Value::as_object_mut) else {
            return refused("an elicitation came without its params".into());
        };
        match params.get("mode").and_then(Value::as_str).unwrap_or("form") {
            "url" => link_allowed(remote, params.get("url").and_then(Value::as_str))?,
            "form" => no_sensitive_field(params.get("requestedSchema"))?,
            other => {
                return refused(format!(
                    "an elicitation of the unknown mode `{}`",
                    audit::bounded(other, 20)
                ));
            }
        }
        let message = params.get("message").and_then(Value::as_str).unwrap_or("");
        let message = text::cut(message.trim(), MAX_MESSAGE);
        params.insert(
            "message".into(),
            format!("{title} (remote MCP server `{connector}`, not this server) asks: {message}")
                .into(),
        );
    }
    Ok(asked)
}

fn link_allowed(remote: &McpRemote, url: Option<&str>) -> Result<(), UpstreamError> {
    let refused = |why: String| Err(UpstreamError::RemoteQuestionRefused(why));
    let Some(url) = url.and_then(|u| reqwest::Url::parse(u).ok()) else {
        return refused("a link that is no URL".into());
    };
    let host = url.host_str().unwrap_or("");
    if url.scheme() != "https" {
        return refused(format!(
            "a link that is not https (`{}`)",
            audit::bounded(url.scheme(), 20)
        ));
    }
    if !remote.allows_link_host(host) {
        return refused(format!(
            "a link to `{}`, a host the catalog does not list in mcp.url_elicitation_hosts",
            audit::bounded(host, 100)
        ));
    }
    Ok(())
}

/// A form field asking for a password, secret, token, key or card: by its name, title or
/// description, or `format: password`.
fn no_sensitive_field(schema: Option<&Value>) -> Result<(), UpstreamError> {
    let properties = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(Map::iter)
        .into_iter()
        .flatten();
    for (name, field) in properties {
        let text = |key: &str| field.get(key).and_then(Value::as_str).unwrap_or("");
        let sensitive = text("format") == "password"
            || [name.as_str(), text("title"), text("description")]
                .iter()
                .any(|t| names_secret(t));
        if sensitive {
            return Err(UpstreamError::RemoteQuestionRefused(format!(
                "a form field `{}` asking for a password, secret, token, key or card (a form may \
                 never ask for one)",
                audit::bounded(name, 40)
            )));
        }
    }
    Ok(())
}

/// Whether a text names a secret: one of [`SENSITIVE_WORDS`] or [`SENSITIVE_PAIRS`].
fn names_secret(text: &str) -> bool {
    let words = words(text);
    words.iter().any(|w| SENSITIVE_WORDS.contains(&w.as_str()))
        || words
            .windows(2)
            .any(|p| SENSITIVE_PAIRS.contains(&(p[0].as_str(), p[1].as_str())))
}

/// Lower-case words, split at anything but letters and digits and where a lower-case letter is
/// followed by an upper-case one (`apiKey` → `api`, `key`).
fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if (!c.is_alphanumeric() || (prev_lower && c.is_uppercase())) && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        }
        prev_lower = c.is_lowercase();
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn remote(hosts: &str) -> McpRemote {
        let text = format!(
            "connector: notes\nmcp:\n  url: http://x.test/mcp\n  allow: [\"*\"]\n  url_elicitation_hosts: [{hosts}]\n"
        );
        catalog::parse("notes.yaml", &text).unwrap().mcp.unwrap()
    }

    fn asking(params: Value) -> RemoteInput {
        RemoteInput {
            requests: json!({"q": {"method": "elicitation/create", "params": params}}),
            state: Some("theirs".into()),
        }
    }

    fn refusal(r: Result<RemoteInput, UpstreamError>) -> String {
        match r {
            Err(UpstreamError::RemoteQuestionRefused(why)) => why,
            other => panic!("refused expected: {other:?}"),
        }
    }

    #[test]
    fn a_form_question_is_passed_on_as_the_remotes() {
        let form = json!({"message": "Whom shall I greet?", "requestedSchema":
            {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}}});
        let asked = screen("notes", "Notes", &remote(""), asking(form)).unwrap();
        assert_eq!(
            asked.requests["q"]["params"]["message"],
            "Notes (remote MCP server `notes`, not this server) asks: Whom shall I greet?"
        );
        assert_eq!(asked.state.as_deref(), Some("theirs"));
        let sampling = RemoteInput {
            requests: json!({"s": {"method": "sampling/createMessage", "params": {"messages": []}}}),
            state: None,
        };
        assert_eq!(
            screen("notes", "Notes", &remote(""), sampling.clone()).unwrap(),
            sampling
        );
    }

    #[test]
    fn a_link_passes_only_to_an_https_host_the_catalog_allows() {
        let link = |url: &str| {
            asking(json!({"mode": "url", "message": "Sign in", "url": url, "elicitationId": "e1"}))
        };
        let allowed = remote("auth.notes.test");
        let asked = screen(
            "notes",
            "Notes",
            &allowed,
            link("https://auth.notes.test/x"),
        )
        .unwrap();
        assert!(
            asked.requests["q"]["params"]["message"]
                .as_str()
                .unwrap()
                .starts_with("Notes (remote MCP server `notes`"),
            "{asked:?}"
        );
        let why = refusal(screen(
            "notes",
            "Notes",
            &allowed,
            link("https://evil.test/login"),
        ));
        assert!(why.contains("`evil.test`"), "{why}");
        let why = refusal(screen(
            "notes",
            "Notes",
            &allowed,
            link("http://auth.notes.test/"),
        ));
        assert!(why.contains("not https"), "{why}");
        let why = refusal(screen(
            "notes",
            "Notes",
            &remote(""),
            link("https://auth.notes.test/"),
        ));
        assert!(why.contains("url_elicitation_hosts"), "{why}");
    }

    #[test]
    fn a_form_asking_for_a_secret_is_refused() {
        for field in [
            json!({"password": {"type": "string"}}),
            json!({"pw": {"type": "string", "format": "password"}}),
            json!({"apiKey": {"type": "string"}}),
            json!({"x": {"type": "string", "title": "Your API key"}}),
            json!({"x": {"type": "string", "description": "The credit card number"}}),
            json!({"cvv": {"type": "string"}}),
            json!({"access_token": {"type": "string"}}),
            json!({"Passwort": {"type": "string"}}),
        ] {
            let form = json!({"message": "Sign in", "requestedSchema":
                {"type": "object", "properties": field}});
            let why = refusal(screen("notes", "Notes", &remote(""), asking(form)));
            assert!(why.contains("a form may never ask"), "{why}");
        }
        for harmless in ["shipping", "topic", "spinner", "tokenizer_name"] {
            let form = json!({"message": "?", "requestedSchema":
                {"type": "object", "properties": {harmless: {"type": "string"}}}});
            assert!(
                screen("notes", "Notes", &remote(""), asking(form)).is_ok(),
                "{harmless}"
            );
        }
    }
}
