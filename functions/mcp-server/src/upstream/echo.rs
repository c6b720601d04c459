//! The credentials one request carried, taken back out of what the upstream answers. An
//! upstream may quote what it was sent (`invalid token <the token>`, a debug echo of the
//! `Authorization` header in a 401 body); whatever it says reaches the model (as
//! `upstream_message`, as data, as a remote's words) and may reach the audit line. The global
//! [`audit::Redactor`] knows the deployment secret's raw values, but not a person's own token
//! (it lives in the vault, one per person), nor the forms a value travels in (a basic
//! credential's base64, a query value's URL encoding). So every answer's bytes are scrubbed of
//! every form of every credential that request carried, for every connector alike, before
//! anything reads them. Pure.

use base64::Engine as _;

use super::credentials::PersonToken;

/// Credential values shorter than this are not looked for: no real credential is this short,
/// and a short basic username (`api`, `X`) would shred ordinary words.
const MIN_CHARS: usize = 6;

/// What a credential is replaced by; no JSON or URL special character, so a JSON answer stays
/// JSON.
const REPLACEMENT: &[u8] = audit::REDACTED.as_bytes();

/// Every form of every credential one request carried, longest first (so a form containing
/// another is replaced whole).
#[derive(Default)]
pub(super) struct Carried {
    forms: Vec<Vec<u8>>,
}

impl std::fmt::Debug for Carried {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Carried(<{} hidden>)", self.forms.len())
    }
}

impl Carried {
    /// The credentials of a request over `auth` with the deployment secret's `field`s, and the
    /// person's own token when it acts for one.
    pub(super) fn of(
        auth: &catalog::Auth,
        field: impl Fn(&str) -> Option<String>,
        person: Option<&PersonToken>,
    ) -> Self {
        let mut values: Vec<String> = Vec::new();
        match auth.credential(&field) {
            Ok(Some(catalog::Credential::Bearer(token))) => values.push(token),
            Ok(Some(catalog::Credential::Header { value, .. })) => values.push(value),
            Ok(Some(catalog::Credential::Query { value, .. })) => values.push(value),
            Ok(Some(catalog::Credential::Basic { username, password })) => {
                let pair = format!("{username}:{}", password.as_deref().unwrap_or(""));
                values.push(base64::engine::general_purpose::STANDARD.encode(pair));
                values.push(username);
                values.extend(password);
            }
            Ok(None) | Err(_) => {}
        }
        // A header template (`Token token={key}`) is echoed as a whole or field by field.
        if let Some(template) = auth.value.as_deref() {
            values.extend(
                catalog::placeholders(template)
                    .into_iter()
                    .filter_map(&field),
            );
        }
        if let Some(token) = person {
            values.push(token.secret().to_string());
        }
        let mut forms: Vec<Vec<u8>> = values
            .iter()
            .map(|v| v.trim())
            .filter(|v| v.chars().count() >= MIN_CHARS)
            .flat_map(forms_of)
            .collect();
        forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        forms.dedup();
        Carried { forms }
    }

    /// `bytes` with every form of every carried credential replaced by `[REDACTED]`.
    pub(super) fn scrub(&self, bytes: Vec<u8>) -> Vec<u8> {
        self.forms
            .iter()
            .fold(bytes, |bytes, form| replace_all(bytes, form))
    }
}

/// The forms a value is quoted in: as sent, URL-encoded (as a query carries it), and inside a
/// JSON string (escaped, also with `\/` as PHP writes a slash).
fn forms_of(value: &str) -> Vec<Vec<u8>> {
    let mut url = reqwest::Url::parse("http://x/").expect("a fixed valid URL");
    url.query_pairs_mut().append_pair("v", value);
    let encoded = url
        .query()
        .unwrap_or("v=")
        .trim_start_matches("v=")
        .to_string();
    let json = serde_json::to_string(value).unwrap_or_default();
    let json = json.trim_matches('"').to_string();
    let slashed = json.replace('/', "\\/");
    [value.to_string(), encoded, json, slashed]
        .into_iter()
        .map(String::into_bytes)
        .collect()
}

