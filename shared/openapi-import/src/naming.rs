//! Tool names from path and method: `<connector>_<resource>_<verb>` (the catalog's naming rule)
//! with a verb from the lint's list where the words allow (`/Invoice/{invoiceId}/sendViaEmail` →
//! `sevdesk_invoice_send`), deterministic, unique, and within 64 characters. The operationId
//! decides where the path cannot say it (see [`parts_for`]).

use std::collections::BTreeSet;

use catalog::Method;

/// The longest tool name (`<connector>_<resource>_<verb>`) MCP clients accept.
pub const MAX_EXPOSED_NAME: usize = catalog::MAX_TOOL_NAME;

/// Path segments that carry no resource: versions, `api`, factory/action namespaces.
const NOISE: &[&str] = &["api", "rest", "factory", "actions", "action", "public"];

/// Words dropped from an action's remainder (`sendViaEmail` → `send`, `email`).
const STOPWORDS: &[&str] = &[
    "via", "by", "to", "for", "from", "of", "the", "a", "an", "as", "and", "with", "is",
];

/// The words of an identifier in any casing: `sendViaEmail`, `credit-notes`, `invoice[id]`.
pub(crate) fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev: Option<char> = None;
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev = None;
            continue;
        }
        let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
        let boundary = match prev {
            Some(p) => {
                (c.is_ascii_uppercase() && (p.is_ascii_lowercase() || p.is_ascii_digit()))
                    || (c.is_ascii_uppercase() && p.is_ascii_uppercase() && next_lower)
            }
            None => false,
        };
        if boundary && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        word.push(c.to_ascii_lowercase());
        prev = Some(c);
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// snake_case of an identifier; a leading digit gets an `n` (`2fa` → `n2fa`).
pub(crate) fn snake(text: &str) -> String {
    let mut s = words(text).join("_");
    if s.is_empty() {
        s.push_str("value");
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'n');
    }
    s
}

/// `invoices` → `invoice`, `categories` → `category`; `status`, `address` stay.
pub(crate) fn singular(word: &str) -> String {
    if let Some(stem) = word.strip_suffix("ies").filter(|s| s.len() > 1) {
        return format!("{stem}y");
    }
    for end in ["sses", "shes", "ches", "xes"] {
        if word.ends_with(end) {
            return word[..word.len() - 2].to_string();
        }
    }
    if word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
        && word.len() > 2
    {
        return word[..word.len() - 1].to_string();
    }
    word.to_string()
}

/// `invoice` → `invoices`, `category` → `categories`; plurals stay.
pub(crate) fn plural(word: &str) -> String {
    if singular(word) != word {
        return word.to_string();
    }
    if let Some(stem) = word
        .strip_suffix('y')
        .filter(|s| !s.ends_with(['a', 'e', 'o', 'u']))
    {
        return format!("{stem}ies");
    }
    if word.ends_with(['s', 'x']) || word.ends_with("sh") || word.ends_with("ch") {
        return format!("{word}es");
    }
    format!("{word}s")
}

/// The lint's verb for a leading word of an action segment, if any.
pub(crate) fn verb_of(word: &str) -> Option<&'static str> {
    Some(match word {
        "get" | "fetch" | "retrieve" | "read" | "show" => "get",
        "list" => "list",
        "search" | "find" | "query" | "lookup" => "search",
        "create" | "add" | "new" | "save" | "insert" | "make" => "create",
        "update" | "edit" | "change" | "modify" | "set" | "replace" => "update",
        "delete" | "remove" | "destroy" | "purge" => "delete",
        "archive" => "archive",
        "unarchive" => "unarchive",
        "cancel" | "void" | "abort" => "cancel",
        "send" | "email" | "mail" | "deliver" | "resend" => "send",
        "pay" | "charge" => "pay",
        "book" => "book",
        "upload" | "import" => "upload",
        "download" | "export" => "download",
        _ => return None,
    })
}

/// A name before it is made unique: resource words, the verb, and more path words (nearest
/// first) to tell it apart from a twin.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Parts {
    pub(crate) resource: Vec<String>,
    pub(crate) verb: String,
    pub(crate) context: Vec<String>,
    /// An action's remaining words (`changeStatus` → `status`), tried first against a twin.
    pub(crate) qualifier: Vec<String>,
}

enum Seg {
    Static(Vec<String>),
    Param,
}

