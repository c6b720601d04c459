//! Tool headers that carry a parameter: an upstream that takes an argument in a header
//! (Microsoft Graph's `Prefer: outlook.timezone="Europe/Berlin"`, the zone every time of the
//! answer is given in) declares the param `in: header` and places it in the tool's `headers`
//! as `{name}`. Such a param is typed so that its value is always a safe header value (a zone,
//! a number, a date, a word of an `enum`), never free text. Pure.

use std::borrow::Cow;

use crate::model::{Catalog, ParamIn, ParamType, Tool};
use crate::placeholders;

/// `in: header` params: placed in a header of the tool, typed to a safe value, named as is.
pub(crate) fn param_problems(t: &Tool) -> Vec<String> {
    let mut out = Vec::new();
    for (name, p) in t
        .params
        .iter()
        .filter(|(_, p)| p.location == ParamIn::Header)
    {
        let placed = t
            .headers
            .values()
            .any(|v| placeholders(v).contains(&name.as_str()));
        if !placed {
            out.push(format!(
                "param `{name}` is `in: header` but no header of the tool holds `{{{name}}}`"
            ));
        }
        let safe = match p.kind {
            ParamType::String => p.choices.is_some(),
            ParamType::Array => false,
            _ => true,
        };
        if !safe {
            out.push(format!(
                "param `{name}` is `in: header`: only a time zone, number, boolean, date, \
                 datetime or a string with `enum` goes into a header (never free text)"
            ));
        }
        if p.upstream.is_some() {
            out.push(format!(
                "param `{name}` is `in: header`: its header names where it goes, not `as`"
            ));
        }
    }
    out
}

impl Catalog {
    /// The headers of a request for `tool` (`None`: a probe): [`Catalog::static_headers`] with
    /// each `{param}` filled by `value` (the param's value as it goes up); a header whose
    /// param has no value is left out.
    pub fn request_headers<'a>(
        &'a self,
        tool: Option<&'a Tool>,
        value: impl Fn(&str) -> Option<String>,
    ) -> Vec<(&'a str, Cow<'a, str>)> {
        self.static_headers(tool)
            .into_iter()
            .filter_map(|(name, template)| {
                let holes = placeholders(template);
                if holes.is_empty() {
                    return Some((name, Cow::Borrowed(template)));
                }
                let mut filled = template.to_string();
                for hole in holes {
                    filled = filled.replace(&format!("{{{hole}}}"), &value(hole)?);
                }
                Some((name, Cow::Owned(filled)))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    fn catalog(params: &str, headers: &str) -> String {
        format!(
            "connector: mail\nbase_url: \"https://mail.example\"\ntools:\n  - name: mail_events_list\n    \
             description: \"Events. Example: {{}}\"\n    risk: low\n    get: /events\n    \
             headers: {headers}\n    params:\n{params}"
        )
    }

    #[test]
    fn a_header_param_is_filled_and_a_missing_one_drops_its_header() {
        let yaml = catalog(
            "      time_zone: { type: time_zone, in: header }\n",
            "{ Prefer: \"outlook.timezone=\\\"{time_zone}\\\"\", X-Fixed: a }",
        );
        let c = crate::parse("mail.yaml", &yaml).unwrap();
        let tool = &c.tools[0];
        let headers = c.request_headers(Some(tool), |n| {
            (n == "time_zone").then(|| "Europe/Berlin".to_string())
        });
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_ref())).collect();
        assert_eq!(
            headers,
            [
                ("Prefer", "outlook.timezone=\"Europe/Berlin\""),
                ("X-Fixed", "a")
            ]
        );
        let without = c.request_headers(Some(tool), |_| None);
        assert_eq!(without.len(), 1);
        assert_eq!(without[0].0, "X-Fixed");
    }

    #[test]
    fn header_params_are_placed_typed_and_never_a_connector_placeholder() {
        for (params, headers, problem) in [
            (
                "      time_zone: { type: time_zone, in: header }\n",
                "{ X-Fixed: a }",
                "no header of the tool holds `{time_zone}`",
            ),
            (
                "      word: { type: string, in: header }\n",
                "{ Prefer: \"{word}\" }",
                "never free text",
            ),
            (
                "      tz: { type: time_zone, in: header, as: zone }\n",
                "{ Prefer: \"{tz}\" }",
                "not `as`",
            ),
            (
                "      tz: { type: time_zone }\n",
                "{ Prefer: \"{tz}\" }",
                "headers are sent as written but for a tool's `in: header` params",
            ),
        ] {
            let e = crate::parse("mail.yaml", &catalog(params, headers))
                .unwrap_err()
                .to_string();
            assert!(e.contains(problem), "{params}: {e}");
        }
        let ok = catalog(
            "      view: { type: string, in: header, enum: [text, html] }\n",
            "{ Prefer: \"outlook.body-content-type=\\\"{view}\\\"\" }",
        );
        crate::parse("mail.yaml", &ok).unwrap();
    }
}
