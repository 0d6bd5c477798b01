//! `FPakEntry`: the record of one file, in its three forms, read and written
//! side by side.
//!
//! * The full form (every version; the index before v10, the "non-encoded"
//!   entries of v10+, and the copy written in front of each file's data):
//!   ```text
//!   i64 Offset; i64 Size; i64 UncompressedSize
//!   v1–7: i32 CompressionFlags (1 Zlib, 2 Gzip, 4 Custom)
//!   v8 with 4 method slots (UE 4.22): u8 method index; later: u32 method index
//!   v1 only: i64 Timestamp
//!   u8 Hash[20]                      SHA-1 of the stored bytes
//!   v3+: [if compressed: u32 BlockCount; BlockCount × (i64 Start, i64 End)]
//!        u8 Flags (1 encrypted, 2 deleted); u32 CompressionBlockSize
//!   ```
//!   Block offsets are absolute before v5 and relative to `Offset` from v5
//!   (`RelativeChunkOffsets`). The copy in front of the data has `Offset` 0.
//! * The encoded form (v10+, UE `FPakFile::EncodePakEntry`, CUE4Parse
//!   `FPakEntry.cs`): a `u32` bit field — bits 0–5 block size >> 11 (0x3f:
//!   a `u32` block size follows), 6–21 block count, 22 encrypted, 23–28
//!   method index, 29/30/31 size / uncompressed size / offset fit in 32 bits —
//!   then offset, uncompressed size, [v15 CTR, encrypted: 12-byte IV], [if
//!   compressed: size], [block sizes as `u32`, unless one unencrypted block].
//!   Blocks follow the data header back to back, each padded to 16 bytes when
//!   encrypted. The hash is not encoded: it lives in the data header only.

use pakrat_io::{Error, Reader, Result, Writer};
use serde::Serialize;

/// Entry flag: the data is AES-encrypted.
pub const FLAG_ENCRYPTED: u8 = 0x01;
/// Entry flag: a delete record (v6+ patch paks: the file is removed).
pub const FLAG_DELETED: u8 = 0x02;

/// One compression block, as absolute file offsets (`End` excludes the AES
/// padding that follows an encrypted block).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Block {
    /// First byte.
    pub start: u64,
    /// One past the last byte of the compressed data.
    pub end: u64,
}

/// One file of a pak.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PakEntry {
    /// Path below the mount point (`/`-separated, as stored).
    pub path: String,
    /// Offset of the data header (the copy of this record in front of the data).
    pub offset: u64,
    /// Stored size (compressed size; padded to 16 for encrypted compressed data).
    pub size: u64,
    /// Size of the file.
    pub uncompressed_size: u64,
    /// Compression: before v8 the legacy flags (1 Zlib, 2 Gzip, 4 Custom),
    /// from v8 an index into the footer's method names, 1-based (0 = none).
    pub method: u32,
    /// v1 timestamp.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<u64>,
    /// SHA-1 of the stored bytes (all zero when read from an encoded entry
    /// until the data header is read).
    #[serde(skip)]
    pub hash: [u8; 20],
    /// Compression blocks (absolute offsets).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<Block>,
    /// Flags byte (encrypted, deleted).
    pub flags: u8,
    /// Compression block size (0 when stored).
    pub block_size: u32,
    /// Per-entry IV of AES-CTR paks (v15, encryption method 2).
    #[serde(skip)]
    pub iv: Option<[u8; 12]>,
    /// Read from the encoded form.
    pub encoded: bool,
}

/// How a version lays out an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Pak version.
    pub version: u32,
    /// v8 with 4 method slots (UE 4.22): one-byte method index.
    pub method_byte: bool,
}

impl Layout {
    /// The layout of a footer.
    pub fn of(version: u32, slots: usize) -> Layout {
        Layout {
            version,
            method_byte: version == 8 && slots == 4,
        }
    }

    /// Size of the full form for an entry with `blocks` blocks (`compressed`).
    pub fn full_size(self, compressed: bool, blocks: usize) -> u64 {
        let mut n = 24 + if self.method_byte { 1 } else { 4 };
        if self.version < 2 {
            n += 8;
        }
        n += 20;
        if self.version >= 3 {
            if compressed {
                n += 4 + 16 * blocks as u64;
            }
            n += 5;
        }
        n
    }
}

impl PakEntry {
    /// The data is encrypted.
    pub fn encrypted(&self) -> bool {
        self.flags & FLAG_ENCRYPTED != 0
    }

