//! How a list answer is paged and where its items are.

use serde::{Deserialize, Serialize};

use super::text::Text;

/// How the next page is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PagingStyle {
    /// Numbered pages: `page_param` (from `first_page`, 0 or 1) and `size_param`.
    Page,
    /// An offset and a limit (`offset`/`limit`, `skip`/`take`): `offset_param`, `size_param`.
    Offset,
    /// An opaque cursor from the body (`next`) sent back as `cursor_param` (`pageToken`).
    Cursor,
    /// A full URL of the next page in the body (`next`: Replicate's `next`, Graph's
    /// `@odata.nextLink`), followed only within the connector's base URL.
    NextUrl,
    /// The `Link: <…>; rel="next"` response header (RFC 8288), followed like `next_url`.
    LinkHeader,
    /// No paging: one answer holds every item (`items`), and the model's pages are cut from it.
    Unpaged,
}

impl PagingStyle {
    pub fn as_str(self) -> &'static str {
        match self {
            PagingStyle::Page => "page",
            PagingStyle::Offset => "offset",
            PagingStyle::Cursor => "cursor",
            PagingStyle::NextUrl => "next_url",
            PagingStyle::LinkHeader => "link_header",
            PagingStyle::Unpaged => "unpaged",
        }
    }
}

/// The `paging` declaration: a style, its parameter names and JSON pointers into the answer.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Paging {
    pub style: PagingStyle,
    /// JSON pointer to the items array; `""` when the body is the array.
    pub items: Text,
    /// `page`: the query parameter of the page number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_param: Option<Text>,
    /// `page`: the number of the first page, 0 or 1 (1 when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_page: Option<u32>,
    /// The query parameter of the page size (`per_page`, `limit`, `take`, `pageSize`); needed
    /// by `page` and `offset`, optional otherwise (the upstream's own size when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_param: Option<Text>,
    /// `offset`: the query parameter of the number of items skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset_param: Option<Text>,
    /// `cursor`: the query parameter the cursor goes back in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor_param: Option<Text>,
    /// JSON pointer to the total number of matches; `count_only` needs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<Text>,
    /// JSON pointer to a boolean "more pages follow".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub more: Option<Text>,
    /// `cursor`, `next_url`: JSON pointer to the next cursor or the next page's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<Text>,
    /// The query parameter that asks the upstream for only the item fields the result shows
    /// (OData's `$select`): the top-level names of the `fields` asked for, else of
    /// `default_fields`, comma-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select_param: Option<Text>,
    /// Largest page the upstream serves.
    #[serde(default = "default_max_page_size")]
    pub max_page_size: u32,
    /// The upstream leaves an empty items array out of its answer (Google's JSON omits empty
    /// repeated fields: `{}` or `{"resultSizeEstimate": 0}`): an object answer without it is an
    /// empty page, not a broken one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub omits_empty: bool,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ListEnvelope {
    /// Field holding the items.
    pub items: Text,
    /// Query parameter names the upstream uses for paging.
    #[serde(default = "default_page")]
    pub page_param: Text,
    #[serde(default = "default_page_size")]
    pub page_size_param: Text,
    /// Response fields with the total count and the "more pages" flag.
    #[serde(default)]
    pub total: Option<Text>,
    #[serde(default)]
    pub more: Option<Text>,
    /// Largest page the upstream serves.
    #[serde(default = "default_max_page_size")]
    pub max_page_size: u32,
}

fn default_page() -> Text {
    Text::from_static("page")
}
fn default_page_size() -> Text {
    Text::from_static("page_size")
}
fn default_max_page_size() -> u32 {
    100
}
