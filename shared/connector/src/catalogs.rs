//! The shipped catalogs: every `*.yaml` file in `catalogs/` beside this crate, compiled in.
//!
//! They are the default of every function when no catalog directory is configured (the server's
//! `MCP_CATALOG_DIR`, quota-alarm's `QUOTA_CATALOG_DIR`). A test keeps [`EMBEDDED_CATALOGS`] in
//! step with the folder, so a new file cannot be forgotten.

use std::path::Path;

use catalog::{Catalog, LoadError};

/// The shipped catalog files as `(file name, text)`, in file-name order.
pub const EMBEDDED_CATALOGS: &[(&str, &str)] = &[
    ("calcom.yaml", include_str!("../catalogs/calcom.yaml")),
    (
        "papierkram.yaml",
        include_str!("../catalogs/papierkram.yaml"),
    ),
    ("sevdesk.yaml", include_str!("../catalogs/sevdesk.yaml")),
];

/// The tools a hosted deployment of `papierkram.yaml` lists, one name a line (`#` comments):
/// what the post-deploy smoke check and the end-to-end tests compare `tools/list` with.
pub const PAPIERKRAM_ALLOWLIST: &str = include_str!("../catalogs/papierkram.allowlist");

/// Loads the catalogs in `dir`, or the embedded ones when `dir` is `None`.
pub fn load(dir: Option<&Path>) -> Result<Vec<Catalog>, LoadError> {
    match dir {
        Some(dir) => catalog::load_dir(dir),
        None => catalog::load_sources(EMBEDDED_CATALOGS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs")
    }

    #[test]
    fn embedded_catalogs_are_exactly_the_yaml_files_of_the_catalogs_folder() {
        let dir = folder();
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
        assert_eq!(
            PAPIERKRAM_ALLOWLIST,
            std::fs::read_to_string(dir.join("papierkram.allowlist")).unwrap()
        );
    }

    #[test]
    fn loading_the_folder_or_the_embedded_set_gives_the_same_catalogs() {
        let from_dir = load(Some(&folder())).unwrap();
        assert_eq!(from_dir, load(None).unwrap());
        let names: Vec<&str> = from_dir.iter().map(|c| c.connector.as_str()).collect();
        assert_eq!(names, ["calcom", "papierkram", "sevdesk"]);
    }

    #[test]
    fn a_missing_directory_is_a_load_error_naming_it() {
        let err = load(Some(Path::new("/nonexistent/catalogs"))).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/catalogs"), "{err}");
    }
}
