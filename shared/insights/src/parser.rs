//! The query as a whole: commands separated by `|`, the parser's token cursor and errors, and
//! the simple commands `fields` and `display`. `parse`, `stats`, `sort` and `limit` are in
//! `command_parser`, expressions in `expr_parser`.

use crate::ast::{Command, Projection};
use crate::error::{QueryError, line_col};
use crate::lexer::{Tok, Token, tokenize};

pub(crate) const COMMANDS: &str =
    "supported commands: fields, filter, parse, stats, sort, limit, display";
pub(crate) const AGGREGATES: &str = "supported in stats: count(*), count(field), count_distinct(field), sum(x), avg(x), min(x), max(x), latest(x), earliest(x), pct(x, percent)";

/// Most rows a query returns: the default and the largest `limit`
/// (CWL_QuerySyntax-Limit: "If you omit limit, the query will return as many as 10,000 log
/// events"; StartQuery `limit` defaults to 10,000).
pub(crate) const MAX_ROWS: usize = 10_000;

pub(crate) struct Parser<'a> {
    pub text: &'a str,
    pub toks: Vec<Token>,
    pub pos: usize,
    /// Name of the command being parsed, for error messages.
    pub command: &'static str,
}

pub(crate) fn parse_query(text: &str) -> Result<Vec<Command>, QueryError> {
    let mut p = Parser {
        text,
        toks: tokenize(text)?,
        pos: 0,
        command: "query",
    };
    if *p.peek() == Tok::Eof {
        return Err(p.syntax(0, "the query is empty"));
    }
    let mut commands = Vec::new();
    let mut stats_seen = false;
    loop {
        let at = p.at();
        let command = p.command()?;
        if matches!(command, Command::Stats(_)) {
            if stats_seen {
                return Err(p.unsupported(
                    at,
                    "a second `stats` command",
                    "use one `stats` per query",
                ));
            }
            stats_seen = true;
        }
        commands.push(command);
        p.command = "query";
        match p.peek() {
            Tok::Pipe => p.pos += 1,
            Tok::Eof => return Ok(commands),
            Tok::Ident(w) if is_keyword(&w.to_lowercase()) => {
                let message = format!(
                    "expected `|` or the end of the query; keywords are lowercase: write `{}`",
                    w.to_lowercase()
                );
                return Err(p.syntax(p.at(), &message));
            }
            _ => return Err(p.syntax(p.at(), "expected `|` or the end of the query")),
        }
    }
}

impl Parser<'_> {
    pub(crate) fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    pub(crate) fn peek_at(&self, ahead: usize) -> &Tok {
        &self.toks[(self.pos + ahead).min(self.toks.len() - 1)].tok
    }

    pub(crate) fn next(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if t.tok != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    /// Byte offset of the next token.
    pub(crate) fn at(&self) -> usize {
        self.toks[self.pos].start
    }

    /// Byte offset just after the last consumed token.
    pub(crate) fn prev_end(&self) -> usize {
        self.toks[self.pos.saturating_sub(1)].end
    }

    pub(crate) fn syntax(&self, at: usize, message: &str) -> QueryError {
        let (line, column) = line_col(self.text, at);
        QueryError::Syntax {
            command: self.command.into(),
            line,
            column,
            message: message.into(),
        }
    }

    pub(crate) fn unsupported(&self, at: usize, feature: &str, supported: &str) -> QueryError {
        let (line, column) = line_col(self.text, at);
        QueryError::Unsupported {
            command: self.command.into(),
            line,
            column,
            feature: feature.into(),
            supported: supported.into(),
        }
    }

    pub(crate) fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Tok::Ident(w) if w == kw)
    }

    pub(crate) fn eat_kw(&mut self, kw: &str) -> bool {
        let hit = self.is_kw(kw);
        if hit {
            self.pos += 1;
        }
        hit
    }

    pub(crate) fn expect(&mut self, tok: Tok, what: &str) -> Result<Token, QueryError> {
        if *self.peek() == tok {
            Ok(self.next())
        } else {
            Err(self.syntax(self.at(), &format!("expected {what}")))
        }
    }

    /// A field name: a bare word or a name in backticks. `@ptr` and `@ingestionTime` exist in
    /// AWS but not in local events, so they are refused rather than always empty.
    pub(crate) fn field_name(&mut self) -> Result<String, QueryError> {
        if let Tok::Ident(name) = self.peek()
            && matches!(name.as_str(), "@ptr" | "@ingestionTime")
        {
            return Err(self.unsupported(
                self.at(),
                &format!("the `{name}` field"),
                "local events have @timestamp, @message, @logStream, @log and the fields discovered in the message",
            ));
        }
        match self.peek().clone() {
            Tok::Ident(name) if !is_keyword(&name) => {
                self.pos += 1;
                Ok(name)
            }
            Tok::Quoted(name) => {
                self.pos += 1;
                Ok(name)
            }
            _ => Err(self.syntax(self.at(), "expected a field name")),
        }
    }

    fn command(&mut self) -> Result<Command, QueryError> {
        let at = self.at();
        let Tok::Ident(name) = self.next().tok else {
            return Err(self.syntax(at, &format!("expected a command; {COMMANDS}")));
        };
        self.command = match name.as_str() {
            "fields" => "fields",
            "filter" => "filter",
            "parse" => "parse",
            "stats" => "stats",
            "sort" => "sort",
            "limit" => "limit",
            "display" => "display",
            other => {
                let case = if COMMANDS.contains(&format!(" {}", other.to_lowercase())) {
                    " (commands are lowercase)"
                } else {
                    ""
                };
                return Err(self.unsupported(
                    at,
                    &format!("the `{other}` command{case}"),
                    COMMANDS,
                ));
            }
        };
        match self.command {
            "fields" => Ok(Command::Fields(self.comma_list(Self::projection)?)),
            "filter" => Ok(Command::Filter(self.expr()?)),
            "parse" => self.parse_command(),
            "stats" => self.stats(),
            "sort" => self.sort(),
            "limit" => self.limit(),
            _ => Ok(Command::Display(self.comma_list(Self::field_name)?)),
        }
    }

    pub(crate) fn comma_list<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Result<T, QueryError>,
    ) -> Result<Vec<T>, QueryError> {
        let mut items = vec![item(self)?];
        while *self.peek() == Tok::Comma {
            self.pos += 1;
            items.push(item(self)?);
        }
        Ok(items)
    }

    /// `expr [as alias]`; without an alias a field keeps its name and an expression is named
    /// as written.
    fn projection(&mut self) -> Result<Projection, QueryError> {
        let start = self.at();
        let expr = self.expr()?;
        let written = self.text[start..self.prev_end()].to_string();
        let name = self.alias()?.unwrap_or_else(|| match &expr {
            crate::ast::Expr::Field(name) => name.clone(),
            _ => written,
        });
        Ok(Projection { expr, name })
    }

    pub(crate) fn alias(&mut self) -> Result<Option<String>, QueryError> {
        if self.eat_kw("as") {
            self.field_name().map(Some)
        } else {
            Ok(None)
        }
    }
}

