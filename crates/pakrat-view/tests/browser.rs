//! End to end: a real headless Chromium (Debian's `chromium` and
//! `chromium-driver`; `.ci/run` installs them) drives `pakrat view` over
//! WebDriver (spoken here as plain JSON over HTTP): open a UT99 map's
//! folder, click to a texture and check the image's natural size is the
//! texture's, check a sound's `<audio>` source fetches the sound's bytes,
//! open a container and find a file with the filter. Screenshots of each
//! view are kept in `target/view-screenshots/`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const CHROMIUM: &str = "/usr/bin/chromium";
const DRIVER: &str = "/usr/bin/chromedriver";

/// One HTTP/1.1 request to 127.0.0.1:port; (status, body).
fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> (u16, Vec<u8>) {
    let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let b = body.map(|v| v.to_string()).unwrap_or_default();
    write!(
        c,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{b}",
        b.len()
    )
    .unwrap();
    // Read the head, then exactly Content-Length bytes (chromedriver keeps
    // connections open whatever the request says).
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    let split = loop {
        if let Some(p) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        let n = c.read(&mut buf).unwrap();
        assert!(n > 0, "connection closed before the response head");
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let mut body = raw[split + 4..].to_vec();
    let len = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map(|v| v.trim().parse::<usize>().unwrap());
    match len {
        Some(len) => {
            while body.len() < len {
                let n = c.read(&mut buf).unwrap();
                assert!(n > 0, "connection closed early");
                body.extend_from_slice(&buf[..n]);
            }
        }
        None => {
            c.read_to_end(&mut body).unwrap();
        }
    }
    if head.contains("transfer-encoding: chunked") {
        let mut out = Vec::new();
        let mut b = &body[..];
        loop {
            let line = b.windows(2).position(|w| w == b"\r\n").unwrap();
            let n =
                usize::from_str_radix(std::str::from_utf8(&b[..line]).unwrap().trim(), 16).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&b[line + 2..line + 2 + n]);
            b = &b[line + 2 + n + 2..];
        }
        body = out;
    }
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body)
}

