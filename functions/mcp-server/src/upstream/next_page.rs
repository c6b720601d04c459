//! The next page of a list paged by cursor, next URL or `Link` header: read from an answer,
//! checked, and turned into the opaque cursor a result carries; and a cursor's URL checked
//! again when the model passes it back. Pure.
//!
//! A next URL is followed only on the connector's origin and under its base path (GitHub links
//! `/repositories/{id}/issues` for `/repos/{owner}/{repo}/issues`, so not only on the list's
//! own path), and only with the seal this server made for the tool when the upstream named it:
//! an HMAC (the deployment's confirmation keys, the first seals, every one verifies) over the
//! tool and the URL, query included. So a cursor pages the list it came from, with the query
//! the upstream wrote, and reaches no other endpoint, whatever a model writes into it.
//! Credentials are added to the request as to any other; a query credential an upstream
//! echoes in its link is taken out, so it never reaches the model. The cursor keeps the URL's
//! path and query only: the host (a tenant's subdomain, say, filled from the secret) is not the
//! model's to see, as a dry run's preview shows no host either.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use catalog::{Ask, Pager};
use hmac::{Hmac, KeyInit, Mac};
use reqwest::Url;
use serde_json::Value;
use sha2::Sha256;

use crate::contract::cursor::{Cursor, NextUrl, Resume};

/// Domain separation: a seal made here verifies nothing else signed with the same key.
const LABEL: &str = "hosted-mcp/cursor/v1.";
/// A cut page's seal has its own label, so it never verifies as a next URL's (whose URL a model
/// could otherwise write to match the text a cut page's seal covers), nor the other way round.
const RESUME_LABEL: &str = "hosted-mcp/resume/v1.";
/// Bytes of the HMAC a seal keeps.
const SEAL_BYTES: usize = 16;

/// Why a next page's URL is not followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NextRefused {
    #[error("to another host than the connector's")]
    OtherOrigin,
    #[error("outside the connector's base URL")]
    OutsideBase,
    #[error("not a next page this server gave out for this list (another list, or changed)")]
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

/// What a next URL may reach.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reach<'a> {
    /// The connector's base URL, its secrets filled.
    pub base: &'a Url,
    /// The tool a seal is bound to.
    pub tool: &'a str,
    /// The deployment's confirmation keys: the first seals, every one verifies.
    pub keys: &'a [Vec<u8>],
    /// The query parameter `auth` sends a secret in, taken out of every next URL.
    pub auth_query: Option<&'a str>,
}

/// The next page an answer names, for lists paged by cursor; `None` on the last page and for
/// numbered pages. `request` is the URL that was sent (a relative link resolves against it).
pub(super) fn of_answer(
    pager: &Pager,
    body: &Value,
    link: Option<&str>,
    request: &Url,
    reach: Reach<'_>,
) -> Option<NextPage> {
    let text = match pager.ask {
        Ask::Page { .. } | Ask::Offset { .. } | Ask::Unpaged => return None,
        Ask::Cursor { .. } => {
            let token = pager.read(body)?.next?;
            return Some(NextPage::Follow(Cursor::Token(token.to_string())));
        }
        Ask::NextUrl => pager.read(body)?.next?,
        Ask::LinkHeader => catalog::link_next(link?)?,
    };
    let Ok(url) = request.join(text) else {
        return Some(NextPage::Refused(NextRefused::NotAUrl));
    };
    let url = match within_base(url, reach) {
        Ok(url) => url,
        Err(refused) => return Some(NextPage::Refused(refused)),
    };
    let target = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_string(),
    };
    Some(match reach.keys.first() {
        Some(key) => {
            let seal = URL_SAFE_NO_PAD.encode(&mac(LABEL, key, reach.tool, &target)[..SEAL_BYTES]);
            NextPage::Follow(Cursor::url(target, seal))
        }
        None => NextPage::Refused(NextRefused::OtherList),
    })
}