fn segments(path: &str) -> Vec<Seg> {
    path.split('/')
        .filter(|s| !s.is_empty())
        .filter_map(|s| {
            if s.starts_with('{') {
                return Some(Seg::Param);
            }
            let lower = s.to_ascii_lowercase();
            let version = lower.strip_prefix('v').is_some_and(|n| {
                !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '.')
            });
            (!version && !NOISE.contains(&lower.as_str())).then(|| Seg::Static(words(s)))
        })
        .filter(|s| !matches!(s, Seg::Static(w) if w.is_empty()))
        .collect()
}

/// Resource and verb for one operation. `lists` says whether a GET answers a collection (from
/// the response shape), which decides `_list` over `_get` where the path cannot.
pub(crate) fn parts(method: Method, path: &str, lists: bool) -> Parts {
    let segs = segments(path);
    let statics: Vec<&Vec<String>> = segs
        .iter()
        .filter_map(|s| match s {
            Seg::Static(w) => Some(w),
            Seg::Param => None,
        })
        .collect();
    let Some(last) = segs.last() else {
        let verb = if method == Method::Get {
            "get"
        } else {
            default_verb(method, false)
        };
        return Parts {
            resource: vec!["root".into()],
            verb: verb.into(),
            context: Vec::new(),
            qualifier: Vec::new(),
        };
    };
    let n = segs.len();
    let prev_is_param = n >= 2 && matches!(segs[n - 2], Seg::Param);
    let single = |w: &[String]| -> Vec<String> {
        let mut w = w.to_vec();
        if let Some(l) = w.last_mut() {
            *l = singular(l);
        }
        w
    };
    let many = |w: &[String]| -> Vec<String> {
        let mut w = w.to_vec();
        if let Some(l) = w.last_mut() {
            *l = plural(l);
        }
        w
    };
    let context_from = |skip: usize| -> Vec<String> {
        statics
            .iter()
            .rev()
            .skip(skip)
            .flat_map(|w| w.iter().rev().cloned())
            .collect()
    };
    match last {
        Seg::Param => {
            // An item: the nearest static segment names it.
            let owner = statics
                .last()
                .map(|w| single(w))
                .unwrap_or_else(|| vec!["item".into()]);
            let verb = match method {
                Method::Get => "get",
                Method::Delete => "delete",
                _ => "update",
            };
            Parts {
                resource: owner,
                verb: verb.into(),
                context: context_from(1),
                qualifier: Vec::new(),
            }
        }
        Seg::Static(w) => {
            let owner: Vec<String> = if statics.len() >= 2 {
                single(statics[statics.len() - 2])
            } else {
                Vec::new()
            };
            let first = verb_of(&w[0]);
            let rest: Vec<String> = w[1..]
                .iter()
                .filter(|x| !STOPWORDS.contains(&x.as_str()))
                .cloned()
                .collect();
            if let Some(verb) = first.filter(|_| w.len() > 1 || statics.len() >= 2) {
                if matches!(verb, "get" | "list" | "search") || !prev_is_param {
                    // `getPositions`, `createInvoiceReminder`: the remainder names the resource.
                    let resource = if rest.is_empty() {
                        owner.clone()
                    } else if owner.is_empty()
                        || rest.starts_with(&owner)
                        || rest.starts_with(&many(&owner))
                    {
                        single(&rest)
                    } else {
                        let mut r = owner.clone();
                        r.extend(rest.iter().cloned());
                        r
                    };
                    let verb = match verb {
                        "get" | "list" if rest.last().is_some_and(|l| singular(l) != *l) => "list",
                        "list" => "list",
                        v => v,
                    };
                    let resource = if verb == "list" {
                        many(&resource)
                    } else {
                        single(&resource)
                    };
                    let resource = if resource.is_empty() {
                        vec!["item".into()]
                    } else {
                        resource
                    };
                    return Parts {
                        resource,
                        verb: verb.into(),
                        context: context_from(2),
                        qualifier: Vec::new(),
                    };
                }
                // An action on an item: `sendViaEmail`, `cancelInvoice`, `bookAmount`.
                let qualifier = rest
                    .iter()
                    .filter(|w| !owner.contains(w))
                    .cloned()
                    .collect();
                return Parts {
                    resource: owner,
                    verb: verb.into(),
                    context: context_from(2),
                    qualifier,
                };
            }
            if prev_is_param && method != Method::Get && !owner.is_empty() {
                // An action with no known verb (`enshrine`, `resetToOpen`): the lint flags it.
                if method == Method::Post
                    && plural(&w[w.len() - 1]) == w[w.len() - 1]
                    && singular(&w[w.len() - 1]) != w[w.len() - 1]
                {
                    // POST to a sub-collection (`/models/{m}/predictions`): creates one.
                    let mut r = owner.clone();
                    r.extend(single(w));
                    return Parts {
                        resource: r,
                        verb: "create".into(),
                        context: context_from(2),
                        qualifier: Vec::new(),
                    };
                }
                return Parts {
                    resource: owner,
                    verb: w.join("_"),
                    context: context_from(2),
                    qualifier: Vec::new(),
                };
            }
            let mut resource: Vec<String> = if prev_is_param { owner } else { Vec::new() };
            let verb = match method {
                Method::Get if lists => {
                    resource.extend(many(w));
                    "list"
                }
                Method::Get => {
                    resource.extend(w.iter().cloned());
                    "get"
                }
                m => {
                    resource.extend(single(w));
                    default_verb(m, true)
                }
            };
            Parts {
                resource,
                verb: verb.into(),
                context: context_from(if prev_is_param { 2 } else { 1 }),
                qualifier: Vec::new(),
            }
        }
    }
}

