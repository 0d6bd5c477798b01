//! Whole-process time of `pakrat` commands, small inputs and large (issue
//! 15, "small files fast"): what a user waits for when a redirect script runs
//! `pakrat decompress` once per file.
//!
//! ```text
//! cargo bench -p pakrat --bench process [-- --reps N]
//! ```
//!
//! Every case runs the release binary N times (small inputs 10×N) and
//! reports the median wall time and the mean CPU time of the child process
//! (user + system, from `getrusage(RUSAGE_CHILDREN)`), beside the same codec
//! work done in this process (`pakrat_uz::decompress`/`compress` on the same
//! bytes, CPU time of the whole process, best of the runs). `--version` is the
//! floor: starting the process and parsing the command line. Inputs:
//! corpus `.uz`/`.uz2` files as they are, `ue2/XGame.u` compressed to `.uz2`
//! by pakrat (the file the issue timed), and a 64 MiB blob of corpus packages.
//! With `PAKRAT_KFUZ2=/path/to/kfuz2_cli` the same jobs are also run with
//! KFRedirectTool's `kfuz2` (`.uz2` only), for the comparison the issue asks.
//! Outputs are deleted before every run, outside the timing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use pakrat_uz::{CompressOptions, Limits, UzFormat};

fn corpus() -> PathBuf {
    std::env::var_os("PAKRAT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"))
}

