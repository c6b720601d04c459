//! Running the command pipeline and choosing the result columns.
//!
//! Commands run in the order written, each on the rows the previous one produced. Columns:
//! - no `fields`, `parse`, `stats` or `display`: `@timestamp` and `@message` — the guide says a
//!   bare `filter (duration>2000)` shows "the @timestamp field and all log data in the @message
//!   field";
//! - "If your query contains multiple fields commands and doesn't include a display command,
//!   you'll display all of the fields that are specified in the fields commands";
//! - `parse` adds its names (to the defaults when there was no `fields`);
//! - `stats` replaces the columns with its group and aggregate columns;
//! - `display` shows only its fields, and "only the fields you specify in the last occurrence".
//!
//! `fields` chooses columns but hides nothing from later commands: a later `filter` can still
//! test any discovered field. Before the first command, rows are ordered newest first, so
//! `filter ... | limit 20` returns the 20 most recent matches (AWS documents no order without
//! `sort`; use `sort` where order matters).

use crate::ast::Command;
use crate::eval::{eval, truthy};
use crate::event::Record;
use crate::stats;
use crate::value::{Value, sort_cmp};

const DEFAULT_COLUMNS: [&str; 2] = ["@timestamp", "@message"];

/// Runs `commands` over `rows`, returning the rows and the names of the visible columns.
pub(crate) fn execute(commands: &[Command], mut rows: Vec<Record>) -> (Vec<Record>, Vec<String>) {
    rows.sort_by_key(|r| std::cmp::Reverse(r.ts));
    let mut columns: Option<Vec<String>> = None;
    let mut display: Option<Vec<String>> = None;
    for command in commands {
        match command {
            Command::Fields(projections) => {
                for row in &mut rows {
                    let values: Vec<Value> =
                        projections.iter().map(|p| eval(&p.expr, row)).collect();
                    for (p, v) in projections.iter().zip(values) {
                        row.set(&p.name, v);
                    }
                }
                add_columns(
                    &mut columns,
                    Vec::new(),
                    projections.iter().map(|p| p.name.clone()),
                );
            }
            Command::Filter(expr) => rows.retain(|row| truthy(&eval(expr, row))),
            Command::Parse {
                source,
                regex,
                names,
            } => {
                for row in &mut rows {
                    let value = row.get(source).clone();
                    if value.is_null() {
                        continue;
                    }
                    if let Some(caps) = regex.captures(&value.render()) {
                        for (i, name) in names.iter().enumerate() {
                            let text = caps.get(i + 1).map_or("", |m| m.as_str());
                            row.set(name, Value::Str(text.to_string()));
                        }
                    }
                }
                let defaults = DEFAULT_COLUMNS.iter().map(|c| c.to_string()).collect();
                add_columns(&mut columns, defaults, names.iter().cloned());
            }
            Command::Stats(s) => {
                rows = stats::run(s, rows);
                let names = s
                    .groups
                    .iter()
                    .map(|g| g.name.clone())
                    .chain(s.aggs.iter().map(|a| a.name.clone()));
                columns = Some(Vec::new());
                add_columns(&mut columns, Vec::new(), names);
            }
            Command::Sort { column, descending } => {
                rows.sort_by(|a, b| {
                    let o = sort_cmp(a.get(column), b.get(column));
                    if *descending { o.reverse() } else { o }
                });
            }
            Command::Limit(n) => rows.truncate(*n),
            Command::Display(names) => display = Some(names.clone()),
        }
    }
    let columns = display
        .or(columns)
        .unwrap_or_else(|| DEFAULT_COLUMNS.iter().map(|c| c.to_string()).collect());
    (rows, columns)
}

