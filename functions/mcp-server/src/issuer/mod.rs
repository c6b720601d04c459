//! The authorization server's front door (issue 46, first slice): with `MCP_AS_IDP_ISSUER` set,
//! this server issues the access tokens its own resource server accepts, so a client connects
//! with the MCP URL alone (RFC 8414 metadata, dynamic registration, no client id by hand). A
//! person signs in at the company's identity provider (`idp`) and approves the client on a
//! consent page of ours; the client gets a one-time code, then tokens signed with our key.
//!
//! Beside `/mcp`, never inside it: nothing here is on the tool-call path, which only checks
//! the tokens (`oauth::Verifier`, pointed at our key set without fetching it from ourselves).
//!
//! Reads downwards: `settings` → `redirect`, `pkce`, `registration`, `address`, `cimd` (pure
//! rules; `cimd_fetch` fetches client metadata documents) →
//! `authorize` (the request checked, the person sent to the IdP) → `sign_in` (back from the
//! IdP: the consent page) → `consent` (the decision: a code) → `token` (codes and refresh
//! tokens exchanged, families revoked on reuse) → `signer` (the key; `kms` on Lambda) →
//! `store` (what is kept: `memory` locally, `table` on DynamoDB).
//! The HTTP edge is `http/issuer.rs`.

mod address;
mod authorize;
pub(crate) mod browser;
mod cimd;
mod cimd_fetch;
mod consent;
mod idp;
mod kms;
mod memory;
pub(crate) mod metadata;
mod pkce;
mod redirect;
pub(crate) mod registration;
pub(crate) mod settings;
mod sign_in;
pub(crate) mod signer;
pub(crate) mod store;
mod table;
pub(crate) mod token;

use crate::oauth::url::with_query;
use std::sync::Arc;

pub(crate) use authorize::AuthorizeQuery;
pub(crate) use consent::ConsentForm;
pub(crate) use kms::KmsSigner;
pub(crate) use memory::MemoryIssuer;
pub(crate) use settings::IssuerSettings;
pub(crate) use signer::{LocalSigner, TokenSigner};
pub(crate) use store::IssuerStore;
pub(crate) use table::TableIssuer;

use crate::connect::Page;
use crate::secrets::SecretStore;

/// The store and the key, built at start where they need AWS (`startup::build`); tests and
/// local runs without them get the in-memory store and a key made at start.
pub struct IssuerParts {
    pub(crate) store: Arc<dyn IssuerStore>,
    pub(crate) signer: Arc<dyn TokenSigner>,
    /// The public JWKs of the previous keys (`MCP_AS_PREVIOUS_KEY_IDS`): still accepted.
    pub(crate) previous: Vec<serde_json::Value>,
}

impl IssuerParts {
    /// In memory, with a key made now.
    pub(crate) fn local() -> Result<Self, signer::SignError> {
        Ok(IssuerParts {
            store: Arc::new(MemoryIssuer::default()),
            signer: Arc::new(LocalSigner::generate()?),
            previous: Vec::new(),
        })
    }

    /// The table and the KMS key the settings name (each in memory or local when unnamed).
    pub(crate) async fn build(
        settings: &IssuerSettings,
        aws: Option<&aws_config::SdkConfig>,
    ) -> Result<Self, signer::SignError> {
        let local = IssuerParts::local()?;
        let store: Arc<dyn IssuerStore> = match (&settings.table, aws) {
            (Some(t), Some(aws)) => {
                Arc::new(TableIssuer::new(aws_sdk_dynamodb::Client::new(aws), t))
            }
            _ => local.store,
        };
        let (signer, previous): (Arc<dyn TokenSigner>, _) = match (&settings.key_id, aws) {
            (Some(k), Some(aws)) => {
                let client = aws_sdk_kms::Client::new(aws);
                let previous = previous_keys(&client, &settings.previous_key_ids).await?;
                let current = KmsSigner::load(client, k).await.map_err(|e| {
                    signer::SignError::Unavailable(format!("{}: {e}", settings::KEY_ID))
                })?;
                (Arc::new(current), previous)
            }
            _ => (local.signer, Vec::new()),
        };
        Ok(IssuerParts {
            store,
            signer,
            previous,
        })
    }
}

/// The previous keys' public JWKs (one `GetPublicKey` each; a rotation has one or two).
async fn previous_keys(
    client: &aws_sdk_kms::Client,
    ids: &[String],
) -> Result<Vec<serde_json::Value>, signer::SignError> {
    let mut keys = Vec::with_capacity(ids.len());
    for id in ids {
        let key = kms::KmsPublicKey::load(client, id).await.map_err(|e| {
            signer::SignError::Unavailable(format!("{}: {e}", settings::PREVIOUS_KEY_IDS))
        })?;
        keys.push(key.jwk());
    }
    Ok(keys)
}

