//! Evaluating expressions against one row.
//!
//! Semantics, with sources:
//! - Comparisons are numeric when both sides read as numbers, else textual (`value::equals`);
//!   the `filter` guide's `accountId=123456789012` matches CloudTrail's string `accountId`.
//! - A missing field makes `=`, `<`, `<=`, `>`, `>=`, `like` and `in` false and `!=` true.
//!   AWS does not document this; the `!=` case is the behaviour reported against real Logs
//!   Insights in DataBiosphere/azul#5884 ("`userIdentity.invokedBy != 'foo'` ... is a TRUE
//!   condition for a CloudWatch query" on records without the field). `not like` and `not in`
//!   are the negations, so they are true for a missing field too.
//! - `like "text"` is a case-sensitive substring test, `like /re/` and `=~ /re/` an unanchored
//!   regex search; `(?i)` makes it case-insensitive (query-syntax guide, "Matches and regular
//!   expressions in the filter command").
//! - `in [...]` is membership by whole value: "The fields must be complete strings".
//! - Boolean results are values too (`1`/`0`), so `sum(status != "ok")` counts rows.

use crate::ast::{CmpOp, Expr, Pattern};
use crate::event::Record;
use crate::value::{Value, compare, equals};

pub(crate) fn eval(expr: &Expr, row: &Record) -> Value {
    match expr {
        Expr::Field(name) => row.get(name).clone(),
        Expr::Lit(v) => v.clone(),
        Expr::Cmp(a, op, b) => Value::Bool(comparison(&eval(a, row), *op, &eval(b, row))),
        Expr::And(a, b) => Value::Bool(truthy(&eval(a, row)) && truthy(&eval(b, row))),
        Expr::Or(a, b) => Value::Bool(truthy(&eval(a, row)) || truthy(&eval(b, row))),
        Expr::Not(a) => Value::Bool(!truthy(&eval(a, row))),
        Expr::Like(a, pattern) => {
            let v = eval(a, row);
            Value::Bool(
                !v.is_null() && {
                    let text = v.render();
                    match pattern {
                        Pattern::Substring(s) => text.contains(s.as_str()),
                        Pattern::Regex(re) => re.is_match(&text),
                    }
                },
            )
        }
        Expr::In(a, list) => {
            let v = eval(a, row);
            Value::Bool(!v.is_null() && list.iter().any(|item| equals(&v, item)))
        }
        Expr::IsPresent(name) => Value::Bool(!row.get(name).is_null()),
    }
}

/// Whether a `filter` keeps the row: true booleans, non-zero numbers, non-empty strings and
/// timestamps; never a missing value.
pub(crate) fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Num(n) => *n != 0.0,
        Value::Str(s) => !s.is_empty(),
        Value::Time(_) => true,
    }
}

