//! The consent page and its decision (`POST /oauth/consent`). The page names the client (its
//! registered name, which anyone can choose, so the redirect host is shown beside it), where
//! the answer goes, the person signed in and what each scope opens; Approve or Deny. No script,
//! nothing loaded, every value escaped; the form's only field of weight is a sealed ticket
//! bound to this browser's `__Host-` cookie and used once. Long names wrap anywhere: a
//! phone never scrolls sideways. ConsentTicket is asked per authorization,
//! never remembered per browser (the confused deputy of a shared client id).

use serde::Deserialize;

use super::sign_in::{CONSENT, ConsentTicket};
use super::store::{Approval, Code};
use super::{Answer, Issuer, browser, page, settings, with_query};
use crate::connect::page::escape;
use crate::vault::ticket;

/// What the person sees.
pub(super) struct ConsentShown<'a> {
    pub client: &'a str,
    pub redirect_host: &'a str,
    pub person: &'a str,
    pub scopes: &'a [String],
    pub ticket: &'a str,
}

/// The form posted back.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ConsentForm {
    #[serde(default)]
    pub ticket: Option<String>,
    #[serde(default)]
    pub decision: Option<String>,
}

/// The page's HTML.
pub(super) fn html(s: &ConsentShown<'_>) -> String {
    let items: String = s
        .scopes
        .iter()
        .map(|l| format!("<li>{}</li>", escape(l)))
        .collect();
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <title>Allow {client} to use this server?</title>\n\
         <style>body{{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;\
         padding:0 1rem;line-height:1.5;color:#1a1a1a;overflow-wrap:anywhere}}\
         h1{{font-size:1.4rem}}\
         button{{font-size:1rem;padding:.6rem 1.4rem;margin:0 .5rem .5rem 0}}</style>\n\
         </head>\n<body>\n<main>\n<h1>Allow {client} to use this server?</h1>\n\
         <p>Signed in as <strong>{person}</strong>. The client answers to <strong>{host}</strong>.</p>\n\
         <p>It asks for:</p>\n<ul>{items}</ul>\n\
         <p>Only approve a client you just connected yourself.</p>\n\
         <form method=\"post\" action=\"{action}\">\n\
         <input type=\"hidden\" name=\"ticket\" value=\"{ticket}\">\n\
         <button type=\"submit\" name=\"decision\" value=\"approve\">Approve</button>\n\
         <button type=\"submit\" name=\"decision\" value=\"deny\">Deny</button>\n\
         </form>\n</main>\n</body>\n</html>\n",
        client = escape(s.client),
        person = escape(s.person),
        host = escape(s.redirect_host),
        action = super::metadata::CONSENT,
        ticket = escape(s.ticket),
    )
}

impl Issuer {
    /// `POST /oauth/consent`: approve issues a one-time code, deny says so; either goes back
    /// to the client's redirect URI.
    pub(crate) async fn decide(&self, form: &ConsentForm, bound: Option<&str>, now: u64) -> Answer {
        self.decision(form, bound, now)
            .await
            .unwrap_or_else(|stop| stop)
    }

    async fn decision(
        &self,
        form: &ConsentForm,
        bound: Option<&str>,
        now: u64,
    ) -> Result<Answer, Answer> {
        let again = "Start again from your MCP client.";
        let keys = self.keys().await;
        let c: ConsentTicket = ticket::open(
            &keys,
            CONSENT,
            form.ticket.as_deref().unwrap_or_default(),
            now,
        )
        .map_err(|_| page(400, "This form is not valid", again))?;
        if !browser::matches(bound, &c.b) {
            tracing::warn!("issuer: a consent form arrived without its browser's cookie");
            return Err(page(
                403,
                "Finish in the browser you started in",
                "This form was not sent from the page we showed you, so nothing was approved.",
            ));
        }
        self.once(&format!("consent#{}", c.n), now).await?;
        let issuer = self.settings.issuer.as_str();
        let mut pairs = vec![("iss", issuer)];
        pairs.extend(c.q.s.as_deref().map(|s| ("state", s)));
        if form.decision.as_deref() != Some("approve") {
            pairs.push(("error", "access_denied"));
            return Ok(Answer::Redirect(with_query(&c.q.r, &pairs)));
        }
        let code = self
            .new_code(&c, now)
            .await
            .map_err(|_| page(503, "Please try again", again))?;
        pairs.push(("code", &code));
        Ok(Answer::Redirect(with_query(&c.q.r, &pairs)))
    }

    /// A one-time code for the approved request, the client's registration kept alive.
    async fn new_code(&self, c: &ConsentTicket, now: u64) -> Result<String, ()> {
        let code = crate::random::hex(32).ok_or(())?;
        let family = crate::random::hex(16).ok_or(())?;
        let grant = Approval {
            client_id: c.q.c.clone(),
            subject: c.s.clone(),
            scope: c.q.p.clone(),
            resource: c.q.a.clone(),
            family,
        };
        let stored = Code {
            grant,
            redirect_uri: c.q.r.clone(),
            challenge: c.q.x.clone(),
            expires_at: now + settings::CODE_TTL_S,
        };
        let store = &self.store;
        store
            .put_code(&super::store::hash(&code), &stored)
            .await
            .map_err(|_| ())?;
        // A registered client lives on once used; a metadata document's client is not stored.
        if super::cimd::is_url(&c.q.c) {
            return Ok(code);
        }
        if let Ok(Some(mut client)) = store.client(&c.q.c, now).await {
            client.expires_at = client.expires_at.max(now + settings::USED_CLIENT_TTL_S);
            let _ = store.put_client(&client).await;
        }
        Ok(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_escapes_names_and_has_no_script() {
        let scopes = vec!["mcp:tools: every tool".to_string()];
        let page = html(&ConsentShown {
            client: "<script>x</script>",
            redirect_host: "claude.ai",
            person: "a\"b",
            scopes: &scopes,
            ticket: "t.1",
        });
        assert!(!page.contains("<script>"));
        assert!(page.contains("&lt;script&gt;") && page.contains("a&quot;b"));
        assert!(page.contains("action=\"/oauth/consent\"") && page.contains("value=\"approve\""));
    }
}
