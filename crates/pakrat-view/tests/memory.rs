//! The viewer under hostile load, as a separate process whose memory is
//! read from `/proc/PID/status`: concurrent downloads of an entry that
//! decodes to 256 MiB, an entry over the memory budget, a UMOD with a 64 MiB
//! manifest, an extraction naming one member many times, and 300 half-open
//! connections. After each the server still answers, and its peak resident
//! memory (VmHWM) stays under a bound.
//!
//! The server runs in a child process: this test binary started again with
//! `PAKRAT_VIEW_TEST_ROOT` set, running only [`child_server`].

#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;

/// The server side: runs only in the child process.
#[test]
fn child_server() {
    let Ok(root) = std::env::var("PAKRAT_VIEW_TEST_ROOT") else {
        return;
    };
    let opts = pakrat_view::Options {
        path: root.into(),
        port: 0,
        token: None,
        keys: Default::default(),
        ..Default::default()
    };
    pakrat_view::serve(&opts, |r| {
        println!("URL {}", r.url);
        let _ = std::io::stdout().flush();
    })
    .unwrap();
}

struct Server {
    child: Child,
    client: Client,
}

/// Where a server listens and its token (shared with other threads).
#[derive(Clone)]
struct Client {
    port: u16,
    token: String,
}

impl std::ops::Deref for Server {
    type Target = Client;
    fn deref(&self) -> &Client {
        &self.client
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(root: &Path, memory_mib: Option<u64>) -> Server {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args(["--exact", "child_server", "--nocapture", "--test-threads=1"])
            .env("PAKRAT_VIEW_TEST_ROOT", root)
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        match memory_mib {
            Some(m) => cmd.env("PAKRAT_VIEW_MEMORY_MIB", m.to_string()),
            None => cmd.env_remove("PAKRAT_VIEW_MEMORY_MIB"),
        };
        let mut child = cmd.spawn().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        let url = loop {
            line.clear();
            assert!(out.read_line(&mut line).unwrap() > 0, "the server ended");
            // (after libtest's "test child_server ... " on the same line)
            if let Some(u) = line.trim().split("URL ").nth(1) {
                break u.to_string();
            }
        };
        // Keep reading (and dropping) the child's output.
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        let port = url
            .split(':')
            .nth(2)
            .and_then(|p| p.split('/').next())
            .unwrap()
            .parse()
            .unwrap();
        let token = url.split("t=").nth(1).unwrap().split('#').next().unwrap();
        Server {
            child,
            client: Client {
                port,
                token: token.to_string(),
            },
        }
    }

    /// (VmHWM, VmRSS) in bytes.
    fn memory(&self) -> (u64, u64) {
        let s = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kb = |k: &str| {
            s.lines()
                .find_map(|l| l.strip_prefix(k))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                .unwrap()
                * 1024
        };
        (kb("VmHWM:"), kb("VmRSS:"))
    }
}

impl Client {
    /// Send `request` (a full HTTP/1.1 request with `Connection: close`);
    /// (status, head, body bytes counted, body kept up to `keep` bytes,
    /// whether every byte was zero).
    fn send(&self, request: &[u8], keep: usize) -> (u16, String, u64, Vec<u8>, bool) {
        let mut c = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        c.write_all(request).unwrap();
        let mut raw = Vec::new();
        let mut buf = vec![0u8; 1 << 16];
        let split = loop {
            if let Some(p) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                break p;
            }
            let n = c.read(&mut buf).unwrap();
            assert!(n > 0, "connection closed before the answer's head");
            raw.extend_from_slice(&buf[..n]);
        };
        let head = String::from_utf8_lossy(&raw[..split]).into_owned();
        assert!(
            !head
                .to_ascii_lowercase()
                .contains("transfer-encoding: chunked"),
            "{head}"
        );
        let mut kept = Vec::new();
        let mut total = 0u64;
        let mut zero = true;
        let mut take = |b: &[u8]| {
            total += b.len() as u64;
            zero &= b.iter().all(|&x| x == 0);
            let room = keep.saturating_sub(kept.len());
            kept.extend_from_slice(&b[..room.min(b.len())]);
        };
        take(&raw[split + 4..]);
        loop {
            let n = c.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            take(&buf[..n]);
        }
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        (status, head, total, kept, zero)
    }