fn comparison(a: &Value, op: CmpOp, b: &Value) -> bool {
    if a.is_null() || b.is_null() {
        return op == CmpOp::Ne;
    }
    match op {
        CmpOp::Eq => equals(a, b),
        CmpOp::Ne => !equals(a, b),
        CmpOp::Lt => compare(a, b).is_some_and(|o| o.is_lt()),
        CmpOp::Le => compare(a, b).is_some_and(|o| o.is_le()),
        CmpOp::Gt => compare(a, b).is_some_and(|o| o.is_gt()),
        CmpOp::Ge => compare(a, b).is_some_and(|o| o.is_ge()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::Command;
    use crate::event::Event;
    use crate::parser::parse_query;

    fn row(json: &str) -> Record {
        Record::from_event(&Event {
            timestamp: "2024-05-01T12:00:00Z".parse().unwrap(),
            message: json.into(),
            log_group: "g".into(),
            log_stream: "s".into(),
        })
    }

    /// Whether `filter <condition>` keeps the event whose message is `json`.
    fn keeps(condition: &str, json: &str) -> bool {
        let commands = parse_query(&format!("filter {condition}")).unwrap();
        let Command::Filter(expr) = &commands[0] else {
            unreachable!()
        };
        truthy(&eval(expr, &row(json)))
    }

    #[test]
    fn numeric_comparison_from_the_filter_guide() {
        // CWL_QuerySyntax-Filter: "returns all log events where the value for range is greater
        // than 3000".
        assert!(keeps("(range>3000)", r#"{"range":3500}"#));
        assert!(!keeps("(range>3000)", r#"{"range":3000}"#));
        assert!(keeps("(range>3000)", r#"{"range":"3001"}"#));
        // "... and value for accountId is equal to 123456789012".
        let e = r#"{"range":4000,"accountId":"123456789012"}"#;
        assert!(keeps("(range>3000 and accountId=123456789012)", e));
        assert!(!keeps("(range>3000 and accountId=123456789013)", e));
    }

    #[test]
    fn or_combines_conditions() {
        // Query-syntax guide: `filter (f1=10 or f3>25)`.
        assert!(keeps("(f1=10 or f3>25)", r#"{"f1":10}"#));
        assert!(keeps("(f1=10 or f3>25)", r#"{"f1":9,"f3":26}"#));
        assert!(!keeps("(f1=10 or f3>25)", r#"{"f1":9,"f3":25}"#));
    }

    #[test]
    fn like_matches_substrings_and_regexes_case_sensitively() {
        // Query-syntax guide: `statusCode like /2\d\d/`, `f1 like "Exception"`, `=~`, `(?i)`.
        assert!(keeps(r"statusCode like /2\d\d/", r#"{"statusCode":204}"#));
        assert!(!keeps(r"statusCode like /2\d\d/", r#"{"statusCode":404}"#));
        assert!(keeps(
            r"statusCode not like /2\d\d/",
            r#"{"statusCode":404}"#
        ));
        let e = r#"{"f1":"java.lang.IllegalStateException: boom"}"#;
        assert!(keeps(r#"f1 like "Exception""#, e));
        assert!(keeps("f1 =~ /Exception/", e));
        assert!(!keeps(r#"f1 like "exception""#, e));
        assert!(keeps("f1 like /(?i)exception/", e));
        assert!(!keeps(r#"f1 not like "Exception""#, e));
    }

    #[test]
    fn in_tests_whole_values() {
        // Guide: `filter logGroup in ["example_group"]` needs "the complete string".
        assert!(keeps(
            r#"logGroup in ["example_group"]"#,
            r#"{"logGroup":"example_group"}"#
        ));
        assert!(!keeps(
            r#"logGroup in ["example_group"]"#,
            r#"{"logGroup":"example_group_2"}"#
        ));
        // `statusCode in [300,400,500]` and `Type not in ["foo","bar",1]`.
        assert!(keeps(
            "statusCode in [300,400,500]",
            r#"{"statusCode":"400"}"#
        ));
        assert!(!keeps(r#"Type not in ["foo","bar",1]"#, r#"{"Type":1}"#));
        assert!(keeps(r#"Type not in ["foo","bar",1]"#, r#"{"Type":"baz"}"#));
    }

    #[test]
    fn missing_fields_fail_comparisons_except_not_equal() {
        let e = r#"{"event":"tool_call"}"#;
        assert!(!keeps(r#"status = "ok""#, e));
        assert!(keeps(r#"status != "ok""#, e));
        assert!(!keeps("duration_ms > 0", e));
        assert!(!keeps("duration_ms <= 0", e));
        assert!(!keeps(r#"status like "o""#, e));
        assert!(!keeps(r#"status in ["ok"]"#, e));
        assert!(keeps(r#"status not in ["ok"]"#, e));
    }

    #[test]
    fn ispresent_tells_missing_from_present() {
        // General functions: ispresent "Returns true if the field exists".
        assert!(keeps(
            "ispresent(quota_remaining)",
            r#"{"quota_remaining":0}"#
        ));
        assert!(!keeps(
            "ispresent(quota_remaining)",
            r#"{"quota_consumed":1}"#
        ));
        assert!(keeps("not ispresent(quota_remaining)", r#"{}"#));
    }

    #[test]
    fn not_binds_tighter_than_and_which_binds_tighter_than_or() {
        let e = r#"{"event":"tool_call","status":"error"}"#;
        assert!(keeps(
            r#"event = "tool_error" or event = "tool_call" and status != "ok""#,
            e
        ));
        assert!(!keeps(r#"not event = "tool_call" and status != "ok""#, e));
        assert!(keeps(r#"not (event = "tool_call" and status = "ok")"#, e));
    }

    #[test]
    fn comparisons_evaluate_to_one_or_zero() {
        let r = row(r#"{"status":"error"}"#);
        let commands = parse_query(r#"fields status != "ok" as failed"#).unwrap();
        let Command::Fields(p) = &commands[0] else {
            unreachable!()
        };
        assert_eq!(eval(&p[0].expr, &r).render(), "1");
    }
}
