//! Bulk data (`FByteBulkData`): the payloads objects keep apart from their
//! properties (texture mips, sound waves, mesh LODs).
//!
//! In export data a bulk payload is a header, then (inline payloads) the
//! bytes. The header is either the classic one (flags, element count, size
//! on disk, offset; UE 4.x–5.1) or, in packages with a data resource map
//! (UE 5.2+ legacy) or a bulk data map (zen), an `i32` index into that map.
//! The payload itself lies
//!
//! * inline, right after the header;
//! * at the end of the package's own file (`PayloadAtEndOfFile`: the
//!   `.uexp` of a split package);
//! * in a companion file: `.ubulk` (`PayloadInSeperateFile`), `.uptnl`
//!   (`OptionalPayload`), `.m.ubulk` (both `PayloadInSeperateFile` and
//!   `MemoryMappedPayload`), or in a zen container the BulkData,
//!   OptionalBulkData and MemoryMappedBulkData chunks of the package (chunk
//!   index = the cooked index).
//!
//! [`read_ref`] reads a header into a [`BulkRef`] (where and how big);
//! [`crate::props::Opened::bulk`] fetches its bytes. Facts: UE
//! `BulkData.cpp`; CUE4Parse `FByteBulkDataHeader.cs`, `TBulkData.cs`.

use std::borrow::Cow;

use pakrat_io::{Error, Reader, Result};
use serde::Serialize;

use crate::props::Asset;

/// `EBulkDataFlags` bits pakrat reads.
pub mod flags {
    /// `BULKDATA_PayloadAtEndOfFile`.
    pub const PAYLOAD_AT_END_OF_FILE: u32 = 1 << 0;
    /// `BULKDATA_SerializeCompressedZLIB`.
    pub const COMPRESSED_ZLIB: u32 = 1 << 1;
    /// `BULKDATA_CompressedLZO` (UE3-era).
    pub const COMPRESSED_LZO: u32 = 1 << 4;
    /// `BULKDATA_Unused`.
    pub const UNUSED: u32 = 1 << 5;
    /// `BULKDATA_ForceInlinePayload`.
    pub const FORCE_INLINE_PAYLOAD: u32 = 1 << 6;
    /// `BULKDATA_PayloadInSeperateFile`.
    pub const PAYLOAD_IN_SEPARATE_FILE: u32 = 1 << 8;
    /// `BULKDATA_OptionalPayload`.
    pub const OPTIONAL_PAYLOAD: u32 = 1 << 11;
    /// `BULKDATA_MemoryMappedPayload`.
    pub const MEMORY_MAPPED_PAYLOAD: u32 = 1 << 12;
    /// `BULKDATA_Size64Bit`.
    pub const SIZE_64BIT: u32 = 1 << 13;
    /// `BULKDATA_DuplicateNonOptionalPayload`.
    pub const DUPLICATE_NON_OPTIONAL_PAYLOAD: u32 = 1 << 14;
    /// `BULKDATA_BadDataVersion`.
    pub const BAD_DATA_VERSION: u32 = 1 << 15;
    /// `BULKDATA_NoOffsetFixUp` (UE 4.26+).
    pub const NO_OFFSET_FIX_UP: u32 = 1 << 16;
}

/// One entry of a package's data resource map (legacy, UE 5.2+) or bulk
/// data map (zen).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BulkMapEntry {
    /// `EBulkDataFlags` (`LegacyBulkDataFlags` of a data resource).
    pub flags: u32,
    /// `SerialOffset`.
    pub offset: i64,
    /// `SerialSize`: bytes stored.
    pub size: i64,
    /// Bytes once decompressed (`RawSize`; the stored size in zen maps).
    pub raw_size: i64,
    /// `CookedIndex`.
    pub cooked_index: u8,
}

/// What a package says about its bulk data, for [`read_ref`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BulkMeta {
    /// The data resource map or zen bulk data map (empty: headers are the
    /// classic ones).
    pub map: Vec<BulkMapEntry>,
    /// The summary's `BulkDataStartOffset` (legacy; added to classic
    /// offsets without `NoOffsetFixUp`).
    pub start_offset: i64,
    /// Legacy: bytes of the `.uasset` before the `.uexp` continues the file
    /// (`TotalHeaderSize`); 0 for zen packages.
    pub header_size: u64,
}

