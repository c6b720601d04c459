//! What the vault keeps and how an entry is named, as plain data: the person (our issuer and
//! their subject), the entry's key (person, connector, scopes) and the grant (the upstream's
//! tokens). A key can only be made whole, so nothing is ever looked up by less than all four.

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::VaultError;

/// The longest issuer, subject, connector or scope taken (bounded work for any token's claims).
pub(crate) const MAX_PART: usize = 512;
/// The most scopes one entry names: as many as a catalog may ask for.
pub(crate) const MAX_SCOPES: usize = catalog::MAX_SCOPES;

/// A person as our authorization server names them: its issuer and their subject.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Person {
    issuer: String,
    subject: String,
}

impl Person {
    /// Both parts are required; an API key without a person has none to give.
    pub fn new(issuer: &str, subject: &str) -> Result<Person, VaultError> {
        Ok(Person {
            issuer: part("issuer", issuer)?,
            subject: part("subject", subject)?,
        })
    }

    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The person's id in the store and in KMS's encryption context: SHA-256 over issuer and
    /// subject (length-prefixed, so no two pairs share one), lower-case hex. It names nobody in
    /// CloudTrail or a table scan.
    pub fn id(&self) -> String {
        let mut h = Sha256::new();
        for p in [&self.issuer, &self.subject] {
            h.update((p.len() as u64).to_be_bytes());
            h.update(p.as_bytes());
        }
        hex(&h.finalize())
    }
}

impl fmt::Debug for Person {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Person({})", &self.id()[..12])
    }
}

/// One vault entry's key: (our issuer, the person's subject, connector, scopes).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct EntryKey {
    person: Person,
    connector: String,
    scopes: Vec<String>,
}

impl EntryKey {
    /// The scopes are a set: order and repeats do not make another entry.
    pub fn new<S: AsRef<str>>(
        person: Person,
        connector: &str,
        scopes: impl IntoIterator<Item = S>,
    ) -> Result<EntryKey, VaultError> {
        let connector = part("connector", connector)?;
        let mut list = Vec::new();
        for s in scopes {
            let s = s.as_ref().trim();
            if s.is_empty() {
                continue;
            }
            if s.len() > MAX_PART || s.contains(char::is_whitespace) {
                return Err(VaultError::Key("a scope is one word of at most 512 bytes"));
            }
            list.push(s.to_string());
            if list.len() > MAX_SCOPES {
                return Err(VaultError::Key("at most 32 scopes"));
            }
        }
        list.sort();
        list.dedup();
        Ok(EntryKey {
            person,
            connector,
            scopes: list,
        })
    }

    pub fn person(&self) -> &Person {
        &self.person
    }

    pub fn connector(&self) -> &str {
        &self.connector
    }

    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// The entry within its person's partition: `<connector>#<scopes, space-separated>`.
    pub fn slot(&self) -> String {
        format!("{}#{}", self.connector, self.scopes.join(" "))
    }

    /// What a sealed grant is bound to (AES-GCM's associated data): a sealed grant moved to
    /// another person's or connector's entry does not open.
    pub fn binding(&self) -> Vec<u8> {
        format!("hosted-mcp-vault/1\n{}\n{}", self.person.id(), self.slot()).into_bytes()
    }
}

impl fmt::Debug for EntryKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EntryKey({:?}, {})", self.person, self.slot())
    }
}

/// What the upstream's token endpoint granted. Its `Debug` shows no token.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    pub access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Unix seconds; `None` when the upstream did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted (the token answer's `scope`, else those asked for); `None` for a
    /// grant stored before scopes were kept, which holds the connector's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<String>>,
}

impl fmt::Debug for Grant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Grant")
            .field("access_token", &"[redacted]")
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "[redacted]"),
            )
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .finish()
    }
}

/// An entry as stored: the grant, its version (every write adds one; a refresh replaces only
/// the version it read) and a refresh in progress elsewhere (until when, Unix seconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub grant: Grant,
    pub version: u64,
    pub refreshing_until: Option<u64>,
}

