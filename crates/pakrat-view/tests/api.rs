//! The viewer's API without a browser: a real server on 127.0.0.1, raw
//! HTTP/1.1 requests. Traversal attempts, a wrong token, a wrong Host and a
//! damaged package each get the right status, and the server keeps serving.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;

struct Server {
    port: u16,
    token: String,
}

fn start(root: &Path) -> Server {
    start_with(root, Default::default())
}

/// A server knowing these AES keys (as `--aes-key`/`--keys` give them).
fn start_with(root: &Path, keys: pakrat_codec::KeyRing) -> Server {
    let (tx, rx) = std::sync::mpsc::channel();
    let opts = pakrat_view::Options {
        path: root.to_path_buf(),
        port: 0,
        token: None,
        keys,
        ..Default::default()
    };
    std::thread::spawn(move || {
        pakrat_view::serve(&opts, |r| {
            tx.send(r.url.clone()).unwrap();
        })
        .unwrap();
    });
    let url = rx.recv().unwrap();
    let port = url
        .split(':')
        .nth(2)
        .and_then(|p| p.split('/').next())
        .unwrap()
        .parse()
        .unwrap();
    let token = url
        .split("t=")
        .nth(1)
        .unwrap()
        .split('#')
        .next()
        .unwrap()
        .to_string();
    Server { port, token }
}

/// Send one raw HTTP/1.1 request (the server closes the connection);
/// (status, headers, body).
fn exchange(s: &Server, request: &str) -> (u16, String, Vec<u8>) {
    let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    c.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    c.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut body = raw[split + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head, body)
}

/// GET `path_and_query` with `host`; (status, headers, body).
fn get_with(s: &Server, host: &str, path_and_query: &str) -> (u16, String, Vec<u8>) {
    exchange(
        s,
        &format!("GET {path_and_query} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
    )
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line = b.windows(2).position(|w| w == b"\r\n").unwrap();
        let n = usize::from_str_radix(std::str::from_utf8(&b[..line]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[line + 2..line + 2 + n]);
        b = &b[line + 2 + n + 2..];
    }
}

fn post(s: &Server, pq: &str, body: &serde_json::Value) -> (u16, serde_json::Value) {
    let b = body.to_string();
    let (status, _, body) = exchange(
        s,
        &format!(
            "POST {pq} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nx-pakrat-token: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{b}",
            s.port,
            s.token,
            b.len()
        ),
    );
    (
        status,
        serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null),
    )
}

fn get(s: &Server, pq: &str) -> (u16, Vec<u8>) {
    let host = format!("127.0.0.1:{}", s.port);
    let sep = if pq.contains('?') { '&' } else { '?' };
    let (st, _, b) = get_with(s, &host, &format!("{pq}{sep}t={}", s.token));
    (st, b)
}

fn json(s: &Server, pq: &str) -> serde_json::Value {
    let (st, b) = get(s, pq);
    assert_eq!(st, 200, "{pq}: {}", String::from_utf8_lossy(&b));
    serde_json::from_slice(&b).unwrap()
}

fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn token_host_and_traversal_are_refused_and_the_server_keeps_serving() {
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir(t.path().join("sub")).unwrap();
    std::fs::write(t.path().join("sub/a.txt"), b"hello").unwrap();
    // A damaged package: the tag, then garbage.
    let mut bad = vec![0xC1, 0x83, 0x2A, 0x9E, 69, 0, 0, 0];
    bad.extend_from_slice(&[0xFF; 40]);
    std::fs::write(t.path().join("Broken.u"), &bad).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc", t.path().join("out")).unwrap();
    let s = start(t.path());
    let host = format!("127.0.0.1:{}", s.port);

    // The page and the API need the token.
    assert_eq!(get_with(&s, &host, "/").0, 401);
    assert_eq!(
        get_with(
            &s,
            &host,
            "/api/ls?path=&t=0123456789abcdef0123456789abcdef"
        )
        .0,
        401
    );
    let (st, head, body) = get_with(&s, &host, &format!("/?t={}", s.token));
    assert_eq!(st, 200);
    assert!(head
        .to_ascii_lowercase()
        .contains("content-security-policy"));
    assert!(String::from_utf8_lossy(&body).contains("pakrat view"));
    // A Host other than 127.0.0.1:PORT / localhost:PORT (DNS rebinding).
    assert_eq!(
        get_with(
            &s,
            "evil.example:80",
            &format!("/api/ls?path=&t={}", s.token)
        )
        .0,
        403
    );
    assert_eq!(
        get_with(
            &s,
            &format!("localhost:{}", s.port),
            &format!("/api/ls?path=&t={}", s.token)
        )
        .0,
        200
    );

    // Paths stay inside the opened folder.
    for p in ["..", "../etc", "sub/../..", "/etc", "%2Fetc"] {
        assert_eq!(get(&s, &format!("/api/ls?path={p}")).0, 403, "{p}");
    }
    assert_eq!(get(&s, "/api/ls?path=sub%5C..%5C..").0, 400);
    assert_eq!(get(&s, "/api/ls?path=C%3A%2FWindows").0, 400);
    #[cfg(unix)]
    assert_eq!(get(&s, "/api/ls?path=out").0, 403, "symbolic link out");
    assert_eq!(get(&s, "/api/ls?path=nothing-here").0, 404);

    // A damaged package: 422 with the reader's message, then more requests work.
    let (st, b) = get(&s, "/api/open?path=Broken.u");
    assert_eq!(st, 422, "{}", String::from_utf8_lossy(&b));
    let e: serde_json::Value = serde_json::from_slice(&b).unwrap();
    assert!(e["error"].as_str().unwrap().contains("offset"), "{e}");
    assert_eq!(get(&s, "/api/object?path=Broken.u&export=0").0, 422);
    let ls = json(&s, "/api/ls?path=");
    let names: Vec<&str> = ls["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"sub") && names.contains(&"Broken.u"),
        "{names:?}"
    );
    assert_eq!(json(&s, "/api/ls?path=sub")["entries"][0]["kind"], "other");
}

