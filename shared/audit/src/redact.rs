//! Scrubbing secrets and e-mail addresses out of free text before it is logged.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, LazyLock, PoisonError, RwLock};

use regex_lite::{Captures, Regex};

/// Replacement for secrets, tokens and credential values.
pub const REDACTED: &str = "[REDACTED]";
/// Replacement for e-mail addresses.
pub const EMAIL: &str = "[EMAIL]";

/// Registered secrets shorter than this are ignored: they would shred ordinary words.
const MIN_SECRET_CHARS: usize = 6;

/// `key=value`, `key: value` and JSON `"key":"value"` (also inside an escaped JSON string, as in
/// a JSON log line's message) where the key ends in a credential-ish word, so `client_secret`,
/// `refresh_token` and `X-Api-Key` are covered too. Brackets are excluded from bare values so
/// redacting twice changes nothing.
static KEY_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)(\b[\w-]*?(?:authorization|api[_-]?key|token|password|secret))",
        r#"(\\?"?\s*[:=]\s*)"#,
        r#"(?:(\\"[^"\\]*\\")|("(?:[^"\\]|\\.)*")|('[^']*')"#,
        r#"|((?:(?:bearer|basic)\s+)?[^\s,;&"'\\\[\]{}()<>]+))"#,
    ))
    .expect("KEY_VALUE is a valid regex")
});

/// `Bearer <token>` / `Basic <base64>` anywhere, case-insensitive.
static AUTH_SCHEME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9\-._~+/]+=*")
        .expect("AUTH_SCHEME is a valid regex")
});

static EMAIL_ADDRESS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
        .expect("EMAIL_ADDRESS is a valid regex")
});

/// Redacts credentials and e-mail addresses from log text. Cheap to clone; clones share the
/// registered secrets, so a secret added after start-up protects every clone.
#[derive(Clone, Default)]
pub struct Redactor {
    /// Longest first, so a secret containing another is replaced whole.
    secrets: Arc<RwLock<Vec<String>>>,
}

impl Redactor {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers an exact value to redact wherever it appears (an upstream token, an API key).
    /// Surrounding whitespace is ignored; values shorter than 6 characters are ignored.
    pub fn add_secret(&self, value: &str) {
        let value = value.trim();
        if value.chars().count() < MIN_SECRET_CHARS {
            return;
        }
        let mut secrets = self.secrets.write().unwrap_or_else(PoisonError::into_inner);
        if !secrets.iter().any(|s| s == value) {
            secrets.push(value.to_owned());
            secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        }
    }

    /// `text` with registered secrets, `Bearer`/`Basic` credentials and credential-named values
    /// replaced by `[REDACTED]` and e-mail addresses by `[EMAIL]`. Borrows when nothing matched.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        {
            let secrets = self.secrets.read().unwrap_or_else(PoisonError::into_inner);
            for secret in secrets.iter() {
                if out.contains(secret.as_str()) {
                    out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
                }
            }
        }
        // Key/value first: it swallows a whole `authorization: Bearer x` value.
        let out = chain(out, redact_key_values);
        let out = chain(out, redact_auth_schemes);
        chain(out, redact_emails)
    }
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self
            .secrets
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        f.debug_struct("Redactor")
            .field("secrets", &format_args!("<{count} hidden>"))
            .finish()
    }
}

fn chain<'a>(text: Cow<'a, str>, step: fn(&str) -> Cow<'_, str>) -> Cow<'a, str> {
    match text {
        Cow::Borrowed(borrowed) => step(borrowed),
        Cow::Owned(owned) => match step(&owned) {
            Cow::Borrowed(_) => Cow::Owned(owned),
            Cow::Owned(changed) => Cow::Owned(changed),
        },
    }
}

fn redact_key_values(text: &str) -> Cow<'_, str> {
    KEY_VALUE.replace_all(text, |caps: &Captures<'_>| {
        let value = if caps.get(3).is_some() {
            format!(r#"\"{REDACTED}\""#)
        } else if caps.get(4).is_some() {
            format!(r#""{REDACTED}""#)
        } else if caps.get(5).is_some() {
            format!("'{REDACTED}'")
        } else {
            REDACTED.to_owned()
        };
        format!("{}{}{value}", &caps[1], &caps[2])
    })
}

fn redact_auth_schemes(text: &str) -> Cow<'_, str> {
    // Keeps the scheme word so the line still says which kind of credential was involved.
    AUTH_SCHEME.replace_all(text, "${1}${2}[REDACTED]")
}

