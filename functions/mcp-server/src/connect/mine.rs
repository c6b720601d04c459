//! `/connections`: "my connections", a person's own connections on one page. The person signs
//! in at our authorization server in this browser, as when connecting (the browser bound by
//! the same `__Host-` cookie, the state sealed and used once); the page then lists every
//! connector a person connects to, whether they are connected, since when and with which
//! scopes, with a button that disconnects one and a link that connects one that is missing.
//! The page needs no script: each button is a form whose only field is a sealed ticket naming
//! the person, the connector and this browser, for ten minutes and once; a forged, replayed or
//! forwarded form changes nothing. What a disconnect does (revoked upstream where the catalog
//! says how, then forgotten) is the `connections` tool's (`call::connections`); the edge runs
//! it and writes the audit line.

use serde::{Deserialize, Serialize};

use super::state::{HasNonce, STATE_TTL_S, SignIn};
use super::{Back, Connect, Step, page};
use crate::call::{LINK_PURPOSE, LINK_TTL_S, LinkFor};
use crate::connect::page::escape;
use crate::vault::{Connection, Person, ticket};

/// The ticket purposes: the state through our sign-in, and a disconnect button's.
const SIGNIN: &str = "connections-signin";
const BUTTON: &str = "connections-button";

/// A person signed in on the page, and the browser the page is bound to.
pub struct Mine {
    pub person: Person,
    /// Our authorization server's subject (for the audit line's pseudonym).
    pub subject: String,
    binding: String,
}

/// What a disconnect button carries.
#[derive(Serialize, Deserialize)]
struct Button {
    /// The person: issuer and subject.
    i: String,
    s: String,
    /// The connector to disconnect.
    k: String,
    n: String,
    /// The hash of the browser's binding secret.
    b: String,
}

impl HasNonce for Button {
    fn nonce(&self) -> &str {
        &self.n
    }
    /// The page's buttons are no connector's flow: the connector is `k`.
    fn connector(&self) -> &str {
        ""
    }
    fn browser(&self) -> &str {
        &self.b
    }
}

impl Connect {
    /// `GET /connections`: this browser bound, then our sign-in (for nobody in particular: the
    /// page is the person's who signs in).
    pub async fn mine(&self, now: u64) -> Step {
        let keys = self.keys().await;
        let back = self.mine_back();
        self.to_sign_in(&keys, SIGNIN, SignIn::default(), &back, now)
            .await
            .unwrap_or_else(|stop| stop)
    }

    /// `GET /connections/signed-in`: the person our sign-in names, back in the browser that
    /// started; `Err` is the page that says why not.
    pub async fn mine_signed_in(
        &self,
        back: &Back,
        browser: Option<&str>,
        now: u64,
    ) -> Result<Mine, Step> {
        let keys = self.keys().await;
        let state: SignIn = self.state(&keys, SIGNIN, back, "", browser, now).await?;
        let (person, subject) = self
            .our_person(back, &state.v, &self.mine_back(), now)
            .await?;
        Ok(Mine {
            person,
            subject,
            binding: state.b,
        })
    }

    /// `POST /connections/disconnect`: a button's ticket from the browser it was made for, used
    /// once: the person and the connector to disconnect.
    pub async fn mine_button(
        &self,
        ticket: Option<&str>,
        browser: Option<&str>,
        now: u64,
    ) -> Result<(Mine, String), Step> {
        let keys = self.keys().await;
        let back = Back {
            state: ticket.map(str::to_string),
            ..Back::default()
        };
        let button: Button = self.state(&keys, BUTTON, &back, "", browser, now).await?;
        let person = Person::new(&button.i, &button.s).map_err(|_| try_again())?;
        let mine = Mine {
            person,
            subject: button.s,
            binding: button.b,
        };
        Ok((mine, button.k))
    }

    /// The page's rows: each connector a person connects to (`(connector, title)`), with
    /// `mine`'s connection to it from `connected`, and a button that disconnects it or a link
    /// that connects it.
    pub(crate) async fn rows(
        &self,
        mine: &Mine,
        connectors: &[(&str, &str)],
        connected: &[Connection],
        now: u64,
    ) -> Vec<Row> {
        let keys = self.keys().await;
        connectors
            .iter()
            .map(|(connector, title)| {
                let found = connected.iter().find(|c| c.connector == *connector);
                let action = match found {
                    Some(_) => button(&keys, mine, connector, now).map(Action::Disconnect),
                    None => self
                        .connect_link(&keys, mine, connector, now)
                        .map(Action::Connect),
                };
                Row {
                    title: (*title).to_string(),
                    connected: found.map(|c| {
                        let since = crate::clock::iso_utc(c.connected_at * 1000);
                        (since[..10].to_string(), c.scopes.clone())
                    }),
                    action: action.unwrap_or(Action::None),
                }
            })
            .collect()
    }

    /// The link that connects `connector` for `mine` (the one a `connection_required` answer
    /// gives).
    fn connect_link(
        &self,
        keys: &[Vec<u8>],
        mine: &Mine,
        connector: &str,
        now: u64,
    ) -> Option<String> {
        let link = LinkFor {
            p: mine.person.id(),
            c: connector.to_string(),
            x: Vec::new(),
        };
        let t = ticket::issue(keys, LINK_PURPOSE, &link, now + LINK_TTL_S).ok()?;
        Some(format!("{}/connect/{connector}?for={t}", self.base))
    }

