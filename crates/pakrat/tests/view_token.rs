//! `pakrat view` without `--no-open` hands the browser no secret on a
//! command line: the opener (`xdg-open`, here a script first on PATH that
//! records what it gets) receives the path of a page readable only by the
//! user, and no process's `/proc/PID/cmdline` holds the token.

#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The viewer process, killed if the test fails before it stops it.
struct Viewer(std::process::Child);

impl Drop for Viewer {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// `GET /api/ls` of the root with `token`: the answer must be a 200.
fn assert_ls_answers(port: u16, token: &str) {
    let mut c = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        c,
        "GET /api/ls?path=&t={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    c.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// Ctrl-C to the viewer; it must stop within 20 s.
fn interrupt_and_wait(child: &mut std::process::Child) {
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < deadline,
            "pakrat view did not stop on Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_token_is_on_no_command_line() {
    let t = tempfile::tempdir().unwrap();
    let bin = t.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let rec = t.path().join("opener-args");
    let opener = bin.join("xdg-open");
    // Records its arguments, a copy of the page and the modes of the page
    // and its folder; the last line written is "done".
    std::fs::write(
        &opener,
        format!(
            "#!/bin/sh\n{{ for a in \"$@\"; do echo \"arg $a\"; done; \
             echo \"mode $(stat -c %a \"$1\") $(stat -c %a \"$(dirname \"$1\")\")\"; \
             echo page; cat \"$1\"; echo; echo done; }} > {}.tmp; mv {}.tmp {}\n",
            rec.display(),
            rec.display(),
            rec.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    let served = t.path().join("served");
    std::fs::create_dir(&served).unwrap();
    std::fs::write(served.join("a.txt"), b"hi").unwrap();

    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut viewer = Viewer(
        Command::new(env!("CARGO_BIN_EXE_pakrat"))
            .arg("view")
            .arg(&served)
            .env("PATH", path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let child = &mut viewer.0;
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut url = String::new();
    out.read_line(&mut url).unwrap();
    let url = url.trim().to_string();
    let token = url.split("t=").nth(1).unwrap().split('#').next().unwrap();
    assert!(token.len() >= 16, "{url}");

    // The opener ran and got a file, not the URL.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !rec.exists() {
        assert!(Instant::now() < deadline, "the opener did not run");
        std::thread::sleep(Duration::from_millis(50));
    }
    let got = std::fs::read_to_string(&rec).unwrap();
    let (head, page) = got.split_once("\npage\n").unwrap();
    assert!(
        !head.contains(token),
        "the opener's arguments hold the token: {head}"
    );
    let arg = head.lines().next().unwrap().strip_prefix("arg ").unwrap();
    let page_path = std::path::PathBuf::from(arg);
    assert!(page_path.is_absolute() && page_path.exists(), "{head}");
    assert!(head.contains("\nmode 600 700"), "{head}");
    // The page forwards to the printed URL (its token included).
    assert!(page.contains(&format!("url={url}")), "{page}");

    // No process's command line holds the token.
    let mut seen = 0;
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) {
            seen += 1;
            assert!(
                !String::from_utf8_lossy(&cmdline).contains(token),
                "{}: {}",
                e.path().display(),
                String::from_utf8_lossy(&cmdline)
            );
        }
    }
    assert!(seen > 1);

    // The printed URL works.
    let port: u16 = url
        .split(':')
        .nth(2)
        .and_then(|p| p.split('/').next())
        .unwrap()
        .parse()
        .unwrap();
    assert_ls_answers(port, token);

    // Ctrl-C: the viewer stops and removes the page with its folder.
    interrupt_and_wait(child);
    assert!(!page_path.exists(), "the launcher page outlives the viewer");
    assert!(!page_path.parent().unwrap().exists());
}

/// `view --json` prints one JSON line once the server is ready: the URL
/// (which answers) and the launcher page that forwards to it (written even
/// with --no-open, removed when the viewer stops).
#[test]
fn view_json_prints_one_line_with_the_url_and_the_launcher() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("a.txt"), b"hi").unwrap();
    let mut viewer = Viewer(
        Command::new(env!("CARGO_BIN_EXE_pakrat"))
            .args(["view", "--no-open", "--json"])
            .arg(t.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let child = &mut viewer.0;
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["kind"], "folder", "{v}");
    let url = v["url"].as_str().unwrap();
    let token = url.split("t=").nth(1).unwrap().split('#').next().unwrap();
    let page_path = std::path::PathBuf::from(v["launcher"].as_str().unwrap());
    let page = std::fs::read_to_string(&page_path).unwrap();
    assert!(page.contains(&format!("url={url}")), "{page}");

    // The server is ready when the line is printed.
    let port = v["address"]
        .as_str()
        .unwrap()
        .rsplit(':')
        .next()
        .unwrap()
        .parse::<u16>()
        .unwrap();
    assert_ls_answers(port, token);

    interrupt_and_wait(child);
    // Nothing after the one line.
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "", "more than one line");
    assert!(!page_path.exists(), "the launcher page outlives the viewer");
}

/// `GET path_and_query` with `token`: (status line, body).
fn get_text(port: u16, token: &str, path_and_query: &str) -> (String, String) {
    let mut c = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        c,
        "GET {path_and_query}&t={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    c.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    (head.lines().next().unwrap().to_string(), body.to_string())
}

/// `view --keys FILE --aes-key KEY` takes the forms `list`/`extract` take:
/// an encrypted-index pak (key from a Crypto.json) and an encrypted
/// container (hex key) open; a malformed key stops it with exit 2 and a
/// message that does not repeat the key.
#[test]
fn view_takes_keys_as_the_other_commands_do() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    std::fs::copy(
        c.join("pak/repak_tests/packs/pack_v11_compress_encrypt_encryptindex.pak"),
        t.path().join("Enc.pak"),
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
    let mut viewer = Viewer(
        Command::new(env!("CARGO_BIN_EXE_pakrat"))
            .args(["view", "--no-open", "--json", "--keys"])
            .arg(c.join("pak/repak_tests/crypto.json"))
            .args([
                "--aes-key",
                "435545345061727365466978747572654145534b657930313233343536373839",
            ])
            .arg(t.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let child = &mut viewer.0;
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    let url = v["url"].as_str().unwrap();
    let token = url.split("t=").nth(1).unwrap().split('#').next().unwrap();
    let port = v["address"]
        .as_str()
        .unwrap()
        .rsplit(':')
        .next()
        .unwrap()
        .parse::<u16>()
        .unwrap();
    let (st, body) = get_text(port, token, "/api/open?path=Enc.pak");
    assert!(st.contains(" 200 "), "{st}: {body}");
    let j: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(j["total_files"], 4, "{j}");
    let (st, body) = get_text(port, token, "/api/open?path=Enc.utoc");
    assert!(st.contains(" 200 "), "{st}: {body}");
    let j: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(j["needs_key"], false, "{j}");
    assert!(j["total_files"].as_u64().unwrap() > 0, "{j}");
    interrupt_and_wait(child);

    let bad = Command::new(env!("CARGO_BIN_EXE_pakrat"))
        .args(["view", "--no-open", "--aes-key", "zz-not-a-key-secret"])
        .arg(t.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{err}");
    assert!(err.contains("--aes-key"), "{err}");
    assert!(!err.contains("zz-not-a-key-secret"), "{err}");
}

/// `view --usmap M --ue-version V`: an unversioned container decodes with
/// the mappings given (outside the opened folder); a missing mappings file
/// or an unknown release stops it with exit 2 naming the option.
#[test]
fn view_takes_usmap_and_ue_version() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let usmap = c.join("pak/cue4parse/UE5_8/Mappings/CUE4ParseFixtures-Zstandard.usmap");
    let root = c.join("iostore/cue4parse/UE5_8/IoStore/Unversioned");
    let mut viewer = Viewer(
        Command::new(env!("CARGO_BIN_EXE_pakrat"))
            .args([
                "view",
                "--no-open",
                "--json",
                "--ue-version",
                "5.8",
                "--usmap",
            ])
            .arg(&usmap)
            .arg(&root)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let child = &mut viewer.0;
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    let url = v["url"].as_str().unwrap();
    let token = url.split("t=").nth(1).unwrap().split('#').next().unwrap();
    let port = v["address"]
        .as_str()
        .unwrap()
        .rsplit(':')
        .next()
        .unwrap()
        .parse::<u16>()
        .unwrap();
    let list = "/api/asset?path=Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc&package=/Game/Fixtures/Properties/DA_AllProperties";
    let (st, body) = get_text(port, token, list);
    assert!(st.contains(" 200 "), "{st}: {body}");
    let j: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(
        j["mappings"].as_str().unwrap().ends_with("(--usmap)"),
        "{j}"
    );
    for e in j["exports"].as_array().unwrap() {
        let (st, body) = get_text(port, token, &format!("{list}&export={}", e["index"]));
        assert!(st.contains(" 200 "), "{st}: {body}");
        let x: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(x["error"], serde_json::Value::Null, "{x}");
    }
    interrupt_and_wait(child);

    for (args, says) in [
        (["--usmap", "no-such.usmap"], "--usmap no-such.usmap"),
        (["--ue-version", "9.9"], "--ue-version"),
    ] {
        let bad = Command::new(env!("CARGO_BIN_EXE_pakrat"))
            .args(["view", "--no-open"])
            .args(args)
            .arg(&root)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&bad.stderr);
        assert_eq!(bad.status.code(), Some(2), "{err}");
        assert!(err.contains(says), "{err}");
    }
}