    /// A delete record.
    pub fn deleted(&self) -> bool {
        self.flags & FLAG_DELETED != 0
    }

    /// Stored compressed (a method and blocks).
    pub fn compressed(&self) -> bool {
        self.method != 0
    }

    /// Size of the data header for this entry.
    pub fn header_size(&self, l: Layout) -> u64 {
        l.full_size(self.compressed(), self.blocks.len())
    }

    /// First byte of the data (after the data header).
    pub fn data_start(&self, l: Layout) -> u64 {
        self.offset.saturating_add(self.header_size(l))
    }

    /// Bytes the data occupies in the file (padded to 16 when encrypted).
    pub fn stored_extent(&self) -> u64 {
        if self.encrypted() {
            align16(self.size)
        } else {
            self.size
        }
    }

    /// Read the full form. `data_header`: the copy in front of the data,
    /// whose relative block offsets count from `base` (the index entry's
    /// offset) rather than from its own zero `Offset`.
    pub fn read_full(r: &mut Reader<'_>, l: Layout, base: Option<u64>) -> Result<PakEntry> {
        let at = r.offset();
        let offset = r.i64("entry offset")?;
        let size = r.i64("entry size")?;
        let usize_ = r.i64("entry uncompressed size")?;
        if offset < 0 || size < 0 || usize_ < 0 {
            return Err(Error::invalid(
                at,
                format!("pak entry with a negative offset or size ({offset}, {size}, {usize_})"),
            ));
        }
        let method = if l.method_byte {
            u32::from(r.u8("compression method")?)
        } else {
            r.u32("compression method")?
        };
        let timestamp = if l.version < 2 {
            Some(r.u64("timestamp")?)
        } else {
            None
        };
        let hash: [u8; 20] = r.array("entry hash")?;
        let mut blocks = Vec::new();
        let mut flags = 0;
        let mut block_size = 0;
        if l.version >= 3 {
            if method != 0 {
                let n = r.i32("compression block count")?;
                let n = r.check_count(i64::from(n), 16, "compression blocks")?;
                blocks.reserve(n);
                let rel = if l.version >= 5 {
                    base.unwrap_or(offset as u64)
                } else {
                    0
                };
                for _ in 0..n {
                    let bat = r.offset();
                    let s = r.u64("block start")?;
                    let e = r.u64("block end")?;
                    let (Some(s), Some(e)) = (s.checked_add(rel), e.checked_add(rel)) else {
                        return Err(Error::invalid(bat, "compression block offset overflows"));
                    };
                    if e < s {
                        return Err(Error::invalid(
                            bat,
                            format!("compression block ends ({e:#x}) before it starts ({s:#x})"),
                        ));
                    }
                    blocks.push(Block { start: s, end: e });
                }
            }
            flags = r.u8("entry flags")?;
            block_size = r.u32("compression block size")?;
        }
        Ok(PakEntry {
            path: String::new(),
            offset: offset as u64,
            size: size as u64,
            uncompressed_size: usize_ as u64,
            method,
            timestamp,
            hash,
            blocks,
            flags,
            block_size,
            iv: None,
            encoded: false,
        })
    }

    /// Write the full form with `offset` in its offset field (0 for the data
    /// header).
    pub fn write_full(&self, w: &mut Writer, l: Layout, offset: u64) {
        w.u64(offset).u64(self.size).u64(self.uncompressed_size);
        if l.method_byte {
            w.u8(self.method as u8);
        } else {
            w.u32(self.method);
        }
        if l.version < 2 {
            w.u64(self.timestamp.unwrap_or(0));
        }
        w.bytes(&self.hash);
        if l.version >= 3 {
            if self.compressed() {
                w.u32(self.blocks.len() as u32);
                let rel = if l.version >= 5 { self.offset } else { 0 };
                for b in &self.blocks {
                    // Exact inverse of the read (which added `rel`).
                    w.u64(b.start.wrapping_sub(rel))
                        .u64(b.end.wrapping_sub(rel));
                }
            }
            w.u8(self.flags).u32(self.block_size);
        }
    }

