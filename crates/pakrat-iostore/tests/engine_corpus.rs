//! The engine → container format table (`pakrat_iostore::engine`) against
//! the real containers, container headers and paks of the corpus.

use pakrat_codec::KeyRing;
use pakrat_iostore::container_header::{self, HeaderForm};
use pakrat_iostore::engine::format_for;
use pakrat_iostore::{ChunkType, Container};
use pakrat_pak::Pak;

#[test]
fn the_table_matches_the_real_containers() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let keys = KeyRing::default();
    // CUE4Parse fixtures: whole containers with their patch paks.
    for (dir, engine) in [("UE5_8", "5.8"), ("UE6_0", "6.0")] {
        let f = format_for(engine).unwrap();
        let root = c.join(format!("iostore/cue4parse/{dir}"));
        for mode in ["Tagged", "Unversioned"] {
            let utoc = root.join(format!(
                "IoStore/{mode}/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"
            ));
            let con = Container::open(&utoc, &keys).unwrap();
            assert_eq!(con.toc().header.version, f.toc_version, "{engine} {mode}");
            let i = con.find_by_type(ChunkType::ContainerHeader).unwrap();
            let h = container_header::parse(&con.read_chunk(i).unwrap()).unwrap();
            assert_eq!(h.form, f.header, "{engine} {mode}");
        }
        for name in [
            "CUE4ParseFixtures-PatchBase",
            "CUE4ParseFixtures-PatchBase_0_P",
        ] {
            let pak = Pak::open(root.join(format!("Patch/Pak/{name}.pak")), &keys).unwrap();
            assert_eq!(pak.footer.version, f.pak_version, "{engine} {name}");
        }
    }
    // Container headers from retoc's tests (UE 4.27, 5.0, 5.3).
    for (engine, form) in [
        ("4.27", HeaderForm::Ue4),
        ("5.0", HeaderForm::Ue5(1)),
        ("5.3", HeaderForm::Ue5(3)),
    ] {
        let bin = c.join(format!("zenpair/retoc/UE{engine}/ContainerHeader_1.bin"));
        let h = container_header::parse(&std::fs::read(&bin).unwrap()).unwrap();
        assert_eq!(h.form, form, "{engine}");
        assert_eq!(format_for(engine).unwrap().header, form, "{engine}");
    }
    // UE 4.27's UnrealPak writes pak v11.
    let p = Pak::open(c.join("pak/repak_tests/packs/pack_v11.pak"), &keys).unwrap();
    assert_eq!(p.footer.version, format_for("4.27").unwrap().pak_version);
}
