//! Writes need evidence beyond their verb. A write (risk above `low`) is offered only when the
//! query says what to act on and the tool has it: "schick eine SMS an Herrn Meier" shares only
//! its verb with `papierkram_invoice_send`, and offering a write that does something else is
//! worse than finding nothing. Reads are never held back: a wrong read costs a call, a wrong
//! write acts on someone's account.
//!
//! The rule, per write the ranking found (and per write named as closest when nothing matched):
//! - the query's action words (`ACTION_WORDS`: send, delete, schicken, löschen…, and number
//!   words, which are arguments like digits) are no evidence; the rest are its content words;
//! - each content word the write has counts 2 when it names the write (its name or its
//!   description's subject) and 1 when the write only mentions it (elsewhere in its description,
//!   a parameter, part of a compound);
//! - the object: that sum is at least 1 and at least the number of content words the write
//!   lacks (those no tool has, "SMS", "Drive", and those only other tools have), so a folder or
//!   a flight beside one of its words is not its object;
//! - the action: a query that names one needs a write that has one of its action words ("delete
//!   my old emails" is no reason to offer a change of a contact's e-mail); a question that names
//!   none is about things, and a write needs two of its words and to name one, or a word at
//!   most three tools have ("kunde ist nicht zum termin erschienen": the no-show).
//!
//! A person's name or an attribute the catalog lacks ("telefonnummer eines kunden ändern")
//! stays one word against the object's one; "lösche den Ordner Projekte in Google Drive" is one
//! mention against three words no tool has.

use super::index::{IN_NAME, IN_SUBJECT, Index};
use super::rank::{Group, Hit};
use super::text::Word;

/// Words that say what to do rather than to what, English and German, as people type them
/// (infinitive, imperative, separable particles), folded (ä → ae) and compared as typed, not by
/// stem: "booking" is what to act on, "book" the action. Verbs that are also nouns stay out where
/// the catalogs use them as nouns: "post" (offene Posten), "order" (order_by), "open" (open
/// invoices), "close" (month close), "draft", "file", "start", "issue".
const ACTION_WORDS: &[&str] = &[
    // English
    "add",
    "append",
    "approve",
    "archive",
    "assign",
    "book",
    "buy",
    "cancel",
    "change",
    "confirm",
    "copy",
    "correct",
    "create",
    "decrease",
    "delete",
    "deliver",
    "edit",
    "enter",
    "erase",
    "fix",
    "increase",
    "insert",
    "invite",
    "log",
    "lower",
    "make",
    "mark",
    "modify",
    "move",
    "new",
    "notify",
    "pay",
    "publish",
    "put",
    "raise",
    "reactivate",
    "record",
    "reduce",
    "register",
    "remove",
    "rename",
    "renew",
    "reopen",
    "replace",
    "reschedule",
    "restore",
    "revoke",
    "save",
    "schedule",
    "send",
    "set",
    "settle",
    "share",
    "stop",
    "submit",
    "track",
    "transfer",
    "unarchive",
    "undo",
    "update",
    "upload",
    "void",
    "write",
    // German
    "ab",
    "abbrechen",
    "abschliessen",
    "absagen",
    "aendere",
    "aendern",
    "aktualisiere",
    "aktualisieren",
    "anlegen",
    "anpassen",
    "archiviere",
    "archivieren",
    "ausliefern",
    "beantragen",
    "bearbeite",
    "bearbeiten",
    "begleiche",
    "begleichen",
    "benenne",
    "benennen",
    "bestaetige",
    "bestaetigen",
    "bestelle",
    "bestellen",
    "bezahle",
    "bezahlen",
    "buche",
    "buchen",
    "einladen",
    "eintragen",
    "entferne",
    "entfernen",
    "erfasse",
    "erfassen",
    "ergaenze",
    "ergaenzen",
    "erhoehe",
    "erhoehen",
    "erinnere",
    "erinnern",
    "erstelle",
    "erstellen",
    "festschreiben",
    "freigeben",
    "fuege",
    "hinzufuegen",
    "hoch",
    "hochladen",
    "kopiere",
    "kopieren",
    "korrigiere",
    "korrigieren",
    "kuendige",
    "kuendigen",
    "lade",
    "laden",
    "lege",
    "loesch",
    "loesche",
    "loeschen",
    "mache",
    "machen",
    "markiere",
    "markieren",
    "neu",
    "neue",
    "neuen",
    "neuer",
    "neues",
    "oeffne",
    "oeffnen",
    "reaktiviere",
    "reaktivieren",
    "sag",
    "sage",
    "schick",
    "schicke",
    "schicken",
    "schreib",
    "schreibe",
    "schreiben",
    "sende",
    "senden",
    "senke",
    "senken",
    "setze",
    "setzen",
    "speichere",
    "speichern",
    "stoppe",
    "stoppen",
    "storniere",
    "stornieren",
    "teile",
    "teilen",
    "trage",
    "ueberweise",
    "ueberweisen",
    "um",
    "umbenennen",
    "umlegen",
    "verbuche",
    "verbuchen",
    "vereinbare",
    "vereinbaren",
    "verlaengere",
    "verlaengern",
    "verschicke",
    "verschicken",
    "verschiebe",
    "verschieben",
    "versende",
    "versenden",
    "weg",
    "wiederherstellen",
    "zurueck",
    "zurueckbuchen",
    "zurueckziehen",
    // Number words: arguments, like the digits the tokeniser drops.
    "acht",
    "drei",
    "eight",
    "eins",
    "five",
    "four",
    "fuenf",
    "neun",
    "nine",
    "one",
    "sechs",
    "seven",
    "sieben",
    "six",
    "ten",
    "three",
    "two",
    "vier",
    "zehn",
    "zwei",
];

