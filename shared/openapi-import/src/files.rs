//! The importer's only file system use, for `mcp-server import`: reading a document (or a
//! curated catalog) within the size limit, and writing a draft or report whole. A document
//! comes from wherever a person points, so what is not a regular file (`/dev/zero`, a FIFO, a
//! directory) is refused before it is opened, and reading stops one byte past the limit
//! whatever the file claims or grows to. A draft goes to a temporary file created exclusively
//! beside the output under an unguessable name, then renamed over it: a link planted at a
//! predictable name is never followed, and readers see the old file or the whole new one.

use std::fs::{File, OpenOptions};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

/// Why a file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Not a regular file: a device, FIFO, socket or directory could be endless or block.
    #[error("{path}: is {what}, not a regular file; point at a file")]
    NotAFile {
        /// The path as given.
        path: PathBuf,
        /// What it is, in words.
        what: &'static str,
    },
    /// Over the limit: stopped reading one byte past it.
    #[error("{path}: over the limit of {limit} bytes; import a slice of a smaller document")]
    TooLarge {
        /// The path as given.
        path: PathBuf,
        /// The limit in bytes.
        limit: usize,
    },
    /// Not UTF-8 text.
    #[error("{path}: not UTF-8 text")]
    NotText {
        /// The path as given.
        path: PathBuf,
    },
    /// The file system refused.
    #[error("{path}: cannot {action}: {source}")]
    Io {
        /// The path the step was on.
        path: PathBuf,
        /// The step, in words (`read`, `create a temporary file beside`).
        action: &'static str,
        /// The operating system's error.
        source: std::io::Error,
    },
}

fn io(path: &Path, action: &'static str) -> impl FnOnce(std::io::Error) -> FileError {
    let path = path.to_path_buf();
    move |source| FileError::Io {
        path,
        action,
        source,
    }
}

/// What a non-regular file is, in words.
fn kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if t.is_char_device() || t.is_block_device() {
            return Some("a device");
        }
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some(if t.is_dir() {
        "a directory"
    } else {
        "not a file"
    })
}

/// The text of the regular file at `path`, at most `limit` bytes. A device, FIFO, socket or
/// directory is refused before it is opened (opening a FIFO would wait for a writer), the
/// opened file is checked again, and reading stops one byte past the limit, so a file that
/// reports a small size (`/proc`) or grows while read cannot take more.
pub fn read_document(path: &Path, limit: usize) -> Result<String, FileError> {
    let refuse = |meta: &std::fs::Metadata| match kind(meta) {
        Some(what) => Err(FileError::NotAFile {
            path: path.to_path_buf(),
            what,
        }),
        None => Ok(()),
    };
    refuse(&std::fs::metadata(path).map_err(io(path, "read"))?)?;
    let file = File::open(path).map_err(io(path, "read"))?;
    refuse(&file.metadata().map_err(io(path, "read"))?)?;
    let mut bytes = Vec::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    file.take(cap)
        .read_to_end(&mut bytes)
        .map_err(io(path, "read"))?;
    if bytes.len() > limit {
        return Err(FileError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    String::from_utf8(bytes).map_err(|_| FileError::NotText {
        path: path.to_path_buf(),
    })
}

/// Writes `text` whole to `path`: to a new temporary file in the same directory (created
/// exclusively, named with 128 random bits, so nothing planted there is followed or
/// overwritten), synced, then renamed over `path`. On failure the temporary file is removed
/// and `path` is as it was.
pub fn write_whole(path: &Path, text: &str) -> Result<(), FileError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| FileError::NotAFile {
        path: path.to_path_buf(),
        what: "no file name",
    })?;
    let (tmp, mut file) = create_beside(dir, &name.to_string_lossy())?;
    let written = file
        .write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(io(&tmp, "write"))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(io(path, "replace")));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// A new file `.<name>.<32 hex digits>.tmp` in `dir`, created exclusively (`O_EXCL`: an
/// existing file or link of that name is an error, never followed); a collision, which only
/// a planted file could cause, tries another name.
fn create_beside(dir: &Path, name: &str) -> Result<(PathBuf, File), FileError> {
    let mut last = None;
    for _ in 0..8 {
        let mut random = [0u8; 16];
        getrandom::fill(&mut random).map_err(|e| FileError::Io {
            path: dir.to_path_buf(),
            action: "draw a random temporary name in",
            source: std::io::Error::other(e.to_string()),
        })?;
        let hex: String = random.iter().map(|b| format!("{b:02x}")).collect();
        let tmp = dir.join(format!(".{name}.{hex}.tmp"));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(io(&tmp, "create a temporary file")(e)),
        }
    }
    Err(FileError::Io {
        path: dir.to_path_buf(),
        action: "create a temporary file in",
        source: last.unwrap_or_else(|| std::io::Error::other("no free name")),
    })
}