    /// Read the encoded form (v10+). `ctr`: the pak uses AES-CTR (v15
    /// method 2), so encrypted entries carry an IV.
    pub fn read_encoded(r: &mut Reader<'_>, l: Layout, ctr: bool) -> Result<PakEntry> {
        let bits = r.u32("encoded entry flags")?;
        let mut block_size = if bits & 0x3f == 0x3f {
            r.u32("compression block size")?
        } else {
            (bits & 0x3f) << 11
        };
        let nblocks = ((bits >> 6) & 0xffff) as usize;
        let encrypted = bits & (1 << 22) != 0;
        let method = (bits >> 23) & 0x3f;
        let offset = if bits & (1 << 31) != 0 {
            u64::from(r.u32("entry offset")?)
        } else {
            r.u64("entry offset")?
        };
        let usize_ = if bits & (1 << 30) != 0 {
            u64::from(r.u32("entry uncompressed size")?)
        } else {
            r.u64("entry uncompressed size")?
        };
        let iv = if ctr && encrypted {
            Some(r.array::<12>("entry IV")?)
        } else {
            None
        };
        let size = if method != 0 {
            if bits & (1 << 29) != 0 {
                u64::from(r.u32("entry size")?)
            } else {
                r.u64("entry size")?
            }
        } else {
            usize_
        };
        let mut e = PakEntry {
            path: String::new(),
            offset,
            size,
            uncompressed_size: usize_,
            method,
            timestamp: None,
            hash: [0; 20],
            blocks: Vec::new(),
            flags: if encrypted { FLAG_ENCRYPTED } else { 0 },
            block_size: 0,
            iv,
            encoded: true,
        };
        if nblocks > 0 {
            // Engine: one block → the block size is the file size.
            if nblocks == 1 {
                block_size = u32::try_from(usize_).unwrap_or(u32::MAX);
            }
            e.block_size = block_size;
            let hdr = l.full_size(method != 0, nblocks);
            let mut at = offset.saturating_add(hdr);
            if nblocks == 1 && !encrypted {
                e.blocks.push(Block {
                    start: at,
                    end: at.saturating_add(size),
                });
            } else {
                r.check_count(nblocks as i64, 4, "encoded block sizes")?;
                e.blocks.reserve(nblocks);
                for _ in 0..nblocks {
                    let len = u64::from(r.u32("encoded block size")?);
                    e.blocks.push(Block {
                        start: at,
                        end: at.saturating_add(len),
                    });
                    at = at.saturating_add(if encrypted { align16(len) } else { len });
                }
            }
        }
        Ok(e)
    }

    /// The encoded form, or `None` when the entry does not fit it (a delete
    /// record, more than 65535 blocks, method index above 63, blocks not laid
    /// out back to back after the header).
    pub fn write_encoded(&self, l: Layout, ctr: bool) -> Option<Vec<u8>> {
        let n = self.blocks.len();
        if self.deleted() || n > 0xffff || self.method > 0x3f || (self.compressed() != (n > 0)) {
            return None;
        }
        // The decoder rebuilds the block list; only encode what it rebuilds.
        let mut at = self.offset.checked_add(l.full_size(self.compressed(), n))?;
        for b in &self.blocks {
            if b.start != at {
                return None;
            }
            let len = b.end.checked_sub(b.start)?;
            if len > u64::from(u32::MAX) {
                return None;
            }
            at = at.checked_add(if self.encrypted() { align16(len) } else { len })?;
        }
        if n == 1 && u64::from(self.block_size) != self.uncompressed_size {
            return None;
        }
        if ctr && self.encrypted() && self.iv.is_none() {
            return None;
        }
        let mut bits: u32 = 0;
        let packed = self.block_size >> 11;
        // UnrealPak 4.26/4.27 (v10, v11) encodes the block size of a
        // one-block entry too (its file size; 0x3f and a separate field
        // when not a multiple of 2 KiB); UE 5 (v12+) leaves it 0. Both seen
        // in the corpus paks; readers take the file size either way.
        let with_size = n > 1 || (n == 1 && l.version <= 11);
        let separate = with_size && (packed > 0x3e || packed << 11 != self.block_size);
        if with_size {
            bits |= if separate { 0x3f } else { packed };
        }
        bits |= (n as u32) << 6;
        if self.encrypted() {
            bits |= 1 << 22;
        }
        bits |= self.method << 23;
        let fits = |v: u64| v <= u64::from(u32::MAX);
        if fits(self.size) {
            bits |= 1 << 29;
        }
        if fits(self.uncompressed_size) {
            bits |= 1 << 30;
        }
        if fits(self.offset) {
            bits |= 1 << 31;
        }
        let mut w = Writer::new();
        w.u32(bits);
        if separate {
            w.u32(self.block_size);
        }
        let v = |w: &mut Writer, x: u64| {
            if fits(x) {
                w.u32(x as u32);
            } else {
                w.u64(x);
            }
        };
        v(&mut w, self.offset);
        v(&mut w, self.uncompressed_size);
        if ctr && self.encrypted() {
            w.bytes(self.iv.as_ref()?);
        }
        if self.compressed() {
            v(&mut w, self.size);
        }
        if n > 1 || (n == 1 && self.encrypted()) {
            for b in &self.blocks {
                w.u32((b.end - b.start) as u32);
            }
        }
        Some(w.into_inner())
    }

