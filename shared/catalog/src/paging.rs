//! How an upstream pages its lists: the `paging` declaration (one of six styles, declared in
//! `model/paging.rs`; the catalog's, or a list tool's own), the older `list_envelope` it
//! generalises, and the pure arithmetic every runtime shares: which query parameters ask for a
//! page, where a page's items, total, "more" flag and next cursor are, the model's page of an
//! unpaged list, and the `next` link of an RFC 8288 `Link` header.
//!
//! Both declarations become one [`Pager`], so the runtime has one code path; a `list_envelope`
//! becomes exactly the pager it always was (1-based pages, dotted field names as pointers, no
//! guessing "more" from a full page).

use serde_json::Value;

use crate::model::{Catalog, ListEnvelope, Paging, PagingStyle, Text, Tool};

/// How a page is asked for, with the names the style needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    Page {
        param: String,
        first: u32,
    },
    Offset {
        param: String,
    },
    Cursor {
        param: String,
    },
    NextUrl,
    LinkHeader,
    /// Nothing is asked: one answer holds every item, and the model's page is cut from it.
    Unpaged,
}

/// A catalog's paging, resolved: what the runtime reads, from `paging` or `list_envelope`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pager {
    pub ask: Ask,
    pub size_param: Option<String>,
    /// JSON pointers (`""`: the body itself).
    pub items: String,
    pub total: Option<String>,
    pub more: Option<String>,
    pub next: Option<String>,
    pub max_page_size: u32,
    /// The query parameter of the fields asked for (`$select`), see [`Pager::select`].
    pub select_param: Option<String>,
    /// Without `more` and `total`, a full page means more may follow. A `list_envelope` never
    /// guessed (its `has_more` stays false), and it keeps that meaning.
    pub infer_more: bool,
    /// An object answer without the items array is an empty page (`paging.omits_empty`).
    pub omits_empty: bool,
}

/// What one answer says about its page.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRead<'a> {
    pub items: &'a [Value],
    pub total: Option<u64>,
    pub more: Option<bool>,
    /// The next cursor or URL from the body (not the `Link` header's).
    pub next: Option<&'a str>,
}

impl Catalog {
    /// The catalog's paging, from `paging` or else `list_envelope`; `None` when it has neither.
    pub fn pager(&self) -> Option<Pager> {
        match (&self.paging, &self.list_envelope) {
            (Some(p), _) => Some(Pager::from_paging(p)),
            (None, Some(e)) => Some(Pager::from_envelope(e)),
            (None, None) => None,
        }
    }

    /// How `tool` pages: its own `paging`, else the catalog's ([`Catalog::pager`]).
    pub fn pager_for(&self, tool: &Tool) -> Option<Pager> {
        match &tool.paging {
            Some(own) => Some(Pager::from_paging(own)),
            None => self.pager(),
        }
    }
}

impl Pager {
    pub fn from_paging(p: &Paging) -> Pager {
        let named = |o: &Option<Text>| o.as_deref().unwrap_or_default().to_string();
        let ask = match p.style {
            PagingStyle::Page => Ask::Page {
                param: named(&p.page_param),
                first: p.first_page.unwrap_or(1),
            },
            PagingStyle::Offset => Ask::Offset {
                param: named(&p.offset_param),
            },
            PagingStyle::Cursor => Ask::Cursor {
                param: named(&p.cursor_param),
            },
            PagingStyle::NextUrl => Ask::NextUrl,
            PagingStyle::LinkHeader => Ask::LinkHeader,
            PagingStyle::Unpaged => Ask::Unpaged,
        };
        Pager {
            ask,
            size_param: p.size_param.as_deref().map(str::to_string),
            items: p.items.to_string(),
            total: p.total.as_deref().map(str::to_string),
            more: p.more.as_deref().map(str::to_string),
            next: p.next.as_deref().map(str::to_string),
            max_page_size: p.max_page_size,
            select_param: p.select_param.as_deref().map(str::to_string),
            infer_more: true,
            omits_empty: p.omits_empty,
        }
    }

