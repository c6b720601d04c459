//! What an upstream fault means for the model: a status, a short reason code for the audit line
//! and a hint naming what to do next. The tool's declared hint wins, then the connector's, then
//! a default. Upstream text never goes into a hint (it travels as `upstream_message`).

use catalog::{Status, Tool};

use super::error::UpstreamError;
use crate::inventory::{DeployedCatalog, Registry};

/// The reason of an outcome whose remote tool needs client capabilities the client did not
/// declare; the MCP layer answers it as the protocol error `-32021`.
pub(crate) const REMOTE_NEEDS_CAPABILITY: &str = "remote_needs_capability";
/// The reason of an outcome whose remote asked the person something this server does not pass
/// on (`upstream/remote/questions.rs`).
pub(crate) const REMOTE_QUESTION_REFUSED: &str = "remote_question_refused";

/// An upstream fault described for a result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fault {
    pub status: Status,
    /// Short code for the audit log (`upstream_404`, `upstream_timeout`, …).
    pub reason: String,
    pub hint: String,
}

pub(crate) fn describe(conn: &DeployedCatalog, tool: &Tool, err: &UpstreamError) -> Fault {
    let title = Registry::title(&conn.catalog);
    let fault = |status, reason: &str, hint: String| Fault {
        status,
        reason: reason.to_string(),
        hint,
    };
    match err {
        UpstreamError::SecretUnavailable => fault(
            Status::Unavailable,
            "secret_unavailable",
            "The server cannot read its credentials right now; retry in a minute.".into(),
        ),
        UpstreamError::NotConfigured(e) => fault(e.status, "not_configured", e.hint.clone()),
        UpstreamError::Timeout { after_ms } => fault(
            Status::Unavailable,
            "upstream_timeout",
            format!(
                "{title} did not answer within {:.1} s; retry later, or narrow the request.",
                *after_ms as f64 / 1000.0
            ),
        ),
        UpstreamError::Deadline { budget_ms } => fault(
            Status::Unavailable,
            "deadline",
            format!(
                "{title} was too slow: the call ran out of its {:.1} s. Retry later, or narrow the \
                 request (a shorter period, count_only, fewer pages).",
                *budget_ms as f64 / 1000.0
            ),
        ),
        UpstreamError::OverBudget { allowance } => fault(
            Status::RateLimited,
            "limit_budget",
            format!(
                "This call needed more than the {allowance} {title} requests left of your daily \
                 budget; narrow it (a shorter period, count_only) or wait for the budget to reset."
            ),
        ),
        UpstreamError::Paced {
            rate,
            retry_after_s,
        } => fault(
            Status::RateLimited,
            "upstream_rate",
            format!(
                "{title} takes at most {rate} from this whole deployment, and every turn until \
                 this call's deadline is taken; nothing was sent. Retry in {retry_after_s} s, or \
                 narrow the request so it needs fewer pages."
            ),
        ),
        UpstreamError::Unreachable => fault(
            Status::Unavailable,
            "upstream_unreachable",
            format!("{title} cannot be reached right now; retry in a few minutes."),
        ),
        UpstreamError::TooLarge { limit, size, .. }
            if let Some(binary) = tool.answer.as_ref().and_then(|a| a.binary.as_ref()) =>
        {
            let size = size.map_or_else(String::new, |s| format!(" ({})", human_bytes(s)));
            fault(
                Status::Error,
                "document_too_large",
                format!(
                    "The document{size} is larger than the {} this tool returns ({} only), so \
                     none of it was sent: open it in {title} itself. Do not retry.",
                    human_bytes(*limit as u64),
                    binary.mime.join(", ")
                ),
            )
        }
        UpstreamError::TooLarge { limit, .. } => fault(
            Status::Unavailable,
            "upstream_too_large",
            format!(
                "{title}'s answer is larger than {} MiB, more than this server reads. Narrow the \
                 request: a smaller page_size, fewer fields, a filter or a shorter period.",
                *limit as f64 / (1024.0 * 1024.0)
            ),
        ),
        UpstreamError::NotJson {
            content_type,
            http_status,
            ..
        } => fault(
            Status::Unavailable,
            "upstream_not_json",
            format!(
                "{title} answered HTTP {http_status} with {content_type} instead of its JSON API \
                 (a maintenance or login page?). No data was read: do not treat this as an empty \
                 result. Retry in a few minutes."
            ),
        ),
        UpstreamError::NotDocument {
            content_type,
            http_status,
            ..
        } => fault(
            Status::Unavailable,
            "upstream_not_document",
            format!(
                "{title} answered HTTP {http_status} with {content_type} instead of the document \
                 this tool returns. Nothing was read; retry in a few minutes."
            ),
        ),
        UpstreamError::Refused(r) => refused(conn, tool, r),
        UpstreamError::RemoteToolFailed { .. } => fault(
            Status::Error,
            "remote_tool_error",
            format!(
                "{title}'s tool reported a failure; its words are in `upstream_message`. Check the arguments against them, or retry later if it says the service is busy."
            ),
        ),
        UpstreamError::RemoteError { code: -32602, .. } => fault(
            Status::InvalidInput,
            "remote_invalid_params",
            format!(
                "{title} refused the arguments; its reason is in `upstream_message`. Fix them and call again."
            ),
        ),
        UpstreamError::RemoteError { code, .. } => fault(
            Status::Unavailable,
            "remote_error",
            format!(
                "{title} failed to run the tool (JSON-RPC error {code}); retry in a few minutes. This is not a problem with the arguments."
            ),
        ),
        UpstreamError::RemoteNeedsCapability { .. } => fault(
            Status::InvalidInput,
            REMOTE_NEEDS_CAPABILITY,
            format!(
                "{title}'s tool needs the client to answer requests it did not declare (`required_capabilities`); use a client that declares them."
            ),
        ),
        UpstreamError::RemoteQuestionRefused(why) => fault(
            Status::Error,
            REMOTE_QUESTION_REFUSED,
            format!(
                "{title}'s tool asked the person for {why}; this server does not pass that on, and nothing was done. Do not ask the person for it yourself: use {title} directly."
            ),
        ),
        UpstreamError::RemoteInputRequired(_) => fault(
            Status::Error,
            "remote_input_required",
            format!(
                "{title}'s tool asked a person for more input, which this client cannot show. Call it with every detail in the arguments, or use {title} directly."
            ),
        ),
    }
}

