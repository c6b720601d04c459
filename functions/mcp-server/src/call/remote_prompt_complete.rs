//! A remote prompt argument's completion (`completion/complete` whose `ref` is a federated
//! prompt): sent to the remote under the prompt's own name, only when the remote declared the
//! `completions` capability and the prompt declares the argument (otherwise nothing is sent and
//! nothing offered, as for a catalog argument without a declared source). Counted like our own
//! completions: the edge reserved one request of the caller's daily budget on the connector;
//! used up, nothing reaches the remote; what was sent settles the reservation. Bounded: the
//! typed text and each context value cut to [`MAX_TYPED`] characters, the context to the
//! prompt's declared arguments, the answer to 100 values (`upstream::remote::complete`).
//!
//! Cached: the remote's answer is kept in a short cache (`short_cache`, as catalog completions)
//! keyed by the connector, the remote prompt, the argument, the typed text and the context sent
//! (the remote may answer differently per context). A cached answer sends nothing and settles
//! the reservation with no request; a failure is not kept. The cache is the deployment's, not
//! a person's: only deployment-level remotes lend prompts (an `oauth_user` remote lends none,
//! and `upstream::remote` refuses to complete for one), and a per-person remote that reached this
//! path anyway would bypass the cache ([`shared`]).

use serde_json::{Map, Value};

use super::complete::MAX_TYPED;
use super::remote_prompt::PromptFailure;
use super::short_cache::{ShortCache, shareable};
use super::{Caller, Pipeline, budget};
use crate::inventory::DeployedCatalog;
use crate::upstream::Deadline;
use crate::upstream::remote::{RemoteCompletion, RemotePrompt};

/// Who completes which argument of a remote prompt, with what typed so far.
pub struct PromptCompletion<'a> {
    pub caller: &'a Caller,
    pub argument: &'a str,
    pub typed: &'a str,
    /// The prompt's other arguments already filled in (`context.arguments`).
    pub context: &'a Map<String, Value>,
    pub deadline: &'a Deadline,
    /// What the edge admitted: the connector's budget reservation (one request), settled here.
    pub admission: Option<&'a crate::limits::Admission>,
}

/// What a completion of a remote prompt's argument came to.
#[derive(Debug, Clone, PartialEq)]
pub enum RemoteCompleted {
    /// Nothing was asked: no `completions` capability, or an argument the prompt does not
    /// declare.
    NotOffered,
    /// The remote's answer to the request just sent.
    Asked(RemoteCompletion),
    /// A recent answer to the same request, from the cache; nothing was sent.
    Cached(RemoteCompletion),
}

/// What was sent to which remote: its connector, the remote prompt's name, the argument, the
/// typed text and the context (both as cut).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct RemoteCompletionKey {
    connector: String,
    prompt: String,
    argument: String,
    typed: String,
    context: Vec<(String, String)>,
}

/// Recent answers of remotes, the deployment's (never a person's: see [`shareable`]).
pub(super) type RemoteCompletions = ShortCache<RemoteCompletionKey, RemoteCompletion>;

impl Pipeline {
    /// The remote's values, from the cache when the same request was answered recently.
    pub async fn complete_remote_prompt(
        &self,
        conn: &DeployedCatalog,
        prompt: &RemotePrompt,
        request: PromptCompletion<'_>,
    ) -> Result<RemoteCompleted, PromptFailure> {
        let connector = &conn.catalog.connector;
        let declared = prompt.arguments.iter().any(|a| a.name == request.argument);
        if !prompt.completions || !declared {
            if let Some(a) = request.admission {
                self.limits.settle(a, connector, 0);
            }
            return Ok(RemoteCompleted::NotOffered);
        }
        let typed = cut(request.typed);
        let context = context(prompt, request.argument, request.context);
        let key = shareable(conn).then(|| RemoteCompletionKey {
            connector: connector.to_string(),
            prompt: prompt.remote_name.clone(),
            argument: request.argument.to_string(),
            typed: typed.clone(),
            context: context
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect(),
        });
        if let Some(kept) = key.as_ref().and_then(|k| self.remote_completions.get(k)) {
            if let Some(a) = request.admission {
                self.limits.settle(a, connector, 0);
            }
            return Ok(RemoteCompleted::Cached(kept));
        }
        let reserved = request
            .admission
            .and_then(|a| a.budgets.get(connector.as_str()).copied());
        budget::admit(conn, reserved)
            .map_err(|refused| PromptFailure::OverBudget(refused.hint.unwrap_or_default()))?;
        let answer = self
            .upstream
            .remote_complete(
                conn,
                &prompt.remote_name,
                (request.argument, &typed),
                &context,
                request.deadline,
            )
            .await;
        if let Some(a) = request.admission {
            self.limits.settle(a, connector, 1);
        }
        let answer = answer.map_err(PromptFailure::Upstream)?;
        if let Some(key) = key {
            self.remote_completions.put(key, answer.clone());
        }
        Ok(RemoteCompleted::Asked(answer))
    }
}

fn cut(text: &str) -> String {
    text.chars().take(MAX_TYPED).collect()
}

/// The context the remote gets: the prompt's declared arguments other than the one completed,
/// as strings (what prompt arguments are), each cut.
fn context(
    prompt: &RemotePrompt,
    argument: &str,
    given: &Map<String, Value>,
) -> Map<String, Value> {
    prompt
        .arguments
        .iter()
        .filter(|a| a.name != argument)
        .filter_map(|a| {
            let v = given.get(&a.name)?.as_str()?;
            Some((a.name.clone(), Value::String(cut(v))))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::remote::RemoteArgument;
    use serde_json::json;

    fn prompt() -> RemotePrompt {
        let arg = |name: &str| RemoteArgument {
            name: name.into(),
            description: None,
            required: false,
        };
        RemotePrompt {
            name: "notes_weekly_review".into(),
            remote_name: "weekly_review".into(),
            title: None,
            description: None,
            arguments: vec![arg("week"), arg("tone")],
            completions: true,
        }
    }

    fn remote(auth: &str) -> DeployedCatalog {
        let yaml = format!(
            "connector: notes\ntitle: Notes\nsecrets: [token, client_id]\nauth: {auth}\n\
             mcp:\n  url: \"https://notes.example/mcp\"\n  allow: [weekly_review]\n"
        );
        let catalog = catalog::parse("notes.yaml", &yaml).unwrap();
        DeployedCatalog {
            base_url: catalog.base_url.to_string(),
            expose_raw: false,
            catalog,
        }
    }

    #[test]
    fn only_a_remote_acting_as_the_deployment_shares_its_answers() {
        assert!(shareable(&remote("{ bearer: token }")));
        let per_person = remote(
            "{ oauth_user: { authorization_endpoint: \"https://id.example/a\", \
             token_endpoint: \"https://id.example/t\", client_id: client_id } }",
        );
        assert!(!shareable(&per_person), "a person's remote is never cached");
    }

    #[test]
    fn the_context_holds_only_the_other_declared_arguments_as_cut_strings() {
        let given = json!({"week": "2026-W4", "tone": "x".repeat(500), "secret": "no", "n": 3});
        let sent = context(&prompt(), "week", given.as_object().unwrap());
        assert_eq!(sent.keys().collect::<Vec<_>>(), ["tone"]);
        assert_eq!(sent["tone"].as_str().map(str::len), Some(MAX_TYPED));
    }
}