    /// One answer holding every item at `items` (a JSON pointer, `""` for the body itself).
    pub fn unpaged(items: &str) -> Pager {
        Pager {
            ask: Ask::Unpaged,
            size_param: None,
            select_param: None,
            items: items.to_string(),
            total: None,
            more: None,
            next: None,
            max_page_size: 100,
            infer_more: false,
            omits_empty: false,
        }
    }

    /// The older form: 1-based pages, dotted top-level names.
    pub fn from_envelope(e: &ListEnvelope) -> Pager {
        Pager {
            ask: Ask::Page {
                param: e.page_param.to_string(),
                first: 1,
            },
            size_param: Some(e.page_size_param.to_string()),
            items: pointer_of_dotted(&e.items),
            total: e.total.as_deref().map(pointer_of_dotted),
            more: e.more.as_deref().map(pointer_of_dotted),
            next: None,
            max_page_size: e.max_page_size,
            select_param: None,
            infer_more: false,
            omits_empty: false,
        }
    }

    /// Pages are followed by a cursor the model passes back, not numbered.
    pub fn by_cursor(&self) -> bool {
        matches!(
            self.ask,
            Ask::Cursor { .. } | Ask::NextUrl | Ask::LinkHeader
        )
    }

    /// Whether the model may choose a page size: the upstream takes one, or the pages are cut
    /// here from an unpaged answer.
    pub fn sized(&self) -> bool {
        self.size_param.is_some() || self.ask == Ask::Unpaged
    }

    /// Whether `count_only` can answer: a total is declared, or an unpaged answer is counted.
    pub fn counts(&self) -> bool {
        self.total.is_some() || self.ask == Ask::Unpaged
    }

    /// The query parameter names this paging sends (a tool's own may not reuse them).
    pub fn params(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .size_param
            .iter()
            .chain(&self.select_param)
            .map(String::as_str)
            .collect();
        match &self.ask {
            Ask::Page { param, .. } | Ask::Offset { param } | Ask::Cursor { param } => {
                out.push(param)
            }
            Ask::NextUrl | Ask::LinkHeader | Ask::Unpaged => {}
        }
        out
    }

    /// The query pairs that ask for the model's 1-based `page` of `size` items, or for the
    /// page after `cursor` (the upstream's token, `cursor` style). Next-URL styles ask only
    /// for a size: their later pages are whole URLs.
    pub fn query(&self, page: u32, size: u32, cursor: Option<&str>) -> Vec<(String, String)> {
        let skipped = u64::from(page.saturating_sub(1)) * u64::from(size);
        let mut out = Vec::new();
        let size_pair = |out: &mut Vec<(String, String)>| {
            if let Some(name) = &self.size_param {
                out.push((name.clone(), size.to_string()));
            }
        };
        match &self.ask {
            Ask::Page { param, first } => {
                let number = u64::from(page.saturating_sub(1)) + u64::from(*first);
                out.push((param.clone(), number.to_string()));
                size_pair(&mut out);
            }
            Ask::Offset { param } => {
                out.push((param.clone(), skipped.to_string()));
                size_pair(&mut out);
            }
            Ask::Cursor { param } => {
                size_pair(&mut out);
                if let Some(token) = cursor {
                    out.push((param.clone(), token.to_string()));
                }
            }
            Ask::NextUrl | Ask::LinkHeader => size_pair(&mut out),
            Ask::Unpaged => {}
        }
        out
    }