fn png_size(b: &[u8]) -> (u32, u32) {
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n");
    let be = |o: usize| u32::from_be_bytes(b[o..o + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn textures_sounds_and_container_search_from_the_corpus() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let s = start(&c);
    // A texture: the PNG has the texture's USize x VSize.
    let pkg = "ue1/ArenaTex.utx";
    let j = json(&s, &format!("/api/open?path={pkg}"));
    let tex = j["exports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["class"] == "Texture")
        .unwrap();
    let i = tex["index"].as_u64().unwrap();
    let o = json(&s, &format!("/api/object?path={pkg}&export={i}"));
    let prop = |n: &str| {
        o["properties"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == n)
            .unwrap()["value"]
            .as_u64()
            .unwrap() as u32
    };
    // Properties as `props --json` writes them; the references to this
    // package's exports are in `links`, full path → export index.
    let pal = o["properties"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Palette")
        .unwrap();
    assert_eq!(pal["type"], "ObjectProperty");
    let path = pal["value"].as_str().unwrap();
    assert!(path.starts_with("ArenaTex."), "{path}");
    let k = o["links"][path].as_u64().unwrap();
    let target = json(&s, &format!("/api/object?path={pkg}&export={k}"));
    assert_eq!(target["class"], "Palette");
    assert_eq!(
        format!("ArenaTex.{}", target["path"].as_str().unwrap()),
        path
    );
    let (st, png) = get(&s, &format!("/api/data?path={pkg}&export={i}&n=0"));
    assert_eq!(st, 200);
    assert_eq!(png_size(&png), (prop("USize"), prop("VSize")));
    // P8: its palette's 256 colours come with it.
    assert_eq!(
        o["palette"].as_array().map(Vec::len),
        Some(256),
        "{}",
        o["palette"]
    );

    // A sound: the served bytes are the stored file, RIFF with its length.
    let pkg = "ue1/DefaultAnnouncements.uax";
    let j = json(&s, &format!("/api/open?path={pkg}"));
    let snd = j["exports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["class"] == "Sound")
        .unwrap();
    let i = snd["index"].as_u64().unwrap();
    let o = json(&s, &format!("/api/object?path={pkg}&export={i}"));
    let f = &o["files"][0];
    assert!(f["mime"].as_str().unwrap().starts_with("audio/"), "{o}");
    let (st, wav) = get(&s, &format!("/api/data?path={pkg}&export={i}&n=0"));
    assert_eq!(st, 200);
    assert_eq!(wav.len() as u64, f["size"].as_u64().unwrap());
    assert_eq!(&wav[..4], b"RIFF");
    assert_eq!(
        u32::from_le_bytes(wav[4..8].try_into().unwrap()) as usize + 8,
        wav.len()
    );

    // A container: its first level, then a file found by the filter.
    let utoc =
        "iostore/cue4parse/UE5_8/IoStore/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc";
    let j = json(&s, &format!("/api/open?path={}", enc(utoc)));
    assert_eq!(j["kind"], "utoc");
    let total = j["total_files"].as_u64().unwrap();
    assert!(
        total > 0 && !j["dirs"].as_array().unwrap().is_empty(),
        "{j}"
    );
    // Its chunks by type and its zen packages (the container header's).
    let bundles = j["chunk_types"]["ExportBundleData"].as_u64().unwrap();
    assert!(bundles > 0, "{}", j["chunk_types"]);
    let zen = &j["zen_packages"];
    assert_eq!(zen["count"].as_u64().unwrap(), bundles, "{zen}");
    assert!(
        zen["list"][0]["name"].as_str().unwrap().starts_with('/'),
        "{zen}"
    );
    let found = json(&s, &format!("/api/open?path={}&find=uasset", enc(utoc)));
    let n = found["found"].as_array().unwrap().len();
    assert!(n > 0 && (n as u64) <= total, "{found}");
    // Any of its files downloads (the chunk as stored).
    let one = found["found"][0]["path"].as_str().unwrap();
    let (st, b) = get(
        &s,
        &format!("/api/member?path={}&name={}", enc(utoc), enc(one)),
    );
    assert_eq!(st, 200);
    assert!(!b.is_empty());
    assert!(found["found"][0]["path"]
        .as_str()
        .unwrap()
        .to_lowercase()
        .contains("uasset"));
}

#[test]
fn dependencies_and_extraction() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let s = start(&c);
    // Entry.unr in the corpus folder (a plain folder of packages): Engine is
    // found, Botpack is missing, and both show in the graph.
    let d = json(&s, "/api/deps?path=ue1/Entry.unr");
    let missing: Vec<&str> = d["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(missing.contains(&"Botpack"), "{d}");
    let engine = d["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "Engine")
        .unwrap();
    assert_eq!(engine["missing"], false, "{engine}");
    assert_eq!(d["mismatches"], serde_json::json!([]), "{d}");
    // A UT2004 map in the same folder: the only `Engine` is UT99's (issue
    // 31 item 3), reported as another generation, not as found.
    let d = json(&s, "/api/deps?path=ue2/DM-Gael.ut2");
    let wrong: Vec<&str> = d["mismatches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message"].as_str().unwrap())
        .collect();
    assert!(
        wrong.contains(
            &"Engine: found Engine.u but it is UE1 v69, the importer is UE2 v126/29 (DM-Gael)"
        ),
        "{d}"
    );
    let (st, svg) = get(&s, "/api/deps.svg?path=ue1/Entry.unr");
    assert_eq!(st, 200);
    let svg = String::from_utf8(svg).unwrap();
    assert!(
        svg.starts_with("<svg")
            && svg.contains("Botpack (missing)")
            && svg.contains("class=\"missing\"")
    );
    // Dependents: packages in the folder that import Engine.
    let d = json(&s, "/api/deps?path=ue1/Engine.u");
    assert!(
        d["imported_by"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == "ue1/Entry.unr"),
        "{d}"
    );
    // UT2004 maps import an `Engine` too, but not this one (UE1 v69).
    let has = |k: &str, p: &str| d[k].as_array().unwrap().iter().any(|x| x == p);
    assert!(!has("imported_by", "ue2/DM-Gael.ut2"), "{d}");
    assert!(
        has("imported_by_other_generation", "ue2/DM-Gael.ut2"),
        "{d}"
    );

    // Extract: a texture's files into a folder; a second time is refused
    // (409, nothing written) unless force.
    let out = tempfile::tempdir().unwrap();
    let dest = out.path().join("x");
    // (export 7 of Longestyard.utx is the texture q3floor1)
    let body = serde_json::json!({"path": "ue1/Longestyard.utx", "exports": [7], "dest": dest});
    let (st, v) = post(&s, "/api/extract", &body);
    assert_eq!(st, 200, "{v}");
    let written = v["written"].as_array().unwrap();
    assert!(!written.is_empty());
    let first = std::path::PathBuf::from(written[0]["path"].as_str().unwrap());
    assert!(first.starts_with(&dest) && first.exists());
    let (st, v) = post(&s, "/api/extract", &body);
    assert_eq!(st, 409, "{v}");
    let mut forced = body.clone();
    forced["force"] = serde_json::json!(true);
    assert_eq!(post(&s, "/api/extract", &forced).0, 200);
    // A relative destination, or a path outside the root, is refused.
    let rel = serde_json::json!({"path": "ue1/ChizraEFX.utx", "exports": [3], "dest": "relative"});
    assert_eq!(post(&s, "/api/extract", &rel).0, 400);
    let out_of_root = serde_json::json!({"path": "../etc/passwd", "exports": [0], "dest": dest});
    assert_eq!(post(&s, "/api/extract", &out_of_root).0, 403);
    // A UMOD member.
    let u = json(&s, "/api/open?path=umod/DropStuff.umod");
    let member = u["files"][0]["name"].as_str().unwrap().to_string();
    assert!(u["manifest"].as_str().unwrap().contains("[Setup]"), "{u}");
    assert_eq!(u["verify_ok"], true);
    let umod = serde_json::json!({"path": "umod/DropStuff.umod", "members": [member], "dest": out.path().join("u")});
    let (st, v) = post(&s, "/api/extract", &umod);
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["written"].as_array().unwrap().len(), 1);
}

/// The repak test paks' key (base64, from their crypto.json) and the
/// CUE4Parse fixtures' key (hex), as the README of the corpus gives them.
const REPAK_KEY: &str = "lNJbw660IOC+kU7cnVQ1oeqrXyhk4J6UAZrCBbcnp94=";
const CUE4PARSE_KEY: &str = "435545345061727365466978747572654145534b657930313233343536373839";

fn delete(s: &Server, pq: &str) -> u16 {
    exchange(
        s,
        &format!(
            "DELETE {pq} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nx-pakrat-token: {}\r\nConnection: close\r\n\r\n",
            s.port, s.token
        ),
    )
    .0
}

#[test]
fn keys_from_the_command_line_and_from_the_page() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let pak = "pack_v11_compress_encrypt_encryptindex.pak";
    std::fs::copy(
        c.join("pak/repak_tests/packs").join(pak),
        t.path().join(pak),
    )
    .unwrap();
    let toc = "iostore/cue4parse/UE5_8/IoStore/Tagged/OodleEncrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows";
    for ext in ["utoc", "ucas"] {
        std::fs::copy(
            c.join(format!("{toc}.{ext}")),
            t.path().join(format!("Enc.{ext}")),
        )
        .unwrap();
    }
    let original = std::fs::read(c.join("pak/repak_tests/pack/root/test.txt")).unwrap();

    // --aes-key: the pak opens, its encrypted entry decrypts to the original.
    let mut ring = pakrat_codec::KeyRing::new();
    ring.add(pakrat_codec::AesKey::parse(REPAK_KEY).unwrap());
    let s = start_with(t.path(), ring);
    let j = json(&s, &format!("/api/open?path={pak}"));
    assert_eq!(j["total_files"], 4, "{j}");
    let (st, b) = get(&s, &format!("/api/member?path={pak}&name=test.txt"));
    assert_eq!(st, 200);
    assert_eq!(b, original);

    // No key: a clear 422; a malformed key: 400 that does not repeat it;
    // a wrong key: 422 "wrong AES key", not kept; the right one: kept.
    let s = start(t.path());
    let (st, b) = get(&s, &format!("/api/open?path={pak}"));
    let msg = String::from_utf8_lossy(&b).into_owned();
    assert_eq!(st, 422, "{msg}");
    assert!(msg.contains("the index is encrypted"), "{msg}");
    let (st, j) = post(&s, "/api/keys", &serde_json::json!({"key": "abc123secret"}));
    assert_eq!(st, 400, "{j}");
    assert!(!j.to_string().contains("abc123secret"), "{j}");
    let wrong = "00".repeat(32);
    let (st, j) = post(
        &s,
        "/api/keys",
        &serde_json::json!({"key": wrong, "path": pak}),
    );
    assert_eq!(st, 422, "{j}");
    assert!(
        j["error"].as_str().unwrap().contains("wrong AES key"),
        "{j}"
    );
    assert!(!j.to_string().contains(&wrong), "{j}");
    let (st, _) = get(&s, &format!("/api/open?path={pak}"));
    assert_eq!(st, 422, "a refused key is not kept");
    let (st, j) = post(
        &s,
        "/api/keys",
        &serde_json::json!({"key": REPAK_KEY, "path": pak}),
    );
    assert_eq!(st, 200, "{j}");
    assert_eq!(j["checked"], true, "{j}");
    assert!(!j.to_string().contains(REPAK_KEY), "{j}");
    assert_eq!(json(&s, &format!("/api/open?path={pak}"))["total_files"], 4);
    let (st, b) = get(&s, &format!("/api/member?path={pak}&name=test.txt"));
    assert_eq!((st, b), (200, original));

    // A container: refused without its key, listed with it (typed as a
    // keys JSON), forgotten on DELETE.
    let (st, _) = get(&s, "/api/open?path=Enc.utoc");
    assert_eq!(st, 422, "the pak's key is wrong for it");
    let (st, j) = post(
        &s,
        "/api/keys",
        &serde_json::json!({"key": REPAK_KEY, "path": "Enc.utoc"}),
    );
    assert_eq!(st, 422, "{j}");
    let keys_json = serde_json::json!({"00000000000000000000000000000000": CUE4PARSE_KEY});
    let (st, j) = post(
        &s,
        "/api/keys",
        &serde_json::json!({"key": keys_json.to_string(), "path": "Enc.utoc"}),
    );
    assert_eq!(st, 200, "{j}");
    assert_eq!(j["checked"], true, "{j}");
    let j = json(&s, "/api/open?path=Enc.utoc");
    assert!(j["chunks"].as_u64().unwrap() > 0, "{j}");
    assert_eq!(j["needs_key"], false, "{j}");
    assert_eq!(delete(&s, "/api/keys"), 200);
    // Without a key the container opens without its file list, and says so.
    let j = json(&s, "/api/open?path=Enc.utoc");
    assert_eq!(j["needs_key"], true, "keys forgotten: {j}");
    assert_eq!(j["total_files"], 0, "{j}");
    let (st, _) = get(&s, &format!("/api/open?path={pak}"));
    assert_eq!(st, 422, "keys forgotten");
}

/// The UE 5.8 fixtures: IoStore containers, legacy paks and mappings.
const UE58_TAGGED_UTOC: &str =
    "iostore/cue4parse/UE5_8/IoStore/Tagged/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc";
const UE58_UNVERSIONED_UTOC: &str =
    "iostore/cue4parse/UE5_8/IoStore/Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc";
const UE58_TAGGED_PAK: &str =
    "pak/cue4parse/UE5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak";
const UE58_UNVERSIONED_PAK: &str =
    "pak/cue4parse/UE5_8/LegacyPak/Unversioned/Uncompressed/CUE4ParseFixtures-Legacy-Unversioned-Uncompressed.pak";
const UE58_USMAP: &str = "pak/cue4parse/UE5_8/Mappings/CUE4ParseFixtures-Zstandard.usmap";
const DA: &str = "/Game/Fixtures/Properties/DA_AllProperties";
const DT: &str = "/Game/Fixtures/DataTables/DT_AllProperties";

/// `/api/asset` for `path` and `package`, and `&export=I` when given.
fn asset(s: &Server, path: &str, package: &str, export: Option<u64>) -> serde_json::Value {
    let mut pq = format!("/api/asset?path={}&package={}", enc(path), enc(package));
    if let Some(i) = export {
        pq.push_str(&format!("&export={i}"));
    }
    json(s, &pq)
}

/// The index of the export named `name` in an `/api/asset` listing.
fn export_named(listing: &serde_json::Value, name: &str) -> u64 {
    listing["exports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no export {name}: {listing}"))["index"]
        .as_u64()
        .unwrap()
}

fn property<'a>(export: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    export["properties"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no property {name}: {export}"))
}

/// What `pakrat props --json` prints for export `i` of `opened`, decoded
/// with `usmap` (the library's own path, for comparison).
fn props_json(
    opened: &pakrat_asset::props::Opened,
    i: usize,
    usmap: Option<&std::path::Path>,
) -> serde_json::Value {
    use pakrat_asset::props::{decode_export, json::ExportJson, schemas_with_package, NoSchemas};
    let asset = opened.asset();
    let m = usmap.map(|p| pakrat_asset::usmap::Usmap::open(p).unwrap());
    let base: &dyn pakrat_asset::props::Schemas = match &m {
        Some(m) => m,
        None => &NoSchemas,
    };
    let with = schemas_with_package(&asset, base);
    let p = decode_export(&asset, i, &with);
    serde_json::to_value(ExportJson {
        info: &asset.exports[i],
        props: &p,
    })
    .unwrap()
}

fn zen(c: &std::path::Path, utoc: &str, package: &str) -> pakrat_asset::props::Opened {
    use pakrat_asset::props::open;
    let utoc = c.join(utoc);
    let keys = pakrat_codec::KeyRing::new();
    let script = open::load_global(&open::find_global(&utoc).unwrap(), &keys).unwrap();
    let ct = pakrat_iostore::Container::open(&utoc, &keys).unwrap();
    open::open_in_container(&ct, Some(&script), package, None).unwrap()
}

/// The same fields `props --json` gives an export.
fn same_as_props(got: &serde_json::Value, want: &serde_json::Value) {
    for k in ["name", "path", "class", "outer", "properties", "native"] {
        assert_eq!(got[k], want[k], "{k} differs");
    }
    assert_eq!(got["error"], want["error"]);
}

#[test]
fn ue5_packages_in_a_container_show_their_properties_and_links() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let s = start(&c);
    let list = asset(&s, UE58_TAGGED_UTOC, DA, None);
    assert_eq!(list["package"], DA);
    assert_eq!(
        list["global"], "iostore/cue4parse/UE5_8/IoStore/Tagged/global.utoc",
        "{list}"
    );
    assert_eq!(list["unversioned"], false);
    let da = export_named(&list, "DA_AllProperties");
    let inline = export_named(&list, "InlineFixture");
    let e = &list["exports"][inline as usize];
    assert_eq!(e["class"], "/Script/CUE4ParseFixtures.FixtureInlineObject");
    assert_eq!(e["outer"], format!("{DA}.DA_AllProperties"));

    // Every property as `props --json` writes it.
    let j = asset(&s, UE58_TAGGED_UTOC, DA, Some(da));
    let opened = zen(&c, UE58_TAGGED_UTOC, DA);
    same_as_props(&j, &props_json(&opened, da as usize, None));
    assert_eq!(j["cut"], serde_json::json!({}));
    assert_eq!(property(&j, "Integer")["value"], 305419896);

    // Any array of the export in pages (`at`, a JSON pointer as `cut`
    // gives them, and `from`): the last 2 of the 12 text histories, with
    // the links of that page; a pointer to no array is a 404.
    let k = j["properties"]
        .as_array()
        .unwrap()
        .iter()
        .position(|p| p["name"] == "TextHistories")
        .unwrap();
    let at = format!("/properties/{k}/value");
    let pg = json(
        &s,
        &format!(
            "/api/asset?path={}&package={DA}&export={da}&at={}&from=10",
            enc(UE58_TAGGED_UTOC),
            enc(&at)
        ),
    );
    assert_eq!(pg["total"], 12, "{pg}");
    let all = property(&j, "TextHistories")["value"].as_array().unwrap();
    assert_eq!(pg["elements"].as_array().unwrap()[..], all[10..]);
    let table = all[11]["table"].as_str().unwrap();
    assert_eq!(
        pg["links"][table]["package"],
        "/Game/Fixtures/StringTables/ST_Fixed"
    );
    let (st, _) = get(
        &s,
        &format!(
            "/api/asset?path={}&package={DA}&export={da}&at=/properties/0/value",
            enc(UE58_TAGGED_UTOC)
        ),
    );
    assert_eq!(st, 404, "bBoolean is no array");

    // A reference to an export of the package opens that export.
    let to = property(&j, "InlineObject")["value"].as_str().unwrap();
    let link = &j["links"][to];
    assert_eq!(link["export"], inline, "{}", j["links"]);
    assert_eq!(link["path"], UE58_TAGGED_UTOC);
    let target = asset(
        &s,
        link["path"].as_str().unwrap(),
        link["package"].as_str().unwrap(),
        link["export"].as_u64(),
    );
    assert_eq!(target["name"], "InlineFixture");
    assert_eq!(target["path"], to);
    // One to another package of the container opens that package, where
    // the object is an export.
    let to = property(&j, "HardObjectReference")["value"]
        .as_str()
        .unwrap();
    let link = &j["links"][to];
    assert_eq!(link["package"], DT, "{}", j["links"]);
    assert_eq!(link["object"], to);
    let other = asset(&s, UE58_TAGGED_UTOC, DT, None);
    assert!(
        other["exports"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["path"] == to),
        "{other}"
    );
    // A soft path likewise; a /Script class is shown without a link.
    let soft = property(&j, "SoftObjectReference")["value"]
        .as_str()
        .unwrap();
    assert_eq!(j["links"][soft]["package"], DT);
    assert!(j["links"].get("/Script/Engine.Texture2D").is_none());

    // The package by its file path below the mount point, as the tree
    // names it.
    let files = json(
        &s,
        &format!(
            "/api/open?path={}&find=DA_AllProperties.uasset",
            enc(UE58_TAGGED_UTOC)
        ),
    );
    let file = files["found"][0]["path"].as_str().unwrap();
    assert_eq!(asset(&s, UE58_TAGGED_UTOC, file, None)["package"], DA);

    // Unknown package, export past the end, no package: 404, 404, 400.
    let (st, _) = get(
        &s,
        &format!(
            "/api/asset?path={}&package=/Game/Nope",
            enc(UE58_TAGGED_UTOC)
        ),
    );
    assert_eq!(st, 404);
    let (st, _) = get(
        &s,
        &format!(
            "/api/asset?path={}&package={DA}&export=999",
            enc(UE58_TAGGED_UTOC)
        ),
    );
    assert_eq!(st, 404);
    assert_eq!(
        get(&s, &format!("/api/asset?path={}", enc(UE58_TAGGED_UTOC))).0,
        400
    );

    // Unversioned without mappings: each export says what it needs, and
    // the answer is still a 200 with the other facts.
    let list = asset(&s, UE58_UNVERSIONED_UTOC, DA, None);
    assert_eq!(list["unversioned"], true);
    assert_eq!(list["mappings"], serde_json::Value::Null);
    let k = export_named(&list, "DA_AllProperties");
    let j = asset(&s, UE58_UNVERSIONED_UTOC, DA, Some(k));
    let err = j["error"].as_str().unwrap();
    assert!(
        err.contains("needs mappings for class ParserFixtureData"),
        "{err}"
    );
}

