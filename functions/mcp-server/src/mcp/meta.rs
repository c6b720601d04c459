//! The two meta tools of progressive disclosure, each owning its schema and argument parsing:
//! `search_tools` (find tools by what they do) and `call_tool` (call one found, by name).

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool as McpTool, ToolAnnotations};
use serde_json::{Map, Value, json};

use crate::contract::names::{self, NameError};
use crate::contract::schema::object;
use crate::search::{self, SearchRequest};

pub(super) const SEARCH_TOOLS: &str = "search_tools";
pub(crate) const CALL_TOOL: &str = "call_tool";
/// The person's own connections (connectors with `auth: oauth_user`).
pub(crate) const CONNECTIONS: &str = "connections";

/// The longest query kept; the rest is ignored (a query is a few words).
const MAX_QUERY_CHARS: usize = 200;
/// The longest connector name accepted as a filter.
const MAX_CONNECTOR_LEN: usize = 64;

/// How many meta tools [`tools`] makes.
pub(super) const TOOL_COUNT: usize = 2;

/// The two meta tools.
pub(super) fn tools(output: &Arc<JsonObject>) -> [McpTool; TOOL_COUNT] {
    let read = ToolAnnotations::with_title("Search tools")
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false);
    let search = McpTool::new(
        SEARCH_TOOLS,
        "Finds tools by what they do when the one you need is not listed (more tools exist than are \
         listed). Answers with full schemas for a few matches, one-line summaries or names for many, \
         and a footer saying how to refine. Then call the tool with call_tool. \
         Example: {\"query\": \"unpaid invoices\", \"limit\": 5}",
        object(json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "maxLength": 200, "description": "What the tool should do, in the user's words (German or English); empty with `connector` to browse that connector."},
                "connector": {"type": "string", "description": "Only tools of this connector."},
                "detail": {"type": "string", "enum": ["full", "summary", "names", "counts"], "description": "Force a detail level."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 2000, "description": "How many tools to show."}
            },
            "required": ["query"],
            "additionalProperties": false
        })),
    )
    .with_annotations(read);
    let call = McpTool::new(
        CALL_TOOL,
        "Calls any tool found with search_tools, by name, with its arguments: the same validation, \
         risk rules and result as calling it directly. Example: {\"name\": \"papierkram_open_items_get\", \"arguments\": {}}",
        object(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The tool name from search_tools."},
                "arguments": {"type": "object", "description": "The tool's arguments."}
            },
            "required": ["name"],
            "additionalProperties": false
        })),
    )
    .with_raw_output_schema(output.clone())
    .with_annotations(ToolAnnotations::with_title("Call a tool").open_world(true));
    [search, call]
}

/// `connections`: listed where some connector acts with each person's own account.
pub(super) fn connections_tool() -> McpTool {
    McpTool::new(
        CONNECTIONS,
        "Your own connected accounts (mail, calendar): lists them, or disconnects one. \
         Example: {\"action\": \"disconnect\", \"connector\": \"gsuite\"}",
        object(json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["list", "disconnect"], "default": "list"},
                "connector": {"type": "string", "maxLength": 64, "description": "Which one to disconnect."}
            },
            "additionalProperties": false
        })),
    )
    .with_annotations(
        ToolAnnotations::with_title("Your connections")
            .read_only(false)
            .destructive(true)
            .idempotent(true)
            .open_world(false),
    )
}

/// `connections` arguments; `Err` is the hint for the model.
pub(super) fn connections_request(
    arguments: &Map<String, Value>,
) -> Result<crate::call::ConnectionsRequest, String> {
    use crate::call::ConnectionsRequest;
    if let Some(k) = arguments
        .keys()
        .find(|k| !matches!(k.as_str(), "action" | "connector"))
    {
        return Err(format!(
            "`{}` is no argument of connections: use `action` and `connector`.",
            names::shown(k)
        ));
    }
    let connector = arguments.get("connector").and_then(Value::as_str);
    match arguments.get("action").map(|a| a.as_str()) {
        None | Some(Some("list")) => Ok(ConnectionsRequest::List),
        Some(Some("disconnect")) => match connector {
            Some(c) if !c.is_empty() && c.len() <= MAX_CONNECTOR_LEN => {
                Ok(ConnectionsRequest::Disconnect(c.to_string()))
            }
            _ => Err("disconnect needs `connector` (the name `list` shows).".into()),
        },
        _ => Err("`action` is `list` or `disconnect`.".into()),
    }
}