/// CPU time (user + system) of finished children, or of this process.
fn cpu(who: i32) -> Duration {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(who, &mut u) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// Small files decompressed by one pakrat run in the "many" case.
const MANY: usize = 200;

struct Row {
    case: String,
    bytes_in: u64,
    wall_ms: f64,
    cpu_ms: f64,
    codec_ms: Option<f64>,
    /// (wall, CPU) of KFRedirectTool's `kfuz2_cli` on the same job.
    kfuz2: Option<(f64, f64)>,
}

/// Empty `dir` (outside the timed part: replacing a 64 MiB output would
/// time the kernel freeing the old file).
fn clear(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap() {
        std::fs::remove_file(e.unwrap().path()).unwrap();
    }
}

/// Run `BIN ARGS` `reps` times, emptying `out` before each run: (median
/// wall, mean CPU) in ms. Also used for kfuz2.
fn whole(bin: &Path, args: &[&str], out: &Path, reps: usize) -> (f64, f64) {
    let mut walls = Vec::with_capacity(reps);
    let mut c = Duration::ZERO;
    for _ in 0..reps {
        clear(out);
        let c0 = cpu(libc::RUSAGE_CHILDREN);
        let t = Instant::now();
        let run = Command::new(bin)
            .args(args)
            .output()
            .expect("run the binary");
        walls.push(t.elapsed().as_secs_f64() * 1e3);
        c += cpu(libc::RUSAGE_CHILDREN) - c0;
        assert!(
            run.status.success(),
            "{} {args:?}: {}",
            bin.display(),
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let cpu_ms = c.as_secs_f64() * 1e3 / reps as f64;
    walls.sort_by(f64::total_cmp);
    (walls[reps / 2], cpu_ms)
}

/// CPU ms of `f` in this process, best of `reps`.
fn codec(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps)
        .map(|_| {
            let c0 = cpu(libc::RUSAGE_SELF);
            f();
            (cpu(libc::RUSAGE_SELF) - c0).as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let c = corpus();
    if !c.join("MANIFEST.tsv").is_file() {
        eprintln!("no corpus at {} (set PAKRAT_CORPUS)", c.display());
        std::process::exit(1);
    }
    let tmp = tempfile::tempdir().unwrap();
    let inputs = Inputs::make(&c, tmp.path());
    let reps = reps_arg();
    let mut b = Bench {
        bin: PathBuf::from(env!("CARGO_BIN_EXE_pakrat")),
        out: tmp.path().join("out"),
        reps,
        small: reps * 10,
        kfuz2: std::env::var_os("PAKRAT_KFUZ2").map(PathBuf::from),
        rows: Vec::new(),
    };
    std::fs::create_dir_all(&b.out).unwrap();
    b.floor();
    b.decompress(&[
        (c.join("uz/KFMutators.u.uz2"), b.small),
        (c.join("uz/ZeroPingPlus103.u.uz"), b.small),
        (inputs.xgame_uz2.clone(), b.small),
        (inputs.big_uz2.clone(), reps),
    ]);
    b.compress(&[(&inputs.xgame, b.small), (&inputs.big, reps)]);
    b.decompress_many(&c, tmp.path());
    b.info(&c);
    print_rows(&b.rows);
}

/// `--reps N`, 5 when not given.
fn reps_arg() -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
}

/// A path as an argument.
fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// Inputs made here: XGame.u.uz2, and a 64 MiB blob of corpus packages.
struct Inputs {
    xgame: PathBuf,
    xgame_uz2: PathBuf,
    big: PathBuf,
    big_uz2: PathBuf,
}

impl Inputs {
    fn make(c: &Path, t: &Path) -> Inputs {
        let xgame = t.join("XGame.u");
        std::fs::copy(c.join("ue2/XGame.u"), &xgame).unwrap();
        let xgame_uz2 = t.join("XGame.u.uz2");
        let opts = CompressOptions::new(UzFormat::Uz2, "XGame.u");
        std::fs::write(
            &xgame_uz2,
            pakrat_uz::compress(&std::fs::read(&xgame).unwrap(), &opts).unwrap(),
        )
        .unwrap();
        let blob = package_blob(c, 64 << 20);
        let big = t.join("Big.u");
        std::fs::write(&big, &blob).unwrap();
        let big_uz2 = t.join("Big.u.uz2");
        let opts = CompressOptions::new(UzFormat::Uz2, "Big.u");
        std::fs::write(&big_uz2, pakrat_uz::compress(&blob, &opts).unwrap()).unwrap();
        Inputs {
            xgame,
            xgame_uz2,
            big,
            big_uz2,
        }
    }
}

/// `len` bytes of the corpus's ue1 and ue2 packages, one after another
/// (again from the first when they run out).
fn package_blob(c: &Path, len: usize) -> Vec<u8> {
    let mut blob = Vec::with_capacity(len);
    let mut pkgs: Vec<PathBuf> = ["ue1", "ue2"]
        .iter()
        .flat_map(|k| std::fs::read_dir(c.join(k)).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    pkgs.sort();
    'fill: loop {
        for p in &pkgs {
            blob.extend_from_slice(&std::fs::read(p).unwrap());
            if blob.len() >= len {
                break 'fill;
            }
        }
    }
    blob.truncate(len);
    blob
}

/// The runs, and the rows they measured.
struct Bench {
    bin: PathBuf,
    /// The output folder, emptied before every run.
    out: PathBuf,
    /// Runs of a large input.
    reps: usize,
    /// Runs of a small input.
    small: usize,
    /// KFRedirectTool's `kfuz2_cli`, when `PAKRAT_KFUZ2` names it.
    kfuz2: Option<PathBuf>,
    rows: Vec<Row>,
}

impl Bench {
    /// `--version`: starting the process and parsing the command line.
    fn floor(&mut self) {
        let (w, cpu_ms) = whole(&self.bin, &["--version"], &self.out, self.small);
        self.rows.push(Row {
            case: "--version (process floor)".into(),
            bytes_in: 0,
            wall_ms: w,
            cpu_ms,
            codec_ms: None,
            kfuz2: None,
        });
    }

    /// `decompress` of each input, `n` runs each.
    fn decompress(&mut self, cases: &[(PathBuf, usize)]) {
        let out = s(&self.out);
        for (input, n) in cases {
            let data = std::fs::read(input).unwrap();
            let (w, cpu_ms) = whole(
                &self.bin,
                &["decompress", &s(input), "-o", &out],
                &self.out,
                *n,
            );
            // kfuz2 reads .uz2 only.
            let kf = self
                .kfuz2
                .as_ref()
                .filter(|_| s(input).ends_with(".uz2"))
                .map(|k| whole(k, &["-d", &s(input), "-o", &out, "-q"], &self.out, *n));
            let codec_ms = codec(*n, || {
                let d = pakrat_uz::decompress_with(&data, &Limits::default()).unwrap();
                std::hint::black_box(d);
            });
            self.rows.push(Row {
                case: format!(
                    "decompress {}",
                    input.file_name().unwrap().to_string_lossy()
                ),
                bytes_in: data.len() as u64,
                wall_ms: w,
                cpu_ms,
                codec_ms: Some(codec_ms),
                kfuz2: kf,
            });
        }
    }

    /// `compress --format uz2` of each input, `n` runs each.
    fn compress(&mut self, cases: &[(&PathBuf, usize)]) {
        let out = s(&self.out);
        for &(input, n) in cases {
            let data = std::fs::read(input).unwrap();
            let name = input.file_name().unwrap().to_string_lossy().into_owned();
            let (w, cpu_ms) = whole(
                &self.bin,
                &["compress", &s(input), "--format", "uz2", "-o", &out],
                &self.out,
                n,
            );
            // --nocheck: kfuz2 otherwise refuses what is not a KF1 package.
            let kf = self
                .kfuz2
                .as_ref()
                .map(|k| whole(k, &[&s(input), "-o", &out, "--nocheck", "-q"], &self.out, n));
            let opts = CompressOptions::new(UzFormat::Uz2, name.clone());
            let codec_ms = codec(n.min(5), || {
                std::hint::black_box(pakrat_uz::compress(&data, &opts).unwrap());
            });
            self.rows.push(Row {
                case: format!("compress {name} --format uz2"),
                bytes_in: data.len() as u64,
                wall_ms: w,
                cpu_ms,
                codec_ms: Some(codec_ms),
                kfuz2: kf,
            });
        }
    }

    /// A redirect folder of small files: one pakrat run for all of them (the
    /// start-up is paid once) against one kfuz2 run per file (it takes one
    /// input). Reported per file.
    fn decompress_many(&mut self, c: &Path, t: &Path) {
        let out = s(&self.out);
        let many = t.join("many");
        std::fs::create_dir_all(&many).unwrap();
        let small_uz2 = c.join("uz/KFMutators.u.uz2");
        let files: Vec<String> = (0..MANY)
            .map(|k| {
                let f = many.join(format!("Pkg{k:03}.u.uz2"));
                std::fs::copy(&small_uz2, &f).unwrap();
                s(&f)
            })
            .collect();
        let mut args = vec!["decompress".to_string(), "-o".into(), out.clone()];
        args.extend(files.iter().cloned());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (w, cpu_ms) = whole(&self.bin, &args, &self.out, self.reps);
        let kf = self.kfuz2.as_ref().map(|k| {
            let (mut w, mut cpu) = (0.0, 0.0);
            for f in &files {
                let (fw, fc) = whole(k, &["-d", f, "-o", &out, "-q"], &self.out, 1);
                w += fw;
                cpu += fc;
            }
            (w / MANY as f64, cpu / MANY as f64)
        });
        self.rows.push(Row {
            case: format!("decompress {MANY} × KFMutators (per file)"),
            bytes_in: 3107,
            wall_ms: w / MANY as f64,
            cpu_ms: cpu_ms / MANY as f64,
            codec_ms: None,
            kfuz2: kf,
        });
    }

    /// `info` of a small .uz2.
    fn info(&mut self, c: &Path) {
        let (w, cpu_ms) = whole(
            &self.bin,
            &["info", &s(&c.join("uz/KFMutators.u.uz2"))],
            &self.out,
            self.small,
        );
        self.rows.push(Row {
            case: "info KFMutators.u.uz2".into(),
            bytes_in: 3107,
            wall_ms: w,
            cpu_ms,
            codec_ms: None,
            kfuz2: None,
        });
    }
}

/// The table of results.
fn print_rows(rows: &[Row]) {
    println!(
        "whole-process time, {} threads available; median wall of N runs, mean CPU (user+sys) of the child",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!(
        "{:<38} {:>11} {:>9} {:>9} {:>10} {:>9} {:>16}",
        "case", "input", "wall ms", "CPU ms", "codec ms", "CPU/codec", "kfuz2 wall/CPU"
    );
    for r in rows {
        let (codec, ratio) = match r.codec_ms {
            Some(c) => (format!("{c:.2}"), format!("{:.2}", r.cpu_ms / c)),
            None => ("-".into(), "-".into()),
        };
        let kf = r
            .kfuz2
            .map_or("-".into(), |(w, c)| format!("{w:.2}/{c:.2}"));
        println!(
            "{:<38} {:>11} {:>9.2} {:>9.2} {:>10} {:>9} {:>16}",
            r.case, r.bytes_in, r.wall_ms, r.cpu_ms, codec, ratio, kf
        );
    }
}