#[test]
fn unversioned_packages_read_with_usmap_and_found_mappings() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    // --usmap: the unversioned container decodes as the library does.
    let usmap = c.join(UE58_USMAP);
    let s = start_opts(&c, |o| o.usmap = Some(usmap.clone()));
    let list = asset(&s, UE58_UNVERSIONED_UTOC, DA, None);
    assert!(
        list["mappings"]
            .as_str()
            .unwrap()
            .ends_with("CUE4ParseFixtures-Zstandard.usmap (--usmap)"),
        "{list}"
    );
    let opened = zen(&c, UE58_UNVERSIONED_UTOC, DA);
    for e in list["exports"].as_array().unwrap() {
        let i = e["index"].as_u64().unwrap();
        let j = asset(&s, UE58_UNVERSIONED_UTOC, DA, Some(i));
        assert_eq!(j["error"], serde_json::Value::Null, "{j}");
        same_as_props(&j, &props_json(&opened, i as usize, Some(&usmap)));
    }
    let da = export_named(&list, "DA_AllProperties");
    let j = asset(&s, UE58_UNVERSIONED_UTOC, DA, Some(da));
    assert_eq!(property(&j, "Integer")["value"], 305419896);
    let to = property(&j, "InlineObject")["value"].as_str().unwrap();
    assert_eq!(
        j["links"][to]["export"],
        export_named(&list, "InlineFixture")
    );

    // An unversioned legacy pak (--ue-version) with the mappings found
    // beside its Pak folders (pak/cue4parse/UE5_8/Mappings/, the first by
    // name): the same values as the tagged pak.
    let s = start_opts(&c, |o| {
        o.ue_version = pakrat_asset::legacy::Layout::for_engine("5.8")
    });
    let list = asset(&s, UE58_UNVERSIONED_PAK, DA, None);
    assert_eq!(
        list["mappings"],
        "pak/cue4parse/UE5_8/Mappings/CUE4ParseFixtures-Brotli.usmap"
    );
    let tagged = asset(&s, UE58_TAGGED_PAK, DA, None);
    assert_eq!(tagged["unversioned"], false);
    // (tagged properties need no mappings: none are read for them)
    assert_eq!(tagged["mappings"], serde_json::Value::Null);
    let k = export_named(&list, "DA_AllProperties");
    let u = asset(&s, UE58_UNVERSIONED_PAK, DA, Some(k));
    let t = asset(
        &s,
        UE58_TAGGED_PAK,
        DA,
        Some(export_named(&tagged, "DA_AllProperties")),
    );
    assert_eq!(u["error"], serde_json::Value::Null, "{u}");
    let values = |j: &serde_json::Value| -> Vec<(String, serde_json::Value)> {
        j["properties"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap().to_lowercase(),
                    p["value"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(values(&u), values(&t));
    // In a pak, a reference to another package opens it by its entry.
    let to = property(&t, "HardObjectReference")["value"]
        .as_str()
        .unwrap();
    let link = &t["links"][to];
    assert_eq!(link["path"], UE58_TAGGED_PAK, "{}", t["links"]);
    let other = asset(&s, UE58_TAGGED_PAK, link["package"].as_str().unwrap(), None);
    assert_eq!(other["package"], DT);
    // An encrypted, Oodle-compressed pak: with the fixtures' key its index
    // and entries decrypt and decompress, and the package reads as the
    // plain pak's does; without the key, a 422 naming the encryption.
    let enc_pak = "pak/cue4parse/UE5_8/LegacyPak/Tagged/OodleEncrypted/CUE4ParseFixtures-Legacy-Tagged-OodleEncrypted.pak";
    let mut ring = pakrat_codec::KeyRing::new();
    ring.add(pakrat_codec::AesKey::parse(CUE4PARSE_KEY).unwrap());
    let pq = format!("/api/asset?path={}&package={DA}", enc(enc_pak));
    let (st, b) = get(&start_with(&c, ring), &pq);
    let msg = String::from_utf8_lossy(&b).into_owned();
    assert_eq!(st, 200, "{msg}");
    let listed: serde_json::Value = serde_json::from_slice(&b).unwrap();
    assert_eq!(listed["package"], DA, "{msg}");
    assert_eq!(listed["exports"].as_array().unwrap().len(), 2, "{msg}");
    let (st, b) = get(&start(&c), &pq);
    let msg = String::from_utf8_lossy(&b).into_owned();
    assert_eq!(st, 422, "{msg}");
    assert!(msg.contains("encrypted"), "{msg}");
    // Without --ue-version the unversioned legacy package cannot be laid
    // out: a 422 with the reader's message.
    let s = start(&c);
    let (st, b) = get(
        &s,
        &format!("/api/asset?path={}&package={DA}", enc(UE58_UNVERSIONED_PAK)),
    );
    assert_eq!(st, 422);
    assert!(String::from_utf8_lossy(&b).contains("give the engine version"));
}

/// A server with options set by `f`.
fn start_opts(root: &Path, f: impl FnOnce(&mut pakrat_view::Options)) -> Server {
    let (tx, rx) = std::sync::mpsc::channel();
    let mut opts = pakrat_view::Options {
        path: root.to_path_buf(),
        ..Default::default()
    };
    f(&mut opts);
    std::thread::spawn(move || {
        pakrat_view::serve(&opts, |r| {
            tx.send(r.url.clone()).unwrap();
        })
        .unwrap();
    });
    let url = rx.recv().unwrap();
    let port = url
        .split(':')
        .nth(2)
        .and_then(|p| p.split('/').next())
        .unwrap()
        .parse()
        .unwrap();
    let token = url
        .split("t=")
        .nth(1)
        .unwrap()
        .split('#')
        .next()
        .unwrap()
        .to_string();
    Server { port, token }
}

#[test]
fn a_loose_package_links_to_its_neighbours_and_damage_is_a_422() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    // DA_AllProperties and DT_AllProperties as loose files of a cooked
    // Content folder (from the tagged legacy pak).
    let t = tempfile::tempdir().unwrap();
    let content = t.path().join("Game/Content");
    let pak = pakrat_pak::Pak::open(c.join(UE58_TAGGED_PAK), &Default::default()).unwrap();
    for e in &pak.index.entries {
        if e.path.contains("_AllProperties.") {
            let to = content.join("Fixtures").join(&e.path);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::write(&to, pak.read(e).unwrap()).unwrap();
        }
    }
    let s = start(t.path());
    let da = "Game/Content/Fixtures/Properties/DA_AllProperties.uasset";
    let ls = json(&s, "/api/ls?path=Game/Content/Fixtures/Properties");
    let kinds: Vec<(&str, &str)> = ls["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["name"].as_str().unwrap(), e["kind"].as_str().unwrap()))
        .collect();
    assert!(
        kinds.contains(&("DA_AllProperties.uasset", "uasset")),
        "{kinds:?}"
    );
    let list = asset(&s, da, "", None);
    assert_eq!(list["package"], DA);
    let k = export_named(&list, "DA_AllProperties");
    let j = asset(&s, da, "", Some(k));
    let opened = pakrat_asset::props::open::open_loose(&t.path().join(da), None).unwrap();
    same_as_props(&j, &props_json(&opened, k as usize, None));
    let to = property(&j, "InlineObject")["value"].as_str().unwrap();
    assert_eq!(
        j["links"][to]["export"],
        export_named(&list, "InlineFixture")
    );
    let to = property(&j, "HardObjectReference")["value"]
        .as_str()
        .unwrap();
    let link = &j["links"][to];
    assert_eq!(
        link["path"], "Game/Content/Fixtures/DataTables/DT_AllProperties.uasset",
        "{}",
        j["links"]
    );
    assert_eq!(
        asset(&s, link["path"].as_str().unwrap(), "", None)["package"],
        DT
    );
    // T_BC7 is not here: shown without a link.
    let tex = property(&j, "HardTextureReference")["value"]
        .as_str()
        .unwrap();
    assert!(j["links"].get(tex).is_none(), "{}", j["links"]);

    // Damage: a header cut short is a 422 with the reader's message; a
    // .uexp of garbage gives each export its error, and the list still
    // comes; the server keeps serving.
    let bytes = std::fs::read(t.path().join(da)).unwrap();
    std::fs::write(t.path().join("Cut.uasset"), &bytes[..600]).unwrap();
    let (st, b) = get(&s, "/api/asset?path=Cut.uasset");
    let msg = String::from_utf8_lossy(&b).into_owned();
    assert_eq!(st, 422, "{msg}");
    assert!(msg.contains("offset"), "{msg}");
    std::fs::write(t.path().join("Junk.uasset"), &bytes).unwrap();
    let uexp = std::fs::read(t.path().join(da).with_extension("uexp")).unwrap();
    let junk: Vec<u8> = (0..uexp.len()).map(|i| (i * 7919 % 251) as u8).collect();
    std::fs::write(t.path().join("Junk.uexp"), junk).unwrap();
    let list = json(&s, "/api/asset?path=Junk.uasset");
    let mut errors = 0;
    for e in list["exports"].as_array().unwrap() {
        let (st, b) = get(
            &s,
            &format!("/api/asset?path=Junk.uasset&export={}", e["index"]),
        );
        assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
        let j: serde_json::Value = serde_json::from_slice(&b).unwrap();
        errors += usize::from(j["error"].is_string());
    }
    assert!(errors > 0, "garbage decoded without an error");
    // A .uexp that is a symbolic link out of the opened folder is not read.
    #[cfg(unix)]
    {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.uexp"), &uexp).unwrap();
        std::fs::write(t.path().join("Link.uasset"), &bytes).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.uexp"),
            t.path().join("Link.uexp"),
        )
        .unwrap();
        let (st, b) = get(&s, "/api/asset?path=Link.uasset");
        assert_eq!(st, 403, "{}", String::from_utf8_lossy(&b));
    }
    // Mutations of the header and of the export data: every answer is a
    // 200 (with per-export errors), a 422, or a 400 (the magic no longer
    // says it is a package), never a 500 (a panic).
    let uasset = std::fs::read(t.path().join(da)).unwrap();
    let mut seen = std::collections::BTreeMap::new();
    for k in 0..48usize {
        let (mut h, mut x) = (uasset.clone(), uexp.clone());
        let (buf, at) = if k % 2 == 0 {
            let n = h.len();
            (&mut h, k * 7919 % n)
        } else {
            let n = x.len();
            (&mut x, k * 7919 % n)
        };
        buf[at] ^= [0xFF, 0x80, 0x01, 0x7F][k % 4];
        std::fs::write(t.path().join("M.uasset"), &h).unwrap();
        std::fs::write(t.path().join("M.uexp"), &x).unwrap();
        let (st, b) = get(&s, "/api/asset?path=M.uasset");
        *seen.entry(st).or_insert(0) += 1;
        assert!(
            matches!(st, 200 | 400 | 422),
            "{k}: {st} {}",
            String::from_utf8_lossy(&b)
        );
        if st != 200 {
            continue;
        }
        let list: serde_json::Value = serde_json::from_slice(&b).unwrap();
        for e in list["exports"].as_array().unwrap() {
            let (st, b) = get(
                &s,
                &format!("/api/asset?path=M.uasset&export={}", e["index"]),
            );
            assert!(
                st == 200 || st == 422,
                "{k}: export {}: {st} {}",
                e["index"],
                String::from_utf8_lossy(&b)
            );
        }
    }
    assert!(seen.contains_key(&200), "{seen:?}");
    assert_eq!(json(&s, "/api/ls?path=")["path"], "");
}

/// A `global.utoc` that is a symbolic link out of the opened folder is
/// passed over: the package opens without it, and says so.
#[cfg(unix)]
#[test]
fn a_global_container_outside_the_folder_is_not_read() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let toc = UE58_TAGGED_UTOC.trim_end_matches(".utoc");
    for ext in ["utoc", "ucas"] {
        std::fs::copy(
            c.join(format!("{toc}.{ext}")),
            t.path().join(format!("F.{ext}")),
        )
        .unwrap();
        std::os::unix::fs::symlink(
            c.join(format!(
                "iostore/cue4parse/UE5_8/IoStore/Tagged/global.{ext}"
            )),
            t.path().join(format!("global.{ext}")),
        )
        .unwrap();
    }
    let s = start(t.path());
    let list = asset(&s, "F.utoc", DA, None);
    assert_eq!(list["global"], serde_json::Value::Null, "{list}");
    // (its script imports, the classes, are unresolved, and say so)
    let class = list["exports"][0]["class"].as_str().unwrap();
    assert!(class.contains("unresolved"), "{class}");
}

