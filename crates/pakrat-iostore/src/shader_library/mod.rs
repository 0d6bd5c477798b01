//! Shader libraries: the pak form `.ushaderbytecode` (`FSerializedShaderArchive`,
//! file version 2) and the IoStore form (`FIoStoreShaderCodeArchive`, version 1,
//! a `ShaderCodeLibrary` chunk whose shader code lives in `ShaderCode` group
//! chunks). See `docs/shader-library.md`.
//!
//! Both forms share the shader map hashes, the shader hashes and the shader
//! index array; they differ in where the code is. The pak form keeps one code
//! blob after the header, each shader at an offset (relative to the end of the
//! header) with its stored and uncompressed size; the IoStore form packs
//! shaders into groups, each a chunk named by a hash of its members, and each
//! shader entry packs `frequency:4 | group:30 | offset-in-group:30`.
//!
//! [`LegacyShaderLibrary`] and [`ZenShaderLibrary`] read and write their form
//! byte for byte (a header-only file, without code, too); [`convert`] turns one
//! into the other.

pub mod container;
pub mod convert;

use pakrat_io::{Error, Reader, Result, Writer};
use serde::Serialize;

use crate::toc::{ChunkId, ChunkType, Numbering};

/// The pak form's file version (UE 4.24 and later).
pub const LEGACY_VERSION: u32 = 2;
/// The IoStore form's version (`EIoStoreShaderLibraryVersion::Initial`).
pub const ZEN_VERSION: u32 = 1;

/// A 20-byte SHA-1 (`FSHAHash`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ShaHash(pub [u8; 20]);

impl ShaHash {
    /// Lower-case hex.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl Serialize for ShaHash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

/// One shader map of the pak form (`FShaderMapEntry`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
pub struct LegacyMapEntry {
    /// First index into the shader index array.
    pub shader_indices_offset: u32,
    /// Number of shaders.
    pub num_shaders: u32,
    /// First preload entry.
    pub first_preload_index: u32,
    /// Number of preload entries.
    pub num_preload_entries: u32,
}

/// One shader of the pak form (`FShaderCodeEntry`, 17 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
pub struct LegacyShaderEntry {
    /// Offset in the code blob (after the header).
    pub offset: u64,
    /// Stored size (equal to `uncompressed_size` when stored plain).
    pub size: u32,
    /// Size of the shader code once decompressed.
    pub uncompressed_size: u32,
    /// `EShaderFrequency`.
    pub frequency: u8,
}

/// A region the engine preloads for a shader map (`FFileCachePreloadEntry`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
pub struct PreloadEntry {
    /// Offset in the code blob.
    pub offset: i64,
    /// Size in bytes.
    pub size: i64,
}

/// The pak form, `.ushaderbytecode`.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize)]
pub struct LegacyShaderLibrary {
    /// File version (2).
    pub version: u32,
    /// One hash per shader map.
    pub shader_map_hashes: Vec<ShaHash>,
    /// One hash per shader.
    pub shader_hashes: Vec<ShaHash>,
    /// One entry per shader map.
    pub shader_map_entries: Vec<LegacyMapEntry>,
    /// One entry per shader.
    pub shader_entries: Vec<LegacyShaderEntry>,
    /// Preload regions, referenced by the shader maps.
    pub preload_entries: Vec<PreloadEntry>,
    /// Shader indices, referenced by the shader maps.
    pub shader_indices: Vec<u32>,
    /// The code blob after the header (empty in a header-only file).
    #[serde(skip)]
    pub code: Vec<u8>,
}

/// One shader map of the IoStore form (`FIoStoreShaderMapEntry`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
pub struct ZenMapEntry {
    /// First index into the shader index array.
    pub shader_indices_offset: u32,
    /// Number of shaders.
    pub num_shaders: u32,
}

/// One shader of the IoStore form (`FIoStoreShaderCodeEntry`, a packed u64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ZenShaderEntry(pub u64);

impl ZenShaderEntry {
    const GROUP_MASK: u64 = (1 << 30) - 1;

