use super::*;
use crate::props::Asset;

fn classic(flags: u32, count: i32, size: u32, offset: i64) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend(flags.to_le_bytes());
    v.extend(count.to_le_bytes());
    v.extend(size.to_le_bytes());
    v.extend(offset.to_le_bytes());
    v
}

#[test]
fn classic_inline_header_steps_over_its_payload() {
    let a = Asset::default();
    let mut d = classic(0, 3, 3, 0);
    d.extend([7, 8, 9, 0xAA]);
    let mut r = Reader::new(&d);
    let b = read_ref(&a, 0, &mut r).unwrap();
    assert_eq!(b.location, BulkLocation::Inline { export: 0 });
    assert_eq!((b.offset, b.size()), (20, 3));
    assert_eq!(r.rest(), &[0xAA]);
}

#[test]
fn classic_inline_payload_past_the_end_is_an_error() {
    let a = Asset::default();
    let d = classic(0, 100, 100, 0);
    assert!(read_ref(&a, 0, &mut Reader::new(&d)).is_err());
}

#[test]
fn classic_separate_file_offsets_add_the_start_offset_unless_told_not_to() {
    let mut a = Asset::default();
    a.bulk.start_offset = 1000;
    let d = classic(flags::PAYLOAD_IN_SEPARATE_FILE, 5, 5, 16);
    let b = read_ref(&a, 0, &mut Reader::new(&d)).unwrap();
    assert_eq!(b.location, BulkLocation::File(BulkFile::Ubulk));
    assert_eq!(b.offset, 1016);
    let d = classic(
        flags::PAYLOAD_IN_SEPARATE_FILE | flags::NO_OFFSET_FIX_UP,
        5,
        5,
        16,
    );
    assert_eq!(read_ref(&a, 0, &mut Reader::new(&d)).unwrap().offset, 16);
    let both = flags::PAYLOAD_IN_SEPARATE_FILE | flags::MEMORY_MAPPED_PAYLOAD;
    let d = classic(both, 5, 5, 0);
    let b = read_ref(&a, 0, &mut Reader::new(&d)).unwrap();
    assert_eq!(b.location, BulkLocation::File(BulkFile::MemoryMapped));
    let d = classic(flags::OPTIONAL_PAYLOAD, 5, 5, 0);
    let b = read_ref(&a, 0, &mut Reader::new(&d)).unwrap();
    assert_eq!(b.location, BulkLocation::File(BulkFile::Uptnl));
}

#[test]
fn map_index_outside_the_map_is_an_error() {
    let mut a = Asset::default();
    a.bulk.map.push(BulkMapEntry {
        flags: flags::FORCE_INLINE_PAYLOAD,
        offset: 0,
        size: 2,
        raw_size: 2,
        cooked_index: 0,
    });
    let d = [0, 0, 0, 0, 5, 6];
    let b = read_ref(&a, 0, &mut Reader::new(&d)).unwrap();
    assert_eq!((b.offset, b.size_on_disk), (4, 2));
    let d = [1, 0, 0, 0, 5, 6];
    let e = read_ref(&a, 0, &mut Reader::new(&d)).unwrap_err();
    assert!(e.to_string().contains("outside"), "{e}");
    let d = [0xFF, 0xFF, 0xFF, 0xFF];
    assert!(read_ref(&a, 0, &mut Reader::new(&d)).is_err());
}

#[test]
fn slices_are_checked_and_a_file_of_the_payload_size_is_read_whole() {
    let f = [1u8, 2, 3, 4];
    let what = || "t".to_string();
    assert_eq!(slice_at(&f, 1, 2, &what).unwrap(), &[2, 3]);
    assert_eq!(slice_at(&f, 99, 4, &what).unwrap(), &f);
    assert!(slice_at(&f, 3, 2, &what).is_err());
    assert!(slice_at(&f, u64::MAX, 2, &what).is_err());
}

#[test]
fn serialize_compressed_round_trip_and_lies() {
    let raw: Vec<u8> = (0..300u32).map(|i| (i % 7) as u8).collect();
    let m = pakrat_codec::compress::Method::Zlib;
    let (a, b) = raw.split_at(200);
    let ca = pakrat_codec::compress::compress(&m, None, a).unwrap();
    let cb = pakrat_codec::compress::compress(&m, None, b).unwrap();
    let mut d = Vec::new();
    for v in [0x9E2A_83C1u64, 200, (ca.len() + cb.len()) as u64, 300] {
        d.extend(v.to_le_bytes());
    }
    for v in [ca.len() as u64, 200, cb.len() as u64, 100] {
        d.extend(v.to_le_bytes());
    }
    d.extend(&ca);
    d.extend(&cb);
    assert_eq!(serialize_compressed(&d, 300).unwrap(), raw);
    assert!(serialize_compressed(&d, 301).is_err());
    let mut bad = d.clone();
    bad[0] = 0;
    assert!(serialize_compressed(&bad, 300).is_err());
    // A chunk claiming more than the whole.
    let mut bad = d.clone();
    bad[40..48].copy_from_slice(&250u64.to_le_bytes());
    assert!(serialize_compressed(&bad, 300).is_err());
    let r = BulkRef {
        flags: flags::COMPRESSED_ZLIB,
        element_count: u64::MAX,
        ..BulkRef::empty()
    };
    assert!(finish(&r, &d).is_err());
}

#[test]
fn serialize_compressed_refuses_a_size_zlib_cannot_reach_before_allocating() {
    let mut d = Vec::new();
    for v in [0x9E2A_83C1u64, 1 << 17, 10, 1 << 40] {
        d.extend(v.to_le_bytes());
    }
    let e = serialize_compressed(&d, 1 << 40).unwrap_err().to_string();
    assert!(e.contains("more than zlib"), "{e}");
}
