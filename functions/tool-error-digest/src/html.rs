//! The HTML rendering, for mail clients: one table layout with inline styles (many clients drop
//! `<style>` blocks), no scripts, no web fonts, no external resources. The chart is an inline
//! image referenced by Content-ID (`cid:`), since many clients block `data:` URIs.

use std::fmt::Write;

use crate::chart::{self, SERIES_COLORS};
use crate::digest::{Digest, FailingTool, State};
use crate::render::{self, count, rate};
use crate::rows::Sample;

/// Content-ID of the chart image part (without the angle brackets).
pub const CHART_CONTENT_ID: &str = "errors-per-day@tool-error-digest";

const FONT: &str = "font-family:Arial,Helvetica,sans-serif;";
const MONO: &str = "font-family:Consolas,Menlo,'Courier New',monospace;";
const MUTED: &str = "color:#5f6b7a;";
const CELL: &str = "padding:4px 8px;border-bottom:1px solid #e4e7eb;";
const NOWRAP: &str = "white-space:nowrap;";
/// The colour of what needs someone's attention (the failing headline's, writes to check).
const ALERT: &str = "#b42318";

/// `src` of the chart in the mail: the inline image part.
pub fn chart_cid() -> String {
    format!("cid:{CHART_CONTENT_ID}")
}

/// The digest as an HTML document; `chart_src` is where the chart image is (`cid:…` in the
/// mail, a file name in the local preview), `None` without a chart.
pub fn render(d: &Digest, chart_src: Option<&str>) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{title}</title></head>\n\
         <body style=\"margin:0;padding:0;background:#f4f5f7;\">\n\
         <table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\" bgcolor=\"#f4f5f7\" style=\"background:#f4f5f7;\"><tr><td align=\"center\" style=\"padding:16px 8px;\">\n\
         <table role=\"presentation\" width=\"640\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\" bgcolor=\"#ffffff\" style=\"width:640px;max-width:100%;background:#ffffff;border:1px solid #dde1e6;{FONT}font-size:14px;line-height:20px;color:#1f2933;\">\n",
        title = esc(&d.subject())
    );
    header(&mut h, d);
    section(&mut h, |h| {
        let (color, bg) = match d.state() {
            State::Failing => ("#b42318", "#fef3f2"),
            State::AllClear => ("#027a48", "#ecfdf3"),
            State::NoCalls => ("#b54708", "#fffaeb"),
        };
        let _ = write!(
            h,
            "<div style=\"border-left:4px solid {color};background:{bg};padding:8px 12px;\">{}</div>",
            esc(&render::headline(d))
        );
        for note in render::notes(d) {
            let _ = write!(
                h,
                "<div style=\"margin-top:8px;border-left:4px solid #b54708;background:#fffaeb;padding:8px 12px;\"><b>Note:</b> {}</div>",
                esc(&note)
            );
        }
    });
    if d.state() != State::NoCalls {
        section(&mut h, |h| totals(h, d));
    }
    if d.state() == State::Failing {
        if let Some(src) = chart_src {
            section(&mut h, |h| chart_block(h, d, src));
        }
        section(&mut h, |h| top_tools(h, d));
        section(&mut h, |h| newly_failing(h, d));
        if !d.connectors.is_empty() {
            section(&mut h, |h| connectors(h, d));
        }
    }
    if !d.recovered.is_empty() {
        section(&mut h, |h| {
            heading(h, "Recovered");
            let _ = write!(
                h,
                "<div style=\"{MUTED}font-size:12px;\">Failed the week before, called without failing this week.</div><div style=\"{MONO}\">{}</div>",
                d.recovered
                    .iter()
                    .map(|t| esc(t))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        });
    }
    if !d.writes.is_empty() {
        section(&mut h, |h| writes(h, d));
    }
    if !d.spend.is_empty() {
        section(&mut h, |h| spend(h, d));
    }
    if d.state() != State::NoCalls && !d.latency.is_empty() {
        section(&mut h, |h| latency(h, d));
    }
    if !d.missing.is_empty() {
        section(&mut h, |h| missing(h, d));
    }
    if !d.limits_hit.is_empty() {
        section(&mut h, |h| limits_hit(h, d));
    }
    if let Some(url) = &d.dashboard_url {
        section(&mut h, |h| {
            let _ = write!(
                h,
                "<table role=\"presentation\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\"><tr><td bgcolor=\"#1f2933\" style=\"background:#1f2933;border-radius:4px;padding:8px 16px;\"><a href=\"{url}\" style=\"color:#ffffff;text-decoration:none;font-weight:bold;\">Open the dashboard</a></td></tr></table>",
                url = esc(url)
            );
        });
    }
    let _ = write!(
        h,
        "<tr><td style=\"padding:12px 20px;{MUTED}font-size:12px;border-top:1px solid #e4e7eb;\">Sent by tool-error-digest from the audit logs. Times are UTC. The audit log holds argument names only, never values.</td></tr>\n\
         </table>\n</td></tr></table>\n</body></html>\n"
    );
    h
}

