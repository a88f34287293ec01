//! `cargo xtask ...`: project tasks that cargo alone cannot express.
//!
//! - `vendor`: fetch quiche 0.30.0 from the registry through cargo, unpack it
//!   into `vendor/quiche` (ignored by git) and apply `patches/quiche/*.patch`.
//! - `demo`: the main job: Vegas, NewReno and CUBIC over the paper's Fig. 6
//!   bottleneck in virtual time, as a table.
//! - `test`: every test of the workspace.
//! - `fuzz`: the controllers' property tests as a soak (`fuzz.rs`).
//! - `certs`: test certificates for the HTTP/3 examples and interop peers
//!   (`examples/certs/`: a CA and a CA:FALSE leaf for localhost, 127.0.0.1).
//! - `interop`: our HTTP/3 examples against aioquic, quic-go and ngtcp2
//!   (installed from the package registries, driven by `interop/peers/`),
//!   through the link emulator (see `interop.rs`).
//!
//! The root manifest's `[patch.crates-io]` points at `vendor/quiche`, so every
//! command that builds the workspace vendors first (a no-op when up to date).

use std::env;
use std::fs;
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::ExitCode;

mod certs;
mod coexist;
mod downstream;
mod fuzz;
mod interop;
mod lab_runs;
mod libclang;
mod load;
mod quiche_tests;
mod scale;
mod traces;

const QUICHE_VERSION: &str = "0.30.0";
const INSTALL_HINT: &str = "apt-get install -y libclang-dev cmake g++";

