//! The catalogs quota declarations come from: a directory, or the mcp-server's catalog files
//! compiled in.
//!
//! The files are included by path rather than through `mcp_server::EMBEDDED_CATALOGS`: that
//! would link the whole server (axum, rmcp, reqwest, lambda_http) into a function that needs
//! four YAML files' quota blocks, and cost build time on every change to the server. A test
//! keeps this list in step with the server's catalog folder.

use std::path::Path;

use catalog::{Catalog, LoadError};

use crate::policy::{Policy, PolicyError};

/// The mcp-server's catalog files, the default when no directory is configured.
pub const EMBEDDED_CATALOGS: &[(&str, &str)] = &[(
    "papierkram.yaml",
    include_str!("../../mcp-server/catalogs/papierkram.yaml"),
)];

/// Loads `dir`, or the embedded catalogs.
pub fn load(dir: Option<&Path>) -> Result<Vec<Catalog>, LoadError> {
    match dir {
        Some(dir) => catalog::load_dir(dir),
        None => catalog::load_sources(EMBEDDED_CATALOGS),
    }
}

/// Every connector with its quota policy (`None` without a quota declaration).
pub fn policies(catalogs: &[Catalog]) -> Result<Vec<(String, Option<Policy>)>, PolicyError> {
    catalogs
        .iter()
        .map(|c| Ok((c.connector.clone(), Policy::from_catalog(c)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_list_matches_the_server_catalog_folder() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-server/catalogs");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".yaml") || n.ends_with(".yml"))
            .collect();
        on_disk.sort();
        let embedded: Vec<&str> = EMBEDDED_CATALOGS.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            embedded, on_disk,
            "add the new catalog to EMBEDDED_CATALOGS"
        );
        for (name, text) in EMBEDDED_CATALOGS {
            assert_eq!(*text, std::fs::read_to_string(dir.join(name)).unwrap());
        }
        let from_dir = load(Some(&dir)).unwrap();
        assert_eq!(from_dir, load(None).unwrap());
    }

    #[test]
    fn papierkram_quota_is_ten_thousand_a_berlin_month() {
        let all = policies(&load(None).unwrap()).unwrap();
        let (name, policy) = &all[0];
        assert_eq!(name, "papierkram");
        let p = policy.as_ref().unwrap();
        assert_eq!(p.limit, Some(10_000));
        assert_eq!((p.warn_percent, p.critical_percent), (80, 95));
        assert!(p.measurable);
        assert_eq!(p.window.as_ref().unwrap().describe(), "month Europe/Berlin");
    }
}
