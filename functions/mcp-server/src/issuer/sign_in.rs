//! `GET /oauth/callback`: back from the company IdP, in the browser that started. The state is
//! opened and used once, the IdP's code exchanged and its ID token checked; then the consent
//! page for the client that asked, with a sealed form bound to this browser.

use serde::{Deserialize, Serialize};

use super::authorize::{AuthRequest, SIGNIN, SignInState, error_back};
use super::idp::SignedIn;
use super::{Answer, Issuer, browser, consent, page, settings};
use crate::connect::Back;
use crate::vault::ticket;

/// What every refusal page of a sign-in suggests.
const AGAIN: &str = "Start again from your MCP client.";

/// The ticket purpose of the consent form.
pub(super) const CONSENT: &str = "issuer-consent";

/// What the consent form carries.
#[derive(Serialize, Deserialize)]
pub(super) struct ConsentTicket {
    pub q: AuthRequest,
    /// The IdP's subject.
    pub s: String,
    pub n: String,
    pub b: String,
}

impl Issuer {
    /// `GET /oauth/callback`.
    pub(crate) async fn signed_in(&self, back: &Back, browser: Option<&str>, now: u64) -> Answer {
        self.consent_page(back, browser, now)
            .await
            .unwrap_or_else(|stop| stop)
    }

    /// The state opened from its own browser and used once; the IdP's person; the page.
    async fn consent_page(
        &self,
        back: &Back,
        bound: Option<&str>,
        now: u64,
    ) -> Result<Answer, Answer> {
        let keys = self.keys().await;
        let state: SignInState = ticket::open(
            &keys,
            SIGNIN,
            back.state.as_deref().unwrap_or_default(),
            now,
        )
        .map_err(|_| page(400, "This sign-in is not valid", AGAIN))?;
        if !browser::matches(bound, &state.b) {
            return Err(page(
                403,
                "Finish in the browser you started in",
                "This sign-in was started in another browser, so nothing was approved.",
            ));
        }
        self.once(&format!("signin#{}", state.n), now).await?;
        if back.error.is_some() {
            let q = &state.q;
            let (issuer, why) = (&self.settings.issuer, "the sign-in was not completed");
            let to = error_back(&q.r, q.s.as_deref(), issuer, "access_denied", why);
            return Ok(Answer::Redirect(to));
        }
        let person = self.person(back, &state).await?;
        let state = self.narrowed(state, &person)?;
        self.consent(&keys, state, person, now).await
    }

    /// The request narrowed to the scopes the person may approve (`MCP_AS_SCOPE_GROUPS`); the
    /// client told `access_denied` when none is left.
    fn narrowed(&self, mut state: SignInState, person: &SignedIn) -> Result<SignInState, Answer> {
        let rule = self.settings.scope_groups.as_ref();
        if let Some(scopes) = settings::narrow(rule, &state.q.p, &person.groups) {
            state.q.p = scopes;
            return Ok(state);
        }
        let q = &state.q;
        let why = "your account may not use what this client asked for";
        let issuer = &self.settings.issuer;
        let to = error_back(&q.r, q.s.as_deref(), issuer, "access_denied", why);
        Err(Answer::Redirect(to))
    }

    /// The person the IdP signed in, from its code and ID token.
    async fn person(&self, back: &Back, state: &SignInState) -> Result<SignedIn, Answer> {
        let not_signed_in = || page(400, "You were not signed in", AGAIN);
        let code = back.code.as_deref().ok_or_else(not_signed_in)?;
        let callback = self.url(super::metadata::CALLBACK);
        let secrets = self.secrets.get().await.ok();
        let secret = secrets
            .as_ref()
            .and_then(|s| s.idp_client_secret.as_deref());
        self.idp
            .sign_in(code, &state.v, &callback, &state.n, secret)
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "issuer: the identity provider's sign-in was refused");
                not_signed_in()
            })
    }

    /// The consent page for `person`, its form sealed for this browser.
    async fn consent(
        &self,
        keys: &[Vec<u8>],
        state: SignInState,
        person: SignedIn,
        now: u64,
    ) -> Result<Answer, Answer> {
        let retry = || page(503, "Please try again", AGAIN);
        let client = self.client(&state.q.c, now).await.ok().flatten();
        let client =
            client.ok_or_else(|| page(400, "This client is no longer registered", AGAIN))?;
        let nonce = crate::random::hex(16).ok_or_else(retry)?;
        let scopes = self.scope_lines(&state.q.p);
        let form = ConsentTicket {
            q: state.q,
            s: person.subject,
            n: nonce,
            b: state.b,
        };
        let sealed =
            ticket::issue(keys, CONSENT, &form, now + settings::FLOW_TTL_S).map_err(|_| retry())?;
        let shown = consent::ConsentShown {
            client: &client.name,
            redirect_host: &super::redirect::shown_host(&form.q.r),
            person: &person.shown,
            scopes: &scopes,
            ticket: &sealed,
        };
        Ok(Answer::Consent(consent::html(&shown)))
    }

    /// Claims a single-use value, or the page that says it was used.
    pub(super) async fn once(&self, key: &str, now: u64) -> Result<(), Answer> {
        match self.store.claim(key, now + settings::FLOW_TTL_S).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(page(400, "This page was already used", AGAIN)),
            Err(_) => Err(page(
                503,
                "Please try again",
                "The server cannot check this request now.",
            )),
        }
    }

    /// Each scope with what it opens, in words.
    fn scope_lines(&self, scopes: &str) -> Vec<String> {
        scopes
            .split_whitespace()
            .map(|s| {
                match self
                    .oauth
                    .grants
                    .iter()
                    .find(|g| g.value == s)
                    .and_then(|g| g.profile.as_deref())
                {
                    Some(p) => format!("{s}: the tools of the profile {p}"),
                    None => format!("{s}: every tool of this server"),
                }
            })
            .collect()
    }
}
