//! Expressions of `filter`, `fields` and aggregate arguments.
//!
//! Grammar, loosest binding first:
//!
//! ```text
//! expr      := and ("or" and)*
//! and       := not ("and" not)*
//! not       := "not" not | predicate
//! predicate := operand [ cmp operand | "=~" /re/ | ["not"] "like" ("str" | /re/)
//!                      | ["not"] "in" "[" literal ("," literal)* "]" ]
//! operand   := field | `field` | "str" | number | ispresent(field) | "(" expr ")"
//! cmp       := = | != | < | <= | > | >=
//! ```

use regex_lite::Regex;

use crate::ast::{CmpOp, Expr, Pattern};
use crate::error::QueryError;
use crate::lexer::Tok;
use crate::parser::{Parser, is_keyword};
use crate::value::Value;

const EXPR_FUNCTIONS: &str = "the only function supported in filter and fields is ispresent(field); aggregation functions belong in stats";

impl Parser<'_> {
    pub(crate) fn expr(&mut self) -> Result<Expr, QueryError> {
        let mut left = self.and_expr()?;
        while self.eat_kw("or") {
            let right = self.and_expr()?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and_expr(&mut self) -> Result<Expr, QueryError> {
        let mut left = self.not_expr()?;
        while self.eat_kw("and") {
            let right = self.not_expr()?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn not_expr(&mut self) -> Result<Expr, QueryError> {
        if self.eat_kw("not") {
            Ok(Expr::Not(Box::new(self.not_expr()?)))
        } else {
            self.predicate()
        }
    }

    fn predicate(&mut self) -> Result<Expr, QueryError> {
        let left = self.operand()?;
        let op = match self.peek() {
            Tok::Eq => Some(CmpOp::Eq),
            Tok::Ne => Some(CmpOp::Ne),
            Tok::Lt => Some(CmpOp::Lt),
            Tok::Le => Some(CmpOp::Le),
            Tok::Gt => Some(CmpOp::Gt),
            Tok::Ge => Some(CmpOp::Ge),
            _ => None,
        };
        if let Some(op) = op {
            self.pos += 1;
            let right = self.operand()?;
            return Ok(Expr::Cmp(Box::new(left), op, Box::new(right)));
        }
        if *self.peek() == Tok::Match {
            self.pos += 1;
            let at = self.at();
            return match self.next().tok {
                Tok::Regex(re) => Ok(Expr::Like(
                    Box::new(left),
                    Pattern::Regex(self.compile(&re, at)?),
                )),
                _ => Err(self.syntax(at, "expected a /regex/ after `=~`")),
            };
        }
        let negated = self.is_kw("not")
            && matches!(self.peek_at(1), Tok::Ident(w) if w == "like" || w == "in");
        if negated {
            self.pos += 1;
        }
        let predicate = if self.eat_kw("like") {
            Expr::Like(Box::new(left), self.like_pattern()?)
        } else if self.eat_kw("in") {
            Expr::In(Box::new(left), self.list()?)
        } else {
            return Ok(left);
        };
        Ok(if negated {
            Expr::Not(Box::new(predicate))
        } else {
            predicate
        })
    }

    fn operand(&mut self) -> Result<Expr, QueryError> {
        let at = self.at();
        match self.peek().clone() {
            Tok::Str(s) => {
                self.pos += 1;
                Ok(Expr::Lit(Value::Str(s)))
            }
            Tok::Num(n) => {
                self.pos += 1;
                Ok(Expr::Lit(Value::Num(n)))
            }
            Tok::LParen => {
                self.pos += 1;
                let inner = self.expr()?;
                self.expect(Tok::RParen, "`)`")?;
                Ok(inner)
            }
            Tok::Ident(name) if *self.peek_at(1) == Tok::LParen => self.call(&name, at),
            Tok::Ident(_) | Tok::Quoted(_) => Ok(Expr::Field(self.field_name()?)),
            Tok::Regex(_) => {
                Err(self.syntax(at, "a /regex/ can only follow `like`, `not like` or `=~`"))
            }
            _ => Err(self.syntax(at, "expected a field name, a \"string\", a number or `(`")),
        }
    }

    fn call(&mut self, name: &str, at: usize) -> Result<Expr, QueryError> {
        match name {
            "ispresent" => {
                self.pos += 2;
                let field = self.field_name()?;
                self.expect(Tok::RParen, "`)` closing ispresent(")?;
                Ok(Expr::IsPresent(field))
            }
            "count" | "count_distinct" | "sum" | "avg" | "min" | "max" | "latest" | "earliest" | "pct" => Err(self.syntax(
                at,
                &format!("`{name}()` is an aggregation function: use it directly in `stats`, not inside `filter`, `fields` or another function"),
            )),
            "bin" => Err(self.syntax(at, "bin(period) can only be used after `by` in `stats`")),
            _ if is_keyword(name) => Err(self.syntax(at, &format!("unexpected `{name}`"))),
            _ => Err(self.unsupported(at, &format!("the `{name}()` function"), EXPR_FUNCTIONS)),
        }
    }

    fn like_pattern(&mut self) -> Result<Pattern, QueryError> {
        let at = self.at();
        match self.next().tok {
            Tok::Str(s) => Ok(Pattern::Substring(s)),
            Tok::Regex(re) => Ok(Pattern::Regex(self.compile(&re, at)?)),
            _ => Err(self.syntax(at, "expected a \"substring\" or a /regex/ after `like`")),
        }
    }

    fn list(&mut self) -> Result<Vec<Value>, QueryError> {
        self.expect(
            Tok::LBracket,
            "`[` starting the list, as in `in [\"a\", \"b\"]`",
        )?;
        let mut items = Vec::new();
        loop {
            let at = self.at();
            match self.next().tok {
                Tok::Str(s) => items.push(Value::Str(s)),
                Tok::Num(n) => items.push(Value::Num(n)),
                _ => return Err(self.syntax(at, "expected a \"string\" or a number in the list")),
            }
            let at = self.at();
            match self.next().tok {
                Tok::Comma => {}
                Tok::RBracket => return Ok(items),
                _ => return Err(self.syntax(at, "expected `,` or `]`")),
            }
        }
    }

    fn compile(&self, re: &str, at: usize) -> Result<Regex, QueryError> {
        Regex::new(re).map_err(|e| {
            self.syntax(at, &format!("invalid regular expression for this engine (regex-lite syntax, no look-around): {e}"))
        })
    }
}
