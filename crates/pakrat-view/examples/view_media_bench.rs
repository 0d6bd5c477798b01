//! How long the viewer takes to preview UE4/UE5 textures (`/api/uimage`:
//! open the package, read the mip's bulk data, decode one surface, write
//! an 8-bit PNG) and to serve sounds (`/api/uaudio`), over raw HTTP, for
//! every texture and SoundWave export of the UE 5.8 fixture container
//! (tagged, uncompressed) and the Android ASTC pak.
//!
//! ```text
//! cargo run --release -p pakrat-view --example view_media_bench
//! ```
//!
//! Prints, per export, the first answer (nothing cached) and a second one
//! (from the preview cache), sorted by pixels; the largest texture last.

use std::io::{Read, Write};
use std::path::Path;
use std::time::Instant;

fn get(port: u16, token: &str, pq: &str) -> (u16, Vec<u8>) {
    let mut c = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        c,
        "GET {pq}&t={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    c.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, raw[split + 4..].to_vec())
}

fn json(port: u16, token: &str, pq: &str) -> serde_json::Value {
    let (st, b) = get(port, token, pq);
    assert_eq!(st, 200, "{pq}: {}", String::from_utf8_lossy(&b));
    serde_json::from_slice(&b).unwrap()
}

fn main() {
    let corpus = std::env::var_os("PAKRAT_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    let (tx, rx) = std::sync::mpsc::channel();
    let opts = pakrat_view::Options {
        path: corpus.clone(),
        ..Default::default()
    };
    std::thread::spawn(move || {
        pakrat_view::serve(&opts, |r| tx.send(r.url.clone()).unwrap()).unwrap();
    });
    let url = rx.recv().unwrap();
    let port: u16 = url
        .split(':')
        .nth(2)
        .and_then(|p| p.split('/').next())
        .unwrap()
        .parse()
        .unwrap();
    let token = url.split("t=").nth(1).unwrap().split('#').next().unwrap();
    let utoc = "iostore/cue4parse/UE5_8/IoStore/Tagged/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc";
    let pak = "pak/cue4parse/UE5_8/AndroidPak/CUE4ParseFixtures-Android-Textures.pak";
    // The packages: the container's, and the pak's `.uasset` entries.
    let mut packages: Vec<(&str, String)> = Vec::new();
    let keys = pakrat_codec::KeyRing::new();
    let c = pakrat_iostore::Container::open(corpus.join(utoc), &keys).unwrap();
    let cp = pakrat_asset::zen::ContainerPackages::read(&c).unwrap();
    for e in &cp.packages {
        if let Ok(h) = &e.header {
            if h.name.contains("/Textures/") || h.name.contains("/Audio/") {
                packages.push((utoc, h.name.clone()));
            }
        }
    }
    let p = pakrat_pak::Pak::open(corpus.join(pak), &keys).unwrap();
    for e in &p.index.entries {
        if e.path.ends_with(".uasset") {
            packages.push((pak, e.path.clone()));
        }
    }
    let mut rows = Vec::new();
    for (file, pkg) in &packages {
        let enc = |s: &str| s.replace(' ', "%20");
        let list = format!("/api/asset?path={file}&package={}", enc(pkg));
        let l = json(port, token, &list);
        for e in l["exports"].as_array().unwrap() {
            let i = e["index"].as_u64().unwrap();
            let j = json(port, token, &format!("{list}&export={i}"));
            let (pq, pixels, what) = if let Some(t) = j.get("texture") {
                let Some(m) = t["mips"].get(0) else { continue };
                let (w, h) = (m["width"].as_u64().unwrap(), m["height"].as_u64().unwrap());
                let what = format!("{}x{} {}", w, h, t["format"].as_str().unwrap_or("?"));
                (
                    format!("/api/uimage?path={file}&package={}&export={i}", enc(pkg)),
                    w * h,
                    what,
                )
            } else if let Some(s) = j.get("sound") {
                let what = format!("sound {}", s["format"].as_str().unwrap_or("?"));
                (
                    format!("/api/uaudio?path={file}&package={}&export={i}", enc(pkg)),
                    0,
                    what,
                )
            } else {
                continue;
            };
            let t0 = Instant::now();
            let (st, b) = get(port, token, &pq);
            let first = t0.elapsed().as_secs_f64() * 1e3;
            let t1 = Instant::now();
            let _ = get(port, token, &pq);
            let again = t1.elapsed().as_secs_f64() * 1e3;
            let name = e["name"].as_str().unwrap_or("?").to_string();
            rows.push((pixels, name, what, st, b.len(), first, again));
        }
    }
    rows.sort_by_key(|r| r.0);
    println!(
        "{:<34} {:<28} {:>6} {:>9} {:>9} {:>9}",
        "export", "what", "status", "bytes", "first ms", "cached ms"
    );
    for (_, name, what, st, len, first, again) in &rows {
        println!("{name:<34} {what:<28} {st:>6} {len:>9} {first:>9.2} {again:>9.2}");
    }
}