/// The verbs a method says by itself: a name with one of these tells no more than the method.
const METHOD_VERBS: &[&str] = &["get", "list", "create", "update", "delete"];

/// The operationId verbs that may name an operation over the method's own, by method: what a
/// write does (`sendMessage` on `POST /messages`), a GET that searches or downloads, a DELETE
/// that cancels or archives. A GET never takes `send` from a word like `emailTemplates`.
fn id_verbs(method: Method) -> &'static [&'static str] {
    match method {
        Method::Get => &["search", "download"],
        Method::Delete => &["cancel", "archive"],
        Method::Post | Method::Put | Method::Patch => &[
            "send",
            "cancel",
            "pay",
            "book",
            "archive",
            "unarchive",
            "search",
            "upload",
            "download",
        ],
    }
}

/// An operationId's verb (its first word the lint's verbs know, after any prefix such as
/// `BookingsController_2024_08_13_`) and the words after it, stop words and numbers dropped.
fn id_words(operation_id: &str) -> Option<(&'static str, Vec<String>)> {
    let w = words(operation_id);
    let at = w.iter().position(|x| verb_of(x).is_some())?;
    let verb = verb_of(&w[at])?;
    let rest = w[at + 1..]
        .iter()
        .filter(|x| !STOPWORDS.contains(&x.as_str()) && !x.chars().all(|c| c.is_ascii_digit()))
        .cloned()
        .collect();
    Some((verb, rest))
}

/// [`parts`], with the operationId deciding where it names the operation better than the path:
/// - the verb, when the path says only what the method says (`get`, `list`, `create`, `update`,
///   `delete`) and the operationId names a more specific one for that method (`POST /messages`
///   `sendMessage` → `message_send`, `DELETE /bookings/{id}` `cancelBooking` → `booking_cancel`,
///   `GET /exports/{id}` `downloadExport` → `export_download`);
/// - the resource, when the path names none (`/`, or only parameters: `root`, `item`) and the
///   operationId has words after its verb (`POST /` `sendMessage` → `message_send`).
///
/// Everything else keeps the path's name: it is what a person sees in the document, and
/// operationIds are often generated (`BookingsController_2024_08_13_getBookings`). The second
/// value says what the operationId decided, for the report.
pub(crate) fn parts_for(
    method: Method,
    path: &str,
    lists: bool,
    operation_id: Option<&str>,
) -> (Parts, Option<String>) {
    let mut p = parts(method, path, lists);
    let Some((id, (verb, rest))) = operation_id.and_then(|id| Some((id, id_words(id)?))) else {
        return (p, None);
    };
    let mut decided = Vec::new();
    if METHOD_VERBS.contains(&p.verb.as_str()) && id_verbs(method).contains(&verb) {
        p.verb = verb.to_string();
        decided.push("verb");
    }
    if (p.resource == ["root"] || p.resource == ["item"]) && !rest.is_empty() {
        let mut resource = rest;
        if let Some(last) = resource.last_mut() {
            *last = if matches!(p.verb.as_str(), "list" | "search") {
                plural(last)
            } else {
                singular(last)
            };
        }
        p.resource = resource;
        decided.push("resource");
    }
    let note = (!decided.is_empty()).then(|| {
        format!(
            "name: {} from the operationId `{id}`",
            decided.join(" and ")
        )
    });
    (p, note)
}

fn default_verb(method: Method, collection: bool) -> &'static str {
    match method {
        Method::Get => "get",
        Method::Post if collection => "create",
        Method::Post | Method::Put | Method::Patch => "update",
        Method::Delete => "delete",
    }
}

