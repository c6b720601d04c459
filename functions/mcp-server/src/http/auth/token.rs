//! OAuth access tokens: the token check (`crate::oauth`), then what its grants open on this
//! path. The user (`sub`) is recorded only as the keyed-hash pseudonym; the token is neither
//! logged nor forwarded upstream (connectors use their own credentials).

use super::Denied;
use crate::call::Caller;
use crate::inventory::Scope;
use crate::oauth::{self, Verifier};
use crate::secrets::SecretValues;

/// The key id an OAuth caller carries in the audit log and the limits.
pub(crate) const KEY_ID: &str = connector::secret::OAUTH_KEY_ID;

pub(crate) async fn caller(
    verifier: &Verifier,
    token: &str,
    path: Option<&str>,
    secrets: &SecretValues,
) -> Result<Caller, Denied> {
    let identity = verifier.verify(token, path).await.map_err(Denied::Token)?;
    let scope = oauth::access(verifier.settings(), &identity.values, path)
        .map_err(|()| Denied::InsufficientScope)?;
    let pepper = secrets.pepper.as_deref().ok_or_else(|| {
        tracing::error!("refusing OAuth callers: the deployment secret has no pseudonym_pepper");
        Denied::Unavailable(
            "The server cannot record who is calling (no pseudonym pepper in its secret); an \
             operator must add one."
                .into(),
        )
    })?;
    Ok(Caller {
        key_id: KEY_ID.into(),
        user: Some(audit::Pseudonymizer::new(pepper).pseudonym_of_subject(&identity.subject)),
        scope: scope.map_or(Scope::Deployment, Scope::Profile),
        person: crate::vault::Person::new(&verifier.settings().issuer, &identity.subject).ok(),
    })
}
