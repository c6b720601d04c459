//! [`Text`], the catalog's string: read from a catalog file it owns its text; unpacked from a
//! model the program holds for its whole run (the catalogs compiled into the binary), it
//! borrows instead of copying. A cold start then allocates nothing for the catalogs' ~3,200
//! strings (names, descriptions, field lists).
//!
//! Packed ([`crate::pack`]), a catalog is two parts: the model in MessagePack, in which each
//! text is a span (start and length) of the other part, the catalog's string table, one `str`
//! of all its texts. Compiled in, the table is a `&'static str` whose UTF-8 the compiler
//! checked, so unpacking a text is a bounds check and a slice of it: no scan, no copy, no
//! second UTF-8 check. The table is set around one packing or unpacking on this thread
//! ([`packing`], [`unpacking`]).

use std::borrow::{Borrow, Cow};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

/// A string of the catalog model: compares, hashes, orders, prints and serializes as its `str`.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text(Cow<'static, str>);

impl Text {
    /// A text that borrows a string the program holds for its whole run.
    pub const fn from_static(text: &'static str) -> Self {
        Text(Cow::Borrowed(text))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Without leading and trailing whitespace; a borrowed text stays borrowed.
    pub fn trimmed(&self) -> Text {
        match &self.0 {
            Cow::Borrowed(text) => Text::from_static(text.trim()),
            Cow::Owned(text) => Text::from(text.trim()),
        }
    }
}

/// The string table a packing writes: the texts so far, each once, and where each starts.
#[derive(Default)]
struct TableOut {
    table: String,
    spans: HashMap<String, u64>,
}

thread_local! {
    /// The table of the packing running on this thread, if one is.
    static TABLE_OUT: RefCell<Option<TableOut>> = const { RefCell::new(None) };
    /// The table of the unpacking running on this thread, if one is.
    static TABLE_IN: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// Runs `f` (a serialization to a packed form) with each [`Text`] written to a string table as
/// a span of it; returns `f`'s result and the table.
pub(crate) fn packing<R>(f: impl FnOnce() -> R) -> (R, String) {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            TABLE_OUT.set(None);
        }
    }
    let _reset = Reset;
    TABLE_OUT.set(Some(TableOut::default()));
    let result = f();
    let table = TABLE_OUT.take().map(|t| t.table).unwrap_or_default();
    (result, table)
}

/// Runs `f` (a deserialization of a packed model) with its texts' spans read from `table`.
pub(crate) fn unpacking<R>(table: &'static str, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<&'static str>);
    impl Drop for Restore {
        fn drop(&mut self) {
            TABLE_IN.set(self.0);
        }
    }
    let _restore = Restore(TABLE_IN.replace(Some(table)));
    f()
}

/// A span as one number: the start in the high 32 bits, the length in the low.
fn span(start: usize, len: usize) -> Option<u64> {
    Some(u64::from(u32::try_from(start).ok()?) << 32 | u64::from(u32::try_from(len).ok()?))
}

/// The span of `text` in the table being packed (added when new), if a packing runs.
fn packed_span(text: &str) -> Option<Result<u64, &'static str>> {
    TABLE_OUT.with_borrow_mut(|out| {
        let out = out.as_mut()?;
        if let Some(&span) = out.spans.get(text) {
            return Some(Ok(span));
        }
        let Some(new) = span(out.table.len(), text.len()) else {
            return Some(Err("a catalog's string table holds at most 4 GiB"));
        };
        out.table.push_str(text);
        out.spans.insert(text.to_owned(), new);
        Some(Ok(new))
    })
}