/// Mappings found beside a container are used; a mappings file that does
/// not read is named with the reader's message, and the package is read
/// without mappings (its unversioned exports say what they need).
#[test]
fn mappings_beside_a_container_and_a_damaged_one() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let toc = UE58_UNVERSIONED_UTOC.trim_end_matches(".utoc");
    std::fs::create_dir_all(t.path().join("Game/Paks")).unwrap();
    for ext in ["utoc", "ucas"] {
        std::fs::copy(
            c.join(format!("{toc}.{ext}")),
            t.path().join(format!("Game/Paks/F.{ext}")),
        )
        .unwrap();
        std::fs::copy(
            c.join(format!(
                "iostore/cue4parse/UE5_8/IoStore/Unversioned/global.{ext}"
            )),
            t.path().join(format!("Game/Paks/global.{ext}")),
        )
        .unwrap();
    }
    // Game/Mappings/ is the nearest folder with mappings (from Game/Paks
    // up): used.
    std::fs::create_dir_all(t.path().join("Game/Mappings")).unwrap();
    std::fs::copy(
        c.join(UE58_USMAP),
        t.path().join("Game/Mappings/Game.usmap"),
    )
    .unwrap();
    let s = start(t.path());
    let list = asset(&s, "Game/Paks/F.utoc", DA, None);
    assert_eq!(list["mappings"], "Game/Mappings/Game.usmap", "{list}");
    let k = export_named(&list, "DA_AllProperties");
    let j = asset(&s, "Game/Paks/F.utoc", DA, Some(k));
    assert_eq!(j["error"], serde_json::Value::Null, "{j}");
    assert_eq!(property(&j, "Integer")["value"], 305419896);
    // A nearer one, damaged: named, with the reader's message.
    std::fs::write(
        t.path().join("Game/Paks/Bad.usmap"),
        b"\xC4\x30\x04 not mappings",
    )
    .unwrap();
    let s = start(t.path());
    let list = asset(&s, "Game/Paks/F.utoc", DA, None);
    assert_eq!(list["mappings"], serde_json::Value::Null, "{list}");
    let e = list["mappings_error"].as_str().unwrap();
    assert!(
        e.contains("Game/Paks/Bad.usmap") && e.contains("offset"),
        "{e}"
    );
    let j = asset(&s, "Game/Paks/F.utoc", DA, Some(k));
    assert!(
        j["error"].as_str().unwrap().contains("needs mappings"),
        "{j}"
    );
}