/// Assigns unique names in the given (deterministic) order: a twin takes more path words
/// as a prefix, then a number. Each name is the full tool name `<connector>_<resource>_<verb>`
/// (the catalog's naming rule) and fits in 64 characters.
pub(crate) fn assign(connector: &str, all: &[Parts]) -> Vec<String> {
    let budget = MAX_EXPOSED_NAME.saturating_sub(connector.len() + 1).max(8);
    let mut taken = BTreeSet::new();
    let mut out = Vec::with_capacity(all.len());
    for p in all {
        let mut chosen = None;
        if !p.qualifier.is_empty() && taken.contains(&fit(&p.resource, &p.verb, budget)) {
            let mut qualified = p.resource.clone();
            qualified.extend(p.qualifier.iter().cloned());
            let name = fit(&qualified, &p.verb, budget);
            if !taken.contains(&name) {
                chosen = Some(name);
            }
        }
        for extra in 0..=p.context.len() {
            if chosen.is_some() {
                break;
            }
            let mut resource: Vec<String> = p.context[..extra].iter().rev().cloned().collect();
            resource.extend(p.resource.iter().cloned());
            let name = fit(&resource, &p.verb, budget);
            if !taken.contains(&name) {
                chosen = Some(name);
            }
        }
        let name = chosen.unwrap_or_else(|| {
            (2..)
                .map(|i| {
                    let mut resource = p.resource.clone();
                    if let Some(l) = resource.last_mut() {
                        l.push_str(&i.to_string());
                    }
                    fit(&resource, &p.verb, budget)
                })
                .find(|n| !taken.contains(n))
                .unwrap_or_default()
        });
        taken.insert(name.clone());
        out.push(name);
    }
    out.into_iter()
        .map(|name| format!("{connector}_{name}"))
        .collect()
}