/// Escapes text for element content and quoted attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn header(h: &mut String, d: &Digest) {
    let _ = writeln!(
        h,
        "<tr><td bgcolor=\"#1f2933\" style=\"background:#1f2933;color:#ffffff;padding:16px 20px;\">\
         <div style=\"font-size:12px;color:#cbd2d9;\">hosted-mcp · tool error digest</div>\
         <div style=\"font-size:20px;line-height:28px;font-weight:bold;\">{}</div>\
         <div style=\"font-size:13px;color:#cbd2d9;\">{}</div></td></tr>",
        esc(&d.subject()),
        esc(&d.period.label())
    );
}

fn section(h: &mut String, body: impl FnOnce(&mut String)) {
    h.push_str("<tr><td style=\"padding:12px 20px;\">");
    body(h);
    h.push_str("</td></tr>\n");
}

fn heading(h: &mut String, text: &str) {
    let _ = write!(
        h,
        "<div style=\"font-size:16px;font-weight:bold;margin:4px 0 8px 0;\">{}</div>",
        esc(text)
    );
}

fn totals(h: &mut String, d: &Digest) {
    let (t, p) = (&d.totals, &d.previous_totals);
    let cells = [
        ("Calls", count(t.calls), count(p.calls)),
        (
            "Failed calls",
            count(t.errors),
            format!(
                "{} ({})",
                count(p.errors),
                render::change(p.errors, t.errors)
            ),
        ),
        ("Error rate", rate(t.error_rate()), rate(p.error_rate())),
        (
            "Tools failing",
            format!("{} of {}", t.tools_failing, t.tools_called),
            format!("{} of {}", p.tools_failing, p.tools_called),
        ),
    ];
    h.push_str("<table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\"><tr>");
    for (label, now, before) in cells {
        let _ = write!(
            h,
            "<td width=\"25%\" valign=\"top\" style=\"padding:8px;border:1px solid #e4e7eb;\">\
             <div style=\"{MUTED}font-size:12px;\">{}</div>\
             <div style=\"font-size:20px;line-height:28px;font-weight:bold;\">{}</div>\
             <div style=\"{MUTED}font-size:11px;line-height:15px;\">week before: {}</div></td>",
            esc(label),
            esc(&now),
            esc(&before)
        );
    }
    h.push_str("</tr></table>");
}

