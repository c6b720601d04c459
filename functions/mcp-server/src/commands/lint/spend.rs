//! The `spend` row: what a call of a tool that spends costs at most, against a caller's daily
//! spend on its connector (`quota.caller_daily_spend`); and a tool that bills the account or
//! starts an upstream job on such a connector without saying what it spends.

use catalog::{Catalog, Effect, Spends, Tool};

use super::{Row, row};

/// The tool's row, when spending concerns it: it spends, or it bills a connector with a spend
/// limit.
pub(super) fn row_of(c: &Catalog, t: &Tool) -> Option<Row> {
    let limit = c.quota.as_ref().and_then(|q| q.caller_daily_spend.as_ref());
    let subject = t.name.to_string();
    let (spends, limit) = match (t.spends.as_deref(), limit) {
        (Some(spends), Some(limit)) => (spends, limit),
        (None, Some(limit)) if t.effect == Some(Effect::Financial) || t.job.is_some() => {
            return Some(row(
                "spend",
                subject,
                false,
                format!(
                    "bills the account (`effect: financial`) or starts an upstream job, but \
                     declares no `spends`: its calls are not counted against a caller's daily \
                     {} {}",
                    limit.limit, limit.unit
                ),
            ));
        }
        // The loader refuses `spends` without a limit.
        _ => return None,
    };
    let unit = &limit.unit;
    let times_max = spends
        .times
        .as_deref()
        .and_then(|name| t.params.get(name))
        .and_then(|p| p.max);
    let most = spends.most(times_max).unwrap_or(u64::MAX);
    let priced = priced(spends, unit);
    Some(if most <= limit.limit {
        row(
            "spend",
            subject,
            true,
            format!(
                "{priced}; at most {most} of a caller's {} {unit} a day",
                limit.limit
            ),
        )
    } else {
        row(
            "spend",
            subject,
            false,
            format!(
                "{priced}: a call can spend {most} {unit}, more than a caller's daily {}, and \
                 is always refused; raise the limit or lower the largest call",
                limit.limit
            ),
        )
    })
}

/// `spends 1 predictions a call`, `spends 2 to 5 credits (by `model`) × `seconds``.
fn priced(spends: &Spends, unit: &str) -> String {
    let base = match &spends.by {
        Some(by) => {
            let low = spends.amounts.values().min().copied().unwrap_or(0);
            let high = spends.amounts.values().max().copied().unwrap_or(0);
            format!("spends {low} to {high} {unit} (by `{by}`)")
        }
        None => format!("spends {} {unit}", spends.amount.unwrap_or(0)),
    };
    match &spends.times {
        Some(times) => format!("{base} × `{times}`"),
        None => format!("{base} a call"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::lint::Verdict;

    fn catalog(limit: u64, spends: &str, effect_only: bool) -> Catalog {
        let spends = if effect_only {
            String::new()
        } else {
            format!("    spends: {spends}\n")
        };
        catalog::parse(
            "v.yaml",
            &format!(
                r#"
connector: v
base_url: "http://x"
quota:
  caller_daily_spend: {{ unit: credits, limit: {limit} }}
tools:
  - name: v_video_create
    risk: high
    effect: financial
    description: 'Makes a video (Video). Use it to make one. Example: {{"seconds": 5}}'
    post: /videos
{spends}    params:
      seconds: {{ type: integer, in: body, min: 2, max: 10, required: true }}
      model: {{ type: string, in: body, enum: [fast, fine], default: fast }}
"#
            ),
        )
        .unwrap()
    }

    fn verdict(c: &Catalog) -> Row {
        row_of(c, &c.tools[0]).unwrap()
    }

    #[test]
    fn a_spend_within_the_daily_limit_is_ok_and_says_its_most() {
        let c = catalog(
            100,
            "{ by: model, amounts: { fast: 2, fine: 5 }, times: seconds }",
            false,
        );
        let r = verdict(&c);
        assert_eq!(r.verdict, Verdict::Ok);
        assert_eq!(
            r.detail,
            "spends 2 to 5 credits (by `model`) × `seconds`; at most 50 of a caller's 100 \
             credits a day"
        );
    }

    #[test]
    fn a_call_that_can_never_fit_the_daily_limit_is_a_gap() {
        let c = catalog(40, "{ amount: 5, times: seconds }", false);
        let r = verdict(&c);
        assert_eq!(r.verdict, Verdict::Gap);
        assert!(
            r.detail.contains("can spend 50 credits, more than"),
            "{}",
            r.detail
        );
    }

    #[test]
    fn a_billing_tool_without_spends_on_a_limited_connector_is_a_gap() {
        let c = catalog(40, "", true);
        let r = verdict(&c);
        assert_eq!(r.verdict, Verdict::Gap);
        assert!(r.detail.contains("declares no `spends`"), "{}", r.detail);
    }

    #[test]
    fn a_tool_that_starts_a_job_on_a_limited_connector_without_spends_is_a_gap() {
        let c = catalog::parse(
            "v.yaml",
            r#"
connector: v
base_url: "http://x"
quota:
  caller_daily_spend: { unit: credits, limit: 40 }
tools:
  - name: v_video_create
    risk: medium
    effect: change
    description: 'Makes a video (Video). Use it to make one. Example: {}'
    post: /videos
    job:
      id: /id
      state: /status
      read: v_video_get
      states: { working: [running], completed: [done], failed: [failed] }
  - name: v_video_get
    risk: low
    description: 'Reads a video (Video). Use it to follow one. Example: {"id": "a"}'
    get: /videos/{id}
    params:
      id: { type: string, in: path, max_length: 40 }
"#,
        )
        .unwrap();
        let r = verdict(&c);
        assert_eq!(r.verdict, Verdict::Gap);
        assert!(r.detail.contains("starts an upstream job"), "{}", r.detail);
        assert!(row_of(&c, &c.tools[1]).is_none(), "a read spends nothing");
    }
}
