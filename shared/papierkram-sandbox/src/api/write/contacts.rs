//! Address book writes: companies and their contact persons.
//!
//! Recordings: `Contact_Company_Requests/*` (create 201, nameless create 422 "Name muss
//! ausgefüllt werden", update via PUT 200, archive/unarchive 200, delete 204, delete of an unknown
//! id 404) and `Contact_CompanyPersons_Requests/*` (create 201, update via PUT 200, delete 204).

use super::*;
use crate::model::{Company, ContactType, Person};

writable!(Company, companies, stamped);
archivable!(Company);
writable!(Person, persons, stamped);

impl Editable for Company {
    const APPLY: Apply<Self> = |_, f, c| apply_company(f, c);
}

const COUNTRY: &str = "Deutschland";

/// The optional company fields a create or update may send, applied onto `c`.
fn apply_company(f: &Fields<'_>, c: &mut Company) -> Result<(), ApiError> {
    if let Some(name) = still_required("Name", f.text("name")?)? {
        c.name = name;
    }
    if let Some(Some(kind)) = f.choice("contact_type", &["customer", "supplier"])? {
        c.contact_type = if kind == "supplier" {
            ContactType::Supplier
        } else {
            ContactType::Customer
        };
    }
    for (key, target) in [
        ("phone", &mut c.phone),
        ("fax", &mut c.fax),
        ("email", &mut c.email),
        ("ust_idnr", &mut c.ust_idnr),
        ("website", &mut c.website),
        ("twitter", &mut c.twitter),
        ("postal_street", &mut c.postal_street),
        ("postal_city", &mut c.postal_city),
        ("postal_zip", &mut c.postal_zip),
        ("physical_street", &mut c.physical_street),
        ("physical_city", &mut c.physical_city),
        ("physical_zip", &mut c.physical_zip),
        ("bank_blz", &mut c.bank_blz),
        ("bank_institute", &mut c.bank_institute),
        ("bank_account_no", &mut c.bank_account_no),
        ("bank_bic", &mut c.bank_bic),
        ("bank_iban", &mut c.bank_iban),
        ("notes", &mut c.notes),
        ("color", &mut c.color),
    ] {
        assign(target, f.raw_text(key)?);
    }
    assign(
        &mut c.delivery_method,
        f.choice("delivery_method", &["email", "pdf"])?,
    );
    assign(&mut c.flagged, f.boolean("flagged")?);
    // The upstream answers a `null` country with its default (recorded: null in, Deutschland out).
    for (key, target) in [
        ("postal_country", &mut c.postal_country),
        ("physical_country", &mut c.physical_country),
    ] {
        if let Some(country) = f.text(key)? {
            *target = country.unwrap_or_else(|| COUNTRY.into());
        }
    }
    Ok(())
}

/// `POST /contact/companies` → 201 with the company's detail.
pub(crate) async fn create_company(
    State(st): State<SandboxState>,
    body: Object,
) -> Result<Response, ApiError> {
    let f = body.fields();
    let mut required = Required::default();
    required.check("Name", f.text("name")?.flatten());
    required.done()?;
    let mut company = Company {
        postal_country: COUNTRY.into(),
        physical_country: COUNTRY.into(),
        ..Default::default()
    };
    apply_company(&f, &mut company)?;
    st.write(|store| {
        insert_with(
            store,
            company,
            |_, c| {
                c.bank_sepa_mandate_reference = format!("MREF-N{:05}", c.id);
                c.inbound_address = inbound_address(c.id);
            },
            |c| Some(format!("/adressbuch/eintraege/{}", c.id)),
        )
    })
}

/// Four letters and digits, derived from the id so reruns give the same address.
fn inbound_address(id: u64) -> String {
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut n = id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    (0..4)
        .map(|_| {
            let c = ALPHABET[(n % 32) as usize] as char;
            n /= 32;
            c
        })
        .collect()
}

