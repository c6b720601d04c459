//! List endpoints: filters, ordering, paging and the `{type: "list", …}` envelope.

use super::error::ApiError;
use axum::Json;
use axum::extract::Query;
use axum::extract::rejection::QueryRejection;
use jiff::civil::Date;
use serde::Serialize;
use serde_json::Value;
use std::cmp::Ordering;

/// Page size when the client sends none (the upstream answers an unparameterised list with 100).
pub const DEFAULT_PAGE_SIZE: u64 = 100;
/// Larger `page_size` values are clamped to this; the envelope reports the size actually used.
pub const MAX_PAGE_SIZE: u64 = 100;

/// Query parameters in request order; a repeated key takes its last value.
pub(crate) struct Params(Vec<(String, String)>);

impl Params {
    pub(crate) fn from_query(
        q: Result<Query<Vec<(String, String)>>, QueryRejection>,
    ) -> Result<Self, ApiError> {
        q.map(|Query(pairs)| Params(pairs))
            .map_err(|e| ApiError::unprocessable(e.body_text()))
    }

    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

type IdOf<T> = fn(&T) -> Option<u64>;
type DateOf<T> = fn(&T) -> Option<Date>;

/// A filter a list endpoint understands; every name in an `Id` filter's list is an alias.
pub(crate) enum Filter<T> {
    Id(&'static [&'static str], IdOf<T>),
    DateFrom(&'static str, DateOf<T>),
    DateTo(&'static str, DateOf<T>),
}

#[derive(Debug, Serialize)]
pub(crate) struct Envelope<E> {
    #[serde(rename = "type")]
    kind: &'static str,
    page: u64,
    page_size: u64,
    total_pages: u64,
    total_entries: u64,
    has_more: bool,
    entries: Vec<E>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Paging {
    pub page: u64,
    pub page_size: u64,
}

impl Paging {
    pub(crate) fn parse(p: &Params) -> Result<Self, ApiError> {
        let positive = |key: &str, default: u64| match p.get(key) {
            None => Ok(default),
            Some(v) => v.parse::<u64>().ok().filter(|n| *n >= 1).ok_or_else(|| {
                ApiError::unprocessable(format!("{key} must be a positive integer, got {v:?}"))
            }),
        };
        Ok(Paging {
            page: positive("page", 1)?,
            page_size: positive("page_size", DEFAULT_PAGE_SIZE)?.min(MAX_PAGE_SIZE),
        })
    }

    /// `(offset, total_pages, has_more)` for `total` entries; pages past the end are empty.
    pub(crate) fn window(self, total: u64) -> (u64, u64, bool) {
        let total_pages = total.div_ceil(self.page_size);
        (
            (self.page - 1).saturating_mul(self.page_size),
            total_pages,
            self.page < total_pages,
        )
    }
}

fn parse_id(key: &str, v: &str) -> Result<u64, ApiError> {
    v.parse::<u64>().ok().filter(|n| *n >= 1).ok_or_else(|| {
        ApiError::unprocessable(format!("{key} must be a positive integer, got {v:?}"))
    })
}

pub(crate) fn parse_date(key: &str, v: &str) -> Result<Date, ApiError> {
    let shaped = v.len() == 10 && v.as_bytes()[4] == b'-' && v.as_bytes()[7] == b'-';
    shaped
        .then(|| v.parse::<Date>().ok())
        .flatten()
        .ok_or_else(|| {
            ApiError::unprocessable(format!("{key} must be a date like 2025-03-31, got {v:?}"))
        })
}

fn keep<T>(filters: &[Filter<T>], p: &Params) -> Result<impl Fn(&T) -> bool, ApiError> {
    let mut ids: Vec<(u64, IdOf<T>)> = Vec::new();
    let mut from: Vec<(Date, DateOf<T>)> = Vec::new();
    let mut to: Vec<(Date, DateOf<T>)> = Vec::new();
    for f in filters {
        match f {
            Filter::Id(keys, get) => {
                for key in *keys {
                    if let Some(v) = p.get(key) {
                        ids.push((parse_id(key, v)?, *get));
                    }
                }
            }
            Filter::DateFrom(key, get) => {
                if let Some(v) = p.get(key) {
                    from.push((parse_date(key, v)?, *get));
                }
            }
            Filter::DateTo(key, get) => {
                if let Some(v) = p.get(key) {
                    to.push((parse_date(key, v)?, *get));
                }
            }
        }
    }
    Ok(move |t: &T| {
        ids.iter().all(|(id, get)| get(t) == Some(*id))
            && from.iter().all(|(d, get)| get(t).is_some_and(|x| x >= *d))
            && to.iter().all(|(d, get)| get(t).is_some_and(|x| x <= *d))
    })
}

/// Scalars order null < bool < number < string; strings (ISO dates too) compare bytewise.
fn compare(a: &Value, b: &Value) -> Ordering {
    let rank = |v: &Value| match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 2,
        _ => 3,
    };
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Number(x), Value::Number(y)) => x
            .as_f64()
            .partial_cmp(&y.as_f64())
            .unwrap_or(Ordering::Equal),
        (Value::String(x), Value::String(y)) => x.cmp(y),
        _ => rank(a).cmp(&rank(b)),
    }
}

