//! `mcp-server import openapi SPEC --connector NAME [--out FILE]`: drafts a catalog from an
//! OpenAPI document with `openapi-import` and prints its report. The draft is written to a
//! temporary file beside `--out` and renamed into place, so a failed import never leaves a
//! half-written catalog. An existing `--out` is the curated catalog: it is compared with the
//! document and never overwritten. Only with the `import` feature (not in the Lambda zip).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
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
pub fn run(args: &ImportArgs) -> anyhow::Result<()> {
    let mut options = Options::new(&args.connector);
    options.slice = args.slice.clone();
    options.max_tools = args.max_tools;
    let size = std::fs::metadata(&args.spec)
        .with_context(|| format!("cannot read {}", args.spec.display()))?
        .len();
    if size > options.limits.max_bytes as u64 {
        bail!(
            "{}: {size} bytes, over the import limit of {} bytes; import a slice of a smaller document",
            args.spec.display(),
            options.limits.max_bytes
        );
    }
    let text = std::fs::read_to_string(&args.spec)
        .with_context(|| format!("cannot read {}", args.spec.display()))?;
    let place = |e: openapi_import::ImportError| anyhow::anyhow!("{}: {e}", args.spec.display());
    if args.out.exists() {
        let shown = args.out.display().to_string();
        let curated_text =
            std::fs::read_to_string(&args.out).with_context(|| format!("cannot read {shown}"))?;
        let curated = catalog::parse(&shown, &curated_text)?;
        let changes = openapi_import::reimport(&text, &curated, &options).map_err(place)?;
        return emit(
            args.report.as_deref(),
            &format!("{changes}\n{shown} exists: compared with it, not overwritten.\n"),
        );
    }
    let draft = openapi_import::import(&text, &options).map_err(place)?;
    let yaml = draft.to_yaml().map_err(place)?;
    write_whole(&args.out, &yaml)?;
    emit(
        args.report.as_deref(),
        &format!("{}\nwrote {}\n", draft.report, args.out.display()),
    )
}

/// The report to its file, or stdout (it is this command's output).
fn emit(file: Option<&Path>, text: &str) -> anyhow::Result<()> {
    match file {
        Some(path) => write_whole(path, text),
        None => Ok(std::io::stdout().write_all(text.as_bytes())?),
    }
}

/// Writes `text` to a temporary file in the target's directory, then renames it over `path`:
/// readers see the old file or the whole new one, never a part.
fn write_whole(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .with_context(|| format!("{} names no file", path.display()))?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| -> anyhow::Result<()> {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("cannot write {}", path.display()))
}
