//! SoundWaves of the CUE4Parse fixture project (UE 5.8 and 6.0, tagged and
//! unversioned, IoStore): every sound wave reads, its format is the one
//! the project cooked (`SW_Format_*`), its chunks give the bytes the
//! container holds, and the PCM ones equal the project's source WAVs
//! (`SourceAudio/`) sample for sample.

use std::path::Path;

use pakrat_asset::props::{open, schemas_with_package, BulkFrom, NoSchemas, Schemas};
use pakrat_asset::sound::{self, wav};
use pakrat_asset::usmap::Usmap;
use pakrat_codec::KeyRing;
use pakrat_iostore::Container;

/// Package → the audio format its compression setting cooks to.
const FORMATS: &[(&str, &str)] = &[
    ("SW_Inline", "PCM"),
    ("SW_Streaming", "PCM"),
    ("SW_Format_PCM", "PCM"),
    ("SW_Format_ADPCM", "ADPCM"),
    ("SW_Format_BinkAudio", "BINKA"),
    ("SW_Format_Opus", "OPUS"),
    ("SW_Format_PlatformSpecific", "OGG"),
    ("SW_Format_ProjectDefined", "OGG"),
    ("SW_Format_RADAudio", "RADA"),
];

fn samples(file: &[u8]) -> (wav::Wav, Vec<i16>) {
    let w = wav::parse(file).unwrap();
    let s = file[w.data.clone()]
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect();
    (w, s)
}

fn utoc_in(dir: &Path) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "utoc"))
        .unwrap_or_else(|| panic!("no .utoc in {}", dir.display()))
}

#[test]
fn fixture_sound_waves_read_and_pcm_matches_the_sources() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let mut checked = 0;
    for engine in ["UE5_8", "UE6_0"] {
        let refs = corpus
            .join("pak/cue4parse")
            .join(engine)
            .join("SourceAudio");
        let usmap = Usmap::open(
            corpus
                .join("pak/cue4parse")
                .join(engine)
                .join("Mappings/CUE4ParseFixtures-Uncompressed.usmap"),
        )
        .unwrap();
        for form in ["Tagged", "Unversioned"] {
            let base = corpus
                .join("iostore/cue4parse")
                .join(engine)
                .join("IoStore")
                .join(form);
            let keys = KeyRing::default();
            let script = open::load_global(&base.join("global.utoc"), &keys).unwrap();
            let c = Container::open(utoc_in(&base.join("Uncompressed")), &keys).unwrap();
            for (name, format) in FORMATS {
                let label = format!("{engine} {form} {name}");
                let package = format!("/Game/Fixtures/Audio/{name}");
                let opened = open::open_in_container(&c, Some(&script), &package, None).unwrap();
                let asset = opened.asset();
                let mappings: &dyn Schemas = if form == "Unversioned" {
                    &usmap
                } else {
                    &NoSchemas
                };
                let with = schemas_with_package(&asset, mappings);
                let i = asset
                    .exports
                    .iter()
                    .position(|e| sound::is_sound_class(e.class_name()))
                    .unwrap_or_else(|| panic!("{label}: no SoundWave export"));
                let w =
                    sound::read_export(&asset, i, &with).unwrap_or_else(|e| panic!("{label}: {e}"));
                assert_eq!(w.format, *format, "{label}: format");
                assert!(w.streamed, "{label}: UE 5.8+ writes streamed platform data");
                let audio = w
                    .audio(&opened, BulkFrom::Container(&c), true)
                    .unwrap_or_else(|e| panic!("{label}: {e}"));
                assert_eq!(audio.bytes.len() as u64, w.audio_size(), "{label}: size");
                match *format {
                    "PCM" | "ADPCM" => {
                        let (wv, s) = samples(&audio.bytes);
                        assert_eq!((wv.format, wv.channels), (wav::FORMAT_PCM, 1), "{label}");
                        let source = match *name {
                            "SW_Inline" => Some("inline.wav"),
                            "SW_Streaming" => Some("streaming.wav"),
                            _ => None,
                        };
                        if let Some(src) = source {
                            let reference = std::fs::read(refs.join(src)).unwrap();
                            let (rw, rs) = samples(&reference);
                            assert_eq!(wv.sample_rate, rw.sample_rate, "{label}: rate");
                            assert_eq!(s, rs, "{label}: samples differ from {src}");
                        } else {
                            // The format matrix: 2 s of 48 kHz mono.
                            assert_eq!((wv.sample_rate, s.len()), (48_000, 96_000), "{label}");
                        }
                    }
                    // The codecs' own streams, as the chunks hold them.
                    "OGG" => assert!(
                        audio.bytes.starts_with(b"OggS"),
                        "{label}: {:02x?}",
                        &audio.bytes[..8]
                    ),
                    _ => assert!(!audio.decoded && !audio.bytes.is_empty(), "{label}"),
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * 2 * FORMATS.len());
}