/// `search_tools` arguments as a search request; `Err` is the hint for the model.
pub(super) fn search_request(arguments: &Map<String, Value>) -> Result<SearchRequest, String> {
    if let Some(k) = arguments
        .keys()
        .find(|k| !["query", "connector", "detail", "limit"].contains(&k.as_str()))
    {
        let k = audit::bounded(k, 40);
        return Err(format!(
            "Unknown argument `{k}`. Valid arguments: query, connector, detail, limit."
        ));
    }
    let connector = match arguments.get("connector") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) if c.len() <= MAX_CONNECTOR_LEN => Some(c.clone()),
        Some(_) => return Err("`connector` must be a connector name, e.g. \"papierkram\".".into()),
    };
    // An empty query browses the connector named (what a no-match answer advises); without
    // one it would list every tool of the deployment.
    let Some(query) = arguments
        .get("query")
        .and_then(|q| q.as_str())
        .filter(|q| !q.trim().is_empty() || connector.is_some())
    else {
        return Err(
            "`query` is required: what the tool should do, e.g. \"unpaid invoices\" (empty only \
             with `connector`, to browse that connector's tools)."
                .into(),
        );
    };
    let detail = match arguments.get("detail") {
        None | Some(Value::Null) => None,
        Some(Value::String(d)) => Some(d.parse::<search::Detail>()?),
        Some(_) => return Err("`detail` must be one of full, summary, names, counts.".into()),
    };
    let limit = match arguments.get("limit") {
        None | Some(Value::Null) => None,
        Some(v) => Some(search::parse_limit(v)?),
    };
    Ok(SearchRequest {
        query: query.chars().take(MAX_QUERY_CHARS).collect(),
        connector,
        detail,
        limit,
    })
}

/// `call_tool` arguments: the inner tool's name (checked to be a plain name before any lookup)
/// and its arguments; `Err` is the hint for the model.
pub(super) fn call_request(
    arguments: &Map<String, Value>,
) -> Result<(&str, Map<String, Value>), String> {
    let Some(name) = arguments.get("name").and_then(|n| n.as_str()) else {
        return Err("call_tool needs `name` (a tool from search_tools) and `arguments`.".into());
    };
    let name = names::plain_name(name).map_err(|e| name_hint(&e))?;
    let inner = match arguments.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err("`arguments` must be an object of the tool's arguments.".into()),
    };
    Ok((name, inner))
}

/// The hint for a tool name refused before lookup.
pub(super) fn name_hint(e: &NameError) -> String {
    format!("Not a tool name: {e}. Use search_tools to find the right tool.")
}

