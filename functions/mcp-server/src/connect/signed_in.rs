//! Step 2 (`GET /connect/<c>/signed-in`): back from our sign-in in the same browser; the
//! token checked like any caller's and its subject the person the link was made for, then the
//! browser sent to the upstream's authorization.

use super::state::{Authorize, SIGNIN, STATE_TTL_S, SignIn, UPSTREAM};
use super::{Back, Connect, Declared, Step, page, pkce, upstream_client_id, with_query};
use crate::upstream::token_endpoint as exchange;
use crate::vault::{Person, ticket};

/// Who goes to the upstream's authorization, from which browser, asking for what.
struct Flow {
    subject: String,
    /// The hash of the browser's binding secret.
    binding: String,
    scopes: Vec<String>,
}

impl Connect {
    /// Step 2: back from our sign-in in the same browser; the same person, then the upstream.
    pub async fn signed_in(
        &self,
        connector: &str,
        back: &Back,
        browser: Option<&str>,
        now: u64,
    ) -> Step {
        let steps = async {
            let declared = self.declared(connector)?;
            let keys = self.keys().await;
            let state: SignIn = self
                .state(&keys, SIGNIN, back, connector, browser, now)
                .await?;
            let subject = self
                .same_person(&state, back, connector, &declared.title, now)
                .await?;
            let scopes = declared.asked(&state.x);
            let flow = Flow {
                subject,
                binding: state.b,
                scopes,
            };
            self.to_upstream(connector, declared, &keys, flow, now)
                .await
        };
        steps.await.unwrap_or_else(|stop| stop)
    }

    /// The person our sign-in names, who must be the one the link was made for; `Err` is the
    /// page that says why not.
    async fn same_person(
        &self,
        state: &SignIn,
        back: &Back,
        connector: &str,
        title: &str,
        now: u64,
    ) -> Result<String, Step> {
        let redirect_uri = self.redirect(connector, "signed-in");
        let (person, subject) = self.our_person(back, &state.v, &redirect_uri, now).await?;
        if person.id() != state.p {
            tracing::warn!(
                connector,
                "connect: a link was opened by another person than it was made for"
            );
            return Err(page(
                403,
                "This link was made for someone else",
                format!(
                    "You signed in as another person than the one this link was made for, so \
                     no {title} account is connected. Each person connects with the link from \
                     their own chat."
                ),
            ));
        }
        Ok(subject)
    }

    /// The person our sign-in names: its code (`back`) exchanged with the PKCE `verifier` for
    /// a token checked like any caller's; with the token's subject. `Err` is the page that says
    /// why not.
    pub(super) async fn our_person(
        &self,
        back: &Back,
        verifier: &str,
        redirect_uri: &str,
        now: u64,
    ) -> Result<(Person, String), Step> {
        let not_signed_in = || {
            page(
                400,
                "You were not signed in",
                "Open the link from your chat again.",
            )
        };
        let (Some(code), Some(client_id)) = (&back.code, &self.client_id) else {
            return Err(not_signed_in());
        };
        let (_, token_endpoint) = self.our_endpoints().await.map_err(|_| {
            page(
                503,
                "Sign-in is unavailable",
                "Please try again in a minute.",
            )
        })?;
        let settings = self.verifier.settings();
        let client = exchange::Client {
            id: client_id,
            secret: None,
            resource: Some(&settings.resource),
        };
        let what = exchange::Exchange::Code {
            code,
            verifier,
            redirect_uri,
        };
        let grant = exchange::exchange(&self.http, &token_endpoint, &client, what, now)
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "connect: our sign-in code was not exchanged");
                not_signed_in()
            })?;
        let identity = self
            .verifier
            .verify(&grant.access_token, None)
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "connect: the sign-in token was refused");
                not_signed_in()
            })?;
        let person = Person::new(&settings.issuer, &identity.subject).map_err(|_| {
            page(
                400,
                "You were not signed in",
                "Your sign-in names no person.",
            )
        })?;
        Ok((person, identity.subject))
    }

    /// The redirect to the upstream's authorization for the flow's person and scopes, its
    /// state bound to the browser that started the flow.
    async fn to_upstream(
        &self,
        connector: &str,
        declared: &Declared,
        keys: &[Vec<u8>],
        flow: Flow,
        now: u64,
    ) -> Result<Step, Step> {
        let secrets = self.secrets_or_retry().await?;
        let oauth = &declared.oauth;
        let upstream_client = upstream_client_id(&secrets, connector, declared)?;
        let authorize =
            super::upstream_endpoint(&secrets, connector, declared, &oauth.authorization_endpoint)?;
        let try_again = || {
            page(
                503,
                "Please try again",
                "The server could not make a request.",
            )
        };
        let (Some(verifier), Some(nonce)) = (pkce::verifier(), crate::random::hex(16)) else {
            return Err(try_again());
        };
        let scopes = flow.scopes.join(" ");
        let next = Authorize {
            i: self.verifier.settings().issuer.clone(),
            s: flow.subject,
            c: connector.to_string(),
            v: verifier.clone(),
            n: nonce,
            b: flow.binding,
            x: flow.scopes,
        };
        let Ok(next) = ticket::issue(keys, UPSTREAM, &next, now + STATE_TTL_S) else {
            return Err(page(
                503,
                "Please try again",
                "The server has no key to sign requests with.",
            ));
        };
        let redirect_uri = self.redirect(connector, "callback");
        let challenge = pkce::challenge(&verifier);
        let mut query = vec![
            ("response_type", "code"),
            ("client_id", upstream_client),
            ("state", next.as_str()),
            ("code_challenge_method", "S256"),
            ("redirect_uri", &redirect_uri),
            ("code_challenge", &challenge),
        ];
        if !scopes.is_empty() {
            query.push(("scope", &scopes));
        }
        if let Some(r) = &oauth.resource {
            query.push(("resource", r));
        }
        Ok(Step::Redirect(with_query(&authorize, &query)))
    }
}