/// Text reads as a string from a human-readable format (YAML, JSON); from a packed one as the
/// span of the string table set for the unpacking (or a string, copied).
impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> serde::de::Visitor<'de> for TextVisitor {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string, or a span of the catalog's string table")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Text, E> {
                Ok(Text::from(v))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Text, E> {
                Ok(Text::from(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Text, E> {
                let (start, len) = ((v >> 32) as usize, (v & u64::from(u32::MAX)) as usize);
                TABLE_IN
                    .get()
                    .and_then(|table| table.get(start..start.checked_add(len)?))
                    .map(Text::from_static)
                    .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
        }
        if deserializer.is_human_readable() {
            deserializer.deserialize_str(TextVisitor)
        } else {
            deserializer.deserialize_any(TextVisitor)
        }
    }
}

impl Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !serializer.is_human_readable() {
            match packed_span(self) {
                Some(Ok(span)) => return serializer.serialize_u64(span),
                Some(Err(too_large)) => return Err(serde::ser::Error::custom(too_large)),
                None => {}
            }
        }
        serializer.serialize_str(self)
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<String> for Text {
    fn from(text: String) -> Self {
        Text(Cow::Owned(text))
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Self {
        Text(Cow::Owned(text.to_owned()))
    }
}

/// For APIs that take `Cow<'static, str>` (rmcp's names and descriptions): a borrowed text
/// stays borrowed.
impl From<Text> for Cow<'static, str> {
    fn from(text: Text) -> Self {
        text.0
    }
}

impl From<Text> for String {
    fn from(text: Text) -> Self {
        text.0.into_owned()
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        *self == *other.0
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        **self == *other.0
    }
}

impl PartialEq<Text> for String {
    fn eq(&self, other: &Text) -> bool {
        **self == *other.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_texts_are_spans_of_one_table_each_text_once_and_unpack_borrowed() {
        let texts = [
            Text::from("plain"),
            Text::from("with \"quotes\" and ümlauts"),
            Text::from("plain"),
        ];
        let (packed, table) = packing(|| rmp_serde::to_vec(&texts));
        let packed = packed.unwrap();
        assert_eq!(table, "plainwith \"quotes\" and ümlauts");
        let table: &'static str = table.leak();
        let read: Vec<Text> = unpacking(table, || rmp_serde::from_slice(&packed)).unwrap();
        assert_eq!(read, texts);
        assert!(read.iter().all(|t| matches!(t.0, Cow::Borrowed(_))));
        assert!(std::ptr::eq(read[0].as_str(), &table[..5]));

        // Without a table, or with a span outside it (or off a character boundary): an error.
        let err = rmp_serde::from_slice::<Vec<Text>>(&packed).unwrap_err();
        assert!(
            err.to_string()
                .contains("a span of the catalog's string table"),
            "{err}"
        );
        for bad in [span(0, table.len() + 1), span(table.len(), 1), span(24, 2)] {
            let bad = rmp_serde::to_vec(&bad.unwrap()).unwrap();
            let err = unpacking(table, || rmp_serde::from_slice::<Text>(&bad)).unwrap_err();
            assert!(err.to_string().contains("string table"), "{err}");
        }
        // Outside a packing, a packed form carries the string itself (copied when read).
        let plain = rmp_serde::to_vec(&texts[1]).unwrap();
        let copied: Text = unpacking(table, || rmp_serde::from_slice(&plain)).unwrap();
        assert!(matches!(copied.0, Cow::Owned(_)) && copied == texts[1]);
    }

    #[test]
    fn a_text_looks_like_its_str() {
        let text = Text::from("a \"b\"");
        assert_eq!(format!("{text} {text:?}"), r#"a "b" "a \"b\"""#);
        assert_eq!(serde_json::to_string(&text).unwrap(), r#""a \"b\"""#);
        let map: std::collections::BTreeMap<Text, u8> = [(Text::from_static("k"), 1)].into();
        assert_eq!(map.get("k"), Some(&1));
        let padded = Text::from_static(" a b\n");
        assert!(matches!(padded.trimmed().0, Cow::Borrowed("a b")));
        assert_eq!(Text::from(" a b\n").trimmed(), "a b");
    }
}
