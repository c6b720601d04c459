//! The lint's rules for one tool: its curation, name, description, risk, write contract,
//! document size, params and list shape.

use catalog::{ParamType, Risk, Tool};

use super::description::description_row;
use super::{Row, na, row};
use crate::contract::cursor::ListShape;

/// Verbs a tool name may end with.
const VERBS: &[&str] = &[
    "list",
    "get",
    "search",
    "create",
    "update",
    "delete",
    "archive",
    "unarchive",
    "cancel",
    "send",
    "pay",
    "book",
    "upload",
    "download",
    "reschedule",
    "mark_absent",
];

/// A param the model could fill without limit: a number without bounds, a free string without a
/// length, an array without `max_items` or with an unbounded item field or `item`.
pub(super) fn unbounded(p: &catalog::Param) -> bool {
    match p.kind {
        ParamType::Integer | ParamType::Number => p.min.is_none() && p.max.is_none(),
        ParamType::String => p.choices.is_none() && p.max_length.is_none(),
        ParamType::Boolean | ParamType::Date | ParamType::Datetime | ParamType::TimeZone => false,
        ParamType::Array => {
            p.max_items.is_none()
                || match (&p.items, &p.item) {
                    (Some(f), None) => f.is_empty() || f.values().any(|p| unbounded(p)),
                    (None, Some(item)) => unbounded(item),
                    _ => true,
                }
        }
    }
}

/// The largest JSON answer a Lambda behind API Gateway may send (6 MB), less room for the
/// result's JSON around a document.
const LAMBDA_ANSWER_BYTES: usize = 6 * 1024 * 1024 - 64 * 1024;

/// `document_size`: a document at its cap, base64 in a result or a read (4 bytes per 3),
/// still fits one Lambda answer.
fn document_row(binary: &catalog::BinaryAnswer, subject: String) -> Row {
    let encoded = binary.max_bytes.div_ceil(3) * 4;
    let fits = encoded <= LAMBDA_ANSWER_BYTES;
    let mut detail = format!(
        "max_bytes {} is {} B as base64 (a Lambda answer holds {LAMBDA_ANSWER_BYTES} B)",
        binary.max_bytes, encoded
    );
    if !fits {
        detail.push_str("; lower max_bytes to 4.4 MiB or less: a link's read carries it too");
    }
    row("document_size", subject, fits, detail)
}

/// `job`: how a tool that starts an upstream job is followed. A gap when it passes media on
/// without saying how long the upstream keeps them (the result could not say until when they can
/// be fetched). The detail says how it is served: a task to a client that holds tasks, else a
/// bounded wait, then `pending` naming `read`.
fn job_row(job: &catalog::Job, subject: String) -> Row {
    let cancel = match &job.cancel {
        Some(cancel) => format!("cancelled by `{cancel}`"),
        None => "not cancellable".to_string(),
    };
    let kept = match job.output_lives {
        Some(s) => format!("output kept {s} s"),
        None => "output kept as long as the upstream keeps it".to_string(),
    };
    let mut detail = format!(
        "read by `{}` every {} s, {cancel}, {kept}; an MCP task to clients that hold tasks, \
         else waited for, then `pending` naming `{}`",
        job.read, job.poll_every, job.read
    );
    let ok = job.media.is_empty() || job.output_lives.is_some();
    if !ok {
        detail.push_str("; media without `output_lives`: say how long the upstream keeps them");
    }
    row("job", subject, ok, detail)
}

/// The tool's rules, in the table's order; a forbidden tool gets only its curation and risk.
pub(super) fn rows(t: &Tool, shape: ListShape, rows: &mut Vec<Row>) {
    let subject = t.name.to_string();
    rows.push(tool_curation_row(t, subject.clone()));
    if t.risk == Risk::Forbidden {
        rows.push(row(
            "risk",
            subject,
            true,
            "forbidden: never listed nor callable",
        ));
        return;
    }
    rows.push(name_row(t, subject.clone()));
    rows.push(description_row(t, shape, subject.clone()));
    rows.push(risk_row(t, subject.clone()));
    rows.push(write_contract_row(t, subject.clone()));
    if let Some(binary) = t.answer.as_ref().and_then(|a| a.binary.as_ref()) {
        rows.push(document_row(binary, subject.clone()));
    }
    if let Some(job) = &t.job {
        rows.push(job_row(job, subject.clone()));
    }
    rows.push(params_row(
        t,
        subject.clone(),
        "booleans",
        |p| p.choices.as_ref().is_some_and(|c| looks_boolean(c)),
        "no magic strings",
        "use a boolean for",
    ));
    rows.push(params_row(
        t,
        subject.clone(),
        "typed_params",
        unbounded,
        "typed and bounded",
        "unbounded:",
    ));
    rows.push(if t.list {
        let ok = !t.fields.is_empty() && !t.default_fields.is_empty();
        row(
            "list_shape",
            subject.clone(),
            ok,
            "page, page_size ≤ 100, fields whitelist, compact default_fields, count_only",
        )
    } else {
        na("list_shape", subject.clone(), "not a list tool")
    });
    rows.push(if t.raw {
        row(
            "no_raw_hosted",
            subject,
            t.risk >= Risk::Medium,
            "raw: hidden unless <CONNECTOR>_EXPOSE_RAW=true",
        )
    } else {
        na("no_raw_hosted", subject, "dedicated tool")
    });
}

