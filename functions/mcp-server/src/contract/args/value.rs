//! One value checked against its param: numbers (numeric strings too), booleans, real calendar
//! dates and moments, bounds and enums; an array's items each checked the same way, named
//! `line_items[1].price` or `entertainment_persons[2]`.

use std::collections::BTreeMap;

use catalog::{Param, ParamType};
use serde_json::{Map, Value};

use super::{Invalid, invalid};
use crate::contract::names::{closest, shown};

pub(super) fn describe(p: &Param) -> String {
    let mut s = match p.kind {
        ParamType::String => "string".to_string(),
        ParamType::Integer => "integer".to_string(),
        ParamType::Number => "number".to_string(),
        ParamType::Boolean => "true or false".to_string(),
        ParamType::Date => "date YYYY-MM-DD".to_string(),
        ParamType::TimeZone => "IANA time zone (Europe/Berlin, UTC)".to_string(),
        ParamType::Datetime => {
            "date-time with its zone (2026-05-04T10:00:00+02:00 or 2026-05-04T10:00[Europe/Berlin])"
                .to_string()
        }
        ParamType::Array => match &p.item {
            Some(item) => format!(
                "list of at most {} values, each {}",
                p.max_items.unwrap_or(0),
                describe(item)
            ),
            None => {
                let fields: Vec<&str> = p.items.iter().flatten().map(|(n, _)| n.as_str()).collect();
                format!(
                    "list of at most {} objects with {}",
                    p.max_items.unwrap_or(0),
                    fields.join(", ")
                )
            }
        },
    };
    if let Some(min) = p.min {
        s.push_str(&format!(", ≥ {min}"));
    }
    if let Some(max) = p.max {
        s.push_str(&format!(", ≤ {max}"));
    }
    if let Some(choices) = &p.choices {
        s.push_str(&format!(", one of {}", choices.join(", ")));
    }
    s
}

/// 00:00 of `date` in `zone` as Unix seconds (a param's `unix_time`).
fn unix_seconds(name: &str, date: jiff::civil::Date, zone: &str) -> Result<i64, Invalid> {
    jiff::tz::TimeZone::get(zone)
        .and_then(|tz| date.to_zoned(tz))
        .map(|z| z.timestamp().as_second())
        .map_err(|_| {
            invalid(format!(
                "`{name}` cannot be sent: the catalog's time zone `{zone}` is unknown."
            ))
        })
}

/// 00:00 of `date` in `zone` as an RFC 3339 date-time in UTC (a param's `date_time`): the
/// zone's midnight, so a day means the same day as a `unix_time` filter's.
fn midnight_utc(name: &str, date: jiff::civil::Date, zone: &str) -> Result<String, Invalid> {
    jiff::tz::TimeZone::get(zone)
        .and_then(|tz| date.to_zoned(tz))
        .map(|z| z.timestamp().strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .map_err(|_| {
            invalid(format!(
                "`{name}` cannot be sent: the catalog's time zone `{zone}` is unknown."
            ))
        })
}

/// A `datetime` argument as the UTC instant it names (`2026-05-04T08:00:00Z`): an offset or `Z`,
/// or a local time with an IANA zone in brackets; a time without a zone is refused, so 10:00 in
/// Berlin never goes up as 10:00 UTC by accident.
fn moment(name: &str, v: &Value) -> Result<String, Invalid> {
    let s = v.as_str().map(str::trim).unwrap_or_default();
    let zoned = s.ends_with(']').then(|| s.parse::<jiff::Zoned>().ok());
    let at = match zoned {
        Some(z) => z.map(|z| z.timestamp()),
        None => s.parse::<jiff::Timestamp>().ok(),
    };
    match at {
        Some(t) if s.len() <= 80 => Ok(t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()),
        _ if s.len() > 80 => Err(invalid(format!("`{name}` is longer than 80 characters."))),
        _ => Err(invalid(format!(
            "`{name}` must be a date and time with its time zone: an offset \
             (2026-05-04T10:00:00+02:00), Z for UTC, or the zone in brackets \
             (2026-05-04T10:00[Europe/Berlin]); a time without a zone is ambiguous."
        ))),
    }
}

pub(super) fn check(name: &str, p: &Param, v: &Value) -> Result<Value, Invalid> {
    let value = match p.kind {
        ParamType::Integer => Value::from(integer(name, v)?),
        ParamType::Number => Value::from(number(name, v)?),
        ParamType::Boolean => Value::Bool(boolean(name, v)?),
        ParamType::Array => array(name, p, v)?,
        ParamType::Date => {
            let s = v
                .as_str()
                .ok_or_else(|| invalid(format!("`{name}` must be a date YYYY-MM-DD.")))?;
            let date = s
                .parse::<jiff::civil::Date>()
                .ok()
                .filter(|_| s.len() == 10)
                .ok_or_else(|| {
                    invalid(format!(
                        "`{name}` must be a real date YYYY-MM-DD, e.g. 2026-05-31."
                    ))
                })?;
            match (&p.unix_time, &p.date_time) {
                (Some(zone), _) => Value::from(unix_seconds(name, date, zone)?),
                (None, Some(zone)) => Value::String(midnight_utc(name, date, zone)?),
                (None, None) => Value::String(s.to_string()),
            }
        }
        ParamType::Datetime => Value::String(moment(name, v)?),
        ParamType::TimeZone => {
            let s = v.as_str().map(str::trim).unwrap_or_default();
            if s.is_empty() || s.len() > 64 || jiff::tz::TimeZone::get(s).is_err() {
                return Err(invalid(format!(
                    "`{name}` must be an IANA time zone like Europe/Berlin, America/New_York or \
                     UTC (calcom_me_get and similar tools name the user's)."
                )));
            }
            Value::String(s.to_string())
        }
        ParamType::String => {
            let s = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => return Err(invalid(format!("`{name}` must be a string."))),
            };
            if let Some(choices) = &p.choices {
                let found = choices.iter().find(|c| c.eq_ignore_ascii_case(&s));
                let Some(found) = found else {
                    let best = closest(&s, choices.iter().map(catalog::Text::as_str))
                        .map(|b| format!(" Did you mean `{b}`?"))
                        .unwrap_or_default();
                    return Err(invalid(format!(
                        "`{name}` must be one of {}.{best}",
                        choices.join(", ")
                    )));
                };
                return Ok(Value::String(found.to_string()));
            }
            if let Some(max) = p.max_length
                && s.chars().count() > max
            {
                return Err(invalid(format!(
                    "`{name}` is longer than {max} characters."
                )));
            }
            Value::String(s)
        }
    };
    if let Some(n) = value.as_f64() {
        if let Some(min) = p.min.filter(|m| n < *m) {
            return Err(invalid(format!("`{name}` must be ≥ {min}, got {n}.")));
        }
        if let Some(max) = p.max.filter(|m| n > *m) {
            return Err(invalid(format!("`{name}` must be ≤ {max}, got {n}.")));
        }
    }
    Ok(value)
}

