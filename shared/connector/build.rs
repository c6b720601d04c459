//! The shipped catalogs, loaded at build time. Every `*.yaml`/`*.yml` file of `catalogs/` is
//! parsed and validated here with the catalog crate's own loader (a catalog that does not load
//! fails the build with the loader's message), then packed ([`catalog::pack`]) into `OUT_DIR`:
//! the model (`<file>.packed`) and its string table (`<file>.strings`). `OUT_DIR/embedded.rs`
//! lists both forms: the YAML texts (`EMBEDDED_CATALOGS`, for tools and tests) and the packed
//! catalogs (`EMBEDDED_PACKED`, what a cold start unpacks). Unpacking costs a cold start a small
//! fraction of parsing the same catalogs' YAML (see `catalogs.rs`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rerun-if-changed=catalogs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    if let Err(problem) = run(Path::new("catalogs"), &out) {
        eprintln!("shared/connector/catalogs: {problem}");
        std::process::exit(1);
    }
}

fn run(dir: &Path, out: &Path) -> Result<(), String> {
    // The files the run-time loader would read from this folder, in its order.
    let names: Vec<String> = catalog::catalog_files(dir)
        .map_err(|e| e.to_string())?
        .iter()
        .filter_map(|file| file.file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .collect();
    let mut sources = Vec::with_capacity(names.len());
    for name in &names {
        let text = std::fs::read_to_string(dir.join(name)).map_err(|e| format!("{name}: {e}"))?;
        sources.push((name.as_str(), text));
    }
    let borrowed: Vec<(&str, &str)> = sources.iter().map(|(n, t)| (*n, t.as_str())).collect();
    // The same load as at run time from a folder: each file validated, names unique across them.
    let catalogs = catalog::load_sources(&borrowed).map_err(|e| e.to_string())?;

    let mut yaml = String::from(
        "/// The shipped catalog files as `(file name, YAML text)`, in file-name order.\n\
         pub const EMBEDDED_CATALOGS: &[(&str, &str)] = &[\n",
    );
    let mut packed = String::from(
        "/// The same catalogs as `(file name, packed model, string table)`, for [`load`].\n\
         const EMBEDDED_PACKED: &[(&str, &[u8], &str)] = &[\n",
    );
    for (name, catalog) in names.iter().zip(&catalogs) {
        let (model, strings) = catalog::pack(catalog).map_err(|e| format!("{name}: {e}"))?;
        for (file, bytes) in [
            ("packed", model.as_slice()),
            ("strings", strings.as_bytes()),
        ] {
            let file = format!("{name}.{file}");
            std::fs::write(out.join(&file), bytes).map_err(|e| format!("{file}: {e}"))?;
        }
        let _ = writeln!(
            yaml,
            "    ({name:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/catalogs/{name}\"))),"
        );
        let _ = writeln!(
            packed,
            "    ({name:?}, include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{name}.packed\")), \
             include_str!(concat!(env!(\"OUT_DIR\"), \"/{name}.strings\"))),"
        );
    }
    yaml.push_str("];\n");
    packed.push_str("];\n");
    std::fs::write(out.join("embedded.rs"), yaml + &packed).map_err(|e| format!("embedded.rs: {e}"))
}
