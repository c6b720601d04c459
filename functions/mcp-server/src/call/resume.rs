//! No silent gaps: a list page cut to fit the output cap continues exactly where it was cut.
//!
//! The cut result carries a sealed `next_cursor` meaning "this page again, without its first
//! K items" ([`Resume`]): the page's number and size, and for a list paged by cursor the cursor
//! that reached it. The next call reads that upstream page again and shows the items after K
//! (cut again if need be, with a new cursor). A numbered page reached that way points on with a
//! cursor to the next page, so a model that keeps passing `next_cursor` never mixes it with
//! `page`; a list paged by cursor goes on with the upstream's own next cursor.
//!
//! Why a cursor and not a smaller page size: the rest of a page starts at an offset no page
//! size need divide (item 74 of a page of 100), and lists paged by an upstream cursor have no
//! offset at all. Re-reading the page costs one upstream request per cut and is exact as long
//! as the upstream's order holds between the calls (records added in between move any paging).
//!
//! The seal is made like the next-URL cursors' (the deployment's confirmation keys, under its
//! own label), over the tool, the call's other arguments and the position; without keys no
//! cursor is handed out and the hint says the rest of the page is not reachable this way.

use serde_json::Value;

use super::outcome::Outcome;
use super::shape;
use crate::contract::args::{ListOptions, ValidArgs};
use crate::contract::cursor::{Cursor, MAX_CURSOR, Resume};
use crate::upstream::seal_resume;
use catalog::Status;

/// A list call's position, to hand out where the rest of its page is.
pub(super) struct Continuation<'a> {
    tool: &'a str,
    arguments: String,
    list: &'a ListOptions,
    /// The list pages by cursor (its pages have no number to point on with).
    by_cursor: bool,
    keys: &'a [Vec<u8>],
}

impl<'a> Continuation<'a> {
    /// For a list call (none for other calls and counts).
    pub(super) fn of(
        tool: &'a str,
        valid: &'a ValidArgs,
        by_cursor: bool,
        keys: &'a [Vec<u8>],
    ) -> Option<Self> {
        let list = valid.list.as_ref().filter(|l| !l.count_only)?;
        Some(Continuation {
            tool,
            arguments: valid.arguments_text(),
            list,
            by_cursor,
            keys,
        })
    }

    /// The sealed cursor to `skip` items into `page` (the page's own upstream cursor for lists
    /// paged by cursor).
    fn cursor(&self, page: u32, skip: u32, at: Option<&Cursor>) -> Option<String> {
        let mut resume = Resume {
            page,
            page_size: self.list.page_size,
            at: at.cloned().map(Box::new),
            skip,
            seal: String::new(),
        };
        resume.seal = seal_resume(self.keys, self.tool, &self.arguments, &resume)?;
        // One the argument check would refuse (an upstream cursor near the limit, wrapped) is
        // no way on.
        Some(Cursor::Resume(resume).encode()).filter(|c| c.len() <= MAX_CURSOR)
    }

    /// A numbered page reached by a cut page's cursor points on with a cursor too, so a model
    /// following `next_cursor` never needs to mix it with `page`.
    fn points_on(&self) -> bool {
        self.list.resumed.is_some() && !self.by_cursor
    }
}

/// The hint of a page with more behind it that [`mark`] points on from.
const MORE: &str =
    "More results: call again with the same arguments and cursor set to next_cursor.";

/// Cuts a list page to `max_bytes` as it is sent: measured with the cursor to its rest (or to
/// the next page) in it, so the cursor never costs an item that would have fitted, nor pushes
/// the result over the limit. Anything else is cut by `shape::cap`. Returns whether it cut.
pub(super) fn cap(outcome: &mut Outcome, max_bytes: usize, c: &Continuation<'_>) -> bool {
    let before = match outcome.fields.get("items") {
        Some(Value::Array(items)) if outcome.status == Status::Ok && !items.is_empty() => {
            items.len()
        }
        _ => return shape::cap(outcome, max_bytes),
    };
    mark(outcome, before, c);
    if sent(outcome) <= max_bytes {
        return false;
    }
    let Some(Value::Array(items)) = outcome.fields.remove("items") else {
        unreachable!("checked above")
    };
    let links = std::mem::take(&mut outcome.links);
    outcome.truncated = true;
    // Each item's bytes with its record link, and the answer around them with one item shown
    // (the cursor and hint of a cut), measured once; the count that fits is then checked as
    // sent, and one fewer until it fits (the skip's digits can grow the cursor a little).
    let mut link_of = vec![0; before];
    for l in &links {
        if let Some(slot) = link_of.get_mut(l.index) {
            *slot += shape::link_size(l);
        }
    }
    let sizes: Vec<usize> = items
        .iter()
        .zip(&link_of)
        .map(|(i, link)| shape::size(i) + 1 + link)
        .collect();
    let mut used = show(outcome, &items, &links, 1, c).saturating_sub(sizes[0]);
    let mut kept = sizes
        .iter()
        .take_while(|s| {
            used += *s;
            used <= max_bytes
        })
        .count();
    while show(outcome, &items, &links, kept, c) > max_bytes && kept > 0 {
        kept -= 1;
    }
    true
}

