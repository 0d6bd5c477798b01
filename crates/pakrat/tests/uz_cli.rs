//! CLI tests for `pakrat info` on redirect files, `pakrat compress` and
//! `pakrat decompress`.

use std::fs;
use std::path::{Path, PathBuf};

use pakrat_testkit::entries;
use pakrat_uz::{CompressOptions, UzFormat, UzSignature};
use predicates::str::contains;

mod common;
use common::{names_in as files_in, pakrat};

fn corpus(rel: &str) -> Option<PathBuf> {
    let p = pakrat_testkit::corpus_dir()?.join(rel);
    Some(p)
}

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).expect("valid JSON on stdout")
}

#[test]
fn decompress_corpus_restores_stored_names_and_bytes() {
    let Some(uz) = entries("uz") else { return };
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let mut cmd = pakrat();
    cmd.arg("decompress").arg("-o").arg(&out).arg("--json");
    for e in &uz {
        cmd.arg(&e.path);
    }
    let o = cmd.assert().success().get_output().stdout.clone();
    let v = json(&o)["files"].clone();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), uz.len());
    for (e, row) in uz.iter().zip(rows) {
        assert!(row["is_package"].as_bool().unwrap(), "{}", e.local_path);
        let output = PathBuf::from(row["output"].as_str().unwrap());
        assert_eq!(output.parent().unwrap(), fs::canonicalize(&out).unwrap());
        let written = fs::read(&output).unwrap();
        assert_eq!(written.len() as u64, row["output_size"].as_u64().unwrap());
        if let Some(orig) = e.detail_value("original") {
            // .uz: named from the header, as the manifest says.
            assert_eq!(row["stored_name"], orig);
            assert_eq!(output.file_name().unwrap().to_str().unwrap(), orig);
            let sig = e.detail.split_whitespace().nth(2).unwrap();
            assert_eq!(row["signature"], sig);
            let corpus_copy = corpus(&format!("ue1/{orig}")).unwrap();
            if corpus_copy.is_file() {
                assert!(fs::read(corpus_copy).unwrap() == written, "{orig}");
            }
        } else {
            // .uz2: no stored name; the input name without .uz2.
            assert_eq!(row["format"], "uz2");
            assert_eq!(output.file_name().unwrap(), "KFMutators.u");
            let kf = fs::read(corpus("ue2/kf1_KFMutators.u").unwrap()).unwrap();
            assert!(kf == written);
            let uncomp: u64 = e.detail_value("uncomp").unwrap().parse().unwrap();
            assert_eq!(written.len() as u64, uncomp);
        }
    }
    // Nothing else (no temp files) in the output folder.
    assert_eq!(files_in(&out).len(), uz.len());

    // A second run refuses to overwrite, once and up front: with one
    // output removed, nothing is written (it does not come back); --force
    // replaces.
    let first = &uz[0].path;
    let gone = out.join(files_in(&out).into_iter().next().unwrap());
    fs::remove_file(&gone).unwrap();
    pakrat()
        .arg("decompress")
        .arg("-o")
        .arg(&out)
        .args(uz.iter().map(|e| &e.path))
        .assert()
        .code(2)
        .stderr(contains("already exists"))
        .stderr(contains("nothing was written (--force replaces them)"));
    assert!(!gone.exists(), "{} was written", gone.display());
    assert_eq!(files_in(&out).len(), uz.len() - 1);
    pakrat()
        .args(["decompress", "--force", "-o"])
        .arg(&out)
        .arg(first)
        .assert()
        .success();
}

#[test]
fn info_reports_header_and_sizes() {
    let Some(uz) = entries("uz") else { return };
    for e in &uz {
        let o = pakrat()
            .arg("info")
            .arg(&e.path)
            .arg("--json")
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let v = json(&o);
        assert_eq!(v["compressed_size"].as_u64().unwrap(), e.size);
        assert_eq!(v["is_package"], true);
        if let Some(orig) = e.detail_value("original") {
            assert_eq!(v["format"], "uz");
            assert_eq!(v["original_name"], orig);
            assert_eq!(v["output_name"], orig);
            assert_eq!(v["signature"], e.detail.split_whitespace().nth(2).unwrap());
        } else {
            assert_eq!(v["format"], "uz2");
            assert_eq!(v["chunks"], 1);
            let uncomp: u64 = e.detail_value("uncomp").unwrap().parse().unwrap();
            assert_eq!(v["uncompressed_size"].as_u64().unwrap(), uncomp);
            assert_eq!(v["declared_size"].as_u64().unwrap(), uncomp);
        }
    }
    let p = corpus("uz/UTCredits.unr.uz").unwrap();
    pakrat()
        .arg("info")
        .arg(&p)
        .assert()
        .success()
        .stdout(contains("signature 5678"))
        .stdout(contains("\"UTCredits.unr\""))
        .stdout(contains("Unreal package (tag 0x9E2A83C1)"));
}