impl BulkMeta {
    /// A legacy package's: its data resource map, `BulkDataStartOffset`
    /// and `TotalHeaderSize`.
    pub fn of_legacy(pkg: &crate::legacy::LegacyPackage) -> BulkMeta {
        BulkMeta {
            map: pkg
                .data_resources
                .iter()
                .map(|d| BulkMapEntry {
                    flags: d.legacy_bulk_data_flags,
                    offset: d.serial_offset,
                    size: d.serial_size,
                    raw_size: d.raw_size,
                    cooked_index: d.cooked_index.unwrap_or(0),
                })
                .collect(),
            start_offset: pkg.summary.bulk_data_start_offset,
            header_size: pkg.summary.total_header_size.max(0) as u64,
        }
    }
}

/// A companion file of a package.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BulkFile {
    /// `.ubulk` (zen: BulkData chunk).
    Ubulk,
    /// `.uptnl` (zen: OptionalBulkData chunk).
    Uptnl,
    /// `.m.ubulk` (zen: MemoryMappedBulkData chunk).
    MemoryMapped,
}

impl BulkFile {
    /// The file extension, without the dot (`m.ubulk`).
    pub fn extension(self) -> &'static str {
        match self {
            BulkFile::Ubulk => "ubulk",
            BulkFile::Uptnl => "uptnl",
            BulkFile::MemoryMapped => "m.ubulk",
        }
    }

    /// The file name of a package's companion: `T.ubulk`, and with a cooked
    /// index `T.001.ubulk` (`stem` is the package file without extension).
    pub fn file_name(self, stem: &str, cooked_index: u8) -> String {
        if cooked_index == 0 {
            format!("{stem}.{}", self.extension())
        } else {
            format!("{stem}.{cooked_index:03}.{}", self.extension())
        }
    }
}

/// Where a payload lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum BulkLocation {
    /// No payload (size 0, or `Unused`).
    Empty,
    /// In the export data of export `export` (0-based), at [`BulkRef::offset`].
    Inline {
        /// The export (0-based).
        export: usize,
    },
    /// In the package's own file (the `.uexp` of a split package, the
    /// package chunk of a zen one), at [`BulkRef::offset`] counted from the
    /// start of the `.uasset`.
    EndOfFile,
    /// In a companion file.
    File(BulkFile),
}

/// A bulk data header: where the payload is and how big.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BulkRef {
    /// `EBulkDataFlags`.
    pub flags: u32,
    /// Bytes once decompressed (`ElementCount` of a byte payload).
    pub element_count: u64,
    /// Bytes stored.
    pub size_on_disk: u64,
    /// Offset in the file it lies in (inline: in the export's data).
    pub offset: u64,
    /// `CookedIndex` (which `.NNN.ubulk`/chunk index).
    pub cooked_index: u8,
    /// Where.
    pub location: BulkLocation,
}

impl BulkRef {
    /// An empty payload.
    pub fn empty() -> BulkRef {
        BulkRef {
            flags: 0,
            element_count: 0,
            size_on_disk: 0,
            offset: 0,
            cooked_index: 0,
            location: BulkLocation::Empty,
        }
    }

    /// The payload is compressed (zlib or LZO) and needs decompressing.
    pub fn compressed(&self) -> bool {
        self.flags & (flags::COMPRESSED_ZLIB | flags::COMPRESSED_LZO) != 0
    }

    /// The size of the payload once read (decompressed).
    pub fn size(&self) -> u64 {
        if self.compressed() {
            self.element_count
        } else {
            self.size_on_disk
        }
    }

    /// Short text for listings (`inline 2048 B`, `ubulk 131072 B at 0`).
    pub fn describe(&self) -> String {
        let size = self.size();
        match self.location {
            BulkLocation::Empty => "empty".into(),
            BulkLocation::Inline { .. } => format!("inline, {size} bytes"),
            BulkLocation::EndOfFile => format!("end of file, {size} bytes at {}", self.offset),
            BulkLocation::File(f) => format!("{}, {size} bytes at {}", f.extension(), self.offset),
        }
    }
}