    /// Pack the three fields.
    pub fn new(group: u32, offset_in_group: u32, frequency: u8) -> ZenShaderEntry {
        ZenShaderEntry(
            (u64::from(frequency) & 0xF)
                | ((u64::from(group) & Self::GROUP_MASK) << 4)
                | ((u64::from(offset_in_group) & Self::GROUP_MASK) << 34),
        )
    }
    /// `EShaderFrequency` (low 4 bits).
    pub fn frequency(self) -> u8 {
        (self.0 & 0xF) as u8
    }
    /// The group holding the shader.
    pub fn group(self) -> u32 {
        ((self.0 >> 4) & Self::GROUP_MASK) as u32
    }
    /// Offset of the shader in its group's uncompressed bytes.
    pub fn offset_in_group(self) -> u32 {
        ((self.0 >> 34) & Self::GROUP_MASK) as u32
    }
}

impl Serialize for ZenShaderEntry {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("ZenShaderEntry", 3)?;
        st.serialize_field("frequency", &self.frequency())?;
        st.serialize_field("group", &self.group())?;
        st.serialize_field("offset_in_group", &self.offset_in_group())?;
        st.end()
    }
}

/// One shader group of the IoStore form (`FIoStoreShaderGroupEntry`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
pub struct GroupEntry {
    /// First index into the shader index array.
    pub shader_indices_offset: u32,
    /// Number of shaders.
    pub num_shaders: u32,
    /// Size of the group's code once decompressed.
    pub uncompressed_size: u32,
    /// Size of the group chunk (equal to `uncompressed_size` when stored plain).
    pub compressed_size: u32,
}

/// The IoStore form: the `ShaderCodeLibrary` chunk (`.uzenshaderbytecode`).
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize)]
pub struct ZenShaderLibrary {
    /// Version (1).
    pub version: u32,
    /// One hash per shader map.
    pub shader_map_hashes: Vec<ShaHash>,
    /// One hash per shader.
    pub shader_hashes: Vec<ShaHash>,
    /// The `ShaderCode` chunk of each group (`ShaderGroupIoHashes`).
    #[serde(serialize_with = "ser_chunk_ids")]
    pub group_chunk_ids: Vec<ChunkId>,
    /// One entry per shader map.
    pub shader_map_entries: Vec<ZenMapEntry>,
    /// One entry per shader.
    pub shader_entries: Vec<ZenShaderEntry>,
    /// One entry per group.
    pub group_entries: Vec<GroupEntry>,
    /// Shader indices, referenced by shader maps and groups.
    pub shader_indices: Vec<u32>,
}

fn ser_chunk_ids<S: serde::Serializer>(
    ids: &[ChunkId],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.collect_seq(ids.iter().map(|c| c.to_hex()))
}

/// `EShaderFrequency` name (UE 5.x numbering).
pub fn frequency_name(f: u8) -> &'static str {
    match f {
        0 => "Vertex",
        1 => "Mesh",
        2 => "Amplification",
        3 => "Pixel",
        4 => "Geometry",
        5 => "Compute",
        6 => "RayGen",
        7 => "RayMiss",
        8 => "RayHitGroup",
        9 => "RayCallable",
        10 => "WorkGraphRoot",
        11 => "WorkGraphComputeNode",
        _ => "Unknown",
    }
}

/// Which form a byte string holds, by its leading version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum LibraryForm {
    /// `.ushaderbytecode` (version 2).
    Legacy,
    /// IoStore library chunk (version 1).
    Zen,
}

/// Tell the form from the first four bytes (`None` for anything else).
pub fn sniff(data: &[u8]) -> Option<LibraryForm> {
    match data
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    {
        Some(LEGACY_VERSION) => Some(LibraryForm::Legacy),
        Some(ZEN_VERSION) => Some(LibraryForm::Zen),
        _ => None,
    }
}

fn read_array<T>(
    r: &mut Reader<'_>,
    what: &str,
    elem: usize,
    mut one: impl FnMut(&mut Reader<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    let n = r.i32_count(what, elem)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(one(r)?);
    }
    Ok(out)
}

fn read_hashes(r: &mut Reader<'_>, what: &str) -> Result<Vec<ShaHash>> {
    read_array(r, what, 20, |r| Ok(ShaHash(r.array::<20>(what)?)))
}

fn read_u32s(r: &mut Reader<'_>, what: &str) -> Result<Vec<u32>> {
    read_array(r, what, 4, |r| r.u32(what))
}

fn write_count(w: &mut Writer, n: usize) {
    w.u32(n as u32);
}

