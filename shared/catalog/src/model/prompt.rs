//! Prompts: conversation starters rendered from a template with typed arguments.

use serde::{Deserialize, Serialize};

use super::text::Text;

use super::param::Param;

/// A reusable conversation starter a user picks in the client (a slash command in Claude Code,
/// a prompt in claude.ai's "+" menu): rendered from `template` with the caller's arguments.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Prompt {
    /// `<connector>_<words>`, unique across catalogs, like a tool name.
    pub name: Text,
    /// What a person sees in the client's menu.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<Text>,
    /// What the prompt does and when to pick it.
    pub description: Text,
    /// The tools the rendered messages tell the model to use, by their full names: the prompt is
    /// shown only to callers whose profile may call every one of them.
    pub tools: Vec<Text>,
    /// Typed arguments, validated like a tool's params (scalars only: a client sends strings),
    /// in the order declared: clients ask for them in this order (Claude Code takes them
    /// positionally).
    #[serde(default, skip_serializing_if = "PromptArguments::is_empty")]
    pub arguments: PromptArguments,
    /// The messages, in order; `{argument}` placeholders are filled with the validated values.
    pub template: Vec<PromptMessage>,
}

/// A prompt's arguments by name, in the order the catalog declares them (a YAML mapping).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptArguments(Vec<(Text, Param)>);

impl PromptArguments {
    pub fn get(&self, name: &str) -> Option<&Param> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, p)| p)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Name and param, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&Text, &Param)> + Clone {
        self.0.iter().map(|(n, p)| (n, p))
    }

    pub fn values(&self) -> impl Iterator<Item = &Param> {
        self.0.iter().map(|(_, p)| p)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<Vec<(Text, Param)>> for PromptArguments {
    fn from(arguments: Vec<(Text, Param)>) -> Self {
        PromptArguments(arguments)
    }
}

impl Serialize for PromptArguments {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, param) in &self.0 {
            map.serialize_entry(name, param)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for PromptArguments {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> serde::de::Visitor<'de> for InOrder {
            type Value = PromptArguments;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a mapping of argument names to params")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut out: Vec<(Text, Param)> = Vec::new();
                while let Some((name, param)) = map.next_entry::<Text, Param>()? {
                    if out.iter().any(|(n, _)| *n == name) {
                        return Err(serde::de::Error::custom(format!(
                            "argument `{name}` is declared twice"
                        )));
                    }
                    out.push((name, param));
                }
                Ok(PromptArguments(out))
            }
        }
        deserializer.deserialize_map(InOrder)
    }
}

/// One message of a prompt's template.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PromptMessage {
    pub role: PromptRole,
    /// Text with `{argument}` placeholders (no other braces).
    pub text: Text,
    /// A text document sent after the text, as an embedded resource of the same role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<PromptResource>,
    /// An image sent after the text, as image content of the same role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<PromptImage>,
}

/// A text document a prompt message carries (a checklist, a reference), embedded as a resource.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PromptResource {
    /// Its URI; may hold `{argument}` placeholders.
    pub uri: Text,
    /// A `text/*` type.
    pub mime_type: Text,
    /// The document; may hold `{argument}` placeholders.
    pub text: Text,
}

/// An image a prompt message carries (a logo, a sample), base64 in the catalog.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PromptImage {
    /// An `image/*` type.
    pub mime_type: Text,
    /// The image, base64 (at most 64 KiB of it).
    pub data: Text,
}

/// Who speaks a prompt message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptRole {
    User,
    Assistant,
}