struct Driver {
    child: Child,
    port: u16,
    session: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = http(
            self.port,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        );
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Driver {
    fn start(profile: &Path) -> Driver {
        let port = free_port();
        let child = Command::new(DRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let t0 = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        // The flags Chromium needs on a machine without network and as root.
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                         "--no-first-run", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync",
                         "--window-size=1280,800",
                         // WebGL (the 3D view) in software: no GPU here.
                         "--enable-unsafe-swiftshader", "--use-angle=swiftshader",
                         format!("--user-data-dir={}", profile.display())]
            }
        }}});
        let (st, b) = http(port, "POST", "/session", Some(&caps));
        let v: Value = serde_json::from_slice(&b).unwrap();
        assert_eq!(st, 200, "new session: {v}");
        let session = v["value"]["sessionId"].as_str().unwrap().to_string();
        Driver {
            child,
            port,
            session,
        }
    }

    fn cmd(&self, method: &str, what: &str, body: Value) -> Value {
        let path = format!("/session/{}/{what}", self.session);
        let body = (method != "GET").then_some(&body);
        let (st, b) = http(self.port, method, &path, body);
        let v: Value = serde_json::from_slice(&b).unwrap_or(Value::Null);
        assert_eq!(st, 200, "{what}: {v}");
        v["value"].clone()
    }

    fn go(&self, url: &str) {
        self.cmd("POST", "url", json!({ "url": url }));
    }

    fn js(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "execute/sync",
            json!({"script": script, "args": args}),
        )
    }

    fn js_async(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "execute/async",
            json!({"script": script, "args": args}),
        )
    }

    /// Poll `cond` (a JS expression) until it is truthy.
    fn wait(&self, cond: &str, what: &str) -> Value {
        let t0 = Instant::now();
        loop {
            let v = self.js(&format!("return ({cond});"), json!([]));
            if !(v.is_null() || v == json!(false) || v == json!(0) || v == json!("")) {
                return v;
            }
            if t0.elapsed() > Duration::from_secs(30) {
                self.screenshot(&shots_dir().join("timeout.png"));
                let right = self.js(
                    "return document.getElementById('right').innerText;",
                    json!([]),
                );
                panic!("timed out waiting for {what}; the page shows: {right}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Click the tree node whose label is `label` (the first visible one).
    fn click(&self, label: &str) {
        let sel = format!(
            "[...document.querySelectorAll('#tree .node')].find(n => n.dataset.label === {} && n.offsetParent)",
            json!(label.to_lowercase())
        );
        self.wait(&sel, label);
        self.js(&format!("({sel}).click(); return true;"), json!([]));
    }

    fn screenshot(&self, to: &Path) {
        use base64_png::decode;
        let b64 = self.cmd("GET", "screenshot", Value::Null);
        std::fs::write(to, decode(b64.as_str().unwrap())).unwrap();
    }
}

/// A small base64 decoder (screenshots arrive base64-encoded).
mod base64_png {
    pub fn decode(s: &str) -> Vec<u8> {
        let val = |c: u8| -> Option<u32> {
            Some(match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                _ => return None,
            } as u32)
        };
        let mut out = Vec::with_capacity(s.len() * 3 / 4);
        let (mut acc, mut bits) = (0u32, 0);
        for c in s.bytes().filter_map(val) {
            acc = (acc << 6) | c;
            bits += 6;
            if bits >= 8 {
                bits -= 8;
                out.push((acc >> bits) as u8);
                acc &= (1 << bits) - 1;
            }
        }
        out
    }
}

fn shots_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/view-screenshots");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(from, to).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
}

/// Whether Chromium and its driver are installed; without them the test
/// says so and skips, except under CI=true, where it fails.
fn browser_available() -> bool {
    if Path::new(CHROMIUM).exists() && Path::new(DRIVER).exists() {
        return true;
    }
    if std::env::var_os("CI").is_some_and(|v| v == "true") {
        panic!("CI=true but {CHROMIUM} or {DRIVER} is missing (.ci/run installs them)");
    }
    eprintln!("SKIPPED: no {CHROMIUM} / {DRIVER}: the browser test did not run (apt install chromium chromium-driver)");
    false
}

#[test]
fn a_browser_sees_textures_sounds_and_containers() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    if !browser_available() {
        return;
    }
    // A UT99-style folder: a map, its texture packages, a sound package, and
    // an IoStore container.
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("UT");
    copy(
        &c.join("ue1/DM-Longestyard][.unr"),
        &root.join("Maps/DM-Longestyard][.unr"),
    );
    copy(
        &c.join("ue1/Longestyard.utx"),
        &root.join("Textures/Longestyard.utx"),
    );
    copy(
        &c.join("ue1/DefaultAnnouncements.uax"),
        &root.join("Sounds/DefaultAnnouncements.uax"),
    );
    // A UT2004 map importing 25 packages (none of them here: all missing).
    copy(&c.join("ue2/DM-Gael.ut2"), &root.join("Maps/DM-Gael.ut2"));
    // A pak whose index is encrypted (its key is typed into the page).
    copy(
        &c.join("pak/repak_tests/packs/pack_v11_compress_encrypt_encryptindex.pak"),
        &root.join("Content/Paks/Enc.pak"),
    );
    let toc = "iostore/cue4parse/UE5_8/IoStore/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows";
    let unversioned =
        "iostore/cue4parse/UE5_8/IoStore/Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows";
    for ext in ["utoc", "ucas"] {
        copy(
            &c.join(format!("{toc}.{ext}")),
            &root.join(format!("Content/Paks/Fixtures.{ext}")),
        );
        // The global containers their script imports are resolved with.
        copy(
            &c.join(format!(
                "iostore/cue4parse/UE5_8/IoStore/Tagged/global.{ext}"
            )),
            &root.join(format!("Content/Paks/global.{ext}")),
        );
        // An unversioned container, no mappings anywhere.
        copy(
            &c.join(format!("{unversioned}.{ext}")),
            &root.join(format!("Unversioned/Minimal.{ext}")),
        );
        copy(
            &c.join(format!(
                "iostore/cue4parse/UE5_8/IoStore/Unversioned/global.{ext}"
            )),
            &root.join(format!("Unversioned/global.{ext}")),
        );
    }
    // A loose UE5 package (from the tagged legacy pak).
    let pak = pakrat_pak::Pak::open(
        c.join("pak/cue4parse/UE5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak"),
        &Default::default(),
    )
    .unwrap();
    for e in &pak.index.entries {
        if let Some(name) = e.path.strip_prefix("Properties/") {
            let to = root.join("Loose").join(name);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::write(to, pak.read(e).unwrap()).unwrap();
        }
    }
    // Long UE5 arrays come 5 elements at a time here (1,000 by default),
    // so that the fixtures' arrays page.
    std::env::set_var("PAKRAT_VIEW_MAX_ELEMENTS", "5");
    let (tx, rx) = std::sync::mpsc::channel();
    let opts = pakrat_view::Options {
        path: root.clone(),
        port: 0,
        token: None,
        keys: Default::default(),
        ..Default::default()
    };
    std::thread::spawn(move || {
        pakrat_view::serve(&opts, |r| tx.send(r.url.clone()).unwrap()).unwrap();
    });
    let url = rx.recv().unwrap();
    let shots = shots_dir();
    let d = Driver::start(&t.path().join("profile"));
    d.go(&url);
    d.wait(
        "document.querySelectorAll('#tree .node').length >= 4",
        "the folder listing",
    );
    d.screenshot(&shots.join("1-folder.png"));

    // A texture: its PNG's natural size is the texture's USize x VSize.
    d.click("Textures");
    d.click("Longestyard.utx");
    d.wait(
        "document.querySelector('#right h2') && document.querySelector('#right table')",
        "package facts",
    );
    // Its dependency graph (Engine is not in this folder: marked missing).
    d.wait(
        "(() => { const i = document.querySelector('img.deps'); return i && i.complete && i.naturalWidth > 0; })()",
        "the dependency graph",
    );
    let missing = d.js(
        "return [...document.querySelectorAll('#deps tr')].find(r => r.cells[0].textContent === 'missing').cells[1].textContent;",
        json!([]),
    );
    assert_eq!(missing, "Engine");
    d.screenshot(&shots.join("2-package.png"));
    d.click("Texture");
    let first = d.js(
        "const n = [...document.querySelectorAll('#tree .node')].find(n => n.dataset.label === 'texture'); \
         return n.parentElement.querySelector(':scope > ul .node').dataset.label;",
        json!([]),
    );
    d.click(first.as_str().unwrap());
    let size = d.wait(
        "(() => { const i = document.querySelector('img.tex'); return i && i.complete && i.naturalWidth ? [i.naturalWidth, i.naturalHeight] : null; })()",
        "the texture image",
    );
    let props = d.js(
        "const rows = [...document.querySelectorAll('#right table tr')].map(r => [r.cells[0].textContent, r.cells[1].textContent]); \
         return Object.fromEntries(rows);",
        json!([]),
    );
    let usize: u64 = props["USize"].as_str().unwrap().parse().unwrap();
    let vsize: u64 = props["VSize"].as_str().unwrap().parse().unwrap();
    assert_eq!(
        size,
        json!([usize, vsize]),
        "image natural size vs USize/VSize"
    );
    let cells = d.js(
        "return document.querySelectorAll('.pal i').length;",
        json!([]),
    );
    assert_eq!(cells, json!(256), "the P8 palette");
    d.screenshot(&shots.join("3-texture.png"));
    // Its Palette (a full path, as `props --json` writes it) links to the
    // package's own Palette export.
    let target = d.js(
        "const a = [...document.querySelectorAll('#right a.ref')].find(a => a.closest('tr').cells[0].textContent === 'Palette'); \
         a.click(); return a.textContent;",
        json!([]),
    );
    assert!(
        target
            .as_str()
            .is_some_and(|t| t.starts_with("Longestyard.")),
        "{target}"
    );
    d.wait(
        "document.querySelector('#right h2') && document.querySelector('#right h2').textContent.endsWith('(Palette)')",
        "the linked palette",
    );

    a_sound_plays_its_stored_bytes(&d, &shots);

    // A container: its first level, then a file found by the filter.
    d.click("Content");
    d.click("Paks");
    d.click("Fixtures.utoc");
    d.wait("document.querySelector('#right table')", "container facts");
    d.wait("[...document.querySelectorAll('#right h3')].some(h => h.textContent.startsWith('Zen packages'))", "zen packages");
    d.screenshot(&shots.join("5-container.png"));
    d.js(
        "const f = document.getElementById('filter'); f.value = 'uasset'; f.dispatchEvent(new Event('input')); return true;",
        json!([]),
    );
    let n = d.wait(
        "document.querySelectorAll('#found li').length",
        "files found by the filter",
    );
    assert!(n.as_u64().unwrap() > 0);
    let first_found = d.js(
        "return document.querySelector('#found li').dataset.path;",
        json!([]),
    );
    assert!(first_found
        .as_str()
        .unwrap()
        .to_lowercase()
        .contains("uasset"));
    d.screenshot(&shots.join("6-filter.png"));

    search_hits_open_and_extract_through_a_dialog(&d, &t.path().join("out"), &shots);
    wide_tables_stay_on_the_page(&d, &shots);
    big_graphs_zoom_and_pan(&d, &shots);
    keys_typed_into_the_page(&d, &shots);
    ue5_properties_and_links(&d, &shots);
    ue5_textures_and_sounds(&d, &shots);
    eprintln!("screenshots in {}", shots.display());
}