/// A `call_tool` search for a name nobody can see: its words, few results, names only.
pub(super) fn closest_request(name: &str) -> SearchRequest {
    SearchRequest {
        query: name.replace('_', " "),
        detail: Some(search::Detail::Names),
        limit: Some(3),
        ..SearchRequest::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn search_arguments_are_checked_and_the_query_cut() {
        let r = search_request(&args(json!({"query": "x".repeat(10_000), "limit": 3}))).unwrap();
        assert_eq!(r.query.chars().count(), MAX_QUERY_CHARS);
        assert_eq!(r.limit, Some(3));
        let e = search_request(&args(json!({"query": " "}))).unwrap_err();
        assert!(e.contains("empty only with `connector`"), "{e}");
        let browse = search_request(&args(json!({"query": "", "connector": "calcom"}))).unwrap();
        assert_eq!(
            (browse.query.as_str(), browse.connector.as_deref()),
            ("", Some("calcom"))
        );
        let e = search_request(&args(json!({"query": "a", "qeury": 1}))).unwrap_err();
        assert!(e.contains("Unknown argument `qeury`"), "{e}");
        assert!(search_request(&args(json!({"query": "a", "detail": 5}))).is_err());
        assert!(search_request(&args(json!({"query": "a", "connector": "c".repeat(65)}))).is_err());
    }

    /// The `key="value"` and `key=123` pairs a footer names.
    fn named_arguments(line: &str) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        for (i, _) in line.match_indices('=') {
            let key: String = line[..i]
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let rest = &line[i + 1..];
            let value = if let Some(quoted) = rest.strip_prefix('"') {
                Value::from(&quoted[..quoted.find('"').expect("closing quote")])
            } else {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                Value::from(
                    digits
                        .parse::<u64>()
                        .unwrap_or_else(|_| panic!("{key}={rest}")),
                )
            };
            out.push((key, value));
        }
        out
    }

    /// Every call an answer advises (`refine`, and each `key=value` its footer names) and every
    /// example in a refusal or in the tool's description is a request `search_tools` accepts;
    /// followed two steps deep from questions of both query sets, with and without a connector,
    /// at every detail level, browsing, and with unknown words and connectors.
    #[test]
    fn every_call_search_advises_is_one_it_accepts() {
        #[derive(serde::Deserialize)]
        struct Set {
            queries: Vec<Question>,
        }
        #[derive(serde::Deserialize)]
        struct Question {
            q: String,
        }
        let catalogs = catalog::load_sources(crate::EMBEDDED_CATALOGS).expect("shipped catalogs");
        let docs: Vec<search::Doc> = catalogs
            .iter()
            .flat_map(|c| c.tools.iter().map(|t| search::Doc::from_tool(c, t)))
            .collect();
        let index = search::Index::build(docs);
        let all = |_: &str| true;
        let mut asked: Vec<Value> = Vec::new();
        for file in ["queries.yaml", "outside.yaml"] {
            let path = format!("{}/../../tests/search/{file}", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(&path).expect("query set");
            let set: Set = yaml_serde::from_str(&text).expect("query set parses");
            for question in set.queries.iter().step_by(3) {
                for extra in [
                    json!({}),
                    json!({"connector": "sevdesk"}),
                    json!({"detail": "names"}),
                    json!({"detail": "full", "limit": 30}),
                    json!({"limit": 1}),
                ] {
                    let mut a = extra;
                    a["query"] = question.q.clone().into();
                    asked.push(a);
                }
            }
        }
        for a in [
            json!({"query": "", "connector": "calcom"}),
            json!({"query": "", "connector": "papierkram", "detail": "counts"}),
            json!({"query": "", "connector": "papierkarm"}),
            json!({"query": "rechnung", "connector": "papierkarm"}),
            json!({"query": "xylophon"}),
            json!({"query": "xylophon", "connector": "calcom"}),
            json!({"query": "list"}),
        ] {
            asked.push(a);
        }
        // The examples the model is given before any answer.
        let refused = search_request(&args(json!({"query": ""}))).unwrap_err();
        let example = refused.split('"').nth(1).expect("a quoted example");
        asked.push(json!({ "query": example }));
        let description = tools(&Arc::new(JsonObject::new()))[0]
            .description
            .clone()
            .unwrap_or_default();
        let shown = description.split("Example: ").nth(1).expect("an example");
        asked.push(serde_json::from_str(shown).expect("the example is JSON"));
        let mut checked = 0;
        for depth in 0..2 {
            let mut next = Vec::new();
            for a in &asked {
                let request = search_request(&args(a.clone()))
                    .unwrap_or_else(|hint| panic!("advised {a} is refused: {hint}"));
                let answer = index.search(&request, &all);
                let calls = answer.structured["refine"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                let footer = answer.text.lines().last().unwrap_or_default();
                let refine = footer.split("Refine: ").nth(1).unwrap_or_default();
                for (key, value) in named_arguments(refine) {
                    assert!(
                        calls.iter().any(|c| c[&key] == value),
                        "{a}: the footer says {key}={value}, no advised call sends it: {footer}"
                    );
                }
                checked += calls.len();
                if depth == 0 {
                    next.extend(calls);
                }
            }
            asked = next;
        }
        println!("advised calls fed back: {checked}");
        assert!(checked > 500, "{checked}");
    }

    #[test]
    fn call_tool_refuses_a_huge_or_odd_name_before_any_lookup() {
        let e = call_request(&args(json!({"name": "a".repeat(1_000_000)}))).unwrap_err();
        assert!(e.contains("at most 128 characters"), "{e}");
        let e = call_request(&args(json!({"name": "drop table;"}))).unwrap_err();
        assert!(e.contains("letters, digits"), "{e}");
        let given = args(json!({"name": "papierkram_info_get", "arguments": {"a": 1}}));
        let (name, inner) = call_request(&given).unwrap();
        assert_eq!((name, inner.len()), ("papierkram_info_get", 1));
        assert!(call_request(&args(json!({"name": "x", "arguments": [1]}))).is_err());
    }
}