/// One of a person's connections as the list shows it: no token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Connection {
    pub connector: String,
    pub scopes: Vec<String>,
    /// When the access token expires (Unix seconds), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// When the person connected (Unix seconds).
    pub connected_at: u64,
}

impl Connection {
    /// With the scopes its grant holds, where they are known (they may be more than the
    /// slot's, after incremental consent, or fewer, when some were not allowed).
    pub fn holding<'a>(mut self, granted: Option<impl Iterator<Item = &'a str>>) -> Self {
        if let Some(g) = granted {
            self.scopes = g.map(str::to_string).collect();
        }
        self
    }

    /// Reads a slot back (`<connector>#<scopes>`).
    pub fn from_slot(slot: &str, expires_at: Option<u64>, connected_at: u64) -> Option<Self> {
        let (connector, scopes) = slot.split_once('#')?;
        Some(Connection {
            connector: connector.to_string(),
            scopes: scopes.split_whitespace().map(str::to_string).collect(),
            expires_at,
            connected_at,
        })
    }
}

fn part(what: &'static str, value: &str) -> Result<String, VaultError> {
    if value.is_empty() {
        return Err(VaultError::Key(match what {
            "issuer" => "no issuer",
            "subject" => "no subject",
            _ => "no connector",
        }));
    }
    if value.len() > MAX_PART || value.chars().any(char::is_control) {
        return Err(VaultError::Key(
            "a key part is over 512 bytes or holds control characters",
        ));
    }
    // `#` separates the connector from the scopes in a slot.
    if what == "connector" && value.contains('#') {
        return Err(VaultError::Key("a connector name holds no `#`"));
    }
    Ok(value.to_string())
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(sub: &str) -> Person {
        Person::new("https://id.example", sub).unwrap()
    }

    #[test]
    fn scopes_are_a_set_and_every_part_is_required() {
        let a = EntryKey::new(person("alice"), "mail", ["read", "send", "read"]).unwrap();
        let b = EntryKey::new(person("alice"), "mail", ["send", "read"]).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.slot(), "mail#read send");
        assert_ne!(a, EntryKey::new(person("alice"), "mail", ["read"]).unwrap());
        assert!(Person::new("", "alice").is_err());
        assert!(Person::new("https://id.example", "").is_err());
        assert!(EntryKey::new(person("alice"), "", ["read"]).is_err());
        assert!(EntryKey::new(person("alice"), "a#b", ["read"]).is_err());
        assert!(EntryKey::new(person("alice"), "mail", ["x".repeat(600)]).is_err());
    }

    #[test]
    fn people_of_two_issuers_or_subjects_never_share_an_id() {
        let ids = [
            Person::new("https://a", "bc").unwrap().id(),
            Person::new("https://ab", "c").unwrap().id(),
            Person::new("https://a", "bd").unwrap().id(),
            Person::new("https://b", "bc").unwrap().id(),
        ];
        for (i, a) in ids.iter().enumerate() {
            assert_eq!(a.len(), 64);
            for b in &ids[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn debug_output_shows_no_token_and_no_subject() {
        let g = Grant {
            access_token: "at-secret".into(),
            refresh_token: Some("rt-secret".into()),
            expires_at: Some(5),
            scopes: None,
        };
        let text = format!(
            "{g:?} {:?}",
            EntryKey::new(person("alice@example.com"), "mail", ["r"]).unwrap()
        );
        assert!(
            !text.contains("secret") && !text.contains("alice"),
            "{text}"
        );
    }

    #[test]
    fn a_slot_reads_back_as_a_connection() {
        let c = Connection::from_slot("mail#read send", Some(9), 3).unwrap();
        assert_eq!(c.connector, "mail");
        assert_eq!(c.scopes, ["read", "send"]);
        assert!(Connection::from_slot("noslot", None, 0).is_none());
    }
}