/// A cursor's URL, checked again as it comes back: the request to send for the next page. A
/// path resolves on the connector's origin; a whole URL (this server never hands one out, so it
/// is forged) must still be on it.
pub(super) fn follow(next: &NextUrl, reach: Reach<'_>) -> Result<Url, NextRefused> {
    let url = reach
        .base
        .join(&next.url)
        .map_err(|_| NextRefused::NotAUrl)?;
    let url = within_base(url, reach)?;
    if sealed(next, reach) {
        Ok(url)
    } else {
        Err(NextRefused::OtherList)
    }
}

/// What a cut page's cursor seals: the tool, the call's other arguments (canonical JSON) and
/// the page, its size, its own cursor and the items shown. A model can neither point it at
/// another page's position under other filters nor wrap a next URL this server never gave out
/// (that one keeps its own seal, checked when it is followed).
fn resume_text(arguments: &str, resume: &Resume) -> String {
    format!("resume\n{arguments}\n{}", resume.sealed_text())
}

/// The seal of a cut page's cursor, with the first of the deployment's confirmation keys; none
/// without keys (no cursor can be handed out then).
pub(crate) fn seal_resume(
    keys: &[Vec<u8>],
    tool: &str,
    arguments: &str,
    resume: &Resume,
) -> Option<String> {
    let key = keys.first()?;
    let tag = mac(RESUME_LABEL, key, tool, &resume_text(arguments, resume));
    Some(URL_SAFE_NO_PAD.encode(&tag[..SEAL_BYTES]))
}

/// Whether one of the keys sealed this cut page's cursor for this tool and these arguments.
pub(crate) fn resume_sealed(
    keys: &[Vec<u8>],
    tool: &str,
    arguments: &str,
    resume: &Resume,
) -> bool {
    let Ok(tag) = URL_SAFE_NO_PAD.decode(&resume.seal) else {
        return false;
    };
    let text = resume_text(arguments, resume);
    tag.len() == SEAL_BYTES
        && keys.iter().any(|key| {
            <Hmac<Sha256> as KeyInit>::new_from_slice(key).is_ok_and(|mut mac| {
                mac.update(format!("{RESUME_LABEL}{tool}\n{text}").as_bytes());
                mac.verify_truncated_left(&tag).is_ok()
            })
        })
}

