//! How deep a YAML text's flow collections (`[…]`, `{…}`) nest, found in one linear pass before
//! any YAML parser sees the text. The YAML parser's scanner rechecks every open flow collection
//! at every token, so its work grows with size times nesting: 128 KB of `[[[[…` took 21 s
//! (block-style nesting costs nothing like it, and the parser stops it at 128 levels).
//!
//! The pass splits the text into tokens as that scanner does (libyaml's rules: quoted, plain
//! and block scalars, comments, the block indentation that decides where a plain scalar
//! ends), so a bracket inside text is not counted and a bracket that only looks like text is.
//! Where the parser would stop with an error the pass just goes on: it may then count more,
//! never less, than the parser would ever reach.

/// Where flow collections first nest deeper than the limit (1-based, like the parser's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooDeep {
    pub(crate) line: usize,
    pub(crate) column: usize,
}

/// `Err` at the first flow collection nested deeper than `limit`.
pub(crate) fn check(text: &str, limit: usize) -> Result<(), TooDeep> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut s = Cursor {
        b: text.as_bytes(),
        i: 0,
        line: 0,
        col: 0,
    };
    let mut flow = 0usize;
    // The columns of the open block collections (the parser's indentation stack).
    let mut indents: Vec<usize> = Vec::new();
    // Whether a token here could start a mapping key, and where the last such token started.
    let mut allowed = true;
    let mut key: Option<(usize, usize)> = None;
    loop {
        skip_to_token(&mut s, flow, &mut allowed);
        if s.done() {
            return Ok(());
        }
        let (line, col) = (s.line, s.col);
        if flow == 0 {
            while indents.last().is_some_and(|&t| t > col) {
                indents.pop();
            }
        }
        let parent = indents.last().map_or(-1, |&t| t as isize);
        let roll = |indents: &mut Vec<usize>, at: usize| {
            if flow == 0 && indents.last().is_none_or(|&t| at > t) {
                indents.push(at);
            }
        };
        let save = |key: &mut Option<(usize, usize)>| {
            if allowed && flow == 0 {
                *key = Some((line, col));
            }
        };
        let c = s.at(0);
        if col == 0 && c == b'%' {
            skip_line(&mut s);
            continue;
        }
        if s.document_marker() {
            indents.clear();
            (0..3).for_each(|_| s.bump());
            (allowed, key) = (false, None);
            continue;
        }
        match c {
            b'[' | b'{' => {
                save(&mut key);
                flow += 1;
                if flow > limit {
                    return Err(TooDeep {
                        line: line + 1,
                        column: col + 1,
                    });
                }
                allowed = true;
                s.bump();
            }
            b']' | b'}' => {
                flow = flow.saturating_sub(1);
                allowed = false;
                s.bump();
            }
            b',' => {
                allowed = true;
                s.bump();
            }
            b'-' if s.blankz(1) => {
                roll(&mut indents, col);
                (allowed, key) = (true, None);
                s.bump();
            }
            b'?' if flow > 0 || s.blankz(1) => {
                roll(&mut indents, col);
                (allowed, key) = (flow == 0, None);
                s.bump();
            }
            b':' if flow > 0 || s.blankz(1) => {
                match key.take().filter(|(l, _)| *l == line) {
                    Some((_, at)) => {
                        roll(&mut indents, at);
                        allowed = false;
                    }
                    None => {
                        roll(&mut indents, col);
                        allowed = flow == 0;
                    }
                }
                s.bump();
            }
            b'*' | b'&' => {
                save(&mut key);
                allowed = false;
                s.bump();
                while s.at(0).is_ascii_alphanumeric() || matches!(s.at(0), b'_' | b'-') {
                    s.bump();
                }
            }
            b'!' => {
                save(&mut key);
                allowed = false;
                tag(&mut s);
            }
            b'|' | b'>' if flow == 0 => {
                block_scalar(&mut s, parent);
                (allowed, key) = (true, None);
            }
            b'\'' | b'"' => {
                save(&mut key);
                allowed = false;
                quoted(&mut s, c);
            }
            b'|' | b'>' | b'@' | b'`' | b'%' | b'-' | b'?' | b':' if !plain_start(&s, flow) => {
                // The parser stops here with an error; step over it.
                s.bump();
            }
            _ => {
                save(&mut key);
                allowed = plain(&mut s, flow, parent);
                if allowed {
                    key = None;
                }
            }
        }
    }
}

