//! The consent page as a person's browser shows it (headless Chromium, `tests/look/pages.mjs`)
//! at a phone's width (375 px) and a desktop's (1280 px), screenshots in
//! `target/look/consent/`: for a client whose registered name is long and unbroken, the page
//! still does not scroll sideways, both buttons are drawn inside the width, nothing runs or
//! loads, and it may not be framed (`frame-ancestors 'none'`).

use integration_tests::look::{assert_clear, look_at};
use integration_tests::repo;

use super::{CLIENT_REDIRECT, Setup};

/// 80 characters without a space: the longest name registration keeps.
const LONG_NAME: &str =
    "Test client-Averyveryverylongclientnamewithoutanyspacewhatsoeverthatshouldwrapok";

pub(super) async fn the_consent_page_reads_on_a_phone_and_a_desktop(s: &Setup) {
    let (status, client) = s.register_named(CLIENT_REDIRECT, LONG_NAME).await;
    assert_eq!(status, 201, "{client}");
    let (browser, _, page) = s.consent_page(client["client_id"].as_str().unwrap()).await;
    let csp = browser.headers["content-security-policy"].to_str().unwrap();
    for rule in [
        "default-src 'none'",
        "frame-ancestors 'none'",
        "form-action 'self'",
    ] {
        assert!(csp.contains(rule), "{rule} in {csp}");
    }
    assert_eq!(browser.headers["cache-control"], "no-store");
    assert!(page.contains(LONG_NAME), "{page}");

    let seen = look_at(&repo().join("target/look/consent"), &[("consent", &page)]);
    assert_clear(&seen);
    for view in &seen {
        let at = format!("at {} px ({})", view.width, view.screenshot);
        assert_eq!((view.forms, view.links.len()), (1, 0), "{at}");
        let buttons: Vec<&str> = view.buttons.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(buttons, ["Approve", "Deny"], "{at}");
        for b in &view.buttons {
            assert!(b.tappable_within(view.width), "{at}: {b:?}");
        }
    }
}