/// `GET pq`: (status, Content-Type, body).
fn get_typed(s: &Server, pq: &str) -> (u16, String, Vec<u8>) {
    let host = format!("127.0.0.1:{}", s.port);
    let (st, head, b) = get_with(s, &host, &format!("{pq}&t={}", s.token));
    let ty = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-type: ")
                .map(str::to_string)
        })
        .unwrap_or_default();
    (st, ty, b)
}

/// `/api/uimage` or `/api/uaudio` of export `name` of package `pkg` of
/// `path`, with `extra` query; and the export's `/api/asset` answer.
fn ue_media(
    s: &Server,
    what: &str,
    path: &str,
    pkg: &str,
    name: &str,
    extra: &str,
) -> ((u16, String, Vec<u8>), serde_json::Value) {
    let k = export_named(&asset(s, path, pkg, None), name);
    let j = asset(s, path, pkg, Some(k));
    let pq = format!(
        "/api/{what}?path={}&package={}&export={k}{extra}",
        enc(path),
        enc(pkg)
    );
    (get_typed(s, &pq), j)
}

const FIX_TEX: &str = "/Game/Fixtures/Textures/";
const FIX_AUDIO: &str = "/Game/Fixtures/Audio/";

#[test]
fn ue5_textures_preview_by_mip_and_face_and_sounds_play() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let s = start(&c);
    let u = UE58_TAGGED_UTOC;
    // T_Mips: the model's sizes, mip by mip.
    let pkg = format!("{FIX_TEX}T_Mips");
    let (_, j) = ue_media(&s, "uimage", u, &pkg, "T_Mips", "");
    let mips = j["texture"]["mips"].as_array().unwrap().clone();
    assert!(mips.len() > 2, "{}", j["texture"]);
    for (m, want) in mips.iter().enumerate().take(2) {
        let ((st, ty, b), _) = ue_media(&s, "uimage", u, &pkg, "T_Mips", &format!("&mip={m}"));
        assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
        assert_eq!(ty, "image/png");
        let size = (
            want["width"].as_u64().unwrap() as u32,
            want["height"].as_u64().unwrap() as u32,
        );
        assert_eq!(png_size(&b), size, "mip {m}");
        assert!(b.ends_with(b"IEND\xaeB`\x82"), "mip {m}: a whole PNG");
    }
    assert_eq!(mips[1]["width"], mips[0]["width"].as_u64().unwrap() / 2);
    // Mip 1's pixels are the library's decoding of it.
    let ((_, _, b), _) = ue_media(&s, "uimage", u, &pkg, "T_Mips", "&mip=1");
    let mut r = png::Decoder::new(std::io::Cursor::new(b))
        .read_info()
        .unwrap();
    let mut shown = vec![0; r.output_buffer_size().unwrap()];
    let f = r.next_frame(&mut shown).unwrap();
    shown.truncate(f.buffer_size());
    assert_eq!(shown, library_pixels(&c, u, &pkg, 1));
    let past = format!("&mip={}", mips.len());
    assert_eq!(ue_media(&s, "uimage", u, &pkg, "T_Mips", &past).0 .0, 404);

    // The DDS download: every mip, undecoded, behind a DDS header.
    let ((st, _, b), j) = ue_media(&s, "udds", u, &pkg, "T_Mips", "");
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    assert_eq!(&b[..4], b"DDS ");
    let le = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let mips = j["texture"]["mips"].as_array().unwrap();
    assert_eq!((le(12), le(16)), (64, 64), "height, width");
    assert_eq!(le(28) as usize, mips.len(), "mip count");
    let pixels: u64 = mips.iter().map(|m| m["bytes"].as_u64().unwrap()).sum();
    assert!(
        [128, 148].contains(&(b.len() as u64 - pixels)),
        "{} bytes for {pixels} of mips",
        b.len()
    );

    // T_Cube: six faces, named, each one served; a seventh is a 404.
    let pkg = format!("{FIX_TEX}T_Cube");
    let ((st, _, b), j) = ue_media(&s, "uimage", u, &pkg, "T_Cube", "&slice=5");
    let t = &j["texture"];
    assert_eq!(t["kind"], "Cube", "{t}");
    assert_eq!(t["mips"][0]["surfaces"], 6);
    assert_eq!(t["surface"], "face");
    assert_eq!(t["surface_names"][1], "-X");
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    let side = t["width"].as_u64().unwrap() as u32;
    assert_eq!(png_size(&b), (side, side));
    assert_eq!(
        ue_media(&s, "uimage", u, &pkg, "T_Cube", "&slice=6").0 .0,
        404
    );

    // A cube array: six faces per cube, named by cube; a volume: its
    // depth slices; each last one served, one past it a 404.
    for (name, kind) in [("T_CubeArray", "CubeArray"), ("T_Volume", "Volume")] {
        let pkg = format!("{FIX_TEX}{name}");
        let (_, j) = ue_media(&s, "uimage", u, &pkg, name, "");
        let t = &j["texture"];
        assert_eq!(t["kind"], kind, "{t}");
        let n = t["mips"][0]["surfaces"].as_u64().unwrap();
        if kind == "CubeArray" {
            assert!(n >= 12 && n % 6 == 0, "{t}");
            assert_eq!(t["surface_names"][7], "1 -X");
        } else {
            assert_eq!(n, t["mips"][0]["depth"].as_u64().unwrap());
            assert!(n > 1, "{t}");
        }
        let last = ue_media(&s, "uimage", u, &pkg, name, &format!("&slice={}", n - 1)).0;
        assert_eq!(last.0, 200, "{}", String::from_utf8_lossy(&last.2));
        let past = ue_media(&s, "uimage", u, &pkg, name, &format!("&slice={n}")).0;
        assert_eq!(past.0, 404);
    }

    // Virtual textures: each mip is its tiles assembled (T_UDIM: 2×2 UDIM
    // blocks in one image), the same pixels `pakrat export` writes; no
    // second slice.
    for name in ["T_Virtual", "T_UDIM"] {
        let pkg = format!("{FIX_TEX}{name}");
        let ((st, _, b), j) = ue_media(&s, "uimage", u, &pkg, name, "");
        let t = &j["texture"];
        assert!(t["not_shown"].is_null(), "{t}");
        assert_eq!(st, 200, "{name}: {}", String::from_utf8_lossy(&b));
        let vt = &t["virtual_texture"];
        let m0 = &t["mips"][0];
        assert_eq!(
            t["mips"].as_array().unwrap().len() as u64,
            vt["mips"].as_u64().unwrap()
        );
        assert_eq!(
            (m0["width"].clone(), m0["height"].clone()),
            (vt["width"].clone(), vt["height"].clone()),
            "{t}"
        );
        assert_eq!(
            png_size(&b),
            (
                vt["width"].as_u64().unwrap() as u32,
                vt["height"].as_u64().unwrap() as u32
            )
        );
        if name == "T_UDIM" {
            assert_eq!(vt["udim_blocks"], serde_json::json!([2, 2]), "{vt}");
        }
        let m1 = ue_media(&s, "uimage", u, &pkg, name, "&mip=1").0;
        assert_eq!(
            png_size(&m1.2),
            (
                m0["width"].as_u64().unwrap() as u32 / 2,
                m0["height"].as_u64().unwrap() as u32 / 2
            )
        );
        assert_eq!(ue_media(&s, "uimage", u, &pkg, name, "&slice=1").0 .0, 404);
    }

    // An HDR texture is tone-clamped to an 8-bit PNG.
    let pkg = format!("{FIX_TEX}T_FloatRGBA");
    let ((st, _, b), j) = ue_media(&s, "uimage", u, &pkg, "T_FloatRGBA", "");
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    assert_eq!(j["texture"]["hdr"], true);
    assert_eq!(b[24], 8, "bit depth 8");

    // A PCM SoundWave: the WAV the library gives, byte for byte.
    let pkg = format!("{FIX_AUDIO}SW_Format_PCM");
    let ((st, ty, b), j) = ue_media(&s, "uaudio", u, &pkg, "SW_Format_PCM", "");
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    assert_eq!(ty, "audio/wav");
    assert_eq!(j["sound"]["playable"], true, "{}", j["sound"]);
    assert_eq!(b, library_audio(&c, u, &pkg), "the library's bytes");
    assert_eq!(&b[..4], b"RIFF");
    // A codec pakrat does not decode: as cooked, to download.
    let pkg = format!("{FIX_AUDIO}SW_Format_BinkAudio");
    let ((st, ty, b), j) = ue_media(&s, "uaudio", u, &pkg, "SW_Format_BinkAudio", "");
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    assert_eq!(ty, "application/octet-stream");
    assert_eq!(j["sound"]["decoded"], false);
    assert_eq!(j["sound"]["extension"], "binka");
    assert_eq!(b, library_audio(&c, u, &pkg));

    // Ogg Vorbis: as cooked (an Ogg stream, in two chunks), for the
    // browser's player.
    let name = "SW_Format_PlatformSpecific";
    let pkg = format!("{FIX_AUDIO}{name}");
    let ((st, ty, b), j) = ue_media(&s, "uaudio", u, &pkg, name, "");
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    assert_eq!((ty.as_str(), &b[..4]), ("audio/ogg", &b"OggS"[..]));
    assert_eq!(j["sound"]["chunks"], 2, "{}", j["sound"]);
    assert_eq!(b, library_audio(&c, u, &pkg));
    // The wrong kind of export is a 400.
    let ((st, _, _), _) = ue_media(&s, "uimage", u, &pkg, name, "");
    assert_eq!(st, 400);
}