/// The HMAC under `label` over the tool and `text`.
fn mac(label: &str, key: &[u8], tool: &str, text: &str) -> Vec<u8> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("any key length");
    mac.update(format!("{label}{tool}\n{text}").as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// Whether one of the keys sealed this URL for this tool.
fn sealed(next: &NextUrl, reach: Reach<'_>) -> bool {
    let Ok(tag) = URL_SAFE_NO_PAD.decode(&next.seal) else {
        return false;
    };
    tag.len() == SEAL_BYTES
        && reach.keys.iter().any(|key| {
            <Hmac<Sha256> as KeyInit>::new_from_slice(key).is_ok_and(|mut mac| {
                mac.update(format!("{LABEL}{}\n{}", reach.tool, next.url).as_bytes());
                mac.verify_truncated_left(&tag).is_ok()
            })
        })
}

/// The URL on the connector's origin and under its base path, without a fragment or the
/// query credential.
fn within_base(mut url: Url, reach: Reach<'_>) -> Result<Url, NextRefused> {
    let base = reach.base;
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
    url.set_fragment(None);
    if let Some(name) = reach.auth_query {
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

    const KEYS: &[Vec<u8>] = &[];
    const KEY: &[u8] = b"a-key-0123456789abcdef";

    /// `url` as this server seals it for the tool of [`reach`].
    fn sealed_url(url: &str) -> NextUrl {
        NextUrl {
            url: url.into(),
            seal: URL_SAFE_NO_PAD.encode(&mac(LABEL, KEY, "r_predictions_list", url)[..SEAL_BYTES]),
        }
    }

    fn reach<'a>(base: &'a Url, keys: &'a [Vec<u8>], auth_query: Option<&'a str>) -> Reach<'a> {
        Reach {
            base,
            tool: "r_predictions_list",
            keys,
            auth_query,
        }
    }

    fn next(url: &str) -> NextUrl {
        NextUrl {
            url: url.into(),
            seal: String::new(),
        }
    }

    #[test]
    fn a_next_url_is_followed_only_as_sealed_and_on_the_connectors_base() {
        let base = url("https://api.example.test/v1");
        let keys = [KEY.to_vec()];
        for ok in [
            "/v1/predictions?cursor=c2",
            "https://api.example.test/v1/predictions?cursor=c2",
        ] {
            assert_eq!(
                follow(&sealed_url(ok), reach(&base, &keys, None))
                    .unwrap()
                    .as_str(),
                "https://api.example.test/v1/predictions?cursor=c2"
            );
        }
        // On the list's own path, but with a query the upstream never wrote.
        for forged in [
            next("/v1/predictions?cursor=c2&state=deleted"),
            NextUrl {
                url: "/v1/predictions?cursor=c2&state=deleted".into(),
                ..sealed_url("/v1/predictions?cursor=c2")
            },
        ] {
            assert_eq!(
                follow(&forged, reach(&base, &keys, None)),
                Err(NextRefused::OtherList),
                "{forged:?}"
            );
        }
        for (forged, why) in [
            ("https://evil.test/v1/predictions", NextRefused::OtherOrigin),
            ("//evil.test/v1/predictions", NextRefused::OtherOrigin),
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
            ("/v2/predictions", NextRefused::OutsideBase),
            ("/v1x/predictions", NextRefused::OutsideBase),
            ("/v1/../admin/predictions", NextRefused::OutsideBase),
            ("/v1/account/delete", NextRefused::OtherList),
            ("http://[::1", NextRefused::NotAUrl),
        ] {
            assert_eq!(
                follow(&next(forged), reach(&base, KEYS, None)),
                Err(why.clone()),
                "{forged}"
            );
        }
    }

    #[test]
    fn elsewhere_under_the_base_only_with_this_servers_seal_for_this_tool() {
        let base = url("https://api.github.test");
        let keys = vec![
            b"old-key-0123456789abcdef".to_vec(),
            b"new-key-0123456789abcdef".to_vec(),
        ];
        let github = pager("{style: link_header, items: \"\"}");
        let request = url("https://api.github.test/repos/o/r/issues?per_page=2");
        let link =
            r#"<https://api.github.test/repositories/7/issues?per_page=2&page=2>; rel="next""#;
        let list = Reach {
            tool: "gh_issues_list",
            ..reach(&base, &keys, None)
        };
        let Some(NextPage::Follow(Cursor::Url(sealed))) =
            of_answer(&github, &json!([]), Some(link), &request, list)
        else {
            panic!("a sealed cursor")
        };
        assert_eq!(sealed.url, "/repositories/7/issues?per_page=2&page=2");
        assert!(!sealed.seal.is_empty());
        assert!(follow(&sealed, list).is_ok());
        let rotated = Reach {
            keys: &keys[1..],
            ..list
        };
        assert_eq!(
            follow(&sealed, rotated),
            Err(NextRefused::OtherList),
            "a key is gone"
        );
        let other_tool = Reach {
            tool: "gh_pulls_list",
            ..list
        };
        assert_eq!(follow(&sealed, other_tool), Err(NextRefused::OtherList));
        let moved = NextUrl {
            url: "/repositories/7/hooks".into(),
            ..sealed.clone()
        };
        assert_eq!(follow(&moved, list), Err(NextRefused::OtherList));
        let unkeyed = Reach { keys: &[], ..list };
        assert_eq!(
            of_answer(&github, &json!([]), Some(link), &request, unkeyed),
            Some(NextPage::Refused(NextRefused::OtherList))
        );
    }

    #[test]
    fn a_cut_pages_cursor_verifies_only_unchanged_for_its_tool_and_arguments() {
        let keys = vec![b"old-key-0123456789abcdef".to_vec(), KEY.to_vec()];
        let (tool, arguments) = ("r_predictions_list", r#"{"state":"open"}"#);
        let mut resume = Resume {
            page: 2,
            page_size: 100,
            at: Some(Box::new(Cursor::Token("t2".into()))),
            skip: 73,
            seal: String::new(),
        };
        resume.seal = seal_resume(&keys, tool, arguments, &resume).unwrap();
        assert!(resume_sealed(&keys, tool, arguments, &resume));
        assert!(
            resume_sealed(&keys[..1], tool, arguments, &resume),
            "the first key seals"
        );
        assert!(
            !resume_sealed(&keys[1..], tool, arguments, &resume),
            "a key is gone"
        );
        assert!(!resume_sealed(&keys, "r_models_list", arguments, &resume));
        assert!(!resume_sealed(
            &keys,
            tool,
            r#"{"state":"closed"}"#,
            &resume
        ));
        assert!(!resume_sealed(&keys, tool, "{}", &resume));
        let tampered = [
            Resume {
                skip: 74,
                ..resume.clone()
            },
            Resume {
                page: 3,
                ..resume.clone()
            },
            Resume {
                page_size: 50,
                ..resume.clone()
            },
            Resume {
                at: Some(Box::new(Cursor::Token("t9".into()))),
                ..resume.clone()
            },
            Resume {
                at: None,
                ..resume.clone()
            },
            Resume {
                seal: "AAAAAAAAAAAAAAAAAAAAAA".into(),
                ..resume.clone()
            },
            Resume {
                seal: "not base64!".into(),
                ..resume.clone()
            },
            Resume {
                seal: resume.seal[..10].into(),
                ..resume.clone()
            },
        ];
        for t in tampered {
            assert!(!resume_sealed(&keys, tool, arguments, &t), "{t:?}");
        }
        assert_eq!(
            seal_resume(&[], tool, arguments, &resume),
            None,
            "no key, no seal"
        );
        // A next URL's seal for the same tool seals no cut page, and the other way round.
        let base = url("https://api.example.test/v1/");
        let as_url = NextUrl {
            url: resume_text(arguments, &resume),
            seal: resume.seal.clone(),
        };
        let list = Reach {
            tool,
            ..reach(&base, &keys, None)
        };
        assert!(!sealed(&as_url, list));
    }

    #[test]
    fn the_next_page_comes_from_the_body_or_the_link_header_without_the_credential() {
        let base = url("https://api.example.test/v1");
        let request = url("https://api.example.test/v1/predictions");
        let replicate = pager("{style: next_url, items: /results, next: /next}");
        let body = json!({"results": [], "next": "https://api.example.test/v1/predictions?cursor=c2&api_key=SECRET"});
        let keys = [KEY.to_vec()];
        let keyed = reach(&base, &keys, Some("api_key"));
        assert_eq!(
            of_answer(&replicate, &body, None, &request, keyed),
            Some(NextPage::Follow(Cursor::Url(sealed_url(
                "/v1/predictions?cursor=c2"
            ))))
        );
        assert_eq!(
            of_answer(&replicate, &body, None, &request, reach(&base, KEYS, None)),
            Some(NextPage::Refused(NextRefused::OtherList)),
            "no key, no cursor"
        );
        let last = json!({"results": [], "next": null});
        assert_eq!(of_answer(&replicate, &last, None, &request, keyed), None);
        let foreign = json!({"results": [], "next": "https://evil.test/v1/predictions"});
        assert_eq!(
            of_answer(&replicate, &foreign, None, &request, keyed),
            Some(NextPage::Refused(NextRefused::OtherOrigin))
        );
        let github = pager("{style: link_header, items: \"\"}");
        let link = r#"</v1/predictions?page=2>; rel="next", </v1/predictions?page=9>; rel="last""#;
        assert_eq!(
            of_answer(&github, &json!([]), Some(link), &request, keyed),
            Some(NextPage::Follow(Cursor::Url(sealed_url(
                "/v1/predictions?page=2"
            ))))
        );
        assert_eq!(of_answer(&github, &json!([]), None, &request, keyed), None);
        let google =
            pager("{style: cursor, items: /files, cursor_param: pageToken, next: /nextPageToken}");
        assert_eq!(
            of_answer(
                &google,
                &json!({"files": [], "nextPageToken": "t2"}),
                None,
                &request,
                keyed
            ),
            Some(NextPage::Follow(Cursor::Token("t2".into())))
        );
    }
}
