use super::*;
use crate::props::{Asset, Versions};

fn asset(names: &[&str], ue5: i32) -> Asset<'static> {
    Asset {
        names: names.iter().map(|s| s.to_string()).collect(),
        versions: Versions {
            ue4: 522,
            ue5,
            ..Versions::default()
        },
        ..Asset::default()
    }
}

fn classic_bulk(out: &mut Vec<u8>, flags: u32, size: u32, offset: i64) {
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes()); // element count
    out.extend_from_slice(&size.to_le_bytes()); // size on disk
    out.extend_from_slice(&offset.to_le_bytes());
}

fn no_cues(_: &mut Reader<'_>) -> Result<Value> {
    panic!("no cue points expected")
}

#[test]
fn streamed_form_with_inline_header_chunk() {
    // UE 5.0 layout (no cue points): flags, GUID, 2 chunks of "PCM".
    let a = asset(&["None", "PCM"], 1004);
    let mut b = Vec::new();
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&[7; 16]);
    b.extend_from_slice(&2i32.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    // Chunk 0: cooked + inlined, 4 bytes inline (FORCE_INLINE_PAYLOAD).
    b.extend_from_slice(&5u32.to_le_bytes());
    classic_bulk(&mut b, 1 << 6, 4, 0);
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&4i32.to_le_bytes());
    b.extend_from_slice(&4i32.to_le_bytes());
    // Chunk 1: cooked, seek offset, in the .ubulk.
    b.extend_from_slice(&3u32.to_le_bytes());
    classic_bulk(&mut b, 1 << 8, 100, 0);
    b.extend_from_slice(&100i32.to_le_bytes());
    b.extend_from_slice(&90i32.to_le_bytes());
    b.extend_from_slice(&55u32.to_le_bytes());
    let mut r = Reader::new(&b);
    let w = read(&a, 0, &mut r, &mut no_cues).unwrap();
    assert!(w.streamed);
    assert_eq!(w.format, "PCM");
    assert_eq!(w.chunks.len(), 2);
    assert_eq!(w.chunks[1].seek_offset, Some(55));
    assert_eq!(w.audio_size(), 94);
    let props = to_properties(&w);
    assert_eq!(props[3].name, "RunningPlatformData");
}

#[test]
fn inline_format_container_when_the_streamed_form_does_not_fit() {
    let a = asset(&["None", "OGG_Abc"], 1004);
    let mut b = Vec::new();
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&1i32.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    classic_bulk(&mut b, 1 << 6, 3, 0);
    b.extend_from_slice(b"Ogg");
    b.extend_from_slice(&[9; 16]);
    let mut r = Reader::new(&b);
    let w = read(&a, 0, &mut r, &mut no_cues).unwrap();
    assert!(!w.streamed);
    assert_eq!(w.format, "OGG");
    assert_eq!(w.guid.words[0], 0x0909_0909);
    assert_eq!(w.audio_size(), 3);
}

#[test]
fn cue_points_from_5_4_and_bad_input() {
    let a = asset(&["None", "PCM"], UE5_5_4);
    let mut b = Vec::new();
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&2i32.to_le_bytes()); // two cue points of 1 byte each
    b.extend_from_slice(&[1, 2]);
    b.extend_from_slice(&[0; 16]);
    b.extend_from_slice(&0i32.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    let mut seen = Vec::new();
    let mut r = Reader::new(&b);
    let w = read(&a, 0, &mut r, &mut |r| {
        let v = r.u8("cue")?;
        seen.push(v);
        Ok(Value::UInt(u64::from(v)))
    })
    .unwrap();
    assert_eq!(seen, [1, 2]);
    assert_eq!(w.cue_points.len(), 2);
    assert!(w.chunks.is_empty());
    // Not cooked, a trailing byte, an AudioDataSize past its payload.
    let mut r = Reader::new(&[0u8, 0, 0, 0]);
    assert!(read(&a, 0, &mut r, &mut no_cues)
        .unwrap_err()
        .to_string()
        .contains("not cooked"));
    let mut extra = b.clone();
    extra.push(0);
    let mut r = Reader::new(&extra);
    let e = read(&a, 0, &mut r, &mut |r| {
        Ok(Value::UInt(u64::from(r.u8("cue")?)))
    });
    assert!(e
        .unwrap_err()
        .to_string()
        .contains("neither sound wave layout fits"));
    // Every truncation is an error or (cut right after a GUID) the other
    // layout's reading, never a panic.
    let mut cue = |r: &mut Reader<'_>| Ok(Value::UInt(u64::from(r.u8("cue")?)));
    for cut in 0..b.len() {
        let mut r = Reader::new(&b[..cut]);
        if let Ok(w) = read(&a, 0, &mut r, &mut cue) {
            assert!(!w.streamed && w.chunks.is_empty(), "cut {cut}: {w:?}");
        }
    }
}
