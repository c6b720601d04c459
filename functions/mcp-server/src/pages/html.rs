//! `/connectors` as a person reads it: every connector the caller may use, with its purpose,
//! how it authenticates, its tools with their risk and what each write does, and its limits.
//! Plain HTML without script or external resources, every value escaped; no secret is on it
//! (a catalog holds none).

use std::fmt::Write as _;

use super::Capability;
use crate::connect::page::escape;

/// The whole document for `caps`.
pub(crate) fn html(caps: &[Capability]) -> String {
    let mut body = String::new();
    let _ = write!(
        body,
        "<h1>Connectors</h1>\n<p>What the assistant can reach here, {} in all. Risk says what a \
         tool may change: <em>low</em> and <em>medium</em> run at once, <em>high</em> and \
         <em>critical</em> only after a person confirms.</p>\n",
        caps.len()
    );
    for cap in caps {
        let _ = write!(
            body,
            "<section id=\"{id}\">\n<h2>{title}</h2>\n<p>{purpose}</p>\n<ul>\n<li>Connects to: \
             <code>{endpoint}</code></li>\n<li>Signs in with: {auth}</li>\n",
            id = escape(&cap.id),
            title = escape(&cap.title),
            purpose = escape(cap.purpose.as_deref().unwrap_or("")),
            endpoint = escape(&cap.endpoint),
            auth = with_code(&cap.auth),
        );
        for limit in &cap.limits {
            let _ = writeln!(body, "<li>{}</li>", with_code(limit));
        }
        if !cap.profiles.is_empty() {
            let _ = writeln!(
                body,
                "<li>Reached through the profiles: {}</li>",
                escape(&cap.profiles.join(", "))
            );
        }
        let _ = write!(
            body,
            "</ul>\n<table>\n<thead><tr><th>Tool</th><th>Risk</th><th>What it does</th></tr>\
             </thead>\n<tbody>\n"
        );
        for t in &cap.tools {
            let _ = writeln!(
                body,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                // A long name may break after its underscores on a phone.
                escape(&t.name).replace('_', "_<wbr>"),
                super::risk_word(t.risk),
                escape(&t.does)
            );
        }
        let _ = write!(body, "</tbody>\n</table>\n</section>\n");
    }
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n<title>Connectors</title>\n\
         <style>body{{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;\
         padding:0 1rem;line-height:1.5;color:#1a1a1a}}h1{{font-size:1.5rem}}\
         h2{{font-size:1.2rem;margin-top:2rem}}table{{border-collapse:collapse;width:100%}}\
         th,td{{text-align:left;vertical-align:top;padding:.3rem .5rem;\
         border-bottom:1px solid #ccc}}main{{overflow-wrap:anywhere}}\
         @media (max-width:40rem){{thead{{display:none}}table,tbody,tr,td{{display:block}}\
         tr{{border-bottom:1px solid #ccc;padding:.5rem 0}}td{{border:0;padding:0}}\
         td:nth-child(2)::before{{content:\"Risk: \"}}}}\
         </style>\n</head>\n<body>\n<main>\n{body}</main>\n</body>\n</html>\n"
    )
}

/// `text` escaped, its `backticked` spans as code.
fn with_code(text: &str) -> String {
    escape(text)
        .split('`')
        .enumerate()
        .map(|(i, part)| match i % 2 {
            1 => format!("<code>{part}</code>"),
            _ => part.to_string(),
        })
        .collect()
}