/// Points for a content word by where the write has it: named, or only mentioned.
const NAMED: u32 = 2;
const MENTIONED: u32 = 1;
/// A content word at most this many tools have is distinctive: a question without an action
/// may find a write by it alone ("kunde ist nicht zum termin erschienen").
const DISTINCTIVE_UP_TO: usize = 3;

/// Whether a query word says what to do (or is a number) rather than what to act on.
pub(super) fn is_action(word: &Word) -> bool {
    ACTION_WORDS.contains(&word.surface.as_str())
}

/// What the query gives a write to go on: its words' groups split by role.
pub(super) struct Query<'a> {
    actions: Vec<&'a Group>,
    content: Vec<&'a Group>,
}

impl<'a> Query<'a> {
    /// Each query word with what it matches.
    pub(super) fn new<'w>(words: impl IntoIterator<Item = (&'w Word, &'a Group)>) -> Self {
        let (mut actions, mut content) = (Vec::new(), Vec::new());
        for (w, g) in words {
            if is_action(w) {
                actions.push(g);
            } else {
                content.push(g);
            }
        }
        Query { actions, content }
    }
}

/// What one write has of a query.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    /// `NAMED` or `MENTIONED` per content word it has.
    points: u32,
    /// Content words it has, and those it lacks.
    has: usize,
    lacks: usize,
    /// It names one of them; one of them is distinctive.
    named: bool,
    distinctive: bool,
    /// It has one of the query's action words.
    acts: bool,
}

impl Tally {
    fn offered(&self, query: &Query<'_>) -> bool {
        let object = self.points >= 1 && self.points as usize >= self.lacks;
        let action = if query.actions.is_empty() {
            // A question about things: one of several words, or only mentions, is no answer.
            query.content.len() < 2 || (self.has >= 2 && self.named) || self.distinctive
        } else {
            self.acts
        };
        object && action
    }
}

impl Index {
    /// Leaves out the writes `query` gives no evidence for (see the module doc). A search
    /// without words (browsing a connector) keeps them: nothing was matched.
    pub(super) fn drop_unevidenced_writes(&self, hits: &mut Vec<Hit>, query: &Query<'_>) {
        let writes = |h: &Hit| self.docs[h.doc as usize].writes;
        if (query.actions.is_empty() && query.content.is_empty()) || !hits.iter().any(writes) {
            return;
        }
        // Per doc, its place in `tally` (writes among the hits only).
        let mut slot = vec![usize::MAX; self.docs.len()];
        let mut tally: Vec<Tally> = Vec::new();
        for h in hits.iter().filter(|h| writes(h)) {
            slot[h.doc as usize] = tally.len();
            tally.push(Tally::default());
        }
        let mut best = vec![0u32; tally.len()];
        for group in &query.content {
            let distinctive = self.docs_with(group) <= DISTINCTIVE_UP_TO;
            for &(term, weight) in &group.terms {
                for p in &self.postings[term as usize] {
                    let Some(&i) = slot.get(p.doc as usize).filter(|i| **i != usize::MAX) else {
                        continue;
                    };
                    let named = weight == 1.0 && (p.place == IN_NAME || p.place == IN_SUBJECT);
                    best[i] = best[i].max(if named { NAMED } else { MENTIONED });
                }
            }
            for (t, b) in tally.iter_mut().zip(best.iter_mut()) {
                match std::mem::take(b) {
                    0 => t.lacks += 1,
                    points => {
                        t.points += points;
                        t.has += 1;
                        t.named |= points == NAMED;
                        t.distinctive |= distinctive;
                    }
                }
            }
        }
        for group in &query.actions {
            for &(term, _) in &group.terms {
                for p in &self.postings[term as usize] {
                    if let Some(&i) = slot.get(p.doc as usize).filter(|i| **i != usize::MAX) {
                        tally[i].acts = true;
                    }
                }
            }
        }
        hits.retain(|h| {
            let i = slot[h.doc as usize];
            i == usize::MAX || tally[i].offered(query)
        });
    }

