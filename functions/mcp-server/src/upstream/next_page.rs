//! The next page of a list paged by cursor, next URL or `Link` header: read from an answer,
//! checked, and turned into the opaque cursor a result carries; and a cursor's URL checked
//! again when the model passes it back. Pure.
//!
//! A next URL is followed only on the connector's origin, under its base path, and on the
//! list's own path: a cursor can page the list it came from and reach nothing else (no other
//! host, no other endpoint of the API, whatever an upstream or a model writes into it).
//! Credentials are added to the request as to any other; a query credential an upstream
//! echoes in its link is taken out, so it never reaches the model. The cursor keeps the URL's
//! path and query only: the host (a tenant's subdomain, say, filled from the secret) is not the
//! model's to see, as a dry run's preview shows no host either.

use catalog::{Ask, Pager};
use reqwest::Url;
use serde_json::Value;

use crate::contract::cursor::Cursor;

/// Why a next page's URL is not followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NextRefused {
    #[error("to another host than the connector's")]
    OtherOrigin,
    #[error("outside the connector's base URL")]
    OutsideBase,
    #[error("to another list than this tool's")]
    OtherList,
    #[error("nowhere: it is not a URL")]
    NotAUrl,
}

/// Where a list's next page is, as an answer said it.
#[derive(Debug, Clone, PartialEq)]
pub enum NextPage {
    /// A page this server will fetch when the cursor comes back.
    Follow(Cursor),
    /// A next page the upstream named, but outside what this connector may reach.
    Refused(NextRefused),
}

/// The next page an answer names, for lists paged by cursor; `None` on the last page and for
/// numbered pages. `request` is the URL that was sent (a relative link resolves against it),
/// `base` the connector's base URL with its secrets filled.
pub(super) fn of_answer(
    pager: &Pager,
    body: &Value,
    link: Option<&str>,
    request: &Url,
    base: &Url,
    auth_query: Option<&str>,
) -> Option<NextPage> {
    let text = match pager.ask {
        Ask::Page { .. } | Ask::Offset { .. } => return None,
        Ask::Cursor { .. } => {
            let token = pager.read(body)?.next?;
            return Some(NextPage::Follow(Cursor::Token(token.to_string())));
        }
        Ask::NextUrl => pager.read(body)?.next?,
        Ask::LinkHeader => catalog::link_next(link?)?,
    };
    Some(match resolve(request, text, base, auth_query) {
        Ok(url) => NextPage::Follow(Cursor::Url(match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_string(),
        })),
        Err(refused) => NextPage::Refused(refused),
    })
}

/// A cursor's URL, checked again as it comes back: the request to send for the next page of
/// the list at `list_path`. A path resolves on the connector's origin; a whole URL (this server
/// never hands one out, so it is forged) must still be on it.
pub(super) fn follow(
    next: &str,
    base: &Url,
    list_path: &str,
    auth_query: Option<&str>,
) -> Result<Url, NextRefused> {
    let url = base.join(next).map_err(|_| NextRefused::NotAUrl)?;
    checked(url, base, list_path, auth_query)
}

fn resolve(
    request: &Url,
    text: &str,
    base: &Url,
    auth_query: Option<&str>,
) -> Result<Url, NextRefused> {
    let url = request.join(text).map_err(|_| NextRefused::NotAUrl)?;
    checked(url, base, request.path(), auth_query)
}

