//! How to refine: the advice that ends every answer. Each tip is words for the model and, when it
//! changes arguments, the complete arguments to send again (`refine` in the structured answer),
//! written from the same request, so every advised call is one `search_tools` accepts: no
//! placeholder (`limit=N`), no empty query without a connector.

use serde_json::Value;

use super::arguments::{Detail, MAX_LIMIT, SearchRequest};

/// One piece of advice.
pub(super) struct Tip {
    /// As the footer says it.
    text: String,
    /// The arguments it advises sending, when it is a call.
    args: Option<Value>,
}

impl Tip {
    fn words(text: &str) -> Tip {
        Tip {
            text: text.to_string(),
            args: None,
        }
    }

    /// `change` applied to the request, said as `said` and sent as the whole request.
    fn call(q: &SearchRequest, said: String, change: impl FnOnce(&mut SearchRequest)) -> Tip {
        let mut next = q.clone();
        change(&mut next);
        Tip {
            text: said,
            args: Some(next.arguments()),
        }
    }
}

/// The tips of one answer, in the order the footer says them.
pub(super) struct Advice(Vec<Tip>);

impl Advice {
    /// "Refine: …." for the footer.
    pub(super) fn text(&self) -> String {
        let tips: Vec<&str> = self.0.iter().map(|t| t.text.as_str()).collect();
        format!("Refine: {}.", tips.join(", "))
    }

    /// The advised calls' arguments, for the structured answer.
    pub(super) fn calls(&self) -> Value {
        self.0.iter().filter_map(|t| t.args.clone()).collect()
    }
}

/// What one page of matches shows, as far as advice depends on it.
pub(super) struct Shown<'a> {
    pub(super) matched: usize,
    pub(super) shown: usize,
    pub(super) level: Detail,
    /// The connector with the most matches, when several matched.
    pub(super) top_connector: Option<&'a str>,
}

/// Advice after matches: narrower or other words, the connector, the detail level, and the
/// limit that shows every match when some are not shown.
pub(super) fn after_matches(q: &SearchRequest, page: &Shown<'_>) -> Advice {
    let mut tips = vec![Tip::words(
        if page.shown < page.matched || page.level != Detail::Full {
            "a narrower query"
        } else {
            "other words for other tools"
        },
    )];
    let browsing = q.query.trim().is_empty();
    match (&q.connector, page.top_connector) {
        (None, Some(c)) => tips.push(Tip::call(q, format!("connector=\"{c}\""), |n| {
            n.connector = Some(c.to_string())
        })),
        // Without a connector an empty query is refused: say so in words.
        (Some(_), _) if browsing => tips.push(Tip::words("a query to search all connectors")),
        (Some(_), _) => tips.push(Tip::call(
            q,
            "no connector to search all connectors".into(),
            |n| n.connector = None,
        )),
        _ => {}
    }
    tips.push(if page.level == Detail::Full {
        Tip::call(q, "detail=\"summary\" for one line per tool".into(), |n| {
            n.detail = Some(Detail::Summary)
        })
    } else {
        Tip::call(q, "detail=\"full\" for schemas".into(), |n| {
            n.detail = Some(Detail::Full)
        })
    });
    if page.shown < page.matched && page.level != Detail::Counts {
        let all = page.matched.min(MAX_LIMIT);
        tips.push(Tip::call(q, format!("limit={all} to show more"), |n| {
            n.limit = Some(all)
        }));
    }
    Advice(tips)
}

/// Advice when nothing matched: other words, or browsing the nearest connector (`example`).
pub(super) fn after_no_match(q: &SearchRequest, example: Option<&str>) -> Advice {
    let mut tips = vec![Tip::words("other words (German or English) or a tool name")];
    if let Some(c) = example {
        tips.push(Tip::call(
            q,
            format!("query=\"\" with connector=\"{c}\" to browse one connector"),
            |n| {
                n.query = String::new();
                n.connector = Some(c.to_string());
                n.detail = None;
                n.limit = None;
            },
        ));
    }
    if q.connector.is_some() && !q.query.trim().is_empty() {
        tips.push(Tip::call(
            q,
            "no connector to search all connectors".into(),
            |n| n.connector = None,
        ));
    }
    Advice(tips)
}