/// `name`: `<resource>_<verb>`; the verb is the name's last word, or two for a verb of two
/// words (`mark_absent`).
fn name_row(t: &Tool, subject: String) -> Row {
    let known = VERBS.iter().find(|v| {
        t.name
            .strip_suffix(**v)
            .is_some_and(|rest| rest.ends_with('_'))
    });
    let verb = known
        .copied()
        .unwrap_or_else(|| t.name.rsplit('_').next().unwrap_or(""));
    row(
        "name",
        subject,
        known.is_some(),
        format!("`<resource>_<verb>`, verb `{verb}`"),
    )
}

/// `risk`: at least what the tool's method and effects call for.
fn risk_row(t: &Tool, subject: String) -> Row {
    let (least, why) = least_risk(t);
    let word = crate::contract::risk::word(t.risk);
    row(
        "risk",
        subject,
        t.risk >= least,
        match why {
            Some(why) if t.risk < least => format!("{word} below {why}"),
            Some(why) => format!("{word} ({why})"),
            None => word.to_string(),
        },
    )
}

/// `write_contract`: a write declares what it changes, its audit event, whether it is
/// idempotent and how it fails.
fn write_contract_row(t: &Tool, subject: String) -> Row {
    if t.http().is_none() || t.is_read_only() {
        return na("write_contract", subject, "a read");
    }
    let missing: Vec<&str> = [
        ("side_effects", t.side_effects.is_none()),
        ("effect", t.effect.is_none()),
        ("audit_event", t.audit_event.is_none()),
        ("idempotent", t.idempotent.is_none()),
        ("failure_modes", t.failure_modes.is_empty()),
    ]
    .into_iter()
    .filter_map(|(field, absent)| absent.then_some(field))
    .collect();
    row(
        "write_contract",
        subject,
        missing.is_empty(),
        if missing.is_empty() {
            "side effects, effect, audit event, idempotency, failure modes".to_string()
        } else {
            format!("declare {}", missing.join(", "))
        },
    )
}

/// A rule over the tool's params: those `bad` picks are named after `refusal`.
fn params_row(
    t: &Tool,
    subject: String,
    rule: &'static str,
    bad: impl Fn(&catalog::Param) -> bool,
    fine: &str,
    refusal: &str,
) -> Row {
    if t.params.is_empty() {
        return na(rule, subject, "no params");
    }
    let named: Vec<&catalog::Text> = t
        .params
        .iter()
        .filter(|(_, p)| bad(p))
        .map(|(n, _)| n)
        .collect();
    row(
        rule,
        subject,
        named.is_empty(),
        if named.is_empty() {
            fine.to_string()
        } else {
            format!("{refusal} {named:?}")
        },
    )
}

/// `curation`: an imported draft is a proposal. A tool with pending `curate` entries, or whose
/// description still holds the importer's scaffold marker, is not a contract yet (the same
/// reading the server refuses to serve a draft by).
fn tool_curation_row(t: &Tool, subject: String) -> Row {
    let pending = catalog::tool_pending_curation(t);
    row(
        "curation",
        subject,
        pending.is_empty(),
        if pending.is_empty() {
            "no pending import decisions".to_string()
        } else {
            format!("decide and remove `curate`: {}", pending.join("; "))
        },
    )
}

/// The least risk a tool may declare, and why: a write at least `medium`, a delete at least
/// `high`, and what its declared effect needs.
fn least_risk(t: &Tool) -> (Risk, Option<String>) {
    let Some((method, _)) = t.http().filter(|_| !t.is_read_only()) else {
        return (Risk::Low, None);
    };
    let mut least = (Risk::Medium, "a write needs medium".to_string());
    if method == catalog::Method::Delete {
        least = (Risk::High, "a delete needs high".into());
    }
    if let Some(effect) = t.effect
        && effect.least_risk() > least.0
    {
        let name = format!("{effect:?}").to_lowercase();
        least = (
            effect.least_risk(),
            format!(
                "effect {name} needs {}",
                crate::contract::risk::word(effect.least_risk())
            ),
        );
    }
    (least.0, Some(least.1))
}