type Result<T> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let (cmd, rest) = match args.split_first() {
        Some((c, r)) => (c.as_str(), r),
        None => ("help", &[][..]),
    };
    let result = match cmd {
        "vendor" => vendor_cmd(rest),
        "vendor-diff" => vendor_diff(rest),
        "demo" => vendor().and_then(|_| demo(rest)),
        "test" => vendor().and_then(|_| test(rest)),
        "bench" => vendor().and_then(|_| bench(rest)),
        "reproduce" => vendor().and_then(|_| reproduce(rest)),
        "fuzz" => vendor().and_then(|_| fuzz::run_fuzz(rest)),
        "downstream" => vendor().and_then(|_| downstream::run(&root())),
        "certs" => certs::run(&root(), rest),
        "interop" => vendor().and_then(|_| interop::run(&root(), rest)),
        "load" => vendor().and_then(|_| load::run(&root(), rest)),
        "docs" => docs(),
        "quiche-tests" => quiche_tests::run(&root(), rest),
        "help" | "--help" | "-h" => {
            print_help();
            Ok(())
        }
        other => Err(format!("unknown command `{other}`; run `cargo xtask help`")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn print_help() {
    println!(
        "cargo xtask <command>\n\n\
         commands:\n  \
         vendor [--into DIR]   fetch quiche {QUICHE_VERSION} and apply patches/quiche/*.patch into\n           \
         vendor/quiche, or into DIR of your own project (prints the Cargo.toml lines)\n  \
         vendor-diff DIR   print the patch that turns pristine quiche {QUICHE_VERSION} into DIR\n  \
         demo     run the demo scenario once per algorithm and print the table\n  \
         test     every test: the workspace's, the xtask's, the README's out-of-tree projects\n  \
         downstream   only the README's out-of-tree projects (part of `test`)\n  \
         fuzz [--minutes N]   property tests of every controller variant as a soak (default 10 min)\n  \
         quiche-tests [--last]   quiche's own unit tests after each patch of the series (with the\n           \
         Cargo.lock quiche ships; --last: only after all of them), about 5 minutes per patch\n  \
         docs     write the parameter tables of README.md (user tier) and docs/parameters.md\n           \
         (every key) from vegas_cc::spec's table (a test fails when they are stale)\n  \
         bench    criterion benchmarks (simulator speed, per-ACK cost)\n  \
         bench --scale [--quick] [--rates-mbit 10,100,1000] [--rtts-ms 10,40,200]\n           \
         [--buffers-bdp 0.5,1,4] [--algorithms vegas,vegas-a,gallop-vegas,cubic,bbr2]\n           \
         [--no-ten-flows]   the simulator from 10 Mbit/s to 1 Gbit/s, one flow per cell,\n           \
         then ten flows sharing 100 Mbit/s: target/bench/scale.md and scale.json\n  \
         bench --traces DIR [--delays-ms 20,50] [--buffers 100,4bdp] [--schemes a,b] [--seconds S] [--jobs N]\n           \
         every scheme on each mahimahi trace pair NAME.down/NAME.up in DIR, in the simulator:\n           \
         throughput against delay, docs/real-links.md (other grids: target/bench-traces/REPORT.md)\n  \
         reproduce [NAME...] [--jobs N]   re-run the papers' experiments (scenarios/papers, one file per\n           \
         table or figure) over their seeds: docs/reproduction.md (with NAMEs: target/reproduction-partial.md)\n  \
         certs [--out DIR]   write a test CA and a leaf certificate (default examples/certs)\n  \
         load [--cc vegas,vegas-a,cubic] [--connections 200] [--kill-every 10] [--stall-s 10]   N concurrent h3-clients per algorithm against one h3-server on 127.0.0.1, every Kth killed mid-transfer: target/load/load.md, load.json\n  \
         interop [--peers quiche-vegas,aioquic,quic-go,ngtcp2] [--algorithms a,b] [--mbytes N]\n           \
         [--shared vegas:cubic,vegas-compat:reno] [--shared-mbytes N] [--quick]\n           \
         [--stacks-only | --no-stacks] [--stacks-links 20/20,50/80] [--stacks-seconds S] [--stacks-reps N]\n           \
         our h3 server (each Vegas-family algorithm) and client against aioquic (PyPI),\n           \
         quic-go (Go modules) and ngtcp2 (apt) through the link emulator, installed\n           \
         into target/interop when missing; the matrix, then a Vegas flow against an\n           \
         ngtcp2 CUBIC/Reno flow on one bottleneck (shares over a common window), then\n           \
         Vegas and CUBIC on quiche and on quinn through the same links;\n           \
         writes target/interop/REPORT.md and report.json\n"
    );
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the project root")
        .to_path_buf()
}

fn cargo() -> Command {
    let mut c = Command::new(env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

fn run(mut cmd: Command) -> Result<()> {
    let shown = format!("{cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("could not start {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed with {status}"))
    }
}

/// quiche builds BoringSSL (cmake, a C++ compiler) and generates its
/// bindings with bindgen (libclang).
fn check_build_tools() -> Result<()> {
    let mut missing = Vec::new();
    if !on_path("cmake") {
        missing.push("cmake");
    }
    if !["c++", "g++", "clang++"].iter().any(|c| on_path(c)) {
        missing.push("a C++ compiler (g++)");
    }
    let libclang = libclang::find(&libclang::Search::from_env());
    if libclang.is_err() {
        missing.push("libclang");
    }
    if missing.is_empty() {
        return Ok(());
    }
    let mut message = format!(
        "quiche needs {} to build BoringSSL; install with:\n    {INSTALL_HINT}",
        missing.join(", ")
    );
    if let Err(why) = libclang {
        message.push_str(&format!("\n(libclang: {why})"));
    }
    Err(message)
}

fn on_path(program: &str) -> bool {
    env::var_os("PATH")
        .map(|paths| env::split_paths(&paths).any(|d| d.join(program).is_file()))
        .unwrap_or(false)
}

/// The patches only our simulator needs (quiche's clock hook and seeded
/// randomness): `cargo xtask vendor --into` leaves them out of a user's
/// project; `quiche-vegas` does not use them (only the lab, `vegas-lab`,
/// does).
const SIMULATOR_ONLY_PATCHES: [&str; 1] = ["0006-clock-hook.patch"];

/// The patches a downstream user needs: every patch but the simulator's.
fn user_patches() -> Result<Vec<PathBuf>> {
    Ok(patches()?
        .into_iter()
        .filter(|p| {
            !SIMULATOR_ONLY_PATCHES
                .iter()
                .any(|name| p.file_name().is_some_and(|f| f == *name))
        })
        .collect())
}

/// Every patch of the series, in name order (the order it applies in).
fn patches() -> Result<Vec<PathBuf>> {
    let dir = root().join("patches/quiche");
    let mut list: Vec<PathBuf> = fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "patch"))
        .collect();
    list.sort();
    if list.is_empty() {
        return Err(format!("no *.patch in {}", dir.display()));
    }
    Ok(list)
}

/// Fetches quiche through cargo and returns the unpacked registry source.
fn fetch_quiche() -> Result<PathBuf> {
    let dir = root().join("target/xtask/quiche-fetch");
    fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
    fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"quiche-fetch\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
             [workspace]\n[dependencies]\nquiche = \"={QUICHE_VERSION}\"\n"
        ),
    )
    .map_err(|e| e.to_string())?;
    fs::write(dir.join("src/lib.rs"), "").map_err(|e| e.to_string())?;
    let mut meta = cargo();
    meta.current_dir(&dir)
        .args(["metadata", "--format-version", "1", "--manifest-path"]);
    meta.arg(dir.join("Cargo.toml"));
    let out = meta
        .output()
        .map_err(|e| format!("could not run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo could not fetch quiche {QUICHE_VERSION}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let json = String::from_utf8_lossy(&out.stdout);
    // Find `"manifest_path":"<...>/quiche-0.30.0/Cargo.toml"` without a JSON
    // dependency: registry paths contain no quotes.
    let needle = format!("quiche-{QUICHE_VERSION}");
    json.split("\"manifest_path\":\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .find(|p| p.contains(&needle) && p.ends_with("Cargo.toml"))
        .map(|p| PathBuf::from(p).parent().unwrap().to_path_buf())
        .ok_or_else(|| format!("cargo metadata did not list quiche {QUICHE_VERSION}"))
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let target = to.join(entry.file_name());
        if entry.file_type().map_err(|e| e.to_string())?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target).map_err(|e| format!("{}: {e}", target.display()))?;
        }
    }
    Ok(())
}

/// Vendors and patches quiche into `vendor/quiche`; a no-op when it
/// already holds exactly these patches.
fn vendor() -> Result<PathBuf> {
    vendor_into(&root().join("vendor/quiche"), &patches()?)
}

/// `cargo xtask vendor [--into DIR]`: into our `vendor/quiche`, or into a
/// user's project (then it prints the manifest lines that use it).
fn vendor_cmd(args: &[String]) -> Result<()> {
    let into = match args {
        [] => None,
        [flag, dir] if flag == "--into" => Some(dir),
        _ => return Err("usage: cargo xtask vendor [--into DIR]".into()),
    };
    let Some(dir) = into else {
        return vendor().map(|_| ());
    };
    // Relative to where the user ran the command, not to our checkout.
    let dest = env::current_dir()
        .map_err(|e| format!("current folder: {e}"))?
        .join(dir);
    let dest = vendor_into(&dest, &user_patches()?)?;
    let dest = fs::canonicalize(&dest).unwrap_or(dest);
    let shown = dest.display().to_string();
    println!(
        "patched quiche {QUICHE_VERSION} is in {shown}\n\n\
         Add to your project's root Cargo.toml (path relative to it, or absolute):\n\n\
         [dependencies]\n\
         quiche = \"={QUICHE_VERSION}\"\n\
         quiche-vegas = {{ path = \"{}\" }}\n\n\
         [patch.crates-io]\n\
         quiche = {{ path = \"{shown}\" }}",
        root().display()
    );
    Ok(())
}

/// Vendors quiche into `dest` with `patch_files` applied; a no-op when it
/// already holds exactly these patches. Refuses to replace a folder that
/// is not a quiche vendored by this command.
fn vendor_into(dest: &Path, patch_files: &[PathBuf]) -> Result<PathBuf> {
    let mut stamp = String::new();
    for p in patch_files {
        stamp.push_str(&fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?);
    }
    let stamp_file = dest.join(".quiche-vegas-patches");
    if fs::read_to_string(&stamp_file).ok().as_deref() == Some(stamp.as_str()) {
        return Ok(dest.to_path_buf());
    }
    let ours = stamp_file.is_file();
    let empty = fs::read_dir(dest)
        .map(|mut d| d.next().is_none())
        .unwrap_or(true);
    if !ours && !empty {
        return Err(format!(
            "{} exists and is not a quiche vendored by `cargo xtask vendor`; \
             name a new or empty folder",
            dest.display()
        ));
    }
    check_build_tools()?;
    eprintln!(
        "xtask: vendoring quiche {QUICHE_VERSION} with {} patch(es) into {}",
        patch_files.len(),
        dest.display()
    );
    let source = fetch_quiche()?;
    let parent = dest
        .parent()
        .ok_or_else(|| format!("{}: no parent folder", dest.display()))?;
    fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let staging = parent.join(".quiche-staging");
    let _ = fs::remove_dir_all(&staging);
    copy_dir(&source, &staging)?;
    for p in patch_files {
        apply_patch(&staging, p)?;
    }
    fs::write(staging.join(".quiche-vegas-patches"), &stamp).map_err(|e| e.to_string())?;
    let _ = fs::remove_dir_all(dest);
    fs::rename(&staging, dest).map_err(|e| format!("{}: {e}", dest.display()))?;
    eprintln!("xtask: patched quiche is in {}", dest.display());
    Ok(dest.to_path_buf())
}

/// Prints the `-p1` patch from pristine quiche to the edited copy `DIR`.
fn vendor_diff(args: &[String]) -> Result<()> {
    let [edited] = args else {
        return Err("usage: cargo xtask vendor-diff DIR".into());
    };
    let work = root().join("target/xtask/diff");
    let _ = fs::remove_dir_all(&work);
    copy_dir(&fetch_quiche()?, &work.join("a"))?;
    copy_dir(Path::new(edited), &work.join("b"))?;
    let _ = fs::remove_file(work.join("b/.quiche-vegas-patches"));
    let out = Command::new("git")
        .current_dir(&work)
        .args([
            "diff",
            "--no-index",
            "--src-prefix=",
            "--dst-prefix=",
            "a",
            "b",
        ])
        .output()
        .map_err(|e| format!("could not run git diff: {e}"))?;
    // git diff --no-index exits 1 when the trees differ.
    if out.status.code() != Some(1) && !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    print!("{}", String::from_utf8_lossy(&out.stdout));
    Ok(())
}

/// Applies one `-p1` patch inside `dir` with `git apply`, and checks that
/// every file it names was touched.
fn apply_patch(dir: &Path, patch: &Path) -> Result<()> {
    let mut apply = Command::new("git");
    apply
        .current_dir(dir)
        // Inside a git checkout `git apply` resolves paths from the
        // repository root and silently skips the ones outside the current
        // folder: stop repository discovery at `dir`'s parent.
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap_or(dir))
        .args(["apply", "-p1", "--whitespace=nowarn", "--verbose"])
        .arg(patch);
    let out = apply
        .output()
        .map_err(|e| format!("could not run git apply: {e}"))?;
    let log = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!(
            "patch {} does not apply to quiche {QUICHE_VERSION}:\n{log}",
            patch.display()
        ));
    }
    let text = fs::read_to_string(patch).map_err(|e| e.to_string())?;
    let named = text.lines().filter(|l| l.starts_with("+++ b/")).count();
    let applied = log
        .lines()
        .filter(|l| l.starts_with("Applied patch"))
        .count();
    if named == 0 || applied != named {
        return Err(format!(
            "patch {}: {applied} of {named} files applied:\n{log}",
            patch.display()
        ));
    }
    Ok(())
}