/// A refusal by the status its error code means (`errors.codes`), else by its HTTP status: the
/// tool's declared hint for that status, else the connector's, else ours.
fn refused(conn: &DeployedCatalog, tool: &Tool, r: &super::error::Refusal) -> Fault {
    let code = r.http_status;
    let status = refusal_status(conn.catalog.errors.as_ref(), code, r.code.as_deref());
    let declared = tool
        .hints
        .get(&status)
        .or_else(|| conn.catalog.hints.get(&status));
    let hint = match declared {
        None => default_hint(conn, tool, r, status),
        Some(text) => text
            .replace("{retry_after}", &r.retry_after_s.unwrap_or(60).to_string())
            .replace(
                "{remaining}",
                &r.quota
                    .and_then(|q| q.remaining)
                    .map_or("unknown".into(), |n| n.to_string()),
            ),
    };
    Fault {
        status,
        reason: format!("upstream_{code}"),
        hint,
    }
}

/// The status a refusal means: its error code's, when the catalog names the code, else its
/// HTTP status's.
fn refusal_status(errors: Option<&catalog::Errors>, http: u16, code: Option<&str>) -> Status {
    errors
        .zip(code)
        .and_then(|(e, c)| e.status_of_code(c))
        .unwrap_or_else(|| status_of(http))
}

/// The status an upstream's HTTP status means for the model.
fn status_of(code: u16) -> Status {
    match code {
        401 | 403 => Status::Unauthorized,
        404 => Status::NotFound,
        400 | 406 | 422 => Status::InvalidInput,
        409 => Status::Conflict,
        429 => Status::RateLimited,
        500..=599 => Status::Unavailable,
        _ => Status::Error,
    }
}

/// Our hint for a refusal the catalog declares none for.
fn default_hint(
    conn: &DeployedCatalog,
    tool: &Tool,
    r: &super::error::Refusal,
    status: Status,
) -> String {
    let catalog = &conn.catalog;
    let title = Registry::title(catalog);
    let code = r.http_status;
    let remaining = r.quota.and_then(|q| q.remaining);
    let secret_fields = || {
        format!(
            "connectors.{}.{{{}}}",
            catalog.connector,
            catalog.secrets.join(",")
        )
    };
    match status {
        Status::Unauthorized if code == 403 => format!(
            "{title} refused access (HTTP 403): the credentials lack permission. Check the token's scope in {}.",
            secret_fields()
        ),
        Status::Unauthorized => format!(
            "{title} rejected the credentials (HTTP 401). An operator must check {} in the deployment secret.",
            secret_fields()
        ),
        Status::NotFound => match sibling_list_tool(conn, tool) {
            Some(list) => format!(
                "Nothing found for these arguments (HTTP 404); the API itself is up. Look the id up with `{list}` first."
            ),
            None => {
                "Nothing found for these arguments (HTTP 404); the API itself is up. Check the id."
                    .to_string()
            }
        },
        Status::InvalidInput if r.message.is_some() => format!(
            "{title} refused the request (HTTP {code}); its reason is in `upstream_message`. Fix the arguments and call again."
        ),
        Status::InvalidInput => {
            format!("{title} refused the request (HTTP {code}); check the arguments.")
        }
        Status::Conflict => format!(
            "{title} refused the change (HTTP {code}): the record changed since it was read, or \
             its state does not allow this. Nothing was written; read the record again, then \
             decide whether to call again."
        ),
        Status::RateLimited => match (remaining, r.retry_after_s) {
            (Some(0), Some(s)) => format!(
                "The {title} API quota is used up (0 remaining); it resets in {}. Calls fail until then: tell the user.",
                in_words(s)
            ),
            (Some(0), None) => format!(
                "The {title} API quota is used up (0 remaining); calls fail until it resets. Tell the user."
            ),
            _ => format!(
                "{title} is rate limiting (HTTP 429); retry after {}.",
                r.retry_after_s
                    .map_or("a minute".to_string(), |s| format!("{s} s"))
            ),
        },
        Status::Unavailable => format!(
            "{title} has a temporary problem (HTTP {code}); retry in a few minutes. This is not a problem with the arguments."
        ),
        _ => format!("{title} answered HTTP {code}."),
    }
}

