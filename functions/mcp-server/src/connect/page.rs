//! The pages a person sees while connecting: plain HTML, one heading and one paragraph, no
//! script, no external resources, every value escaped.

/// A page: its HTTP status, heading and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub status: u16,
    pub title: String,
    pub text: String,
}

impl Page {
    pub(crate) fn new(status: u16, title: impl Into<String>, text: impl Into<String>) -> Self {
        Page {
            status,
            title: title.into(),
            text: text.into(),
        }
    }

    /// The whole document.
    pub fn html(&self) -> String {
        let (title, text) = (escape(&self.title), escape(&self.text));
        format!(
            "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <meta name=\"referrer\" content=\"no-referrer\">\n<title>{title}</title>\n\
             <style>body{{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;\
             padding:0 1rem;line-height:1.5;color:#1a1a1a;overflow-wrap:anywhere}}\
             h1{{font-size:1.4rem}}</style>\n\
             </head>\n<body>\n<main>\n<h1>{title}</h1>\n<p>{text}</p>\n</main>\n</body>\n</html>\n"
        )
    }
}

/// `text` safe inside HTML text and attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_escapes_what_it_shows_and_loads_nothing() {
        let html = Page::new(400, "Mail <b>", "a \"quote\" & <script>x</script>").html();
        assert!(html.contains("<h1>Mail &lt;b&gt;</h1>"));
        assert!(html.contains("&lt;script&gt;"));
        assert!(!html.contains("<script>"));
        assert!(!html.contains("src="));
    }
}