fn bench(args: &[String]) -> Result<()> {
    if args.iter().any(|a| a == "--scale") {
        return scale::run(args);
    }
    if args.iter().any(|a| a == "--coexist") {
        return coexist::run(args);
    }
    if args.iter().any(|a| a == "--traces") {
        return traces::run(args);
    }
    if args.iter().any(|a| a == "--real") {
        let lab = build_lab()?;
        return interop::bench_real(&root(), args, &lab);
    }
    let mut c = cargo();
    c.args(["bench", "-p", "quiche-vegas", "-p", "vegas-lab"]);
    c.args(args);
    run(c)
}

/// `cargo xtask docs`: the parameter tables, from `vegas_cc::spec`'s one
/// table of keys (`tests/parameter_docs.rs` checks they are current).
fn docs() -> Result<()> {
    use vegas_cc::spec::keys_markdown;
    use vegas_cc::spec::Tier;
    let root = root();
    write_generated_section(
        &root.join("README.md"),
        "docs",
        &keys_markdown(Some(Tier::User)),
    )?;
    write_generated_section(
        &root.join("docs/parameters.md"),
        "docs",
        &keys_markdown(None),
    )?;
    println!("xtask: wrote the parameter tables of README.md and docs/parameters.md");
    Ok(())
}

/// Writes `report` into `doc` between the markers of `cargo xtask
/// COMMAND` (`<!-- cargo xtask COMMAND: generated from here -->` and
/// `... up to here -->`), keeping what the file has outside them; a file
/// without the markers gets the section at its end.
fn write_generated_section(doc: &Path, command: &str, report: &str) -> Result<()> {
    let start = format!("<!-- cargo xtask {command}: generated from here -->");
    let end = format!("<!-- cargo xtask {command}: generated up to here -->");
    let old = std::fs::read_to_string(doc).unwrap_or_default();
    let section = format!("{start}\n\n{report}\n{end}");
    let new = match (old.find(&start), old.find(&end)) {
        (Some(a), Some(b)) if a < b => format!("{}{section}{}", &old[..a], &old[b + end.len()..]),
        _ => format!("{old}\n{section}\n"),
    };
    std::fs::write(doc, new).map_err(|e| format!("{}: {e}", doc.display()))
}