fn write_hashes(w: &mut Writer, h: &[ShaHash]) {
    write_count(w, h.len());
    for x in h {
        w.bytes(&x.0);
    }
}

fn write_u32s(w: &mut Writer, v: &[u32]) {
    write_count(w, v.len());
    for x in v {
        w.u32(*x);
    }
}

/// Check that `offset..offset+count` lies in an array of `len`.
fn check_span(offset: u32, count: u32, len: usize, what: &str) -> Result<()> {
    let end = u64::from(offset) + u64::from(count);
    if end > len as u64 {
        return Err(Error::Invalid {
            offset: 0,
            what: format!("{what}: indices {offset}+{count} past the {len} shader indices"),
        });
    }
    Ok(())
}

fn check_indices(indices: &[u32], shaders: usize) -> Result<()> {
    if let Some(bad) = indices.iter().find(|&&i| i as usize >= shaders) {
        return Err(Error::Invalid {
            offset: 0,
            what: format!("shader index {bad} past the {shaders} shaders"),
        });
    }
    Ok(())
}

fn check_counts(maps: usize, map_entries: usize, shaders: usize, entries: usize) -> Result<()> {
    if maps != map_entries || shaders != entries {
        return Err(Error::Invalid {
            offset: 0,
            what: format!(
                "{maps} shader map hashes but {map_entries} map entries, or {shaders} shader hashes but {entries} shader entries"
            ),
        });
    }
    Ok(())
}

impl LegacyShaderLibrary {
    /// Parse a `.ushaderbytecode` file. The code blob is whatever follows the
    /// header; it may be empty (a header-only file), so shader offsets are
    /// checked by [`LegacyShaderLibrary::shader_code`], not here.
    pub fn parse(data: &[u8]) -> Result<LegacyShaderLibrary> {
        let mut r = Reader::new(data);
        let version = r.u32("shader library version")?;
        if version != LEGACY_VERSION {
            return Err(r.unsupported(format!(
                "shader library version {version} (the pak form is version {LEGACY_VERSION})"
            )));
        }
        let shader_map_hashes = read_hashes(&mut r, "shader map hashes")?;
        let shader_hashes = read_hashes(&mut r, "shader hashes")?;
        let shader_map_entries = read_array(&mut r, "shader map entries", 16, |r| {
            Ok(LegacyMapEntry {
                shader_indices_offset: r.u32("map indices offset")?,
                num_shaders: r.u32("map shader count")?,
                first_preload_index: r.u32("map first preload")?,
                num_preload_entries: r.u32("map preload count")?,
            })
        })?;
        let shader_entries = read_array(&mut r, "shader entries", 17, |r| {
            Ok(LegacyShaderEntry {
                offset: r.u64("shader offset")?,
                size: r.u32("shader size")?,
                uncompressed_size: r.u32("shader uncompressed size")?,
                frequency: r.u8("shader frequency")?,
            })
        })?;
        let preload_entries = read_array(&mut r, "preload entries", 16, |r| {
            Ok(PreloadEntry {
                offset: r.i64("preload offset")?,
                size: r.i64("preload size")?,
            })
        })?;
        let shader_indices = read_u32s(&mut r, "shader indices")?;
        let lib = LegacyShaderLibrary {
            version,
            shader_map_hashes,
            shader_hashes,
            shader_map_entries,
            shader_entries,
            preload_entries,
            shader_indices,
            code: r.rest().to_vec(),
        };
        lib.validate()?;
        Ok(lib)
    }

    fn validate(&self) -> Result<()> {
        check_counts(
            self.shader_map_hashes.len(),
            self.shader_map_entries.len(),
            self.shader_hashes.len(),
            self.shader_entries.len(),
        )?;
        check_indices(&self.shader_indices, self.shader_hashes.len())?;
        for m in &self.shader_map_entries {
            check_span(
                m.shader_indices_offset,
                m.num_shaders,
                self.shader_indices.len(),
                "shader map",
            )?;
            let end = u64::from(m.first_preload_index) + u64::from(m.num_preload_entries);
            if end > self.preload_entries.len() as u64 {
                return Err(Error::Invalid {
                    offset: 0,
                    what: format!(
                        "shader map preload entries end at {end}, past {}",
                        self.preload_entries.len()
                    ),
                });
            }
        }
        Ok(())
    }