/// A sound: the `<audio>` source fetches the sound's stored bytes.
fn a_sound_plays_its_stored_bytes(d: &Driver, shots: &Path) {
    d.click("Sounds");
    d.click("DefaultAnnouncements.uax");
    d.click("Sound");
    // Objects come grouped: the announcer sounds are in group General.
    d.click("General");
    let first = d.js(
        "const n = [...document.querySelectorAll('#tree .node')].find(n => n.dataset.label === 'general'); \
         return n.parentElement.querySelector(':scope > ul .node').dataset.label;",
        json!([]),
    );
    d.click(first.as_str().unwrap());
    d.wait("document.querySelector('audio')", "the audio player");
    let got = d.js_async(
        "const done = arguments[arguments.length - 1]; \
         const src = new URL(document.querySelector('audio').src); \
         const meta = new URL('/api/object', src); \
         for (const k of ['path', 'export', 't']) meta.searchParams.set(k, src.searchParams.get(k)); \
         Promise.all([fetch(src).then(r => r.arrayBuffer()), fetch(meta).then(r => r.json())]).then(([b, o]) => { \
           const v = new DataView(b); done([b.byteLength, String.fromCharCode(v.getUint8(0), v.getUint8(1), v.getUint8(2), v.getUint8(3)), v.getUint32(4, true), o.files[0].size]); })",
        json!([]),
    );
    let len = got[0].as_u64().unwrap();
    assert_eq!(got[1], "RIFF", "{got}");
    assert_eq!(
        len,
        got[3].as_u64().unwrap(),
        "bytes fetched vs the sound's stored size"
    );
    assert_eq!(
        got[2].as_u64().unwrap() + 8,
        len,
        "RIFF size vs bytes fetched"
    );
    // ... and that is the size the object view reports for the file.
    let shown = d.js(
        "return document.querySelector('#right a[download]').textContent;",
        json!([]),
    );
    assert!(shown.as_str().unwrap().ends_with(".wav"), "{shown}");
    d.screenshot(&shots.join("4-sound.png"));
}

/// A container search hit opens the file (download, extract); extraction
/// goes through a dialog (never `prompt()`), refuses to overwrite until
/// "replace" is ticked, and the files land on disk.
fn search_hits_open_and_extract_through_a_dialog(d: &Driver, out: &Path, shots: &Path) {
    let hit = d.js(
        "const a = document.querySelector('#found a.hit'); a.click(); return a.textContent;",
        json!([]),
    );
    let hit = hit.as_str().unwrap().to_string();
    d.wait(
        &format!(
            "document.querySelector('#right h2') && document.querySelector('#right h2').textContent === {}",
            json!(hit)
        ),
        "the search hit's page",
    );
    let got = d.js_async(
        "const done = arguments[arguments.length - 1]; \
         fetch(document.querySelector('#right a[download]').href).then(r => r.arrayBuffer().then(b => done([r.status, b.byteLength])));",
        json!([]),
    );
    assert_eq!(got[0], 200, "{got}");
    assert!(got[1].as_u64().unwrap() > 0, "{got}");
    // The dialog, not prompt().
    d.js(
        "window.prompt = () => { window.__prompted = true; return null; }; \
         window.confirm = () => { window.__prompted = true; return false; }; \
         document.getElementById('extract').click(); return true;",
        json!([]),
    );
    d.wait(
        "document.getElementById('exdlg').open",
        "the extract dialog",
    );
    let extract = |force: bool| {
        d.js(
            "document.getElementById('exdest').value = arguments[0]; \
             document.getElementById('exforce').checked = arguments[1]; \
             document.getElementById('exmsg').textContent = ''; \
             document.getElementById('exgo').click(); return true;",
            json!([out.display().to_string(), force]),
        );
        d.wait(
            "(() => { const t = document.getElementById('exmsg').textContent; return !t.includes('extracting') && t; })()",
            "the extraction's answer",
        )
    };
    let said = extract(false);
    assert!(
        said.as_str().unwrap().contains("1 file(s) written"),
        "{said}"
    );
    let written = out.join(&hit);
    assert!(
        std::fs::metadata(&written).is_ok_and(|m| m.len() > 0),
        "{} not written",
        written.display()
    );
    d.screenshot(&shots.join("7-extract-dialog.png"));
    let said = extract(false);
    assert!(said.as_str().unwrap().contains("already exists"), "{said}");
    let said = extract(true);
    assert!(said.as_str().unwrap().contains("written"), "{said}");
    let prompted = d.js("return !!window.__prompted;", json!([]));
    assert_eq!(prompted, json!(false), "prompt() or confirm() was used");
    d.js(
        "document.getElementById('exclose').click(); return true;",
        json!([]),
    );
    d.wait(
        "!document.getElementById('exdlg').open",
        "the dialog closed",
    );
}

/// Nothing the right panel shows runs off the page in a narrow window: wide
/// tables scroll within themselves, long paths wrap.
fn wide_tables_stay_on_the_page(d: &Driver, shots: &Path) {
    d.cmd("POST", "window/rect", json!({"width": 900, "height": 800}));
    d.click("Fixtures.utoc");
    d.wait("[...document.querySelectorAll('#right h3')].some(h => h.textContent.startsWith('Zen packages'))", "zen packages");
    let fits = d.js(
        "const r = document.getElementById('right').getBoundingClientRect(); \
         const tables = [...document.querySelectorAll('#right table')]; \
         return {page: document.documentElement.scrollWidth <= window.innerWidth, \
                 panel: r.right <= window.innerWidth + 1, \
                 tables: tables.length, \
                 inside: tables.every(t => t.getBoundingClientRect().right <= r.right + 1)};",
        json!([]),
    );
    d.js_async(
        "const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
        json!([]),
    );
    d.screenshot(&shots.join("8-narrow.png"));
    assert_eq!(
        fits,
        json!({"page": true, "panel": true, "tables": 3, "inside": true}),
        "tables at 900 px"
    );
    d.cmd("POST", "window/rect", json!({"width": 1280, "height": 800}));
}

