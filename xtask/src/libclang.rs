//! Is there a libclang that bindgen can load? Answered the way bindgen's
//! loader (clang-sys 1.x, `build/common.rs` and `build/dynamic.rs`) looks
//! for it, so that a machine that would fail after minutes of building
//! BoringSSL fails here, at once, with the install command.
//!
//! clang-sys searches, in order: only `LIBCLANG_PATH` when it is set (a
//! directory, or the library file itself); else the `lib` and `bin`
//! folders of `llvm-config --prefix`, the folders of `LD_LIBRARY_PATH`
//! and the system globs in [`SYSTEM_DIRS`]. In each it takes any file
//! named `libclang.so`, `libclang-*.so`, `libclang.so.*` or
//! `libclang-*.so.*`. That pattern also takes `libclang-cpp.so.14`, which
//! LLVM installs without libclang and which bindgen then fails to use: we
//! accept only names that are libclang itself.

use std::env;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

/// clang-sys's `DIRECTORIES_LINUX`, searched when `LIBCLANG_PATH` is unset.
pub const SYSTEM_DIRS: &[&str] = &[
    "/usr/local/llvm*/lib*",
    "/usr/local/lib*/*/*",
    "/usr/local/lib*/*",
    "/usr/local/lib*",
    "/usr/lib*/*/*",
    "/usr/lib*/*",
    "/usr/lib*",
];

/// Where to look: the environment clang-sys reads, and a root that the
/// system globs are taken under (`/`, or a fake tree in tests).
#[derive(Debug, Clone, Default)]
pub struct Search {
    pub libclang_path: Option<PathBuf>,
    pub llvm_prefix: Option<PathBuf>,
    pub ld_library_path: Vec<PathBuf>,
    pub root: PathBuf,
}

impl Search {
    pub fn from_env() -> Search {
        let llvm_config = env::var("LLVM_CONFIG_PATH").unwrap_or_else(|_| "llvm-config".into());
        let llvm_prefix = Command::new(llvm_config)
            .arg("--prefix")
            .output()
            .ok()
            .filter(|out| out.status.success())
            .and_then(|out| {
                let text = String::from_utf8_lossy(&out.stdout);
                text.lines().next().map(|l| PathBuf::from(l.trim()))
            });
        Search {
            libclang_path: env::var_os("LIBCLANG_PATH").map(PathBuf::from),
            llvm_prefix,
            ld_library_path: env::var_os("LD_LIBRARY_PATH")
                .map(|p| env::split_paths(&p).collect())
                .unwrap_or_default(),
            root: PathBuf::from("/"),
        }
    }
}

/// libclang itself: `libclang.so`, `libclang.so.1`, `libclang-14.so`,
/// `libclang-14.so.1`; not `libclang-cpp.so.14` nor static archives.
pub fn is_libclang(name: &str) -> bool {
    if name == "libclang.so" || name.starts_with("libclang.so.") {
        return true;
    }
    name.strip_prefix("libclang-").is_some_and(|rest| {
        rest.starts_with(|c: char| c.is_ascii_digit())
            && (rest.ends_with(".so") || rest.contains(".so."))
    })
}