/// Mip `mip` of a texture's first surface as RGBA8, as
/// `pakrat_texture` decodes it.
fn library_pixels(c: &std::path::Path, utoc: &str, pkg: &str, mip: usize) -> Vec<u8> {
    use pakrat_asset::props::{open, BulkFrom, NoSchemas};
    let utoc = c.join(utoc);
    let keys = pakrat_codec::KeyRing::new();
    let script = open::load_global(&open::find_global(&utoc).unwrap(), &keys).unwrap();
    let ct = pakrat_iostore::Container::open(&utoc, &keys).unwrap();
    let o = open::open_in_container(&ct, Some(&script), pkg, None).unwrap();
    let a = o.asset();
    let i = a
        .exports
        .iter()
        .position(|e| pakrat_asset::texture::is_texture_class(e.class_name()))
        .unwrap();
    let t = pakrat_asset::texture::read_export(&a, i, &NoSchemas).unwrap();
    let m = &t.mips[mip];
    let data = o
        .bulk(m.data.as_ref().unwrap(), BulkFrom::Container(&ct))
        .unwrap();
    let pf = pakrat_texture::PixelFormat::from_ue_name(&t.format).unwrap();
    let img = pakrat_texture::decode(pf, m.width, m.height, &data, &Default::default()).unwrap();
    match img.to_rgba8().pixels {
        pakrat_texture::Pixels::Rgba8(v) => v,
        _ => unreachable!(),
    }
}