/// Builds `vegas-lab` (release) and returns its path.
fn build_lab() -> Result<PathBuf> {
    let mut build = cargo();
    build.args(["build", "--release", "--quiet", "-p", "vegas-lab"]);
    run(build)?;
    Ok(root().join("target/release/vegas-lab"))
}

/// `cargo xtask reproduce [NAME...] [--jobs N]`: every experiment of the
/// papers (`scenarios/papers/`, one file per table or figure) over its
/// seeds, in parallel; writes `docs/reproduction.md` with the trace graphs
/// of the figure-type experiments in `docs/reproduction/`, or with NAMEs
/// only those into `target/reproduction-partial.md` (and
/// `target/reproduction-partial/`): the committed report is always a whole
/// run. Either lists the experiments whose verdict changed since the
/// committed report.
fn reproduce(args: &[String]) -> Result<()> {
    let mut names = Vec::new();
    let mut jobs = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--jobs" => {
                let n = it.next().ok_or("--jobs needs a number")?;
                match n.parse::<usize>() {
                    Ok(j) if (1..=256).contains(&j) => jobs = Some(j),
                    _ => return Err(format!("--jobs: `{n}` is not a whole number from 1 to 256")),
                }
            }
            flag if flag.starts_with('-') => {
                return Err(format!(
                    "reproduce: unknown flag `{flag}`; allowed: NAME..., --jobs N"
                ))
            }
            name => names.push(name.to_string()),
        }
    }
    let lab = build_lab()?;
    let commit = Command::new("git")
        .args(["log", "-1", "--format=%h %s"])
        .current_dir(root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown (not a git checkout)".into());
    let (output, figures) = if names.is_empty() {
        (
            root().join("docs/reproduction.md"),
            root().join("docs/reproduction"),
        )
    } else {
        (
            root().join("target/reproduction-partial.md"),
            root().join("target/reproduction-partial"),
        )
    };
    let header = format!(
        "Written by `cargo xtask reproduce` at commit {commit}, release build of \
         `vegas-lab`; nothing in it is edited by hand. The scenario files under \
         `scenarios/papers/` hold the set-ups, the papers' numbers (transcribed from \
         the papers) and the choices made where a paper is ambiguous or TCP-specific."
    );
    // The folder holds only what this run draws (no figure of an
    // experiment since removed).
    if let Ok(entries) = std::fs::read_dir(&figures) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "svg") {
                std::fs::remove_file(&path)
                    .map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
            }
        }
    }
    let mut c = Command::new(&lab);
    c.current_dir(root())
        .args(["reproduce", "scenarios/papers", "--models", "--output"])
        .arg(&output)
        .arg("--figures")
        .arg(&figures)
        .args(["--header", &header]);
    if let Some(j) = jobs {
        c.args(["--jobs", &j.to_string()]);
    }
    for name in &names {
        c.args(["--only", name]);
    }
    // The committed report is the one the new one says what changed since.
    let previous = root().join("docs/reproduction.md");
    if previous.exists() {
        c.arg("--previous").arg(&previous);
    }
    run(c)?;
    println!("  -> {}", output.display());
    Ok(())
}

fn demo(args: &[String]) -> Result<()> {
    let mut c = cargo();
    c.args([
        "run",
        "--release",
        "--quiet",
        "-p",
        "vegas-lab",
        "--",
        "demo",
    ]);
    c.args(args);
    run(c)
}

fn test(args: &[String]) -> Result<()> {
    check_build_tools()?;
    let mut fmt = cargo();
    fmt.args(["fmt", "--all", "--check"]);
    run(fmt).map_err(|e| format!("{e}: run `cargo fmt --all`"))?;
    // Release, like the demo: one build of BoringSSL and quiche serves both,
    // and the virtual-time integration tests run fast.
    let mut c = cargo();
    c.args(["test", "--release", "--workspace", "--all-features"]);
    c.args(args);
    run(c)?;
    if !args.is_empty() {
        // A filtered run (`cargo xtask test NAME`) tests what it names.
        return Ok(());
    }
    // The xtask's own tests (its own workspace), then the README's
    // out-of-tree projects.
    let mut xtask = cargo();
    xtask.args([
        "test",
        "--release",
        "--quiet",
        "--manifest-path",
        "xtask/Cargo.toml",
    ]);
    run(xtask)?;
    downstream::run(&root())
}
