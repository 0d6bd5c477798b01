//! Member-count scaling of `umod info` and `umod install --dry-run` (issue
//! 32 item 8: both were quadratic; `verify` was already linear).
//!
//! ```text
//! cargo bench -p pakrat-umod --bench scaling [-- --max 60000 --reps 3]
//! ```
//!
//! For N = 5,000 … `--max` members (one small file each, all named by the
//! manifest), the bench builds a UMOD in memory and times, best of `--reps`:
//!
//! * `info`: parse, read the manifest, and find each member's destination
//!   (what `pakrat info` prints), through [`Manifest::member_index`];
//! * `plan`: [`install::plan`] (`install --dry-run`) into a game folder that
//!   holds only `System/Manifest.ini`;
//! * `plan-over`: the same into a folder where every file is already there
//!   with the same bytes (a reinstall: one big folder listing to match);
//! * `verify`: [`Umod::verify`], the linear reference;
//! * `uninstall`: [`install::uninstall`] with `dry_run` of the product after
//!   a real install into its own folder (the record's used-by check and
//!   reference counts; it was quadratic too).
//!
//! It prints the time and the time per member; linear work keeps the time
//! per member flat as N grows (the last column is the ratio of the per-member
//! time to the smallest N's). Not a test: figures go to the report and
//! `docs/hostile.md`, never into an assertion.

use std::path::Path;
use std::time::{Duration, Instant};

use pakrat_umod::create;
use pakrat_umod::install::{install, plan, uninstall, InstallOptions};
use pakrat_umod::{Manifest, Umod};

fn build(n: usize) -> Vec<u8> {
    let mut ini = String::from("[Setup]\r\nProduct=Big\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\n");
    let mut names = Vec::with_capacity(n);
    let mut datas = Vec::with_capacity(n);
    for i in 0..n {
        let name = format!("Maps\\F{i:06}.txt");
        ini.push_str(&format!("File=(Src={name})\r\n"));
        names.push(name);
        datas.push(format!("file {i}\n").into_bytes());
    }
    let mut members: Vec<(&str, &[u8], u32)> = names
        .iter()
        .zip(&datas)
        .map(|(n, d)| (n.as_str(), d.as_slice(), 0))
        .collect();
    members.push(("System\\Manifest.ini", ini.as_bytes(), 0));
    create::to_bytes(&members).expect("build")
}

fn best(reps: usize, mut f: impl FnMut()) -> Duration {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn game(dir: &Path, n_existing: usize) {
    std::fs::create_dir_all(dir.join("System")).expect("mkdir");
    std::fs::write(
        dir.join("System/Manifest.ini"),
        "[Setup]\r\nGroup=UnrealTournament\r\n\r\n[UnrealTournament]\r\nVersion=436\r\n",
    )
    .expect("write");
    if n_existing > 0 {
        std::fs::create_dir_all(dir.join("Maps")).expect("mkdir");
        for i in 0..n_existing {
            std::fs::write(dir.join(format!("Maps/F{i:06}.txt")), format!("file {i}\n"))
                .expect("write");
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |k: &str, d: usize| {
        args.iter()
            .position(|a| a == k)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let max = arg("--max", 60_000);
    let reps = arg("--reps", 3).max(1);
    let sizes: Vec<usize> = [5_000, 10_000, 20_000, 40_000, 60_000, 120_000]
        .into_iter()
        .filter(|&n| n <= max)
        .collect();
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut first: [Option<f64>; 5] = [None; 5];
    println!(
        "{:>8}  {:<10} {:>10}  {:>10}  {:>6}",
        "members", "job", "time", "per member", "ratio"
    );
    for &n in &sizes {
        let data = build(n);
        let u = Umod::parse(&data).expect("parse");
        let empty = tmp.path().join(format!("empty{n}"));
        game(&empty, 0);
        let full = tmp.path().join(format!("full{n}"));
        game(&full, n);
        let opts = InstallOptions {
            dry_run: true,
            ..Default::default()
        };
        let installed = tmp.path().join(format!("installed{n}"));
        game(&installed, 0);
        let real = InstallOptions {
            dry_run: false,
            ..Default::default()
        };
        install(&u, &installed, &real).expect("install");
        let jobs: [(&str, Duration); 5] = [
            (
                "info",
                best(reps, || {
                    let u = Umod::parse(&data).expect("parse");
                    let m = Manifest::from_umod(&u).expect("manifest").expect("some");
                    let idx = m.member_index();
                    let found = u
                        .entries
                        .iter()
                        .filter(|e| idx.get(&e.name).is_some())
                        .count();
                    assert_eq!(found, n, "every file member is named");
                }),
            ),
            (
                "plan",
                best(reps, || {
                    plan(&u, &empty, &opts).expect("plan");
                }),
            ),
            (
                "plan-over",
                best(reps, || {
                    plan(&u, &full, &opts).expect("plan");
                }),
            ),
            (
                "verify",
                best(reps, || {
                    assert!(u.verify().ok());
                }),
            ),
            (
                "uninstall",
                best(reps, || {
                    let r = uninstall("Big", &installed, true).expect("uninstall");
                    assert_eq!(r.files.len(), n, "every installed file is considered");
                }),
            ),
        ];
        for (k, (job, d)) in jobs.iter().enumerate() {
            let per = d.as_secs_f64() / n as f64 * 1e6;
            let base = *first[k].get_or_insert(per);
            println!(
                "{n:>8}  {job:<10} {:>8.3} s  {per:>7.2} µs  {:>6.2}",
                d.as_secs_f64(),
                per / base
            );
        }
    }
}