/// A sound's bytes as `pakrat_asset::sound` gives them.
fn library_audio(c: &std::path::Path, utoc: &str, pkg: &str) -> Vec<u8> {
    use pakrat_asset::props::{open, BulkFrom, NoSchemas};
    let utoc = c.join(utoc);
    let keys = pakrat_codec::KeyRing::new();
    let script = open::load_global(&open::find_global(&utoc).unwrap(), &keys).unwrap();
    let ct = pakrat_iostore::Container::open(&utoc, &keys).unwrap();
    let o = open::open_in_container(&ct, Some(&script), pkg, None).unwrap();
    let a = o.asset();
    let i = a
        .exports
        .iter()
        .position(|e| pakrat_asset::sound::is_sound_class(e.class_name()))
        .unwrap();
    let w = pakrat_asset::sound::read_export(&a, i, &NoSchemas).unwrap();
    w.audio(&o, BulkFrom::Container(&ct), true).unwrap().bytes
}

#[test]
fn a_mutated_loose_texture_is_a_422_never_a_500() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let pak = pakrat_pak::Pak::open(c.join(UE58_TAGGED_PAK), &Default::default()).unwrap();
    let mut files = std::collections::HashMap::new();
    for e in &pak.index.entries {
        if e.path.starts_with("Textures/T_Streaming.") {
            let ext = e.path.rsplit_once('.').unwrap().1.to_string();
            files.insert(ext, pak.read(e).unwrap());
        }
    }
    let write = |stem: &str, uexp: &[u8], ubulk: &[u8]| {
        let p = t.path().join(stem);
        std::fs::write(p.with_extension("uasset"), &files["uasset"]).unwrap();
        std::fs::write(p.with_extension("uexp"), uexp).unwrap();
        std::fs::write(p.with_extension("ubulk"), ubulk).unwrap();
        format!("{stem}.uasset")
    };
    let s = start(t.path());
    let img = |f: &str, i: u64| get_typed(&s, &format!("/api/uimage?path={f}&export={i}"));
    let good = write("T_Streaming", &files["uexp"], &files["ubulk"]);
    let k = export_named(&json(&s, &format!("/api/asset?path={good}")), "T_Streaming");
    let (st, _, b) = img(&good, k);
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    // Its .ubulk cut short: the reader's message, a 422.
    let half = &files["ubulk"][..files["ubulk"].len() / 2];
    let cut = write("Cut", &files["uexp"], half);
    let (st, _, b) = img(&cut, k);
    let msg = String::from_utf8_lossy(&b).into_owned();
    assert_eq!(st, 422, "{msg}");
    assert!(msg.contains("ubulk"), "{msg}");
    // Its .ubulk a symbolic link out of the opened folder: refused.
    #[cfg(unix)]
    {
        let outside = tempfile::tempdir().unwrap();
        let real = outside.path().join("T.ubulk");
        std::fs::write(&real, &files["ubulk"]).unwrap();
        let f = write("Link", &files["uexp"], b"");
        std::fs::remove_file(t.path().join("Link.ubulk")).unwrap();
        std::os::unix::fs::symlink(&real, t.path().join("Link.ubulk")).unwrap();
        let (st, _, b) = img(&f, k);
        let msg = String::from_utf8_lossy(&b).into_owned();
        assert_eq!(st, 403, "{msg}");
        assert!(msg.contains("Link.ubulk"), "{msg}");
    }
    // Bytes of the export data changed one at a time (every fifth):
    // never a 500.
    let uexp = &files["uexp"];
    let mut statuses = std::collections::BTreeMap::new();
    for (n, at) in (0..uexp.len()).step_by(5).enumerate() {
        let mut m = uexp.clone();
        m[at] ^= 0xA5;
        let f = write(&format!("M{n}"), &m, &files["ubulk"]);
        let (st, _, b) = img(&f, k);
        assert!(st != 500, "byte {at}: {}", String::from_utf8_lossy(&b));
        *statuses.entry(st).or_insert(0) += 1;
        let (st, _) = get(&s, &format!("/api/asset?path={f}&export={k}"));
        assert_eq!(st, 200, "byte {at}");
    }
    eprintln!("statuses of one-byte changes: {statuses:?}");
    assert!(statuses.contains_key(&422), "{statuses:?}");
    assert!(statuses.contains_key(&200), "{statuses:?}");
}

#[test]
fn ue5_textures_preview_from_a_legacy_pak_and_unversioned_with_mappings() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let usmap = c.join(UE58_USMAP);
    let s = start_opts(&c, |o| o.usmap = Some(usmap.clone()));
    // A legacy pak: the mips in the pak's T_Streaming.ubulk entry.
    let entry = "Textures/T_Streaming.uasset";
    let ((st, _, b), j) = ue_media(&s, "uimage", UE58_TAGGED_PAK, entry, "T_Streaming", "");
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    let m0 = &j["texture"]["mips"][0];
    assert_eq!(png_size(&b), (512, 512), "{m0}");
    assert_eq!(m0["width"], 512);
    // The same texture from the container gives the same picture.
    let pkg = format!("{FIX_TEX}T_Streaming");
    let ((_, _, zen), _) = ue_media(&s, "uimage", UE58_TAGGED_UTOC, &pkg, "T_Streaming", "");
    assert_eq!(b, zen, "legacy and zen previews differ");
    // Unversioned: read with the mappings; the same picture.
    let ((st, _, b), j) = ue_media(&s, "uimage", UE58_UNVERSIONED_UTOC, &pkg, "T_Streaming", "");
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&b));
    assert!(j["mappings"].as_str().is_some(), "{}", j["mappings"]);
    assert_eq!(b, zen, "unversioned and tagged previews differ");
    let pkg = format!("{FIX_AUDIO}SW_Format_PCM");
    let ((st, ty, b), _) = ue_media(
        &s,
        "uaudio",
        UE58_UNVERSIONED_UTOC,
        &pkg,
        "SW_Format_PCM",
        "",
    );
    assert_eq!((st, ty.as_str()), (200, "audio/wav"));
    assert_eq!(b, library_audio(&c, UE58_TAGGED_UTOC, &pkg));
}

/// The JSON chunk of a `.glb` (checked: magic, version 2, length, a
/// JSON chunk then a BIN chunk).
fn glb_json(b: &[u8]) -> serde_json::Value {
    assert_eq!(&b[..4], b"glTF", "a .glb");
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(word(4), 2, "glTF version");
    assert_eq!(word(8), b.len(), "the header's length");
    let n = word(12);
    assert_eq!(&b[16..20], b"JSON");
    assert_eq!(&b[24 + n..28 + n], b"BIN\0");
    serde_json::from_slice(&b[20..20 + n]).unwrap()
}