/// Where a payload with these flags lies (inline ones at `here`).
fn locate(bits: u32, size: u64, export: usize) -> BulkLocation {
    use flags as f;
    let flags = bits;
    if size == 0 || flags & f::UNUSED != 0 {
        BulkLocation::Empty
    } else if flags & f::FORCE_INLINE_PAYLOAD != 0 {
        BulkLocation::Inline { export }
    } else if flags & f::OPTIONAL_PAYLOAD != 0 {
        BulkLocation::File(BulkFile::Uptnl)
    } else if flags & f::PAYLOAD_IN_SEPARATE_FILE != 0 && flags & f::MEMORY_MAPPED_PAYLOAD != 0 {
        BulkLocation::File(BulkFile::MemoryMapped)
    } else if flags & f::PAYLOAD_IN_SEPARATE_FILE != 0 {
        BulkLocation::File(BulkFile::Ubulk)
    } else if flags & f::PAYLOAD_AT_END_OF_FILE != 0 {
        BulkLocation::EndOfFile
    } else {
        BulkLocation::Inline { export }
    }
}

/// Read a bulk data header of export `export` of `asset` at `r`, and step
/// over an inline payload. Sizes are checked against what is left of the
/// export for inline payloads; others are checked when fetched.
pub fn read_ref(asset: &Asset<'_>, export: usize, r: &mut Reader<'_>) -> Result<BulkRef> {
    let meta = &asset.bulk;
    let (flags, element_count, size_on_disk, offset, cooked_index) = if meta.map.is_empty() {
        classic_header(asset, r)?
    } else {
        let at = r.offset();
        let i = r.i32("bulk data index")?;
        let e = usize::try_from(i)
            .ok()
            .and_then(|i| meta.map.get(i))
            .ok_or_else(|| {
                Error::invalid(
                    at,
                    format!(
                        "bulk data index {i} is outside the package's bulk data map ({} entries)",
                        meta.map.len()
                    ),
                )
            })?;
        let bad = |what: &str, v: i64| {
            Error::invalid(
                at,
                format!("bulk data map entry {i}: {what} {v} is negative"),
            )
        };
        let size = u64::try_from(e.size).map_err(|_| bad("size", e.size))?;
        let raw = u64::try_from(e.raw_size).unwrap_or(size);
        let off = u64::try_from(e.offset).unwrap_or(0);
        (e.flags, raw, size, off, e.cooked_index)
    };
    let mut location = locate(flags, size_on_disk, export);
    let mut offset = offset;
    if let BulkLocation::Inline { .. } = location {
        offset = r.pos() as u64;
        r.skip(size_on_disk, "inline bulk data")?;
    }
    if location == BulkLocation::Empty {
        offset = 0;
    }
    if let BulkLocation::EndOfFile = location {
        if size_on_disk == 0 {
            location = BulkLocation::Empty;
        }
    }
    Ok(BulkRef {
        flags,
        element_count,
        size_on_disk,
        offset,
        cooked_index,
        location,
    })
}

/// The classic header: flags, element count, size on disk, offset (and
/// the fields some flags add).
fn classic_header(asset: &Asset<'_>, r: &mut Reader<'_>) -> Result<(u32, u64, u64, u64, u8)> {
    use flags as f;
    let mut flags = r.u32("bulk data flags")?;
    let wide = flags & f::SIZE_64BIT != 0;
    let at = r.offset();
    let (count, size) = if wide {
        (r.i64("bulk element count")?, r.i64("bulk size on disk")?)
    } else {
        (
            i64::from(r.i32("bulk element count")?),
            i64::from(r.u32("bulk size on disk")?),
        )
    };
    let (Ok(count), Ok(size)) = (u64::try_from(count), u64::try_from(size)) else {
        return Err(Error::invalid(
            at,
            format!("bulk data sizes {count}/{size} are negative"),
        ));
    };
    let mut offset = r.i64("bulk offset in file")?;
    if flags & f::NO_OFFSET_FIX_UP == 0 {
        offset = offset.saturating_add(asset.bulk.start_offset);
    }
    if flags & f::BAD_DATA_VERSION != 0 {
        r.skip(2, "bulk data version")?;
        flags &= !f::BAD_DATA_VERSION;
    }
    if flags & f::DUPLICATE_NON_OPTIONAL_PAYLOAD != 0 {
        r.skip(4 + if wide { 8 } else { 4 } + 8, "duplicate bulk payload")?;
    }
    let offset = u64::try_from(offset).unwrap_or(u64::MAX);
    Ok((flags, count, size, offset, 0))
}

