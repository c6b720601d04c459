//! The price list: propositions (products and services).
//!
//! Recordings: `Income_Propositions_Requests/*` (create 201 with `vat_rate: "19%"` in and the
//! rate object out, update via PUT 200, archive/unarchive 200, delete 204).

use super::*;
use crate::model::{Proposition, VatRate};

writable!(Proposition, propositions, stamped);
archivable!(Proposition);

impl Editable for Proposition {
    const APPLY: Apply<Self> = apply;
}

/// Largest price a proposition or line item may have, in euros.
pub(crate) const MAX_PRICE: i64 = 1_000_000;

/// Unit names the upstream derives from a time unit (recorded: `hour` → Stunde/Stunden).
fn unit_names(time_unit: &str) -> Option<(&'static str, &'static str)> {
    Some(match time_unit {
        "minute" => ("Minute", "Minuten"),
        "hour" => ("Stunde", "Stunden"),
        "day" => ("Tag", "Tage"),
        "week" => ("Woche", "Wochen"),
        "month" => ("Monat", "Monate"),
        _ => return None,
    })
}

/// The VAT rate named like `"19%"`; 422 naming the rates there are otherwise.
pub(crate) fn vat_rate<'a>(
    rates: &'a [VatRate],
    field: &str,
    name: &str,
) -> Result<&'a VatRate, ApiError> {
    rates.iter().find(|r| r.name == name).ok_or_else(|| {
        let known: Vec<&str> = rates.iter().map(|r| r.name.as_str()).collect();
        refused(format!(
            "{field} must be one of {}, got {name:?}",
            known.join(", ")
        ))
    })
}

fn apply(store: &Store, f: &Fields<'_>, p: &mut Proposition) -> Result<(), ApiError> {
    let d = store.data();
    if let Some(name) = still_required("Name", f.text("name")?)? {
        p.name = name;
    }
    assign(&mut p.article_no, f.text_or_number("article_no")?);
    assign(&mut p.description, f.raw_text("description")?);
    if let Some(kind) = f.choice("proposition_type", &["service", "product"])? {
        p.proposition_type = kind.unwrap_or_else(|| "service".into());
    }
    if let Some(price) = f.decimal("price")? {
        p.price = exact("price", price.unwrap_or_default(), MAX_PRICE)?;
    }
    // The upstream client sends `""` when no rate is chosen; the account's first rate applies.
    if let Some(rate) = f.text("vat_rate")? {
        p.vat_rate_id = match rate {
            Some(name) => vat_rate(&d.vat_rates, "vat_rate", &name)?.id,
            None => d.vat_rates.first().map_or(1, |r| r.id),
        };
    }
    if let Some(unit) = f.text("time_unit")? {
        if let Some((one, many)) = unit.as_deref().and_then(unit_names) {
            p.unit_name_1 = one.into();
            p.unit_name_n = many.into();
        }
        p.time_unit = unit;
    }
    if let Some(Some(one)) = f.text("unit_name_1")? {
        p.unit_name_1 = one;
    }
    if let Some(Some(many)) = f.text("unit_name_n")? {
        p.unit_name_n = many;
    }
    assign(&mut p.flagged, f.boolean("flagged")?);
    assign(&mut p.favorite, f.boolean("favorite")?);
    Ok(())
}

/// `POST /income/propositions` → 201 with the proposition and its VAT rate.
pub(crate) async fn create_proposition(
    State(st): State<SandboxState>,
    body: Object,
) -> Result<Response, ApiError> {
    let f = body.fields();
    let mut required = Required::default();
    required.check("Name", f.text("name")?.flatten());
    required.done()?;
    st.write(|store| {
        let mut p = Proposition {
            proposition_type: "service".into(),
            unit_name_1: "Stück".into(),
            unit_name_n: "Stück".into(),
            vat_rate_id: store.data().vat_rates.first().map_or(1, |r| r.id),
            ..Default::default()
        };
        apply(store, &f, &mut p)?;
        insert(store, p, |p| Some(format!("/einnahmen/produkte/{}", p.id)))
    })
}

/// `DELETE /income/propositions/{id}` → 204; refused while tasks, projects or line items use it.
pub(crate) async fn delete_proposition(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    remove::<Proposition>(&st, &id, |store, p| {
        let d = store.data();
        let pid = Some(p.id);
        let on_line = |lines: &[crate::model::LineItem]| {
            lines
                .iter()
                .any(|l| l.proposition.as_ref().is_some_and(|r| r.id == p.id))
        };
        let used = d.tasks.iter().any(|t| t.proposition_id == pid)
            || d.projects.iter().any(|x| x.default_proposition_id == pid)
            || d.invoices.iter().any(|i| on_line(&i.line_items))
            || d.estimates.iter().any(|e| on_line(&e.line_items));
        if used {
            return Err(in_use(
                Proposition::MODEL,
                "Aufgaben, Projekte oder Positionen",
            ));
        }
        Ok(())
    })
}
