//! Many-small-files extraction benchmark (issue 31 item 17; `--release`):
//!
//! ```text
//! cargo run --release -p pakrat-iostore --example extract_many_bench -- build DIR
//! cargo run --release -p pakrat-iostore --example extract_many_bench -- DIR [RUNS]
//! ```
//!
//! `build` writes `DIR/stored/Many_P.utoc` and `DIR/zlib/Many_P.utoc`: the
//! chunks of the UE 5.8 Tagged Uncompressed fixture, each package copied 100
//! times under `Fixtur00`..`Fixtur99` (new chunk ids, the same bytes), about
//! 11,000 chunks and 200 MB, as a game's containers hold them (mostly small
//! files in many folders). The second form extracts each container `RUNS`
//! times (default 3) into `BENCH_OUT` (default `DIR/out`, removed before and
//! after each run; put it on tmpfs, `/dev/shm/...`, to leave the disk out),
//! with the chunk hashes checked, in a fresh process each time, alternating
//! with `$PAKRAT extract -q` and `$RETOC unpack` when those variables name
//! binaries, and prints the median wall time and CPU-seconds (user + system
//! of the child) of each, with the load average at the start of each run.
//! The in-process rows use the library path of `pakrat extract`: a new
//! output folder is filled out of sight and published at the end
//! (`OutputDir::create_fresh`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use pakrat_codec::compress::Method;
use pakrat_codec::KeyRing;
use pakrat_iostore::extract::{chunk_file_name, extract, Job};
use pakrat_iostore::write::{chunks_of, options_of, write};
use pakrat_iostore::Container;

const COPIES: usize = 100;
const STEM: &str = "Many_P";

fn corpus() -> PathBuf {
    let root = std::env::var_os("PAKRAT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    root.join("iostore/cue4parse/UE5_8/IoStore/Tagged/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc")
}

/// Write the stored and Zlib containers under `dir`.
fn build(dir: &Path) {
    let src = Container::open(corpus(), &KeyRing::new()).expect("open the UE 5.8 fixture");
    let base = chunks_of(&src);
    let mut specs = Vec::new();
    for n in 0..COPIES {
        for s in &base {
            let mut s = s.clone();
            match &s.path {
                Some(p) => s.path = Some(p.replace("/Fixtures/", &format!("/Fixtur{n:02}/"))),
                None if n > 0 => continue, // the container header, once
                None => {}
            }
            // A new id per copy (the package id's high bytes).
            s.id.0[6] ^= n as u8;
            s.id.0[7] ^= 0x5a;
            specs.push(s);
        }
    }
    for (label, method) in [("stored", Method::None), ("zlib", Method::Zlib)] {
        let d = dir.join(label);
        std::fs::create_dir_all(&d).unwrap();
        let mut o = options_of(&src);
        o.compression = method;
        o.mount_point = None; // the common folder of the copies
        let ucas = d.join(format!("{STEM}.ucas"));
        let mut open =
            |_p: u32| std::fs::File::create(&ucas).map_err(|e| pakrat_io::Error::io(&ucas, e));
        let w = write(&specs, Some(&src), &o, &mut open, &|_| {}).expect("write");
        std::fs::write(d.join(format!("{STEM}.utoc")), &w.utoc).unwrap();
        println!(
            "{label}: {} chunks, {} bytes in, {} bytes in the .ucas",
            specs.len(),
            w.input_bytes,
            w.ucas_bytes
        );
    }
}

/// Child process: `pakrat extract` through the library.
fn worker(utoc: &str, out: &str) {
    let c = Container::open(utoc, &KeyRing::new()).unwrap();
    let jobs: Vec<Job> = c
        .chunks()
        .into_iter()
        .map(|x| Job {
            name: x.path.clone().unwrap_or_else(|| chunk_file_name(&x)),
            index: x.index,
            size: x.size,
        })
        .collect();
    let (jobs, _) = pakrat_iostore::extract::dedupe_jobs(jobs);
    let dir = pakrat_io::fsutil::OutputDir::create_fresh(out, false).unwrap();
    let s = extract(&c, &jobs, &dir, &|_| {});
    dir.publish().unwrap();
    assert!(s.errors.is_empty(), "{:?}", s.errors);
}

/// CPU seconds of the children waited for so far (`cutime + cstime`).
fn children_cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = s.rsplit_once(')').map(|x| x.1).unwrap_or("");
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    // After the command name: state is field 3, cutime 16, cstime 17.
    (f.get(13).unwrap_or(&0.0) + f.get(14).unwrap_or(&0.0)) / 100.0
}

fn load() -> String {
    let s = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    s.split_whitespace().next().unwrap_or("?").to_string()
}

/// Run `cmd` once into `out` (removed before and after): (wall, CPU-s).
fn time(mut cmd: Command, out: &Path) -> (f64, f64) {
    let _ = std::fs::remove_dir_all(out);
    let cpu0 = children_cpu();
    let t = Instant::now();
    let o = cmd.output().expect("run");
    let wall = t.elapsed().as_secs_f64();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cpu = children_cpu() - cpu0;
    let _ = std::fs::remove_dir_all(out);
    (wall, cpu)
}

/// A tool's name, wall times, CPU-seconds and loads, one per run.
type Row<'a> = (&'a str, Vec<f64>, Vec<f64>, Vec<String>);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("worker") => return worker(&args[2], &args[3]),
        Some("build") => return build(Path::new(&args[2])),
        Some(_) => {}
        None => panic!("usage: extract_many_bench build DIR | DIR [RUNS]"),
    }
    let dir = PathBuf::from(&args[1]);
    let runs: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let out = std::env::var_os("BENCH_OUT").map_or_else(|| dir.join("out"), PathBuf::from);
    let exe = std::env::current_exe().unwrap();
    let pakrat = std::env::var_os("PAKRAT");
    let retoc = std::env::var_os("RETOC");
    println!("| container | tool | wall s (median) | CPU-s (median) | load at start |");
    println!("|---|---|---|---|---|");
    for label in ["stored", "zlib"] {
        let utoc = dir.join(label).join(format!("{STEM}.utoc"));
        let mut rows: Vec<Row> = Vec::new();
        for _ in 0..runs {
            let mut cmds: Vec<(&str, Command)> = Vec::new();
            let mut c = Command::new(&exe);
            c.arg("worker").arg(&utoc).arg(&out);
            cmds.push(("library", c));
            if let Some(p) = &pakrat {
                let mut c = Command::new(p);
                c.args(["extract", "-q"]).arg(&utoc).arg("-o").arg(&out);
                cmds.push(("pakrat", c));
            }
            if let Some(r) = &retoc {
                let mut c = Command::new(r);
                c.arg("unpack").arg(&utoc).arg(&out);
                cmds.push(("retoc", c));
            }
            for (k, (name, cmd)) in cmds.into_iter().enumerate() {
                let l = load();
                let (w, cpu) = time(cmd, &out);
                if rows.len() <= k {
                    rows.push((name, Vec::new(), Vec::new(), Vec::new()));
                }
                rows[k].1.push(w);
                rows[k].2.push(cpu);
                rows[k].3.push(l);
            }
        }
        for (name, w, c, l) in rows {
            println!(
                "| {label} | {name} | {:.2} | {:.2} | {} |",
                median(w),
                median(c),
                l.join(" / ")
            );
        }
    }
}