    fn get(&self, pq: &str, keep: usize) -> (u16, String, u64, Vec<u8>, bool) {
        let req = format!(
            "GET {pq} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nx-pakrat-token: {}\r\nConnection: close\r\n\r\n",
            self.port, self.token
        );
        self.send(req.as_bytes(), keep)
    }

    fn post(&self, pq: &str, body: &[u8]) -> (u16, serde_json::Value) {
        let mut req = format!(
            "POST {pq} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nx-pakrat-token: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.port, self.token, body.len()
        )
        .into_bytes();
        req.extend_from_slice(body);
        let (st, _, _, b, _) = self.send(&req, 1 << 20);
        (st, serde_json::from_slice(&b).unwrap_or_default())
    }

    /// The server still lists its folder.
    fn answers(&self) {
        let (st, _, _, b, _) = self.get("/api/ls?path=", 1 << 20);
        assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    }
}

/// A pak of `files` (name, bytes of zeros) compressed with zlib in blocks of
/// `block` bytes: an honest file, a few hundred bytes per MiB it holds.
fn zero_pak(to: &Path, files: &[(&str, u64)], block: u32) {
    use pakrat_pak::write;
    let src = tempfile::tempdir().unwrap();
    let inputs: Vec<write::Input> = files
        .iter()
        .map(|(name, len)| {
            let p = src.path().join(name.replace('/', "_"));
            std::fs::File::create(&p).unwrap().set_len(*len).unwrap();
            write::Input {
                path: (*name).to_string(),
                source: p,
            }
        })
        .collect();
    let o = write::Options {
        compression: pakrat_codec::compress::Method::Zlib,
        block_size: block,
        ..Default::default()
    };
    let out = std::fs::File::create(to).unwrap();
    let name = to.file_name().unwrap().to_string_lossy().into_owned();
    write::write(&inputs, &o, &out, &name).unwrap();
}

const BIG: u64 = 256 * MIB;
const BIG_NAME: &str = "Content/zeros.bin";

#[test]
fn downloads_and_extractions_stream_in_bounded_memory() {
    let t = tempfile::tempdir().unwrap();
    zero_pak(&t.path().join("big.pak"), &[(BIG_NAME, BIG)], 64 << 10);
    let pak_len = std::fs::metadata(t.path().join("big.pak")).unwrap().len();
    assert!(pak_len < 2 * MIB, "{pak_len}");
    let s = Server::start(t.path(), None);
    s.answers();
    let (start_hwm, _) = s.memory();
    // Four at once: before streaming each held the whole entry (1 GiB).
    let runs: Vec<_> = (0..4)
        .map(|_| {
            let c = s.client.clone();
            std::thread::spawn(move || {
                c.get(&format!("/api/member?path=big.pak&name={BIG_NAME}"), 0)
            })
        })
        .collect();
    for r in runs {
        let (st, head, len, _, zero) = r.join().unwrap();
        assert_eq!(st, 200, "{head}");
        assert!(
            head.to_ascii_lowercase()
                .contains(&format!("content-length: {BIG}")),
            "{head}"
        );
        assert_eq!(len, BIG);
        assert!(zero);
    }
    let (hwm, rss) = s.memory();
    eprintln!(
        "4 downloads of {} MiB: VmHWM {} MiB (at start {} MiB), VmRSS {} MiB",
        BIG / MIB,
        hwm / MIB,
        start_hwm / MIB,
        rss / MIB
    );
    assert!(hwm < 160 * MIB, "VmHWM {} MiB", hwm / MIB);

    // Extraction streams into the file too.
    let out = tempfile::tempdir().unwrap();
    let body = serde_json::json!({"path": "big.pak", "members": [BIG_NAME], "dest": out.path()});
    let (st, v) = s.post("/api/extract", body.to_string().as_bytes());
    assert_eq!(st, 200, "{v}");
    assert_eq!(
        std::fs::metadata(out.path().join(BIG_NAME)).unwrap().len(),
        BIG
    );
    let (hwm, _) = s.memory();
    eprintln!("then an extraction: VmHWM {} MiB", hwm / MIB);
    assert!(hwm < 160 * MIB, "VmHWM {} MiB", hwm / MIB);
    s.answers();
}

