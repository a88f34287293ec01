//! Helpers the command lines of this workspace share (`vegas-link-emu`,
//! `vegas-lab`).

use std::path::Path;
use std::path::PathBuf;

/// Where `path` points, for comparing paths (an output that would
/// overwrite an input): resolved when it exists, else its folder resolved,
/// then its file name.
pub fn resolved_path(path: &Path) -> PathBuf {
    if let Ok(path) = std::fs::canonicalize(path) {
        return path;
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match (std::fs::canonicalize(folder), path.file_name()) {
        (Ok(folder), Some(name)) => folder.join(name),
        _ => path.to_path_buf(),
    }
}
