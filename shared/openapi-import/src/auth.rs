//! Authentication as a proposal: the catalog's `auth` and `secrets` from the document's
//! `securitySchemes`, with a note for the person deciding.

use catalog::{Auth, BasicAuth};
use serde_json::Value;

/// The catalog's `auth` and `secrets` from the document's security schemes: the first scheme
/// the document requires globally, else the first declared. Also the notes for the person.
/// [`auth`], or, when the document declares no security scheme but its operations take an
/// `Authorization: Bearer …` header parameter, a bearer token.
pub(crate) fn auth_or_bearer_header(
    root: &Value,
    bearer_params: usize,
) -> (Auth, Vec<String>, Vec<String>) {
    let (auth, secrets, notes) = auth(root);
    if auth != Auth::default() || bearer_params == 0 {
        return (auth, secrets, notes);
    }
    let auth = Auth {
        bearer: Some("token".into()),
        ..Auth::default()
    };
    let note = format!(
        "auth: proposed `bearer: token`: the document has no security scheme, but {bearer_params} \
         operation(s) take an `Authorization: Bearer …` header parameter"
    );
    (auth, vec!["token".into()], vec![note])
}

/// Whether an operation declares an `Authorization` header parameter that says it carries a
/// bearer token (in its description or example).
pub(crate) fn declares_bearer_header(op: &Value) -> bool {
    op.get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|p| {
            let is = |key: &str, value: &str| {
                p.get(key)
                    .and_then(Value::as_str)
                    .is_some_and(|v| v.eq_ignore_ascii_case(value))
            };
            let says_bearer = ["description", "example"].iter().any(|k| {
                p.get(*k)
                    .and_then(Value::as_str)
                    .is_some_and(|v| v.to_ascii_lowercase().contains("bearer"))
            });
            is("in", "header") && is("name", "authorization") && says_bearer
        })
}

pub(crate) fn auth(root: &Value) -> (Auth, Vec<String>, Vec<String>) {
    let schemes = root
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object);
    let Some(schemes) = schemes.filter(|s| !s.is_empty()) else {
        return (Auth::default(), Vec::new(), vec!["auth: the document declares no securitySchemes; decide `auth` and `secrets` (none proposed)".into()]);
    };
    let required = root
        .get("security")
        .and_then(Value::as_array)
        .and_then(|reqs| {
            reqs.iter()
                .find_map(|r| r.as_object().and_then(|o| o.keys().next().cloned()))
        });
    let Some((name, scheme)) = required
        .as_ref()
        .and_then(|n| schemes.get_key_value(n.as_str()))
        .or_else(|| schemes.iter().next())
    else {
        return (Auth::default(), Vec::new(), Vec::new());
    };
    let kind = scheme.get("type").and_then(Value::as_str).unwrap_or("");
    let http = scheme
        .get("scheme")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_ascii_lowercase();
    let field = |v: &str| v.to_string();
    let mut auth = Auth::default();
    let secrets: Vec<String>;
    let note;
    match (kind, http.as_str()) {
        ("http", "bearer") => {
            auth.bearer = Some(field("token").into());
            secrets = vec!["token".into()];
            note = format!("auth: proposed `bearer: token` from the http bearer scheme `{name}`");
        }
        ("http", "basic") => {
            auth.basic = Some(BasicAuth {
                username: "username".into(),
                password: Some("password".into()),
            });
            secrets = vec!["username".into(), "password".into()];
            note = format!("auth: proposed HTTP basic from the scheme `{name}`");
        }
        ("apiKey", _) => {
            let header = scheme
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("X-Api-Key")
                .to_string();
            secrets = vec!["api_key".into()];
            auth.secret = Some("api_key".into());
            match scheme.get("in").and_then(Value::as_str) {
                Some("query") => {
                    note = format!(
                        "auth: proposed the query parameter `{header}` from the apiKey scheme `{name}`"
                    );
                    auth.query = Some(header.into());
                }
                _ => {
                    note = format!(
                        "auth: proposed the header `{header}` from the apiKey scheme `{name}`"
                    );
                    auth.header = Some(header.into());
                }
            }
        }
        ("oauth2" | "openIdConnect", _) => {
            auth.bearer = Some("token".into());
            secrets = vec!["token".into()];
            note = format!(
                "auth: `{name}` is {kind}: proposed a bearer token from the deployment secret; acting with each person's own account needs the vault"
            );
        }
        _ => {
            return (
                Auth::default(),
                Vec::new(),
                vec![format!(
                    "auth: scheme `{name}` ({kind} {http}) has no catalog shape; decide `auth`"
                )],
            );
        }
    }
    let mut notes = vec![note];
    if schemes.len() > 1 {
        let names: Vec<&str> = schemes.keys().map(String::as_str).collect();
        notes.push(format!(
            "auth: the document offers {} schemes ({}); one was proposed",
            names.len(),
            names.join(", ")
        ));
    }
    (auth, secrets, notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn auth_follows_the_security_scheme() {
        let bearer =
            json!({"components": {"securitySchemes": {"b": {"type": "http", "scheme": "bearer"}}}});
        assert_eq!(auth(&bearer).0.bearer.as_deref(), Some("token"));
        let key = json!({"security": [{"k": []}], "components": {"securitySchemes": {"k": {"type": "apiKey", "in": "header", "name": "Authorization"}}}});
        let (a, secrets, _) = auth(&key);
        assert_eq!(
            (a.header.as_deref(), a.secret.as_deref()),
            (Some("Authorization"), Some("api_key"))
        );
        assert_eq!(secrets, ["api_key"]);
        let q = json!({"components": {"securitySchemes": {"k": {"type": "apiKey", "in": "query", "name": "token"}}}});
        assert_eq!(auth(&q).0.query.as_deref(), Some("token"));
        assert!(auth(&json!({})).2[0].contains("no securitySchemes"));
    }

    #[test]
    fn an_authorization_header_parameter_saying_bearer_proposes_a_bearer_token() {
        let op = json!({"parameters": [{"name": "Authorization", "in": "header", "required": true,
            "description": "value must be `Bearer <token>` where <token> is the api key"}]});
        assert!(declares_bearer_header(&op));
        let other = json!({"parameters": [{"name": "Authorization", "in": "header"}]});
        assert!(!declares_bearer_header(&other));
        let (a, secrets, notes) = auth_or_bearer_header(&json!({}), 3);
        assert_eq!(
            (a.bearer.as_deref(), secrets),
            (Some("token"), vec!["token".to_string()])
        );
        assert!(notes[0].contains("3 operation(s)"), "{notes:?}");
        assert_eq!(auth_or_bearer_header(&json!({}), 0).0, Auth::default());
    }
}
