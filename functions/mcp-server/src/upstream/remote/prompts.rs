//! A remote's `prompts/list` as this deployment serves it: only what the catalog's `allow` lets
//! through (the same patterns as for its tools), each prompt named by the naming rule its tools
//! follow, and bounded: at most [`MAX_PROMPTS`] considered, at most [`MAX_ARGUMENTS`]
//! arguments each, descriptions cut. What is skipped is named in a warning. Pure.

use std::collections::HashMap;

use catalog::McpRemote;
use serde_json::Value;

/// The most remote prompts considered per remote; a longer list is cut with a warning.
pub(crate) const MAX_PROMPTS: usize = 50;
/// The most arguments a remote prompt may declare; one with more is skipped.
pub(crate) const MAX_ARGUMENTS: usize = 20;
/// The longest remote description (of a prompt or an argument) kept, characters.
pub(super) const MAX_DESCRIPTION: usize = 500;
/// The longest remote prompt title kept, characters (a title is a few words).
const MAX_TITLE: usize = 100;

/// One argument of a remote prompt, as the remote declared it.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteArgument {
    pub name: String,
    pub description: Option<String>,
    pub required: bool,
}

/// One remote prompt under our name.
#[derive(Debug, Clone, PartialEq)]
pub struct RemotePrompt {
    pub name: String,
    pub remote_name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub arguments: Vec<RemoteArgument>,
    /// The remote declared the `completions` capability: `completion/complete` of an argument
    /// goes to it (otherwise nothing is asked and no value offered).
    pub completions: bool,
}

/// The remote's prompts this deployment serves, by local name, with what was left out and why.
#[derive(Debug, Clone, Default)]
pub struct RemotePrompts {
    pub prompts: Vec<RemotePrompt>,
    index: HashMap<String, usize>,
    pub warnings: Vec<String>,
    /// The remote declared the `completions` capability (kept across refreshes of the list).
    pub completions: bool,
}

impl RemotePrompts {
    pub fn find(&self, local_name: &str) -> Option<&RemotePrompt> {
        self.index.get(local_name).map(|i| &self.prompts[*i])
    }

    /// The set from the prompts the remote listed (pages joined), in the remote's order;
    /// `completions`: whether the remote declared that capability; `deployment`: every
    /// connector's name, whose spaces a remote's names may not enter.
    pub fn build(
        connector: &str,
        remote: &McpRemote,
        listed: &[Value],
        completions: bool,
        deployment: &[String],
    ) -> RemotePrompts {
        let mut set = RemotePrompts {
            completions,
            ..RemotePrompts::default()
        };
        if listed.len() > MAX_PROMPTS {
            set.warnings.push(format!(
                "{connector}: the remote lists {} prompts; only the first {MAX_PROMPTS} are considered",
                listed.len()
            ));
        }
        for entry in listed.iter().take(MAX_PROMPTS) {
            match one(connector, remote, entry, completions, deployment) {
                Ok(Some(p)) if set.index.contains_key(&p.name) => set.warnings.push(format!(
                    "{connector}: prompt `{}` would be named `{}` twice; skipped",
                    audit::bounded(&p.remote_name, 80),
                    p.name
                )),
                Ok(Some(p)) => {
                    set.index.insert(p.name.clone(), set.prompts.len());
                    set.prompts.push(p);
                }
                Ok(None) => {}
                Err(warning) => set.warnings.push(format!("{connector}: {warning}")),
            }
        }
        set
    }
}

/// One listed prompt: `Ok(None)` when `allow` leaves it out, `Err` with the reason when skipped.
fn one(
    connector: &str,
    remote: &McpRemote,
    entry: &Value,
    completions: bool,
    deployment: &[String],
) -> Result<Option<RemotePrompt>, String> {
    let Some(remote_name) = entry.get("name").and_then(Value::as_str) else {
        return Err("a listed prompt has no name; skipped".into());
    };
    let shown = audit::bounded(remote_name, 80);
    if remote_name.len() > 128 {
        return Err(format!(
            "prompt `{shown}…` has a name over 128 characters; skipped"
        ));
    }
    if !remote.allows(remote_name) {
        return Ok(None);
    }
    let name = catalog::local_name(connector, remote_name, catalog::MAX_TOOL_NAME)
        .ok_or_else(|| format!("prompt `{shown}` has no usable name; skipped"))?;
    if let Some(why) = catalog::name_refusal(
        deployment.iter().map(String::as_str).chain([connector]),
        connector,
        &name,
    ) {
        return Err(format!("prompt `{shown}` skipped: {why}"));
    }
    let listed_arguments = match entry.get("arguments") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(a)) => a.as_slice(),
        Some(_) => return Err(format!("prompt `{shown}` has no argument list; skipped")),
    };
    if listed_arguments.len() > MAX_ARGUMENTS {
        return Err(format!(
            "prompt `{shown}` skipped: it declares more than {MAX_ARGUMENTS} arguments"
        ));
    }
    let mut arguments = Vec::with_capacity(listed_arguments.len());
    for a in listed_arguments {
        let Some(arg) = a
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| n.len() <= 64)
        else {
            return Err(format!(
                "prompt `{shown}` skipped: an argument has no name of at most 64 characters"
            ));
        };
        arguments.push(RemoteArgument {
            name: arg.to_string(),
            description: text(a, "description"),
            required: a.get("required").and_then(Value::as_bool) == Some(true),
        });
    }
    Ok(Some(RemotePrompt {
        name,
        remote_name: remote_name.to_string(),
        title: text(entry, "title").map(|t| super::text::cut(&t, MAX_TITLE)),
        // The remote's words, marked as its own (a prompt's description guides the model).
        description: Some(
            super::text::marked(
                connector,
                text(entry, "description").as_deref().unwrap_or(""),
            )
            .trim_end()
            .to_string(),
        ),
        arguments,
        completions,
    }))
}

