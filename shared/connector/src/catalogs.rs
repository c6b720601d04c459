//! The shipped catalogs: every `*.yaml` file in `catalogs/` beside this crate, compiled in.
//!
//! They are the default of every function when no catalog directory is configured (the server's
//! `MCP_CATALOG_DIR`, quota-alarm's `QUOTA_CATALOG_DIR`). The build script loads them with the
//! catalog crate's own loader (a catalog that does not load fails the build) and compiles in
//! each loaded model packed ([`catalog::pack`]) beside its YAML text: [`load`] unpacks them,
//! which costs a cold start a small fraction of parsing the YAML again (see `build.rs`), and the
//! model's strings ([`catalog::Text`]) are slices of the compiled-in string tables, not copies.

use std::path::Path;

use catalog::{Catalog, LoadError};

// `EMBEDDED_CATALOGS` (file name, YAML text) and `EMBEDDED_PACKED` (file name, the loaded model
// packed, its string table), both in file-name order, written by build.rs from `catalogs/`.
include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// The tools a hosted deployment of `papierkram.yaml` lists, one name a line (`#` comments):
/// what the post-deploy smoke check and the end-to-end tests compare `tools/list` with.
pub const PAPIERKRAM_ALLOWLIST: &str = include_str!("../catalogs/papierkram.allowlist");

/// Loads the catalogs in `dir`, or the embedded ones when `dir` is `None`.
pub fn load(dir: Option<&Path>) -> Result<Vec<Catalog>, LoadError> {
    match dir {
        Some(dir) => catalog::load_dir(dir),
        None => catalog::load_packed(EMBEDDED_PACKED),
    }
}

/// [`load`], each catalog with the file it came from: its path in `dir`, or `catalogs/<file>`
/// of this crate for an embedded one (what a refusal to serve a catalog names).
pub fn load_files(dir: Option<&Path>) -> Result<Vec<(String, Catalog)>, LoadError> {
    match dir {
        Some(dir) => Ok(catalog::load_dir_files(dir)?
            .into_iter()
            .map(|(file, c)| (file.display().to_string(), c))
            .collect()),
        None => {
            let catalogs = catalog::load_packed(EMBEDDED_PACKED)?;
            let files = EMBEDDED_PACKED
                .iter()
                .map(|(file, ..)| format!("shared/connector/catalogs/{file} (embedded)"));
            Ok(files.zip(catalogs).collect())
        }
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
            "build.rs embeds every YAML file of the folder"
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
        assert_eq!(
            names,
            [
                "calcom",
                "gsuite",
                "lexware",
                "m365",
                "papierkram",
                "replicate",
                "runway",
                "sevdesk",
                "whatsapp"
            ]
        );
    }

    #[test]
    fn each_catalog_comes_with_its_file() {
        let files: Vec<String> = load_files(None)
            .unwrap()
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        assert_eq!(files[0], "shared/connector/catalogs/calcom.yaml (embedded)");
        let from_dir = load_files(Some(&folder())).unwrap();
        assert!(
            from_dir[4].0.ends_with("catalogs/papierkram.yaml"),
            "{}",
            from_dir[4].0
        );
        assert_eq!(from_dir[4].1.connector, "papierkram");
    }

    #[test]
    fn a_missing_directory_is_a_load_error_naming_it() {
        let err = load(Some(Path::new("/nonexistent/catalogs"))).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/catalogs"), "{err}");
    }
}