/// `resource_verb` within `budget` characters, dropping resource words from the front first.
fn fit(resource: &[String], verb: &str, budget: usize) -> String {
    let mut verb = verb.to_string();
    if verb.len() > budget / 2 {
        verb = verb
            .chars()
            .take(budget / 2)
            .collect::<String>()
            .trim_end_matches('_')
            .to_string();
    }
    let mut words: Vec<&str> = resource
        .iter()
        .map(String::as_str)
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        words.push("item");
    }
    loop {
        let resource = words.join("_");
        if resource.len() + 1 + verb.len() <= budget || words.len() == 1 {
            // One word still too long: cut the resource, never the verb.
            let room = budget.saturating_sub(verb.len() + 1).max(1);
            let mut resource: String = resource.chars().take(room).collect();
            while resource.ends_with('_') {
                resource.pop();
            }
            if resource.starts_with(|c: char| c.is_ascii_digit()) {
                resource.insert(0, 'n');
            }
            return format!("{resource}_{verb}");
        }
        words.remove(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(method: Method, path: &str, lists: bool) -> String {
        let p = parts(method, path, lists);
        let full = assign("x", &[p]).remove(0);
        full.strip_prefix("x_")
            .expect("the connector's prefix")
            .to_string()
    }

    #[test]
    fn words_split_every_casing() {
        assert_eq!(words("sendViaEmail"), ["send", "via", "email"]);
        assert_eq!(words("getPDFFile"), ["get", "pdf", "file"]);
        assert_eq!(words("invoice[id]"), ["invoice", "id"]);
        assert_eq!(snake("cal-api-version"), "cal_api_version");
    }

    #[test]
    fn plurals_and_singulars() {
        assert_eq!(singular("invoices"), "invoice");
        assert_eq!(singular("categories"), "category");
        assert_eq!(singular("status"), "status");
        assert_eq!(plural("invoice"), "invoices");
        assert_eq!(plural("category"), "categories");
        assert_eq!(plural("bookings"), "bookings");
    }

    #[test]
    fn crud_paths_get_the_lints_verbs() {
        assert_eq!(name(Method::Get, "/Invoice", true), "invoices_list");
        assert_eq!(
            name(Method::Get, "/Invoice/{invoiceId}", false),
            "invoice_get"
        );
        assert_eq!(name(Method::Post, "/Contact", false), "contact_create");
        assert_eq!(
            name(Method::Put, "/Invoice/{invoiceId}", false),
            "invoice_update"
        );
        assert_eq!(
            name(Method::Delete, "/v2/bookings/{uid}", false),
            "booking_delete"
        );
        assert_eq!(name(Method::Get, "/account", false), "account_get");
    }

    #[test]
    fn action_segments_map_to_verbs_by_their_words() {
        assert_eq!(
            name(Method::Post, "/Invoice/{invoiceId}/sendViaEmail", false),
            "invoice_send"
        );
        assert_eq!(
            name(Method::Post, "/Invoice/{invoiceId}/cancelInvoice", false),
            "invoice_cancel"
        );
        assert_eq!(
            name(Method::Put, "/Invoice/{invoiceId}/bookAmount", false),
            "invoice_book"
        );
        assert_eq!(
            name(Method::Post, "/v2/bookings/{bookingUid}/cancel", false),
            "booking_cancel"
        );
        assert_eq!(
            name(Method::Get, "/files/{file_id}/download", false),
            "file_download"
        );
        assert_eq!(
            name(Method::Get, "/Invoice/{invoiceId}/getPositions", false),
            "invoice_positions_list"
        );
        assert_eq!(
            name(
                Method::Post,
                "/Invoice/Factory/createInvoiceReminder",
                false
            ),
            "invoice_reminder_create"
        );
        assert_eq!(
            name(Method::Put, "/Invoice/{invoiceId}/enshrine", false),
            "invoice_enshrine"
        );
        assert_eq!(
            name(Method::Post, "/models/{owner}/{name}/predictions", false),
            "model_prediction_create"
        );
        assert_eq!(
            name(Method::Get, "/models/{owner}/{name}/versions", true),
            "model_versions_list"
        );
    }

    #[test]
    fn the_operation_id_names_what_the_path_cannot() {
        let named = |method, path, id| {
            let (p, note) = parts_for(method, path, false, Some(id));
            (assign("x", &[p]).remove(0), note.is_some())
        };
        assert_eq!(
            named(Method::Post, "/v1/messages", "sendMessage"),
            ("x_message_send".into(), true)
        );
        assert_eq!(
            named(
                Method::Delete,
                "/bookings/{id}",
                "BookingsController_2024_08_13_cancelBooking"
            ),
            ("x_booking_cancel".into(), true)
        );
        assert_eq!(
            named(Method::Get, "/exports/{id}", "downloadExport"),
            ("x_export_download".into(), true)
        );
        assert_eq!(
            named(Method::Post, "/", "sendSmsMessages"),
            ("x_sms_message_send".into(), true)
        );
        // The path says as much or more: its name stays.
        assert_eq!(
            named(Method::Get, "/Invoice/{invoiceId}", "getInvoiceById"),
            ("x_invoice_get".into(), false)
        );
        assert_eq!(
            named(
                Method::Post,
                "/Invoice/{id}/sendViaEmail",
                "invoiceSendByMail"
            ),
            ("x_invoice_send".into(), false)
        );
        assert_eq!(
            named(Method::Get, "/templates", "emailTemplatesList"),
            ("x_templates_get".into(), false),
            "a GET takes no `send` from a noun"
        );
        assert_eq!(
            named(Method::Post, "/bookings", "createBooking"),
            ("x_booking_create".into(), false)
        );
    }

    #[test]
    fn twins_take_path_words_then_numbers_deterministically() {
        let a = parts(Method::Get, "/teams/{teamId}/bookings", true);
        let b = parts(Method::Get, "/bookings", true);
        let c = parts(Method::Get, "/orgs/{orgId}/teams/{teamId}/bookings", true);
        let names = assign("cal", &[b.clone(), a.clone(), c.clone()]);
        assert_eq!(
            names,
            [
                "cal_bookings_list",
                "cal_team_bookings_list",
                "cal_orgs_team_bookings_list"
            ]
        );
        assert_eq!(assign("cal", &[b.clone(), a, c]), names, "deterministic");
        let status = parts(Method::Put, "/Invoice/{invoiceId}/changeStatus", false);
        let template = parts(Method::Put, "/Invoice/{invoiceId}/changeParameter", false);
        let plain = parts(Method::Put, "/Invoice/{invoiceId}", false);
        assert_eq!(
            assign("s", &[plain, status, template]),
            [
                "s_invoice_update",
                "s_invoice_status_update",
                "s_invoice_parameter_update"
            ]
        );
        let twice = assign("cal", &[b.clone(), b]);
        assert_eq!(twice, ["cal_bookings_list", "cal_bookings2_list"]);
    }

    #[test]
    fn names_fit_sixty_four_with_the_connector() {
        let long = "/a/{x}/averyveryverylongresourcenamethatgoesonandon/{y}/anotherextremelylongsegmentname";
        let connector = "a_connector_with_a_long_name";
        let names = assign(connector, &[parts(Method::Get, long, true)]);
        assert!(
            names[0].starts_with("a_connector_with_a_long_name_")
                && names[0].len() <= MAX_EXPOSED_NAME,
            "{}",
            names[0]
        );
        assert!(names[0].ends_with("_list"), "{}", names[0]);
    }
}