fn chart_block(h: &mut String, d: &Digest, src: &str) {
    heading(h, "Failed calls per day (top tools)");
    let _ = write!(
        h,
        "<img src=\"{src}\" width=\"{w}\" height=\"{ht}\" alt=\"Failed calls per day for the top failing tools, {period}\" style=\"display:block;border:0;width:{w}px;max-width:100%;height:auto;\">",
        w = chart::WIDTH,
        ht = chart::HEIGHT,
        period = esc(&d.period.label()),
        src = esc(src)
    );
    // Legend: the bars' colours, three tools to a row so long names fit the 640 px width.
    h.push_str("<table role=\"presentation\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\" style=\"margin-top:6px;font-size:12px;\">");
    let entries: Vec<_> = d.chart.series.iter().zip(SERIES_COLORS).collect();
    for row in entries.chunks(3) {
        h.push_str("<tr>");
        for ((tool, counts), color) in row {
            let color = chart::hex(*color);
            let _ = write!(
                h,
                "<td width=\"12\" height=\"12\" bgcolor=\"{color}\" style=\"background:{color};width:12px;height:12px;\"></td>\
                 <td style=\"padding:2px 16px 2px 4px;{MONO}{NOWRAP}\">{} ({})</td>",
                esc(tool),
                count(counts.iter().sum())
            );
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>");
}

fn top_tools(h: &mut String, d: &Digest) {
    heading(h, "Top failing tools");
    for (i, t) in d.top.iter().enumerate() {
        tool_block(h, d, i + 1, t);
    }
    if let Some(others) = render::others(d) {
        let _ = write!(h, "<div style=\"{MUTED}\">{}</div>", esc(&others));
    }
}

fn tool_block(h: &mut String, d: &Digest, rank: usize, t: &FailingTool) {
    let new = if t.is_new() {
        "&nbsp;<span style=\"background:#b42318;color:#ffffff;font-size:11px;font-weight:bold;padding:1px 6px;border-radius:3px;\">NEW</span>"
    } else {
        ""
    };
    let _ = write!(
        h,
        "<div style=\"margin:12px 0 4px 0;\"><b>{rank}.</b> <span style=\"{MONO}font-weight:bold;\">{}</span>{new}</div>\
         <div style=\"{MUTED}font-size:13px;\">{} · {} · last seen {}</div>",
        esc(&t.tool),
        esc(&render::tool_line(t)),
        esc(&render::trend(t.previous_errors, t.errors)),
        esc(&render::minute(t.last_seen))
    );
    let _ = write!(
        h,
        "<table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\" style=\"margin-top:4px;font-size:13px;\">\
         <tr><td style=\"{CELL}{MUTED}\">Status / reason</td><td align=\"right\" style=\"{CELL}{MUTED}\">Failed</td><td style=\"{CELL}{MUTED}\">Last seen</td></tr>"
    );
    for c in &t.causes {
        let _ = write!(
            h,
            "<tr><td style=\"{CELL}{MONO}\">{}</td><td align=\"right\" style=\"{CELL}\">{}</td><td style=\"{CELL}\">{}</td></tr>",
            esc(&render::cause_of(c)),
            count(c.errors),
            esc(&render::minute(c.last_seen))
        );
    }
    h.push_str("</table>");
    samples(h, d, "Latest failed requests", &t.samples);
    if let Some(note) = &t.samples_note {
        let _ = write!(
            h,
            "<div style=\"{MUTED}font-size:12px;\">Samples unavailable: {}</div>",
            esc(note)
        );
    }
}

/// The failed calls' table: time, request id, cause, argument names, and a link to the trace
/// where the call has one.
fn samples(h: &mut String, d: &Digest, title: &str, samples: &[Sample]) {
    if samples.is_empty() {
        return;
    }
    let _ = write!(
        h,
        "<div style=\"{MUTED}font-size:12px;margin-top:6px;\">{} (UTC; argument names only)</div>\
         <table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\" style=\"font-size:12px;{MONO}\">",
        esc(title)
    );
    for s in samples {
        let trace = render::trace_link(d, s)
            .map(|url| format!("<a href=\"{}\">trace</a>", esc(&url)))
            .unwrap_or_default();
        let _ = write!(
            h,
            "<tr><td style=\"{CELL}{NOWRAP}\">{}</td><td style=\"{CELL}{NOWRAP}\">{}</td><td style=\"{CELL}\">{}</td><td style=\"{CELL}\">args: {}</td><td style=\"{CELL}{NOWRAP}\">{trace}</td></tr>",
            esc(render::second(s.time).trim_end_matches(" UTC")),
            esc(render::request_id(s)),
            esc(&render::cause(&s.status, s.reason.as_deref())),
            esc(&render::arg_keys(s))
        );
    }
    h.push_str("</table>");
}

fn connectors(h: &mut String, d: &Digest) {
    heading(h, render::CONNECTORS_TITLE);
    let _ = write!(
        h,
        "<div style=\"{MUTED}font-size:12px;\">{}</div>",
        esc(render::connectors_legend())
    );
    for c in &d.connectors {
        let _ = write!(
            h,
            "<div style=\"margin:12px 0 4px 0;{MONO}font-weight:bold;\">{}</div>\
             <div style=\"{MUTED}font-size:13px;\">Failing tools: {}</div>",
            esc(&render::connector_line(c)),
            esc(&render::connector_tools(c))
        );
        samples(h, d, &render::worst_heading(c), &c.worst);
        if let Some(note) = &c.samples_note {
            let _ = write!(
                h,
                "<div style=\"{MUTED}font-size:12px;\">Samples unavailable: {}</div>",
                esc(note)
            );
        }
    }
}

fn newly_failing(h: &mut String, d: &Digest) {
    heading(h, "Newly failing");
    let _ = write!(
        h,
        "<div style=\"{MUTED}font-size:12px;\">Tools with failed calls this week and none the week before.</div>"
    );
    if d.newly_failing.is_empty() {
        h.push_str("<div>None.</div>");
        return;
    }
    h.push_str("<ul style=\"margin:4px 0;padding-left:20px;\">");
    for n in &d.newly_failing {
        let _ = write!(h, "<li>{}</li>", esc(&render::newly_failing(n)));
    }
    h.push_str("</ul>");
}

fn writes(h: &mut String, d: &Digest) {
    let columns = render::write_columns(d);
    let by_connector = d.writes.several_connectors();
    heading(h, "Writes");
    let _ = write!(
        h,
        "<div style=\"{MUTED}font-size:12px;\">{}</div><div style=\"{MUTED}font-size:11px;line-height:15px;margin-top:2px;\">{}</div>",
        esc(&render::writes_summary(d)),
        esc(render::writes_legend())
    );
    if let Some(check) = render::writes_check(d) {
        let _ = write!(
            h,
            "<div style=\"margin-top:8px;border-left:4px solid {ALERT};background:#fef3f2;padding:8px 12px;\"><b>Check:</b> {}</div>",
            esc(&check)
        );
    }
    let _ = write!(
        h,
        "<table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\" style=\"margin-top:6px;font-size:12px;\"><tr><td style=\"{CELL}{MUTED}\">Tool</td>"
    );
    if by_connector {
        let _ = write!(h, "<td style=\"{CELL}{MUTED}\">Connector</td>");
    }
    for c in &columns {
        let _ = write!(
            h,
            "<td align=\"right\" style=\"{CELL}{MUTED}{NOWRAP}\">{}</td>",
            esc(c.header)
        );
    }
    h.push_str("</tr>");
    for t in render::writes_shown(d) {
        let _ = write!(h, "<tr><td style=\"{CELL}{MONO}\">{}</td>", esc(&t.tool));
        if by_connector {
            let _ = write!(h, "<td style=\"{CELL}{MONO}\">{}</td>", esc(&t.connector));
        }
        for c in &columns {
            let n = (c.count)(&t.counts);
            if c.check && n > 0 {
                let _ = write!(
                    h,
                    "<td align=\"right\" style=\"{CELL}color:{ALERT};\"><b>{}</b></td>",
                    count(n)
                );
            } else {
                let _ = write!(h, "<td align=\"right\" style=\"{CELL}\">{}</td>", count(n));
            }
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>");
    if let Some(others) = render::writes_others(d) {
        let _ = write!(h, "<div style=\"{MUTED}\">{}</div>", esc(&others));
    }
}

fn latency(h: &mut String, d: &Digest) {
    heading(h, "Latency per tool");
    let _ = write!(
        h,
        "<div style=\"{MUTED}font-size:12px;\">{}</div>\
         <table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\" style=\"margin-top:4px;font-size:13px;\">\
         <tr><td style=\"{CELL}{MUTED}\">Tool</td><td align=\"right\" style=\"{CELL}{MUTED}\">Calls</td><td align=\"right\" style=\"{CELL}{MUTED}\">p50</td><td align=\"right\" style=\"{CELL}{MUTED}\">p95</td><td align=\"right\" style=\"{CELL}{MUTED}\">p99</td><td style=\"{CELL}{MUTED}\">p95 week before</td></tr>",
        esc(render::latency_summary())
    );
    for t in render::latency_shown(d) {
        let _ = write!(
            h,
            "<tr><td style=\"{CELL}{MONO}\">{}</td><td align=\"right\" style=\"{CELL}\">{}</td><td align=\"right\" style=\"{CELL}{NOWRAP}\">{}</td><td align=\"right\" style=\"{CELL}{NOWRAP}\"><b>{}</b></td><td align=\"right\" style=\"{CELL}{NOWRAP}\">{}</td><td style=\"{CELL}{NOWRAP}\">{}</td></tr>",
            esc(&t.tool),
            count(t.calls),
            esc(&render::ms(t.p50)),
            esc(&render::ms(t.p95)),
            esc(&render::ms(t.p99)),
            esc(&render::latency_before(t))
        );
    }
    h.push_str("</table>");
    if let Some(others) = render::latency_others(d) {
        let _ = write!(h, "<div style=\"{MUTED}\">{}</div>", esc(&others));
    }
}

fn missing(h: &mut String, d: &Digest) {
    let m = &d.missing;
    heading(h, "Missing capabilities");
    let _ = write!(
        h,
        "<div style=\"{MUTED}font-size:12px;\">Searches that found nothing and calls of tools that do not exist. {}</div>",
        esc(&render::missing_summary(d))
    );
    for render::MissingList {
        label,
        unit,
        list,
        searches,
        names: (one, many, counted),
    } in render::missing_lists(m)
    {
        if list.is_empty() {
            continue;
        }
        let _ = write!(
            h,
            "<table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\" style=\"margin-top:6px;font-size:13px;\">\
             <tr><td style=\"{CELL}{MUTED}\">{label}</td><td align=\"right\" style=\"{CELL}{MUTED}\">{unit}</td></tr>"
        );
        for miss in render::missing_shown(list) {
            let what = if searches {
                render::search_words(miss)
            } else {
                &miss.what
            };
            let _ = write!(
                h,
                "<tr><td style=\"{CELL}{MONO}\">{}</td><td align=\"right\" style=\"{CELL}\">{}</td></tr>",
                esc(what),
                count(miss.count)
            );
        }
        h.push_str("</table>");
        if let Some(others) = render::missing_others(list, one, many, counted) {
            let _ = write!(h, "<div style=\"{MUTED}\">{}</div>", esc(&others));
        }
    }
}

fn spend(h: &mut String, d: &Digest) {
    heading(h, render::SPEND_TITLE);
    let _ = write!(
        h,
        "<div style=\"{MUTED}font-size:12px;\">{}</div>",
        esc(render::spend_legend())
    );
    for c in &d.spend {
        let _ = write!(
            h,
            "<div style=\"margin-top:8px;font-weight:bold;\">{}</div>\
             <table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\" style=\"margin-top:4px;font-size:13px;\">\
             <tr><td style=\"{CELL}{MUTED}\">Tool</td><td align=\"right\" style=\"{CELL}{MUTED}\">{}</td><td align=\"right\" style=\"{CELL}{MUTED}\">Calls</td></tr>",
            esc(&render::spend_line(c)),
            esc(&c.unit)
        );
        for t in render::spend_tools_shown(c) {
            let _ = write!(
                h,
                "<tr><td style=\"{CELL}{MONO}\">{}</td><td align=\"right\" style=\"{CELL}\">{}</td><td align=\"right\" style=\"{CELL}\">{}</td></tr>",
                esc(&t.tool),
                count(t.spent),
                count(t.calls)
            );
        }
        h.push_str("</table>");
        if let Some(others) = render::spend_others(c) {
            let _ = write!(h, "<div style=\"{MUTED}\">{}</div>", esc(&others));
        }
    }
}

fn limits_hit(h: &mut String, d: &Digest) {
    heading(h, "Limits hit");
    let _ = write!(
        h,
        "<div style=\"{MUTED}font-size:12px;\">{}</div>\
         <table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\" style=\"margin-top:4px;font-size:13px;\">\
         <tr><td style=\"{CELL}{MUTED}\">Scope</td><td style=\"{CELL}{MUTED}\">Caller</td><td align=\"right\" style=\"{CELL}{MUTED}\">Refused</td></tr>",
        esc(&render::limits_summary(d))
    );
    for hit in render::limits_shown(d) {
        let _ = write!(
            h,
            "<tr><td style=\"{CELL}{MONO}\">{}</td><td style=\"{CELL}{MONO}\">{}</td><td align=\"right\" style=\"{CELL}\">{}</td></tr>",
            esc(&hit.scope),
            esc(&hit.caller),
            count(hit.refused)
        );
    }
    h.push_str("</table>");
    if let Some(others) = render::limits_others(d) {
        let _ = write!(h, "<div style=\"{MUTED}\">{}</div>", esc(&others));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(
            esc("<script>\"a\" & 'b'</script>"),
            "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;"
        );
    }
}