/// Whether the character at the cursor may start a plain scalar (`-x`, and in block context
/// `:x` and `?x`, may; the other indicators may not).
fn plain_start(s: &Cursor<'_>, flow: usize) -> bool {
    match s.at(0) {
        b'-' => !s.blank(1),
        b'?' | b':' => flow == 0 && !s.blankz(1),
        _ => false,
    }
}

/// Blanks, line breaks and comments up to the next token. A line break in block context
/// allows a key again.
fn skip_to_token(s: &mut Cursor<'_>, flow: usize, allowed: &mut bool) {
    loop {
        if s.brk() > 0 {
            s.bump();
            if flow == 0 {
                *allowed = true;
            }
        } else if matches!(s.at(0), b' ' | b'\t') && !s.done() {
            s.bump();
        } else if s.at(0) == b'#' && !s.done() {
            skip_line(s);
        } else {
            return;
        }
    }
}

fn skip_line(s: &mut Cursor<'_>) {
    while !s.done() && s.brk() == 0 {
        s.bump();
    }
}

/// `!tag`, `!handle!suffix` or `!<verbatim>`.
fn tag(s: &mut Cursor<'_>) {
    s.bump();
    if s.at(0) == b'<' {
        while !s.done() && s.at(0) != b'>' && s.brk() == 0 && !s.blank(0) {
            s.bump();
        }
        s.bump();
        return;
    }
    while s.at(0).is_ascii_alphanumeric() || b"-_;/?:@&=+$.%!~*'()".contains(&s.at(0)) {
        s.bump();
    }
}

/// A single- or double-quoted scalar, which may span lines; a document marker ends it (an
/// error for the parser).
fn quoted(s: &mut Cursor<'_>, quote: u8) {
    s.bump();
    while !s.done() && !s.document_marker() {
        let c = s.at(0);
        if quote == b'\'' && c == b'\'' && s.at(1) == b'\'' {
            s.bump();
        } else if c == quote {
            s.bump();
            return;
        } else if quote == b'"' && c == b'\\' {
            s.bump();
        }
        s.bump();
    }
}

/// A plain scalar. In block context it goes on over the next lines while they are indented
/// past the enclosing block collection (`parent`); in flow context a flow indicator ends it.
/// Returns whether it took a line break (the parser then allows a key again).
fn plain(s: &mut Cursor<'_>, flow: usize, parent: isize) -> bool {
    let start = s.i;
    let mut leading_blanks = false;
    loop {
        if s.document_marker() || s.at(0) == b'#' {
            break;
        }
        while !s.blankz(0) {
            let c = s.at(0);
            let ends_flow = flow > 0 && matches!(c, b',' | b'[' | b']' | b'{' | b'}');
            if (c == b':' && (s.blankz(1) || flow > 0 && b",?[]{}".contains(&s.at(1)))) || ends_flow
            {
                break;
            }
            s.bump();
        }
        if !(s.blank(0) || s.brk() > 0) {
            break;
        }
        while s.blank(0) || s.brk() > 0 {
            leading_blanks |= s.brk() > 0;
            s.bump();
        }
        if flow == 0 && (s.col as isize) < parent + 1 {
            break;
        }
    }
    if s.i == start {
        s.bump();
    }
    leading_blanks
}

/// A literal (`|`) or folded (`>`) block scalar: its header, then every line indented at
/// least as deep as its first (or its indentation indicator says).
fn block_scalar(s: &mut Cursor<'_>, parent: isize) {
    s.bump();
    let mut increment = 0;
    for _ in 0..2 {
        match s.at(0) {
            b'+' | b'-' => s.bump(),
            d @ b'1'..=b'9' => {
                increment = usize::from(d - b'0');
                s.bump();
            }
            _ => {}
        }
    }
    while s.blank(0) {
        s.bump();
    }
    if s.at(0) == b'#' {
        skip_line(s);
    }
    if s.brk() == 0 {
        // The parser stops here with an error.
        return;
    }
    s.bump();
    let mut indent = match (increment, usize::try_from(parent)) {
        (0, _) => 0,
        (n, Ok(p)) => p + n,
        (n, Err(_)) => n,
    };
    let mut max_indent = 0;
    let breaks = |s: &mut Cursor<'_>, indent: usize, max_indent: &mut usize| loop {
        while (indent == 0 || s.col < indent) && s.at(0) == b' ' {
            s.bump();
        }
        *max_indent = (*max_indent).max(s.col);
        if s.brk() == 0 {
            return;
        }
        s.bump();
    };
    breaks(s, indent, &mut max_indent);
    if indent == 0 {
        indent = max_indent
            .max(usize::try_from(parent + 1).unwrap_or(0))
            .max(1);
    }
    while s.col == indent && !s.done() {
        skip_line(s);
        if s.done() {
            return;
        }
        s.bump();
        breaks(s, indent, &mut max_indent);
    }
}