fn checked(
    mut url: Url,
    base: &Url,
    list_path: &str,
    auth_query: Option<&str>,
) -> Result<Url, NextRefused> {
    let same_origin = url.scheme() == base.scheme()
        && url.host_str() == base.host_str()
        && url.port_or_known_default() == base.port_or_known_default()
        && url.username().is_empty()
        && url.password().is_none();
    if !same_origin {
        return Err(NextRefused::OtherOrigin);
    }
    let base_path = base.path().trim_end_matches('/');
    let under_base = url
        .path()
        .strip_prefix(base_path)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
    if !under_base {
        return Err(NextRefused::OutsideBase);
    }
    if url.path().trim_end_matches('/') != list_path.trim_end_matches('/') {
        return Err(NextRefused::OtherList);
    }
    url.set_fragment(None);
    if let Some(name) = auth_query {
        let kept: Vec<(String, String)> = url
            .query_pairs()
            .filter(|(k, _)| k != name)
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        if kept.is_empty() {
            url.set_query(None);
        } else {
            url.query_pairs_mut().clear().extend_pairs(kept);
        }
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn pager(yaml: &str) -> Pager {
        Pager::from_paging(&yaml_serde::from_str(yaml).unwrap())
    }

    const BASE: &str = "https://api.example.test/v1";
    const LIST: &str = "https://api.example.test/v1/predictions";

    #[test]
    fn a_next_url_is_followed_only_on_the_list_it_came_from() {
        let base = url(BASE);
        for next in [
            "/v1/predictions?cursor=c2",
            "https://api.example.test/v1/predictions?cursor=c2",
        ] {
            let ok = follow(next, &base, "/v1/predictions", None);
            assert_eq!(
                ok.unwrap().as_str(),
                "https://api.example.test/v1/predictions?cursor=c2"
            );
        }
        for (next, why) in [
            (
                "https://evil.test/v1/predictions?cursor=c2",
                NextRefused::OtherOrigin,
            ),
            (
                "http://api.example.test/v1/predictions",
                NextRefused::OtherOrigin,
            ),
            (
                "https://api.example.test:8443/v1/predictions",
                NextRefused::OtherOrigin,
            ),
            (
                "https://user@api.example.test/v1/predictions",
                NextRefused::OtherOrigin,
            ),
            (
                "https://api.example.test/v2/predictions",
                NextRefused::OutsideBase,
            ),
            (
                "https://api.example.test/v1x/predictions",
                NextRefused::OutsideBase,
            ),
            (
                "https://api.example.test/v1/../admin/predictions",
                NextRefused::OutsideBase,
            ),
            (
                "https://api.example.test/v1/account/delete",
                NextRefused::OtherList,
            ),
            ("//evil.test/v1/predictions", NextRefused::OtherOrigin),
            ("/v1/account/delete", NextRefused::OtherList),
            ("http://[::1", NextRefused::NotAUrl),
        ] {
            assert_eq!(
                follow(next, &base, "/v1/predictions", None),
                Err(why.clone()),
                "{next}"
            );
        }
    }

    #[test]
    fn the_next_page_comes_from_the_body_or_the_link_header_without_the_credential() {
        let base = url(BASE);
        let request = url(LIST);
        let replicate = pager("{style: next_url, items: /results, next: /next}");
        let body = json!({"results": [], "next": "https://api.example.test/v1/predictions?cursor=c2&api_key=SECRET"});
        assert_eq!(
            of_answer(&replicate, &body, None, &request, &base, Some("api_key")),
            Some(NextPage::Follow(Cursor::Url(
                "/v1/predictions?cursor=c2".into()
            )))
        );
        let last = json!({"results": [], "next": null});
        assert_eq!(
            of_answer(&replicate, &last, None, &request, &base, None),
            None
        );
        let foreign = json!({"results": [], "next": "https://evil.test/v1/predictions"});
        assert_eq!(
            of_answer(&replicate, &foreign, None, &request, &base, None),
            Some(NextPage::Refused(NextRefused::OtherOrigin))
        );
        let github = pager("{style: link_header, items: \"\"}");
        let link = r#"</v1/predictions?page=2>; rel="next", </v1/predictions?page=9>; rel="last""#;
        assert_eq!(
            of_answer(&github, &json!([]), Some(link), &request, &base, None),
            Some(NextPage::Follow(Cursor::Url(
                "/v1/predictions?page=2".into()
            )))
        );
        assert_eq!(
            of_answer(&github, &json!([]), None, &request, &base, None),
            None
        );
        let google =
            pager("{style: cursor, items: /files, cursor_param: pageToken, next: /nextPageToken}");
        assert_eq!(
            of_answer(
                &google,
                &json!({"files": [], "nextPageToken": "t2"}),
                None,
                &request,
                &base,
                None
            ),
            Some(NextPage::Follow(Cursor::Token("t2".into())))
        );
    }
}