/// A map importing 25 packages: its graph wraps into rows (at most 8 boxes,
/// 1,344 px, wide: it was 4,166), and it zooms (buttons, wheel) and pans
/// (drag).
fn big_graphs_zoom_and_pan(d: &Driver, shots: &Path) {
    d.js(
        "const f = document.getElementById('filter'); f.value = ''; f.dispatchEvent(new Event('input')); return true;",
        json!([]),
    );
    d.click("Maps");
    d.click("DM-Gael.ut2");
    let w = d.wait(
        "(() => { const i = document.querySelector('img.deps'); return i && i.complete && i.naturalWidth && document.getElementById('graphbox').dataset.zoom ? i.naturalWidth : 0; })()",
        "the dependency graph",
    );
    assert!(w.as_u64().unwrap() <= 1344, "graph {w} px wide");
    let state = "const b = document.getElementById('graphbox'), i = b.querySelector('img'); \
                 return [Number(b.dataset.zoom), i.getBoundingClientRect().width, i.naturalWidth, b.scrollLeft, b.scrollWidth > b.clientWidth];";
    let fit = d.js(state, json!([]));
    let z0 = fit[0].as_f64().unwrap();
    assert!(z0 <= 1.0, "{fit}");
    assert!(
        (fit[1].as_f64().unwrap() - fit[2].as_f64().unwrap() * z0).abs() <= 1.0,
        "{fit}"
    );
    d.js("document.querySelector('button[data-zoom=in]').click(); document.querySelector('button[data-zoom=in]').click(); return true;", json!([]));
    let zin = d.js(state, json!([]));
    assert!(
        (zin[0].as_f64().unwrap() - z0 * 1.5625).abs() < 1e-6 || zin[0].as_f64().unwrap() == 4.0,
        "{zin}"
    );
    d.js("document.querySelector('button[data-zoom=\"1\"]').click(); document.getElementById('graphbox').scrollLeft = 0; return true;", json!([]));
    let one = d.js(state, json!([]));
    assert_eq!(one[0], json!(1), "{one}");
    assert_eq!(
        one[1].as_f64().unwrap().round() as u64,
        w.as_u64().unwrap(),
        "1:1"
    );
    assert_eq!(one[4], json!(true), "the box scrolls at 1:1: {one}");
    // Drag 200 px to the left: the view moves 200 px to the right.
    let moved = d.js(
        "const b = document.getElementById('graphbox'), r = b.getBoundingClientRect(); \
         const at = (t, x) => b.dispatchEvent(new PointerEvent(t, {bubbles: true, pointerId: 7, clientX: x, clientY: r.top + 40})); \
         at('pointerdown', r.left + 300); at('pointermove', r.left + 200); at('pointermove', r.left + 100); at('pointerup', r.left + 100); \
         return b.scrollLeft;",
        json!([]),
    );
    assert_eq!(moved, json!(200), "scrollLeft after the drag");
    // The wheel zooms in around the pointer.
    let z = d.js(
        "const b = document.getElementById('graphbox'), r = b.getBoundingClientRect(); \
         b.dispatchEvent(new WheelEvent('wheel', {bubbles: true, cancelable: true, deltaY: -100, clientX: r.left + 50, clientY: r.top + 20})); \
         return Number(b.dataset.zoom);",
        json!([]),
    );
    assert!((z.as_f64().unwrap() - 1.1).abs() < 1e-6, "{z}");
    d.js(
        "document.querySelector('.graphbar').scrollIntoView(); return true;",
        json!([]),
    );
    d.screenshot(&shots.join("9-graph.png"));
}

/// The repak test paks' key, as their crypto.json gives it (base64).
const REPAK_KEY: &str = "lNJbw660IOC+kU7cnVQ1oeqrXyhk4J6UAZrCBbcnp94=";

/// A pak with an encrypted index: the page says so and asks for the key;
/// a wrong key is a clear error in the dialog; the right one lists the
/// pak. The key is in no URL the page requested.
fn keys_typed_into_the_page(d: &Driver, shots: &Path) {
    d.click("Enc.pak");
    d.wait(
        "document.querySelector('#right button.askkey')",
        "the key button",
    );
    let msg = d.js(
        "return document.querySelector('#right .err').textContent;",
        json!([]),
    );
    assert!(
        msg.as_str().unwrap().contains("the index is encrypted"),
        "{msg}"
    );
    d.js(
        "document.querySelector('#right button.askkey').click(); return true;",
        json!([]),
    );
    d.wait("document.getElementById('keydlg').open", "the key dialog");
    let try_key = |k: &str| {
        d.js(
            "document.getElementById('keymsg').textContent = ''; \
             document.getElementById('keytext').value = arguments[0]; \
             document.getElementById('keygo').click(); return true;",
            json!([k]),
        );
    };
    try_key(&"00".repeat(32));
    let said = d.wait(
        "(() => { const t = document.getElementById('keymsg').textContent; return !t.includes('trying') && t; })()",
        "the wrong key's error",
    );
    assert!(said.as_str().unwrap().contains("wrong AES key"), "{said}");
    assert_eq!(
        d.js("return document.getElementById('keydlg').open;", json!([])),
        json!(true)
    );
    d.screenshot(&shots.join("10-wrong-key.png"));
    try_key(REPAK_KEY);
    d.wait(
        "!document.getElementById('keydlg').open",
        "the key accepted",
    );
    d.wait(
        "[...document.querySelectorAll('#right tr')].some(r => r.cells[0].textContent === 'files' && r.cells[1].textContent === '4')",
        "the pak's facts",
    );
    d.click("test.txt");
    d.screenshot(&shots.join("11-key.png"));
    let urls = d.js(
        "return performance.getEntriesByType('resource').map(e => e.name).concat([location.href]).join(' ');",
        json!([]),
    );
    let urls = urls.as_str().unwrap();
    for k in [REPAK_KEY, "lNJbw660IOC", "lNJbw660IOC%2BkU7"] {
        assert!(!urls.contains(k), "the key is in a URL: {urls}");
    }
    assert!(urls.contains("/api/keys"), "{urls}");
}

/// The rows of the properties table shown: (name, value text).
fn property_rows(d: &Driver) -> Value {
    d.js(
        "return Object.fromEntries([...document.querySelectorAll('#right table.props > tbody > tr')].map(r => [r.cells[0].firstChild.textContent, r.cells[1].textContent]));",
        json!([]),
    )
}

/// Wait for the export view titled `name`.
fn wait_export(d: &Driver, name: &str) {
    d.wait(
        &format!(
            "document.querySelector('#right h2') && document.querySelector('#right h2').textContent.startsWith({} + ' (') && document.querySelector('#right table')",
            json!(name)
        ),
        name,
    );
}

/// Click the link `a.aref` in the properties row `row`.
fn follow(d: &Driver, row: &str) -> Value {
    d.js(
        "const r = [...document.querySelectorAll('#right table.props > tbody > tr')].find(r => r.cells[0].firstChild.textContent === arguments[0]); \
         const a = r.cells[1].querySelector('a.aref'); a.click(); return a.textContent;",
        json!([row]),
    )
}

