//! The digest as an e-mail: subject, text, HTML, chart and the raw MIME message to send.

use jiff::Timestamp;

use crate::chart;
use crate::digest::Digest;
use crate::html::{self, CHART_CONTENT_ID};
use crate::mime::{self, InlineImage, Message};
use crate::period::Period;
use crate::text;

/// File name of the chart, in the message and in the local run's output.
pub const CHART_FILE: &str = "errors-per-day.png";

/// Who the mail is from and to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Addresses {
    pub sender: String,
    pub recipients: Vec<String>,
    /// Put before every subject, e.g. `[prod] `.
    pub subject_prefix: String,
}

/// A composed mail.
#[derive(Debug, Clone)]
pub struct Email {
    pub subject: String,
    pub text: String,
    pub html: Option<String>,
    pub chart_png: Option<Vec<u8>>,
    /// The RFC 5322 message with MIME parts.
    pub raw: String,
}

/// The digest mail; the chart is attached when there are failed calls to draw.
pub fn compose(d: &Digest, to: &Addresses, date: Timestamp) -> Email {
    let subject = format!("{}{}", to.subject_prefix, d.subject());
    let text = text::render(d);
    let chart_png = chart::render_png(&d.chart);
    let html = html::render(d, chart_png.as_ref().map(|_| html::chart_cid()).as_deref());
    let image = chart_png.clone().map(|png| InlineImage {
        content_id: CHART_CONTENT_ID.to_string(),
        filename: CHART_FILE.to_string(),
        png,
    });
    let raw = mime::build(&Message {
        from: &to.sender,
        to: &to.recipients,
        subject: &subject,
        date,
        text: &text,
        html: Some(&html),
        image: image.as_ref(),
    });
    Email {
        subject,
        text,
        html: Some(html),
        chart_png,
        raw,
    }
}

/// The "digest failed" notice: plain text, the error and what happens next.
pub fn compose_failure(period: &Period, error: &str, to: &Addresses, date: Timestamp) -> Email {
    let subject = format!("{}{}", to.subject_prefix, text::failure_subject(period));
    let text = text::render_failure(period, error);
    let raw = mime::build(&Message {
        from: &to.sender,
        to: &to.recipients,
        subject: &subject,
        date,
        text: &text,
        html: None,
        image: None,
    });
    Email {
        subject,
        text,
        html: None,
        chart_png: None,
        raw,
    }
}
