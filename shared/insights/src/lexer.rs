//! Tokens of the query text.
//!
//! The language has no arithmetic in our subset, so `/` always opens a regular expression and
//! `-` is only the sign of a number literal. `#` starts a comment that runs to the end of the
//! line ("set off the comments with the hash character", CWL_QuerySyntax).

use crate::error::{QueryError, line_col};

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// Bare word: command, keyword, function or field name (`@timestamp`, `userIdentity.type`).
    Ident(String),
    /// Field name in backticks: `` `foo-bar` ``.
    Quoted(String),
    /// String literal in single or double quotes.
    Str(String),
    /// Regular expression between slashes, without the slashes.
    Regex(String),
    Num(f64),
    /// Time period such as `5m`, `1d`, `2hrs`.
    Period(String),
    Pipe,
    Comma,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Star,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Match,
    Eof,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub tok: Tok,
    /// Byte offsets of the token in the query text.
    pub start: usize,
    pub end: usize,
}

pub(crate) fn tokenize(text: &str) -> Result<Vec<Token>, QueryError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let single = |t: Tok| Token {
            tok: t,
            start,
            end: start + 1,
        };
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'|' | b',' | b'(' | b')' | b'[' | b']' | b'*' => {
                out.push(single(match c {
                    b'|' => Tok::Pipe,
                    b',' => Tok::Comma,
                    b'(' => Tok::LParen,
                    b')' => Tok::RParen,
                    b'[' => Tok::LBracket,
                    b']' => Tok::RBracket,
                    _ => Tok::Star,
                }));
                i += 1;
            }
            b'=' | b'!' | b'<' | b'>' => {
                let next = bytes.get(i + 1).copied();
                let (tok, len) = match (c, next) {
                    (b'=', Some(b'~')) => (Tok::Match, 2),
                    (b'=', _) => (Tok::Eq, 1),
                    (b'!', Some(b'=')) => (Tok::Ne, 2),
                    (b'<', Some(b'=')) => (Tok::Le, 2),
                    (b'<', _) => (Tok::Lt, 1),
                    (b'>', Some(b'=')) => (Tok::Ge, 2),
                    (b'>', _) => (Tok::Gt, 1),
                    _ => return Err(syntax(text, i, "`!` must be followed by `=`")),
                };
                out.push(Token {
                    tok,
                    start,
                    end: start + len,
                });
                i += len;
            }
            b'"' | b'\'' => {
                let (s, end) = quoted(text, i, c)?;
                out.push(Token {
                    tok: Tok::Str(s),
                    start,
                    end,
                });
                i = end;
            }
            b'`' => {
                let close = text[i + 1..]
                    .find('`')
                    .ok_or_else(|| syntax(text, i, "unterminated backtick field name"))?;
                let name = text[i + 1..i + 1 + close].to_string();
                i += close + 2;
                out.push(Token {
                    tok: Tok::Quoted(name),
                    start,
                    end: i,
                });
            }
            b'/' => {
                let (re, end) = regex(text, i)?;
                out.push(Token {
                    tok: Tok::Regex(re),
                    start,
                    end,
                });
                i = end;
            }
            b'0'..=b'9' | b'-' => {
                let (tok, end) = number(text, i)?;
                out.push(Token { tok, start, end });
                i = end;
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'@' => {
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'@' | b'.'))
                {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Ident(text[start..i].to_string()),
                    start,
                    end: i,
                });
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                let hint = if "+-*/^%".contains(ch) {
                    "; arithmetic operators are outside the supported subset"
                } else {
                    ""
                };
                return Err(syntax(
                    text,
                    i,
                    &format!("unexpected character `{ch}`{hint}"),
                ));
            }
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        start: text.len(),
        end: text.len(),
    });
    Ok(out)
}

fn syntax(text: &str, at: usize, message: &str) -> QueryError {
    let (line, column) = line_col(text, at);
    QueryError::Syntax {
        command: "query".into(),
        line,
        column,
        message: message.into(),
    }
}

