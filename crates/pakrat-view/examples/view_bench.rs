//! How fast the viewer shows the first level of a big folder and of a big
//! container (issue 13: "a 15,000-file container or a 2,000-package game
//! folder shows its first level in under a second").
//!
//! ```text
//! cargo run --release -p pakrat-view --example view_bench [-- --reps N]
//! ```
//!
//! Builds, in a temporary folder, a game folder of 2,000 packages (hard
//! links to one small corpus package, so their headers are read for real)
//! and a `.pak` of 15,000 entries in 300 folders; starts the server and
//! times, over raw HTTP, the folder listing (`/api/ls`, every file sniffed),
//! the container's first level (`/api/open`: the pak index parsed), a
//! search over its 15,000 paths, and one package's dependency answer.
//!
//! With the corpus: UE5 properties (`/api/asset`) of the biggest fixture
//! package, `/Game/Fixtures/Maps/Landscape` (336-343 KB of zen package),
//! in the Tagged container and in the Unversioned one with `--usmap`: its
//! export list, then every export decoded, one request each (the first
//! round opens the container, the global container, the mappings and the
//! package; later rounds find them cached).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Instant;

fn get(port: u16, token: &str, pq: &str) -> (u16, usize) {
    let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        c,
        "GET {pq}&t={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    c.read_to_end(&mut raw).unwrap();
    let head = String::from_utf8_lossy(&raw[..raw.len().min(64)]).into_owned();
    (head.split(' ').nth(1).unwrap().parse().unwrap(), raw.len())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let reps: usize = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let corpus = std::env::var_os("PAKRAT_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("Game");
    let maps = root.join("Maps");
    std::fs::create_dir_all(&maps).unwrap();
    let sample = corpus.join("ue1/Entry.unr");
    let t0 = Instant::now();
    for i in 0..2000 {
        std::fs::hard_link(&sample, maps.join(format!("DM-Map{i:04}.unr")))
            .or_else(|_| std::fs::copy(&sample, maps.join(format!("DM-Map{i:04}.unr"))).map(|_| ()))
            .unwrap();
    }
    // A pak of 15,000 small entries in 300 folders.
    let src = t.path().join("src");
    let mut inputs = Vec::new();
    for d in 0..300 {
        let dir = src.join(format!("Dir{d:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..50 {
            let p = dir.join(format!("Asset{f:02}.uasset"));
            std::fs::write(&p, format!("asset {d} {f}")).unwrap();
            inputs.push(pakrat_pak::write::Input {
                path: format!("Dir{d:03}/Asset{f:02}.uasset"),
                source: p,
            });
        }
    }
    let paks = root.join("Content/Paks");
    std::fs::create_dir_all(&paks).unwrap();
    let out = std::fs::File::create(paks.join("Big.pak")).unwrap();
    pakrat_pak::write::write(&inputs, &Default::default(), &out, "Big.pak").unwrap();
    drop(out);
    eprintln!(
        "built 2,000 packages and a 15,000-entry pak in {:.1} s",
        t0.elapsed().as_secs_f64()
    );

    let (tx, rx) = std::sync::mpsc::channel();
    let opts = pakrat_view::Options {
        path: root.clone(),
        port: 0,
        token: None,
        keys: Default::default(),
        ..Default::default()
    };
    std::thread::spawn(move || {
        pakrat_view::serve(&opts, |r| tx.send((r.addr.port(), r.url.clone())).unwrap()).unwrap();
    });
    let (port, url) = rx.recv().unwrap();
    let token = url.split("t=").nth(1).unwrap().to_string();
    println!(
        "{:<52} {:>10} {:>10} {:>10}",
        "request", "first ms", "median ms", "bytes"
    );
    for (what, pq) in [
        ("folder of 2,000 packages (/api/ls)", "/api/ls?path=Maps"),
        (
            "15,000-entry pak, first level (/api/open)",
            "/api/open?path=Content/Paks/Big.pak",
        ),
        (
            "15,000-entry pak, one folder (/api/open&dir)",
            "/api/open?path=Content/Paks/Big.pak&dir=Dir150",
        ),
        (
            "15,000-entry pak, search 'Asset07' (/api/open&find)",
            "/api/open?path=Content/Paks/Big.pak&find=Asset07",
        ),
        (
            "a map's dependencies among 2,000 (/api/deps)",
            "/api/deps?path=Maps/DM-Map0000.unr",
        ),
    ] {
        let mut times = Vec::new();
        let mut bytes = 0;
        for _ in 0..reps.max(1) {
            let t = Instant::now();
            let (st, n) = get(port, &token, pq);
            assert_eq!(st, 200, "{pq}");
            times.push(t.elapsed().as_secs_f64() * 1e3);
            bytes = n;
        }
        let first = times[0];
        times.sort_by(f64::total_cmp);
        println!(
            "{what:<52} {first:>10.1} {:>10.1} {bytes:>10}",
            times[times.len() / 2]
        );
    }
    ue5_properties(&corpus, reps);
}

/// GET `pq`, its body as JSON.
fn get_json(port: u16, token: &str, pq: &str) -> serde_json::Value {
    let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        c,
        "GET {pq}&t={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    c.read_to_end(&mut raw).unwrap();
    let body = &raw[raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4..];
    serde_json::from_slice(body).unwrap()
}

/// Every export of every package of a container: the largest answer of
/// `/api/asset&export=I` against the export's bytes (what
/// `DECODE_FACTOR` is sized from).
fn json_ratio(port: u16, token: &str, utoc: &str) {
    let t = Instant::now();
    let open = get_json(port, token, &format!("/api/open?path={utoc}"));
    let (mut n, mut errors, mut worst, mut biggest) = (0, 0, (0f64, String::new()), 0usize);
    for p in open["zen_packages"]["list"].as_array().unwrap() {
        let Some(name) = p["name"].as_str() else {
            continue;
        };
        let list = format!("/api/asset?path={utoc}&package={name}");
        let j = get_json(port, token, &list);
        for e in j["exports"].as_array().unwrap() {
            let size = e["size"].as_u64().unwrap();
            let x = get_json(port, token, &format!("{list}&export={}", e["index"]));
            let len = x.to_string().len();
            n += 1;
            errors += usize::from(x["error"].is_string());
            biggest = biggest.max(len);
            if size >= 1024 && len as f64 / size as f64 > worst.0 {
                worst = (len as f64 / size as f64, format!("{name} {}", e["name"]));
            }
        }
    }
    println!(
        "{utoc}: {n} exports ({errors} with errors) of {} packages in {:.0} ms, one request \
         each; largest answer {biggest} bytes, largest answer / export bytes (exports of \
         1 KiB or more) {:.1} ({})",
        open["zen_packages"]["count"],
        t.elapsed().as_secs_f64() * 1e3,
        worst.0,
        worst.1
    );
}

/// `/api/asset` on the biggest fixture package, tagged and unversioned.
fn ue5_properties(corpus: &Path, reps: usize) {
    let base = "iostore/cue4parse/UE5_8/IoStore";
    let utoc = "Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc";
    let usmap = corpus.join("pak/cue4parse/UE5_8/Mappings/CUE4ParseFixtures-Zstandard.usmap");
    if !corpus.join(base).join("Tagged").join(utoc).is_file() || !usmap.is_file() {
        eprintln!("SKIPPED: the UE5 fixtures are not in {}", corpus.display());
        return;
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let opts = pakrat_view::Options {
        path: corpus.to_path_buf(),
        usmap: Some(usmap),
        ..Default::default()
    };
    std::thread::spawn(move || {
        pakrat_view::serve(&opts, |r| tx.send((r.addr.port(), r.url.clone())).unwrap()).unwrap();
    });
    let (port, url) = rx.recv().unwrap();
    let token = url.split("t=").nth(1).unwrap().to_string();
    let package = "/Game/Fixtures/Maps/Landscape";
    for form in ["Tagged", "Unversioned"] {
        let path = format!("{base}/{form}/{utoc}");
        let list = format!("/api/asset?path={path}&package={package}");
        let mut rounds = Vec::new();
        let mut exports = 0;
        let mut bytes = 0;
        for _ in 0..reps.max(1) {
            let t = Instant::now();
            let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
            write!(
                c,
                "GET {list}&t={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
            )
            .unwrap();
            let mut raw = Vec::new();
            c.read_to_end(&mut raw).unwrap();
            let listed = t.elapsed().as_secs_f64() * 1e3;
            let body = &raw[raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4..];
            let j: serde_json::Value = serde_json::from_slice(body).unwrap();
            exports = j["exports"].as_array().unwrap().len();
            let (mut slowest, mut sum) = (0f64, 0usize);
            for i in 0..exports {
                let t = Instant::now();
                let (st, n) = get(port, &token, &format!("{list}&export={i}"));
                assert_eq!(st, 200);
                slowest = slowest.max(t.elapsed().as_secs_f64() * 1e3);
                sum += n;
            }
            bytes = sum;
            rounds.push((listed, t.elapsed().as_secs_f64() * 1e3, slowest));
        }
        let first = rounds[0];
        rounds.sort_by(|a, b| a.1.total_cmp(&b.1));
        let median = rounds[rounds.len() / 2];
        println!(
            "{:<52} {:>10.1} {:>10.1} {:>10}",
            format!("Landscape ({form}): export list (/api/asset)"),
            first.0,
            median.0,
            ""
        );
        println!(
            "{:<52} {:>10.1} {:>10.1} {bytes:>10}",
            format!("Landscape ({form}): all {exports} exports, one request each"),
            first.1,
            median.1
        );
        println!(
            "{:<52} {:>10.1} {:>10.1} {:>10}",
            format!("Landscape ({form}): slowest export request"),
            first.2,
            median.2,
            ""
        );
    }
    json_ratio(port, &token, &format!("{base}/Unversioned/{utoc}"));
    json_ratio(port, &token, &format!("{base}/Tagged/{utoc}"));
}
