//! Commands with their own grammar: `parse`, `stats`, `sort` and `limit`.

use regex_lite::Regex;

use crate::ast::{Agg, AggFunc, Command, Group, GroupKey, Stats};
use crate::error::QueryError;
use crate::lexer::Tok;
use crate::parser::{AGGREGATES, MAX_ROWS, Parser};
use crate::timebin::{PERIOD_HELP, PeriodError, parse_period};

impl Parser<'_> {
    /// `parse [field] "glob" as name, ...` — the source defaults to `@message`.
    pub(crate) fn parse_command(&mut self) -> Result<Command, QueryError> {
        let source = match self.peek() {
            Tok::Str(_) => "@message".to_string(),
            _ => self.field_name()?,
        };
        let at = self.at();
        let glob = match self.next().tok {
            Tok::Str(glob) => glob,
            Tok::Regex(_) => {
                return Err(self.unsupported(
                    at,
                    "regex mode of `parse`",
                    "use a glob pattern in quotes with `*` wildcards",
                ));
            }
            _ => {
                return Err(self.syntax(
                    at,
                    "expected a glob pattern in quotes, such as \"* request *\"",
                ));
            }
        };
        if !self.eat_kw("as") {
            return Err(self.syntax(
                self.at(),
                "expected `as` and one name per `*` in the pattern",
            ));
        }
        let names = self.comma_list(Self::field_name)?;
        let stars = glob.matches('*').count();
        if stars == 0 || stars != names.len() {
            return Err(self.syntax(
                at,
                &format!("the pattern has {stars} `*` wildcard(s) but {} name(s) follow `as`; give one name per `*`, with at least one `*`", names.len()),
            ));
        }
        let regex = Regex::new(&glob_regex(&glob)).map_err(|e| self.syntax(at, &e.to_string()))?;
        Ok(Command::Parse {
            source,
            regex,
            names,
        })
    }

    pub(crate) fn stats(&mut self) -> Result<Command, QueryError> {
        let aggs = self.comma_list(Self::aggregate)?;
        let groups = if self.eat_kw("by") {
            self.comma_list(Self::group)?
        } else {
            Vec::new()
        };
        Ok(Command::Stats(Stats { aggs, groups }))
    }

    fn aggregate(&mut self) -> Result<Agg, QueryError> {
        let start = self.at();
        let name = match (self.peek().clone(), self.peek_at(1)) {
            (Tok::Ident(name), Tok::LParen) => name,
            _ => {
                return Err(self.syntax(
                    start,
                    &format!("expected an aggregation function; {AGGREGATES}"),
                ));
            }
        };
        self.pos += 2;
        let func = match name.as_str() {
            "count" => AggFunc::Count,
            "count_distinct" => AggFunc::CountDistinct,
            "sum" => AggFunc::Sum,
            "avg" => AggFunc::Avg,
            "min" => AggFunc::Min,
            "max" => AggFunc::Max,
            "latest" => AggFunc::Latest,
            "earliest" => AggFunc::Earliest,
            "pct" => AggFunc::Pct(0.0),
            other => {
                return Err(self.unsupported(start, &format!("`{other}()` in stats"), AGGREGATES));
            }
        };
        let star = func == AggFunc::Count && matches!(self.peek(), Tok::Star | Tok::RParen);
        let arg = if star {
            self.eat_star();
            None
        } else {
            Some(self.expr()?)
        };
        let func = match func {
            AggFunc::Pct(_) => {
                self.expect(
                    Tok::Comma,
                    "`,` and a percentile between 0 and 100, as in pct(duration_ms, 95)",
                )?;
                match self.next().tok {
                    Tok::Num(p) if (0.0..=100.0).contains(&p) => AggFunc::Pct(p),
                    _ => {
                        return Err(self.syntax(
                            self.prev_end(),
                            "the percentile must be a number between 0 and 100",
                        ));
                    }
                }
            }
            f => f,
        };
        self.expect(Tok::RParen, "`)` closing the aggregation function")?;
        let written = self.text[start..self.prev_end()].to_string();
        let name = self.alias()?.unwrap_or(written);
        Ok(Agg { func, arg, name })
    }

    fn eat_star(&mut self) {
        if *self.peek() == Tok::Star {
            self.pos += 1;
        }
    }

    /// `by` item: a field name or `bin(period)`, optionally aliased.
    fn group(&mut self) -> Result<Group, QueryError> {
        let start = self.at();
        let key = match (self.peek().clone(), self.peek_at(1)) {
            (Tok::Ident(f), Tok::LParen) if f == "bin" => {
                self.pos += 2;
                let at = self.at();
                let period = match self.next().tok {
                    Tok::Period(text) => parse_period(&text).map_err(|e| match e {
                        PeriodError::Week => self.unsupported(
                            at,
                            "a week period",
                            "AWS does not document the weekday a week bin starts on; use 7d or 1d",
                        ),
                        PeriodError::Malformed => self.syntax(at, PERIOD_HELP),
                    })?,
                    _ => return Err(self.syntax(at, PERIOD_HELP)),
                };
                self.expect(Tok::RParen, "`)` closing bin(")?;
                GroupKey::Bin(period)
            }
            (Tok::Ident(f), Tok::LParen) => {
                return Err(self.unsupported(
                    start,
                    &format!("grouping by `{f}()`"),
                    "group by field names or bin(period)",
                ));
            }
            _ => GroupKey::Field(self.field_name()?),
        };
        let written = self.text[start..self.prev_end()].to_string();
        let name = self.alias()?.unwrap_or(written);
        Ok(Group { key, name })
    }

    /// `sort column asc|desc`. The column may be a field, an alias or a stats column written
    /// as in `stats` (`count(*)`, `bin(5m)`).
    pub(crate) fn sort(&mut self) -> Result<Command, QueryError> {
        let start = self.at();
        let column = match (self.peek().clone(), self.peek_at(1)) {
            (Tok::Ident(f), Tok::LParen) if !is_stats_call(&f) => {
                return Err(self.unsupported(
                    start,
                    &format!("sorting by `{f}()`"),
                    "sort by a field, an alias or a stats column such as count(*)",
                ));
            }
            (Tok::Ident(_), Tok::LParen) => {
                let mut depth = 0;
                loop {
                    match self.next().tok {
                        Tok::LParen => depth += 1,
                        Tok::RParen if depth == 1 => break,
                        Tok::RParen => depth -= 1,
                        Tok::Eof | Tok::Pipe => {
                            return Err(self.syntax(start, "unbalanced parentheses"));
                        }
                        _ => {}
                    }
                }
                self.text[start..self.prev_end()].to_string()
            }
            _ => self.field_name()?,
        };
        let descending = if self.eat_kw("desc") {
            true
        } else if self.eat_kw("asc") {
            false
        } else {
            return Err(self.syntax(
                self.at(),
                "expected `asc` or `desc` (written out: AWS does not document a default order)",
            ));
        };
        if *self.peek() == Tok::Comma {
            return Err(self.unsupported(
                self.at(),
                "sorting by more than one field",
                "sort by one field: `sort <field> asc|desc`",
            ));
        }
        Ok(Command::Sort { column, descending })
    }

    pub(crate) fn limit(&mut self) -> Result<Command, QueryError> {
        let at = self.at();
        match self.next().tok {
            Tok::Num(n) if n.fract() == 0.0 && (1.0..=MAX_ROWS as f64).contains(&n) => {
                Ok(Command::Limit(n as usize))
            }
            _ => Err(self.syntax(
                at,
                &format!("expected a whole number of rows from 1 to {MAX_ROWS}"),
            )),
        }
    }
}