/// `hay` with each occurrence of `needle` replaced; `hay` itself when there is none.
fn replace_all(hay: Vec<u8>, needle: &[u8]) -> Vec<u8> {
    let Some(first) = find(&hay, needle, 0) else {
        return hay;
    };
    let mut out = Vec::with_capacity(hay.len());
    let (mut from, mut at) = (0, Some(first));
    while let Some(i) = at {
        out.extend_from_slice(&hay[from..i]);
        out.extend_from_slice(REPLACEMENT);
        from = i + needle.len();
        at = find(&hay, needle, from);
    }
    out.extend_from_slice(&hay[from..]);
    out
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    (from..=hay.len() - needle.len()).find(|&i| hay[i] == needle[0] && hay[i..].starts_with(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth(yaml: &str) -> catalog::Auth {
        yaml_serde::from_str(yaml).unwrap()
    }

    fn fields(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    fn scrubbed(carried: &Carried, text: &str) -> String {
        String::from_utf8(carried.scrub(text.as_bytes().to_vec())).unwrap()
    }

    #[test]
    fn a_persons_token_is_taken_out_of_whatever_the_upstream_says() {
        let token = PersonToken::new("ya29.person-token/abc+def");
        let carried = Carried::of(&catalog::Auth::default(), fields(&[]), Some(&token));
        assert_eq!(
            scrubbed(
                &carried,
                r#"{"error":"token ya29.person-token/abc+def expired","php":"ya29.person-token\/abc+def"}"#
            ),
            r#"{"error":"token [REDACTED] expired","php":"[REDACTED]"}"#
        );
    }

    #[test]
    fn every_part_of_a_basic_credential_is_taken_out() {
        let basic = auth("basic: { username: user, password: pass }");
        let carried = Carried::of(
            &basic,
            fields(&[("user", "api-user-7"), ("pass", "pa55w0rd-secret")]),
            None,
        );
        // base64("api-user-7:pa55w0rd-secret")
        let text = "seen YXBpLXVzZXItNzpwYTU1dzByZC1zZWNyZXQ= for api-user-7 with pa55w0rd-secret";
        assert_eq!(
            scrubbed(&carried, text),
            "seen [REDACTED] for [REDACTED] with [REDACTED]"
        );
    }

    #[test]
    fn a_query_key_is_taken_out_as_sent_and_url_encoded() {
        let query = auth("{ query: api_key, secret: key }");
        let carried = Carried::of(&query, fields(&[("key", "k3y with/space+")]), None);
        assert_eq!(
            scrubbed(
                &carried,
                "GET /x?api_key=k3y+with%2Fspace%2B failed; key k3y with/space+"
            ),
            "GET /x?api_key=[REDACTED] failed; key [REDACTED]"
        );
    }

    #[test]
    fn a_header_template_is_taken_out_whole_and_field_by_field() {
        let header = auth(r#"{ header: Authorization, value: "Token token={key}" }"#);
        let carried = Carried::of(&header, fields(&[("key", "0123456789abcdef")]), None);
        assert_eq!(
            scrubbed(
                &carried,
                "got 'Token token=0123456789abcdef' / 0123456789abcdef"
            ),
            "got '[REDACTED]' / [REDACTED]"
        );
    }

    #[test]
    fn short_values_and_answers_without_a_credential_stay_as_they_are() {
        let basic = auth("basic: { username: user, password: pass }");
        let carried = Carried::of(&basic, fields(&[("user", "X"), ("pass", "")]), None);
        assert_eq!(scrubbed(&carried, "X marks the spot"), "X marks the spot");
        let bytes = b"\x00\xffbinary".to_vec();
        assert_eq!(carried.scrub(bytes.clone()), bytes);
    }
}
