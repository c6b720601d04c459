//! Rules on inbound webhooks: the secrets they are checked with are declared, the pointers are
//! pointers, the bounds are bounded; a tool that reads them is nothing else and names a
//! required string param for the conversation.

use crate::model::{
    Catalog, Inbound, InboundRead, MAX_INBOUND_BODY, MAX_INBOUND_READ, MAX_INBOUND_TTL_DAYS,
    Method, ParamType, Requires, Risk, Tool,
};

/// The longest reply window a catalog may declare, hours (a week).
const MAX_REPLY_WINDOW_H: u32 = 168;

/// The catalog's `inbound`, when it has one: its problems, each starting with `inbound`.
pub(super) fn problems(c: &Catalog) -> Vec<String> {
    let Some(inbound) = &c.inbound else {
        return Vec::new();
    };
    let mut out = secrets_are_declared(c, inbound);
    out.extend(header_is_a_name(inbound));
    out.extend(events_are_found_by_pointers(inbound));
    out.extend(names_are_found_by_pointers(inbound));
    out.extend(bounds(inbound));
    out.into_iter().map(|p| format!("inbound: {p}")).collect()
}

fn secrets_are_declared(c: &Catalog, inbound: &Inbound) -> Vec<String> {
    [
        ("verify_token", &inbound.verify_token),
        ("signing_secret", &inbound.signing_secret),
    ]
    .into_iter()
    .filter(|(_, field)| !c.secrets.iter().any(|s| s == *field))
    .map(|(key, field)| format!("`{key}: {field}` is not listed in `secrets`"))
    .collect()
}

fn header_is_a_name(inbound: &Inbound) -> Vec<String> {
    let name = &inbound.signature_header;
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return vec![format!(
            "`signature_header: {name}` is not an HTTP header name"
        )];
    }
    Vec::new()
}

fn events_are_found_by_pointers(inbound: &Inbound) -> Vec<String> {
    if inbound.events.is_empty() {
        return vec!["`events` names no events".into()];
    }
    let mut out = Vec::new();
    for (i, e) in inbound.events.iter().enumerate() {
        if e.id.is_empty() {
            out.push(format!("events[{i}]: `id` names no pointer"));
        }
        let pointers = [&e.at, &e.conversation, &e.timestamp]
            .into_iter()
            .chain(&e.id);
        for p in pointers.filter(|p| !p.starts_with('/')) {
            out.push(format!(
                "events[{i}]: `{p}` is not a JSON pointer (starts with `/`)"
            ));
        }
    }
    out
}

fn names_are_found_by_pointers(inbound: &Inbound) -> Vec<String> {
    let mut out = Vec::new();
    for (i, n) in inbound.names.iter().enumerate() {
        for p in [&n.at, &n.conversation, &n.name] {
            if !p.starts_with('/') {
                out.push(format!(
                    "names[{i}]: `{p}` is not a JSON pointer (starts with `/`)"
                ));
            }
        }
    }
    out
}

fn bounds(inbound: &Inbound) -> Vec<String> {
    let mut out = Vec::new();
    if !(1..=MAX_INBOUND_TTL_DAYS).contains(&inbound.ttl_days) {
        out.push(format!("`ttl_days` must be 1 to {MAX_INBOUND_TTL_DAYS}"));
    }
    if !(1..=MAX_INBOUND_BODY).contains(&inbound.max_body_bytes) {
        out.push(format!("`max_body_bytes` must be 1 to {MAX_INBOUND_BODY}"));
    }
    if let Some(h) = inbound.reply_window_h
        && !(1..=MAX_REPLY_WINDOW_H).contains(&h)
    {
        out.push(format!(
            "`reply_window_h` must be 1 to {MAX_REPLY_WINDOW_H}"
        ));
    }
    out
}

/// A tool that reads inbound events: no HTTP mapping nor any other kind, a catalog with
/// `inbound`, a read (`low`), a required string param naming the conversation.
pub(super) fn tool(c: &Catalog, t: &Tool, read: &InboundRead, mappings: usize) -> Vec<String> {
    let mut out = Vec::new();
    if mappings != 0 || t.list || t.raw || t.body.is_some() || t.aggregate.is_some() {
        out.push(
            "an inbound tool has no HTTP mapping and is neither list, raw nor aggregate".into(),
        );
    }
    if c.inbound.is_none() {
        out.push("reads `inbound` events but the catalog declares no `inbound`".into());
    }
    if !matches!(t.risk, Risk::Low | Risk::Forbidden) {
        out.push("an inbound tool only reads: its risk is `low`".into());
    }
    out.extend(reads_one_thing(t, read));
    if !(1..=MAX_INBOUND_READ).contains(&read.limit) {
        out.push(format!("inbound `limit` must be 1 to {MAX_INBOUND_READ}"));
    }
    out
}