fn to_value<E: Serialize>(e: &E) -> Value {
    serde_json::to_value(e).expect("demo records serialize")
}

/// Answers a list request over `all` (sorted by id) restricted to `scope`.
pub(crate) fn respond<'a, T, E: Serialize>(
    all: &'a [T],
    scope: impl Fn(&T) -> bool,
    entry: impl Fn(&'a T) -> E,
    filters: &[Filter<T>],
    p: &Params,
) -> Result<Json<Envelope<E>>, ApiError> {
    let paging = Paging::parse(p)?;
    let keep = keep(filters, p)?;
    let mut items: Vec<&T> = all.iter().filter(|t| scope(t) && keep(t)).collect();

    let descending = match p.get("order_direction") {
        None => false,
        Some(v) if v.eq_ignore_ascii_case("asc") => false,
        Some(v) if v.eq_ignore_ascii_case("desc") => true,
        Some(v) => {
            return Err(ApiError::unprocessable(format!(
                "order_direction must be asc or desc, got {v:?}"
            )));
        }
    };
    if let Some(field) = p.get("order_by") {
        let sortable = all.first().map(|t| to_value(&entry(t))).is_some_and(
            |sample| matches!(sample.get(field), Some(v) if !v.is_object() && !v.is_array()),
        );
        if !sortable {
            return Err(ApiError::unprocessable(format!(
                "cannot order by {field:?}"
            )));
        }
        let key = |t: &'a T| {
            to_value(&entry(t))
                .get_mut(field)
                .map_or(Value::Null, Value::take)
        };
        let mut keyed: Vec<(Value, &T)> = items.into_iter().map(|t| (key(t), t)).collect();
        keyed.sort_by(|(a, _), (b, _)| {
            if descending {
                compare(b, a)
            } else {
                compare(a, b)
            }
        });
        items = keyed.into_iter().map(|(_, t)| t).collect();
    } else if descending {
        items.reverse();
    }

    let total = items.len() as u64;
    let (offset, total_pages, has_more) = paging.window(total);
    let entries = items
        .into_iter()
        .skip(usize::try_from(offset).unwrap_or(usize::MAX))
        .take(paging.page_size as usize)
        .map(entry)
        .collect();
    Ok(Json(Envelope {
        kind: "list",
        page: paging.page,
        page_size: paging.page_size,
        total_pages,
        total_entries: total,
        has_more,
        entries,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Params {
        Params(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn paging_arithmetic_matches_the_envelope_rules() {
        let p = |page, page_size| Paging { page, page_size };
        assert_eq!(p(1, 100).window(215), (0, 3, true));
        assert_eq!(p(3, 100).window(215), (200, 3, false));
        assert_eq!(p(4, 100).window(215), (300, 3, false));
        assert_eq!(p(1, 10).window(0), (0, 0, false));
        assert_eq!(p(5, 2).window(9), (8, 5, false));
    }

    #[test]
    fn paging_defaults_clamps_and_rejects() {
        assert_eq!(
            Paging::parse(&params(&[])).unwrap(),
            Paging {
                page: 1,
                page_size: 100
            }
        );
        assert_eq!(
            Paging::parse(&params(&[("page_size", "500")]))
                .unwrap()
                .page_size,
            MAX_PAGE_SIZE
        );
        for bad in [
            ("page", "0"),
            ("page", "-1"),
            ("page", "x"),
            ("page_size", "0"),
        ] {
            assert!(Paging::parse(&params(&[bad])).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn dates_must_be_plain_iso_days() {
        assert!(parse_date("d", "2025-02-28").is_ok());
        for bad in ["2025-02-30", "28.02.2025", "2025-2-28", "2025-02-28T00:00"] {
            assert!(parse_date("d", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn mixed_json_scalars_have_a_total_order() {
        let v = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        assert_eq!(compare(&v("null"), &v("1")), Ordering::Less);
        assert_eq!(compare(&v("9.5"), &v("10")), Ordering::Less);
        assert_eq!(
            compare(&v("\"2025-01-02\""), &v("\"2025-01-10\"")),
            Ordering::Less
        );
    }
}
