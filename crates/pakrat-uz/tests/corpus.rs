//! Corpus tests: real `.uz`/`.uz2` files decode to the packages they hold,
//! and every corpus package survives a round trip through each format.

use std::path::Path;

use pakrat_testkit::{entries, Entry};
use pakrat_uz::{compress, decompress, CompressOptions, UzFormat, UzSignature};
use rayon::prelude::*;

fn file_name(e: &Entry) -> &str {
    e.local_path.rsplit('/').next().unwrap_or(&e.local_path)
}

/// The corpus package a redirect file was made from, when the corpus holds
/// it: same file name, or (Killing Floor) the `kf1_` copy the manifest names.
fn original_in_corpus(name: &str, packages: &[Entry]) -> Option<Vec<u8>> {
    packages
        .iter()
        .find(|p| file_name(p) == name || file_name(p) == format!("kf1_{name}"))
        .map(|p| std::fs::read(&p.path).expect("read corpus package"))
}

#[test]
fn corpus_redirect_files_decode_to_their_packages() {
    let Some(uz) = entries("uz") else { return };
    let Some(mut packages) = entries("ue1") else {
        return;
    };
    packages.extend(entries("ue2").unwrap_or_default());
    assert!(uz.len() >= 5, "expected the corpus .uz/.uz2 files");
    let mut compared = 0;
    for e in &uz {
        let data = std::fs::read(&e.path).expect("read corpus file");
        let d = decompress(&data).unwrap_or_else(|err| panic!("{}: {err}", e.local_path));
        let tag = u32::from_le_bytes(d.data[..4].try_into().unwrap());
        // 0x9E2A83C2 is Killing Floor's own tag (manifest, ue2/kf1_KFMutators.u).
        assert!(
            tag == 0x9E2A_83C1 || tag == 0x9E2A_83C2,
            "{}: decoded data starts with {tag:#x}",
            e.local_path
        );
        assert!(d.is_package());
        let fname = file_name(e);
        if e.detail.starts_with("uz signature") {
            assert_eq!(d.info.format, UzFormat::Uz, "{}", e.local_path);
            // detail: "uz signature 1234 original=Name.u"
            let sig: i32 = e.detail.split_whitespace().nth(2).unwrap().parse().unwrap();
            assert_eq!(d.info.signature.map(|s| s.value()), Some(sig));
            let original = e.detail_value("original").expect("original= in detail");
            assert_eq!(d.original_name(), Some(original), "{}", e.local_path);
            assert_eq!(format!("{original}.uz"), fname);
            // Our encoder reproduces ucc's bytes exactly.
            let mut opts = CompressOptions::new(UzFormat::Uz, original);
            opts.signature = d.info.signature.unwrap();
            let again = compress(&d.data, &opts).unwrap();
            assert!(
                again == data,
                "{}: re-encoding differs from ucc's file",
                e.local_path
            );
            if let Some(orig) = original_in_corpus(original, &packages) {
                assert!(
                    orig == d.data,
                    "{}: differs from the corpus original",
                    e.local_path
                );
                compared += 1;
            }
        } else {
            assert_eq!(d.info.format, UzFormat::Uz2, "{}", e.local_path);
            // detail: "uz2 (chunked zlib) chunk0 comp=3099 uncomp=10845"
            let comp: u32 = e.detail_value("comp").unwrap().parse().unwrap();
            let uncomp: u32 = e.detail_value("uncomp").unwrap().parse().unwrap();
            let chunks = pakrat_uz::uz2::chunks(&data).unwrap();
            assert_eq!(
                (chunks[0].compressed, chunks[0].uncompressed),
                (comp, uncomp)
            );
            assert_eq!(
                d.data.len() as u64,
                chunks
                    .iter()
                    .map(|c| u64::from(c.uncompressed))
                    .sum::<u64>()
            );
            let stem = fname.strip_suffix(".uz2").unwrap();
            // Our encoder (zlib-rs at zlib's default level, 32 KiB chunks)
            // reproduces KFRedirectTool's kfuz2 bytes exactly.
            let again = compress(&d.data, &CompressOptions::new(UzFormat::Uz2, stem)).unwrap();
            assert!(
                again == data,
                "{}: re-encoding differs from kfuz2's file",
                e.local_path
            );
            if let Some(orig) = original_in_corpus(stem, &packages) {
                assert!(
                    orig == d.data,
                    "{}: differs from the corpus original",
                    e.local_path
                );
                compared += 1;
            }
        }
    }
    // NewNetUnrealv0_9.u, NewNetWeaponsv0_9.u, ZeroPingPlus103.u, kf1_KFMutators.u.
    assert!(
        compared >= 4,
        "only {compared} compared with corpus originals"
    );
}

fn round_trip(path: &Path, data: &[u8]) -> Result<usize, String> {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let mut variants = vec![
        CompressOptions::new(UzFormat::Uz, &name),
        CompressOptions::new(UzFormat::Uz2, &name),
        CompressOptions::new(UzFormat::Uz3, &name),
    ];
    let mut old = CompressOptions::new(UzFormat::Uz, &name);
    old.signature = UzSignature::S1234;
    variants.push(old);
    for o in &variants {
        let c = compress(data, o).map_err(|e| format!("{name}: compress {:?}: {e}", o.format))?;
        let d = decompress(&c).map_err(|e| format!("{name}: decompress {:?}: {e}", o.format))?;
        if d.info.format != o.format || d.data != data {
            return Err(format!(
                "{name}: {:?}/{:?} round trip differs",
                o.format, o.signature
            ));
        }
        if o.format == UzFormat::Uz
            && (d.original_name() != Some(name.as_str()) || d.info.signature != Some(o.signature))
        {
            return Err(format!("{name}: header not kept"));
        }
    }
    Ok(variants.len())
}

#[test]
fn corpus_packages_round_trip_in_every_format() {
    let Some(mut packages) = entries("ue1") else {
        return;
    };
    packages.extend(entries("ue2").unwrap_or_default());
    assert!(packages.len() >= 100, "expected the ue1/ue2 corpus");
    let results: Vec<Result<usize, String>> = packages
        .par_iter()
        .map(|e| {
            let data = std::fs::read(&e.path).map_err(|err| err.to_string())?;
            round_trip(&e.path, &data)
        })
        .collect();
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(failures.is_empty(), "{failures:#?}");
    let done: usize = results.iter().filter_map(|r| r.as_ref().ok()).sum();
    assert_eq!(done, packages.len() * 4);
    eprintln!("round-tripped {} packages × 4 formats", packages.len());
}