pub(crate) fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "and" | "or" | "not" | "in" | "like" | "as" | "by" | "asc" | "desc"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::error;

    #[test]
    fn parses_every_query_shape_the_project_uses() {
        for query in [
            "fields @timestamp, tool, status, reason\n| filter event = \"tool_error\" or (event = \"tool_call\" and status != \"ok\")\n| stats count(*) as errors, latest(@timestamp) as last_seen by tool, status, reason\n| sort errors desc\n| limit 20",
            "filter event in [\"tool_call\", \"tool_error\"]\n| stats count(*) as calls, sum(status != \"ok\") as errors by tool",
            "stats count(*) by bin(1d)",
            "filter ispresent(quota_remaining) | stats latest(quota_remaining) as remaining, max(quota_consumed) by connector",
            "parse @message \"* request *\" as a, b",
            "display request_id, @timestamp, reason, arg_keys",
            "filter tool like /invoice/",
            "stats pct(duration_ms, 95) by tool",
            "stats count_distinct(user), avg(duration_ms), min(duration_ms), earliest(@timestamp)",
            "fields `foo-bar`, action | sort `foo-bar` asc",
        ] {
            assert!(
                parse_query(query).is_ok(),
                "{query}: {:?}",
                parse_query(query).err()
            );
        }
    }

    #[test]
    fn commands_outside_the_subset_are_named_with_the_alternatives() {
        let e = error("fields tool\n  | dedup tool");
        assert!(
            e.starts_with("query (line 2, column 5): the `dedup` command is not supported"),
            "{e}"
        );
        assert!(e.contains(COMMANDS), "{e}");
        assert!(error("FILTER x = 1").contains("commands are lowercase"));
        assert!(error("filter a = 1 AND b = 2").contains("write `and`"));
    }

    #[test]
    fn malformed_queries_report_the_position() {
        assert_eq!(error(""), "query (line 1, column 1): the query is empty");
        let e = error("filter status = \n| limit 5");
        assert_eq!(
            e,
            "filter (line 2, column 1): expected a field name, a \"string\", a number or `(`"
        );
        assert!(error("filter tool like 5").contains("after `like`"));
        assert!(error("filter tool in \"a\"").contains("`[`"));
        assert!(error("filter tool like /(/").contains("invalid regular expression"));
        assert!(error("fields tool tool").contains("expected `|`"));
        assert!(error("| fields tool").contains("expected a command"));
        assert!(error("display @ptr").contains("the `@ptr` field is not supported"));
        assert!(error("filter @ingestionTime > 0").contains("`@ingestionTime`"));
    }
}
