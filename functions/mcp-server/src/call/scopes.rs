//! Which upstream scopes a person's grant holds, and what a new consent must ask for when a
//! tool needs more (incremental consent). Pure: the credentials stage asks, this answers.

use catalog::Text;

use crate::vault::Grant;

/// `None` when `grant` holds every scope in `needed`; else the scopes beyond the connector's
/// (`base`) a new consent asks for: those granted before and those needed, each once.
pub(super) fn more_to_ask(base: &[Text], needed: &[Text], grant: &Grant) -> Option<Vec<String>> {
    let granted = granted(base, grant);
    if needed
        .iter()
        .all(|n| granted.iter().any(|g| same_scope(g, n)))
    {
        return None;
    }
    Some(beyond(
        base,
        granted.into_iter().chain(needed.iter().map(Text::as_str)),
    ))
}

/// What `grant` holds: the scopes its token answer named, else the connector's.
fn granted<'a>(base: &'a [Text], grant: &'a Grant) -> Vec<&'a str> {
    match &grant.scopes {
        Some(s) => s.iter().map(String::as_str).collect(),
        None => base.iter().map(Text::as_str).collect(),
    }
}

/// `scopes` without the connector's (`base`), each once, in a stable order.
fn beyond<'a>(base: &[Text], scopes: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut more: Vec<String> = scopes
        .filter(|s| !base.iter().any(|b| same_scope(b, s)))
        .map(str::to_string)
        .collect();
    more.sort_by_key(|s| s.to_ascii_lowercase());
    more.dedup_by(|a, b| same_scope(a, b));
    more
}

/// One scope as asked and as granted: compared without case (Entra's are case-insensitive),
/// and a name granted with its resource's URL (`https://graph.microsoft.com/Mail.Send`) is the
/// name asked for without it (`Mail.Send`), and the other way round.
fn same_scope(a: &str, b: &str) -> bool {
    let suffix = |long: &str, short: &str| {
        long.len() > short.len()
            && long[long.len() - short.len()..].eq_ignore_ascii_case(short)
            && long[..long.len() - short.len()].ends_with('/')
    };
    a.eq_ignore_ascii_case(b) || suffix(a, b) || suffix(b, a)
}

/// The scopes `grant` holds beyond the connector's (`base`), to ask for again when it ends.
pub(super) fn kept(base: &[Text], grant: &Grant) -> Vec<String> {
    beyond(base, granted(base, grant).into_iter())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_match_without_case_and_with_or_without_the_resource() {
        assert!(same_scope("Mail.Send", "mail.send"));
        assert!(same_scope(
            "https://graph.microsoft.com/Mail.Send",
            "Mail.Send"
        ));
        assert!(same_scope(
            "Mail.Send",
            "https://graph.microsoft.com/mail.send"
        ));
        assert!(!same_scope("Mail.SendAs", "Mail.Send"));
        assert!(!same_scope("xMail.Send", "Mail.Send"));
        assert!(!same_scope(
            "https://www.googleapis.com/auth/gmail.send",
            "gmail.readonly"
        ));
    }
}