#[test]
fn compress_round_trips_through_the_cli() {
    let (Some(u1), Some(u2), Some(u3)) = (
        corpus("ue1/ZeroPingPlus103.u"),
        corpus("ue2/kf1_KFMutators.u"),
        corpus("ue3/TestUC3.u"),
    ) else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let c = t.path().join("c");
    // Default format follows the package version: UE1 .uz, UE2 .uz2, UE3 .uz3.
    let o = pakrat()
        .args(["compress", "--json", "-o"])
        .arg(&c)
        .args([&u1, &u2, &u3])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&o)["files"].clone();
    assert_eq!(v[0]["format"], "uz");
    assert_eq!(v[0]["signature"], "5678");
    assert_eq!(v[0]["original_name"], "ZeroPingPlus103.u");
    assert_eq!(v[1]["format"], "uz2");
    assert_eq!(v[2]["format"], "uz3");
    assert_eq!(
        files_in(&c),
        [
            "TestUC3.u.uz3",
            "ZeroPingPlus103.u.uz",
            "kf1_KFMutators.u.uz2"
        ]
    );
    for row in v.as_array().unwrap() {
        assert_eq!(row["larger_than_input"], false);
        let out = fs::metadata(row["output"].as_str().unwrap()).unwrap().len();
        assert_eq!(out, row["output_size"].as_u64().unwrap());
    }
    // `info` recognises each by content (uz3 shares its magic with uz 5678).
    for (f, fmt) in [
        ("TestUC3.u.uz3", "uz3"),
        ("ZeroPingPlus103.u.uz", "uz"),
        ("kf1_KFMutators.u.uz2", "uz2"),
    ] {
        let o = pakrat()
            .arg("info")
            .arg(c.join(f))
            .arg("--json")
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let v = json(&o);
        assert_eq!(v["format"], fmt, "{f}");
        assert_eq!(v["is_package"], true, "{f}");
    }
    // And back.
    let d = t.path().join("d");
    let mut cmd = pakrat();
    cmd.args(["decompress", "-o"]).arg(&d);
    for f in files_in(&c) {
        cmd.arg(c.join(f));
    }
    cmd.assert().success();
    for src in [&u1, &u2, &u3] {
        let name = src.file_name().unwrap();
        assert!(fs::read(d.join(name)).unwrap() == fs::read(src).unwrap());
    }
    // --signature 1234 reproduces the ucc-made corpus file byte for byte.
    let e = t.path().join("e");
    pakrat()
        .args(["compress", "--format", "uz", "--signature", "1234", "-o"])
        .arg(&e)
        .arg(&u1)
        .assert()
        .success();
    let ucc = fs::read(corpus("uz/ZeroPingPlus103.u.uz").unwrap()).unwrap();
    assert!(fs::read(e.join("ZeroPingPlus103.u.uz")).unwrap() == ucc);
    // No overwrite without --force: refused up front, exit 2.
    pakrat()
        .args(["compress", "-o"])
        .arg(&c)
        .arg(&u1)
        .assert()
        .code(2)
        .stderr(contains("already exists; nothing was written"));
}

#[test]
fn compress_warns_when_output_grows_and_needs_format_for_non_packages() {
    let t = tempfile::tempdir().unwrap();
    let mut x = 0x9E37_79B9u32;
    let noise: Vec<u8> = (0..5000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect();
    let f = t.path().join("noise.bin");
    fs::write(&f, &noise).unwrap();
    pakrat()
        .arg("compress")
        .arg(&f)
        .assert()
        .code(1)
        .stderr(contains("pass --format"));
    let o = pakrat()
        .args(["compress", "--format", "uz", "--json"])
        .arg(&f)
        .assert()
        .success()
        .stderr(contains("larger than its input"))
        .stderr(contains("before v469"))
        .get_output()
        .stdout
        .clone();
    assert_eq!(json(&o)["files"][0]["larger_than_input"], true);
    // Output next to the input by default.
    assert!(t.path().join("noise.bin.uz").is_file());
}

#[test]
fn hostile_stored_names_never_escape_the_output_folder() {
    let t = tempfile::tempdir().unwrap();
    let inp = t.path().join("in");
    let out = t.path().join("out");
    fs::create_dir_all(&inp).unwrap();
    let payload = b"\xC1\x83\x2A\x9Ehostile payload".repeat(20);
    let names = [
        "../escape.u",
        "..\\escape.u",
        "/tmp/abs.u",
        "C:evil.u",
        "sub/dir.u",
        "..",
        "",
        "bad\u{1}ctl.u",
    ];
    let mut files = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let mut o = CompressOptions::new(UzFormat::Uz, *n);
        o.signature = if i % 2 == 0 {
            UzSignature::S5678
        } else {
            UzSignature::S1234
        };
        let bytes = pakrat_uz::compress(&payload, &o).unwrap();
        let f = inp.join(format!("h{i}.u.uz"));
        fs::write(&f, bytes).unwrap();
        files.push(f);
    }
    let o = pakrat()
        .args(["decompress", "--json", "-o"])
        .arg(&out)
        .args(&files)
        .assert()
        .success()
        .stderr(contains("unsafe"))
        .get_output()
        .stdout
        .clone();
    let v = json(&o)["files"].clone();
    for (i, row) in v.as_array().unwrap().iter().enumerate() {
        let p = PathBuf::from(row["output"].as_str().unwrap());
        assert_eq!(p.parent().unwrap(), fs::canonicalize(&out).unwrap());
        assert_eq!(p.file_name().unwrap().to_str().unwrap(), format!("h{i}.u"));
        assert!(row["warning"].as_str().unwrap().contains("unsafe"));
        assert_eq!(fs::read(&p).unwrap(), payload);
    }
    // Only the output folder and the inputs exist; nothing escaped.
    assert_eq!(files_in(t.path()), ["in", "out"]);
    assert_eq!(files_in(&out).len(), names.len());
    assert!(!Path::new("/tmp/abs.u").exists() || fs::read("/tmp/abs.u").unwrap() != payload);

    // A stored name equal to the input's own name never replaces the input,
    // even with --force.
    let own = inp.join("own.uz");
    let bytes =
        pakrat_uz::compress(&payload, &CompressOptions::new(UzFormat::Uz, "own.uz")).unwrap();
    fs::write(&own, &bytes).unwrap();
    pakrat()
        .args(["decompress", "--force"])
        .arg(&own)
        .assert()
        .code(1)
        .stderr(contains("would overwrite the input itself"));
    assert_eq!(fs::read(&own).unwrap(), bytes);
}