/// UE5 packages: a container's zen package opens to its exports (from the
/// container's page and from the tree), an export to its properties as
/// `props` decodes them; a reference to an export of the package and one
/// to another package of the container are links that open their targets;
/// an unversioned package without mappings says what it needs.
fn ue5_properties_and_links(d: &Driver, shots: &Path) {
    d.click("Fixtures.utoc");
    let da = "/Game/Fixtures/Properties/DA_AllProperties";
    d.wait(
        &format!("document.querySelector('#right a.pkg[data-package=\"{da}\"]')"),
        "the zen package links",
    );
    d.js(
        &format!(
            "document.querySelector('#right a.pkg[data-package=\"{da}\"]').click(); return true;"
        ),
        json!([]),
    );
    d.wait(
        "[...document.querySelectorAll('#right a.exp')].some(a => a.textContent === 'DA_AllProperties')",
        "the package's exports",
    );
    let global = d.js(
        "return [...document.querySelectorAll('#right tr')].find(r => r.cells[0].textContent === 'global container').cells[1].textContent;",
        json!([]),
    );
    assert_eq!(global, "Content/Paks/global.utoc");
    d.js(
        "[...document.querySelectorAll('#right a.exp')].find(a => a.textContent === 'DA_AllProperties').click(); return true;",
        json!([]),
    );
    wait_export(d, "DA_AllProperties");
    let rows = property_rows(d);
    assert_eq!(rows["Integer"], "305419896", "{rows}");
    assert_eq!(rows["bBoolean"], "true", "{rows}");
    assert!(
        rows["Text"]
            .as_str()
            .unwrap()
            .starts_with("\"Localized-ish fixture text Ω\""),
        "{rows}"
    );
    d.screenshot(&shots.join("12-ue5-properties.png"));
    long_arrays_page(d, shots);
    // To an export of the same package.
    let to = follow(d, "InlineObject");
    assert!(to.as_str().unwrap().ends_with(":InlineFixture"), "{to}");
    wait_export(d, "InlineFixture");
    let path = d.js(
        "return [...document.querySelectorAll('#right tr')].find(r => r.cells[0].textContent === 'path').cells[1].textContent;",
        json!([]),
    );
    assert_eq!(path, to);
    // Its outer links back; from there, to another package of the container.
    d.js(
        "[...document.querySelectorAll('#right tr')].find(r => r.cells[0].textContent === 'outer').querySelector('a.aref').click(); return true;",
        json!([]),
    );
    wait_export(d, "DA_AllProperties");
    let to = follow(d, "HardObjectReference");
    assert_eq!(
        to,
        "/Game/Fixtures/DataTables/DT_AllProperties.DT_AllProperties"
    );
    wait_export(d, "DT_AllProperties");
    d.screenshot(&shots.join("13-ue5-linked.png"));

    // The tree: the container's folders down to the package, its exports.
    // (the mount point is ../../../CUE4ParseFixtures/Content/Fixtures/)
    for label in ["Properties/", "DA_AllProperties.uasset"] {
        d.click(label);
    }
    d.wait(
        "[...document.querySelectorAll('#right h3')].some(h => h.textContent === 'Exports')",
        "the package page",
    );
    d.click("InlineFixture");
    wait_export(d, "InlineFixture");
    assert_eq!(property_rows(d)["Marker"], "38177486");

    // A loose package: the file opens to its page and its exports.
    d.click("Loose");
    let loose = "document.querySelector('.node[data-path=\"Loose/DA_AllProperties.uasset\"]')";
    d.wait(loose, "the loose package in the tree");
    d.js(&format!("{loose}.click(); return true;"), json!([]));
    d.wait(
        "document.querySelector('#right h2') && document.querySelector('#right h2').textContent === '/Game/Fixtures/Properties/DA_AllProperties'",
        "the loose package's page",
    );
    // Its exports in the tree, below the file's node.
    let export = format!(
        "[...{loose}.parentElement.querySelectorAll(':scope > ul .node')].find(n => n.dataset.label === 'inlinefixture')"
    );
    d.wait(&export, "the loose package's exports");
    d.js(&format!("{export}.click(); return true;"), json!([]));
    wait_export(d, "InlineFixture");
    // (read from the loose file: the export the page shows is that file's)
    let from = d.js("return acur.path;", json!([]));
    assert_eq!(from, "Loose/DA_AllProperties.uasset");
    assert_eq!(property_rows(d)["Label"], "Inline object payload");

    // Unversioned, no mappings: the page says what is missing.
    d.click("Unversioned");
    d.click("Minimal.utoc");
    d.wait(
        &format!("document.querySelector('#right a.pkg[data-package=\"{da}\"]')"),
        "the unversioned zen package links",
    );
    d.js(
        &format!(
            "document.querySelector('#right a.pkg[data-package=\"{da}\"]').click(); return true;"
        ),
        json!([]),
    );
    d.wait("document.querySelector('#right a.exp')", "the exports");
    let maps = d.js(
        "return [...document.querySelectorAll('#right tr')].find(r => r.cells[0].textContent === 'mappings').cells[1].textContent;",
        json!([]),
    );
    assert!(maps.as_str().unwrap().contains("--usmap"), "{maps}");
    d.js(
        "[...document.querySelectorAll('#right a.exp')].find(a => a.textContent === 'DA_AllProperties').click(); return true;",
        json!([]),
    );
    wait_export(d, "DA_AllProperties");
    let err = d.js(
        "return document.querySelector('#right p.err').textContent;",
        json!([]),
    );
    assert!(
        err.as_str()
            .unwrap()
            .contains("needs mappings for class ParserFixtureData"),
        "{err}"
    );
    d.screenshot(&shots.join("14-ue5-needs-mappings.png"));
}

/// DA_AllProperties' 12 text histories, 5 at a time: the first 5, then the
/// next on request until all 12 are there; the string table entry of the
/// last page links to its table (links come with each page).
fn long_arrays_page(d: &Driver, shots: &Path) {
    let row = "[...document.querySelectorAll('#right table.props > tbody > tr')].find(r => r.cells[0].firstChild.textContent === 'TextHistories').cells[1]";
    let note = d.js(
        &format!("return {row}.querySelector('div.cut').textContent;"),
        json!([]),
    );
    assert!(
        note.as_str().unwrap().starts_with("5 of 12 shown"),
        "{note}"
    );
    for shown in ["10", "12"] {
        d.js(
            &format!("{row}.querySelector('button.more').click(); return true;"),
            json!([]),
        );
        d.wait(
            &format!("{row}.querySelector('div.cut .shown').textContent === '{shown}'"),
            "the next page",
        );
    }
    let state = d.js(
        &format!(
            "const c = {row}; const rows = c.querySelector('table.nest').querySelectorAll(':scope > tbody > tr, :scope > tr'); \
             return [rows.length, !!c.querySelector('button.more'), [...rows[11].querySelectorAll('a.aref')].map(a => a.textContent)];"
        ),
        json!([]),
    );
    assert_eq!(
        state,
        json!([12, false, ["/Game/Fixtures/StringTables/ST_Fixed.ST_Fixed"]]),
        "{state}"
    );
    d.js(
        &format!("{row}.querySelector('div.cut').scrollIntoView(); return true;"),
        json!([]),
    );
    d.screenshot(&shots.join("12b-ue5-pages.png"));
}