    /// One answer's page; `None` when it has no items array where declared.
    pub fn read<'a>(&self, body: &'a Value) -> Option<PageRead<'a>> {
        let items = match body.pointer(&self.items) {
            Some(items) => items.as_array()?.as_slice(),
            None if self.omits_empty && body.is_object() => &[],
            None => return None,
        };
        let at = |p: &Option<String>| p.as_deref().and_then(|p| body.pointer(p));
        let next = match self.ask {
            Ask::Cursor { .. } | Ask::NextUrl => at(&self.next)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty()),
            _ => None,
        };
        Some(PageRead {
            items,
            total: at(&self.total).and_then(Value::as_u64),
            more: at(&self.more).and_then(Value::as_bool),
            next,
        })
    }

    /// The model's 1-based `page` of `size` items in one answer: the answer's own page, or, for
    /// an unpaged list, that slice of every item the answer holds, with their number as the
    /// total and whether any follow. `None` when it has no items array where declared.
    pub fn page<'a>(&self, body: &'a Value, page: u32, size: u32) -> Option<PageRead<'a>> {
        let read = self.read(body)?;
        if self.ask != Ask::Unpaged {
            return Some(read);
        }
        let all = read.items;
        let skipped = (page.saturating_sub(1) as usize).saturating_mul(size as usize);
        let start = skipped.min(all.len());
        let end = start.saturating_add(size as usize).min(all.len());
        Some(PageRead {
            items: &all[start..end],
            total: Some(all.len() as u64),
            more: Some(end < all.len()),
            next: None,
        })
    }

    /// Whether a numbered page (`page`, `offset`, `unpaged`) has more behind it: the `more` flag, else
    /// the total, else (declared `paging` only) a full page.
    pub fn numbered_more(&self, read: &PageRead<'_>, page: u32, size: u32) -> bool {
        read.more.unwrap_or_else(|| match read.total {
            Some(t) => u64::from(page) * u64::from(size) < t,
            None => self.infer_more && read.items.len() >= size as usize,
        })
    }
}

