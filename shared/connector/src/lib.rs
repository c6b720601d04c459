//! What hosted-mcp's three functions share about a connector (an upstream API declared by a
//! catalog file), so the mcp-server and the scheduled functions reach an upstream the same way:
//!
//! - [`catalogs`]: the shipped catalog files (`catalogs/*.yaml` in this crate's folder),
//!   compiled in as [`EMBEDDED_CATALOGS`], and [`load`] (a directory, else those).
//! - [`client`]: the one upstream HTTP client ([`http_client`]): compiled-in Mozilla roots, no
//!   redirects, a connect timeout.
//! - [`request`]: the authenticated upstream request ([`authenticate`], [`with_headers`]), its URL ([`base_url`],
//!   [`url`]) and the quota figures of its answer ([`quota_figures`]).
//! - [`secret`]: the deployment secret's JSON format ([`DeploymentSecret`], [`parse`]), with
//!   minimum key and pepper lengths and errors that never quote a value.
//!
//! Kept apart from the server so the scheduled functions get the catalogs and the request rules
//! without linking axum, rmcp or lambda_http. Nothing here reads the environment or calls AWS.
//!
//! ```
//! let catalogs = connector::load(None).unwrap();
//! let names: Vec<&str> = catalogs.iter().map(|c| c.connector.as_str()).collect();
//! assert_eq!(names, ["calcom", "gsuite", "lexware", "m365", "papierkram", "replicate", "runway", "sevdesk", "whatsapp"]);
//! let papierkram = &catalogs[4];
//! let secret = connector::parse(
//!     r#"{"connectors": {"papierkram": {"subdomain": "acme", "token": "t-1"}}}"#,
//! )
//! .unwrap();
//! let base = connector::base_url(&papierkram.base_url, secret.lookup("papierkram")).unwrap();
//! assert_eq!(base, "https://acme.papierkram.de/api/v1");
//! ```
//!
//! Try it: `cargo test -p connector`.

pub mod catalogs;
pub mod client;
pub mod request;
pub mod secret;

pub use catalogs::{EMBEDDED_CATALOGS, PAPIERKRAM_ALLOWLIST, load, load_files};
pub use client::{http_client, http_client_builder, http_client_builder_trusting};
pub use request::{authenticate, base_url, quota_figures, url, with_headers};
pub use secret::{DeploymentSecret, MIN_API_KEY_LEN, MIN_PEPPER_BYTES, SecretFormatError, parse};