/// Open export `name` of zen package `pkg` of the container Fixtures.utoc
/// from the container's page.
fn open_zen_export(d: &Driver, pkg: &str, name: &str) {
    d.click("Fixtures.utoc");
    let link = format!("document.querySelector('#right a.pkg[data-package=\"{pkg}\"]')");
    d.wait(&link, pkg);
    d.js(&format!("({link}).click(); return true;"), json!([]));
    let exp = format!(
        "[...document.querySelectorAll('#right a.exp')].find(a => a.textContent === {})",
        json!(name)
    );
    d.wait(&exp, "the package's exports");
    d.js(&format!("({exp}).click(); return true;"), json!([]));
    wait_export(d, name);
}

/// The preview's natural size once the image shown is `want` (a part of
/// its URL) and has loaded.
fn preview_size(d: &Driver, want: &str) -> (u64, u64) {
    let v = d.wait(
        &format!(
            "(() => {{ const i = document.getElementById('uimg'); \
             return i && i.src.includes({}) && i.complete && i.naturalWidth ? [i.naturalWidth, i.naturalHeight] : null; }})()",
            json!(want)
        ),
        want,
    );
    (v[0].as_u64().unwrap(), v[1].as_u64().unwrap())
}

/// UE5 textures: a cube shows face by face and mip by mip (pickers from the
/// model); a SoundWave of PCM plays (the player's source is a WAV), one of
/// Bink Audio is offered as a download, named as not decoded.
fn ue5_textures_and_sounds(d: &Driver, shots: &Path) {
    open_zen_export(d, "/Game/Fixtures/Textures/T_Cube", "T_Cube");
    let faces = d.wait(
        "document.getElementById('uslice') && [...document.getElementById('uslice').options].map(o => o.textContent)",
        "the face picker",
    );
    assert_eq!(faces, json!(["+X", "-X", "+Y", "-Y", "+Z", "-Z"]));
    let mip_sizes = || -> Vec<(u64, u64)> {
        let v = d.js(
            "return [...document.getElementById('umip').options].map(o => o.textContent);",
            json!([]),
        );
        v.as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let (w, h) = m
                    .as_str()
                    .unwrap()
                    .split_once(": ")
                    .unwrap()
                    .1
                    .split_once('×')
                    .unwrap();
                (w.parse().unwrap(), h.trim().parse().unwrap())
            })
            .collect()
    };
    let cube = mip_sizes();
    assert_eq!(preview_size(d, "slice=0"), cube[0]);
    let pick = |id: &str, v: &str| {
        d.js(
            "const s = document.getElementById(arguments[0]); s.value = arguments[1]; \
             s.dispatchEvent(new Event('change')); return true;",
            json!([id, v]),
        );
    };
    pick("uslice", "3");
    assert_eq!(preview_size(d, "mip=0&slice=3"), cube[0]);
    let info = d.js(
        "return document.getElementById('uinfo').textContent;",
        json!([]),
    );
    assert!(info.as_str().unwrap().contains("face -Y of 6"), "{info}");
    d.screenshot(&shots.join("15-ue5-cube.png"));

    // A texture with mips: mip 1 is half the size of mip 0.
    open_zen_export(d, "/Game/Fixtures/Textures/T_Mips", "T_Mips");
    d.wait("document.getElementById('umip')", "the mip picker");
    let mips = mip_sizes();
    assert!(mips.len() > 2, "{mips:?}");
    assert_eq!(preview_size(d, "mip=0&slice=0"), mips[0]);
    let hidden = d.js(
        "return document.getElementById('uslicebox').style.display;",
        json!([]),
    );
    assert_eq!(hidden, "none", "one slice: no slice picker");
    pick("umip", "1");
    assert_eq!(preview_size(d, "mip=1&slice=0"), mips[1]);
    assert_eq!(mips[1].0 * 2, mips[0].0);
    let dds = d.js_async(
        "const done = arguments[arguments.length - 1]; \
         fetch(document.getElementById('uddl').href).then(r => r.arrayBuffer()).then(b => done(new TextDecoder().decode(b.slice(0, 4))))",
        json!([]),
    );
    assert_eq!(dds, "DDS ");
    d.screenshot(&shots.join("16-ue5-mips.png"));

    open_zen_export(d, "/Game/Fixtures/Audio/SW_Format_PCM", "SW_Format_PCM");
    d.wait("document.getElementById('uaudio')", "the audio player");
    let got = d.js_async(
        "const done = arguments[arguments.length - 1]; \
         fetch(document.getElementById('uaudio').src).then(r => Promise.all([r.headers.get('content-type'), r.arrayBuffer()])).then(([t, b]) => { \
           const v = new DataView(b); done([t, String.fromCharCode(v.getUint8(0), v.getUint8(1), v.getUint8(2), v.getUint8(3)), v.getUint32(4, true) + 8, b.byteLength]); })",
        json!([]),
    );
    assert_eq!(got[0], "audio/wav", "{got}");
    assert_eq!(got[1], "RIFF", "{got}");
    assert_eq!(got[2], got[3], "RIFF size vs bytes: {got}");
    // The browser reads it as audio: its duration is known.
    let playable = "(() => { const a = document.getElementById('uaudio'); return a && a.readyState >= 1 && a.duration > 0 ? a.duration : null; })()";
    d.wait(playable, "the WAV's duration");
    d.screenshot(&shots.join("17-ue5-sound.png"));
    // Ogg Vorbis, as cooked: the player reads it too.
    open_zen_export(
        d,
        "/Game/Fixtures/Audio/SW_Format_PlatformSpecific",
        "SW_Format_PlatformSpecific",
    );
    let secs = d.wait(playable, "the Ogg Vorbis sound's duration");
    assert!(secs.as_f64().unwrap() > 0.0, "{secs}");

    open_zen_export(
        d,
        "/Game/Fixtures/Audio/SW_Format_BinkAudio",
        "SW_Format_BinkAudio",
    );
    let shown = d.wait(
        "document.getElementById('usound') && document.getElementById('usound').textContent",
        "the sound's download",
    );
    assert!(
        shown.as_str().unwrap().contains("download .binka"),
        "{shown}"
    );
    assert!(
        shown.as_str().unwrap().contains("not decoded: Bink Audio"),
        "{shown}"
    );
    let audio = d.js("return document.getElementById('uaudio');", json!([]));
    assert!(audio.is_null(), "no player for Bink Audio: {audio}");
}