/// Functions whose call text names a `stats` output column.
fn is_stats_call(name: &str) -> bool {
    matches!(
        name,
        "count"
            | "count_distinct"
            | "sum"
            | "avg"
            | "min"
            | "max"
            | "latest"
            | "earliest"
            | "pct"
            | "bin"
    )
}

/// The regex for a `parse` glob: literal text escaped, each `*` a lazy group, except a trailing
/// `*`, which takes the rest of the value. The pattern may match anywhere in the value, as in
/// the guide's `parse @message "[*] * The error was: *"` over a line that starts with a date.
fn glob_regex(glob: &str) -> String {
    let parts: Vec<&str> = glob.split('*').collect();
    let mut re = String::from("(?s)");
    for (i, part) in parts.iter().enumerate() {
        re.push_str(&regex_lite::escape(part));
        if i + 1 < parts.len() {
            let trailing = i + 2 == parts.len() && parts[i + 1].is_empty();
            re.push_str(if trailing { "(.*)" } else { "(.*?)" });
        }
    }
    re
}

#[cfg(test)]
mod tests {
    use crate::ast::Command;
    use crate::parser::parse_query;
    use crate::testutil::error;

    #[test]
    fn stats_columns_are_named_as_written_or_aliased() {
        // Query-syntax guide: `stats count(*) as exceptionCount by bin(1h)` groups "under the
        // field bin(1h)" and names the count `exceptionCount`.
        let commands =
            parse_query("stats count(*) as exceptionCount, pct(latency, 95) by bin(1h), tool as t")
                .unwrap();
        let Command::Stats(s) = &commands[0] else {
            unreachable!()
        };
        let aggs: Vec<&str> = s.aggs.iter().map(|a| a.name.as_str()).collect();
        let groups: Vec<&str> = s.groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(aggs, ["exceptionCount", "pct(latency, 95)"]);
        assert_eq!(groups, ["bin(1h)", "t"]);
    }