#[test]
fn over_budget_is_413_with_the_reason_and_the_server_keeps_serving() {
    let t = tempfile::tempdir().unwrap();
    // Blocks of 8 MiB: decoding holds two of them, over the 8 MiB share of
    // a 16 MiB pool.
    zero_pak(
        &t.path().join("wide.pak"),
        &[("Content/wide.bin", 24 * MIB)],
        8 << 20,
    );
    zero_pak(
        &t.path().join("small.pak"),
        &[("Content/small.bin", MIB)],
        64 << 10,
    );
    let s = Server::start(t.path(), Some(16));
    let (st, _, _, b, _) = s.get("/api/member?path=wide.pak&name=Content/wide.bin", 1 << 20);
    let msg = String::from_utf8_lossy(&b);
    assert_eq!(st, 413, "{msg}");
    assert!(
        msg.contains("needs") && msg.contains("MiB per request"),
        "{msg}"
    );
    let (st, _, len, _, zero) = s.get("/api/member?path=small.pak&name=Content/small.bin", 0);
    assert_eq!((st, len, zero), (200, MIB, true));
    s.answers();
}

#[test]
fn a_huge_manifest_is_cut() {
    let t = tempfile::tempdir().unwrap();
    // 64 MiB of control bytes: each is six bytes in JSON (\u0001).
    let manifest = vec![1u8; 64 << 20];
    let umod = pakrat_umod::create::to_bytes(&[
        ("System/Manifest.ini", &manifest, 0),
        ("System/a.txt", b"hello", 0),
    ])
    .unwrap();
    drop(manifest);
    std::fs::write(t.path().join("big.umod"), &umod).unwrap();
    drop(umod);
    let s = Server::start(t.path(), None);
    let (st, _, len, b, _) = s.get("/api/open?path=big.umod", 64 << 20);
    assert_eq!(
        st,
        200,
        "{}",
        String::from_utf8_lossy(&b[..b.len().min(500)])
    );
    assert!(len < 8 * MIB, "a {} MiB answer", len / MIB);
    let j: serde_json::Value = serde_json::from_slice(&b).unwrap();
    assert_eq!(j["manifest_truncated"], true);
    assert_eq!(j["manifest_size"], 64 << 20);
    assert_eq!(
        j["manifest"].as_str().unwrap().len(),
        pakrat_view::MAX_MANIFEST
    );
    let (hwm, _) = s.memory();
    eprintln!(
        "a 64 MiB manifest: answer {} KiB, VmHWM {} MiB",
        len >> 10,
        hwm / MIB
    );
    // The mapped UMOD (64 MiB, read by the CRC check) counts in VmHWM.
    assert!(hwm < 160 * MIB, "VmHWM {} MiB", hwm / MIB);
    s.answers();
}

#[test]
fn extract_refuses_a_member_named_twice_and_oversized_bodies() {
    let t = tempfile::tempdir().unwrap();
    zero_pak(
        &t.path().join("small.pak"),
        &[("Content/small.bin", MIB)],
        64 << 10,
    );
    let s = Server::start(t.path(), None);
    let out = tempfile::tempdir().unwrap();
    let dest = out.path().join("x");
    let twice = serde_json::json!({"path": "small.pak", "members": ["Content/small.bin", "Content/small.bin"], "dest": dest});
    let (st, v) = s.post("/api/extract", twice.to_string().as_bytes());
    assert_eq!(st, 400, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("more than once"),
        "{v}"
    );
    assert!(!dest.exists(), "nothing is written");
    // 40,000 times: refused before any work.
    let many = serde_json::json!({"path": "small.pak", "members": vec!["Content/small.bin"; 40_000], "dest": dest});
    let (st, v) = s.post("/api/extract", many.to_string().as_bytes());
    assert!(st == 400 || st == 413, "{st} {v}");
    assert!(!dest.exists(), "nothing is written");
    // A body over the limit.
    let huge = format!(
        "{{\"path\": \"{}\"}}",
        "a".repeat(pakrat_view::MAX_BODY + 10)
    );
    let (st, v) = s.post("/api/extract", huge.as_bytes());
    assert_eq!(st, 413, "{v}");
    // Once, it works.
    let once =
        serde_json::json!({"path": "small.pak", "members": ["Content/small.bin"], "dest": dest});
    let (st, v) = s.post("/api/extract", once.to_string().as_bytes());
    assert_eq!(st, 200, "{v}");
    s.answers();
}