/// The WebGL canvas of the 3D view, read back through a 2D canvas:
/// [pixels that are not the background, a hash of all pixels, pixels].
const CANVAS_STATS: &str = "const c = document.querySelector('#m3box canvas.mesh3d'); \
    const t = document.createElement('canvas'); t.width = c.width; t.height = c.height; \
    const x = t.getContext('2d'); x.drawImage(c, 0, 0); \
    const d = x.getImageData(0, 0, t.width, t.height).data; let n = 0, h = 0; \
    for (let i = 0; i < d.length; i += 4) { \
      if (Math.abs(d[i] - 28) > 3 || Math.abs(d[i + 1] - 31) > 3 || Math.abs(d[i + 2] - 36) > 3) n++; \
      h = (Math.imul(h, 31) + d[i] + 7 * d[i + 1] + 13 * d[i + 2]) | 0; } \
    return [n, h, t.width * t.height];";

/// Wait until the 3D view of the page has drawn (and its textures came:
/// two frames after the last change), and read its canvas.
fn drawn_canvas(d: &Driver, what: &str) -> (u64, i64, u64) {
    d.wait(
        "(() => { const b = document.getElementById('m3box'); if (b && b.dataset.error) throw new Error(b.dataset.error); \
         return window.Mesh3D && Mesh3D.last && Mesh3D.last.box === b && Mesh3D.last.textures.loading === 0 && b.querySelector('canvas.mesh3d'); })()",
        what,
    );
    settle(d);
    let v = d.js(CANVAS_STATS, json!([]));
    (
        v[0].as_u64().unwrap(),
        v[1].as_i64().unwrap(),
        v[2].as_u64().unwrap(),
    )
}

/// A few frames for pending draws and texture decoding.
fn settle(d: &Driver) {
    d.js_async(
        "const done = arguments[arguments.length - 1]; let k = 0; \
         const f = () => (++k < 6) ? setTimeout(() => requestAnimationFrame(f), 30) : done(true); f();",
        json!([]),
    );
}

/// Click the first object below the tree node `label`.
fn click_first_below(d: &Driver, label: &str) {
    let first = d.js(
        &format!(
            "const n = [...document.querySelectorAll('#tree .node')].find(n => n.dataset.label === {} && n.offsetParent); \
             return n.parentElement.querySelector(':scope > ul .node').dataset.label;",
            json!(label.to_lowercase())
        ),
        json!([]),
    );
    d.click(first.as_str().unwrap());
}

/// Issue 28 item 6: a mesh opens in a WebGL 3D view. A UE1 LodMesh
/// (morph-target animations), a UE2 skeletal mesh (skinned, with its
/// MeshAnimation) and a UE5 skeletal mesh from a container draw (pixels
/// that are not the background); picking another animation, or a later
/// time, changes the frame; zoom changes it and "reset view" brings the
/// first frame back.
#[test]
fn a_browser_draws_meshes_in_3d() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    if !browser_available() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("Game");
    copy(
        &c.join("ue1/epiccustommodels.u"),
        &root.join("System/epiccustommodels.u"),
    );
    copy(&c.join("ue1/relics.u"), &root.join("System/relics.u"));
    copy(
        &c.join("ue2/SniperAnims.ukx"),
        &root.join("Animations/SniperAnims.ukx"),
    );
    copy(
        &c.join("ue2/HourAdara.usx"),
        &root.join("StaticMeshes/HourAdara.usx"),
    );
    let toc = "iostore/cue4parse/UE5_8/IoStore/Tagged/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows";
    for ext in ["utoc", "ucas"] {
        copy(
            &c.join(format!("{toc}.{ext}")),
            &root.join(format!("Content/Paks/Fixtures.{ext}")),
        );
        copy(
            &c.join(format!(
                "iostore/cue4parse/UE5_8/IoStore/Tagged/global.{ext}"
            )),
            &root.join(format!("Content/Paks/global.{ext}")),
        );
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let opts = pakrat_view::Options {
        path: root.clone(),
        ..Default::default()
    };
    std::thread::spawn(move || {
        pakrat_view::serve(&opts, |r| tx.send(r.url.clone()).unwrap()).unwrap();
    });
    let url = rx.recv().unwrap();
    let shots = shots_dir();
    let d = Driver::start(&t.path().join("profile"));
    d.go(&url);
    d.wait(
        "document.querySelectorAll('#tree .node').length >= 3",
        "the folder listing",
    );
    ue1_mesh_animates(&d, &shots);
    ue1_mesh_with_its_skin(&d, &shots);
    ue2_skeletal_mesh_animates(&d, &shots);
    ue2_static_mesh_draws(&d, &shots);
    ue5_skeletal_mesh_draws(&d, &shots);
    eprintln!("screenshots in {}", shots.display());
}