/// The Khronos glTF-Validator over `files` (tools/gltf-validate, as the
/// CLI's mesh tests run it): each report's (errors, warnings); nothing
/// when node or the npm package is missing outside CI.
fn validate(files: &[std::path::PathBuf]) -> Vec<(String, u64, u64)> {
    let dir = pakrat_testkit::repo_root().join("tools/gltf-validate");
    let ok =
        dir.join("node_modules/gltf-validator").is_dir() && Path::new("/usr/bin/node").exists();
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true: the glTF validator must run (npm ci in tools/gltf-validate)"
        );
        eprintln!("\n**** SKIPPING glTF validation: no node or no tools/gltf-validate/node_modules ****\n");
        return Vec::new();
    }
    let o = std::process::Command::new("/usr/bin/node")
        .arg(dir.join("validate.js"))
        .args(files)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let r: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                r.to_string(),
                r["errors"].as_u64().unwrap(),
                r["warnings"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The index of the first export of class `class` in `/api/open`'s list.
fn first_of_class(s: &Server, path: &str, class: &str) -> u64 {
    let j = json(s, &format!("/api/open?path={}", enc(path)));
    j["exports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["class"] == class)
        .unwrap_or_else(|| panic!("{path}: no {class}"))["index"]
        .as_u64()
        .unwrap()
}

/// Issue 28 item 6: `/api/mesh` and `/api/umesh` answer a mesh as a
/// `.glb` the Khronos validator passes: a UE1 LodMesh with its sequences
/// as morph-target animations and its skins embedded, a UE2 skeletal mesh
/// with its skin and its paired MeshAnimation, a UE2 vertex mesh and a
/// static mesh, and the
/// UE 5.8 fixtures' static and skeletal meshes from a container; a
/// texture, an export past the end and a damaged mesh get a JSON error.
#[test]
fn meshes_come_as_valid_glb_and_non_meshes_as_json_errors() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let s = start(&c);
    let out = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let mut fetch = |pq: &str, name: &str| {
        let (st, ty, b) = get_typed(&s, pq);
        assert_eq!(
            st,
            200,
            "{pq}: {}",
            String::from_utf8_lossy(&b[..b.len().min(400)])
        );
        assert_eq!(ty, "model/gltf-binary", "{pq}");
        let j = glb_json(&b);
        eprintln!("{name}: {} bytes", b.len());
        let f = out.path().join(name);
        std::fs::write(&f, &b).unwrap();
        files.push(f);
        j
    };
    // UE1: a LodMesh; every sequence a morph-weights animation.
    let ue1 = "ue1/epiccustommodels.u";
    let k = first_of_class(&s, ue1, "LodMesh");
    let o = json(&s, &format!("/api/object?path={ue1}&export={k}"));
    assert_eq!(o["mesh"], true, "{o}");
    let j = fetch(&format!("/api/mesh?path={ue1}&export={k}"), "ue1.glb");
    let anims = j["animations"].as_array().unwrap();
    assert!(anims.len() > 1, "sequences: {}", anims.len());
    assert!(anims[0]["channels"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["target"]["path"] == "weights"));
    assert!(!j["meshes"][0]["primitives"][0]["targets"]
        .as_array()
        .unwrap()
        .is_empty());
    // relics.u's meshes: their skins embedded as PNG.
    let k = first_of_class(&s, "ue1/relics.u", "Mesh");
    let j = fetch(
        &format!("/api/mesh?path=ue1/relics.u&export={k}"),
        "relics.glb",
    );
    assert!(
        !j["images"].as_array().unwrap().is_empty(),
        "skins embedded"
    );
    assert_eq!(j["images"][0]["mimeType"], "image/png");
    // UE2: a skeletal mesh with the animation the export pairs with it.
    let ue2 = "ue2/SniperAnims.ukx";
    let k = first_of_class(&s, ue2, "SkeletalMesh");
    let j = fetch(&format!("/api/mesh?path={ue2}&export={k}"), "ue2-skel.glb");
    assert_eq!(j["skins"].as_array().unwrap().len(), 1);
    let anims = j["animations"].as_array().unwrap();
    assert!(!anims.is_empty());
    assert!(anims[0]["channels"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["target"]["path"] == "rotation"));
    // UE2: a vertex mesh (this one has one frame: no morph targets, no
    // animation).
    let vm = "ue2/XVehicles_rc.u";
    let k = first_of_class(&s, vm, "VertMesh");
    let j = fetch(&format!("/api/mesh?path={vm}&export={k}"), "ue2-vert.glb");
    assert_eq!(j["meshes"].as_array().unwrap().len(), 1);
    // UE2: a static mesh.
    let st2 = "ue2/forest.usx";
    let k = first_of_class(&s, st2, "StaticMesh");
    let j = fetch(
        &format!("/api/mesh?path={st2}&export={k}"),
        "ue2-static.glb",
    );
    assert!(j["animations"].as_array().is_none_or(Vec::is_empty));
    // UE 5.8 fixtures in a container: static and skeletal.
    for (pkg, name, skinned) in [
        ("/Game/Fixtures/Meshes/SM_Fixture", "SM_Fixture", false),
        ("/Game/Fixtures/Meshes/SK_Fixture", "SK_Fixture", true),
    ] {
        let k = export_named(&asset(&s, UE58_TAGGED_UTOC, pkg, None), name);
        let a = asset(&s, UE58_TAGGED_UTOC, pkg, Some(k));
        assert!(a["mesh"]["class"].is_string(), "{}", a["mesh"]);
        let pq = format!(
            "/api/umesh?path={}&package={}&export={k}",
            enc(UE58_TAGGED_UTOC),
            enc(pkg)
        );
        let j = fetch(&pq, &format!("{name}.glb"));
        assert_eq!(
            j["skins"].as_array().is_some_and(|v| !v.is_empty()),
            skinned,
            "{name}"
        );
    }
    // A loose unversioned UE 5.6 package (zenpair's SM_Cube, with the
    // fixtures' mappings): 24 vertices, 12 triangles, as `pakrat export`.
    let loose = start_opts(&c.join("zenpair/retoc/UE5.6"), |o| {
        o.usmap = Some(c.join("pak/cue4parse/UE5_8/Mappings/CUE4ParseFixtures-Uncompressed.usmap"));
        o.ue_version = pakrat_asset::legacy::Layout::for_engine("5.6");
    });
    let k = export_named(&asset(&loose, "SM_Cube.uasset", "", None), "SM_Cube");
    let (st, ty, b) = get_typed(
        &loose,
        &format!("/api/umesh?path=SM_Cube.uasset&export={k}"),
    );
    assert_eq!(
        (st, ty.as_str()),
        (200, "model/gltf-binary"),
        "{}",
        String::from_utf8_lossy(&b[..b.len().min(300)])
    );
    let j = glb_json(&b);
    let pos = j["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap() as usize;
    assert_eq!(j["accessors"][pos]["count"], 24);
    std::fs::write(out.path().join("SM_Cube.glb"), &b).unwrap();
    files.push(out.path().join("SM_Cube.glb"));
    // SK_Mannequin there is a Skeleton: no triangles to draw.
    let k = export_named(
        &asset(&loose, "SK_Mannequin.uasset", "", None),
        "SK_Mannequin",
    );
    let (st, _, b) = get_typed(
        &loose,
        &format!("/api/umesh?path=SK_Mannequin.uasset&export={k}"),
    );
    assert_eq!(st, 400, "{}", String::from_utf8_lossy(&b));
    for (what, errors, warnings) in validate(&files) {
        assert_eq!((errors, warnings), (0, 0), "{what}");
    }
    // Not a mesh, past the end: JSON errors.
    let tex = first_of_class(&s, "ue1/Longestyard.utx", "Texture");
    let (st, ty, b) = get_typed(
        &s,
        &format!("/api/mesh?path=ue1/Longestyard.utx&export={tex}"),
    );
    let e: serde_json::Value = serde_json::from_slice(&b).unwrap();
    assert_eq!((st, ty.as_str()), (400, "application/json"), "{e}");
    assert!(e["error"].as_str().unwrap().contains("not a mesh"), "{e}");
    let (st, _, _) = get_typed(&s, &format!("/api/mesh?path={ue1}&export=99999"));
    assert_eq!(st, 404);
    let k = export_named(&asset(&s, UE58_TAGGED_UTOC, DA, None), "DA_AllProperties");
    let (st, _, b) = get_typed(
        &s,
        &format!(
            "/api/umesh?path={}&package={}&export={k}",
            enc(UE58_TAGGED_UTOC),
            enc(DA)
        ),
    );
    assert_eq!(st, 400, "{}", String::from_utf8_lossy(&b));
}

/// A damaged UE1 mesh: its bytes changed one at a time (every 97th of
/// its data) give a `.glb` or a JSON error, never a 500, and the server
/// keeps serving.
#[test]
fn a_damaged_mesh_is_a_json_error_never_a_500() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let good = std::fs::read(c.join("ue1/relics.u")).unwrap();
    std::fs::write(t.path().join("relics.u"), &good).unwrap();
    let s = start(t.path());
    let k = first_of_class(&s, "relics.u", "Mesh");
    let o = json(&s, &format!("/api/object?path=relics.u&export={k}"));
    let (at, size) = (
        o["offset"].as_u64().unwrap() as usize,
        o["size"].as_u64().unwrap() as usize,
    );
    let mut statuses = std::collections::BTreeMap::new();
    for (n, pos) in (at..at + size).step_by(97).enumerate() {
        let mut m = good.clone();
        m[pos] ^= 0x5A;
        let name = format!("m{n}.u");
        std::fs::write(t.path().join(&name), &m).unwrap();
        let (st, ty, b) = get_typed(&s, &format!("/api/mesh?path={name}&export={k}"));
        assert!(st != 500, "byte {pos}: {}", String::from_utf8_lossy(&b));
        if st != 200 {
            assert_eq!(ty, "application/json", "byte {pos}");
            let e: serde_json::Value = serde_json::from_slice(&b).unwrap();
            assert!(e["error"].is_string(), "{e}");
        }
        *statuses.entry(st).or_insert(0) += 1;
    }
    // Cut short inside the mesh's data: the reader's message.
    std::fs::write(t.path().join("cut.u"), &good[..at + size / 2]).unwrap();
    let (st, _, b) = get_typed(&s, &format!("/api/mesh?path=cut.u&export={k}"));
    assert_eq!(st, 422, "{}", String::from_utf8_lossy(&b));
    eprintln!("statuses of one-byte changes: {statuses:?}");
    assert!(statuses.contains_key(&200), "{statuses:?}");
    let (st, _) = get(&s, &format!("/api/mesh?path=relics.u&export={k}"));
    assert_eq!(st, 200);
}
