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
            let Some(client_id) = &self.client_id else {
                return Err(page(
                    503,
                    "Connecting is not set up",
                    "This server has no sign-in client for connecting accounts; an operator \
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
            let sign_in = SignInAt {
                authorize: &authorize,
                client_id,
                connector,
            };
            self.to_sign_in(sign_in, &keys, made_for, now)
        };
        steps.await.unwrap_or_else(|stop| stop)
    }

    /// The redirect to our sign-in for the person the link names, binding this browser (a
    /// cookie whose hash the state carries).
    fn to_sign_in(
        &self,
        at: SignInAt<'_>,
        keys: &[Vec<u8>],
        made_for: LinkFor,
        now: u64,
    ) -> Result<Step, Step> {
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
            p: made_for.p,
            c: at.connector.to_string(),
            v: verifier.clone(),
            n: nonce,
            b: binding.hash,
        };
        let Ok(state) = ticket::issue(keys, SIGNIN, &state, now + STATE_TTL_S) else {
            return Err(page(
                503,
                "Please try again",
                "The server has no key to sign requests with.",
            ));
        };
        let redirect_uri = self.redirect(at.connector, "signed-in");
        let url = self.our_sign_in(at.authorize, at.client_id, &redirect_uri, &state, &verifier);
        Ok(Step::Bind {
            to: url,
            cookie: browser::set_cookie(&binding.secret, STATE_TTL_S),
        })
    }
}

impl Connect {
    /// The URL of our sign-in for our public client, back to `redirect_uri` with `state`:
    /// authorization code with PKCE (S256 of `verifier`), `openid` and the scopes our tokens
    /// carry, and this server as the resource.
    pub(super) fn our_sign_in(
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

/// Where our sign-in is and who asks for it.
struct SignInAt<'a> {
    /// Our authorization server's authorization endpoint.
    authorize: &'a str,
    /// Our public client there.
    client_id: &'a str,
    connector: &'a str,
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