/// A dotted field path (`meta.total`) as a JSON pointer (`/meta/total`), escaped.
pub fn pointer_of_dotted(dotted: &str) -> String {
    dotted
        .split('.')
        .map(|part| format!("/{}", part.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// The target of the `rel="next"` link in an RFC 8288 `Link` header value, if any.
pub fn link_next(header: &str) -> Option<&str> {
    let mut rest = header;
    while let Some(open) = rest.find('<') {
        let close = open + rest[open..].find('>')?;
        let target = &rest[open + 1..close];
        let after = &rest[close + 1..];
        // The link's parameters run to the next link (`, <`), or the end.
        let end = after.find(", <").or_else(|| after.find(",<"));
        let params = &after[..end.unwrap_or(after.len())];
        let is_next = params.split(';').any(|p| {
            let Some((name, value)) = p.split_once('=') else {
                return false;
            };
            name.trim().eq_ignore_ascii_case("rel")
                && value
                    .trim()
                    .trim_matches('"')
                    .split_ascii_whitespace()
                    .any(|r| r.eq_ignore_ascii_case("next"))
        });
        if is_next {
            return Some(target.trim());
        }
        rest = &after[end.map_or(after.len(), |e| e + 1)..];
    }
    None
}

/// A plain query parameter name: no separators a URL would split on.
fn plain(name: &str) -> bool {
    !name.is_empty() && !name.contains(['&', '=', '#', '?', ' ', '/'])
}

fn pointer(p: &str) -> bool {
    p.is_empty() || p.starts_with('/')
}

/// The catalog's `paging` declaration's problems, each a sentence for the loader.
pub(crate) fn problems(c: &Catalog) -> Vec<String> {
    let Some(p) = &c.paging else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if c.list_envelope.is_some() {
        out.push(
            "declare `paging` or the older `list_envelope`, not both: they say the same thing"
                .into(),
        );
    }
    out.extend(style_problems(p));
    out
}

/// A tool's own `paging`: only on a list tool, and checked as the catalog's is.
pub(crate) fn tool_problems(t: &Tool) -> Vec<String> {
    let Some(p) = &t.paging else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if !t.list {
        out.push("`paging` says how a list pages: declare it on a `list: true` tool".into());
    }
    out.extend(style_problems(p));
    out
}

/// One `paging` declaration's problems: each style's fields, names and pointers.
fn style_problems(p: &Paging) -> Vec<String> {
    let mut out = Vec::new();
    let style = p.style.as_str();
    let needs = |field: &str, set: bool, out: &mut Vec<String>| {
        if !set {
            out.push(format!("paging style `{style}` needs `{field}`"));
        }
    };
    let refuses = |field: &str, set: bool, out: &mut Vec<String>| {
        if set {
            out.push(format!("paging style `{style}` does not use `{field}`"));
        }
    };
    let (page, offset, cursor, next) = match p.style {
        PagingStyle::Page => (true, false, false, false),
        PagingStyle::Offset => (false, true, false, false),
        PagingStyle::Cursor => (false, false, true, true),
        PagingStyle::NextUrl => (false, false, false, true),
        PagingStyle::LinkHeader | PagingStyle::Unpaged => (false, false, false, false),
    };
    for (field, wanted, set) in [
        ("page_param", page, p.page_param.is_some()),
        ("offset_param", offset, p.offset_param.is_some()),
        ("cursor_param", cursor, p.cursor_param.is_some()),
        ("next", next, p.next.is_some()),
    ] {
        if wanted {
            needs(field, set, &mut out);
        } else {
            refuses(field, set, &mut out);
        }
    }
    refuses("first_page", !page && p.first_page.is_some(), &mut out);
    if p.style == PagingStyle::Unpaged {
        // One answer holds every item: nothing to ask for, and the count is its length.
        refuses("size_param", p.size_param.is_some(), &mut out);
        refuses("total", p.total.is_some(), &mut out);
        refuses("more", p.more.is_some(), &mut out);
    }
    if matches!(p.style, PagingStyle::Page | PagingStyle::Offset) {
        needs("size_param", p.size_param.is_some(), &mut out);
    }
    if p.first_page.is_some_and(|f| f > 1) {
        out.push("paging.first_page is 0 or 1".into());
    }
    for name in [
        &p.page_param,
        &p.size_param,
        &p.offset_param,
        &p.cursor_param,
        &p.select_param,
    ]
    .into_iter()
    .flatten()
    {
        if !plain(name) {
            out.push(format!(
                "paging: `{name}` is not a plain query parameter name"
            ));
        }
    }
    if !pointer(&p.items) {
        out.push(format!(
            "paging.items `{}` is not a JSON pointer (write `/data`, or `\"\"` for a bare array)",
            p.items
        ));
    }
    for (field, value) in [("total", &p.total), ("more", &p.more), ("next", &p.next)] {
        if let Some(v) = value
            && (v.is_empty() || !pointer(v))
        {
            out.push(format!(
                "paging.{field} `{v}` is not a JSON pointer into the body (write `/meta/{field}`)"
            ));
        }
    }
    if p.max_page_size == 0 {
        out.push("paging.max_page_size must be at least 1".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pager(yaml: &str) -> Pager {
        Pager::from_paging(&yaml_serde::from_str::<Paging>(yaml).unwrap())
    }

    #[test]
    fn an_omitted_empty_list_is_an_empty_page_only_when_declared() {
        let google = pager(
            "{ style: cursor, items: /messages, cursor_param: pageToken, next: /nextPageToken, omits_empty: true }",
        );
        let empty = json!({"resultSizeEstimate": 0});
        let read = google.read(&empty).unwrap();
        assert!(read.items.is_empty() && read.next.is_none());
        assert!(google.read(&json!([])).is_none(), "not an object");
        assert!(
            google.read(&json!({"messages": "x"})).is_none(),
            "not an array"
        );
        let strict = pager(
            "{ style: cursor, items: /messages, cursor_param: pageToken, next: /nextPageToken }",
        );
        assert!(strict.read(&empty).is_none());
    }

    fn pairs(p: &Pager, page: u32, size: u32, cursor: Option<&str>) -> String {
        p.query(page, size, cursor)
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    }

    #[test]
    fn numbered_and_offset_styles_translate_the_models_page() {
        let one = pager("{style: page, items: /data, page_param: page, size_param: per_page}");
        assert_eq!(pairs(&one, 3, 20, None), "page=3&per_page=20");
        let zero =
            pager("{style: page, items: /items, page_param: p, first_page: 0, size_param: size}");
        assert_eq!(pairs(&zero, 1, 20, None), "p=0&size=20");
        assert_eq!(pairs(&zero, 3, 20, None), "p=2&size=20");
        let offset =
            pager("{style: offset, items: /objects, offset_param: offset, size_param: limit}");
        assert_eq!(pairs(&offset, 1, 50, None), "offset=0&limit=50");
        assert_eq!(pairs(&offset, 3, 50, None), "offset=100&limit=50");
        let skip = pager("{style: offset, items: /data, offset_param: skip, size_param: take}");
        assert_eq!(pairs(&skip, 2, 10, None), "skip=10&take=10");
    }

    #[test]
    fn cursor_styles_send_a_size_and_the_cursor_back() {
        let google = pager(
            "{style: cursor, items: /files, cursor_param: pageToken, size_param: pageSize, next: /nextPageToken}",
        );
        assert_eq!(pairs(&google, 1, 10, None), "pageSize=10");
        assert_eq!(
            pairs(&google, 1, 10, Some("t2")),
            "pageSize=10&pageToken=t2"
        );
        let graph = pager("{style: next_url, items: /value, next: /@odata.nextLink}");
        assert_eq!(pairs(&graph, 1, 10, None), "");
        assert!(graph.by_cursor() && !graph.sized() && !graph.counts());
    }

    #[test]
    fn a_list_envelope_is_the_pager_it_always_was() {
        let env: ListEnvelope =
            yaml_serde::from_str("{items: entries, total: total_entries, more: has_more}").unwrap();
        let p = Pager::from_envelope(&env);
        assert_eq!(pairs(&p, 2, 50, None), "page=2&page_size=50");
        assert_eq!(p.items, "/entries");
        assert_eq!(p.total.as_deref(), Some("/total_entries"));
        assert!(!p.infer_more && !p.by_cursor());
        let body = json!({"entries": [1, 2], "total_entries": 7, "has_more": true});
        let read = p.read(&body).unwrap();
        assert_eq!(
            (read.items.len(), read.total, read.more),
            (2, Some(7), Some(true))
        );
        assert_eq!(pointer_of_dotted("meta.a/b~c"), "/meta/a~1b~0c");
    }

    #[test]
    fn bare_arrays_and_envelopes_are_read_by_pointer() {
        let bare = pager("{style: link_header, items: \"\", size_param: per_page}");
        let body = json!([{"id": 1}, {"id": 2}]);
        assert_eq!(bare.read(&body).unwrap().items.len(), 2);
        assert!(bare.read(&json!({"data": []})).is_none());
        let cal = pager(
            "{style: offset, items: /data, offset_param: skip, size_param: take, total: /pagination/totalItems, more: /pagination/hasNextPage}",
        );
        let body = json!({"status": "success", "data": [{"id": 1}],
                          "pagination": {"totalItems": 11, "hasNextPage": true}});
        let read = cal.read(&body).unwrap();
        assert_eq!((read.total, read.more), (Some(11), Some(true)));
    }

    #[test]
    fn more_comes_from_the_flag_the_total_or_a_full_page() {
        let p = pager("{style: offset, items: \"\", offset_param: offset, size_param: limit}");
        let full = json!([1, 2]);
        let short = json!([1]);
        assert!(p.numbered_more(&p.read(&full).unwrap(), 1, 2));
        assert!(!p.numbered_more(&p.read(&short).unwrap(), 1, 2));
        let env: ListEnvelope = yaml_serde::from_str("{items: e}").unwrap();
        let legacy = Pager::from_envelope(&env);
        let body = json!({"e": [1, 2]});
        assert!(!legacy.numbered_more(&legacy.read(&body).unwrap(), 1, 2));
    }

    #[test]
    fn the_next_link_is_found_among_others() {
        let github = r#"<https://api.github.com/repositories/1/issues?page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=5>; rel="last""#;
        assert_eq!(
            link_next(github),
            Some("https://api.github.com/repositories/1/issues?page=2")
        );
        let first_is_prev =
            r#"<https://x.test/a?page=1>; rel="prev", <https://x.test/a?page=3>; rel="next""#;
        assert_eq!(link_next(first_is_prev), Some("https://x.test/a?page=3"));
        assert_eq!(
            link_next(r#"<https://x.test/a?p=2>; rel="next last""#),
            Some("https://x.test/a?p=2")
        );
        assert_eq!(link_next(r#"<https://x.test/a?p=1>; rel="prev""#), None);
        assert_eq!(link_next("garbage"), None);
    }

    fn problems_of(paging: &str) -> Vec<String> {
        let text = format!(
            "connector: c\nbase_url: \"https://x.test\"\npaging: {paging}\ntools:\n  - name: c_things_list\n    risk: low\n    description: d\n    list: true\n    get: /things\n"
        );
        let catalog: Catalog = yaml_serde::from_str(&text).unwrap();
        problems(&catalog)
    }

    #[test]
    fn each_style_needs_its_fields_and_pointers_are_pointers() {
        assert!(problems_of("{style: page, items: /d, page_param: p, size_param: s}").is_empty());
        assert_eq!(
            problems_of("{style: page, items: /d, size_param: s}"),
            ["paging style `page` needs `page_param`"]
        );
        assert_eq!(
            problems_of("{style: offset, items: /d, offset_param: o}"),
            ["paging style `offset` needs `size_param`"]
        );
        assert_eq!(
            problems_of("{style: cursor, items: /d, cursor_param: c}"),
            ["paging style `cursor` needs `next`"]
        );
        assert_eq!(
            problems_of("{style: link_header, items: /d, next: /n}"),
            ["paging style `link_header` does not use `next`"]
        );
        assert_eq!(
            problems_of("{style: next_url, items: data, next: /next}"),
            [
                "paging.items `data` is not a JSON pointer (write `/data`, or `\"\"` for a bare array)"
            ]
        );
        assert_eq!(
            problems_of("{style: next_url, items: \"\", next: next}").len(),
            1
        );
        assert_eq!(
            problems_of("{style: page, items: /d, page_param: p, size_param: s, first_page: 2}"),
            ["paging.first_page is 0 or 1"]
        );
        assert_eq!(
            problems_of("{style: offset, items: /d, offset_param: \"a&b\", size_param: s}"),
            ["paging: `a&b` is not a plain query parameter name"]
        );
    }

    #[test]
    fn an_unpaged_list_asks_for_nothing_and_is_cut_into_the_models_pages() {
        let p = pager("{style: unpaged, items: /data}");
        assert_eq!(pairs(&p, 2, 10, None), "");
        assert!(p.params().is_empty());
        assert!(p.sized() && p.counts() && !p.by_cursor());
        let body = json!({"status": "success", "data": [{"id": 1}, {"id": 2}, {"id": 3}]});
        let ids = |read: PageRead<'_>| -> (Vec<i64>, Option<u64>, Option<bool>) {
            let ids = read
                .items
                .iter()
                .map(|i| i["id"].as_i64().unwrap())
                .collect();
            (ids, read.total, read.more)
        };
        assert_eq!(
            ids(p.page(&body, 1, 2).unwrap()),
            (vec![1, 2], Some(3), Some(true))
        );
        assert_eq!(
            ids(p.page(&body, 2, 2).unwrap()),
            (vec![3], Some(3), Some(false))
        );
        assert_eq!(
            ids(p.page(&body, 9, 2).unwrap()),
            (vec![], Some(3), Some(false))
        );
        assert!(p.numbered_more(&p.page(&body, 1, 2).unwrap(), 1, 2));
        assert!(p.page(&json!({"data": {"data": []}}), 1, 2).is_none());
        // A paged style's page is the answer's own.
        let offset = pager("{style: offset, items: /data, offset_param: skip, size_param: take}");
        assert_eq!(offset.page(&body, 2, 2).unwrap().items.len(), 3);
        assert_eq!(
            problems_of("{style: unpaged, items: /d, size_param: s, total: /t, more: /m}"),
            [
                "paging style `unpaged` does not use `size_param`",
                "paging style `unpaged` does not use `total`",
                "paging style `unpaged` does not use `more`",
            ]
        );
        assert!(problems_of("{style: unpaged, items: /data/data}").is_empty());
    }

    #[test]
    fn a_list_tool_may_page_its_own_way() {
        let text = |catalog_paging: &str, tool_paging: &str, list: bool| {
            format!(
                "connector: c\nbase_url: \"https://x.test\"\n{catalog_paging}tools:\n  - name: c_things_list\n    risk: low\n    description: d\n    list: true\n    get: /things\n  - name: c_kinds_list\n    risk: low\n    description: d\n    list: {list}\n    get: /kinds\n    {tool_paging}\n"
            )
        };
        let skip_take =
            "paging: { style: offset, items: /data, offset_param: skip, size_param: take }\n";
        let c = crate::parse(
            "c.yaml",
            &text(
                skip_take,
                "paging: { style: unpaged, items: /data/data }",
                true,
            ),
        )
        .unwrap();
        let (things, kinds) = (&c.tools[0], &c.tools[1]);
        assert_eq!(c.pager_for(things), c.pager());
        let own = c.pager_for(kinds).unwrap();
        assert_eq!((own.ask, own.items.as_str()), (Ask::Unpaged, "/data/data"));
        // Its own paging is checked as the catalog's is, and only a list tool has one.
        let err = crate::parse(
            "c.yaml",
            &text(
                skip_take,
                "paging: { style: unpaged, items: /d, total: /n }",
                true,
            ),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("tool `c_kinds_list`: paging style `unpaged` does not use `total`"),
            "{err}"
        );
        let err = crate::parse(
            "c.yaml",
            &text(skip_take, "paging: { style: unpaged, items: /d }", false),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("declare it on a `list: true` tool"), "{err}");
        // Every list tool paging its own way needs no catalog paging; one that does not, does.
        let unpaged = "paging: { style: unpaged, items: /d }";
        let err = crate::parse("c.yaml", &text("", unpaged, true))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("tool `c_things_list`: list tool, but neither it nor the catalog"),
            "{err}"
        );
    }

    #[test]
    fn the_loader_names_an_unknown_style_and_a_doubled_declaration() {
        let text = |paging: &str| {
            format!(
                "connector: c\nbase_url: \"https://x.test\"\n{paging}\ntools:\n  - name: c_things_list\n    risk: low\n    description: d\n    list: true\n    get: /things\n"
            )
        };
        let err = crate::parse("c.yaml", &text("paging: { style: pages, items: /d }"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("c.yaml:3:") && err.contains("unknown variant `pages`"),
            "{err}"
        );
        let both = "list_envelope: { items: d }\npaging: { style: link_header, items: \"\" }";
        let err = crate::parse("c.yaml", &text(both)).unwrap_err().to_string();
        assert!(err.contains("not both"), "{err}");
        let clash =
            text("paging: { style: offset, items: /d, offset_param: offset, size_param: limit }")
                + "    params:\n      max: { type: integer, as: limit, min: 1, max: 9 }\n";
        let err = crate::parse("c.yaml", &clash).unwrap_err().to_string();
        assert!(err.contains("a query parameter the paging sends"), "{err}");
        assert!(
            crate::parse(
                "c.yaml",
                &text("paging: { style: link_header, items: \"\" }")
            )
            .is_ok()
        );
    }
}
