//! Links from a failed call to its trace. mcp-server writes the request's W3C trace id (32 hex
//! digits) on the audit line (`trace_id`); X-Ray stores the same trace as `1-<first 8>-<last 24>`,
//! and the CloudWatch console of the deployment's region shows it. A line without a trace id,
//! or with one that is no trace id, gets no link.

use std::fmt;
use std::str::FromStr;

/// An AWS region name as the console's host takes it (`eu-central-1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region(String);

/// Why a text is no region name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an AWS region name like eu-central-1")]
pub struct BadRegion(pub String);

impl FromStr for Region {
    type Err = BadRegion;

    /// Lowercase words and a number, joined by `-` (`us-east-1`, `us-gov-west-1`): nothing
    /// that could change the host or the query of the link.
    fn from_str(text: &str) -> Result<Self, BadRegion> {
        let parts: Vec<&str> = text.split('-').collect();
        let (last, words) = parts.split_last().unwrap_or((&"", &[]));
        let valid = text.len() <= 32
            && words.len() >= 2
            && words
                .iter()
                .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase()))
            && !last.is_empty()
            && last.bytes().all(|b| b.is_ascii_digit());
        if valid {
            Ok(Region(text.to_string()))
        } else {
            Err(BadRegion(text.to_string()))
        }
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The X-Ray id of a W3C trace id (`4bf92f35…` → `1-4bf92f35-77b3…`); an id already in X-Ray's
/// form is taken as it is. `None` for anything else, and for the all-zero id W3C calls invalid.
pub fn xray_id(trace_id: &str) -> Option<String> {
    let hex = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    let (epoch, rest) = match trace_id.strip_prefix("1-") {
        Some(xray) => xray.split_once('-')?,
        None if trace_id.len() == 32 => trace_id.split_at(8),
        None => return None,
    };
    let valid = epoch.len() == 8 && rest.len() == 24 && hex(epoch) && hex(rest);
    let zero = epoch.bytes().chain(rest.bytes()).all(|b| b == b'0');
    (valid && !zero).then(|| format!("1-{epoch}-{rest}"))
}

/// The trace's page in the CloudWatch console of `region`, `None` when `trace_id` is no trace id.
pub fn url(region: &Region, trace_id: &str) -> Option<String> {
    let id = xray_id(trace_id)?;
    Some(format!(
        "https://{region}.console.aws.amazon.com/cloudwatch/home?region={region}#xray:traces/{id}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const W3C: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

    fn region(s: &str) -> Region {
        s.parse().unwrap()
    }

    #[test]
    fn a_w3c_trace_id_links_to_its_xray_trace_in_the_region() {
        assert_eq!(
            url(&region("eu-central-1"), W3C).as_deref(),
            Some(
                "https://eu-central-1.console.aws.amazon.com/cloudwatch/home?region=eu-central-1\
                 #xray:traces/1-4bf92f35-77b34da6a3ce929d0e0e4736"
            )
        );
        let other = url(&region("us-gov-west-1"), W3C).unwrap();
        assert!(
            other.starts_with("https://us-gov-west-1.console.aws.amazon.com/"),
            "{other}"
        );
        assert!(other.contains("?region=us-gov-west-1#"), "{other}");
    }

    #[test]
    fn an_xray_id_is_taken_as_it_is() {
        let id = "1-4bf92f35-77b34da6a3ce929d0e0e4736";
        assert_eq!(xray_id(id).as_deref(), Some(id));
    }

    #[test]
    fn no_trace_id_no_link() {
        for bad in [
            "",
            "00000000000000000000000000000000",
            "4BF92F3577B34DA6A3CE929D0E0E4736",
            "4bf92f3577b34da6a3ce929d0e0e473",
            "4bf92f3577b34da6a3ce929d0e0e47366",
            "4bf92f3577b34da6a3ce929d0e0e473g",
            "1-4bf92f35-77b34da6",
            "2-4bf92f35-77b34da6a3ce929d0e0e4736",
            "<script>alert(1)</script>0000000",
            "req-1",
        ] {
            assert_eq!(url(&region("eu-central-1"), bad), None, "{bad}");
        }
    }

    #[test]
    fn region_names_are_checked() {
        assert_eq!(region("ap-southeast-2").to_string(), "ap-southeast-2");
        for bad in [
            "",
            "eu",
            "eu-central",
            "central-1",
            "EU-central-1",
            "eu-central-1.evil.com",
            "eu-central-1/x",
            "eu--1",
            "eu-central-x",
        ] {
            assert_eq!(
                bad.parse::<Region>(),
                Err(BadRegion(bad.to_string())),
                "{bad}"
            );
        }
    }
}
