//! Pages as a person's browser shows them: HTML handed to headless Chromium
//! (`tests/look/pages.mjs`, the browser from `.tools/browser`), measured at a phone's and a
//! desktop's width and screenshotted beside the HTML for a person to look at.

use std::path::Path;
use std::process::Command;

use crate::{repo, tool};

/// One page at one width, as the browser laid it out.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Seen {
    pub name: String,
    pub width: u32,
    /// Every request the page tried to make (all were refused).
    pub requests: Vec<String>,
    pub screenshot: String,
    pub lang: String,
    pub title: String,
    pub heading: Option<String>,
    pub text: Option<String>,
    pub text_font_px: Option<f64>,
    pub text_contrast: Option<f64>,
    pub heading_contrast: Option<f64>,
    /// The document's width: more than the viewport's means a sideways scroll.
    pub scroll_width: u32,
    pub scripts: u32,
    pub links: Vec<String>,
    pub forms: u32,
    /// The buttons (and submit inputs), as laid out.
    pub buttons: Vec<Button>,
}

/// A button's text and box (CSS pixels, from the top left of the page).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Button {
    pub text: String,
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
}

impl Button {
    /// Drawn, wide and tall enough to tap (WCAG 2.2's 24 px target), and inside the width.
    pub fn tappable_within(&self, width: u32) -> bool {
        self.width >= 24.0
            && self.height >= 24.0
            && self.left >= 0.0
            && self.right <= f64::from(width)
    }
}

/// Writes each `(name, html)` to `dir/name.html`, shows them all in headless Chromium and returns
/// what it saw, two widths per page; the screenshots stay in `dir`.
pub fn look_at(dir: &Path, pages: &[(&str, &str)]) -> Vec<Seen> {
    std::fs::create_dir_all(dir).unwrap();
    for (name, html) in pages {
        std::fs::write(dir.join(format!("{name}.html")), html).unwrap();
    }
    tool("browser/node_modules/@sparticuz/chromium/package.json");
    let out = Command::new(tool("node/node_modules/.bin/node"))
        .arg(repo().join("tests/look/pages.mjs"))
        .arg(dir)
        .env("HOSTED_MCP_TOOLS", repo().join(".tools"))
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "headless Chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Vec<Seen> = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "unreadable report ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    assert_eq!(seen.len(), pages.len() * 2, "{seen:?}");
    seen
}

/// What every page a person is sent to must be: readable on a phone without zooming or
/// scrolling sideways, plain (no script, form or request of its own), clearly contrasted, and
/// saying something.
pub fn assert_plain_and_clear(seen: &[Seen]) {
    assert_clear(seen);
    for page in seen {
        let at = format!("{} at {} px ({})", page.name, page.width, page.screenshot);
        assert_eq!(page.forms, 0, "{at}: a form");
        assert!(page.links.is_empty(), "{at} links to {:?}", page.links);
    }
}

/// [`assert_plain_and_clear`] for a page a person acts on (its own forms and links allowed):
/// no script or request of its own, readable on a phone, clearly contrasted, saying something.
pub fn assert_clear(seen: &[Seen]) {
    for page in seen {
        let at = format!("{} at {} px ({})", page.name, page.width, page.screenshot);
        assert!(
            page.requests.is_empty(),
            "{at} made requests: {:?}",
            page.requests
        );
        assert_eq!(page.scripts, 0, "{at}: a script");
        assert_eq!(page.lang, "en", "{at}");
        assert!(
            page.scroll_width <= page.width,
            "{at} scrolls sideways: {}",
            page.scroll_width
        );
        let heading = page.heading.as_deref().unwrap_or_default();
        let text = page.text.as_deref().unwrap_or_default();
        assert!(
            !heading.is_empty() && heading == page.title,
            "{at}: heading {heading:?}"
        );
        assert!(text.len() > 20, "{at}: text {text:?}");
        assert!(page.text_font_px.unwrap_or(0.0) >= 16.0, "{at}: small text");
        for contrast in [page.text_contrast, page.heading_contrast] {
            // WCAG AA for body text.
            assert!(
                contrast.unwrap_or(0.0) >= 4.5,
                "{at}: contrast {contrast:?}"
            );
        }
    }
}
