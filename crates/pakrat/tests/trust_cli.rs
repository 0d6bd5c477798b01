//! Issue 31: never an "OK" over data that was not checked (a wrong AES key
//! on stored files), writers that make their output folder, and messages
//! that name what is wrong. Every input is built here; no corpus needed.

mod common;

use std::path::Path;

use common::{pakrat, run, FIXTURE_KEY};

const OTHER_KEY: &str = "0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

/// A package, a long text file and an opaque file.
fn game_files(dir: &Path) {
    let content = dir.join("Game/Content");
    std::fs::create_dir_all(&content).unwrap();
    let mut pkg = vec![0xC1, 0x83, 0x2A, 0x9E];
    pkg.extend((0..300u32).map(|i| (i * 7) as u8));
    std::fs::write(content.join("Hero.uasset"), &pkg).unwrap();
    std::fs::write(
        content.join("notes.txt"),
        "A line of plain text, long enough to tell text from noise.\n".repeat(5),
    )
    .unwrap();
    std::fs::write(content.join("blob.bin"), [7u8; 100]).unwrap();
}

/// A pak of `src` whose files are stored and encrypted with `key` (the
/// index stays plain).
fn encrypted_stored_pak(src: &Path, pak: &Path, key: &str) {
    let out = pakrat()
        .args(["pak", "create", "--encrypt", "--aes-key", key, "-o"])
        .arg(pak)
        .arg(src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn wrong_key_on_stored_encrypted_files_is_caught() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    game_files(&src);
    let pak = t.path().join("g.pak");
    encrypted_stored_pak(&src, &pak, FIXTURE_KEY);
    let p = pak.to_str().unwrap();

    // The right key: verified by the files' own formats.
    let (code, out, err) = run(&["verify", p, "--aes-key", FIXTURE_KEY]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("AES key: verified"), "{out}");
    assert!(out.trim_end().ends_with("OK"), "{out}");

    // The wrong key: the ciphertext hashes still match, but verify says
    // the key is wrong and fails, never OK.
    let (code, out, _) = run(&["verify", p, "--aes-key", OTHER_KEY]);
    assert_eq!(code, 1, "{out}");
    assert!(!out.trim_end().ends_with("OK"), "{out}");
    assert!(out.contains("AES key: WRONG"), "{out}");
    assert!(out.contains("wrong AES key?"), "{out}");
    let (_, json, _) = run(&["verify", p, "--aes-key", OTHER_KEY, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["key_check"]["status"], "wrong");

    // Extract with the wrong key: the package and the text are not written
    // (their decrypted bytes are noise), the run fails, and no JSON says
    // the hashes were checked.
    let dest = t.path().join("out");
    let (code, json, _) = run(&[
        "extract",
        p,
        "--aes-key",
        OTHER_KEY,
        "--json",
        "-o",
        dest.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["hashes_checked"], false, "{v}");
    let errors = v["errors"].to_string();
    assert!(errors.contains("Hero.uasset"), "{errors}");
    assert!(errors.contains("notes.txt"), "{errors}");
    assert!(!dest.join("Game/Content/Hero.uasset").exists());
    assert!(!dest.join("Game/Content/notes.txt").exists());
}

#[test]
fn a_misnamed_file_does_not_make_the_right_key_wrong() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    game_files(&src);
    // Binary data under a text name, smaller than the package: probed first.
    std::fs::write(src.join("Game/Content/a.txt"), [0u8; 200]).unwrap();
    let pak = t.path().join("m.pak");
    encrypted_stored_pak(&src, &pak, FIXTURE_KEY);
    let p = pak.to_str().unwrap();
    let (code, out, err) = run(&["verify", p, "--aes-key", FIXTURE_KEY]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("AES key: verified"), "{out}");
    let dest = t.path().join("out");
    let (code, out, err) = run(&[
        "extract",
        p,
        "--aes-key",
        FIXTURE_KEY,
        "-o",
        dest.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        std::fs::read(dest.join("Game/Content/a.txt")).unwrap(),
        [0u8; 200]
    );
}

#[test]
fn a_key_nothing_can_check_is_said_so() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("data.bin"), [1u8; 4096]).unwrap();
    let pak = t.path().join("o.pak");
    encrypted_stored_pak(&src, &pak, FIXTURE_KEY);
    let p = pak.to_str().unwrap();
    for key in [FIXTURE_KEY, OTHER_KEY] {
        let (code, out, _) = run(&["verify", p, "--aes-key", key]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("AES key: NOT verified"), "{out}");
        assert!(out.contains("INCOMPLETE"), "{out}");
        let dest = t.path().join(format!("out{}", &key[2..6]));
        let (code, json, err) = run(&[
            "extract",
            p,
            "--aes-key",
            key,
            "--json",
            "-o",
            dest.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{json}{err}");
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["hashes_checked"], false, "{v}");
        assert_eq!(v["key_check"]["status"], "unverified", "{v}");
    }
}

#[test]
fn non_ascii_names_are_written_as_utf16_and_read_back() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    std::fs::create_dir_all(src.join("Café")).unwrap();
    std::fs::write(src.join("Café/résumé.txt"), b"hello").unwrap();
    std::fs::write(src.join("plain.txt"), b"x").unwrap();
    let pak = t.path().join("n.pak");
    let out = pakrat()
        .args(["pak", "create", "-o"])
        .arg(&pak)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&pak).unwrap();
    let has = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };
    // The engine's rule: a non-ASCII name is UTF-16 with a negative length
    // (-(units + 1)), Latin-1 too; an ASCII name stays 8-bit.
    let units = "résumé.txt".encode_utf16().count() as i32;
    let mut name = (-(units + 1)).to_le_bytes().to_vec();
    name.extend(utf16("résumé.txt"));
    assert!(has(&name), "résumé.txt is not stored as UTF-16");
    assert!(has(&utf16("Café/")), "Café/ is not stored as UTF-16");
    assert!(!has(b"r\xe9sum\xe9"), "an 8-bit Latin-1 name is left");
    assert!(has(b"plain.txt\0"), "an ASCII name is not 8-bit");
    // pakrat reads it back, and so does the independent reader when it is
    // there (../shared/tools, from the format notes).
    let (code, json, err) = run(&["list", pak.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(json.contains("Café/résumé.txt"), "{json}");
    let tool = pakrat_testkit::repo_root().join("../shared/tools/pakref.py");
    if !tool.is_file() {
        eprintln!(
            "**** SKIPPED: the pakref.py cross-check: no {}",
            tool.display()
        );
        return;
    }
    let r = std::process::Command::new("python3")
        .arg(&tool)
        .arg(&pak)
        .output()
        .expect("python3");
    let listed = String::from_utf8_lossy(&r.stdout);
    assert!(
        r.status.success(),
        "{listed}{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(
        listed.lines().any(|l| l.trim() == "Café/résumé.txt"),
        "{listed}"
    );
}

#[test]
fn a_data_header_that_disagrees_names_the_field_and_both_values() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    let text: String = (1..3000).map(|i| format!("{i}\n")).collect();
    std::fs::write(src.join("a.txt"), &text).unwrap();
    let pak = t.path().join("z.pak");
    let out = pakrat()
        .args(["pak", "create", "--compress", "zlib", "-o"])
        .arg(&pak)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let p = pak.to_str().unwrap();
    let (code, out, _) = run(&["verify", p]);
    assert_eq!(code, 0, "{out}");
    // v11, one Zlib block: the data header at offset 0 is offset, sizes
    // (3 × u64), method (u32), SHA-1 (20), 1 block (u32 count, 2 × u64),
    // flags (u8), then the block size (u32) at byte 69, which the index
    // gives as the file's size. Write 65536 there instead.
    let mut b = std::fs::read(&pak).unwrap();
    let size = text.len() as u32;
    assert_eq!(b[69..73], size.to_le_bytes(), "layout as expected");
    b[69..73].copy_from_slice(&65536u32.to_le_bytes());
    std::fs::write(&pak, b).unwrap();
    let (code, out, _) = run(&["verify", p]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("compression block size 65536 vs {size}")),
        "{out}"
    );
    assert!(out.contains("header vs index"), "{out}");
}
