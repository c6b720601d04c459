//! The raw e-mail (RFC 5322 with MIME, RFC 2045–2047 and RFC 2387), as SES `SendEmail` takes it in
//! `Content::Raw`:
//!
//! ```text
//! multipart/related; type="multipart/alternative"
//! ├── multipart/alternative
//! │   ├── text/plain; charset=utf-8
//! │   └── text/html; charset=utf-8     <img src="cid:…">
//! └── image/png                         Content-ID: <…>, inline
//! ```
//!
//! Without an image the message is the multipart/alternative alone; a failure notice is a single
//! text/plain part. Bodies are base64 in 76-character lines, so no body line can contain a
//! boundary (they start with `=_`, which base64 never produces) and no line exceeds the limits.
//! The subject is as is when it is short printable ASCII, else `=?UTF-8?B?…?=` words on lines of at
//! most 76 characters. Lines end in CRLF. Boundaries are fixed and there is no Message-ID (SES
//! sets its own, and overrides Date too), so the same digest and date give the same bytes.
//!
//! # Why hand-written, not `mail-builder` (measured for issue 15, December 2026)
//!
//! `mail-builder` 2.0.1 (`default-features = false`, which drops `gethostname`) can be made
//! deterministic: `Date::new`, an explicit `message_id` and a `boundary` attribute on each
//! multipart Content-Type; the fixture digest built with it gave the same SHA-256 in two
//! processes. What keeps this module:
//!
//! - **Encodings cannot be chosen.** It picks 7bit, quoted-printable or base64 per text part by
//!   content, and Q or B words for the subject, with no switch: the fixture digest came out as
//!   quoted-printable text and HTML (`src=3D"cid:…"`), subject `=?utf-8?Q?6_tools_failing,…?=`,
//!   addresses as `<a@b>`, plus a Message-ID it requires. The end-to-end test
//!   (`tests/tests/it/digest_lambda.rs`) failed on the subject at once. Keeping base64 and B words
//!   means `transfer_encoding()` (the part becomes raw, we encode it) and `Raw` headers, which
//!   leaves the crate only the multipart framing (`build`, `alternative`, `open`, `close`, about
//!   70 lines here).
//! - **Build cost for that.** Three new crates (`mail-builder`, `encodify`, an 18,000-line SIMD
//!   codec, and `simdutf8`); `cargo build -p tool-error-digest` after adding it: 10.0 s wall /
//!   11.1 s CPU against 3.1 s for the crate alone (dev, 2 cores); release (`opt-level = "s"`)
//!   7.4 s for the two crates. `lettre` 0.11.23 (`builder` only) does let a part be base64, but
//!   adds 7 crates (`nom` 8 alone 16 s, 24 s in all, dev), writes `=?utf-8?b?…?=` words between
//!   plain ones, and its multipart/related has no RFC 2387 `type` parameter.
//!
//! The tests check the bytes against a pinned message, the same bytes for the same digest (also
//! across processes, `tests/local_run.rs`), and read the message back with `mail-parser`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use jiff::Timestamp;
use jiff::tz::TimeZone;

const RELATED: &str = "=_tool-error-digest.related";
const ALTERNATIVE: &str = "=_tool-error-digest.alternative";
const CRLF: &str = "\r\n";
const BASE64_LINE: usize = 76;
/// Longest header line (RFC 5322 §2.1.1 "SHOULD").
const LINE: usize = 78;
/// Longest line holding an encoded word (RFC 2047 §2).
const ENCODED_LINE: usize = 76;

/// An image shown inline by Content-ID.
#[derive(Debug, Clone)]
pub struct InlineImage {
    /// Without angle brackets; the HTML refers to it as `cid:{content_id}`.
    pub content_id: String,
    pub filename: String,
    pub png: Vec<u8>,
}

/// What goes into one message.
#[derive(Debug, Clone)]
pub struct Message<'a> {
    pub from: &'a str,
    pub to: &'a [String],
    pub subject: &'a str,
    pub date: Timestamp,
    pub text: &'a str,
    /// `None` for a text-only message.
    pub html: Option<&'a str>,
    /// Used only with `html`.
    pub image: Option<&'a InlineImage>,
}

