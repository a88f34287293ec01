//! The README's "Use it in your own project", tested: two crates of their
//! own, built out of tree by exactly the README's steps and run.
//!
//! - `downstream-quiche`: `cargo xtask vendor --into` its `vendor/quiche`,
//!   the README's `[dependencies]` and `[patch.crates-io]` lines, the one
//!   call on `quiche::Config`; an in-memory transfer with Vegas.
//! - `downstream-quinn`: quinn and quinn-vegas, no patch; a loopback
//!   transfer with Vegas.
//!
//! Their sources are `tests/downstream/*/src/main.rs`; the manifests are
//! written here, as the README shows them. Both build into our `target/`
//! with our `Cargo.lock` beside them, so cargo reuses what the workspace
//! already built (BoringSSL above all); only quiche, vendored at a new
//! path, is compiled again.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::Result;

/// The manifest of a quiche user's project, as the README shows it
/// (`checkout` is this repository). `[workspace]` only because the test
/// crate lives inside our checkout.
pub fn quiche_manifest(checkout: &Path) -> String {
    format!(
        "[package]\nname = \"downstream-quiche\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dependencies]\nquiche = \"={}\"\nquiche-vegas = {{ path = \"{}\" }}\n\n\
         [patch.crates-io]\nquiche = {{ path = \"vendor/quiche\" }}\n\n[workspace]\n",
        crate::QUICHE_VERSION,
        checkout.display()
    )
}

/// The manifest of a quinn user's project, as the README shows it.
pub fn quinn_manifest(checkout: &Path) -> String {
    format!(
        "[package]\nname = \"downstream-quinn\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dependencies]\n\
         quinn = {{ version = \"0.11\", default-features = false, features = [\"runtime-tokio\", \"rustls-ring\"] }}\n\
         quinn-vegas = {{ path = \"{}\" }}\n\
         rcgen = {{ version = \"0.14\", default-features = false, features = [\"crypto\", \"pem\", \"ring\"] }}\n\
         tokio = {{ version = \"1\", features = [\"rt-multi-thread\", \"macros\"] }}\n\n[workspace]\n",
        checkout.join("quinn").display()
    )
}

fn write_crate(root: &Path, name: &str, manifest: &str) -> Result<std::path::PathBuf> {
    let dir = root.join("target/downstream").join(name);
    let src = dir.join("src");
    fs::create_dir_all(&src).map_err(|e| format!("{}: {e}", src.display()))?;
    fs::write(dir.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    let main = root.join("tests/downstream").join(name).join("src/main.rs");
    fs::copy(&main, src.join("main.rs")).map_err(|e| format!("{}: {e}", main.display()))?;
    // Our lock, so that cargo picks the versions the workspace built.
    fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).map_err(|e| e.to_string())?;
    Ok(dir)
}

fn build_and_run(root: &Path, dir: &Path, bin: &str, args: &[&Path]) -> Result<()> {
    let mut build = crate::cargo();
    build
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target"));
    crate::run(build).map_err(|e| format!("the out-of-tree crate {bin} does not build: {e}"))?;
    let mut run = Command::new(root.join("target/release").join(bin));
    run.args(args).current_dir(dir);
    crate::run(run)
}

pub fn run(root: &Path) -> Result<()> {
    eprintln!("xtask: building the README's out-of-tree projects (target/downstream)");
    let dir = write_crate(root, "quiche-app", &quiche_manifest(root))?;
    crate::vendor_into(&dir.join("vendor/quiche"), &crate::user_patches()?)?;
    build_and_run(
        root,
        &dir,
        "downstream-quiche",
        &[
            &root.join("examples/certs/cert.pem"),
            &root.join("examples/certs/key.pem"),
        ],
    )?;
    let dir = write_crate(root, "quinn-app", &quinn_manifest(root))?;
    build_and_run(root, &dir, "downstream-quinn", &[])
}