/// A list of objects: each item's keys are the declared fields, each field checked like a param.
/// With `item` instead, a list of plain values, each checked like a param.
fn array(name: &str, p: &Param, v: &Value) -> Result<Value, Invalid> {
    let empty = BTreeMap::new();
    let fields = p.items.as_ref().unwrap_or(&empty);
    let max = p.max_items.unwrap_or(0);
    let Value::Array(items) = v else {
        return Err(invalid(match p.item {
            Some(_) => format!("`{name}` must be a {}.", describe(p)),
            None => format!("`{name}` must be a list of objects ({}).", describe(p)),
        }));
    };
    if items.is_empty() || items.len() > max {
        return Err(invalid(format!(
            "`{name}` must have 1 to {max} items, got {}.",
            items.len()
        )));
    }
    if let Some(item) = &p.item {
        return items
            .iter()
            .enumerate()
            .map(|(i, v)| check(&format!("{name}[{i}]"), item, v))
            .collect::<Result<_, _>>()
            .map(Value::Array);
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("{name}[{i}]");
        let Value::Object(item) = item else {
            return Err(invalid(format!(
                "`{at}` must be an object with {}.",
                fields.keys().cloned().collect::<Vec<_>>().join(", ")
            )));
        };
        for key in item.keys() {
            if !fields.contains_key(key.as_str()) {
                let best = closest(key, fields.keys().map(catalog::Text::as_str))
                    .map(|b| format!(" Did you mean `{b}`?"))
                    .unwrap_or_default();
                return Err(invalid(format!(
                    "Unknown field `{}` in `{at}`.{best} Fields: {}.",
                    shown(key),
                    fields.keys().cloned().collect::<Vec<_>>().join(", ")
                )));
            }
        }
        let mut checked = Map::new();
        for (field, fp) in fields {
            let path = format!("{at}.{field}");
            match item.get(field.as_str()).filter(|v| !v.is_null()) {
                Some(v) => {
                    checked.insert(field.to_string(), check(&path, fp, v)?);
                }
                None if fp.required => {
                    return Err(invalid(format!(
                        "Missing required field `{path}` ({}).",
                        describe(fp)
                    )));
                }
                None => {
                    if let Some(d) = &fp.default {
                        checked.insert(field.to_string(), check(&path, fp, d)?);
                    }
                }
            }
        }
        out.push(Value::Object(checked));
    }
    Ok(Value::Array(out))
}

pub(crate) fn integer(name: &str, v: &Value) -> Result<i64, Invalid> {
    let n = number(name, v).map_err(|_| invalid(format!("`{name}` must be an integer.")))?;
    if n.fract() != 0.0 || n.abs() > 9.0e15 {
        return Err(invalid(format!("`{name}` must be an integer, got {n}.")));
    }
    Ok(n as i64)
}

pub(crate) fn number(name: &str, v: &Value) -> Result<f64, Invalid> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|n| n.is_finite()),
        _ => None,
    }
    .ok_or_else(|| invalid(format!("`{name}` must be a number.")))
}

pub(crate) fn boolean(name: &str, v: &Value) -> Result<bool, Invalid> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Ok(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Ok(false),
        _ => Err(invalid(format!("`{name}` must be true or false."))),
    }
}
