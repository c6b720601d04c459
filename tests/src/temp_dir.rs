//! A temporary directory for a test's files (catalogs, overlays), removed when dropped.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A directory removed when dropped.
pub struct TempDir {
    pub path: PathBuf,
}

impl TempDir {
    /// A fresh directory: unique in this process too, since every test of the `it` binary
    /// shares one process (two tests asking for `limits-catalogs` at once must not write into
    /// each other's).
    pub fn new(name: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir { path }
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