#[test]
fn half_open_connections_are_closed_after_the_header_timeout() {
    let t = tempfile::tempdir().unwrap();
    let s = Server::start(t.path(), None);
    let started = Instant::now();
    let mut conns = Vec::new();
    for i in 0..300 {
        let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
        if i % 2 == 1 {
            // Half a request head, never finished.
            c.write_all(b"GET /api/ls?path= HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                .unwrap();
        }
        c.set_read_timeout(Some(pakrat_view::HEADER_TIMEOUT + Duration::from_secs(20)))
            .unwrap();
        conns.push(c);
    }
    // Each is closed by the server (end of stream or reset), none hangs.
    for mut c in conns {
        let mut b = [0u8; 64];
        match c.read(&mut b) {
            Ok(0) => {}
            Ok(_) => {
                // An answer before the close (a 408): read on to the end.
                let mut rest = Vec::new();
                c.read_to_end(&mut rest).unwrap();
            }
            Err(e) => assert!(
                !matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ),
                "a half-open connection still open after {:?}",
                started.elapsed()
            ),
        }
    }
    let took = started.elapsed();
    eprintln!("300 half-open connections closed after {took:?}");
    assert!(took < pakrat_view::HEADER_TIMEOUT + Duration::from_secs(15));
    s.answers();
}

#[test]
fn a_texture_over_budget_is_refused_before_decoding() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    // A 4 MiB pool: 2 MiB a request. A 512x512 texture with its mips
    // needs about 4 MiB as RGBA and PNG; it is described, not decoded.
    let s = Server::start(&c, Some(4));
    let big = "/api/object?path=ue1/BTPlusPlusPublicUTBT_beta3.u&export=1265";
    let (st, _, _, b, _) = s.get(big, 1 << 20);
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    let o: serde_json::Value = serde_json::from_slice(&b).unwrap();
    assert_eq!(o["files"].as_array().map(Vec::len), Some(0), "{o}");
    assert!(
        o["note"].as_str().unwrap().contains("MiB per request"),
        "{o}"
    );
    assert!(
        o["properties"].as_array().is_some_and(|p| !p.is_empty()),
        "{o}"
    );
    let (st, _, _, b, _) = s.get(
        "/api/data?path=ue1/BTPlusPlusPublicUTBT_beta3.u&export=1265&n=0",
        1 << 20,
    );
    let msg = String::from_utf8_lossy(&b);
    assert_eq!(st, 413, "{msg}");
    assert!(msg.contains("decoding this export needs"), "{msg}");
    // A small texture still previews.
    let (st, _, _, b, _) = s.get("/api/data?path=ue1/Longestyard.utx&export=7&n=0", 1 << 20);
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    assert!(b.starts_with(b"\x89PNG"));
    s.answers();
}

#[test]
fn a_ue5_export_over_budget_is_413_and_small_ones_decode() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    // The tagged fixture container, alone (no global container: the
    // budget is checked before any decoding).
    let t = tempfile::tempdir().unwrap();
    let toc = "iostore/cue4parse/UE5_8/IoStore/Tagged/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows";
    for ext in ["utoc", "ucas"] {
        std::fs::copy(
            c.join(format!("{toc}.{ext}")),
            t.path().join(format!("F.{ext}")),
        )
        .unwrap();
    }
    // An 8 MiB pool: 4 MiB a request. Opening the mesh package holds
    // about 1.7 MiB (its chunk three times, the container header three
    // times, two blocks, 1 MiB); an export over 48 KiB (64 × its bytes +
    // 1 MiB) is refused before decoding.
    let s = Server::start(t.path(), Some(8));
    let list = "/api/asset?path=F.utoc&package=/Game/Fixtures/Meshes/SM_Nanite";
    let (st, _, _, b, _) = s.get(list, 1 << 20);
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    let j: serde_json::Value = serde_json::from_slice(&b).unwrap();
    let exports = j["exports"].as_array().unwrap();
    let size = |e: &serde_json::Value| e["size"].as_u64().unwrap();
    let big = exports.iter().max_by_key(|e| size(e)).unwrap();
    let small = exports.iter().find(|e| size(e) < 8 << 10).unwrap();
    assert!(size(big) > 48 << 10, "{big}");
    let (st, _, _, b, _) = s.get(&format!("{list}&export={}", big["index"]), 1 << 20);
    let msg = String::from_utf8_lossy(&b);
    assert_eq!(st, 413, "{msg}");
    assert!(msg.contains("decoding this export needs"), "{msg}");
    let (st, _, _, b, _) = s.get(&format!("{list}&export={}", small["index"]), 1 << 20);
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    s.answers();
}

