//! The list shape a catalog's paging gives its list tools, and the opaque `cursor` a model
//! passes back to reach the next page where the upstream pages by cursor, next URL or `Link`.
//!
//! A cursor is base64url (no padding) of `t:<upstream token>` or `u:<seal>:<next page's path
//! and query>`; the seal binds the URL to the tool (see `upstream::next_page`). It is
//! opaque so the model copies it rather than edits it, and it carries no secret: a next URL
//! loses the connector's query credential before it is encoded (`upstream::next_page`), and
//! is checked again against the connector's base URL when it comes back.
//!
//! A page cut to fit the output cap continues with a third kind, `r:<seal>:<page>:<page_size>:
//! <skip>:<the page's own cursor, encoded, or empty>`: "read this page again and leave out its
//! first `skip` items" ([`Resume`]). Every list takes it, numbered ones too, and it names its
//! page itself, so it wins over `page` and `page_size`. Its seal binds the tool, the call's
//! other arguments and all four fields (`upstream::next_page::seal_resume`).

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

/// Where the next page is: the upstream's token, the URL of the next page, or the rest of a
/// page the output cap cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cursor {
    Token(String),
    Url(NextUrl),
    Resume(Resume),
}

/// The rest of a page cut to fit the output cap: the page (its number and size; for a list
/// paged by cursor, the cursor that reached it) and how many of its items were shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resume {
    pub page: u32,
    pub page_size: u32,
    /// The cursor the page was read with (lists paged by cursor; none: the first page).
    pub at: Option<Box<Cursor>>,
    /// Items of the page already shown.
    pub skip: u32,
    /// HMAC tag over the tool, the call's other arguments and the fields above.
    pub seal: String,
}

impl Resume {
    /// What the seal covers besides the tool and the arguments.
    pub fn sealed_text(&self) -> String {
        let at = self.at.as_ref().map(|c| c.encode()).unwrap_or_default();
        format!("{}:{}:{}:{at}", self.page, self.page_size, self.skip)
    }

    /// `<seal>:<page>:<page_size>:<skip>:<cursor or empty>`, checked for shape only (the seal
    /// is checked where the keys are, `upstream::next_page::resume_sealed`).
    fn decode(text: &str) -> Result<Resume, BadCursor> {
        let mut parts = text.splitn(5, ':');
        let mut next = || parts.next().ok_or(BadCursor);
        let seal = next()?.to_string();
        let mut number = || next()?.parse::<u32>().map_err(|_| BadCursor);
        let (page, page_size, skip) = (number()?, number()?, number()?);
        let at = match next()? {
            "" => None,
            inner => match Cursor::decode(inner)? {
                // A cut page's own cursor is the upstream's, never another cut.
                Cursor::Resume(_) => return Err(BadCursor),
                c => Some(Box::new(c)),
            },
        };
        if seal.is_empty() || page == 0 || page_size == 0 {
            return Err(BadCursor);
        }
        Ok(Resume {
            page,
            page_size,
            at,
            skip,
            seal,
        })
    }
}

/// The next page's URL as a cursor holds it: its path and query (or, forged, anything), and
/// the seal without which it is not followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextUrl {
    pub url: String,
    /// HMAC tag over the tool and `url` (`upstream::next_page`).
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
            Cursor::Resume(r) => format!("r:{}:{}", r.seal, r.sealed_text()),
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
            Some(("r", rest)) => Resume::decode(rest).map(Cursor::Resume),
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

    fn resume(at: Option<Cursor>) -> Resume {
        Resume {
            page: 3,
            page_size: 100,
            at: at.map(Box::new),
            skip: 73,
            seal: "c2VhbC0wMTIzNDU2Nzg5YQ".into(),
        }
    }

    #[test]
    fn a_cut_pages_cursor_round_trips_with_the_cursor_that_reached_its_page() {
        for at in [
            None,
            Some(Cursor::Token("tok-3".into())),
            Some(Cursor::url("/v2/items?cursor=3&a=b:c", "c2VhbA")),
        ] {
            let c = Cursor::Resume(resume(at));
            assert_eq!(Cursor::decode(&c.encode()), Ok(c));
        }
    }

    #[test]
    fn a_malformed_cut_pages_cursor_is_refused() {
        let inner = Cursor::Resume(resume(None)).encode();
        for bad in [
            "r:".to_string(),
            "r:seal:3:100:73".to_string(),
            "r::3:100:73:".to_string(),
            "r:seal:0:100:73:".to_string(),
            "r:seal:3:0:73:".to_string(),
            "r:seal:3:100:-1:".to_string(),
            "r:seal:3:x:73:".to_string(),
            "r:seal:3:100:99999999999:".to_string(),
            "r:seal:3:100:73:%%%".to_string(),
            // A cut page's own cursor is never another cut.
            format!("r:seal:3:100:73:{inner}"),
        ] {
            assert_eq!(
                Cursor::decode(&URL_SAFE_NO_PAD.encode(&bad)),
                Err(BadCursor),
                "{bad}"
            );
        }
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