/// The `size` bytes at `offset` of `file` (a companion file or the
/// package's own), checked. A file exactly as big as the payload holds it
/// alone (the engine's rule for split bulk files).
pub fn slice_at<'f>(
    file: &'f [u8],
    offset: u64,
    size: u64,
    what: &dyn Fn() -> String,
) -> Result<&'f [u8]> {
    let start = if file.len() as u64 == size { 0 } else { offset };
    let end = start.checked_add(size);
    match end {
        Some(end) if end <= file.len() as u64 => Ok(&file[start as usize..end as usize]),
        _ => Err(Error::Other(format!(
            "{}: payload of {size} bytes at {offset} passes the end ({} bytes)",
            what(),
            file.len()
        ))),
    }
}

/// Largest decompressed payload accepted (a hostile element count cannot
/// make pakrat allocate more).
pub const MAX_PAYLOAD: u64 = 1 << 32;

/// The payload's bytes from its stored ones: decompressed when the flags
/// say so (zlib through `FArchive::SerializeCompressed` chunks; LZO is
/// refused), else as they are.
pub fn finish<'d>(r: &BulkRef, stored: &'d [u8]) -> Result<Cow<'d, [u8]>> {
    if r.flags & flags::COMPRESSED_LZO != 0 {
        return Err(Error::Other(
            "bulk data compressed with LZO is not supported".into(),
        ));
    }
    if r.flags & flags::COMPRESSED_ZLIB == 0 {
        return Ok(Cow::Borrowed(stored));
    }
    if r.element_count > MAX_PAYLOAD {
        return Err(Error::Other(format!(
            "compressed bulk data claims {} bytes, over the {MAX_PAYLOAD}-byte limit",
            r.element_count
        )));
    }
    serialize_compressed(stored, r.element_count).map(Cow::Owned)
}

/// `FArchive::SerializeCompressed` data: a tag and chunk size, a summary
/// (compressed, uncompressed sizes), per chunk (compressed, uncompressed)
/// sizes, then the chunks, each a zlib stream. `want` is the size of the
/// whole.
pub fn serialize_compressed(data: &[u8], want: u64) -> Result<Vec<u8>> {
    const TAG: u64 = 0x9E2A_83C1;
    let mut r = Reader::new(data);
    let tag = r.u64("compressed bulk tag")?;
    if tag & 0xFFFF_FFFF != TAG {
        return Err(r.invalid(format!(
            "compressed bulk data starts with {tag:#x}, expected the package tag {TAG:#x}"
        )));
    }
    let chunk = r.u64("compression chunk size")?;
    let _packed = r.u64("compressed size")?;
    let total = r.u64("uncompressed size")?;
    if total != want {
        return Err(r.invalid(format!(
            "compressed bulk data holds {total} bytes, its header says {want}"
        )));
    }
    // zlib expands at most ~1032:1: a header claiming more than that of
    // the bytes stored is refused before anything is allocated.
    if total
        > (data.len() as u64)
            .saturating_mul(1032)
            .saturating_add(1 << 16)
    {
        return Err(r.invalid(format!(
            "compressed bulk data claims {total} bytes from {} stored bytes, more than zlib can expand to",
            data.len()
        )));
    }
    let chunk = chunk.max(1);
    let n = total.div_ceil(chunk);
    r.check_count(n as i64, 16, "compressed chunks")?;
    let mut sizes = Vec::with_capacity(n as usize);
    for _ in 0..n {
        sizes.push((r.u64("chunk size")?, r.u64("chunk raw size")?));
    }
    let mut out = vec![0u8; total as usize];
    let mut at = 0usize;
    for (packed, raw) in sizes {
        let input = r.bytes(packed, "compressed chunk")?;
        let end = at
            .checked_add(raw as usize)
            .filter(|&e| e <= out.len())
            .ok_or_else(|| r.invalid("compressed chunks hold more than the whole"))?;
        pakrat_codec::compress::decompress(
            &pakrat_codec::compress::Method::Zlib,
            input,
            &mut out[at..end],
        )?;
        at = end;
    }
    if at != out.len() {
        return Err(r.invalid(format!(
            "compressed chunks hold {at} bytes, expected {}",
            out.len()
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