#[test]
fn a_ue5_texture_preview_over_budget_is_413_before_decoding() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    // T_Streaming as loose files (its mips in its .ubulk), from the
    // tagged legacy pak.
    let t = tempfile::tempdir().unwrap();
    let pak = pakrat_pak::Pak::open(
        c.join("pak/cue4parse/UE5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak"),
        &Default::default(),
    )
    .unwrap();
    for e in &pak.index.entries {
        if let Some(ext) = e.path.strip_prefix("Textures/T_Streaming.") {
            std::fs::write(t.path().join(format!("T.{ext}")), pak.read(e).unwrap()).unwrap();
        }
    }
    // A 4 MiB pool: 2 MiB a request.
    let s = Server::start(t.path(), Some(4));
    let (st, _, _, b, _) = s.get("/api/asset?path=T.uasset", 1 << 20);
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    let j: serde_json::Value = serde_json::from_slice(&b).unwrap();
    let k = j["exports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "T_Streaming")
        .unwrap()["index"]
        .clone();
    let (st, _, _, b, _) = s.get(&format!("/api/asset?path=T.uasset&export={k}"), 1 << 20);
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    let j: serde_json::Value = serde_json::from_slice(&b).unwrap();
    let mips = j["texture"]["mips"].as_array().unwrap();
    let size = |m: &serde_json::Value| {
        (
            m["width"].as_u64().unwrap() as u32,
            m["height"].as_u64().unwrap() as u32,
        )
    };
    let (w, h) = size(&mips[0]);
    assert!(
        pakrat_view::preview_cost(false, w, h) > 2 * MIB,
        "mip 0 is {w}x{h}: too small for this test"
    );
    let (st, _, _, b, _) = s.get(
        &format!("/api/uimage?path=T.uasset&export={k}&mip=0"),
        1 << 20,
    );
    let msg = String::from_utf8_lossy(&b);
    assert_eq!(st, 413, "{msg}");
    assert!(msg.contains("previewing this texture needs"), "{msg}");
    // A small mip of it still previews.
    let last = mips.len() - 1;
    let (st, _, _, b, _) = s.get(
        &format!("/api/uimage?path=T.uasset&export={k}&mip={last}"),
        1 << 20,
    );
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    assert!(b.starts_with(b"\x89PNG"));
    s.answers();
}

/// A mesh whose scene would pass a request's share is refused (413, the
/// reason) before its morph targets are made; a small one is drawn.
#[test]
fn a_mesh_over_budget_is_413_before_its_scene_is_built() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    // An 8 MiB pool: 4 MiB a request. TCowMesh's 365 KiB read (2.4 MiB
    // reserved), but its .glb alone is 2.9 MB (its frames over its
    // wedges): refused before it is built. RelicSkull's is 87 KB.
    let s = Server::start(&c, Some(8));
    let (st, _, _, b, _) = s.get("/api/mesh?path=ue1/epiccustommodels.u&export=18", 1 << 20);
    let msg = String::from_utf8_lossy(&b);
    assert_eq!(st, 413, "{msg}");
    assert!(msg.contains("building this mesh needs"), "{msg}");
    let (st, _, _, b, _) = s.get("/api/mesh?path=ue1/relics.u&export=73", 1 << 20);
    assert_eq!(
        st,
        200,
        "{}",
        String::from_utf8_lossy(&b[..b.len().min(300)])
    );
    assert!(b.starts_with(b"glTF"));
    s.answers();
}