/// The text as bytes with the parser's idea of lines and columns (a column counts characters;
/// `\r\n`, `\r`, `\n`, NEL, LS and PS each break a line).
struct Cursor<'t> {
    b: &'t [u8],
    i: usize,
    line: usize,
    col: usize,
}

impl Cursor<'_> {
    fn done(&self) -> bool {
        self.i >= self.b.len()
    }

    /// The byte `k` ahead, 0 past the end.
    fn at(&self, k: usize) -> u8 {
        self.b.get(self.i + k).copied().unwrap_or(0)
    }

    /// The length of a line break at the cursor, 0 when there is none.
    fn brk(&self) -> usize {
        match (self.at(0), self.at(1), self.at(2)) {
            (b'\r', b'\n', _) => 2,
            (b'\r' | b'\n', _, _) => 1,
            (0xC2, 0x85, _) => 2,
            (0xE2, 0x80, 0xA8 | 0xA9) => 3,
            _ => 0,
        }
    }

    /// A space or tab `k` ahead.
    fn blank(&self, k: usize) -> bool {
        matches!(self.at(k), b' ' | b'\t') && self.i + k < self.b.len()
    }

    /// A blank, a line break or the end `k` ahead.
    fn blankz(&self, k: usize) -> bool {
        self.i + k >= self.b.len() || matches!(self.at(k), b' ' | b'\t' | b'\r' | b'\n')
    }

    /// `---` or `...` at the start of a line, followed by a blank or the end.
    fn document_marker(&self) -> bool {
        self.col == 0
            && (self.b[self.i..].starts_with(b"---") || self.b[self.i..].starts_with(b"..."))
            && self.blankz(3)
    }

    /// One character, or one line break.
    fn bump(&mut self) {
        let brk = self.brk();
        if brk > 0 {
            self.i += brk;
            self.line += 1;
            self.col = 0;
        } else if !self.done() {
            self.i += 1;
            while self.at(0) & 0xC0 == 0x80 && !self.done() {
                self.i += 1;
            }
            self.col += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_ok(text: &str, limit: usize) -> bool {
        check(text, limit).is_ok()
    }

    #[test]
    fn nested_flow_collections_are_counted_where_they_open() {
        assert_eq!(
            check("a: [[[1]]]\nb: {x: {y: [2]}}\n", 2),
            Err(TooDeep { line: 1, column: 6 })
        );
        assert!(depth_ok("a: [[[1]]]\nb: {x: {y: [2]}}\n", 3));
        assert!(
            depth_ok("a: [1, [2]], b: [3]\nc: [[4], [5]]\n", 2),
            "siblings"
        );
        let deep = format!("x: {}1{}\n", "{a: ".repeat(40), "}".repeat(40));
        assert_eq!(
            check(&deep, 32),
            Err(TooDeep {
                line: 1,
                column: 132
            })
        );
    }

    #[test]
    fn brackets_in_text_are_not_collections() {
        let prose = "a: see [the docs](x) and {b}\nb: 'it''s [[[['\nc: \"\\\"[[[[\"\n# [[[[\nd: |\n  [[[[\n  {{{{\ne: x [[[\n  [[[[ continued\n  {{{{ and more\nf: a#[[[[\n";
        assert!(depth_ok(prose, 1), "{:?}", check(prose, 1));
        let flow = "a: [x y [z], 'q]]' , \"]]\", u:v, w]\n";
        assert!(depth_ok(flow, 2));
        assert!(!depth_ok(flow, 1));
    }

    #[test]
    fn a_bracket_that_only_looks_like_text_is_counted() {
        // A quote inside a plain scalar is text: it hides nothing up to the next quote.
        let text = "a: x 'y\nb: [[[[1]]]]\n'\n";
        assert!(!depth_ok(text, 3));
        // The plain scalar `x` ends where a line is not indented past its mapping.
        let under = "k:\n  a: x\n  [[[[1]]]]\n";
        assert!(!depth_ok(under, 3), "a sibling line, not a continuation");
        let block = "a: |\n  text\n[[[[1]]]]\n";
        assert!(!depth_ok(block, 3), "the block scalar ended");
        let tagged = "a: !t [[[[1]]]]\nb: &x [[[[2]]]]\n";
        assert!(!depth_ok(tagged, 3));
        let sep = "a: \u{2028}[[[[1]]]]\n";
        assert!(
            !depth_ok(sep, 3),
            "a line separator breaks the line for the parser too"
        );
    }
}
