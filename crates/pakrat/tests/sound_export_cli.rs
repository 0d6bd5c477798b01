//! `pakrat export` of UE4/UE5 SoundWaves: from a container and from the
//! same packages converted to loose legacy files (`.uasset/.uexp/.ubulk`),
//! the audio files are the same bytes; PCM ones equal the fixture's
//! `SourceAudio` samples; the other codecs are written as cooked and named.

mod common;

use std::path::{Path, PathBuf};

use common::pakrat;
use serde_json::Value;

fn utoc(dir: &Path) -> PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "utoc"))
        .unwrap_or_else(|| panic!("no .utoc in {}", dir.display()))
}

fn export(args: &[&str], out: &Path) -> Value {
    let o = pakrat()
        .arg("export")
        .args(args)
        .args(["-o", out.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}\n{}",
        String::from_utf8_lossy(&o.stderr),
        String::from_utf8_lossy(&o.stdout)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The samples of a 16-bit PCM WAVE file (the `data` chunk).
fn samples(file: &[u8]) -> Vec<i16> {
    let w = pakrat_asset::sound::wav::parse(file).unwrap();
    assert_eq!(w.format, pakrat_asset::sound::wav::FORMAT_PCM);
    file[w.data]
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect()
}

#[test]
fn fixture_sounds_export_from_container_and_loose_files_alike() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let c = utoc(&dir.join("iostore/cue4parse/UE5_8/IoStore/Unversioned/Zlib"));
    let usmap = dir.join("pak/cue4parse/UE5_8/Mappings/CUE4ParseFixtures-Uncompressed.usmap");
    let zen = tmp.path().join("zen");
    let m = export(
        &[
            c.to_str().unwrap(),
            "/Game/Fixtures/Audio/*",
            "--class",
            "Sound",
            "--usmap",
            usmap.to_str().unwrap(),
        ],
        &zen,
    );
    let written = m["written"].as_array().unwrap();
    assert_eq!(written.len(), 9, "{m}");
    assert!(m["failed"].as_array().unwrap().is_empty(), "{m}");
    let format_of = |name: &str| {
        written
            .iter()
            .find(|r| r["object"].as_str().unwrap().ends_with(&format!(".{name}")))
            .map(|r| (r["audio_format"].clone(), r["written"][0]["file"].clone()))
            .unwrap()
    };
    assert_eq!(format_of("SW_Format_Opus").0, "OPUS");
    assert_eq!(
        format_of("SW_Format_BinkAudio").1,
        "Game/Fixtures/Audio/SW_Format_BinkAudio.binka"
    );
    assert!(
        written[0]["written"][0].get("width").is_none(),
        "no image size for a sound"
    );
    let ogg = std::fs::read(zen.join("Game/Fixtures/Audio/SW_Format_ProjectDefined.ogg")).unwrap();
    assert!(ogg.starts_with(b"OggS"));
    // PCM: the source's samples.
    for (name, src) in [
        ("SW_Inline", "inline.wav"),
        ("SW_Streaming", "streaming.wav"),
    ] {
        let got = std::fs::read(zen.join(format!("Game/Fixtures/Audio/{name}.wav"))).unwrap();
        let want = std::fs::read(dir.join("pak/cue4parse/UE5_8/SourceAudio").join(src)).unwrap();
        assert_eq!(samples(&got), samples(&want), "{name}");
    }
    // The same packages as loose legacy files (their audio in .ubulk files).
    let leg = tmp.path().join("leg");
    let o = pakrat()
        .args(["zen", "to-legacy", "-q", "--ue-version", "5.8", "-o"])
        .args([
            leg.to_str().unwrap(),
            c.to_str().unwrap(),
            "/Game/Fixtures/Audio/*",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let loose = tmp.path().join("loose");
    let m = export(
        &[
            leg.to_str().unwrap(),
            "--ue-version",
            "5.8",
            "--usmap",
            usmap.to_str().unwrap(),
            "--class",
            "SoundWave",
        ],
        &loose,
    );
    assert_eq!(m["written"].as_array().unwrap().len(), 9, "{m}");
    assert_eq!(common::files(&loose), common::files(&zen));
}