fn looks_boolean(choices: &[catalog::Text]) -> bool {
    let mut c: Vec<String> = choices.iter().map(|s| s.to_ascii_lowercase()).collect();
    c.sort();
    let pairs = [
        ["false", "true"],
        ["no", "yes"],
        ["ja", "nein"],
        ["off", "on"],
        ["0", "1"],
        ["asc", "desc"],
    ];
    c.len() == 2 && pairs.iter().any(|p| c == p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::lint::Verdict;
    use crate::commands::lint::lint;
    use crate::commands::lint::tests::config;

    #[test]
    fn a_document_whose_base64_outgrows_a_lambda_answer_is_a_gap() {
        let binary = |max_bytes| catalog::BinaryAnswer {
            mime: vec!["application/pdf".into()],
            max_bytes,
            form: catalog::BinaryForm::Link,
            redirect: false,
        };
        let fits = document_row(&binary(2 * 1024 * 1024), "t_pdf_download".into());
        assert_eq!(fits.verdict, Verdict::Ok, "{}", fits.detail);
        let over = document_row(&binary(5 * 1024 * 1024), "t_pdf_download".into());
        assert_eq!(over.verdict, Verdict::Gap);
        assert!(over.detail.contains("lower max_bytes"), "{}", over.detail);
    }

    #[test]
    fn a_job_passing_media_on_says_how_long_the_upstream_keeps_them() {
        let job = |output_lives: Option<u32>, media: &[&str]| catalog::Job {
            id: "/id".into(),
            state: "/status".into(),
            read: "t_prediction_get".into(),
            cancel: None,
            states: catalog::JobStates {
                working: vec!["starting".into()],
                completed: vec!["succeeded".into()],
                failed: vec!["failed".into()],
                cancelled: Vec::new(),
                input_required: Vec::new(),
            },
            result: Some("/output".into()),
            error: None,
            media: media.iter().map(|m| (*m).into()).collect(),
            poll_every: 5,
            prefer_wait: None,
            output_lives,
            task: catalog::TaskSupport::Optional,
            input: None,
        };
        let kept = job_row(&job(Some(3600), &["/output"]), "t_prediction_create".into());
        assert_eq!(kept.verdict, Verdict::Ok, "{}", kept.detail);
        assert!(
            kept.detail.contains(
                "read by `t_prediction_get` every 5 s, not cancellable, output kept 3600 s"
            ),
            "{}",
            kept.detail
        );
        let no_media = job_row(&job(None, &[]), "t_prediction_create".into());
        assert_eq!(no_media.verdict, Verdict::Ok, "{}", no_media.detail);
        let unsaid = job_row(&job(None, &["/output"]), "t_prediction_create".into());
        assert_eq!(unsaid.verdict, Verdict::Gap);
        assert!(
            unsaid.detail.contains("media without `output_lives`"),
            "{}",
            unsaid.detail
        );
    }

    #[test]
    fn risk_follows_method_and_effect() {
        let with = |risk: &str, method: &str, effect: &str| -> Row {
            let c = catalog::parse(
                "w.yaml",
                &format!(
                    r#"
connector: w
base_url: "http://x"
tools:
  - name: w_thing_send
    risk: {risk}
    description: 'Sends a thing (Ding). Use it to send one. Example: {{"id": 1}}'
    {method}: /things/{{id}}
    effect: {effect}
    params:
      id: {{ type: integer, in: path, min: 1 }}
"#
                ),
            )
            .unwrap();
            lint(&[c], &config())
                .into_iter()
                .find(|r| r.rule == "risk")
                .unwrap()
        };
        assert_eq!(with("medium", "post", "change").verdict, Verdict::Ok);
        let r = with("high", "post", "external");
        assert_eq!(r.verdict, Verdict::Gap);
        assert_eq!(r.detail, "high below effect external needs critical");
        assert_eq!(with("medium", "delete", "change").verdict, Verdict::Gap);
        assert_eq!(with("high", "delete", "delete").verdict, Verdict::Ok);
        assert_eq!(with("high", "put", "financial").verdict, Verdict::Ok);
        assert_eq!(with("high", "post", "money").verdict, Verdict::Gap);
    }

    #[test]
    fn an_array_is_bounded_only_with_max_items_and_bounded_item_fields() {
        let bounded = |item: &str| -> bool {
            let p: catalog::Param = yaml_serde::from_str(&format!(
                "{{ type: array, in: body, max_items: 5, items: {{ n: {item} }} }}"
            ))
            .unwrap();
            !unbounded(&p)
        };
        assert!(bounded("{ type: string, max_length: 9 }"));
        assert!(bounded("{ type: date }"));
        assert!(!bounded("{ type: string }"));
        assert!(!bounded("{ type: number }"));
        let p: catalog::Param =
            yaml_serde::from_str("{ type: array, in: body, items: { d: { type: date } } }")
                .unwrap();
        assert!(unbounded(&p), "no max_items");
    }

    #[test]
    fn an_array_of_values_is_bounded_only_with_a_bounded_item() {
        let bounded = |item: &str| -> bool {
            let p: catalog::Param = yaml_serde::from_str(&format!(
                "{{ type: array, in: body, max_items: 20, item: {item} }}"
            ))
            .unwrap();
            !unbounded(&p)
        };
        assert!(bounded("{ type: string, max_length: 200 }"));
        assert!(bounded("{ type: string, enum: [a, b] }"));
        assert!(bounded("{ type: integer, min: 1 }"));
        assert!(!bounded("{ type: string }"));
        assert!(!bounded("{ type: number }"));
        let p: catalog::Param =
            yaml_serde::from_str("{ type: array, in: body, item: { type: date } }").unwrap();
        assert!(unbounded(&p), "no max_items");
    }
}
