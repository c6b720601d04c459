//! The parsed form of a query.

use regex_lite::Regex;

use crate::timebin::Period;
use crate::value::Value;

#[derive(Debug, Clone)]
pub(crate) enum Command {
    /// Adds the named columns to the result and evaluates aliased expressions into new fields.
    Fields(Vec<Projection>),
    Filter(Expr),
    /// Glob `parse`: `regex` is the glob compiled to a regex with one group per `*`.
    Parse {
        source: String,
        regex: Regex,
        names: Vec<String>,
    },
    Stats(Stats),
    Sort {
        column: String,
        descending: bool,
    },
    Limit(usize),
    Display(Vec<String>),
}

#[derive(Debug, Clone)]
pub(crate) struct Projection {
    pub expr: Expr,
    pub name: String,
}

#[derive(Debug, Clone)]
pub(crate) enum Expr {
    Field(String),
    Lit(Value),
    Cmp(Box<Expr>, CmpOp, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    /// `like` / `=~`; `not like` is `Not(Like ..)`.
    Like(Box<Expr>, Pattern),
    /// `in [...]`; `not in` is `Not(In ..)`.
    In(Box<Expr>, Vec<Value>),
    IsPresent(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone)]
pub(crate) enum Pattern {
    /// `like "text"`: case-sensitive substring.
    Substring(String),
    /// `like /re/` or `=~ /re/`: unanchored regex search.
    Regex(Regex),
}

#[derive(Debug, Clone)]
pub(crate) struct Stats {
    pub aggs: Vec<Agg>,
    pub groups: Vec<Group>,
}

#[derive(Debug, Clone)]
pub(crate) struct Agg {
    pub func: AggFunc,
    /// `None` for `count(*)` / `count()`.
    pub arg: Option<Expr>,
    /// Column name: the alias, else the call as written (`count(*)`).
    pub name: String,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum AggFunc {
    Count,
    CountDistinct,
    Sum,
    Avg,
    Min,
    Max,
    Latest,
    Earliest,
    /// Percentile, 0 to 100.
    Pct(f64),
}

#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub key: GroupKey,
    /// Column name: the alias, else the field name or the call as written (`bin(5m)`).
    pub name: String,
}

#[derive(Debug, Clone)]
pub(crate) enum GroupKey {
    Field(String),
    Bin(Period),
}