    /// The header bytes (everything but the code blob).
    pub fn header_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(self.version);
        write_hashes(&mut w, &self.shader_map_hashes);
        write_hashes(&mut w, &self.shader_hashes);
        write_count(&mut w, self.shader_map_entries.len());
        for m in &self.shader_map_entries {
            w.u32(m.shader_indices_offset).u32(m.num_shaders);
            w.u32(m.first_preload_index).u32(m.num_preload_entries);
        }
        write_count(&mut w, self.shader_entries.len());
        for s in &self.shader_entries {
            w.u64(s.offset)
                .u32(s.size)
                .u32(s.uncompressed_size)
                .u8(s.frequency);
        }
        write_count(&mut w, self.preload_entries.len());
        for p in &self.preload_entries {
            w.i64(p.offset).i64(p.size);
        }
        write_u32s(&mut w, &self.shader_indices);
        w.into_inner()
    }

    /// The whole file: header, then the code blob.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.header_bytes();
        out.extend_from_slice(&self.code);
        out
    }

    /// Whether the file carries no shader code (a header kept for tests).
    pub fn is_header_only(&self) -> bool {
        self.code.is_empty() && self.shader_entries.iter().any(|s| s.size > 0)
    }

    /// The stored bytes of shader `i` (compressed when `size != uncompressed_size`).
    pub fn shader_code(&self, i: usize) -> Result<&[u8]> {
        let e = self.shader_entries.get(i).ok_or_else(|| Error::Invalid {
            offset: 0,
            what: format!("shader {i} of {}", self.shader_entries.len()),
        })?;
        let start = usize::try_from(e.offset).unwrap_or(usize::MAX);
        start
            .checked_add(e.size as usize)
            .and_then(|end| self.code.get(start..end))
            .ok_or_else(|| Error::Invalid {
                offset: e.offset,
                what: format!(
                    "shader {i}: {} bytes at {} past the {}-byte code blob",
                    e.size,
                    e.offset,
                    self.code.len()
                ),
            })
    }

    /// The shaders of map `m`, as shader indices.
    pub fn map_shaders(&self, m: usize) -> &[u32] {
        self.shader_map_entries.get(m).map_or(&[], |e| {
            let s = e.shader_indices_offset as usize;
            &self.shader_indices[s..s + e.num_shaders as usize]
        })
    }
}

impl ZenShaderLibrary {
    /// Parse a `ShaderCodeLibrary` chunk.
    pub fn parse(data: &[u8]) -> Result<ZenShaderLibrary> {
        let mut r = Reader::new(data);
        let version = r.u32("shader library version")?;
        if version != ZEN_VERSION {
            return Err(r.unsupported(format!(
                "IoStore shader library version {version} (known: {ZEN_VERSION})"
            )));
        }
        let shader_map_hashes = read_hashes(&mut r, "shader map hashes")?;
        let shader_hashes = read_hashes(&mut r, "shader hashes")?;
        let group_chunk_ids = read_array(&mut r, "shader group chunk ids", 12, |r| {
            Ok(ChunkId(r.array::<12>("chunk id")?))
        })?;
        let shader_map_entries = read_array(&mut r, "shader map entries", 8, |r| {
            Ok(ZenMapEntry {
                shader_indices_offset: r.u32("map indices offset")?,
                num_shaders: r.u32("map shader count")?,
            })
        })?;
        let shader_entries = read_array(&mut r, "shader entries", 8, |r| {
            Ok(ZenShaderEntry(r.u64("shader entry")?))
        })?;
        let group_entries = read_array(&mut r, "shader group entries", 16, |r| {
            Ok(GroupEntry {
                shader_indices_offset: r.u32("group indices offset")?,
                num_shaders: r.u32("group shader count")?,
                uncompressed_size: r.u32("group uncompressed size")?,
                compressed_size: r.u32("group compressed size")?,
            })
        })?;
        let shader_indices = read_u32s(&mut r, "shader indices")?;
        if r.remaining() != 0 {
            return Err(r.invalid(format!("{} bytes after the shader library", r.remaining())));
        }
        let lib = ZenShaderLibrary {
            version,
            shader_map_hashes,
            shader_hashes,
            group_chunk_ids,
            shader_map_entries,
            shader_entries,
            group_entries,
            shader_indices,
        };
        lib.validate()?;
        Ok(lib)
    }

