//! Hostile bytes: deterministic mutations of real container headers, zen
//! package headers, ScriptObjects chunks and `.pak` footers must give an
//! error or a result, never a panic, hang or runaway allocation.

use std::time::Duration;

use pakrat_asset::zen::{self, ScriptObjects, ZenLayout};
use pakrat_codec::KeyRing;
use pakrat_iostore::container_header;
use pakrat_iostore::{ChunkType, Container};
use pakrat_testkit::mutate::{mutations, run_case, CountingAlloc, Failure};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

type Parser = fn(&[u8]) -> Result<(), String>;

fn header(d: &[u8]) -> Result<(), String> {
    container_header::parse(d)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn package(d: &[u8]) -> Result<(), String> {
    let entry = container_header::StoreEntry {
        export_bundle_count: Some(1),
        ..Default::default()
    };
    let a = zen::parse(d, ZenLayout::Ue5_3 { cells: true }, None);
    // The same bytes through the other layouts must fail cleanly too.
    let _ = zen::parse(d, ZenLayout::Ue5_3 { cells: false }, None);
    let _ = zen::parse(d, ZenLayout::Ue5_0, Some(&entry));
    let _ = zen::parse(d, ZenLayout::Ue4, Some(&entry));
    a.map(|_| ()).map_err(|e| e.to_string())
}

fn script(d: &[u8]) -> Result<(), String> {
    let s = ScriptObjects::parse(d).map_err(|e| e.to_string())?;
    for o in s.objects.iter().take(2000) {
        let _ = s.path(o.global_index);
    }
    Ok(())
}

fn pak(d: &[u8]) -> Result<(), String> {
    pakrat_pak::parse(d, d.len() as u64)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn mutated_headers_packages_script_objects_and_pak_footers() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let base = dir.join("iostore/cue4parse/UE6_0/IoStore/Tagged");
    let c = Container::open(
        base.join("Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"),
        &KeyRing::new(),
    )
    .unwrap();
    let mut inputs: Vec<(String, Vec<u8>, Parser, usize)> = Vec::new();
    let hi = c.find_by_type(ChunkType::ContainerHeader).unwrap();
    inputs.push((
        "container header".into(),
        c.read_chunk(hi).unwrap(),
        header,
        200,
    ));
    for ch in c
        .chunks()
        .iter()
        .filter(|x| x.chunk_type == ChunkType::ExportBundleData)
        .take(6)
    {
        let d = c.read_chunk(ch.index).unwrap();
        inputs.push((format!("package {}", ch.id.to_hex()), d, package, 60));
    }
    let g = Container::open(base.join("global.utoc"), &KeyRing::new()).unwrap();
    let gi = g.find_by_type(ChunkType::ScriptObjects).unwrap();
    inputs.push((
        "script objects".into(),
        g.read_chunk(gi).unwrap(),
        script,
        24,
    ));
    for p in [
        "iostore/UnrealReZen/UnrealReZen/Resources/Packed_P.pak",
        "iostore/UnrealReZen/UnrealUnZen/Resources/Packed_P.pak",
        "iostore/cue4parse/UE6_0/Patch/Pak/CUE4ParseFixtures-PatchBase.pak",
    ] {
        inputs.push((p.into(), std::fs::read(dir.join(p)).unwrap(), pak, 80));
    }
    ALLOC.set_limit(256 << 20);
    let (mut cases, mut errors) = (0, 0);
    for (name, data, f, n) in &inputs {
        // The unmutated input parses.
        assert_eq!(f(data), Ok(()), "{name}");
        for m in mutations(data, 0x1057, *n) {
            cases += 1;
            let budget = 16 * data.len() + (8 << 20);
            ALLOC.reset_peak();
            let f = *f;
            match run_case(m.data, Duration::from_secs(20), f) {
                Ok(Ok(())) => {}
                Ok(Err(msg)) => {
                    errors += 1;
                    assert!(
                        msg.contains("offset") || msg.contains("need"),
                        "{name} / {}: unclear error {msg:?}",
                        m.name
                    );
                }
                Err(Failure::Panic(p)) => panic!("{name} / {}: panic {p}", m.name),
                Err(other) => panic!("{name} / {}: {other:?}", m.name),
            }
            assert!(
                ALLOC.peak() <= ALLOC.live() + budget,
                "{name} / {}: peak {} over budget",
                m.name,
                ALLOC.peak()
            );
        }
    }
    assert!(!ALLOC.refused());
    assert!(cases >= 500, "{cases}");
    // Many mutations land in export data or in hash values the header does
    // not check; a fair share must still be refused.
    assert!(
        errors > cases / 5,
        "only {errors} of {cases} mutations were rejected"
    );
}
