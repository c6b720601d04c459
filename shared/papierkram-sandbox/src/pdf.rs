//! A small, valid PDF (1.4, one A4 page of Helvetica text, an exact cross-reference table),
//! written in code: what the sandbox answers for an invoice's or estimate's PDF download.

/// One page: a title line, then the lines below it. Characters outside Latin-1 become `?`.
pub(crate) fn render(title: &str, lines: &[String]) -> Vec<u8> {
    let mut text = Vec::new();
    text.extend_from_slice(b"BT\n/F1 16 Tf\n56 780 Td\n");
    text.extend(literal(title));
    text.extend_from_slice(b" Tj\n/F1 10 Tf\n0 -28 Td\n");
    for line in lines {
        text.extend(literal(line));
        text.extend_from_slice(b" Tj\n0 -15 Td\n");
    }
    text.extend_from_slice(b"ET\n");

    let mut stream = format!("<< /Length {} >>\nstream\n", text.len()).into_bytes();
    stream.extend_from_slice(&text);
    stream.extend_from_slice(b"endstream");
    let objects: [Vec<u8>; 5] = [
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595.28 841.89] \
           /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>"
            .to_vec(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_vec(),
        stream,
    ];

    // The binary comment marks the file as binary for transfer tools (PDF 32000-1 7.5.2).
    let mut out = b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec();
    let mut offsets = Vec::with_capacity(objects.len());
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend(format!("{} 0 obj\n", i + 1).into_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).into_bytes());
    for offset in offsets {
        out.extend(format!("{offset:010} 00000 n \n").into_bytes());
    }
    out.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .into_bytes(),
    );
    out
}

/// A PDF string literal in WinAnsiEncoding: `\`, `(` and `)` escaped, Latin-1 as its byte.
fn literal(s: &str) -> Vec<u8> {
    let mut out = vec![b'('];
    for c in s.chars() {
        match c {
            '\\' | '(' | ')' => out.extend([b'\\', c as u8]),
            ' '..='~' => out.push(c as u8),
            '\u{A0}'..='\u{FF}' => out.push(c as u32 as u8),
            _ => out.push(b'?'),
        }
    }
    out.push(b')');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
        hay.windows(needle.len()).position(|w| w == needle)
    }

    #[test]
    fn the_cross_reference_table_points_at_every_object() {
        let pdf = render("Rechnung R-00005", &["Kunde: Büffelranch (Johnny)".into()]);
        assert!(pdf.starts_with(b"%PDF-1.4\n"));
        assert!(pdf.ends_with(b"%%EOF\n"));
        let tail = String::from_utf8_lossy(&pdf[pdf.len() - 40..]).to_string();
        let xref: usize = tail
            .split("startxref\n")
            .nth(1)
            .and_then(|s| s.lines().next())
            .and_then(|s| s.parse().ok())
            .unwrap();
        assert_eq!(&pdf[xref..xref + 5], b"xref\n");
        let table = String::from_utf8_lossy(&pdf[xref..]).to_string();
        for (i, line) in table.lines().skip(3).take(5).enumerate() {
            let offset: usize = line[..10].parse().unwrap();
            let head = format!("{} 0 obj", i + 1);
            assert_eq!(&pdf[offset..offset + head.len()], head.as_bytes(), "{line}");
        }
        let length_at = find(&pdf, b"/Length ").unwrap() + 8;
        let length: usize = String::from_utf8_lossy(&pdf[length_at..length_at + 8])
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let start = find(&pdf, b"stream\n").unwrap() + 7;
        assert_eq!(&pdf[start + length..start + length + 9], b"endstream");
        // Latin-1 as its byte, parentheses escaped.
        assert!(find(&pdf, b"(Kunde: B\xFCffelranch \\(Johnny\\))").is_some());
    }
}