/// A wait as a person says it: `40 s`, `15 min`, `5 h`, `29 days`.
fn in_words(seconds: u64) -> String {
    match seconds {
        0..120 => format!("{seconds} s"),
        120..7_200 => format!("{} min", seconds.div_ceil(60)),
        7_200..172_800 => format!("{} h", seconds.div_ceil(3_600)),
        _ => format!("{} days", seconds.div_ceil(86_400)),
    }
}

/// The list tool of the same resource (`papierkram_invoice_get` → `papierkram_invoices_list`),
/// for 404 hints. The names share the connector's prefix; what must match is the resource after it.
fn sibling_list_tool<'a>(conn: &'a DeployedCatalog, tool: &Tool) -> Option<&'a str> {
    let resource = tool
        .name
        .rsplit_once('_')
        .map_or(tool.name.as_str(), |(r, _)| r);
    let prefix = conn.catalog.connector.len() + 1;
    let needed = prefix + resource.len().saturating_sub(prefix).min(4);
    conn.catalog
        .tools
        .iter()
        .filter(|t| t.list && Registry::is_exposed(conn, t) && t.name != tool.name)
        .max_by_key(|t| common_prefix(&t.name, resource))
        .filter(|t| common_prefix(&t.name, resource) >= needed)
        .map(|t| t.name.as_str())
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

/// `2.5 MiB`, `300 KiB`, `512 bytes`.
fn human_bytes(n: u64) -> String {
    match n {
        n if n >= 1024 * 1024 => format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0)),
        n if n >= 1024 => format!("{} KiB", n / 1024),
        n => format!("{n} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::{Status, in_words, refusal_status, status_of};

    /// A validation an upstream answers with 406 (Lexware Office) is the caller's to fix; a 409
    /// says the record moved on, which reading it again answers.
    #[test]
    fn a_406_is_invalid_input_and_a_409_a_conflict() {
        assert_eq!(status_of(406), Status::InvalidInput);
        assert_eq!(status_of(422), Status::InvalidInput);
        assert_eq!(status_of(409), Status::Conflict);
        assert_eq!(status_of(418), Status::Error);
    }

    /// Meta answers HTTP 400 for a closed window (131047) and for throttling (130429): the code
    /// decides, and a code the catalog does not name leaves the HTTP status's meaning.
    #[test]
    fn an_error_code_the_catalog_names_decides_the_status() {
        let errors: catalog::Errors = serde_json::from_value(serde_json::json!({
            "code": "/error/code",
            "codes": {"131047": "conflict", "130429": "rate_limited", "RESOURCE_EXHAUSTED": "rate_limited"}
        }))
        .unwrap();
        let e = Some(&errors);
        assert_eq!(refusal_status(e, 400, Some("131047")), Status::Conflict);
        assert_eq!(refusal_status(e, 400, Some("130429")), Status::RateLimited);
        assert_eq!(
            refusal_status(e, 429, Some("RESOURCE_EXHAUSTED")),
            Status::RateLimited
        );
        assert_eq!(refusal_status(e, 400, Some("131026")), Status::InvalidInput);
        assert_eq!(refusal_status(e, 404, None), Status::NotFound);
        assert_eq!(
            refusal_status(None, 400, Some("131047")),
            Status::InvalidInput
        );
    }

    #[test]
    fn waits_read_as_a_person_says_them() {
        assert_eq!(in_words(40), "40 s");
        assert_eq!(in_words(119), "119 s");
        assert_eq!(in_words(901), "16 min");
        assert_eq!(in_words(7_200), "2 h");
        assert_eq!(in_words(2_581_659), "30 days");
    }
}