#[test]
fn corrupt_input_fails_cleanly_and_leaves_nothing() {
    let Some(p) = corpus("uz/ZeroPingPlus103.u.uz") else {
        return;
    };
    let data = fs::read(p).unwrap();
    let t = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("truncated", data[..data.len() / 2].to_vec()),
        ("huge-total", {
            let mut d = data.clone();
            d[23..27].copy_from_slice(&i32::MAX.to_le_bytes());
            d
        }),
        ("zeroed-tail", {
            let mut d = data.clone();
            let n = d.len();
            d[n - 4000..].fill(0);
            d
        }),
    ];
    let out = t.path().join("out");
    for (name, bytes) in &cases {
        let f = t.path().join(format!("{name}.uz"));
        fs::write(&f, bytes).unwrap();
        pakrat()
            .args(["decompress", "-o"])
            .arg(&out)
            .arg(&f)
            .assert()
            .code(1)
            .stderr(contains("offset"))
            .stderr(contains(format!("{name}.uz")));
        pakrat()
            .arg("info")
            .arg(&f)
            .assert()
            .code(1)
            .stdout(contains("error:"));
    }
    // No partial or temporary output remains.
    assert!(files_in(&out).is_empty(), "{:?}", files_in(&out));
    // Not a redirect file at all.
    let junk = t.path().join("junk.uz");
    fs::write(&junk, b"definitely not compressed").unwrap();
    pakrat()
        .arg("decompress")
        .arg(&junk)
        .assert()
        .code(1)
        .stderr(contains("not a .uz/.uz2/.uz3 file"));
}

/// Issue 16 finding 12: `.uz` files (decoded whole in memory) run one at a
/// time while `.uz2`/`.uz3` stream in parallel; a mixed batch on two
/// threads still decodes every file right and reports in input order.
#[test]
fn mixed_batch_decodes_in_input_order() {
    let t = tempfile::tempdir().unwrap();
    let mut inputs = Vec::new();
    let mut want = Vec::new();
    for i in 0..6u32 {
        let data: Vec<u8> = (0..20_000 + i * 1000)
            .map(|k| (k % (7 + i)) as u8)
            .collect();
        let (fmt, ext) = match i % 3 {
            0 => (UzFormat::Uz, "uz"),
            1 => (UzFormat::Uz2, "uz2"),
            _ => (UzFormat::Uz3, "uz3"),
        };
        let name = format!("P{i}.u");
        let c = pakrat_uz::compress(&data, &CompressOptions::new(fmt, name.as_str())).unwrap();
        let p = t.path().join(format!("{name}.{ext}"));
        fs::write(&p, c).unwrap();
        inputs.push(p);
        want.push((name, data));
    }
    let out = t.path().join("out");
    let o = pakrat()
        .args(["--threads", "2", "decompress", "--json", "-o"])
        .arg(&out)
        .args(&inputs)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&o)["files"].clone();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 6);
    for ((input, (name, data)), row) in inputs.iter().zip(&want).zip(rows) {
        assert_eq!(row["input"], input.display().to_string());
        assert_eq!(fs::read(out.join(name)).unwrap(), *data, "{name}");
    }
}