/// Appends `names` not yet shown, starting from `initial` when nothing was chosen yet.
fn add_columns(
    columns: &mut Option<Vec<String>>,
    initial: Vec<String>,
    names: impl Iterator<Item = String>,
) {
    let list = columns.get_or_insert(initial);
    for name in names {
        if !list.contains(&name) {
            list.push(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{column, events, results};

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn bare_filter_shows_timestamp_and_message() {
        // Query-syntax guide: `filter (duration>2000)` shows "the @timestamp field and all log
        // data in the @message field".
        let ev = events(&[
            ("2024-05-01T12:00:00Z", r#"{"duration":2500}"#),
            ("2024-05-01T12:01:00Z", r#"{"duration":1500}"#),
        ]);
        assert_eq!(
            results("filter (duration>2000)", &ev),
            vec![pairs(&[
                ("@timestamp", "2024-05-01 12:00:00.000"),
                ("@message", r#"{"duration":2500}"#)
            ])]
        );
    }

    #[test]
    fn several_fields_commands_add_up() {
        // "If your query contains multiple fields commands and doesn't include a display
        // command, you'll display all of the fields that are specified in the fields commands."
        let ev = events(&[("2024-05-01T12:00:00Z", r#"{"f1":1,"f2":2,"f3":3}"#)]);
        assert_eq!(
            results("fields f1, f2 | fields f3, f1", &ev),
            vec![pairs(&[("f1", "1"), ("f2", "2"), ("f3", "3")])]
        );
    }

    #[test]
    fn fields_alias_creates_a_field_for_later_commands() {
        // Fields guide: `fields ispresent(resolverArn) as isRes` "creates an extracted field
        // named isRes"; the older guide adds "The value of isRes equals 0 or 1".
        let ev = events(&[
            ("2024-05-01T12:00:00Z", r#"{"resolverArn":"arn:x"}"#),
            ("2024-05-01T12:01:00Z", r#"{"other":1}"#),
        ]);
        assert_eq!(
            column("fields ispresent(resolverArn) as isRes", &ev, "isRes"),
            ["0", "1"]
        );
        assert_eq!(
            column(
                "fields ispresent(resolverArn) as isRes | filter isRes = 1",
                &ev,
                "isRes"
            ),
            ["1"]
        );
    }

    #[test]
    fn fields_does_not_hide_fields_from_later_commands() {
        let ev = events(&[
            (
                "2024-05-01T12:00:00Z",
                r#"{"tool":"a","event":"tool_call"}"#,
            ),
            (
                "2024-05-01T12:01:00Z",
                r#"{"tool":"b","event":"client_init"}"#,
            ),
        ]);
        assert_eq!(
            results(r#"fields tool | filter event = "tool_call""#, &ev),
            vec![pairs(&[("tool", "a")])]
        );
    }

    #[test]
    fn display_shows_only_the_last_display_list() {
        // Display guide example, and "If your query contains multiple display commands, the
        // query results show only the field or fields that you specified in the final display".
        let ev = events(&[
            ("2024-05-01T12:00:00Z", "[ERROR] disk full"),
            ("2024-05-01T12:01:00Z", "[INFO] all good"),
        ]);
        let q = r#"fields @message | parse @message "[*] *" as loggingType, loggingMessage | filter loggingType = "ERROR" | display loggingMessage"#;
        assert_eq!(
            results(q, &ev),
            vec![pairs(&[("loggingMessage", "disk full")])]
        );
        let q = r#"parse @message "[*] *" as level, text | display text | display level"#;
        assert_eq!(column(q, &ev, "level"), ["INFO", "ERROR"]);
        assert_eq!(results(q, &ev)[0].len(), 1);
    }

    #[test]
    fn parse_glob_extracts_fields_from_the_guide_example() {
        // Query-syntax guide: "[*] * The error was: *" gives level ERROR, config
        // {foo=2, bar=data} and exception DataIntegrityException.
        let ev = events(&[(
            "2024-05-01T12:00:00Z",
            "25 May 2019 10:24:39,474 [ERROR] {foo=2, bar=data} The error was: DataIntegrityException",
        )]);
        let q = r#"parse @message "[*] * The error was: *" as level, config, exception | display level, config, exception"#;
        assert_eq!(
            results(q, &ev),
            vec![pairs(&[
                ("level", "ERROR"),
                ("config", "{foo=2, bar=data}"),
                ("exception", "DataIntegrityException")
            ])]
        );
    }

    #[test]
    fn parse_keeps_events_that_do_not_match() {
        // Parse guide: "If a log event doesn't match the specified pattern, you still see it in
        // the results, but without the extracted fields."
        let ev = events(&[
            ("2024-05-01T12:00:00Z", "GET request 42"),
            ("2024-05-01T12:01:00Z", "nothing here"),
        ]);
        let got = results(r#"parse "* request *" as verb, id"#, &ev);
        assert_eq!(
            got[0],
            pairs(&[
                ("@timestamp", "2024-05-01 12:01:00.000"),
                ("@message", "nothing here")
            ])
        );
        assert_eq!(
            got[1],
            pairs(&[
                ("@timestamp", "2024-05-01 12:00:00.000"),
                ("@message", "GET request 42"),
                ("verb", "GET"),
                ("id", "42")
            ])
        );
    }

    #[test]
    fn parse_reads_any_field_and_chains() {
        // Parse guide: `parse @logStream "*/*/*/*" as env, service, instance, shard` and the
        // chained `parse @message "url=*" as url | parse url "/api/*/users/*" as apiVersion, userId`.
        let ev = events(&[("2024-05-01T12:00:00Z", "url=/api/v2/users/77")]);
        let mut ev2 = ev.clone();
        ev2[0].log_stream = "prod/billing/i-1/3".into();
        let q =
            r#"parse @logStream "*/*/*/*" as env, service, instance, shard | display env, shard"#;
        assert_eq!(
            results(q, &ev2),
            vec![pairs(&[("env", "prod"), ("shard", "3")])]
        );
        let q = r#"parse @message "url=*" as url | parse url "/api/*/users/*" as apiVersion, userId | display apiVersion, userId"#;
        assert_eq!(
            results(q, &ev),
            vec![pairs(&[("apiVersion", "v2"), ("userId", "77")])]
        );
    }

    #[test]
    fn sort_orders_rows_and_limit_keeps_the_first() {
        // Limit guide: `sort @timestamp desc | limit 25` "returns only the 25 most recent log
        // events"; Sort guide: descending is the reverse of ascending.
        let ev = events(&[
            ("2024-05-01T12:00:00Z", r#"{"n":"10"}"#),
            ("2024-05-01T12:02:00Z", r#"{"n":"9"}"#),
            ("2024-05-01T12:01:00Z", r#"{"n":"100"}"#),
            ("2024-05-01T12:03:00Z", r#"{"other":1}"#),
        ]);
        assert_eq!(
            column("fields n | sort n asc", &ev, "n"),
            ["", "9", "10", "100"]
        );
        assert_eq!(
            column("fields n | sort n desc", &ev, "n"),
            ["100", "10", "9", ""]
        );
        assert_eq!(
            column("fields n | sort @timestamp asc | limit 2", &ev, "n"),
            ["10", "100"]
        );
        assert_eq!(
            column("fields n | sort @timestamp desc | limit 2", &ev, "n"),
            ["", "9"]
        );
    }

    #[test]
    fn without_sort_events_come_newest_first() {
        let ev = events(&[
            ("2024-05-01T12:00:00Z", r#"{"n":1}"#),
            ("2024-05-01T12:02:00Z", r#"{"n":3}"#),
            ("2024-05-01T12:01:00Z", r#"{"n":2}"#),
        ]);
        assert_eq!(column("fields n", &ev, "n"), ["3", "2", "1"]);
        assert_eq!(column("fields n | limit 1", &ev, "n"), ["3"]);
    }

    #[test]
    fn display_of_a_json_array_field_is_empty_but_its_items_are_fields() {
        // Discovered-fields guide: arrays "flatten to lists of nested field names and values".
        let ev = events(&[(
            "2024-05-01T12:00:00Z",
            r#"{"request_id":"r1","arg_keys":["from","to"]}"#,
        )]);
        assert_eq!(
            results("display request_id, arg_keys, arg_keys.0, arg_keys.1", &ev),
            vec![pairs(&[
                ("request_id", "r1"),
                ("arg_keys.0", "from"),
                ("arg_keys.1", "to")
            ])]
        );
    }
}
