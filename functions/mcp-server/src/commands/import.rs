//! `mcp-server import openapi SPEC --connector NAME [--out FILE]`: drafts a catalog from an
//! OpenAPI document with `openapi-import` and prints its report. Files go through
//! `openapi-import`'s careful reading (regular files only, within the size limit) and writing
//! (a temporary file created exclusively beside `--out`, renamed into place), so a failed
//! import never leaves a half-written catalog. An existing `--out` is the curated catalog: it
//! is compared with the document and never overwritten. Only with the `import` feature (not
//! in the Lambda zip).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use openapi_import::{Options, Slice};

/// What `import openapi` was asked to do.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportArgs {
    /// The OpenAPI document.
    pub spec: PathBuf,
    /// The connector name.
    pub connector: String,
    /// The draft's file (or, when it exists, the curated catalog to compare with).
    pub out: PathBuf,
    /// Where the report goes; stdout when unset.
    pub report: Option<PathBuf>,
    /// Which operations.
    pub slice: Slice,
    /// Most tools in the draft.
    pub max_tools: usize,
}

/// Runs the import (or the re-import, when `out` exists).
pub(crate) fn run(args: &ImportArgs) -> anyhow::Result<()> {
    let mut options = Options::new(&args.connector);
    options.slice = args.slice.clone();
    options.max_tools = args.max_tools;
    let text = openapi_import::read_document(&args.spec, options.limits.max_bytes)?;
    let place = |e: openapi_import::ImportError| anyhow::anyhow!("{}: {e}", args.spec.display());
    if args.out.exists() {
        let shown = args.out.display().to_string();
        let curated_text = openapi_import::read_document(&args.out, options.limits.max_bytes)?;
        let curated = catalog::parse(&shown, &curated_text)?;
        let changes = openapi_import::reimport(&text, &curated, &options).map_err(place)?;
        return emit(
            args.report.as_deref(),
            &format!("{changes}\n{shown} exists: compared with it, not overwritten.\n"),
        );
    }
    let draft = openapi_import::import(&text, &options).map_err(place)?;
    let yaml = draft.to_yaml().map_err(place)?;
    openapi_import::write_whole(&args.out, &yaml)?;
    emit(
        args.report.as_deref(),
        &format!("{}\nwrote {}\n", draft.report, args.out.display()),
    )
}

/// The report to its file, or stdout (it is this command's output).
fn emit(file: Option<&Path>, text: &str) -> anyhow::Result<()> {
    match file {
        Some(path) => Ok(openapi_import::write_whole(path, text)?),
        None => Ok(std::io::stdout().write_all(text.as_bytes())?),
    }
}
