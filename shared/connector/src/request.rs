//! The authenticated upstream request, the same from every function: the URL with the base
//! URL's `{field}` placeholders filled from the secret, `Accept: application/json`, the
//! catalog's credential, and the quota figures read back from the answer.
//!
//! Secret fields come in as a lookup (`field name → value`), e.g.
//! [`DeploymentSecret::lookup`](crate::DeploymentSecret::lookup), so nothing here depends on
//! where the secret was loaded from. Errors name the field, never its value.

use catalog::{Auth, Credential, CredentialError, Quota, QuotaFigures};
use reqwest::RequestBuilder;
use reqwest::header::{ACCEPT, HeaderMap, HeaderValue};

/// A connector's base URL: `template` (the catalog's `base_url`, or an override) with each
/// `{field}` filled from the secret (see [`catalog::fill_base_url`]: values must be plain host
/// name parts), without a trailing `/`.
pub fn base_url(
    template: &str,
    field: impl Fn(&str) -> Option<String>,
) -> Result<String, CredentialError> {
    let filled = catalog::fill_base_url(template, field)?;
    Ok(filled.trim_end_matches('/').to_string())
}

/// The URL of `path` (a catalog path such as `/info`, starting with `/`) under the base URL
/// `template`, filled as [`base_url`] does.
pub fn url(
    template: &str,
    path: &str,
    field: impl Fn(&str) -> Option<String>,
) -> Result<String, CredentialError> {
    Ok(format!("{}{path}", base_url(template, field)?))
}

/// `request` with `Accept: application/json` and the credential `auth` declares: a bearer
/// token, a named header (the secret or a filled template), a query parameter, or HTTP basic;
/// nothing more when the catalog declares no auth. A credential header is marked sensitive, so
/// reqwest never shows it in a `Debug` print. A query credential goes into the request's URL
/// only here, as it is sent: the URL a caller built (for a preview, an audit line or a log)
/// never holds it, and reqwest's errors, which quote the URL, must not be shown.
pub fn authenticate(
    request: RequestBuilder,
    auth: &Auth,
    field: impl Fn(&str) -> Option<String>,
) -> Result<RequestBuilder, CredentialError> {
    let credential = auth.credential(field)?;
    let request = request.header(ACCEPT, "application/json");
    Ok(match credential {
        Some(Credential::Bearer(token)) => request.bearer_auth(token),
        Some(Credential::Header { name, value }) => match HeaderValue::from_str(&value) {
            Ok(mut value) => {
                value.set_sensitive(true);
                request.header(name, value)
            }
            // Not a valid header value: reqwest fails the request when it is sent, with an
            // error that does not quote the value.
            Err(_) => request.header(name, value),
        },
        Some(Credential::Query { name, value }) => with_query(request, &name, &value),
        Some(Credential::Basic { username, password }) => request.basic_auth(username, password),
        None => request,
    })
}

/// `request` with `name=value` appended to its URL's query.
fn with_query(request: RequestBuilder, name: &str, value: &str) -> RequestBuilder {
    let (client, built) = request.build_split();
    match built {
        Ok(mut built) => {
            built.url_mut().query_pairs_mut().append_pair(name, value);
            RequestBuilder::from_parts(client, built)
        }
        // The request was already broken (reqwest keeps the first error until it is sent):
        // it still fails when sent, without the credential and without quoting a URL.
        Err(_) => client.get(""),
    }
}

/// `request` with static headers (see [`catalog::Catalog::static_headers`]), in order.
pub fn with_headers<'a>(
    request: RequestBuilder,
    headers: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> RequestBuilder {
    headers.into_iter().fold(request, |request, (name, value)| {
        request.header(name, value)
    })
}