/// The libclang bindgen would load, or why there is none.
pub fn find(search: &Search) -> Result<PathBuf, String> {
    if let Some(path) = &search.libclang_path {
        // clang-sys: a path to the file itself, or a directory to search.
        if path.is_file() {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            return match name {
                Some(n) if is_libclang(&n) => Ok(path.clone()),
                _ => Err(format!(
                    "LIBCLANG_PATH={} is not a libclang library",
                    path.display()
                )),
            };
        }
        return in_dir(path).ok_or_else(|| {
            format!(
                "LIBCLANG_PATH={} holds no libclang (bindgen looks only there when it is \
                 set): unset it, or point it at the folder of libclang.so",
                path.display()
            )
        });
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(prefix) = &search.llvm_prefix {
        dirs.push(prefix.join("bin"));
        dirs.push(prefix.join("lib"));
    }
    dirs.extend(search.ld_library_path.iter().cloned());
    for pattern in SYSTEM_DIRS {
        let rooted = search.root.join(pattern.trim_start_matches('/'));
        if let Ok(paths) = glob::glob(&rooted.to_string_lossy()) {
            dirs.extend(paths.flatten().filter(|p| p.is_dir()));
        }
    }
    dirs.iter()
        .find_map(|d| in_dir(d))
        .ok_or_else(|| "no libclang.so, libclang-N.so or libclang.so.N where bindgen looks".into())
}

fn in_dir(dir: &Path) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| is_libclang(&e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A fresh fake root with the given files (empty; a name ending in `/`
    /// is a folder).
    fn tree(name: &str, files: &[&str]) -> PathBuf {
        let root = env::temp_dir().join(format!("xtask-libclang-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for f in files {
            let path = root.join(f.trim_start_matches('/'));
            if f.ends_with('/') {
                fs::create_dir_all(&path).unwrap();
            } else {
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(&path, b"").unwrap();
            }
        }
        fs::create_dir_all(&root).unwrap();
        root
    }

    fn search(root: &Path) -> Search {
        Search {
            root: root.to_path_buf(),
            ..Search::default()
        }
    }

    #[test]
    fn names() {
        for yes in [
            "libclang.so",
            "libclang.so.1",
            "libclang-14.so",
            "libclang-14.so.1",
            "libclang-14.0.6.so",
        ] {
            assert!(is_libclang(yes), "{yes}");
        }
        for no in [
            "libclang-cpp.so.14",
            "libclang-cpp.so",
            "libclangAST.a",
            "libclang.a",
            "libclang-14.a",
            "libclang_rt.so",
        ] {
            assert!(!is_libclang(no), "{no}");
        }
    }

    /// The machine of the report: LLVM's C++ library installed, libclang
    /// not.
    #[test]
    fn libclang_cpp_alone_is_not_enough() {
        let root = tree(
            "cpp-only",
            &[
                "/usr/lib/x86_64-linux-gnu/libclang-cpp.so.14",
                "/usr/lib/llvm-14/lib/libclang-cpp.so.14",
                "/usr/lib/llvm-14/lib/libclangAST.a",
            ],
        );
        assert!(find(&search(&root)).is_err());
    }

    #[test]
    fn finds_libclang_where_clang_sys_looks() {
        for (name, file) in [
            ("debian", "/usr/lib/x86_64-linux-gnu/libclang-14.so.1"),
            ("llvm-dir", "/usr/lib/llvm-17/lib/libclang.so.1"),
            ("fedora", "/usr/lib64/libclang.so.17"),
            ("local", "/usr/local/llvm18/lib/libclang.so"),
        ] {
            let root = tree(
                name,
                &[file, "/usr/lib/x86_64-linux-gnu/libclang-cpp.so.14"],
            );
            let found = find(&search(&root)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                found.ends_with(file.trim_start_matches('/')),
                "{name}: {found:?}"
            );
        }
    }

    /// Deeper than clang-sys's globs reach: not found by bindgen either.
    #[test]
    fn too_deep_is_not_found() {
        let root = tree("deep", &["/usr/lib/a/b/c/libclang.so"]);
        assert!(find(&search(&root)).is_err());
    }

    /// With LIBCLANG_PATH set, clang-sys looks nowhere else.
    #[test]
    fn libclang_path_is_exclusive() {
        let root = tree(
            "env",
            &[
                "/usr/lib/llvm-14/lib/libclang.so.1",
                "/opt/empty/",
                "/opt/llvm/libclang.so",
            ],
        );
        let mut s = search(&root);
        s.libclang_path = Some(root.join("opt/empty"));
        let err = find(&s).unwrap_err();
        assert!(err.contains("LIBCLANG_PATH"), "{err}");
        s.libclang_path = Some(root.join("opt/llvm"));
        assert!(find(&s).is_ok());
        s.libclang_path = Some(root.join("opt/llvm/libclang.so"));
        assert!(find(&s).is_ok());
    }

    #[test]
    fn ld_library_path_and_llvm_config_count() {
        let root = tree("ld", &["/opt/a/libclang-15.so", "/opt/b/lib/libclang.so.1"]);
        let mut s = search(&root);
        assert!(find(&s).is_err());
        s.ld_library_path = vec![root.join("opt/a")];
        assert!(find(&s).is_ok());
        s.ld_library_path.clear();
        s.llvm_prefix = Some(root.join("opt/b"));
        assert!(find(&s).is_ok());
    }
}
