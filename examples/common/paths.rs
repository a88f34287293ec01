//! What the h3-server answers for a request's `:path`, decided without
//! touching the network: a file under the root, the synthetic `/bytes/N`
//! resource, or an error status.
//!
//! No request may reach outside the root: `..` segments (also written as
//! `%2e%2e`, `.%2E`, ...), encoded slashes and backslashes, NUL bytes and
//! paths not starting with `/` are refused with 400 before the file system
//! is asked; after that, the resolved file is canonicalized and must still
//! lie under the canonical root (a symbolic link pointing outside gives 404).

use std::path::Path;
use std::path::PathBuf;

/// The largest `/bytes/N` the server generates (1 GiB).
pub const MAX_SYNTHETIC_BYTES: u64 = 1 << 30;

/// The longest `:path` accepted (bytes).
pub const MAX_PATH_BYTES: usize = 4096;

/// What a request resolves to.
#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    /// A regular file under the root (canonical path).
    File(PathBuf),
    /// `/bytes/N`: N bytes generated on the fly.
    Synthetic { len_bytes: u64 },
    /// An error status with a short reason for the body.
    Error { status: u16, reason: &'static str },
}

/// Resolves a request's `:method` and `:path` against `root`.
pub fn resolve(root: &Path, method: Option<&[u8]>, raw_path: Option<&[u8]>) -> Target {
    match method {
        Some(b"GET") | Some(b"HEAD") => {}
        Some(_) => return error(405, "only GET and HEAD are served"),
        None => return error(400, "missing :method"),
    }
    let Some(raw_path) = raw_path else {
        return error(400, "missing :path");
    };
    let segments = match decode_segments(raw_path) {
        Ok(s) => s,
        Err(reason) => return error(400, reason),
    };
    if let [first, n] = segments.as_slice() {
        if first == "bytes" {
            return match n.parse::<u64>() {
                Ok(len_bytes) if len_bytes <= MAX_SYNTHETIC_BYTES => {
                    Target::Synthetic { len_bytes }
                }
                Ok(_) => error(400, "/bytes/N is limited to 1 GiB"),
                Err(_) => error(400, "/bytes/N needs a decimal byte count"),
            };
        }
    }
    resolve_file(root, &segments)
}

fn error(status: u16, reason: &'static str) -> Target {
    Target::Error { status, reason }
}

/// Splits a raw `:path` into decoded segments, refusing anything that
/// could name a file outside the root.
pub fn decode_segments(raw_path: &[u8]) -> Result<Vec<String>, &'static str> {
    if raw_path.len() > MAX_PATH_BYTES {
        return Err("path too long");
    }
    if raw_path.first() != Some(&b'/') {
        return Err("path must start with /");
    }
    // The query and fragment never name files.
    let end = raw_path
        .iter()
        .position(|&b| b == b'?' || b == b'#')
        .unwrap_or(raw_path.len());
    let mut segments = Vec::new();
    for raw_segment in raw_path[1..end].split(|&b| b == b'/') {
        let bytes = percent_decode(raw_segment)?;
        let segment = String::from_utf8(bytes).map_err(|_| "path is not UTF-8")?;
        if segment.contains(['/', '\\', '\0']) {
            return Err("encoded /, \\ or NUL in path");
        }
        if segment.contains(':') {
            // Drive letters and alternate data streams elsewhere; never a
            // file name we serve.
            return Err(": in path");
        }
        match segment.as_str() {
            "" | "." => {}
            ".." => return Err(".. in path"),
            _ => segments.push(segment),
        }
    }
    Ok(segments)
}

fn percent_decode(input: &[u8]) -> Result<Vec<u8>, &'static str> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        if input[i] == b'%' {
            let hex = input.get(i + 1..i + 3).ok_or("truncated %-escape")?;
            let text = std::str::from_utf8(hex).map_err(|_| "bad %-escape")?;
            let value = u8::from_str_radix(text, 16).map_err(|_| "bad %-escape")?;
            out.push(value);
            i += 3;
        } else {
            out.push(input[i]);
            i += 1;
        }
    }
    Ok(out)
}

fn resolve_file(root: &Path, segments: &[String]) -> Target {
    let Ok(canonical_root) = root.canonicalize() else {
        return error(404, "not found");
    };
    let mut path = canonical_root.clone();
    for s in segments {
        path.push(s);
    }
    if path.is_dir() {
        path.push("index.html");
    }
    match path.canonicalize() {
        Ok(real) if real.starts_with(&canonical_root) && real.is_file() => Target::File(real),
        _ => error(404, "not found"),
    }
}
