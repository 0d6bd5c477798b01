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
}
