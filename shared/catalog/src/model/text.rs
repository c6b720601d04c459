//! [`Text`], the catalog's string: read from a catalog file it owns its text; deserialized from a
//! model JSON that lives as long as the program (the catalogs compiled into the binary), it
//! borrows from that JSON instead of copying. A cold start then allocates nothing for the
//! catalogs' ~3,200 strings (names, descriptions, field lists); only strings with JSON escapes are
//! copied.
//!
//! Which input may be borrowed from is set around one deserialization ([`borrowing_from`]): a
//! string the JSON deserializer hands out is borrowed only when it lies inside that `'static`
//! text, and then it is taken as a slice of that text itself, so no lifetime is stretched.

use std::borrow::{Borrow, Cow};
use std::cell::Cell;
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

thread_local! {
    /// The `'static` input being deserialized on this thread, or empty.
    static SOURCE: Cell<&'static str> = const { Cell::new("") };
}

/// Runs `f` (a deserialization of `source`) with [`Text`]s borrowing from `source` where the
/// deserializer hands out a slice of it.
pub(crate) fn borrowing_from<R>(source: &'static str, f: impl FnOnce() -> R) -> R {
    struct Restore(&'static str);
    impl Drop for Restore {
        fn drop(&mut self) {
            SOURCE.set(self.0);
        }
    }
    let _restore = Restore(SOURCE.replace(source));
    f()
}

/// `part` as a slice of the current source, when it lies inside it.
fn within_source(part: &str) -> Option<&'static str> {
    let source = SOURCE.get();
    let start = (part.as_ptr() as usize).checked_sub(source.as_ptr() as usize)?;
    source.get(start..start.checked_add(part.len())?)
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> serde::de::Visitor<'de> for TextVisitor {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Text, E> {
                Ok(within_source(v).map_or_else(|| Text::from(v), Text::from_static))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Text, E> {
                Ok(Text::from(v))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Text, E> {
                Ok(Text::from(v))
            }
        }
        deserializer.deserialize_str(TextVisitor)
    }
}

impl Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
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
    fn strings_inside_the_static_source_are_borrowed_others_copied() {
        static JSON: &str = r#"["plain", "with \"escape\"", "plain"]"#;
        let texts: Vec<Text> = borrowing_from(JSON, || serde_json::from_str(JSON)).unwrap();
        assert_eq!(texts, ["plain", "with \"escape\"", "plain"]);
        assert!(matches!(texts[0].0, Cow::Borrowed(s) if std::ptr::eq(s, &JSON[2..7])));
        assert!(
            matches!(texts[1].0, Cow::Owned(_)),
            "an escaped string is unescaped, so copied"
        );
        assert!(matches!(texts[2].0, Cow::Borrowed(_)));

        // The same text from an input that is not the source: copied, and the source is unset
        // again after `borrowing_from`.
        let transient = JSON.to_owned();
        let copied: Vec<Text> = serde_json::from_str(&transient).unwrap();
        assert_eq!(copied, texts);
        assert!(copied.iter().all(|t| matches!(t.0, Cow::Owned(_))));
        let elsewhere: Vec<Text> =
            borrowing_from(JSON, || serde_json::from_str(&transient)).unwrap();
        assert!(elsewhere.iter().all(|t| matches!(t.0, Cow::Owned(_))));
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
