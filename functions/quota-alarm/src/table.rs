//! The per-connector table of the local run. Unknown figures print as `-`, never as 0.

use std::fmt::Write;

use jiff::Timestamp;

use crate::assess::{Assessment, DAYS_LEFT_CAP};

const HEADERS: [&str; 9] = [
    "connector",
    "window",
    "limit",
    "used",
    "util",
    "burn/day",
    "forecast exhaustion",
    "days left",
    "state",
];

/// The table, then one line of reasons and top tools per connector.
pub fn render(assessments: &[Assessment], now: Timestamp) -> String {
    let rows: Vec<[String; 9]> = assessments.iter().map(cells).collect();
    let mut widths = HEADERS.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = format!("quota at {now:.0}\n");
    let mut line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .enumerate()
            .map(|(i, (c, w))| match i {
                // Figures right-aligned.
                2..=5 | 7 => format!("{c:>w$}"),
                _ => format!("{c:<w$}"),
            })
            .collect();
        out.push_str(padded.join("  ").trim_end());
        out.push('\n');
    };
    line(&HEADERS.map(String::from));
    for row in &rows {
        line(row);
    }
    out.push('\n');
    for a in assessments {
        let _ = writeln!(out, "{} ({}): {}", a.connector, a.state.as_str(), a.reason);
        if a.calls > 0 {
            let cost = a
                .reported_cost
                .map_or_else(|| "not reported".to_string(), |c| c.to_string());
            let _ = writeln!(
                out,
                "  audited calls in the window: {}, their reported cost: {cost}",
                a.calls
            );
        }
        if !a.top_tools.is_empty() {
            let tools: Vec<String> = a
                .top_tools
                .iter()
                .map(|t| format!("{} {}", t.tool, t.weight()))
                .collect();
            let _ = writeln!(out, "  top consumers: {}", tools.join(", "));
        }
    }
    out
}

fn cells(a: &Assessment) -> [String; 9] {
    let dash = || "-".to_string();
    let zone = a.window.as_ref().map(|w| w.time_zone());
    let days_left = match a.days_left {
        Some(d) if d >= DAYS_LEFT_CAP => format!("{DAYS_LEFT_CAP:.0}+"),
        Some(d) => format!("{d:.1}"),
        None => dash(),
    };
    let forecast = match (a.exhausts_at, &zone, a.days_left) {
        (Some(t), Some(z), _) => t
            .to_zoned(z.clone())
            .strftime("%Y-%m-%d %H:%M %Z")
            .to_string(),
        (None, _, Some(_)) => "not in sight".to_string(),
        _ => dash(),
    };
    [
        a.connector.clone(),
        a.window.as_ref().map_or_else(dash, |w| w.describe()),
        a.limit.map_or_else(dash, |l| l.to_string()),
        a.used.map_or_else(dash, |u| u.to_string()),
        a.utilization_percent
            .map_or_else(dash, |u| format!("{u:.1} %")),
        a.burn_per_day.map_or_else(dash, |b| format!("{b:.1}")),
        forecast,
        days_left,
        a.state.as_str().to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assess::assess;
    use crate::policy::Policy;
    use crate::usage::Usage;
    use crate::usage::tests::ts;
    use crate::window::{Window, Zone};

    #[test]
    fn table_shows_figures_and_dashes_for_unknowns() {
        let policy = Policy {
            connector: "papierkram".into(),
            window: Some(Window::CalendarMonth(Zone::new("Europe/Berlin").unwrap())),
            limit: Some(10_000),
            warn_percent: 80,
            critical_percent: 95,
            measurable: true,
            balance: false,
        };
        let now = ts("2026-05-10T22:00:00Z");
        let seen = ts("2026-05-10T21:30:00Z");
        let known = assess(
            &policy,
            now,
            &Usage {
                remaining: Some((5_000, seen)),
                last_seen: Some(seen),
                ..Usage::default()
            },
        );
        let unknown = assess(
            &Policy {
                connector: "quiet".into(),
                ..policy
            },
            now,
            &Usage::default(),
        );
        let text = render(&[known, unknown, Assessment::undeclared("plain")], now);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1].starts_with("connector "), "{text}");
        assert!(lines[2].contains("50.0 %"), "{text}");
        assert!(lines[2].contains("2026-05-21 00:00 CEST"), "{text}");
        assert!(lines[2].ends_with("warn"), "{text}");
        assert!(lines[3].starts_with("quiet "), "{text}");
        assert!(
            !lines[3].contains('%') && lines[3].ends_with("unknown"),
            "{text}"
        );
        assert!(lines[4].ends_with("n/a"), "{text}");
        assert!(
            text.contains("quiet (unknown): no quota figures since"),
            "{text}"
        );
    }
}
