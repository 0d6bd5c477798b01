//! Zen conversion at scale (issue 31 item 18): `zen to-legacy` and
//! `zen from-legacy --into` on 9,000 packages, beside retoc's `to-legacy`
//! and `to-zen` when `PAKRAT_RETOC` names its binary.
//!
//! ```text
//! cargo bench -p pakrat --bench zen_scale [-- --runs N]
//! ```
//!
//! The test set (`docs/iostore.md`, "Side by side with retoc"): the UE 5.8
//! fixture packages (`zen to-legacy` of the Tagged Uncompressed container:
//! 90 packages, 193 files) copied 100 times under `Content/Fixtur00` ..
//! `Fixtur99`, with `/Game/Fixtures` replaced by a name of the same length
//! in every file, then packed with `zen from-legacy --ue-version 5.8
//! --into`: one container of 9,000 packages, `global.utoc` beside it.
//! `to-legacy` converts that container; `from-legacy` converts retoc's
//! `to-legacy` output of it when retoc is given (the UE 5.7 layout retoc
//! reads back), else pakrat's own (`--ue-version 5.8`).
//!
//! Every run writes into a new folder under `BENCH_DIR` (default: the temp
//! folder; give a tmpfs such as `/dev/shm` to leave the disk out), deleted
//! after the run, outside the timing. The tools run in turn, `--runs` times
//! (default 3); the report gives each run's wall time, CPU seconds (user +
//! system of the child, `getrusage`) and the 1-minute load average, and the
//! medians. `PAKRAT_BEFORE=/path/to/pakrat` adds an older build as a third
//! tool. retoc, its output and these folders are never kept.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn corpus() -> PathBuf {
    std::env::var_os("PAKRAT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"))
}

/// User + system time of finished children.
fn child_cpu() -> Duration {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

fn load() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN)
}

/// A path as an argument.
fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// Run a command; it must exit 0, or 1 when `partial` (pakrat's exit code
/// when some packages are refused).
fn run(cmd: &mut Command, partial: bool) {
    let out = cmd.output().expect("run the tool");
    let ok = out.status.success() || (partial && out.status.code() == Some(1));
    assert!(
        ok,
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .take(5)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Copy every file of `from` to `to`, with `/Game/Fixtures` and the
/// `Fixtures` folder renamed `name` (8 characters).
fn copy_renamed(from: &Path, to: &Path, name: &str) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        let mut leaf = e.file_name().to_str().unwrap().to_string();
        if leaf == "Fixtures" {
            leaf = name.to_string();
        }
        let dst = to.join(&leaf);
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&dst).unwrap();
            copy_renamed(&p, &dst, name);
        } else {
            let data = std::fs::read(&p).unwrap();
            let new = format!("/Game/{name}");
            let mut out = Vec::with_capacity(data.len());
            let mut i = 0;
            while i < data.len() {
                if data[i..].starts_with(b"/Game/Fixtures") {
                    out.extend_from_slice(new.as_bytes());
                    i += new.len();
                } else {
                    out.push(data[i]);
                    i += 1;
                }
            }
            std::fs::write(&dst, out).unwrap();
        }
    }
}

/// The 9,000-package container (and `global.utoc`) in `root/set`, and the
/// legacy folder `from-legacy` reads in `root/legacy`.
fn make_set(bin: &Path, retoc: Option<&Path>, root: &Path) -> (PathBuf, PathBuf) {
    let c = corpus().join("iostore/cue4parse/UE5_8/IoStore/Tagged");
    let base = root.join("base");
    run(
        Command::new(bin).args([
            "zen",
            "to-legacy",
            "-q",
            "--ue-version",
            "5.8",
            "--global",
            &s(&c.join("global.utoc")),
            &s(&c.join("Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc")),
            "-o",
            &s(&base),
        ]),
        true,
    );
    let many = root.join("many");
    for i in 0..100 {
        copy_renamed(&base, &many, &format!("Fixtur{i:02}"));
    }
    std::fs::remove_dir_all(&base).unwrap();
    let set = root.join("set");
    std::fs::create_dir_all(&set).unwrap();
    let utoc = set.join("Set_P.utoc");
    run(
        Command::new(bin)
            .args(["zen", "from-legacy", "-q", "--ue-version", "5.8"])
            .arg(&many)
            .arg("--into")
            .arg(&utoc),
        false,
    );
    for ext in ["utoc", "ucas"] {
        std::fs::copy(
            c.join(format!("global.{ext}")),
            set.join(format!("global.{ext}")),
        )
        .unwrap();
    }
    let legacy = root.join("legacy");
    match retoc {
        Some(r) => {
            std::fs::remove_dir_all(&many).unwrap();
            run(
                Command::new(r).arg("to-legacy").arg(&set).arg(&legacy),
                false,
            );
        }
        None => std::fs::rename(&many, &legacy).unwrap(),
    }
    (utoc, legacy)
}

