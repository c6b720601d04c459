//! Tool profiles and the two meta tools of progressive disclosure.
//!
//! A profile is a named set of tools (`connector/tool` patterns with `*`), chosen per URL path
//! (`/mcp/<profile>`) or per API key. `tools/list` shows the profile's core tools, plus
//! `search_tools` and `call_tool` when the profile has more tools than it lists; every visible
//! tool stays reachable through them.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool as McpTool, ToolAnnotations};
use serde_json::json;

use crate::config::{ConfigError, Env};
use crate::tools::object;

/// `MCP_PROFILES`: `name=connector/tool-glob,…;name2=…`.
pub const PROFILES: &str = "MCP_PROFILES";
/// `MCP_KEY_PROFILES`: `key_id=profile,…`: limits an API key to one profile.
pub const KEY_PROFILES: &str = "MCP_KEY_PROFILES";

pub const SEARCH_TOOLS: &str = "search_tools";
pub const CALL_TOOL: &str = "call_tool";

#[derive(Debug, Clone, Default)]
pub struct Profiles {
    sets: BTreeMap<String, Vec<String>>,
    keys: BTreeMap<String, String>,
}

impl Profiles {
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let bad = |name: &str, problem: String| ConfigError {
            name: name.into(),
            problem,
        };
        let mut sets = BTreeMap::new();
        for entry in env
            .get(PROFILES)
            .unwrap_or("")
            .split(';')
            .map(str::trim)
            .filter(|e| !e.is_empty())
        {
            let (name, patterns) = entry.split_once('=').ok_or_else(|| {
                bad(
                    PROFILES,
                    format!("`{entry}`: expected name=connector/tool,…"),
                )
            })?;
            let name = name.trim();
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                return Err(bad(
                    PROFILES,
                    format!("profile name `{name}` must be letters, digits, - or _"),
                ));
            }
            let patterns: Vec<String> = patterns
                .split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect();
            if let Some(p) = patterns.iter().find(|p| !p.contains('/')) {
                return Err(bad(
                    PROFILES,
                    format!("pattern `{p}` must be connector/tool (`*` allowed)"),
                ));
            }
            sets.insert(name.to_string(), patterns);
        }
        let mut keys = BTreeMap::new();
        for pair in env
            .get(KEY_PROFILES)
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|e| !e.is_empty())
        {
            let (key, profile) = pair
                .split_once('=')
                .ok_or_else(|| bad(KEY_PROFILES, format!("`{pair}`: expected key_id=profile")))?;
            if !sets.contains_key(profile.trim()) {
                return Err(bad(
                    KEY_PROFILES,
                    format!("profile `{}` is not defined in {PROFILES}", profile.trim()),
                ));
            }
            keys.insert(key.trim().to_string(), profile.trim().to_string());
        }
        Ok(Profiles { sets, keys })
    }

    /// Every profile name.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.sets.keys().map(String::as_str)
    }

    pub fn exists(&self, name: &str) -> bool {
        self.sets.contains_key(name)
    }

    /// The profile an API key is limited to.
    pub fn for_key(&self, key_id: &str) -> Option<&str> {
        self.keys.get(key_id).map(String::as_str)
    }

    /// Whether a profile (`None`: the whole deployment) includes `connector/tool`.
    pub fn allows(&self, profile: Option<&str>, connector: &str, tool: &str) -> bool {
        let Some(name) = profile else {
            return true;
        };
        let subject = format!("{connector}/{tool}");
        self.sets
            .get(name)
            .is_some_and(|patterns| patterns.iter().any(|p| glob(p, &subject)))
    }
}

/// `*` matches any run of characters; everything else literally.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first)
        || !text[first.len()..].ends_with(last)
        || text.len() < first.len() + last.len()
    {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(i) => rest = &rest[i + middle.len()..],
            None => return false,
        }
    }
    true
}

/// The two meta tools, built once.
pub fn meta_tools(output: &Arc<JsonObject>) -> [McpTool; 2] {
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
                "query": {"type": "string", "minLength": 1, "maxLength": 200, "description": "What the tool should do, in the user's words (German or English)."},
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
         risk rules and result as calling it directly. Example: {\"name\": \"open_items_get\", \"arguments\": {}}",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_parse_and_match_globs() {
        let env = Env::from_pairs([
            (
                PROFILES,
                "books=papierkram/*; reports=papierkram/*_get,papierkram/invoices_list",
            ),
            (KEY_PROFILES, "cursor=books"),
        ]);
        let p = Profiles::from_env(&env).unwrap();
        assert!(p.allows(Some("books"), "papierkram", "anything"));
        assert!(!p.allows(Some("books"), "mail", "messages_list"));
        assert!(p.allows(Some("reports"), "papierkram", "month_close_get"));
        assert!(!p.allows(Some("reports"), "papierkram", "vouchers_list"));
        assert!(!p.allows(Some("nope"), "papierkram", "x"));
        assert!(p.allows(None, "mail", "messages_list"));
        assert_eq!(p.for_key("cursor"), Some("books"));
    }

    #[test]
    fn bad_profile_config_names_the_variable() {
        let err = Profiles::from_env(&Env::from_pairs([(PROFILES, "books")])).unwrap_err();
        assert_eq!(err.name, PROFILES);
        let err = Profiles::from_env(&Env::from_pairs([(KEY_PROFILES, "k=ghost")])).unwrap_err();
        assert_eq!(err.name, KEY_PROFILES);
    }

    #[test]
    fn glob_matches_prefix_suffix_and_middle() {
        assert!(glob("a/*", "a/b"));
        assert!(glob("*/b_get", "x/b_get"));
        assert!(glob("a/*_*_get", "a/x_y_get"));
        assert!(!glob("a/*_get", "a/list"));
        assert!(glob("a/b", "a/b") && !glob("a/b", "a/bc"));
    }
}