/// Puts the first `kept` of a page's `items` and their links in the outcome, marked as
/// [`mark`] does; the result's size as sent.
fn show(
    outcome: &mut Outcome,
    items: &[Value],
    links: &[super::ItemLink],
    kept: usize,
    c: &Continuation<'_>,
) -> usize {
    outcome
        .fields
        .insert("items".into(), Value::Array(items[..kept].to_vec()));
    outcome.links = links.iter().filter(|l| l.index < kept).cloned().collect();
    mark(outcome, items.len(), c);
    sent(outcome)
}

/// A result's size as sent: its JSON and its record links.
fn sent(outcome: &Outcome) -> usize {
    shape::size(&outcome.to_json()) + outcome.links.iter().map(shape::link_size).sum::<usize>()
}

/// A cut list page gets the cursor to its first item not shown; a numbered page that was itself
/// reached by such a cursor and has more gets the cursor to the next page. `before` is how many
/// items the page had before the cut.
fn mark(outcome: &mut Outcome, before: usize, c: &Continuation<'_>) {
    if outcome.status != Status::Ok {
        return;
    }
    let Some(kept) = outcome
        .fields
        .get("items")
        .and_then(Value::as_array)
        .map(Vec::len)
    else {
        return;
    };
    let list = c.list;
    if outcome.truncated && kept < before {
        let cut = format!("Result cut to {kept} of {before} items to fit the output limit.");
        let skip = list.skip() + kept;
        let cursor = u32::try_from(skip)
            .ok()
            .filter(|_| kept > 0)
            .and_then(|skip| c.cursor(list.page, skip, list.cursor.as_ref()));
        outcome.fields.insert("has_more".into(), true.into());
        outcome.fields.remove("next_cursor");
        outcome.hint = Some(match cursor {
            Some(cursor) => {
                outcome.fields.insert("next_cursor".into(), cursor.into());
                format!(
                    "{cut} For the rest: call again with the same arguments and cursor set to \
                     next_cursor. Or narrow it: fewer fields=[…], a filter, count_only=true."
                )
            }
            None if kept == 0 => format!(
                "{cut} One item alone is over the limit: ask for fewer fields=[…] or use the \
                 tool that reads one record."
            ),
            None => format!(
                "{cut} The rest of this page has no cursor here (no key to seal one, or the \
                 upstream's own cursor is too long): call again with a smaller page_size, fewer \
                 fields=[…] or a filter."
            ),
        });
        return;
    }
    let more = outcome.fields.get("has_more") == Some(&Value::Bool(true));
    if more
        && c.points_on()
        && let Some(cursor) = c.cursor(list.page + 1, 0, None)
    {
        outcome.fields.insert("next_cursor".into(), cursor.into());
        outcome.hint = Some(MORE.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn page(n: usize) -> Outcome {
        let items: Vec<Value> = (1..=n)
            .map(|i| json!({"id": i, "text": "y".repeat(100)}))
            .collect();
        let fields = json!({"items": items, "page": 1, "page_size": n, "has_more": false});
        Outcome::ok(fields.as_object().unwrap().clone())
    }

    fn valid(page_size: u32) -> ValidArgs {
        ValidArgs {
            list: Some(ListOptions {
                page: 1,
                page_size,
                fields: None,
                count_only: false,
                cursor: None,
                resumed: None,
            }),
            ..ValidArgs::default()
        }
    }

    const KEYS: &[Vec<u8>] = &[];

    #[test]
    fn a_cut_page_keeps_what_fits_beside_its_cursor_and_stays_within_the_limit() {
        let keys = vec![b"a-key-0123456789abcdef".to_vec()];
        let valid = valid(40);
        let c = Continuation::of("t_things_list", &valid, false, &keys).unwrap();
        for max in [1024, 2048, 4096] {
            let mut o = page(40);
            assert!(cap(&mut o, max, &c));
            let sent = shape::size(&o.to_json());
            assert!(sent <= max, "{max}: {sent}");
            let kept = o.fields["items"].as_array().unwrap().len();
            assert!(kept > 0, "{max}");
            // One more item (about 125 bytes) would not have fitted.
            assert!(sent + 125 > max, "{max}: {sent} with {kept} items");
            assert_eq!(o.fields["has_more"], json!(true));
            let Ok(Cursor::Resume(r)) = Cursor::decode(o.fields["next_cursor"].as_str().unwrap())
            else {
                panic!("{o:?}")
            };
            assert_eq!((r.page, r.page_size, r.skip), (1, 40, kept as u32));
        }
    }

    #[test]
    fn without_keys_a_cut_page_says_how_to_reach_the_rest_and_a_whole_one_is_untouched() {
        let valid = valid(40);
        let c = Continuation::of("t_things_list", &valid, false, KEYS).unwrap();
        let mut o = page(40);
        assert!(cap(&mut o, 2048, &c));
        assert!(o.fields.get("next_cursor").is_none());
        assert!(o.hint.unwrap().contains("smaller page_size"));
        let mut whole = page(3);
        let before = whole.clone();
        assert!(!cap(&mut whole, 2048, &c));
        assert_eq!(whole, before);
    }
}