    /// How many tools have any of the group's terms.
    fn docs_with(&self, group: &Group) -> usize {
        let mut docs: Vec<u32> = group
            .terms
            .iter()
            .flat_map(|(t, _)| self.postings[*t as usize].iter().map(|p| p.doc))
            .collect();
        docs.sort_unstable();
        docs.dedup();
        docs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Doc;
    use crate::search::fixtures::{all, doc, ranked};
    use crate::search::text::query_words;

    fn write(name: &str, description: &str, params: &[&str]) -> Doc {
        Doc {
            writes: true,
            ..doc(name, "papierkram", description, params)
        }
    }

    fn index() -> Index {
        Index::build(vec![
            write(
                "papierkram_invoice_send",
                "Issues an invoice to the customer (Rechnung versenden, schicken; send).",
                &["id"],
            ),
            write(
                "papierkram_project_delete",
                "Deletes a project for good (löschen; delete). Use it for a Projekt created by \
                 mistake.",
                &["id"],
            ),
            write(
                "papierkram_company_update",
                "Changes a company (ändern; update). Use it for a Kunde: name, e-mail, phone.",
                &["id", "email"],
            ),
            doc(
                "papierkram_projects_list",
                "papierkram",
                "Lists projects (Projekte) with their customer.",
                &["company_id"],
            ),
            doc(
                "papierkram_invoices_list",
                "papierkram",
                "Lists invoices with their totals.",
                &["company_id"],
            ),
            doc(
                "papierkram_invoice_get",
                "papierkram",
                "Returns one invoice.",
                &["id"],
            ),
            doc(
                "papierkram_estimates_list",
                "papierkram",
                "Lists estimates, which become an invoice once accepted.",
                &["company_id"],
            ),
        ])
    }

    #[test]
    fn action_words_are_no_evidence_and_numbers_are_arguments() {
        let words = query_words("schick zwei Rechnungen an Herrn Meier");
        let actions: Vec<&str> = words
            .iter()
            .filter(|w| is_action(w))
            .map(|w| w.raw.as_str())
            .collect();
        assert_eq!(actions, ["schick", "zwei"]);
        for typed in ["lösche", "Löschen", "loeschen", "storniere", "Send", "neue"] {
            let word = &query_words(typed)[0];
            assert!(is_action(word), "{typed}");
        }
        for typed in ["Posten", "booking", "Rechnung", "bezahlt", "paid"] {
            let word = &query_words(typed)[0];
            assert!(!is_action(word), "{typed}");
        }
    }

    #[test]
    fn a_write_sharing_only_the_verb_is_not_offered() {
        let index = index();
        assert_eq!(
            ranked(&index, "schick eine SMS an Herrn Meier", &all),
            Vec::<&str>::new()
        );
        assert_eq!(ranked(&index, "delete", &all), Vec::<&str>::new());
        assert_eq!(
            ranked(&index, "rechnung an den kunden schicken", &all),
            ["papierkram_invoice_send"]
        );
    }

    #[test]
    fn a_write_is_offered_only_when_its_object_outweighs_the_words_it_lacks() {
        let index = index();
        // One mention of "Projekte" against three words no tool has: the read stays.
        assert_eq!(
            ranked(&index, "lösche den Ordner Projekte in Google Drive", &all),
            ["papierkram_projects_list"]
        );
        // The project named against one word it lacks (a project's name).
        assert_eq!(
            ranked(&index, "delete the project Relaunch", &all)[0],
            "papierkram_project_delete"
        );
        // A mentioned customer against an attribute the catalog lacks.
        assert_eq!(
            ranked(&index, "telefonnummer eines kunden ändern", &all),
            ["papierkram_company_update"]
        );
    }

    #[test]
    fn a_query_naming_another_action_is_not_offered_a_write_that_lacks_it() {
        let index = index();
        assert!(
            !ranked(&index, "delete my emails", &all).contains(&"papierkram_company_update"),
            "a change is not a deletion"
        );
        assert_eq!(
            ranked(&index, "update the email of a customer", &all)[0],
            "papierkram_company_update"
        );
    }

    #[test]
    fn a_write_sharing_only_the_verb_is_not_named_closest_either() {
        let index = index();
        let answer = index.search(&crate::search::fixtures::req("schicke eine SMS"), &all);
        assert_eq!(answer.matched, 0, "{}", answer.text);
        assert!(
            !answer.text.contains("papierkram_invoice_send"),
            "{}",
            answer.text
        );
    }

    #[test]
    fn a_question_naming_no_action_needs_more_than_one_shared_word() {
        let index = index();
        let question = ranked(&index, "invoice totals", &all);
        assert_eq!(question[0], "papierkram_invoices_list", "{question:?}");
        assert!(
            !question.contains(&"papierkram_invoice_send"),
            "{question:?}"
        );
        let request = ranked(&index, "send the invoice totals", &all);
        assert!(request.contains(&"papierkram_invoice_send"), "{request:?}");
    }

    #[test]
    fn browsing_without_words_keeps_the_writes() {
        let index = index();
        let browse = crate::search::SearchRequest {
            connector: Some("papierkram".into()),
            ..crate::search::fixtures::req("")
        };
        assert_eq!(index.search(&browse, &all).matched, 7);
    }
}