/// The UE1 LodMesh: drawn, its animations listed; another animation and
/// a later time change the frame; zoom and reset.
fn ue1_mesh_animates(d: &Driver, shots: &Path) {
    d.click("System");
    d.click("epiccustommodels.u");
    d.click("LodMesh");
    click_first_below(d, "LodMesh");
    let (n, first, all) = drawn_canvas(d, "the UE1 mesh in 3D");
    assert!(n > all / 50, "UE1 mesh: {n} of {all} pixels drawn");
    let anims = d.js(
        "return [...document.querySelector('#m3box select.m3anim').options].map(o => o.textContent);",
        json!([]),
    );
    let anims = anims.as_array().unwrap();
    assert!(anims.len() > 3, "{anims:?}");
    let info = d.js(
        "return document.querySelector('#m3box .m3info').textContent;",
        json!([]),
    );
    assert!(info.as_str().unwrap().contains("morph targets"), "{info}");
    d.screenshot(&shots.join("18-mesh-ue1.png"));
    // Another animation (its first frame), then a later time of it.
    let pick = |i: usize| {
        d.js(
            &format!("const s = document.querySelector('#m3box select.m3anim'); s.value = '{i}'; s.dispatchEvent(new Event('change')); return true;"),
            json!([]),
        );
        drawn_canvas(d, "the other animation")
    };
    // The options: "none (rest pose)", then animation 0, 1, ...
    let (n2, other, _) = pick(anims.len() - 2);
    assert!(n2 > all / 50, "{n2}");
    assert_ne!(other, first, "picking another animation changes the frame");
    d.js(
        "const r = document.querySelector('#m3box input.m3time'); r.value = '500'; r.dispatchEvent(new Event('input')); return true;",
        json!([]),
    );
    let (_, later, _) = drawn_canvas(d, "a later time");
    assert_ne!(later, other, "a later time changes the frame");
    d.screenshot(&shots.join("19-mesh-ue1-later.png"));
    // Play: the time moves on; pause.
    let t0 = d.js("return Mesh3D.last.time;", json!([]));
    d.js(
        "document.querySelector('#m3box button.m3play').click(); return true;",
        json!([]),
    );
    d.wait(
        &format!("Mesh3D.last.time !== {t0}"),
        "the animation playing",
    );
    d.js(
        "document.querySelector('#m3box button.m3play').click(); return true;",
        json!([]),
    );
    // Back to the first animation's start: the first frame again; zoom
    // changes it, "reset view" restores it.
    let (_, base, _) = pick(0);
    assert_eq!(
        base, first,
        "the same animation and time draw the same frame"
    );
    d.js(
        "const c = document.querySelector('#m3box canvas'); c.dispatchEvent(new WheelEvent('wheel', {deltaY: -100, bubbles: true, cancelable: true})); return true;",
        json!([]),
    );
    let (_, zoomed, _) = drawn_canvas(d, "zoomed in");
    assert_ne!(zoomed, first, "the wheel zooms");
    d.js(
        "document.querySelector('#m3box button.m3reset').click(); return true;",
        json!([]),
    );
    let (_, reset, _) = drawn_canvas(d, "the view reset");
    assert_eq!(reset, first, "reset view");
}

/// A UE1 Mesh whose skin is a texture of its package: drawn textured
/// (the PNG embedded in the .glb).
fn ue1_mesh_with_its_skin(d: &Driver, shots: &Path) {
    d.click("relics.u");
    d.click("Mesh");
    click_first_below(d, "Mesh");
    let (n, _, all) = drawn_canvas(d, "the textured UE1 mesh");
    assert!(n > all / 100, "{n} of {all}");
    let info = d.js(
        "return document.querySelector('#m3box .m3info').textContent;",
        json!([]),
    );
    let textures: u64 = info
        .as_str()
        .unwrap()
        .split(", ")
        .find_map(|p| p.strip_suffix(" textures"))
        .unwrap()
        .parse()
        .unwrap();
    assert!(textures > 0, "{info}");
    // Some drawn pixels are coloured (the skin), not the grey of an
    // untextured mesh.
    let coloured = d.js(
        "const c = document.querySelector('#m3box canvas.mesh3d'); const t = document.createElement('canvas');          t.width = c.width; t.height = c.height; const x = t.getContext('2d'); x.drawImage(c, 0, 0);          const p = x.getImageData(0, 0, t.width, t.height).data; let n = 0;          for (let i = 0; i < p.length; i += 4) if (Math.max(p[i], p[i + 1], p[i + 2]) - Math.min(p[i], p[i + 1], p[i + 2]) > 24) n++;          return n;",
        json!([]),
    );
    assert!(
        coloured.as_u64().unwrap() > 100,
        "coloured pixels: {coloured}"
    );
    d.screenshot(&shots.join("18b-mesh-ue1-skin.png"));
}

/// The UE2 skeletal mesh with its MeshAnimation: skinned, drawn, and a
/// later time of an animation moves it.
fn ue2_skeletal_mesh_animates(d: &Driver, shots: &Path) {
    d.click("Animations");
    d.click("SniperAnims.ukx");
    d.click("SkeletalMesh");
    click_first_below(d, "SkeletalMesh");
    let (n, _, all) = drawn_canvas(d, "the UE2 skeletal mesh in 3D");
    assert!(n > all / 100, "UE2 mesh: {n} of {all} pixels drawn");
    let info = d.js(
        "return document.querySelector('#m3box .m3info').textContent;",
        json!([]),
    );
    assert!(info.as_str().unwrap().contains("joints"), "{info}");
    let (_, start, _) = drawn_canvas(d, "its first animation");
    d.js(
        "const r = document.querySelector('#m3box input.m3time'); r.value = '700'; r.dispatchEvent(new Event('input')); return true;",
        json!([]),
    );
    let (_, later, _) = drawn_canvas(d, "a later time");
    assert_ne!(
        later, start,
        "a later time of the skeletal animation changes the frame"
    );
    d.screenshot(&shots.join("20-mesh-ue2-skeletal.png"));
}

/// A UE2 static mesh: drawn, with no animation controls.
fn ue2_static_mesh_draws(d: &Driver, shots: &Path) {
    d.click("StaticMeshes");
    d.click("HourAdara.usx");
    d.click("StaticMesh");
    click_first_below(d, "StaticMesh");
    let (n, _, all) = drawn_canvas(d, "the UE2 static mesh in 3D");
    assert!(n > all / 100, "UE2 static mesh: {n} of {all} pixels drawn");
    let note = d.js(
        "return document.querySelector('#m3box .m3t').textContent;",
        json!([]),
    );
    assert_eq!(note, "no animations");
    d.screenshot(&shots.join("20b-mesh-ue2-static.png"));
}

/// The UE5 fixture's skeletal mesh from a container: drawn (no
/// animations: AnimSequence is not decoded); its morph target picked
/// changes the frame.
fn ue5_skeletal_mesh_draws(d: &Driver, shots: &Path) {
    d.click("Content");
    d.click("Paks");
    open_zen_export(d, "/Game/Fixtures/Meshes/SK_Fixture", "SK_Fixture");
    let (n, rest, all) = drawn_canvas(d, "the UE5 skeletal mesh in 3D");
    assert!(n > all / 100, "UE5 mesh: {n} of {all} pixels drawn");
    // Its morph targets (no animation keys them): one at full weight.
    let morphs = d.js(
        "const s = document.querySelector('#m3box select.m3morph');          return s.closest('label').hidden ? [] : [...s.options].slice(1).map(o => o.textContent);",
        json!([]),
    );
    eprintln!("SK_Fixture morph targets: {morphs}");
    assert!(!morphs.as_array().unwrap().is_empty(), "{morphs}");
    d.js(
        "const s = document.querySelector('#m3box select.m3morph'); s.value = '0'; s.dispatchEvent(new Event('change')); return true;",
        json!([]),
    );
    let (_, morphed, _) = drawn_canvas(d, "a morph target");
    assert_ne!(
        morphed, rest,
        "a morph target at full weight changes the frame"
    );
    d.screenshot(&shots.join("21-mesh-ue5.png"));
}
