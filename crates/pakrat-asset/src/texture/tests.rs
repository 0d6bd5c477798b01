use super::*;
use crate::bulk::BulkLocation;
use crate::props::{ExportInfo, Versions};

const NAMES: &[&str] = &["None", "PF_B8G8R8A8"];

/// A cooked UE 5.8 Texture2D's native data: one 2×2 BGRA8 mip inline
/// (classic bulk header), `mips` as the mip count.
fn native(mips: i32) -> Vec<u8> {
    let mut v = vec![1, 0, 0, 0]; // strip flags (editor data stripped) ×2
    v.extend(1u32.to_le_bytes()); // bCooked
    v.extend(1u32.to_le_bytes()); // bSerializeMipData
    v.extend([1, 0, 0, 0, 0, 0, 0, 0]); // PF_B8G8R8A8
    let skip_at = v.len();
    v.extend(0i64.to_le_bytes());
    v.extend([0u8; 16]);
    v.extend(2u32.to_le_bytes());
    v.extend(2u32.to_le_bytes());
    v.extend(1u32.to_le_bytes()); // PackedData: one slice
    v.extend(12i32.to_le_bytes());
    v.extend(b"PF_B8G8R8A8\0");
    v.extend(0i32.to_le_bytes()); // FirstMipToSerialize
    v.extend(mips.to_le_bytes());
    v.extend(0x40u32.to_le_bytes()); // ForceInlinePayload
    v.extend(16i32.to_le_bytes());
    v.extend(16u32.to_le_bytes());
    v.extend(0i64.to_le_bytes());
    v.extend([9u8; 16]);
    for s in [2u32, 2, 1] {
        v.extend(s.to_le_bytes());
    }
    v.extend(0u32.to_le_bytes()); // bIsVirtual
    let end = (v.len() - skip_at) as i64;
    v[skip_at..skip_at + 8].copy_from_slice(&end.to_le_bytes());
    v.extend([0, 0, 0, 0, 0, 0, 0, 0]); // None
    v
}

fn asset(data: &[u8]) -> Asset<'_> {
    Asset {
        names: NAMES.iter().map(|s| s.to_string()).collect(),
        exports: vec![ExportInfo {
            name: "T".into(),
            path: "/Game/T.T".into(),
            class: "/Script/Engine.Texture2D".into(),
            outer: None,
            super_struct: None,
            template: None,
            object_flags: 0,
            offset: 0,
            data,
        }],
        versions: Versions {
            ue4: 522,
            ue5: 1018,
            ..Versions::default()
        },
        ..Asset::default()
    }
}

fn parse(data: &[u8]) -> Result<Texture> {
    let a = asset(data);
    read(&a, 0, "Texture2D", &[], &mut Reader::new(data))
}

#[test]
fn a_minimal_texture_reads_with_its_inline_mip() {
    let d = native(1);
    let t = parse(&d).unwrap();
    assert_eq!(
        (t.format.as_str(), t.width, t.height),
        ("PF_B8G8R8A8", 2, 2)
    );
    assert_eq!(t.kind, TextureKind::Texture2D);
    let b = t.mips[0].data.as_ref().unwrap();
    assert_eq!(b.location, BulkLocation::Inline { export: 0 });
    assert_eq!(&d[b.offset as usize..][..16], &[9u8; 16]);
    let shown = to_properties(&t);
    assert_eq!(shown[0].name, "PlatformData");
}

#[test]
fn a_huge_mip_count_is_an_error_not_an_allocation() {
    for n in [2, 1000, i32::MAX, -1] {
        let e = parse(&native(n)).unwrap_err();
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn a_format_end_outside_the_export_or_off_by_one_is_an_error() {
    let mut d = native(1);
    d[20..28].copy_from_slice(&i64::MAX.to_le_bytes());
    let e = parse(&d).unwrap_err().to_string();
    assert!(e.contains("outside the export"), "{e}");
    let mut d = native(1);
    let end = i64::from_le_bytes(d[20..28].try_into().unwrap());
    d[20..28].copy_from_slice(&(end - 2).to_le_bytes());
    let e = parse(&d).unwrap_err().to_string();
    assert!(e.contains("the package says"), "{e}");
}

#[test]
fn uncooked_textures_and_editor_data_are_refused() {
    let mut d = native(1);
    d[0] = 0;
    assert!(parse(&d).unwrap_err().to_string().contains("editor data"));
    let mut d = native(1);
    d[4] = 0;
    assert!(parse(&d).unwrap_err().to_string().contains("not cooked"));
}

#[test]
fn every_truncation_is_an_error() {
    let d = native(1);
    for n in 0..d.len() {
        assert!(parse(&d[..n]).is_err(), "{n} bytes");
    }
}