/// `DELETE /contact/companies/{id}` → 204; its contact persons go with it. Refused while
/// documents or projects point at the company.
pub(crate) async fn delete_company(
    State(st): State<SandboxState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    st.write(|store| {
        let d = store.data();
        let i = index_of(&d.companies, &id)?;
        let cid = d.companies[i].id;
        let mut users = Vec::new();
        if d.invoices.iter().any(|x| x.customer_id == cid) {
            users.push("Rechnungen");
        }
        if d.estimates.iter().any(|x| x.customer_id == cid) {
            users.push("Angebote");
        }
        if d.vouchers.iter().any(|x| x.creditor_id == Some(cid)) {
            users.push("Belege");
        }
        if d.projects.iter().any(|x| x.company_id == cid) {
            users.push("Projekte");
        }
        if !users.is_empty() {
            return Err(in_use("Contact::Company", &users.join(", ")));
        }
        let d = store.data_mut();
        d.companies.remove(i);
        d.persons.retain(|p| p.company_id != cid);
        Ok(no_content(cid))
    })
}

fn apply_person(f: &Fields<'_>, p: &mut Person) -> Result<(), ApiError> {
    if let Some(first) = still_required("Vorname", f.text("first_name")?)? {
        p.first_name = first;
    }
    if let Some(last) = still_required("Nachname", f.text("last_name")?)? {
        p.last_name = last;
    }
    for (key, target) in [
        ("title", &mut p.title),
        ("salutation", &mut p.salutation),
        ("position", &mut p.position),
        ("department", &mut p.department),
        ("email", &mut p.email),
        ("phone", &mut p.phone),
        ("mobile", &mut p.mobile),
        ("fax", &mut p.fax),
        ("skype", &mut p.skype),
        ("comment", &mut p.comment),
    ] {
        assign(target, f.raw_text(key)?);
    }
    assign(&mut p.flagged, f.boolean("flagged")?);
    assign(&mut p.default, f.boolean("default")?);
    Ok(())
}

/// `POST /contact/companies/{company_id}/persons` → 201 with the person and its company.
pub(crate) async fn create_person(
    State(st): State<SandboxState>,
    Path(company): Path<String>,
    body: Object,
) -> Result<Response, ApiError> {
    let f = body.fields();
    st.write(|store| {
        // An unknown company is a 404 before anything about the body.
        let i = index_of(&store.data().companies, &company)?;
        let mut required = Required::default();
        required.check("Vorname", f.text("first_name")?.flatten());
        required.check("Nachname", f.text("last_name")?.flatten());
        required.done()?;
        let mut person = Person {
            company_id: store.data().companies[i].id,
            ..Default::default()
        };
        apply_person(&f, &mut person)?;
        insert(store, person, |p| {
            Some(format!("/adressbuch/eintraege/{}", p.company_id))
        })
    })
}

/// 404s unless `company` exists and `p` belongs to it.
fn of_company(store: &Store, company: &str, p: &Person) -> Result<(), ApiError> {
    let i = index_of(&store.data().companies, company)?;
    if store.data().companies[i].id != p.company_id {
        return Err(ApiError::record_not_found(Person::MODEL, &p.id.to_string()));
    }
    Ok(())
}

/// `PUT|PATCH /contact/companies/{company_id}/persons/{id}` → 200 with the person.
pub(crate) async fn update_person(
    State(st): State<SandboxState>,
    Path((company, id)): Path<(String, String)>,
    body: Object,
) -> Result<Response, ApiError> {
    let f = body.fields();
    change::<Person>(&st, &id, |store, p| {
        of_company(store, &company, p)?;
        apply_person(&f, p)
    })
}

/// `DELETE /contact/companies/{company_id}/persons/{id}` → 204; refused while a document names
/// the person as its contact.
pub(crate) async fn delete_person(
    State(st): State<SandboxState>,
    Path((company, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    remove::<Person>(&st, &id, |store, p| {
        of_company(store, &company, p)?;
        let d = store.data();
        let named = d.invoices.iter().any(|i| i.contact_person_id == Some(p.id))
            || d.estimates
                .iter()
                .any(|e| e.contact_person_id == Some(p.id));
        if named {
            return Err(in_use(Person::MODEL, "Rechnungen oder Angebote"));
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inbound_addresses_are_short_and_stable() {
        let a = inbound_address(141);
        assert_eq!(a.len(), 4);
        assert_eq!(a, inbound_address(141));
        assert_ne!(a, inbound_address(142));
    }
}