/// One conversation by a required string param, or the list (`conversations: true`) with an
/// optional string param for the name.
fn reads_one_thing(t: &Tool, read: &InboundRead) -> Vec<String> {
    let param = |name: &str| t.params.get(name).filter(|p| p.kind == ParamType::String);
    match (&read.conversation, read.conversations) {
        (Some(_), true) | (None, false) => {
            vec![
                "inbound: give either `conversation` (one) or `conversations: true` (the list)"
                    .into(),
            ]
        }
        (Some(c), false) => match (param(c), &read.name) {
            (Some(p), None) if p.required => Vec::new(),
            (_, Some(_)) => {
                vec!["inbound `name` filters only the list (`conversations: true`)".into()]
            }
            _ => vec![format!(
                "inbound `conversation: {c}` must name a required string param"
            )],
        },
        (None, true) => match &read.name {
            Some(n) if param(n).is_none_or(|p| p.required) => vec![format!(
                "inbound `name: {n}` must name an optional string param"
            )],
            _ => Vec::new(),
        },
    }
}

/// A write's `requires`: the catalog keeps a reply window, the conversation is a required
/// string param, the tool writes (a read needs no window), `otherwise` is another tool here.
pub(super) fn requires(c: &Catalog, t: &Tool, req: &Requires) -> Vec<String> {
    let mut out = Vec::new();
    if c.inbound.as_ref().and_then(|i| i.reply_window_h).is_none() {
        out.push(
            "`requires: {reply_window}` needs the catalog's `inbound` with `reply_window_h`".into(),
        );
    }
    if !t.http().is_some_and(|(method, _)| method != Method::Get) {
        out.push("`requires` is only for writes (post/put/patch/delete)".into());
    }
    match t.params.get(req.reply_window.as_str()) {
        Some(p) if p.kind == ParamType::String && p.required => {}
        _ => out.push(format!(
            "`requires: {{reply_window: {}}}` must name a required string param",
            req.reply_window
        )),
    }
    if let Some(other) = &req.otherwise
        && (other == &t.name || !c.tools.iter().any(|x| &x.name == other))
    {
        out.push(format!(
            "`requires.otherwise: {other}` is not another tool of this catalog"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::load::parse;

    const INBOUND: &str = r#"
connector: chat
base_url: "https://graph.example.test"
secrets: [token, verify_token, app_secret]
auth: { bearer: token }
inbound:
  verify_token: verify_token
  signing_secret: app_secret
  reply_window_h: 24
  events:
    - { at: /entry/*/changes/*/value/messages, kind: message, id: [/id], conversation: /from, timestamp: /timestamp }
tools:
  - name: chat_conversation_read
    risk: low
    description: 'What a customer wrote. Use it for "what did Müller answer". Example {"number": "4917"}'
    inbound: { conversation: number }
    params:
      number: { type: string, required: true }
"#;

    fn problem(yaml: &str) -> String {
        parse("chat.yaml", yaml).unwrap_err().to_string()
    }

    #[test]
    fn an_inbound_catalog_and_its_reading_tool_load() {
        let c = parse("chat.yaml", INBOUND).unwrap();
        let inbound = c.inbound.as_deref().unwrap();
        assert_eq!(inbound.signature_header, "X-Hub-Signature-256");
        assert_eq!(inbound.signature_prefix, "sha256=");
        assert_eq!(c.tools[0].inbound.as_ref().unwrap().limit, 20);
    }

    #[test]
    fn inbound_secrets_pointers_and_bounds_are_checked() {
        let err = problem(&INBOUND.replace("[token, verify_token, app_secret]", "[token]"));
        assert!(
            err.contains("`verify_token: verify_token` is not listed"),
            "{err}"
        );
        let err = problem(&INBOUND.replace("conversation: /from", "conversation: from"));
        assert!(err.contains("`from` is not a JSON pointer"), "{err}");
        let err = problem(&INBOUND.replace("reply_window_h: 24", "reply_window_h: 0"));
        assert!(err.contains("`reply_window_h` must be 1 to 168"), "{err}");
        let err = problem(&INBOUND.replace("id: [/id]", "id: []"));
        assert!(err.contains("`id` names no pointer"), "{err}");
    }

    #[test]
    fn a_reading_tool_reads_only_by_a_required_string_param() {
        let err = problem(&INBOUND.replace("required: true", "required: false"));
        assert!(err.contains("must name a required string param"), "{err}");
        let err = problem(&INBOUND.replace("    risk: low\n", "    risk: high\n"));
        assert!(err.contains("its risk is `low`"), "{err}");
        let mapped = INBOUND.replace(
            "    inbound: { conversation: number }\n",
            "    inbound: { conversation: number }\n    get: /messages\n",
        );
        assert!(problem(&mapped).contains("an inbound tool has no HTTP mapping"));
        let (head, rest) = INBOUND.split_once("inbound:\n").unwrap();
        let without = format!("{head}{}", &rest[rest.find("tools:").unwrap()..]);
        assert!(problem(&without).contains("the catalog declares no `inbound`"));
    }

    const SEND: &str = r#"
  - name: chat_text_send
    risk: critical
    description: 'Sends a text to a customer inside the reply window. Example {"to": "4917", "text": "Hi"}'
    post: /messages
    requires: { reply_window: to, otherwise: chat_conversation_read }
    params:
      to: { type: string, in: body, required: true }
      text: { type: string, in: body, required: true }
"#;

    const LIST: &str = r#"
  - name: chat_conversations_list
    risk: low
    description: 'Who wrote recently. Example {"name": "Müller"}'
    inbound: { conversations: true, name: name, limit: 10 }
    params:
      name: { type: string, max_length: 100 }
"#;

    #[test]
    fn a_conversation_list_filters_by_an_optional_name_param_and_names_are_pointers() {
        let named = INBOUND.replace(
            "tools:\n",
            "  names: [{ at: /entry/*/changes/*/value/contacts, conversation: /wa_id, name: /profile/name }]\ntools:\n",
        );
        let c = parse("chat.yaml", &format!("{named}{LIST}")).unwrap();
        let read = c.tools[1].inbound.as_deref().unwrap();
        assert!(read.conversations && read.conversation.is_none());
        assert_eq!(c.inbound.as_deref().unwrap().names[0].name, "/profile/name");
        let err = problem(&format!(
            "{}{LIST}",
            named.replace("name: /profile/name", "name: profile")
        ));
        assert!(
            err.contains("names[0]: `profile` is not a JSON pointer"),
            "{err}"
        );
        let err = problem(&format!(
            "{named}{}",
            LIST.replace("max_length: 100", "required: true")
        ));
        assert!(err.contains("must name an optional string param"), "{err}");
        let both = LIST.replace(
            "conversations: true",
            "conversations: true, conversation: name",
        );
        let err = problem(&format!("{named}{both}"));
        assert!(err.contains("give either `conversation`"), "{err}");
        let neither = LIST.replace("conversations: true, name: name, ", "");
        let err = problem(&format!("{named}{neither}"));
        assert!(err.contains("give either `conversation`"), "{err}");
    }

    #[test]
    fn a_write_may_require_an_open_reply_window() {
        let c = parse("chat.yaml", &format!("{INBOUND}{SEND}")).unwrap();
        let requires = c.tools[1].requires.as_deref().unwrap();
        assert_eq!(requires.reply_window, "to");
        assert_eq!(
            requires.otherwise.as_deref(),
            Some("chat_conversation_read")
        );
    }

    #[test]
    fn a_reply_window_requirement_is_checked() {
        let yaml = format!("{INBOUND}{SEND}");
        let err = problem(&yaml.replace("  reply_window_h: 24\n", ""));
        assert!(
            err.contains("needs the catalog's `inbound` with `reply_window_h`"),
            "{err}"
        );
        let err = problem(&yaml.replace("reply_window: to,", "reply_window: text_of,"));
        assert!(err.contains("must name a required string param"), "{err}");
        let err =
            problem(&yaml.replace("otherwise: chat_conversation_read", "otherwise: chat_nope"));
        assert!(
            err.contains("`requires.otherwise: chat_nope` is not another tool"),
            "{err}"
        );
        let err = problem(
            &yaml
                .replace("post: /messages", "get: /messages")
                .replace(", in: body", ""),
        );
        assert!(err.contains("`requires` is only for writes"), "{err}");
    }
}
