//! Step 1 (`GET /connect/<c>?for=…`): the link from a `connection_required` answer, checked,
//! then the browser bound to the flow and sent to our sign-in.

use super::state::{SIGNIN, STATE_TTL_S, SignIn};
use super::{Connect, Step, browser, page, pkce, with_query};
use crate::call::{LINK_PURPOSE, LinkFor};
use crate::vault::ticket;

impl Connect {
    /// Step 1: the link, then our sign-in.
    pub async fn start(&self, connector: &str, link: Option<&str>, now: u64) -> Step {
        let steps = async {
            let declared = self.declared(connector)?;
            let keys = self.keys().await;
            let made_for = opened_link(&keys, connector, &declared.title, link, now)?;
            let flow = SignIn {
                p: made_for.p,
                c: connector.to_string(),
                x: made_for.x,
                ..SignIn::default()
            };
            let back = self.redirect(connector, "signed-in");
            self.to_sign_in(&keys, SIGNIN, flow, &back, now).await
        };
        steps.await.unwrap_or_else(|stop| stop)
    }

    /// The redirect to our sign-in, back to `back`, binding this browser (a cookie whose hash
    /// the state carries): the state `flow` (its person and connector; the PKCE verifier, the
    /// nonce and the browser's hash are filled in here) sealed for `purpose`.
    pub(super) async fn to_sign_in(
        &self,
        keys: &[Vec<u8>],
        purpose: &str,
        flow: SignIn,
        back: &str,
        now: u64,
    ) -> Result<Step, Step> {
        let Some(client_id) = &self.client_id else {
            return Err(page(
                503,
                "Signing in is not set up",
                "This server has no sign-in client for people's own accounts; an operator \
                 must set MCP_CONNECT_CLIENT_ID.",
            ));
        };
        let (authorize, _) = self.our_endpoints().await.map_err(|e| {
            tracing::warn!(error = %e, "our authorization server's metadata is unavailable");
            page(
                503,
                "Sign-in is unavailable",
                "Please try again in a minute.",
            )
        })?;
        let (Some(verifier), Some(nonce), Some(binding)) = (
            pkce::verifier(),
            crate::random::hex(16),
            browser::Binding::new(),
        ) else {
            return Err(page(
                503,
                "Please try again",
                "The server could not make a sign-in request.",
            ));
        };
        let state = SignIn {
            v: verifier.clone(),
            n: nonce,
            b: binding.hash,
            ..flow
        };
        let Ok(state) = ticket::issue(keys, purpose, &state, now + STATE_TTL_S) else {
            return Err(page(
                503,
                "Please try again",
                "The server has no key to sign requests with.",
            ));
        };
        let url = self.our_sign_in(&authorize, client_id, back, &state, &verifier);
        Ok(Step::Bind {
            to: url,
            cookie: browser::set_cookie(&binding.secret, STATE_TTL_S),
        })
    }

    /// The URL of our sign-in for our public client, back to `redirect_uri` with `state`:
    /// authorization code with PKCE (S256 of `verifier`), `openid` and the scopes our tokens
    /// carry, and this server as the resource.
    fn our_sign_in(
        &self,
        authorize: &str,
        client_id: &str,
        redirect_uri: &str,
        state: &str,
        verifier: &str,
    ) -> String {
        let settings = self.verifier.settings();
        let scopes = std::iter::once("openid")
            .chain(settings.values_for(None))
            .collect::<Vec<_>>()
            .join(" ");
        with_query(
            authorize,
            &[
                ("response_type", "code"),
                ("client_id", client_id),
                ("redirect_uri", redirect_uri),
                ("scope", &scopes),
                ("state", state),
                ("code_challenge", &pkce::challenge(verifier)),
                ("code_challenge_method", "S256"),
                ("resource", &settings.resource),
            ],
        )
    }
}

/// The link's ticket, opened: made for a person and for this connector; `Err` is the page that
/// says why not.
fn opened_link(
    keys: &[Vec<u8>],
    connector: &str,
    title: &str,
    link: Option<&str>,
    now: u64,
) -> Result<LinkFor, Step> {
    let Some(link) = link else {
        return Err(page(
            400,
            format!("Connect {title}"),
            format!(
                "This page needs the link from your chat: ask the assistant to use a \
                 {title} tool, and open the link it gives you."
            ),
        ));
    };
    let made_for: LinkFor = match ticket::open(keys, LINK_PURPOSE, link, now) {
        Ok(l) => l,
        Err(ticket::TicketError::Expired) => {
            return Err(page(
                400,
                "This link has expired",
                format!(
                    "Links to connect {title} last 15 minutes. Ask the assistant to use a \
                     {title} tool again for a new one."
                ),
            ));
        }
        Err(_) => {
            return Err(page(
                400,
                "This link is not valid",
                "It was changed or does not come from this server. Use the link from your \
                 chat as it was given.",
            ));
        }
    };
    if made_for.c != connector {
        return Err(page(
            400,
            "This link is not valid",
            "It was made for another connector.",
        ));
    }
    Ok(made_for)
}
