//! The list shape a catalog's paging gives its list tools, and the opaque `cursor` a model
//! passes back to reach the next page where the upstream pages by cursor, next URL or `Link`.
//!
//! A cursor is base64url (no padding) of `t:<upstream token>` or `u:<seal>:<next page's path
//! and query>`; the seal is empty on the list's own path (see `upstream::next_page`). It is
//! opaque so the model copies it rather than edits it, and it carries no secret: a next URL
//! loses the connector's query credential before it is encoded (`upstream::next_page`), and
//! is checked again against the connector's base URL when it comes back.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use catalog::{Catalog, Tool};

use super::args::MAX_PAGE_SIZE;

/// The longest `cursor` accepted (Graph's skip tokens run to a few hundred characters).
pub(crate) const MAX_CURSOR: usize = 4096;

/// What a list tool's arguments are, from its catalog's paging.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ListShape {
    /// `cursor` instead of `page`.
    pub by_cursor: bool,
    /// `page_size` is offered (the upstream takes a size).
    pub sized: bool,
    /// `count_only` is offered (the upstream reports a total).
    pub counts: bool,
    /// The largest `page_size`: 100, or a declared `paging`'s smaller `max_page_size`.
    pub max_page_size: u32,
}

impl ListShape {
    /// Numbered pages with a size and a total: the shape every list had before `paging`.
    pub(crate) const PAGES: ListShape = ListShape {
        by_cursor: false,
        sized: true,
        counts: true,
        max_page_size: MAX_PAGE_SIZE,
    };

    /// The arguments `tool` takes as a list, from its own paging or its catalog's.
    pub(crate) fn of(catalog: &Catalog, tool: &Tool) -> ListShape {
        match catalog.pager_for(tool) {
            None => ListShape::PAGES,
            Some(p) => ListShape {
                by_cursor: p.by_cursor(),
                sized: p.sized(),
                // A `list_envelope` always offered it, and keeps doing so.
                counts: p.counts() || !p.infer_more,
                // A `list_envelope` never bounded the model's page size by its own.
                max_page_size: if p.infer_more {
                    p.max_page_size.clamp(1, MAX_PAGE_SIZE)
                } else {
                    MAX_PAGE_SIZE
                },
            },
        }
    }
}

/// Where the next page is: the upstream's token, or the URL of the next page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cursor {
    Token(String),
    Url(NextUrl),
}

/// The next page's URL as a cursor holds it: its path and query (or, forged, anything), and
/// the seal that lets it leave the list's own path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextUrl {
    pub url: String,
    /// HMAC tag over the tool and `url`; empty when the URL is on the list's own path.
    pub seal: String,
}

impl Cursor {
    /// A next-URL cursor.
    pub fn url(url: impl Into<String>, seal: impl Into<String>) -> Cursor {
        Cursor::Url(NextUrl {
            url: url.into(),
            seal: seal.into(),
        })
    }
}

/// A `cursor` that is not a `next_cursor` this server gave out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`cursor` is not a next_cursor from this list: pass the result's next_cursor unchanged, or \
     leave cursor out for the first page."
)]
pub struct BadCursor;

impl Cursor {
    /// The opaque text a result carries as `next_cursor`.
    pub fn encode(&self) -> String {
        let text = match self {
            Cursor::Token(t) => format!("t:{t}"),
            Cursor::Url(u) => format!("u:{}:{}", u.seal, u.url),
        };
        URL_SAFE_NO_PAD.encode(text)
    }

    pub fn decode(text: &str) -> Result<Cursor, BadCursor> {
        if text.is_empty() || text.len() > MAX_CURSOR {
            return Err(BadCursor);
        }
        let bytes = URL_SAFE_NO_PAD.decode(text).map_err(|_| BadCursor)?;
        let text = String::from_utf8(bytes).map_err(|_| BadCursor)?;
        match text.split_once(':') {
            Some(("t", token)) if !token.is_empty() => Ok(Cursor::Token(token.to_string())),
            Some(("u", rest)) => match rest.split_once(':') {
                Some((seal, url)) if !url.is_empty() => Ok(Cursor::url(url, seal)),
                _ => Err(BadCursor),
            },
            _ => Err(BadCursor),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_anything_else_is_refused() {
        for c in [
            Cursor::Token("CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA".into()),
            Cursor::url("/v1.0/users?$skiptoken=X%2B1", ""),
            Cursor::url("/v1.0/groups?$skiptoken=X", "c2VhbA"),
        ] {
            let text = c.encode();
            assert!(
                text.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            );
            assert_eq!(Cursor::decode(&text), Ok(c));
        }
        for bad in ["", "page=2", "dDo", &URL_SAFE_NO_PAD.encode("x:y"), "%%%"] {
            assert_eq!(Cursor::decode(bad), Err(BadCursor), "{bad}");
        }
        assert_eq!(Cursor::decode(&"A".repeat(MAX_CURSOR + 1)), Err(BadCursor));
    }

    #[test]
    fn the_shape_follows_the_catalogs_paging() {
        let shape = |paging: &str| {
            let text = format!(
                "connector: c\nbase_url: \"https://x.test\"\n{paging}\ntools:\n  - name: c_things_list\n    risk: low\n    description: d\n    list: true\n    get: /things\n"
            );
            let c = catalog::parse("c.yaml", &text).unwrap();
            ListShape::of(&c, &c.tools[0])
        };
        assert_eq!(shape("list_envelope: { items: e }"), ListShape::PAGES);
        assert_eq!(
            shape("paging: { style: link_header, items: \"\", size_param: per_page }"),
            ListShape {
                by_cursor: true,
                sized: true,
                counts: false,
                max_page_size: 100
            }
        );
        assert_eq!(
            shape(
                "paging: { style: offset, items: /objects, offset_param: offset, size_param: limit, max_page_size: 25 }"
            ),
            ListShape {
                by_cursor: false,
                sized: true,
                counts: false,
                max_page_size: 25
            }
        );
    }
}