    fn validate(&self) -> Result<()> {
        check_counts(
            self.shader_map_hashes.len(),
            self.shader_map_entries.len(),
            self.shader_hashes.len(),
            self.shader_entries.len(),
        )?;
        if self.group_chunk_ids.len() != self.group_entries.len() {
            return Err(Error::Invalid {
                offset: 0,
                what: format!(
                    "{} group chunk ids but {} group entries",
                    self.group_chunk_ids.len(),
                    self.group_entries.len()
                ),
            });
        }
        check_indices(&self.shader_indices, self.shader_hashes.len())?;
        for m in &self.shader_map_entries {
            check_span(
                m.shader_indices_offset,
                m.num_shaders,
                self.shader_indices.len(),
                "shader map",
            )?;
        }
        for g in &self.group_entries {
            check_span(
                g.shader_indices_offset,
                g.num_shaders,
                self.shader_indices.len(),
                "shader group",
            )?;
        }
        for (i, s) in self.shader_entries.iter().enumerate() {
            if s.group() as usize >= self.group_entries.len() {
                return Err(Error::Invalid {
                    offset: 0,
                    what: format!(
                        "shader {i} in group {} of {}",
                        s.group(),
                        self.group_entries.len()
                    ),
                });
            }
        }
        Ok(())
    }

    /// The chunk's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(self.version);
        write_hashes(&mut w, &self.shader_map_hashes);
        write_hashes(&mut w, &self.shader_hashes);
        write_count(&mut w, self.group_chunk_ids.len());
        for c in &self.group_chunk_ids {
            w.bytes(&c.0);
        }
        write_count(&mut w, self.shader_map_entries.len());
        for m in &self.shader_map_entries {
            w.u32(m.shader_indices_offset).u32(m.num_shaders);
        }
        write_count(&mut w, self.shader_entries.len());
        for s in &self.shader_entries {
            w.u64(s.0);
        }
        write_count(&mut w, self.group_entries.len());
        for g in &self.group_entries {
            w.u32(g.shader_indices_offset).u32(g.num_shaders);
            w.u32(g.uncompressed_size).u32(g.compressed_size);
        }
        write_u32s(&mut w, &self.shader_indices);
        w.into_inner()
    }

    /// The shaders of group `g`, as shader indices.
    pub fn group_shaders(&self, g: usize) -> &[u32] {
        self.group_entries.get(g).map_or(&[], |e| {
            let s = e.shader_indices_offset as usize;
            &self.shader_indices[s..s + e.num_shaders as usize]
        })
    }

    /// The shaders of map `m`, as shader indices.
    pub fn map_shaders(&self, m: usize) -> &[u32] {
        self.shader_map_entries.get(m).map_or(&[], |e| {
            let s = e.shader_indices_offset as usize;
            &self.shader_indices[s..s + e.num_shaders as usize]
        })
    }
}

/// Library name and shader format from a file name such as
/// `ShaderArchive-Global-PCD3D_SM6-PCD3D_SM6.ushaderbytecode`: the name is
/// what lies between the first and the last `-` (`Global-PCD3D_SM6`), the
/// format what follows the last (`PCD3D_SM6`). This is how UnrealPak splits
/// it when it names the chunks, so the chunk ids come out as the engine's.
pub fn split_file_name(file_name: &str) -> Option<(String, String)> {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let stem = base.split('.').next().unwrap_or(base);
    let first = stem.find('-')?;
    let last = stem.rfind('-')?;
    if last <= first {
        return None;
    }
    Some((
        stem[first + 1..last].to_string(),
        stem[last + 1..].to_string(),
    ))
}

/// The `ShaderCodeLibrary` chunk id of a library: CityHash64 of the lower-case
/// UTF-16 `"{name}-{format}"`, index 0, the type byte of `numbering`.
pub fn library_chunk_id(name: &str, format: &str, numbering: Numbering) -> ChunkId {
    let id = pakrat_codec::names::package_id(&format!("{name}-{format}"));
    let ty = ChunkType::ShaderCodeLibrary.to_raw(numbering).unwrap_or(8);
    ChunkId::new(id, 0, 0, ty)
}

#[cfg(test)]
mod tests;
