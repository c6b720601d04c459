//! [`Mailer`] on SES v2: `SendEmail` with the raw MIME message (`Content::Raw`), so the inline
//! chart and both alternatives go out exactly as built.

use aws_sdk_sesv2::Client;
use aws_sdk_sesv2::error::DisplayErrorContext;
use aws_sdk_sesv2::primitives::Blob;
use aws_sdk_sesv2::types::{Destination, EmailContent, RawMessage};

use crate::handler::{Mailer, SendError};

/// SES through the SDK client built once in `main`.
#[derive(Debug, Clone)]
pub struct SesMailer {
    pub client: Client,
}

impl SesMailer {
    pub fn new(client: Client) -> Self {
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
        let message = RawMessage::builder()
            .data(Blob::new(raw))
            .build()
            .map_err(|e| SendError(DisplayErrorContext(&e).to_string()))?;
        let out = self
            .client
            .send_email()
            .from_email_address(from)
            .destination(
                Destination::builder()
                    .set_to_addresses(Some(to.to_vec()))
                    .build(),
            )
            .content(EmailContent::builder().raw(message).build())
            .send()
            .await
            .map_err(|e| SendError(DisplayErrorContext(&e).to_string()))?;
        Ok(out.message_id().map(str::to_string))
    }
}