/// The message, ready to send or save as `.eml`.
pub fn build(m: &Message<'_>) -> String {
    let mut out = String::new();
    header(&mut out, "From", m.from);
    header(&mut out, "To", &fold_addresses(m.to));
    header(
        &mut out,
        "Subject",
        &encode_header_text("Subject", m.subject),
    );
    header(&mut out, "Date", &rfc2822(m.date));
    header(&mut out, "MIME-Version", "1.0");
    match (m.html, m.image) {
        (None, _) => text_part(&mut out, "text/plain", m.text),
        (Some(html), None) => alternative(&mut out, m.text, html),
        (Some(html), Some(image)) => {
            header(
                &mut out,
                "Content-Type",
                &format!(
                    "multipart/related; type=\"multipart/alternative\";\r\n boundary=\"{RELATED}\""
                ),
            );
            out.push_str(CRLF);
            out.push_str("This is a multipart message in MIME format.\r\n");
            open(&mut out, RELATED);
            alternative(&mut out, m.text, html);
            open(&mut out, RELATED);
            header(
                &mut out,
                "Content-Type",
                &format!("image/png; name=\"{}\"", image.filename),
            );
            header(&mut out, "Content-Transfer-Encoding", "base64");
            header(&mut out, "Content-ID", &format!("<{}>", image.content_id));
            header(
                &mut out,
                "Content-Disposition",
                &format!("inline; filename=\"{}\"", image.filename),
            );
            out.push_str(CRLF);
            base64_body(&mut out, &image.png);
            close(&mut out, RELATED);
        }
    }
    out
}

fn alternative(out: &mut String, text: &str, html: &str) {
    header(
        out,
        "Content-Type",
        &format!("multipart/alternative;\r\n boundary=\"{ALTERNATIVE}\""),
    );
    out.push_str(CRLF);
    open(out, ALTERNATIVE);
    text_part(out, "text/plain", text);
    open(out, ALTERNATIVE);
    text_part(out, "text/html", html);
    close(out, ALTERNATIVE);
}

/// Headers and base64 body of one text part; line ends become CRLF before encoding.
fn text_part(out: &mut String, mime_type: &str, body: &str) {
    header(out, "Content-Type", &format!("{mime_type}; charset=utf-8"));
    header(out, "Content-Transfer-Encoding", "base64");
    out.push_str(CRLF);
    let crlf = body.replace("\r\n", "\n").replace('\n', CRLF);
    base64_body(out, crlf.as_bytes());
}

fn header(out: &mut String, name: &str, value: &str) {
    out.push_str(name);
    out.push_str(": ");
    out.push_str(value);
    out.push_str(CRLF);
}

fn open(out: &mut String, boundary: &str) {
    out.push_str(CRLF);
    out.push_str("--");
    out.push_str(boundary);
    out.push_str(CRLF);
}

fn close(out: &mut String, boundary: &str) {
    out.push_str(CRLF);
    out.push_str("--");
    out.push_str(boundary);
    out.push_str("--");
    out.push_str(CRLF);
}

fn base64_body(out: &mut String, bytes: &[u8]) {
    let encoded = STANDARD.encode(bytes);
    let lines: Vec<&str> = encoded
        .as_bytes()
        .chunks(BASE64_LINE)
        // Base64 output is ASCII.
        .map(|chunk| std::str::from_utf8(chunk).unwrap_or_default())
        .collect();
    out.push_str(&lines.join(CRLF));
}

/// Addresses separated by commas, one per folded line after the first.
fn fold_addresses(addresses: &[String]) -> String {
    addresses.join(",\r\n ")
}

/// The value of header `name` for unstructured text: printable ASCII that fits on the line and
/// holds no `=?` as is; anything else as RFC 2047 `=?UTF-8?B?…?=` words, split on character
/// boundaries, one per line, so that no line (the first one holds `name: `) passes 76 characters.
pub fn encode_header_text(name: &str, text: &str) -> String {
    let column = name.len() + ": ".len();
    let printable = text.bytes().all(|b| (0x20..0x7f).contains(&b));
    if printable && !text.contains("=?") && column + text.len() <= LINE {
        return text.to_string();
    }
    // "=?UTF-8?B?" and "?=" take 12 characters; the rest holds base64 groups of 4 characters,
    // 3 bytes each. Continuation lines start with one space, fewer than `name: `.
    let max_bytes = (ENCODED_LINE - column - 12) / 4 * 3;
    let mut words = Vec::new();
    let mut chunk = String::new();
    for c in text.chars() {
        if !chunk.is_empty() && chunk.len() + c.len_utf8() > max_bytes {
            words.push(encoded_word(&chunk));
            chunk.clear();
        }
        chunk.push(c);
    }
    if !chunk.is_empty() {
        words.push(encoded_word(&chunk));
    }
    words.join("\r\n ")
}

fn encoded_word(chunk: &str) -> String {
    format!("=?UTF-8?B?{}?=", STANDARD.encode(chunk.as_bytes()))
}

