//! [`Mailer`] on SES v2: `SendEmail` with the raw MIME message (`Content.Raw`), so the inline
//! chart and both alternatives go out exactly as built.

use aws_json::AwsJson;
use base64::Engine;
use serde_json::json;

use crate::handler::{Mailer, SendError};

/// SES through the SES v2 client built once in `main`.
#[derive(Debug)]
pub struct SesMailer {
    pub client: AwsJson,
}

impl SesMailer {
    pub fn new(client: AwsJson) -> Self {
        SesMailer { client }
    }
}

impl Mailer for SesMailer {
    async fn send_raw(
        &self,
        from: &str,
        to: &[String],
        raw: &[u8],
    ) -> Result<Option<String>, SendError> {
        let data = base64::engine::general_purpose::STANDARD.encode(raw);
        let input = json!({
            "FromEmailAddress": from,
            "Destination": {"ToAddresses": to},
            "Content": {"Raw": {"Data": data}},
        });
        let out = self
            .client
            .rest(
                "SendEmail",
                http::Method::POST,
                "/v2/email/outbound-emails",
                &input,
            )
            .await
            .map_err(|e| SendError(e.to_string()))?;
        Ok(out["MessageId"].as_str().map(str::to_string))
    }
}