/// A text field, cut to the longest kept; `None` when absent or blank.
fn text(entry: &Value, key: &str) -> Option<String> {
    let t = entry.get(key).and_then(Value::as_str)?.trim();
    (!t.is_empty()).then(|| super::text::cut(t, MAX_DESCRIPTION))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn remote(allow: &str) -> McpRemote {
        let text =
            format!("connector: notes\nmcp:\n  url: http://x.test/mcp\n  allow: [{allow}]\n");
        catalog::parse("notes.yaml", &text).unwrap().mcp.unwrap()
    }

    #[test]
    fn prompts_are_named_like_the_tools_and_filtered_by_allow() {
        let listed = [
            json!({"name": "weekly-summary", "title": "Weekly", "description": "Sum up",
                   "arguments": [{"name": "week", "description": "ISO week", "required": true},
                                 {"name": "tone"}]}),
            json!({"name": "admin_reset"}),
        ];
        let set = RemotePrompts::build(
            "notes",
            &remote("\"weekly*\""),
            &listed,
            true,
            &["notes".into()],
        );
        assert_eq!(set.prompts.len(), 1);
        let p = set.find("notes_weekly_summary").unwrap();
        assert_eq!(p.remote_name, "weekly-summary");
        assert_eq!(p.title.as_deref(), Some("Weekly"));
        assert_eq!(
            p.arguments,
            [
                RemoteArgument {
                    name: "week".into(),
                    description: Some("ISO week".into()),
                    required: true
                },
                RemoteArgument {
                    name: "tone".into(),
                    description: None,
                    required: false
                }
            ]
        );
        assert!(
            p.completions,
            "the remote's completions capability rides with its prompts"
        );
        assert!(set.warnings.is_empty(), "{:?}", set.warnings);
    }

    #[test]
    fn too_many_prompts_or_arguments_and_clashing_names_are_bounded_with_a_warning() {
        let many: Vec<Value> = (0..MAX_PROMPTS + 3)
            .map(|i| json!({"name": format!("p{i}")}))
            .collect();
        let set = RemotePrompts::build("notes", &remote("\"*\""), &many, false, &["notes".into()]);
        assert_eq!(set.prompts.len(), MAX_PROMPTS);
        assert!(set.warnings[0].contains("53 prompts"), "{:?}", set.warnings);
        let args: Vec<Value> = (0..MAX_ARGUMENTS + 1)
            .map(|i| json!({"name": format!("a{i}")}))
            .collect();
        let listed = [
            json!({"name": "wide", "arguments": args}),
            json!({"name": "get-note"}),
            json!({"name": "get_note"}),
        ];
        let set =
            RemotePrompts::build("notes", &remote("\"*\""), &listed, false, &["notes".into()]);
        let names: Vec<&str> = set.prompts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["notes_get_note"]);
        assert!(
            set.warnings[0].contains("`wide` skipped"),
            "{:?}",
            set.warnings
        );
        assert!(set.warnings[1].contains("twice"), "{:?}", set.warnings);
    }

    #[test]
    fn a_remote_prompts_words_are_cut_and_marked_as_its_own() {
        let listed = [
            json!({"name": "review", "title": "T".repeat(5_000), "description": "D".repeat(5_000),
                   "arguments": [{"name": "week", "description": "A".repeat(5_000)}]}),
            json!({"name": "bare"}),
        ];
        let set =
            RemotePrompts::build("notes", &remote("\"*\""), &listed, false, &["notes".into()]);
        let p = set.find("notes_review").unwrap();
        let d = p.description.as_deref().unwrap();
        assert!(
            d.starts_with("[unreviewed text from remote MCP server notes] DDD"),
            "{d}"
        );
        assert_eq!(d.chars().filter(|c| *c == 'D').count(), MAX_DESCRIPTION);
        assert_eq!(p.title.as_deref().unwrap().chars().count(), MAX_TITLE + 1);
        let arg = p.arguments[0].description.as_deref().unwrap();
        assert_eq!(arg.chars().count(), MAX_DESCRIPTION + 1);
        assert_eq!(
            set.find("notes_bare").unwrap().description.as_deref(),
            Some("[unreviewed text from remote MCP server notes]")
        );
    }
}
