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

/// What a hand-built UE4 texture holds (UE 4.20–4.27 gates).
#[derive(Clone, Copy)]
struct Ue4 {
    /// `FileVersionUE4`: 522 (4.27), 517 (4.21–4.23), below 516 (pre-4.20:
    /// 32-bit `SkipOffset`, no `SizeZ`).
    ver: i32,
    /// `bIsVirtual` written (UE 4.23+).
    virtual_flag: bool,
    /// `PackedData` bit 30 and `ExtData`, `NumMipsInTail` (UE 4.24+).
    opt_data: bool,
    /// The mip's `bCooked`.
    cooked: bool,
    /// The mip's bulk sizes as 64-bit (`BULKDATA_Size64Bit`).
    wide: bool,
}

const UE4_27: Ue4 = Ue4 {
    ver: 522,
    virtual_flag: true,
    opt_data: false,
    cooked: true,
    wide: false,
};

/// The export's data starts at this file offset: UE4's `SkipOffset` is
/// absolute (counted from the start of the legacy file).
const BASE: u64 = 1000;

/// A cooked UE4 Texture2D's native data: one 2×2 BGRA8 mip inline.
fn native_ue4(u: Ue4) -> Vec<u8> {
    let wide_skip = u.ver >= 516;
    let mut v = vec![1, 0, 0, 0]; // strip flags ×2
    v.extend(1u32.to_le_bytes()); // bCooked (no bSerializeMipData before UE 5.3)
    v.extend([1, 0, 0, 0, 0, 0, 0, 0]); // PF_B8G8R8A8
    let skip_at = v.len();
    v.extend(if wide_skip { vec![0; 8] } else { vec![0; 4] });
    // No derived-data placeholder before UE 5.0.
    v.extend(2u32.to_le_bytes());
    v.extend(2u32.to_le_bytes());
    let packed = 1u32 | if u.opt_data { 1 << 30 } else { 0 };
    v.extend(packed.to_le_bytes());
    v.extend(12i32.to_le_bytes());
    v.extend(b"PF_B8G8R8A8\0");
    if u.opt_data {
        v.extend(7u32.to_le_bytes()); // ExtData
        v.extend(3u32.to_le_bytes()); // NumMipsInTail
    }
    v.extend(0i32.to_le_bytes()); // FirstMipToSerialize
    v.extend(1i32.to_le_bytes()); // one mip
    v.extend(u32::from(u.cooked).to_le_bytes()); // the mip's bCooked
    let flags = 0x40u32 | if u.wide { 1 << 13 } else { 0 };
    v.extend(flags.to_le_bytes());
    if u.wide {
        v.extend(16i64.to_le_bytes());
        v.extend(16i64.to_le_bytes());
    } else {
        v.extend(16i32.to_le_bytes());
        v.extend(16u32.to_le_bytes());
    }
    v.extend(0i64.to_le_bytes());
    v.extend([9u8; 16]);
    v.extend(2u32.to_le_bytes());
    v.extend(2u32.to_le_bytes());
    if u.ver >= 516 {
        v.extend(1u32.to_le_bytes()); // SizeZ (UE 4.20+)
    }
    if u.virtual_flag {
        v.extend(0u32.to_le_bytes());
    }
    let end = BASE as i64 + v.len() as i64;
    if wide_skip {
        v[skip_at..skip_at + 8].copy_from_slice(&end.to_le_bytes());
    } else {
        v[skip_at..skip_at + 4].copy_from_slice(&(end as i32).to_le_bytes());
    }
    v.extend([0, 0, 0, 0, 0, 0, 0, 0]); // None
    v
}

fn parse_ue4(data: &[u8], ver: i32) -> Result<Texture> {
    let mut a = asset(data);
    a.versions = Versions {
        ue4: ver,
        ue5: 0,
        ..Versions::default()
    };
    a.exports[0].offset = BASE;
    read(&a, 0, "Texture2D", &[], &mut Reader::with_base(data, BASE))
}

#[test]
fn ue4_27_cooked_layout_reads() {
    let d = native_ue4(UE4_27);
    let t = parse_ue4(&d, 522).unwrap();
    assert_eq!((t.width, t.height, t.slices, t.opt_data), (2, 2, 1, None));
    let m = &t.mips[0];
    assert_eq!((m.width, m.height, m.depth), (2, 2, 1));
    let b = m.data.as_ref().unwrap();
    assert_eq!(b.location, BulkLocation::Inline { export: 0 });
    assert_eq!(&d[b.offset as usize..][..16], &[9u8; 16]);
    assert!(t.virtual_texture.is_none());
    // SkipOffset is absolute: counted from the export's start it is wrong.
    let mut rel = d.clone();
    let end = i64::from_le_bytes(rel[16..24].try_into().unwrap()) - BASE as i64;
    rel[16..24].copy_from_slice(&end.to_le_bytes());
    assert!(parse_ue4(&rel, 522).is_err());
}

#[test]
fn ue4_24_optional_data_and_64_bit_bulk_sizes_read() {
    let d = native_ue4(Ue4 {
        opt_data: true,
        wide: true,
        ..UE4_27
    });
    let t = parse_ue4(&d, 522).unwrap();
    assert_eq!(t.opt_data, Some((7, 3)));
    assert_eq!(t.slices, 1, "bit 30 is not a slice count");
    let b = t.mips[0].data.as_ref().unwrap();
    assert_eq!((b.element_count, b.size_on_disk), (16, 16));
    assert_eq!(&d[b.offset as usize..][..16], &[9u8; 16]);
}

#[test]
fn ue4_21_to_4_23_read_with_and_without_the_virtual_flag() {
    // 4.21–4.23 share file version 517; only 4.23 writes bIsVirtual.
    for virtual_flag in [false, true] {
        let d = native_ue4(Ue4 {
            ver: 517,
            virtual_flag,
            ..UE4_27
        });
        let t = parse_ue4(&d, 517).unwrap();
        assert_eq!((t.mips[0].width, t.mips[0].depth), (2, 1));
    }
}

#[test]
fn before_4_20_skip_offsets_are_32_bit_and_mips_have_no_depth() {
    let d = native_ue4(Ue4 {
        ver: 514,
        virtual_flag: false,
        ..UE4_27
    });
    let t = parse_ue4(&d, 514).unwrap();
    let m = &t.mips[0];
    assert_eq!((m.width, m.height, m.depth), (2, 2, 1));
    // The same bytes read as 4.20+ misplace everything after the skip.
    assert!(parse_ue4(&d, 516).is_err());
}

#[test]
fn a_ue4_mip_that_is_not_cooked_is_refused() {
    let d = native_ue4(Ue4 {
        cooked: false,
        ..UE4_27
    });
    let e = parse_ue4(&d, 522).unwrap_err().to_string();
    assert!(e.contains("uncooked mip"), "{e}");
}

#[test]
fn every_truncation_of_a_ue4_texture_is_an_error() {
    let d = native_ue4(UE4_27);
    for n in 0..d.len() {
        assert!(parse_ue4(&d[..n], 522).is_err(), "{n} bytes");
    }
}
