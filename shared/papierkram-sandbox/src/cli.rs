//! Command line of the `papierkram-sandbox` binary.

use crate::state::{DEFAULT_MONTHLY_LIMIT, DEFAULT_TOKEN};
use std::net::SocketAddr;

pub const DEFAULT_ADDR: &str = "127.0.0.1:8768";

pub const USAGE: &str =
    "usage: papierkram-sandbox [--addr 127.0.0.1:8768] [--token T] [--monthly-limit N]";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args {
    pub addr: SocketAddr,
    pub token: String,
    pub monthly_limit: u64,
}

#[derive(Debug, PartialEq, Eq)]
pub enum CliError {
    /// `--help` was asked for.
    Help,
    Invalid(String),
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Help => f.write_str(USAGE),
            CliError::Invalid(why) => write!(f, "{why}\n{USAGE}"),
        }
    }
}

impl std::error::Error for CliError {}

impl Args {
    /// Parses the arguments after the program name.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, CliError> {
        let mut out = Args {
            addr: DEFAULT_ADDR.parse().expect("valid default"),
            token: DEFAULT_TOKEN.into(),
            monthly_limit: DEFAULT_MONTHLY_LIMIT,
        };
        let mut args = args.into_iter();
        while let Some(flag) = args.next() {
            if flag == "--help" || flag == "-h" {
                return Err(CliError::Help);
            }
            let value = args
                .next()
                .ok_or_else(|| CliError::Invalid(format!("{flag} needs a value")))?;
            let bad = |what: &str| CliError::Invalid(format!("{flag}: {value:?} is not {what}"));
            match flag.as_str() {
                "--addr" => {
                    out.addr = value
                        .parse()
                        .map_err(|_| bad("an address like 127.0.0.1:8768"))?
                }
                "--token" if !value.is_empty() => out.token = value,
                "--token" => return Err(bad("a non-empty token")),
                "--monthly-limit" => {
                    out.monthly_limit = value.parse().map_err(|_| bad("a number"))?
                }
                _ => return Err(CliError::Invalid(format!("unknown argument {flag}"))),
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, CliError> {
        Args::parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn defaults_and_overrides() {
        let d = parse(&[]).unwrap();
        assert_eq!(
            (d.addr.to_string().as_str(), d.token.as_str()),
            (DEFAULT_ADDR, DEFAULT_TOKEN)
        );
        let a = parse(&[
            "--token",
            "t0k",
            "--addr",
            "127.0.0.1:9000",
            "--monthly-limit",
            "5",
        ])
        .unwrap();
        assert_eq!(
            (a.token.as_str(), a.addr.port(), a.monthly_limit),
            ("t0k", 9000, 5)
        );
    }

    #[test]
    fn bad_arguments_are_rejected_with_usage() {
        assert_eq!(parse(&["--help"]), Err(CliError::Help));
        for bad in [
            &["--addr"][..],
            &["--addr", "nowhere"],
            &["--token", ""],
            &["--port", "1"],
        ] {
            let err = parse(bad).unwrap_err();
            assert!(err.to_string().contains("usage:"), "{bad:?}");
        }
    }
}