    /// Fields of the data header that must agree with the index (the data
    /// header has offset 0 and, for encoded entries, the only hash).
    pub fn same_record(&self, other: &PakEntry) -> bool {
        self.size == other.size
            && self.uncompressed_size == other.uncompressed_size
            && self.method == other.method
            && self.blocks == other.blocks
            && self.encrypted() == other.encrypted()
            && (self.blocks.is_empty() || self.block_size == other.block_size)
            && (self.encoded || other.encoded || self.hash == other.hash)
    }

    /// The fields [`PakEntry::same_record`] finds different, each as
    /// `field X here, Y there` (`self` first).
    pub fn record_differences(&self, other: &PakEntry) -> Vec<String> {
        let mut d = Vec::new();
        let mut diff = |field: &str, a: String, b: String| {
            if a != b {
                d.push(format!("{field} {a} vs {b}"));
            }
        };
        diff("stored size", self.size.to_string(), other.size.to_string());
        diff(
            "uncompressed size",
            self.uncompressed_size.to_string(),
            other.uncompressed_size.to_string(),
        );
        diff(
            "compression method",
            self.method.to_string(),
            other.method.to_string(),
        );
        diff(
            "encrypted flag",
            self.encrypted().to_string(),
            other.encrypted().to_string(),
        );
        if self.blocks.len() != other.blocks.len() {
            diff(
                "compression block count",
                self.blocks.len().to_string(),
                other.blocks.len().to_string(),
            );
        } else if let Some((i, (a, b))) = self
            .blocks
            .iter()
            .zip(&other.blocks)
            .enumerate()
            .find(|(_, (a, b))| a != b)
        {
            diff(
                &format!("compression block {i}"),
                format!("{:#x}..{:#x}", a.start, a.end),
                format!("{:#x}..{:#x}", b.start, b.end),
            );
        }
        if !self.blocks.is_empty() {
            diff(
                "compression block size",
                self.block_size.to_string(),
                other.block_size.to_string(),
            );
        }
        if !(self.encoded || other.encoded) {
            let hex = |h: &[u8; 20]| h.iter().map(|b| format!("{b:02x}")).collect::<String>();
            diff("SHA-1", hex(&self.hash), hex(&other.hash));
        }
        d
    }
}

