//! Risk as a proposal: from the method (a write at least `medium`, a delete at least `high`)
//! and from the words of the path and the operationId: anything that sends, pays or cannot be
//! undone is `critical`, and so is a write to what reaches people (a message, an SMS, an
//! e-mail, a WhatsApp): creating one sends it. A person confirms it; the lint refuses the tool
//! until then.

use catalog::{Method, Risk};

use crate::naming::words;

/// Words that make a write `critical`, with the reason given to the person deciding.
const CRITICAL: &[(&str, &str)] = &[
    ("send", "sends something outside the company"),
    ("deliver", "sends something outside the company"),
    ("notify", "sends something outside the company"),
    ("invite", "sends something outside the company"),
    ("resend", "sends something outside the company"),
    ("publish", "sends something outside the company"),
    ("pay", "moves or books money"),
    ("payment", "moves or books money"),
    ("payments", "moves or books money"),
    ("payout", "moves or books money"),
    ("charge", "moves or books money"),
    ("refund", "moves or books money"),
    ("transfer", "moves or books money"),
    ("book", "moves or books money"),
    ("cancel", "cannot be undone"),
    ("void", "cannot be undone"),
    ("enshrine", "cannot be undone"),
    ("finalize", "cannot be undone"),
    ("finalise", "cannot be undone"),
    ("lock", "cannot be undone"),
    ("reverse", "cannot be undone"),
    ("revoke", "cannot be undone"),
    ("purge", "cannot be undone"),
    ("irreversible", "cannot be undone"),
];

/// What reaches people: a write (POST, PUT, PATCH) to one of these sends it, so it is
/// `critical`; reading or deleting one is not sending.
const REACHES_PEOPLE: &[&str] = &[
    "message",
    "messages",
    "sms",
    "mms",
    "email",
    "emails",
    "mail",
    "mails",
    "whatsapp",
    "notification",
    "notifications",
    "fax",
    "broadcast",
    "broadcasts",
];

/// The words of one identifier, and each two neighbours joined (`WhatsApp` → `whats`, `app`,
/// `whatsapp`), so a word split by its casing is still found.
fn words_and_pairs(text: &str) -> Vec<String> {
    let w = words(text);
    let pairs: Vec<String> = w.windows(2).map(|p| format!("{}{}", p[0], p[1])).collect();
    w.into_iter().chain(pairs).collect()
}

/// The proposed risk and why, in words for the `curate` entry.
pub(crate) fn propose(method: Method, path: &str, operation_id: Option<&str>) -> (Risk, String) {
    let mut all: Vec<String> = path
        .split('/')
        .filter(|s| !s.starts_with('{'))
        .flat_map(words_and_pairs)
        .collect();
    all.extend(operation_id.map(words_and_pairs).unwrap_or_default());
    if let Some((word, why)) = all
        .iter()
        .find_map(|w| CRITICAL.iter().find(|(c, _)| c == w))
    {
        let reason = format!("the word `{word}` in its path or operationId: it {why}");
        if method == Method::Get {
            // A GET that says it sends (`GET /CreditNote/{id}/sendByWithRender`) may well write.
            return (
                Risk::Critical,
                format!("{reason}, although a GET: check whether it only reads"),
            );
        }
        return (Risk::Critical, reason);
    }
    if matches!(method, Method::Post | Method::Put | Method::Patch)
        && let Some(word) = all.iter().find(|w| REACHES_PEOPLE.contains(&w.as_str()))
    {
        return (
            Risk::Critical,
            format!(
                "the word `{word}` in its path or operationId: a {} there sends something to people",
                method.as_str()
            ),
        );
    }
    match method {
        Method::Get => (Risk::Low, "GET reads".into()),
        Method::Delete => (Risk::High, "DELETE removes a record".into()),
        _ => (Risk::Medium, format!("{} writes", method.as_str())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_then_words_decide() {
        assert_eq!(
            propose(Method::Get, "/Invoice/{id}/getPdf", None).0,
            Risk::Low
        );
        let (risk, why) = propose(Method::Get, "/CreditNote/{id}/sendByWithRender", None);
        assert_eq!(risk, Risk::Critical);
        assert!(why.contains("although a GET"), "{why}");
        assert_eq!(propose(Method::Post, "/Contact", None).0, Risk::Medium);
        assert_eq!(propose(Method::Delete, "/Contact/{id}", None).0, Risk::High);
        let (risk, why) = propose(Method::Post, "/Invoice/{id}/sendViaEmail", None);
        assert_eq!(risk, Risk::Critical);
        assert!(why.contains("`send`"), "{why}");
        assert_eq!(
            propose(Method::Put, "/Invoice/{id}/bookAmount", None).0,
            Risk::Critical
        );
        assert_eq!(
            propose(Method::Put, "/Invoice/{id}/enshrine", None).0,
            Risk::Critical
        );
        assert_eq!(
            propose(Method::Post, "/x/{id}", Some("cancelInvoice")).0,
            Risk::Critical
        );
        assert_eq!(
            propose(Method::Post, "/v2/bookings", Some("createBooking")).0,
            Risk::Medium
        );
    }

    #[test]
    fn writes_that_reach_people_are_critical() {
        for (method, path, id) in [
            (Method::Post, "/conversations/{id}/messages", None),
            (Method::Post, "/v1/Sms", None),
            (Method::Post, "/v1/messages", Some("createMessage")),
            (Method::Post, "/channels/WhatsApp", None),
            (Method::Post, "/x", Some("postWhatsAppTemplate")),
            (Method::Put, "/users/{id}/e-mail", None),
            (Method::Post, "/notifications", None),
            (Method::Post, "/team/{id}/invite", None),
        ] {
            let (risk, why) = propose(method, path, id);
            assert_eq!(risk, Risk::Critical, "{path} {id:?}: {why}");
        }
        let (_, why) = propose(Method::Post, "/conversations/{id}/messages", None);
        assert!(
            why.contains("`messages`") && why.contains("people"),
            "{why}"
        );
        // Reading or deleting a message sends nothing.
        assert_eq!(propose(Method::Get, "/messages", None).0, Risk::Low);
        assert_eq!(
            propose(Method::Delete, "/messages/{id}", None).0,
            Risk::High
        );
    }
}