/// One tool's command for a step, writing into `out`.
fn command(tool: &Tool, step: Step, utoc: &Path, legacy: &Path, out: &Path, v: &str) -> Command {
    let set = utoc.parent().unwrap();
    let mut c = Command::new(&tool.bin);
    match (tool.retoc, step) {
        (true, Step::ToLegacy) => c.arg("to-legacy").arg(set).arg(out),
        (true, Step::FromLegacy) => c
            .args(["to-zen", "--version", "UE5_7"])
            .arg(legacy)
            .arg(out.join("X_P.utoc")),
        (false, Step::ToLegacy) => c
            .args(["zen", "to-legacy", "-q", "--ue-version", "5.8", "--global"])
            .arg(set.join("global.utoc"))
            .arg(utoc)
            .arg("-o")
            .arg(out),
        (false, Step::FromLegacy) => c
            .args(["zen", "from-legacy", "-q", "--ue-version", v])
            .arg(legacy)
            .arg("--into")
            .arg(out.join("X_P.utoc")),
    };
    c
}

#[derive(Clone, Copy, PartialEq)]
enum Step {
    ToLegacy,
    FromLegacy,
}

struct Tool {
    name: String,
    bin: PathBuf,
    retoc: bool,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(3);
    if !corpus().join("MANIFEST.tsv").is_file() {
        eprintln!("no corpus at {} (set PAKRAT_CORPUS)", corpus().display());
        std::process::exit(1);
    }
    let pakrat = PathBuf::from(env!("CARGO_BIN_EXE_pakrat"));
    let retoc = std::env::var_os("PAKRAT_RETOC").map(PathBuf::from);
    let mut tools = vec![Tool {
        name: "pakrat".into(),
        bin: pakrat.clone(),
        retoc: false,
    }];
    if let Some(b) = std::env::var_os("PAKRAT_BEFORE") {
        tools.push(Tool {
            name: "pakrat before".into(),
            bin: b.into(),
            retoc: false,
        });
    }
    if let Some(r) = &retoc {
        tools.push(Tool {
            name: "retoc".into(),
            bin: r.clone(),
            retoc: true,
        });
    }
    let dir = std::env::var_os("BENCH_DIR").map_or_else(std::env::temp_dir, PathBuf::from);
    let tmp = tempfile::tempdir_in(&dir).unwrap();
    eprintln!("making the 9,000-package set in {}", tmp.path().display());
    let (utoc, legacy) = make_set(&pakrat, retoc.as_deref(), tmp.path());
    let v = if retoc.is_some() { "5.7" } else { "5.8" };
    println!("step | tool | runs (wall s / CPU s / load) | median wall | median CPU");
    for (step, label) in [
        (Step::ToLegacy, "to-legacy"),
        (Step::FromLegacy, "from-legacy --into"),
    ] {
        let mut rows: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new(); tools.len()];
        for _ in 0..runs {
            for (t, row) in tools.iter().zip(rows.iter_mut()) {
                let out = tmp.path().join("out");
                std::fs::create_dir_all(&out).unwrap();
                let l = load();
                let c0 = child_cpu();
                let start = Instant::now();
                run(&mut command(t, step, &utoc, &legacy, &out, v), !t.retoc);
                let wall = start.elapsed().as_secs_f64();
                let cpu = (child_cpu() - c0).as_secs_f64();
                std::fs::remove_dir_all(&out).unwrap();
                row.push((wall, cpu, l));
            }
        }
        for (t, row) in tools.iter().zip(rows) {
            let each: Vec<String> = row
                .iter()
                .map(|(w, c, l)| format!("{w:.2}/{c:.2}/{l:.1}"))
                .collect();
            println!(
                "{label} | {} | {} | {:.2} s | {:.2} CPU-s",
                t.name,
                each.join(" "),
                median(row.iter().map(|r| r.0).collect()),
                median(row.iter().map(|r| r.1).collect()),
            );
        }
    }
}