/// Round up to the AES block size.
pub fn align16(n: u64) -> u64 {
    n.saturating_add(15) & !15
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(l: Layout, compressed: bool, encrypted: bool, blocks: usize) -> PakEntry {
        let mut e = PakEntry {
            path: "a/b.txt".into(),
            offset: 1000,
            size: 0,
            uncompressed_size: 200_000,
            method: u32::from(compressed),
            timestamp: (l.version < 2).then_some(7),
            hash: [9; 20],
            blocks: Vec::new(),
            flags: if encrypted { FLAG_ENCRYPTED } else { 0 },
            block_size: if compressed { 65536 } else { 0 },
            iv: None,
            encoded: false,
        };
        if compressed {
            let mut at = e.offset + l.full_size(true, blocks);
            for i in 0..blocks {
                let len = 1000 + i as u64 * 7;
                e.blocks.push(Block {
                    start: at,
                    end: at + len,
                });
                at += if encrypted { align16(len) } else { len };
            }
            e.size = at - e.offset - l.full_size(true, blocks);
            if blocks == 1 {
                e.block_size = 200_000;
            }
        } else {
            e.size = e.uncompressed_size;
        }
        e
    }

    #[test]
    fn full_round_trip_every_version() {
        for v in 1..=15 {
            for slots in [4, 5] {
                let l = Layout::of(v, slots);
                for (c, enc, n) in [(false, false, 0), (true, false, 4), (true, true, 3)] {
                    if v < 3 && c {
                        continue;
                    }
                    let e = sample(l, c, enc && v >= 3, n);
                    let mut w = Writer::new();
                    e.write_full(&mut w, l, e.offset);
                    let bytes = w.into_inner();
                    assert_eq!(bytes.len() as u64, e.header_size(l), "v{v}");
                    let mut back = PakEntry::read_full(&mut Reader::new(&bytes), l, None).unwrap();
                    back.path = e.path.clone();
                    if v < 3 {
                        back.flags = e.flags;
                        back.block_size = e.block_size;
                    }
                    assert_eq!(back, e, "v{v} slots {slots}");
                    // The data header: offset 0, blocks relative to the entry.
                    let mut w = Writer::new();
                    e.write_full(&mut w, l, 0);
                    let h = w.into_inner();
                    let hb = PakEntry::read_full(&mut Reader::new(&h), l, Some(e.offset)).unwrap();
                    assert!(hb.same_record(&e), "v{v}");
                }
            }
        }
    }

    #[test]
    fn encoded_round_trip() {
        let l = Layout::of(11, 5);
        for (c, enc, n) in [
            (false, false, 0),
            (true, false, 1),
            (true, false, 4),
            (true, true, 1),
            (true, true, 3),
        ] {
            let e = sample(l, c, enc, n);
            let bytes = e.write_encoded(l, false).unwrap();
            let mut back = PakEntry::read_encoded(&mut Reader::new(&bytes), l, false).unwrap();
            back.path = e.path.clone();
            back.hash = e.hash;
            back.encoded = false;
            assert_eq!(back, e, "{c} {enc} {n}");
        }
        // CTR entries carry their IV.
        let mut e = sample(l, true, true, 2);
        e.iv = Some([5; 12]);
        let bytes = e.write_encoded(l, true).unwrap();
        let back = PakEntry::read_encoded(&mut Reader::new(&bytes), l, true).unwrap();
        assert_eq!(back.iv, Some([5; 12]));
        assert_eq!(back.blocks, e.blocks);
        // Odd block sizes go in a separate field.
        let mut e = sample(l, true, false, 3);
        e.block_size = 100_000;
        let bytes = e.write_encoded(l, false).unwrap();
        let back = PakEntry::read_encoded(&mut Reader::new(&bytes), l, false).unwrap();
        assert_eq!(back.block_size, 100_000);
        // Large values use 64-bit fields.
        let mut e = sample(l, false, false, 0);
        e.offset = 1 << 40;
        let bytes = e.write_encoded(l, false).unwrap();
        let back = PakEntry::read_encoded(&mut Reader::new(&bytes), l, false).unwrap();
        assert_eq!(back.offset, 1 << 40);
        // Delete records are not encodable.
        e.flags = FLAG_DELETED;
        assert!(e.write_encoded(l, false).is_none());
    }

    /// Fuzz finding (pak_entry, 2026-11-25): an encoded entry at offset
    /// near `u64::MAX` overflowed while being re-encoded.
    #[test]
    fn fuzz_regression_encoded_offset_overflow() {
        let data: &[u8] = &[
            0x0a, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0xff, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x54, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x54, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3c,
            0xaa, 0x20, 0x77, 0x7c, 0xf9, 0xf8, 0xc7, 0x7a, 0xca, 0xb2, 0x77, 0x9e, 0x2c, 0x6d,
            0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x72, 0x41, 0x83, 0x24, 0xa8, 0x01,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x03, 0x00,
            0x0f, 0x24, 0xa9, 0x71, 0x0e, 0xb8,
        ];
        let (sel, rest) = data.split_first().unwrap();
        let l = Layout::of(u32::from(sel % 15) + 1, if sel & 0x10 != 0 { 4 } else { 5 });
        if let Ok(e) = PakEntry::read_encoded(&mut Reader::new(rest), l, sel & 0x20 != 0) {
            let _ = e.write_encoded(l, sel & 0x20 != 0);
        }
        if let Ok(e) = PakEntry::read_full(&mut Reader::new(rest), l, None) {
            let mut w = Writer::new();
            e.write_full(&mut w, l, e.offset);
        }
    }

    #[test]
    fn hostile_counts_are_refused() {
        let l = Layout::of(9, 5);
        let mut w = Writer::new();
        w.u64(0)
            .u64(10)
            .u64(10)
            .u32(1)
            .bytes(&[0; 20])
            .i32(i32::MAX);
        let e = PakEntry::read_full(&mut Reader::new(w.as_slice()), l, None).unwrap_err();
        assert!(e.to_string().contains("compression blocks"), "{e}");
        let mut w = Writer::new();
        w.i64(-5)
            .u64(10)
            .u64(10)
            .u32(0)
            .bytes(&[0; 20])
            .u8(0)
            .u32(0);
        assert!(PakEntry::read_full(&mut Reader::new(w.as_slice()), l, None).is_err());
    }
}