/// `Mon, 30 Nov 2026 06:00:00 +0000`.
fn rfc2822(t: Timestamp) -> String {
    t.to_zoned(TimeZone::UTC)
        .strftime("%a, %d %b %Y %H:%M:%S +0000")
        .to_string()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A MIME entity: headers (names lowercased) and the raw body.
    #[derive(Debug)]
    pub(crate) struct Part {
        pub headers: Vec<(String, String)>,
        pub body: String,
    }

    impl Part {
        pub(crate) fn header(&self, name: &str) -> Option<&str> {
            self.headers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        }

        /// The boundary parameter of a multipart Content-Type.
        pub(crate) fn boundary(&self) -> Option<String> {
            let ct = self.header("content-type")?;
            let start = ct.find("boundary=\"")? + "boundary=\"".len();
            Some(ct[start..].split('"').next()?.to_string())
        }

        /// The body parts between `--boundary` lines; panics on a missing close delimiter.
        pub(crate) fn children(&self) -> Vec<Part> {
            let boundary = self.boundary().expect("multipart");
            let delimiter = format!("\r\n--{boundary}");
            let body = format!("\r\n{}", self.body);
            let (inside, _) = body
                .split_once(&format!("{delimiter}--\r\n"))
                .expect("close delimiter");
            inside
                .split(&delimiter)
                .skip(1)
                .map(|p| parse(p.strip_prefix("\r\n").expect("CRLF after delimiter")))
                .collect()
        }

        pub(crate) fn decoded(&self) -> Vec<u8> {
            assert_eq!(self.header("content-transfer-encoding"), Some("base64"));
            for line in self.body.split("\r\n") {
                assert!(line.len() <= BASE64_LINE, "base64 line of {}", line.len());
            }
            STANDARD.decode(self.body.replace("\r\n", "")).unwrap()
        }
    }

    /// Parses one entity: unfolded headers, a blank line, the body.
    pub(crate) fn parse(raw: &str) -> Part {
        let (head, body) = raw
            .split_once("\r\n\r\n")
            .expect("blank line after headers");
        let mut headers: Vec<(String, String)> = Vec::new();
        for line in head.split("\r\n") {
            if line.starts_with([' ', '\t']) {
                headers.last_mut().expect("continuation").1.push_str(line);
            } else {
                let (name, value) = line.split_once(": ").expect("header line");
                headers.push((name.to_ascii_lowercase(), value.to_string()));
            }
        }
        Part {
            headers,
            body: body.to_string(),
        }
    }

    /// Decodes RFC 2047 B-encoded words written by [`encode_header_text`].
    pub(crate) fn decode_header_text(value: &str) -> String {
        if !value.starts_with("=?UTF-8?B?") {
            return value.to_string();
        }
        let bytes: Vec<u8> = value
            .split_whitespace()
            .flat_map(|w| {
                let inner = w
                    .strip_prefix("=?UTF-8?B?")
                    .unwrap()
                    .strip_suffix("?=")
                    .unwrap();
                STANDARD.decode(inner).unwrap()
            })
            .collect();
        String::from_utf8(bytes).unwrap()
    }

    fn message<'a>(to: &'a [String], image: Option<&'a InlineImage>) -> Message<'a> {
        Message {
            from: "digest@example.com",
            to,
            subject: "3 tools failing, 1 new — week 48",
            date: "2026-11-30T06:00:00Z".parse().unwrap(),
            text: "line one\nline two — ok\n",
            html: Some("<p>hi <img src=\"cid:chart@x\"></p>"),
            image,
        }
    }

    #[test]
    fn related_message_nests_alternative_and_inline_image() {
        let to = vec![
            "ops@example.com".to_string(),
            "oncall@example.com".to_string(),
        ];
        let image = InlineImage {
            content_id: "chart@x".into(),
            filename: "chart.png".into(),
            png: vec![0x89, b'P', b'N', b'G', 0, 1, 2, 3],
        };
        let raw = build(&message(&to, Some(&image)));
        assert!(raw.is_ascii());
        assert!(!raw.replace("\r\n", "").contains('\n'), "bare LF");
        for line in raw.split("\r\n") {
            assert!(line.len() <= 78, "long line: {line}");
        }
        let root = parse(&raw);
        assert_eq!(root.header("mime-version"), Some("1.0"));
        assert_eq!(root.header("date"), Some("Mon, 30 Nov 2026 06:00:00 +0000"));
        assert_eq!(
            root.header("to"),
            Some("ops@example.com, oncall@example.com")
        );
        assert_eq!(
            decode_header_text(root.header("subject").unwrap()),
            "3 tools failing, 1 new — week 48"
        );
        assert!(
            root.header("content-type")
                .unwrap()
                .starts_with("multipart/related;")
        );
        let parts = root.children();
        assert_eq!(parts.len(), 2);
        let alt = parts[0].children();
        assert_eq!(alt.len(), 2);
        assert_eq!(
            alt[0].header("content-type"),
            Some("text/plain; charset=utf-8")
        );
        assert_eq!(
            String::from_utf8(alt[0].decoded()).unwrap(),
            "line one\r\nline two — ok\r\n"
        );
        assert_eq!(
            alt[1].header("content-type"),
            Some("text/html; charset=utf-8")
        );
        assert_eq!(parts[1].header("content-id"), Some("<chart@x>"));
        assert_eq!(parts[1].decoded(), image.png);
        assert!(
            parts[1]
                .header("content-disposition")
                .unwrap()
                .starts_with("inline")
        );
    }

    #[test]
    fn without_image_the_message_is_alternative_only() {
        let to = vec!["ops@example.com".to_string()];
        let root = parse(&build(&message(&to, None)));
        assert!(
            root.header("content-type")
                .unwrap()
                .starts_with("multipart/alternative;")
        );
        assert_eq!(root.children().len(), 2);
    }

    #[test]
    fn text_only_message_is_a_single_part() {
        let to = vec!["ops@example.com".to_string()];
        let mut m = message(&to, None);
        m.html = None;
        let root = parse(&build(&m));
        assert_eq!(
            root.header("content-type"),
            Some("text/plain; charset=utf-8")
        );
        assert_eq!(
            String::from_utf8(root.decoded()).unwrap(),
            "line one\r\nline two — ok\r\n"
        );
    }

    /// The unfolded lines of header `name` in `raw`, the first one with its name.
    fn header_lines<'a>(raw: &'a str, name: &str) -> Vec<&'a str> {
        let mut lines = raw
            .split("\r\n")
            .skip_while(|l| !l.starts_with(&format!("{name}: ")));
        let first = lines.next().expect("header present");
        std::iter::once(first)
            .chain(lines.take_while(|l| l.starts_with(' ')))
            .collect()
    }

    #[test]
    fn long_and_non_ascii_subjects_become_encoded_words_on_short_lines() {
        let to = vec!["ops@example.com".to_string()];
        for subject in [
            "Ümlaut — ".repeat(12),
            "[a-rather-long-subject-prefix] ".repeat(3),
            "looks like =?UTF-8?B?eA==?= a word".to_string(),
            "\u{1F600}".repeat(30),
        ] {
            let mut m = message(&to, None);
            m.subject = &subject;
            let raw = build(&m);
            let lines = header_lines(&raw, "Subject");
            for line in &lines {
                assert!(
                    line.len() <= ENCODED_LINE,
                    "{} characters: {line}",
                    line.len()
                );
            }
            let value = parse(&raw).header("subject").unwrap().to_string();
            assert!(value.starts_with("=?UTF-8?B?"), "{value}");
            assert_eq!(decode_header_text(&value), subject);
        }
        assert_eq!(encode_header_text("Subject", "All clear"), "All clear");
    }

    /// The whole message for a small input, byte for byte: a change to the assembly shows here.
    #[test]
    fn a_small_message_is_these_exact_bytes() {
        let to = vec![
            "ops@example.com".to_string(),
            "oncall@example.com".to_string(),
        ];
        let image = InlineImage {
            content_id: "chart@x".into(),
            filename: "chart.png".into(),
            png: vec![0x89, b'P', b'N', b'G', 0, 1, 2, 3],
        };
        let expected = concat!(
            "From: digest@example.com\r\n",
            "To: ops@example.com,\r\n oncall@example.com\r\n",
            "Subject: =?UTF-8?B?MyB0b29scyBmYWlsaW5nLCAxIG5ldyDigJQgd2VlayA0OA==?=\r\n",
            "Date: Mon, 30 Nov 2026 06:00:00 +0000\r\n",
            "MIME-Version: 1.0\r\n",
            "Content-Type: multipart/related; type=\"multipart/alternative\";\r\n",
            " boundary=\"=_tool-error-digest.related\"\r\n",
            "\r\n",
            "This is a multipart message in MIME format.\r\n",
            "\r\n",
            "--=_tool-error-digest.related\r\n",
            "Content-Type: multipart/alternative;\r\n",
            " boundary=\"=_tool-error-digest.alternative\"\r\n",
            "\r\n",
            "\r\n",
            "--=_tool-error-digest.alternative\r\n",
            "Content-Type: text/plain; charset=utf-8\r\n",
            "Content-Transfer-Encoding: base64\r\n",
            "\r\n",
            "bGluZSBvbmUNCmxpbmUgdHdvIOKAlCBvaw0K\r\n",
            "--=_tool-error-digest.alternative\r\n",
            "Content-Type: text/html; charset=utf-8\r\n",
            "Content-Transfer-Encoding: base64\r\n",
            "\r\n",
            "PHA+aGkgPGltZyBzcmM9ImNpZDpjaGFydEB4Ij48L3A+\r\n",
            "--=_tool-error-digest.alternative--\r\n",
            "\r\n",
            "--=_tool-error-digest.related\r\n",
            "Content-Type: image/png; name=\"chart.png\"\r\n",
            "Content-Transfer-Encoding: base64\r\n",
            "Content-ID: <chart@x>\r\n",
            "Content-Disposition: inline; filename=\"chart.png\"\r\n",
            "\r\n",
            "iVBORwABAgM=\r\n",
            "--=_tool-error-digest.related--\r\n",
        );
        let built = build(&message(&to, Some(&image)));
        assert_eq!(built, expected);
        assert_eq!(build(&message(&to, Some(&image))), built);
    }

    /// A parser that shares nothing with this module reads the message back.
    #[test]
    fn mail_parser_reads_structure_non_ascii_subject_bodies_and_image() {
        use mail_parser::{MessageParser, MimeHeaders};

        let to = vec![
            "ops@example.com".to_string(),
            "oncall@example.com".to_string(),
        ];
        let image = InlineImage {
            content_id: "chart@x".into(),
            filename: "chart.png".into(),
            png: (0..=255).cycle().take(1000).collect(),
        };
        let subject = ["Störung — Überblick", "Grüße aus Köln", "日本語の件名"]
            .repeat(3)
            .join(" · ");
        let html = "<p>Grüße — <img src=\"cid:chart@x\"></p>\n";
        let mut m = message(&to, Some(&image));
        m.subject = &subject;
        m.text = "Grüße\nzweite Zeile — ok\n";
        m.html = Some(html);
        let raw = build(&m);

        let parsed = MessageParser::default()
            .parse(raw.as_bytes())
            .expect("mail-parser reads the message");
        assert_eq!(parsed.subject(), Some(subject.as_str()));
        assert_eq!(
            parsed.from().and_then(|a| a.first()?.address()),
            Some("digest@example.com")
        );
        let recipients: Vec<&str> = parsed
            .to()
            .unwrap()
            .iter()
            .filter_map(|a| a.address())
            .collect();
        assert_eq!(recipients, ["ops@example.com", "oncall@example.com"]);
        assert_eq!(
            parsed.date().unwrap().to_timestamp(),
            m.date.as_second(),
            "Date"
        );

        let root = parsed.root_part();
        let ct = root.content_type().unwrap();
        assert_eq!((ct.ctype(), ct.subtype()), ("multipart", Some("related")));
        assert_eq!(ct.attribute("type"), Some("multipart/alternative"));
        let children = root.sub_parts().unwrap();
        assert_eq!(children.len(), 2);
        let alternative = parsed.part(children[0]).unwrap();
        assert!(alternative.is_content_type("multipart", "alternative"));
        assert_eq!(alternative.sub_parts().unwrap().len(), 2);
        assert_eq!(
            parsed.body_text(0).as_deref(),
            Some("Grüße\r\nzweite Zeile — ok\r\n")
        );
        assert_eq!(
            parsed.body_html(0).as_deref(),
            Some(html.replace('\n', "\r\n").as_str())
        );

        let png = parsed.part(children[1]).unwrap();
        assert!(png.is_content_type("image", "png"));
        assert_eq!(png.content_id(), Some("chart@x"));
        assert_eq!(png.content_disposition().unwrap().ctype(), "inline");
        assert_eq!(png.attachment_name(), Some("chart.png"));
        assert_eq!(png.contents(), image.png.as_slice());
    }

    #[test]
    fn long_base64_bodies_wrap_at_76() {
        let mut out = String::new();
        base64_body(&mut out, &[7u8; 200]);
        let lines: Vec<&str> = out.split("\r\n").collect();
        assert!(lines[..lines.len() - 1].iter().all(|l| l.len() == 76));
        assert_eq!(
            STANDARD.decode(out.replace("\r\n", "")).unwrap(),
            [7u8; 200]
        );
    }
}