/// A string in `quote`s starting at `at`; a backslash escapes the quote and itself.
fn quoted(text: &str, at: usize, quote: u8) -> Result<(String, usize), QueryError> {
    let mut out = String::new();
    let mut chars = text[at + 1..].char_indices();
    while let Some((k, ch)) = chars.next() {
        match ch {
            '\\' => match chars.next() {
                Some((_, e)) if e == quote as char || e == '\\' => out.push(e),
                Some((_, e)) => {
                    out.push('\\');
                    out.push(e);
                }
                None => break,
            },
            c if c == quote as char => return Ok((out, at + 1 + k + 1)),
            c => out.push(c),
        }
    }
    Err(syntax(text, at, "unterminated string literal"))
}

/// A regular expression between slashes starting at `at`; `\/` stands for a slash.
fn regex(text: &str, at: usize) -> Result<(String, usize), QueryError> {
    let mut out = String::new();
    let mut chars = text[at + 1..].char_indices();
    while let Some((k, ch)) = chars.next() {
        match ch {
            '\\' => match chars.next() {
                Some((_, '/')) => out.push('/'),
                Some((_, e)) => {
                    out.push('\\');
                    out.push(e);
                }
                None => break,
            },
            '/' => return Ok((out, at + 1 + k + 1)),
            '\n' => break,
            c => out.push(c),
        }
    }
    Err(syntax(
        text,
        at,
        "unterminated regular expression (`/` starts a regex; division is outside the supported subset)",
    ))
}

/// A number (`3000`, `-1`, `2.5`) or, when letters follow the digits directly, a period (`5m`).
fn number(text: &str, at: usize) -> Result<(Tok, usize), QueryError> {
    let bytes = text.as_bytes();
    let mut i = at;
    if bytes[i] == b'-' {
        i += 1;
        if !bytes.get(i).is_some_and(u8::is_ascii_digit) {
            return Err(syntax(
                text,
                at,
                "unexpected `-`; arithmetic operators are outside the supported subset",
            ));
        }
    }
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    if bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
    }
    if bytes.get(i).is_some_and(u8::is_ascii_alphabetic) {
        while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
            i += 1;
        }
        return Ok((Tok::Period(text[at..i].to_string()), i));
    }
    let n = text[at..i]
        .parse::<f64>()
        .map_err(|_| syntax(text, at, "malformed number"))?;
    Ok((Tok::Num(n), i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> Vec<Tok> {
        tokenize(text).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn comment_runs_to_end_of_line() {
        // CWL_QuerySyntax "Using comments in queries": the second line is ignored.
        let t = toks("fields @timestamp\n    # | filter @message like /delay/\n    | limit 20");
        assert_eq!(
            t,
            vec![
                Tok::Ident("fields".into()),
                Tok::Ident("@timestamp".into()),
                Tok::Pipe,
                Tok::Ident("limit".into()),
                Tok::Num(20.0),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn regex_may_contain_pipe_and_escaped_slash() {
        assert_eq!(toks(r"/a|b\/c/")[0], Tok::Regex("a|b/c".into()));
        assert_eq!(toks(r"/2\d\d/")[0], Tok::Regex(r"2\d\d".into()));
    }

    #[test]
    fn strings_take_either_quote_and_backticks_name_fields() {
        assert_eq!(toks("'single'")[0], Tok::Str("single".into()));
        assert_eq!(toks(r#""say \"hi\"""#)[0], Tok::Str("say \"hi\"".into()));
        assert_eq!(toks("`foo-bar`")[0], Tok::Quoted("foo-bar".into()));
    }

    #[test]
    fn digits_followed_by_letters_are_a_period() {
        assert_eq!(toks("bin(5m)")[2], Tok::Period("5m".into()));
        assert_eq!(toks("-12.5")[0], Tok::Num(-12.5));
    }

    #[test]
    fn operators_are_recognised() {
        assert_eq!(
            toks("= != < <= > >= =~"),
            vec![
                Tok::Eq,
                Tok::Ne,
                Tok::Lt,
                Tok::Le,
                Tok::Gt,
                Tok::Ge,
                Tok::Match,
                Tok::Eof
            ]
        );
    }

    #[test]
    fn arithmetic_is_rejected_with_a_hint() {
        let e = tokenize("fields f3 + f4").unwrap_err().to_string();
        assert!(
            e.contains("line 1, column 11") && e.contains("arithmetic"),
            "{e}"
        );
        assert!(tokenize("fields \"open").is_err());
    }
}