/// The quota figures of an answer, as its catalog's `quota` declares them (headers that are not
/// text are skipped), at the current time.
pub fn quota_figures(quota: &Quota, headers: &HeaderMap) -> QuotaFigures {
    let pairs: Vec<(&str, &str)> = headers
        .iter()
        .filter_map(|(name, value)| Some((name.as_str(), value.to_str().ok()?)))
        .collect();
    let now_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    quota.figures(&pairs, now_s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::AUTHORIZATION;

    fn field(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    fn client() -> reqwest::Client {
        crate::http_client("hosted-mcp-test")
    }

    #[test]
    fn base_url_is_filled_from_the_secret_without_a_trailing_slash() {
        let template = "https://{subdomain}.papierkram.de/api/v1/";
        let base = base_url(template, field(&[("subdomain", "acme")])).unwrap();
        assert_eq!(base, "https://acme.papierkram.de/api/v1");
        let info = url(template, "/info", field(&[("subdomain", "acme")])).unwrap();
        assert_eq!(info, "https://acme.papierkram.de/api/v1/info");
        assert_eq!(
            base_url(template, field(&[])).unwrap_err(),
            CredentialError::Missing("subdomain".into())
        );
        let err = base_url(template, field(&[("subdomain", "evil.test/x?")])).unwrap_err();
        assert_eq!(err, CredentialError::NotHostSafe("subdomain".into()));
        assert!(!err.to_string().contains("evil"), "{err}");
    }

    #[test]
    fn bearer_auth_adds_accept_and_the_token() {
        let auth = Auth {
            bearer: Some("token".into()),
            ..Auth::default()
        };
        let request = authenticate(
            client().get("https://x.test/info"),
            &auth,
            field(&[("token", "t-secret-1")]),
        )
        .unwrap()
        .build()
        .unwrap();
        let headers = request.headers();
        assert_eq!(headers[ACCEPT], "application/json");
        assert_eq!(headers[AUTHORIZATION], "Bearer t-secret-1");
        assert!(headers[AUTHORIZATION].is_sensitive());
        assert!(!format!("{request:?}").contains("t-secret-1"));
    }

    #[test]
    fn header_auth_sends_the_secret_in_the_named_header_marked_sensitive() {
        let auth = Auth {
            header: Some("X-Api-Key".into()),
            secret: Some("key".into()),
            ..Auth::default()
        };
        let request = authenticate(
            client().get("https://x.test/info"),
            &auth,
            field(&[("key", "k-secret-1")]),
        )
        .unwrap()
        .build()
        .unwrap();
        assert_eq!(request.headers()["x-api-key"], "k-secret-1");
        assert!(request.headers()["x-api-key"].is_sensitive());
        assert!(request.headers().get(AUTHORIZATION).is_none());
    }

    #[test]
    fn no_auth_adds_only_accept_and_a_missing_field_is_named() {
        let request = authenticate(
            client().get("https://x.test/"),
            &Auth::default(),
            field(&[]),
        )
        .unwrap()
        .build()
        .unwrap();
        assert_eq!(request.headers().len(), 1);
        assert_eq!(request.headers()[ACCEPT], "application/json");
        let auth = Auth {
            bearer: Some("token".into()),
            ..Auth::default()
        };
        let err = authenticate(client().get("https://x.test/"), &auth, field(&[])).unwrap_err();
        assert_eq!(err.field(), "token");
    }

    #[test]
    fn an_invalid_header_value_fails_the_request_without_quoting_it() {
        let auth = Auth {
            header: Some("X-Api-Key".into()),
            secret: Some("key".into()),
            ..Auth::default()
        };
        let request = authenticate(
            client().get("https://x.test/"),
            &auth,
            field(&[("key", "bad\nsecret-value")]),
        )
        .unwrap();
        let err = request.build().unwrap_err().to_string();
        assert!(!err.contains("secret-value"), "{err}");
    }

    #[test]
    fn a_query_credential_joins_the_url_only_when_sent_and_basic_auth_is_sensitive() {
        let auth = Auth {
            query: Some("api_key".into()),
            secret: Some("key".into()),
            ..Auth::default()
        };
        let request = authenticate(
            client().get("https://x.test/items?q=1"),
            &auth,
            field(&[("key", "k secret&1")]),
        )
        .unwrap()
        .build()
        .unwrap();
        assert_eq!(request.url().query(), Some("q=1&api_key=k+secret%261"));
        assert!(request.headers().get(AUTHORIZATION).is_none());
        let auth = Auth {
            basic: Some(catalog::BasicAuth {
                username: "user".into(),
                password: Some("password".into()),
            }),
            ..Auth::default()
        };
        let request = authenticate(
            client().get("https://x.test/"),
            &auth,
            field(&[("user", "u"), ("password", "p-secret")]),
        )
        .unwrap()
        .build()
        .unwrap();
        assert_eq!(request.headers()[AUTHORIZATION], "Basic dTpwLXNlY3JldA==");
        assert!(request.headers()[AUTHORIZATION].is_sensitive());
        let auth = Auth {
            header: Some("Authorization".into()),
            value: Some("Token token={key}".into()),
            ..Auth::default()
        };
        let request = authenticate(
            client().get("https://x.test/"),
            &auth,
            field(&[("key", "k-1")]),
        )
        .unwrap()
        .build()
        .unwrap();
        assert_eq!(request.headers()[AUTHORIZATION], "Token token=k-1");
        assert!(request.headers()[AUTHORIZATION].is_sensitive());
    }

    #[test]
    fn static_headers_follow_the_credential_in_order() {
        let request = with_headers(
            client().get("https://x.test/"),
            [("cal-api-version", "2024-08-13"), ("X-Client", "a")],
        )
        .build()
        .unwrap();
        let names: Vec<&str> = request.headers().keys().map(|k| k.as_str()).collect();
        assert_eq!(names, ["cal-api-version", "x-client"]);
        assert_eq!(request.headers()["cal-api-version"], "2024-08-13");
    }

    #[test]
    fn quota_figures_come_from_the_headers_the_catalog_names() {
        let quota = Quota {
            headers: None,
            bucket: None,
            reset: Default::default(),
            remaining: Some("x-remaining-quota".into()),
            consumed: Some("x-consumed-quota".into()),
            body: None,
            limit: Some(10_000),
            window: None,
            balance: false,
            thresholds: vec![],
            probe: None,
            caller_daily_budget: None,
            caller_daily_spend: None,
            rate: None,
        };
        let mut headers = HeaderMap::new();
        headers.insert("x-remaining-quota", HeaderValue::from_static("9876"));
        headers.insert("x-consumed-quota", HeaderValue::from_static("1"));
        let figures = quota_figures(&quota, &headers);
        assert_eq!(
            figures,
            QuotaFigures {
                remaining: Some(9_876),
                consumed: Some(1),
                limit: Some(10_000),
                reset_s: None
            }
        );
        let none = quota_figures(&quota, &HeaderMap::new());
        assert_eq!((none.remaining, none.consumed), (None, None));
    }
}
