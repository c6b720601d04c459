//! A list tool's own arguments (`fields`, `cursor`, `page`, `page_size`, `count_only`) as
//! [`ListOptions`], each checked with a hint.

use catalog::Tool;
use serde_json::{Map, Value};

use super::value::{boolean, integer};
use super::{DEFAULT_PAGE_SIZE, Invalid, ListOptions, invalid};
use crate::contract::cursor::{BadCursor, Cursor, ListShape, MAX_CURSOR, Resume};
use crate::contract::names::{closest, shown};

/// A list tool's own arguments: `fields`, `cursor`, `page`, `page_size`, `count_only`, checked
/// in that order (the first bad one is named).
pub(super) fn list_options(
    tool: &Tool,
    list: ListShape,
    args: &Map<String, Value>,
) -> Result<ListOptions, Invalid> {
    let fields = fields_arg(tool, args)?;
    let (cursor, resumed) = cursor_arg(list, args)?;
    let mut options = ListOptions {
        page: bounded_int(args, "page", 1, 10_000, 1)?,
        page_size: bounded_int(
            args,
            "page_size",
            1,
            i64::from(list.max_page_size),
            DEFAULT_PAGE_SIZE.min(list.max_page_size),
        )?,
        fields,
        count_only: match args.get("count_only") {
            None | Some(Value::Null) => false,
            Some(v) => boolean("count_only", v)?,
        },
        cursor,
        resumed: None,
    };
    // The cut page's cursor names its page: it wins over `page` and `page_size` (a model
    // passes it with the same arguments as the call that was cut).
    if let Some(r) = resumed {
        if r.page_size > list.max_page_size || (list.by_cursor && r.page != 1) {
            return Err(invalid(BadCursor.to_string()));
        }
        options.page = r.page;
        options.page_size = r.page_size;
        options.resumed = Some(r);
    }
    Ok(options)
}

/// An integer argument from `lo` to `hi`, `default` when absent.
fn bounded_int(
    args: &Map<String, Value>,
    name: &str,
    lo: i64,
    hi: i64,
    default: u32,
) -> Result<u32, Invalid> {
    match args.get(name).filter(|v| !v.is_null()) {
        None => Ok(default),
        Some(v) => {
            let n = integer(name, v)?;
            if n < lo || n > hi {
                return Err(invalid(format!(
                    "`{name}` must be between {lo} and {hi}, got {n}."
                )));
            }
            Ok(n as u32)
        }
    }
}

/// `fields`: a list of names (or, as some clients send it, a comma-separated string), each one
/// the tool declares selectable when it declares any.
fn fields_arg(tool: &Tool, args: &Map<String, Value>) -> Result<Option<Vec<String>>, Invalid> {
    let fields: Option<Vec<String>> = match args.get("fields").filter(|v| !v.is_null()) {
        None => None,
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .map(|i| i.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| invalid("`fields` must be a list of field names."))?,
        ),
        // Some clients send a comma-separated string.
        Some(Value::String(s)) => Some(s.split(',').map(|f| f.trim().to_string()).collect()),
        Some(_) => return Err(invalid("`fields` must be a list of field names.")),
    };
    if let Some(fields) = &fields
        && !tool.fields.is_empty()
    {
        for f in fields {
            if !tool.fields.iter().any(|t| t == f) {
                let best = closest(f, tool.fields.iter().map(catalog::Text::as_str))
                    .map(|b| format!(" Did you mean `{b}`?"))
                    .unwrap_or_default();
                return Err(invalid(format!(
                    "Unknown field `{}`.{best} Selectable fields: {}.",
                    shown(f),
                    tool.fields.join(", ")
                )));
            }
        }
    }
    Ok(fields)
}

/// `cursor`: where the next page is, and the cut page it resumes when it is a cut page's
/// cursor. A list paged by number takes only the latter.
fn cursor_arg(
    list: ListShape,
    args: &Map<String, Value>,
) -> Result<(Option<Cursor>, Option<Resume>), Invalid> {
    let cursor = match args.get("cursor").filter(|v| !v.is_null()) {
        None => None,
        Some(Value::String(s)) => Some(Cursor::decode(s).map_err(|e| invalid(e.to_string()))?),
        Some(_) => {
            return Err(invalid(format!(
                "`cursor` must be a next_cursor (a string of at most {MAX_CURSOR} characters)."
            )));
        }
    };
    match cursor {
        Some(Cursor::Resume(r)) => Ok((r.at.as_deref().cloned(), Some(r))),
        Some(_) if !list.by_cursor => Err(invalid(
            "This list pages by number: pass `page` (the result's page + 1); `cursor` only \
             takes the next_cursor of a result cut to fit the output limit.",
        )),
        other => Ok((other, None)),
    }
}