/// What a browser step answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    /// 302 to this URL.
    Redirect(String),
    /// 302 to `to`, binding the browser with this `Set-Cookie`.
    Bind { to: String, cookie: String },
    /// A plain page (an error the person reads).
    Page(Page),
    /// The consent page's HTML (a form posting back here).
    Consent(String),
}

/// Everything the routes need, built once at start.
pub(crate) struct Issuer {
    pub settings: IssuerSettings,
    /// The resource server's settings: our resource URL and the scopes (profile claim values).
    pub oauth: crate::oauth::Settings,
    /// The deployment's profiles (`<resource>/<profile>` is a resource too).
    pub profiles: Vec<String>,
    pub store: Arc<dyn IssuerStore>,
    pub signer: Arc<dyn TokenSigner>,
    /// The previous keys' public JWKs, published and accepted beside the signer's.
    previous: Vec<serde_json::Value>,
    pub secrets: Arc<SecretStore>,
    idp: idp::Idp,
    /// Clients whose id is a metadata document's URL (CIMD).
    documents: cimd_fetch::Documents,
    /// This server's own `/connect` pages as a client ([`CONNECT_CLIENT`]), when people
    /// connect their own accounts here.
    connect: Option<store::Registration>,
}

/// The client id of this server's own `/connect` pages at its authorization server: known
/// from the start (its redirect URIs are the connect pages'), never registered, never
/// expiring; a person still approves it on the consent page like any client.
pub(crate) const CONNECT_CLIENT: &str = "hosted-mcp-connect";

/// Why a client could not be looked up.
#[derive(Debug)]
pub(crate) enum ClientError {
    /// Our store failed.
    Unavailable,
    /// A metadata document's URL, refused or its document unusable.
    Document(cimd::CimdError),
}

impl Issuer {
    pub(crate) fn new(
        settings: IssuerSettings,
        oauth: crate::oauth::Settings,
        profiles: Vec<String>,
        parts: IssuerParts,
        secrets: Arc<SecretStore>,
        http: reqwest::Client,
    ) -> Self {
        let IssuerParts {
            store,
            signer,
            previous,
        } = parts;
        let idp = idp::Idp::new(
            http,
            &settings.idp_issuer,
            &settings.idp_client_id,
            &settings.groups_claim,
        );
        let documents = cimd_fetch::Documents::new(
            settings.cimd_loopback,
            cimd_fetch::FETCH_LIMIT,
            settings.cimd_test_ca.as_deref(),
        );
        Issuer {
            documents,
            connect: None,
            settings,
            oauth,
            profiles,
            store,
            signer,
            previous,
            secrets,
            idp,
        }
    }

    /// With this server's `/connect` pages as a client of its own, back at `redirect_uris`.
    pub(crate) fn with_connect(mut self, redirect_uris: Vec<String>) -> Self {
        self.connect = Some(store::Registration {
            id: CONNECT_CLIENT.to_string(),
            name: "Connect your accounts (this server's own pages)".to_string(),
            redirect_uris,
            expires_at: u64::MAX,
        });
        self
    }

    /// The RFC 8414 document.
    pub(crate) fn metadata(&self) -> serde_json::Value {
        let scopes: Vec<&str> = self.oauth.grants.iter().map(|g| g.value.as_str()).collect();
        metadata::document(&self.settings.issuer, &scopes)
    }

    /// Our key set (`/oauth/jwks`, and what our resource server checks tokens against).
    pub(crate) fn jwks(&self) -> serde_json::Value {
        signer::jwks(self.signer.as_ref(), &self.previous)
    }

    /// The client `id` names: a metadata document's (kept or fetched now) or a registered
    /// one; `None` when unknown or expired.
    pub(crate) async fn client(
        &self,
        id: &str,
        now: u64,
    ) -> Result<Option<store::Registration>, ClientError> {
        if id == CONNECT_CLIENT {
            return Ok(self.connect.clone());
        }
        if cimd::is_url(id) {
            return match self.documents.client(id, now).await {
                Ok(c) => Ok(Some(c)),
                Err(e) => {
                    tracing::info!(error = %e, "issuer: a client metadata document was refused");
                    Err(ClientError::Document(e))
                }
            };
        }
        self.store
            .client(id, now)
            .await
            .map_err(|_| ClientError::Unavailable)
    }

    /// The ticket keys (the deployment's confirmation keys).
    async fn keys(&self) -> Vec<Vec<u8>> {
        self.secrets
            .get()
            .await
            .map(|s| s.confirmation_keys.clone())
            .unwrap_or_default()
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.settings.issuer)
    }
}

fn page(status: u16, title: &str, text: impl Into<String>) -> Answer {
    Answer::Page(Page::new(status, title, text))
}