    /// Where our sign-in sends the browser back to.
    fn mine_back(&self) -> String {
        format!("{}/connections/signed-in", self.base)
    }
}

/// The ticket of the button that disconnects `connector` for `mine`.
fn button(keys: &[Vec<u8>], mine: &Mine, connector: &str, now: u64) -> Option<String> {
    let button = Button {
        i: mine.person.issuer().to_string(),
        s: mine.subject.clone(),
        k: connector.to_string(),
        n: crate::random::hex(16)?,
        b: mine.binding.clone(),
    };
    ticket::issue(keys, BUTTON, &button, now + STATE_TTL_S).ok()
}

fn try_again() -> Step {
    page(
        503,
        "Please try again",
        "The server could not make a request.",
    )
}

/// One connector on the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row {
    pub title: String,
    /// Since when (a date) and with which scopes, when connected.
    pub connected: Option<(String, Vec<String>)>,
    pub action: Action,
}

/// What a row offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    /// A button, with its ticket.
    Disconnect(String),
    /// A link to connect.
    Connect(String),
    /// Nothing can be offered now (no key to seal with).
    None,
}

/// The page: `notice` first (what a disconnect did), then one row per connector.
pub(crate) fn html(rows: &[Row], notice: Option<&str>) -> String {
    let mut body = String::from("<h1>Your connections</h1>\n");
    if let Some(notice) = notice {
        body.push_str(&format!("<p class=\"notice\">{}</p>\n", escape(notice)));
    }
    body.push_str(
        "<p>The accounts of yours the assistant may use here. Disconnecting one stops it at \
         once; you can connect it again at any time.</p>\n<ul>\n",
    );
    for row in rows {
        let state = match &row.connected {
            Some((since, scopes)) => format!(
                "connected since {}{}",
                escape(since),
                if scopes.is_empty() {
                    String::new()
                } else {
                    let names: Vec<&str> = scopes.iter().map(|s| short_scope(s)).collect();
                    format!(", allowed: {}", escape(&names.join(", ")))
                }
            ),
            None => "not connected".to_string(),
        };
        let action = match &row.action {
            Action::Disconnect(ticket) => format!(
                "<form method=\"post\" action=\"/connections/disconnect\">\
                 <input type=\"hidden\" name=\"ticket\" value=\"{}\">\
                 <button type=\"submit\">Disconnect {}</button></form>",
                escape(ticket),
                escape(&row.title)
            ),
            Action::Connect(url) => format!(
                "<a href=\"{}\">Connect {}</a>",
                escape(url),
                escape(&row.title)
            ),
            Action::None => String::new(),
        };
        body.push_str(&format!(
            "<li><strong>{}</strong>: {state}. {action}</li>\n",
            escape(&row.title)
        ));
    }
    body.push_str("</ul>\n");
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n<title>Your connections</title>\n\
         <style>body{{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;\
         padding:0 1rem;line-height:1.5;color:#1a1a1a;overflow-wrap:anywhere}}\
         h1{{font-size:1.4rem}}li{{margin:.8rem 0}}form{{display:inline}}button{{font:inherit;padding:.2rem .6rem}}\
         a{{color:#0b57d0}}.notice{{border-left:4px solid #0b57d0;padding-left:.6rem}}\
         </style>\n</head>\n<body>\n<main>\n{body}</main>\n</body>\n</html>\n"
    )
}

/// A scope as a person reads it: a URL scope by its last path segment
/// (`https://www.googleapis.com/auth/gmail.send` → `gmail.send`), any other as it is.
fn short_scope(scope: &str) -> &str {
    let url = scope.starts_with("https://") || scope.starts_with("http://");
    let last = scope.trim_end_matches('/').rsplit('/').next();
    match last {
        Some(name) if url && !name.is_empty() && !name.contains(':') => name,
        _ => scope,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_scopes_read_by_their_last_segment() {
        assert_eq!(
            short_scope("https://www.googleapis.com/auth/gmail.send"),
            "gmail.send"
        );
        assert_eq!(short_scope("https://mail.google.com/"), "mail.google.com");
        assert_eq!(short_scope("Mail.Send"), "Mail.Send");
        assert_eq!(short_scope("https://"), "https://");
    }

    #[test]
    fn the_page_escapes_every_value_and_posts_only_its_ticket() {
        let rows = [
            Row {
                title: "Mail <x>".into(),
                connected: Some(("2026-12-01".into(), vec!["mail.read".into()])),
                action: Action::Disconnect("t\"1".into()),
            },
            Row {
                title: "Calendar".into(),
                connected: None,
                action: Action::Connect("https://h/connect/cal?for=a&b".into()),
            },
        ];
        let html = html(&rows, Some("Forgot <Mail>."));
        assert!(html.contains(
            "<strong>Mail &lt;x&gt;</strong>: connected since 2026-12-01, allowed: mail.read."
        ));
        assert!(html.contains("name=\"ticket\" value=\"t&quot;1\""));
        assert!(html.contains("href=\"https://h/connect/cal?for=a&amp;b\""));
        assert!(html.contains("Forgot &lt;Mail&gt;."));
        assert!(!html.contains("<script") && !html.contains("src="));
        assert_eq!(html.matches("<form").count(), 1);
    }
}
