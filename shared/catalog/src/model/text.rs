//! [`Text`], the catalog's string: read from a catalog file it owns its text; deserialized from a
//! packed model that lives as long as the program (the catalogs compiled into the binary), it
//! borrows from those bytes instead of copying. A cold start then allocates nothing for the
//! catalogs' ~3,200 strings (names, descriptions, field lists).
//!
//! Which input may be borrowed from is set around one deserialization ([`borrowing_from`]): a
//! string the deserializer hands out is borrowed only when it lies inside those `'static`
//! bytes, and then it is taken as a slice of them itself, so no lifetime is stretched.

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
    static SOURCE: Cell<&'static [u8]> = const { Cell::new(&[]) };
}

/// Runs `f` (a deserialization of `source`) with [`Text`]s borrowing from `source` where the
/// deserializer hands out a slice of it.
pub(crate) fn borrowing_from<R>(source: &'static [u8], f: impl FnOnce() -> R) -> R {
    struct Restore(&'static [u8]);
    impl Drop for Restore {
        fn drop(&mut self) {
            SOURCE.set(self.0);
        }
    }
    let _restore = Restore(SOURCE.replace(source));
    f()
}

/// `part` as a slice of the current source, when it lies inside it.
fn within_source(part: &[u8]) -> Option<&'static [u8]> {
    let source = SOURCE.get();
    let start = (part.as_ptr() as usize).checked_sub(source.as_ptr() as usize)?;
    source.get(start..start.checked_add(part.len())?)
}

/// Text reads as a string from a human-readable format (YAML, JSON) and as bytes from a packed
/// one ([`crate::pack`]): there the packer checks no UTF-8, so each text is checked once, here,
/// whether it is borrowed or copied.
impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl TextVisitor {
            fn utf8<'a, E: serde::de::Error>(&self, v: &'a [u8]) -> Result<&'a str, E> {
                std::str::from_utf8(v)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Bytes(v), self))
            }
        }
        impl<'de> serde::de::Visitor<'de> for TextVisitor {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Text, E> {
                match within_source(v.as_bytes()) {
                    Some(bytes) => self.utf8(bytes).map(Text::from_static),
                    None => Ok(Text::from(v)),
                }
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Text, E> {
                Ok(Text::from(v))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Text, E> {
                Ok(Text::from(v))
            }
            fn visit_borrowed_bytes<E: serde::de::Error>(self, v: &'de [u8]) -> Result<Text, E> {
                match within_source(v) {
                    Some(bytes) => self.utf8(bytes).map(Text::from_static),
                    None => self.utf8(v).map(Text::from),
                }
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Text, E> {
                self.utf8(v).map(Text::from)
            }
        }
        if deserializer.is_human_readable() {
            deserializer.deserialize_str(TextVisitor)
        } else {
            deserializer.deserialize_bytes(TextVisitor)
        }
    }
}

impl Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.serialize_str(self)
        } else {
            serializer.serialize_bytes(self.as_bytes())
        }
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
        let texts: Vec<Text> =
            borrowing_from(JSON.as_bytes(), || serde_json::from_str(JSON)).unwrap();
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
            borrowing_from(JSON.as_bytes(), || serde_json::from_str(&transient)).unwrap();
        assert!(elsewhere.iter().all(|t| matches!(t.0, Cow::Owned(_))));
    }

    #[test]
    fn packed_texts_are_bytes_borrowed_from_the_static_source_and_checked_as_utf8() {
        let texts = [
            Text::from("plain"),
            Text::from("with \"quotes\" and ümlauts"),
        ];
        let packed: &'static [u8] = rmp_serde::to_vec(&texts).unwrap().leak();
        // bin 8 (0xc4) of length 5, not the string marker (0xa5) a `str` would get.
        assert!(
            packed.windows(7).any(|w| w == b"\xc4\x05plain"),
            "{packed:?}"
        );
        let read: Vec<Text> = borrowing_from(packed, || rmp_serde::from_slice(packed)).unwrap();
        assert_eq!(read, texts);
        assert!(read.iter().all(|t| matches!(t.0, Cow::Borrowed(_))));
        let transient = packed.to_vec();
        let copied: Vec<Text> = rmp_serde::from_slice(&transient).unwrap();
        assert_eq!(copied, texts);
        assert!(copied.iter().all(|t| matches!(t.0, Cow::Owned(_))));

        let not_utf8: &'static [u8] = rmp_serde::to_vec(&serde_bytes_of(b"\xff\xfe"))
            .unwrap()
            .leak();
        let err = borrowing_from(not_utf8, || rmp_serde::from_slice::<Text>(not_utf8)).unwrap_err();
        assert!(err.to_string().contains("expected a string"), "{err}");
    }

    /// Bytes that serialize as MessagePack bin, as a packed [`Text`] does.
    fn serde_bytes_of(bytes: &'static [u8]) -> impl Serialize {
        struct Bytes(&'static [u8]);
        impl Serialize for Bytes {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(self.0)
            }
        }
        Bytes(bytes)
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