    #[test]
    fn functions_outside_the_subset_are_rejected() {
        let e = error("stats stddev(duration_ms) by tool");
        assert!(
            e.starts_with("stats (line 1, column 7): `stddev()` in stats is not supported"),
            "{e}"
        );
        assert!(e.contains("pct(x, percent)"), "{e}");
        assert!(error("stats sortsFirst(tool)").contains("not supported"));
        assert!(
            error("filter strcontains(@message, \"x\")")
                .contains("the `strcontains()` function is not supported")
        );
        assert!(error("fields abs(f3-f4)").contains("arithmetic"));
        assert!(error("filter count(*) > 1").contains("use it directly in `stats`"));
        assert!(error("fields bin(5m)").contains("only be used after `by`"));
        assert!(error("stats count(*) by strlen(tool)").contains("grouping by `strlen()`"));
        assert!(error("stats count(*) | stats count(*)").contains("a second `stats` command"));
    }

    #[test]
    fn parse_needs_one_name_per_glob_star() {
        // Parse guide: "The number of * wildcards must equal the number of aliases."
        assert!(
            error(r#"parse @message "* request *" as a"#)
                .contains("2 `*` wildcard(s) but 1 name(s)")
        );
        assert!(error(r#"parse @message "no stars" as a"#).contains("0 `*` wildcard(s)"));
        assert!(
            error(r"parse @message /(?<a>\d+)/").contains("regex mode of `parse` is not supported")
        );
        assert!(error(r#"parse @message "*""#).contains("expected `as`"));
    }

    #[test]
    fn sort_needs_a_direction_and_one_column() {
        assert!(error("sort @timestamp").contains("expected `asc` or `desc`"));
        assert!(error("sort a desc, b asc").contains("sorting by more than one field"));
        assert!(error("sort strlen(tool) desc").contains("sorting by `strlen()`"));
        assert!(parse_query("stats count(*) by tool | sort count(*) desc").is_ok());
    }

    #[test]
    fn limit_is_between_one_and_ten_thousand() {
        // Limit guide: limit can raise the rows returned up to 10,000.
        assert!(parse_query("limit 10000").is_ok());
        for bad in ["limit 0", "limit 10001", "limit 2.5", "limit tool"] {
            assert!(error(bad).contains("from 1 to 10000"), "{bad}");
        }
    }

    #[test]
    fn bin_periods_are_checked() {
        assert!(error("stats count(*) by bin(1w)").contains("a week period is not supported"));
        assert!(error("stats count(*) by bin(5x)").contains("positive whole number"));
        assert!(error("stats count(*) by bin(tool)").contains("positive whole number"));
    }
}