fn redact_emails(text: &str) -> Cow<'_, str> {
    EMAIL_ADDRESS.replace_all(text, EMAIL)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redact(text: &str) -> String {
        Redactor::new().redact(text).into_owned()
    }

    #[test]
    fn text_without_secrets_is_borrowed_unchanged() {
        let text = "tool call finished in 12 ms with status ok";
        assert!(matches!(Redactor::new().redact(text), Cow::Borrowed(t) if t == text));
    }

    #[test]
    fn registered_secret_is_redacted_everywhere() {
        let redactor = Redactor::new();
        redactor.add_secret("s3cr3t-upstream-value");
        let out =
            redactor.redact("url=https://x/?q=s3cr3t-upstream-value and s3cr3t-upstream-value");
        assert_eq!(out, "url=https://x/?q=[REDACTED] and [REDACTED]");
    }

    #[test]
    fn secret_added_to_a_clone_protects_the_original() {
        let redactor = Redactor::new();
        redactor.clone().add_secret("late-loaded-key");
        assert_eq!(redactor.redact("x late-loaded-key y"), "x [REDACTED] y");
    }

    #[test]
    fn short_secrets_are_ignored() {
        let redactor = Redactor::new();
        redactor.add_secret("abc12");
        redactor.add_secret("  ab  ");
        assert_eq!(redactor.redact("abc12 ab"), "abc12 ab");
    }

    #[test]
    fn longer_secret_containing_a_shorter_one_is_replaced_whole() {
        let redactor = Redactor::new();
        redactor.add_secret("abcdef");
        redactor.add_secret("abcdef-123456");
        assert_eq!(redactor.redact("k abcdef-123456"), "k [REDACTED]");
    }

    #[test]
    fn bearer_and_basic_credentials_are_redacted_case_insensitively() {
        assert_eq!(
            redact("sent Bearer eyJhbGciOi.J9x-y_z upstream"),
            "sent Bearer [REDACTED] upstream"
        );
        assert_eq!(redact("hdr BASIC dXNlcjpwYXNz=="), "hdr BASIC [REDACTED]");
        assert_eq!(redact("bearer abc"), "bearer [REDACTED]");
    }

    #[test]
    fn credential_keys_in_key_value_form_are_redacted() {
        assert_eq!(redact("token=abc123&page=2"), "token=[REDACTED]&page=2");
        assert_eq!(
            redact("api_key=k1 apikey=k2"),
            "api_key=[REDACTED] apikey=[REDACTED]"
        );
        assert_eq!(
            redact("password = hunter2, next"),
            "password = [REDACTED], next"
        );
        assert_eq!(
            redact("access_token='abc def'"),
            "access_token='[REDACTED]'"
        );
        assert_eq!(redact("client_secret=xyz"), "client_secret=[REDACTED]");
    }

    #[test]
    fn credential_headers_are_redacted_including_the_scheme() {
        assert_eq!(
            redact("Authorization: Bearer abc.def next"),
            "Authorization: [REDACTED] next"
        );
        assert_eq!(redact("X-Api-Key: k-123"), "X-Api-Key: [REDACTED]");
        assert_eq!(redact("secret: shh"), "secret: [REDACTED]");
    }

    #[test]
    fn credential_keys_in_json_are_redacted() {
        assert_eq!(
            redact(r#"{"authorization":"Bearer a b","page":1,"token": "t\"q"}"#),
            r#"{"authorization":"[REDACTED]","page":1,"token": "[REDACTED]"}"#
        );
        assert_eq!(redact(r#"{"apiKey":12345}"#), r#"{"apiKey":[REDACTED]}"#);
    }

    #[test]
    fn credential_keys_inside_escaped_json_are_redacted() {
        let line = r#"{"message":"upstream said {\"password\":\"hunter2\"}"}"#;
        assert_eq!(
            redact(line),
            r#"{"message":"upstream said {\"password\":\"[REDACTED]\"}"}"#
        );
    }

    #[test]
    fn words_that_merely_contain_credential_words_are_kept() {
        let text = "tokenizer: fast max_tokens: 100 secretary: Bob token_count=5";
        assert_eq!(redact(text), text);
    }

    #[test]
    fn email_addresses_become_placeholders() {
        assert_eq!(
            redact("user Alice.Smith+mcp@example.co.uk asked; cc bob@x.io"),
            "user [EMAIL] asked; cc [EMAIL]"
        );
    }

    #[test]
    fn redacting_twice_changes_nothing_more() {
        let redactor = Redactor::new();
        redactor.add_secret("registered-secret");
        let text = r#"token=abc Bearer xyz {"password":"p"} a@b.de registered-secret"#;
        let once = redactor.redact(text).into_owned();
        assert_eq!(redactor.redact(&once), once);
    }

    #[test]
    fn debug_output_hides_secrets() {
        let redactor = Redactor::new();
        redactor.add_secret("very-secret-value");
        let debug = format!("{redactor:?}");
        assert!(!debug.contains("very-secret-value"), "{debug}");
        assert!(debug.contains("1 hidden"), "{debug}");
    }

    #[test]
    fn secrets_can_be_added_from_many_threads() {
        let redactor = Redactor::new();
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let redactor = redactor.clone();
                std::thread::spawn(move || redactor.add_secret(&format!("thread-secret-{i}")))
            })
            .collect();
        for handle in handles {
            handle.join().unwrap();
        }
        let out = redactor.redact("thread-secret-0 thread-secret-3");
        assert_eq!(out, "[REDACTED] [REDACTED]");
    }
}
