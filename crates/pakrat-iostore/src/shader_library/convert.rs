//! Converting a shader library between its pak form and its IoStore form.
//!
//! Pak → IoStore ([`plan_groups`], [`legacy_to_zen`]) follows UnrealPak's
//! grouping so that the shader entries, map entries, index array, group
//! members, group sizes and group chunk ids come out as the engine's
//! (`docs/shader-library.md`; facts from retoc's `shader_library.rs` and its
//! identity test on the UE 5.4 library):
//! 1. each shader's set of referencing shader maps (sorted);
//! 2. shaders ordered by (set size, set, index) and cut into runs of equal sets;
//! 3. for `PCD3D_SM5` a run is split into non-ray-tracing and ray-tracing shaders;
//! 4. a run over the maximum group size (1 MiB) is dealt, largest shader first,
//!    into `size / max + 1` groups, each shader to the currently smallest;
//! 5. each group's shaders sorted by (uncompressed size, size, frequency, offset);
//! 6. a group's index run reuses an equal run of the index array or is appended;
//! 7. the group chunk id is the first 11 bytes of SHA-1(per shader: hash,
//!    uncompressed size u32; then the format name) and the `ShaderCode` type.
//!
//! The group chunks pakrat writes are stored plain (compressed size equals
//! uncompressed size, which the engine reads as "not compressed"); the
//! engine's are compressed with the project's shader codec, so only the
//! compressed sizes differ from the engine's library chunk.
//!
//! IoStore → pak ([`zen_to_legacy`]) keeps the shader maps, shaders, hashes,
//! frequencies and index array; the code blob is laid out as shared shaders,
//! then each map's own shaders (one preload entry per map plus one per shared
//! shader), then shaders no map uses, all stored plain.

use std::collections::HashMap;

use pakrat_codec::compress::{decompress, Method};
use pakrat_io::{Error, Result};
use sha1::{Digest, Sha1};

use super::{
    GroupEntry, LegacyMapEntry, LegacyShaderEntry, LegacyShaderLibrary, PreloadEntry, ZenMapEntry,
    ZenShaderEntry, ZenShaderLibrary, LEGACY_VERSION, ZEN_VERSION,
};
use crate::toc::{ChunkId, ChunkType, Numbering};

/// Group chunks made by [`legacy_to_zen`]: id and bytes, in group order.
pub type GroupChunks = Vec<(ChunkId, Vec<u8>)>;

/// UnrealPak's default maximum uncompressed group size
/// (`r.ShaderCodeLibrary.MaxShaderGroupSize`).
pub const MAX_GROUP_SIZE: usize = 1024 * 1024;

fn is_ray_tracing(frequency: u8) -> bool {
    (6..=9).contains(&frequency)
}

/// For each shader, the sorted shader maps that reference it.
fn referencing_maps(lib: &LegacyShaderLibrary) -> Vec<Vec<u32>> {
    let mut refs = vec![Vec::new(); lib.shader_entries.len()];
    for m in 0..lib.shader_map_entries.len() {
        for &s in lib.map_shaders(m) {
            refs[s as usize].push(m as u32);
        }
    }
    for r in &mut refs {
        r.sort_unstable();
    }
    refs
}

fn shader_key(e: &LegacyShaderEntry) -> (u32, u32, u8, u64) {
    (e.uncompressed_size, e.size, e.frequency, e.offset)
}

/// Steps 1–3: runs of shaders with the same referencing maps.
fn runs_by_maps(lib: &LegacyShaderLibrary, format: &str) -> Vec<Vec<usize>> {
    let refs = referencing_maps(lib);
    let mut order: Vec<usize> = (0..refs.len()).collect();
    order.sort_by(|&a, &b| (refs[a].len(), &refs[a], a).cmp(&(refs[b].len(), &refs[b], b)));
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for s in order {
        match runs.last_mut() {
            Some(run) if refs[run[0]] == refs[s] => run.push(s),
            _ => runs.push(vec![s]),
        }
    }
    if format != "PCD3D_SM5" {
        return runs;
    }
    let rt = |s: &usize| is_ray_tracing(lib.shader_entries[*s].frequency);
    runs.into_iter()
        .flat_map(|run| {
            let (ray, plain): (Vec<usize>, Vec<usize>) = run.iter().partition(|s| rt(s));
            if ray.is_empty() || plain.is_empty() {
                vec![run]
            } else {
                vec![plain, ray]
            }
        })
        .collect()
}

/// Step 4: deal a run over the size limit into smaller groups.
fn split_by_size(lib: &LegacyShaderLibrary, run: Vec<usize>, max: usize) -> Vec<Vec<usize>> {
    let size = |s: usize| lib.shader_entries[s].uncompressed_size as usize;
    let total: usize = run.iter().map(|&s| size(s)).sum();
    if total <= max || run.len() == 1 {
        return vec![run];
    }
    let n = (total / max.max(1) + 1).min(run.len());
    let mut sorted = run;
    sorted.sort_by(|&a, &b| {
        shader_key(&lib.shader_entries[b]).cmp(&shader_key(&lib.shader_entries[a]))
    });
    let mut groups = vec![Vec::new(); n];
    let mut sizes = vec![0usize; n];
    for s in sorted {
        // The first of the smallest, as UnrealPak deals them.
        let smallest = (0..n).min_by_key(|&g| sizes[g]).unwrap_or(0);
        groups[smallest].push(s);
        sizes[smallest] += size(s);
    }
    groups
}

/// Step 6: where `group` sits in the index array (reusing an equal run).
fn find_or_append(
    indices: &mut Vec<u32>,
    first_of: &HashMap<u32, Vec<usize>>,
    group: &[usize],
) -> usize {
    if let Some(starts) = first_of.get(&(group[0] as u32)) {
        for &at in starts {
            let fits = indices
                .get(at..at + group.len())
                .is_some_and(|run| run.iter().zip(group).all(|(a, b)| *a as usize == *b));
            if fits {
                return at;
            }
        }
    }
    let at = indices.len();
    indices.extend(group.iter().map(|&s| s as u32));
    at
}

/// The hash that names a group's chunk (step 7).
pub fn group_hash(lib: &LegacyShaderLibrary, group: &[usize], format: &str) -> [u8; 20] {
    let mut h = Sha1::new();
    for &s in group {
        h.update(lib.shader_hashes[s].0);
        h.update(lib.shader_entries[s].uncompressed_size.to_le_bytes());
    }
    h.update(format.as_bytes());
    h.finalize().into()
}

/// The `ShaderCode` chunk id of a group hash.
pub fn shader_code_chunk_id(hash: &[u8; 20], numbering: Numbering) -> ChunkId {
    let mut id = [0u8; 12];
    id[..11].copy_from_slice(&hash[..11]);
    id[11] = ChunkType::ShaderCode.to_raw(numbering).unwrap_or(9);
    ChunkId(id)
}

/// The IoStore library the engine would write for `lib` (steps 1–7), with
/// each group's compressed size set to its uncompressed size (groups stored
/// plain). `format` is the shader format from [`super::split_file_name`].
pub fn plan_groups(
    lib: &LegacyShaderLibrary,
    format: &str,
    numbering: Numbering,
    max_group: usize,
) -> ZenShaderLibrary {
    let mut groups: Vec<Vec<usize>> = runs_by_maps(lib, format)
        .into_iter()
        .flat_map(|run| split_by_size(lib, run, max_group))
        .collect();
    for g in &mut groups {
        g.sort_by_key(|&s| shader_key(&lib.shader_entries[s]));
    }
    let mut zen = ZenShaderLibrary {
        version: ZEN_VERSION,
        shader_map_hashes: lib.shader_map_hashes.clone(),
        shader_hashes: lib.shader_hashes.clone(),
        shader_map_entries: lib
            .shader_map_entries
            .iter()
            .map(|m| ZenMapEntry {
                shader_indices_offset: m.shader_indices_offset,
                num_shaders: m.num_shaders,
            })
            .collect(),
        shader_entries: vec![ZenShaderEntry::default(); lib.shader_entries.len()],
        shader_indices: lib.shader_indices.clone(),
        ..Default::default()
    };
    let mut first_of: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, &s) in zen.shader_indices.iter().enumerate() {
        first_of.entry(s).or_default().push(i);
    }
    for (gi, group) in groups.iter().filter(|g| !g.is_empty()).enumerate() {
        let mut offset = 0u32;
        for &s in group {
            let e = &lib.shader_entries[s];
            zen.shader_entries[s] = ZenShaderEntry::new(gi as u32, offset, e.frequency);
            offset = offset.wrapping_add(e.uncompressed_size);
        }
        let before = zen.shader_indices.len();
        let at = find_or_append(&mut zen.shader_indices, &first_of, group);
        for (k, &s) in zen.shader_indices[before..].iter().enumerate() {
            first_of.entry(s).or_default().push(before + k);
        }
        zen.group_entries.push(GroupEntry {
            shader_indices_offset: at as u32,
            num_shaders: group.len() as u32,
            uncompressed_size: offset,
            compressed_size: offset,
        });
        zen.group_chunk_ids.push(shader_code_chunk_id(
            &group_hash(lib, group, format),
            numbering,
        ));
    }
    zen
}

/// Guess a shader codec from the stream's first bytes, then try the others.
fn candidate_methods(data: &[u8]) -> Vec<Method> {
    let likely = if data.get(1..4) == Some(&[0xB5, 0x2F, 0xFD][..]) {
        Method::Zstd
    } else if matches!(data.first(), Some(0x78 | 0x58)) {
        Method::Zlib
    } else if matches!(data.first(), Some(0x8C | 0xCC)) {
        Method::Oodle
    } else {
        Method::Lz4
    };
    let mut all = vec![likely.clone()];
    all.extend(
        [Method::Oodle, Method::Zlib, Method::Zstd, Method::Lz4]
            .into_iter()
            .filter(|m| *m != likely),
    );
    all
}

/// Decompress shader code of unknown codec into `size` bytes; `known` caches
/// the codec found (a library uses one).
pub fn decompress_shader(data: &[u8], size: usize, known: &mut Option<Method>) -> Result<Vec<u8>> {
    let mut out = vec![0u8; size];
    if let Some(m) = known.clone() {
        decompress(&m, data, &mut out)?;
        return Ok(out);
    }
    for m in candidate_methods(data)
        .into_iter()
        .filter(Method::supported)
    {
        if decompress(&m, data, &mut out).is_ok() {
            *known = Some(m);
            return Ok(out);
        }
    }
    Err(Error::Other(format!(
        "shader code of {} bytes ({size} uncompressed) decodes with none of Oodle, Zlib, Zstd, LZ4 (Oodle needs the oodle feature)",
        data.len()
    )))
}

/// Pak form → IoStore form: the library chunk and the group chunks (stored
/// plain), in group order. Needs the code blob (a header-only file refuses).
pub fn legacy_to_zen(
    lib: &LegacyShaderLibrary,
    format: &str,
    numbering: Numbering,
) -> Result<(ZenShaderLibrary, GroupChunks)> {
    if lib.is_header_only() {
        return Err(Error::Other(
            "the shader library holds no shader code (header only)".into(),
        ));
    }
    let zen = plan_groups(lib, format, numbering, MAX_GROUP_SIZE);
    let mut known = None;
    let mut chunks = Vec::with_capacity(zen.group_entries.len());
    for (g, entry) in zen.group_entries.iter().enumerate() {
        let mut bytes = Vec::with_capacity(entry.uncompressed_size as usize);
        for &s in zen.group_shaders(g) {
            let e = &lib.shader_entries[s as usize];
            let stored = lib.shader_code(s as usize)?;
            if e.size == e.uncompressed_size {
                bytes.extend_from_slice(stored);
            } else {
                bytes.extend(decompress_shader(
                    stored,
                    e.uncompressed_size as usize,
                    &mut known,
                )?);
            }
        }
        chunks.push((zen.group_chunk_ids[g], bytes));
    }
    Ok((zen, chunks))
}

/// Each shader's uncompressed code size in the IoStore form (from the offsets
/// within its group and the group's size).
pub fn zen_shader_sizes(zen: &ZenShaderLibrary) -> Result<Vec<u32>> {
    let mut sizes = vec![0u32; zen.shader_entries.len()];
    for (g, entry) in zen.group_entries.iter().enumerate() {
        let mut members: Vec<(u32, usize)> = zen
            .group_shaders(g)
            .iter()
            .map(|&s| (zen.shader_entries[s as usize].offset_in_group(), s as usize))
            .collect();
        members.sort_unstable();
        for (k, &(off, s)) in members.iter().enumerate() {
            let end = members.get(k + 1).map_or(entry.uncompressed_size, |n| n.0);
            sizes[s] = end.checked_sub(off).ok_or_else(|| Error::Invalid {
                offset: 0,
                what: format!("shader {s} at {off} past the end of group {g}"),
            })?;
        }
    }
    Ok(sizes)
}

/// The plain code of every shader, reading each group chunk with `read_group`.
fn zen_shader_code(
    zen: &ZenShaderLibrary,
    read_group: &mut dyn FnMut(usize, ChunkId) -> Result<Vec<u8>>,
) -> Result<Vec<Vec<u8>>> {
    let sizes = zen_shader_sizes(zen)?;
    let mut code = vec![Vec::new(); zen.shader_entries.len()];
    let mut known = None;
    for (g, entry) in zen.group_entries.iter().enumerate() {
        let raw = read_group(g, zen.group_chunk_ids[g])?;
        let plain = if entry.compressed_size == entry.uncompressed_size {
            raw
        } else {
            decompress_shader(&raw, entry.uncompressed_size as usize, &mut known)?
        };
        if plain.len() != entry.uncompressed_size as usize {
            return Err(Error::Invalid {
                offset: 0,
                what: format!(
                    "shader group {g}: {} bytes, the header says {}",
                    plain.len(),
                    entry.uncompressed_size
                ),
            });
        }
        for &s in zen.group_shaders(g) {
            let s = s as usize;
            let off = zen.shader_entries[s].offset_in_group() as usize;
            let bytes = plain
                .get(off..off + sizes[s] as usize)
                .ok_or_else(|| Error::Invalid {
                    offset: 0,
                    what: format!("shader {s} at {off} lies outside group {g}"),
                })?;
            code[s] = bytes.to_vec();
        }
    }
    Ok(code)
}

/// IoStore form → pak form. `read_group(g, id)` returns group `g`'s chunk
/// bytes as stored. Shaders are stored plain in the code blob.
pub fn zen_to_legacy(
    zen: &ZenShaderLibrary,
    read_group: &mut dyn FnMut(usize, ChunkId) -> Result<Vec<u8>>,
) -> Result<LegacyShaderLibrary> {
    let code = zen_shader_code(zen, read_group)?;
    let n = zen.shader_entries.len();
    let mut refs = vec![0u32; n];
    for m in 0..zen.shader_map_entries.len() {
        for &s in zen.map_shaders(m) {
            refs[s as usize] += 1;
        }
    }
    let mut blob = Vec::new();
    let mut placed = vec![None::<(u64, u32)>; n];
    let mut place = |s: usize, blob: &mut Vec<u8>| {
        if placed[s].is_none() {
            placed[s] = Some((blob.len() as u64, code[s].len() as u32));
            blob.extend_from_slice(&code[s]);
        }
    };
    (0..n)
        .filter(|&s| refs[s] > 1)
        .for_each(|s| place(s, &mut blob));
    let mut map_regions = Vec::with_capacity(zen.shader_map_entries.len());
    for m in 0..zen.shader_map_entries.len() {
        let start = blob.len();
        for &s in zen.map_shaders(m) {
            if refs[s as usize] == 1 {
                place(s as usize, &mut blob);
            }
        }
        map_regions.push((start as i64, (blob.len() - start) as i64));
    }
    (0..n)
        .filter(|&s| refs[s] == 0)
        .for_each(|s| place(s, &mut blob));
    let mut lib = LegacyShaderLibrary {
        version: LEGACY_VERSION,
        shader_map_hashes: zen.shader_map_hashes.clone(),
        shader_hashes: zen.shader_hashes.clone(),
        shader_indices: zen.shader_indices.clone(),
        ..Default::default()
    };
    for (s, p) in placed.iter().enumerate() {
        let (offset, size) = p.unwrap_or((0, 0));
        lib.shader_entries.push(LegacyShaderEntry {
            offset,
            size,
            uncompressed_size: size,
            frequency: zen.shader_entries[s].frequency(),
        });
    }
    for (m, e) in zen.shader_map_entries.iter().enumerate() {
        let first = lib.preload_entries.len() as u32;
        if map_regions[m].1 > 0 {
            lib.preload_entries.push(PreloadEntry {
                offset: map_regions[m].0,
                size: map_regions[m].1,
            });
        }
        for &s in zen.map_shaders(m) {
            if refs[s as usize] > 1 {
                let (offset, size) = placed[s as usize].unwrap_or((0, 0));
                lib.preload_entries.push(PreloadEntry {
                    offset: offset as i64,
                    size: i64::from(size),
                });
            }
        }
        lib.shader_map_entries.push(LegacyMapEntry {
            shader_indices_offset: e.shader_indices_offset,
            num_shaders: e.num_shaders,
            first_preload_index: first,
            num_preload_entries: lib.preload_entries.len() as u32 - first,
        });
    }
    lib.code = blob;
    Ok(lib)
}

/// Compare the shader maps of the two forms: map hashes, shader hashes, each
/// map's shaders, each shader's frequency and uncompressed size. `Err` names
/// the first difference.
pub fn same_shader_maps(
    legacy: &LegacyShaderLibrary,
    zen: &ZenShaderLibrary,
) -> std::result::Result<(), String> {
    if legacy.shader_map_hashes != zen.shader_map_hashes {
        return Err("shader map hashes differ".into());
    }
    if legacy.shader_hashes != zen.shader_hashes {
        return Err("shader hashes differ".into());
    }
    for m in 0..legacy.shader_map_entries.len() {
        if legacy.map_shaders(m) != zen.map_shaders(m) {
            return Err(format!("shader map {m} lists other shaders"));
        }
    }
    let sizes = zen_shader_sizes(zen).map_err(|e| e.to_string())?;
    for (s, e) in legacy.shader_entries.iter().enumerate() {
        let z = zen.shader_entries[s];
        if e.frequency != z.frequency() || e.uncompressed_size != sizes[s] {
            return Err(format!(
                "shader {s}: frequency {} size {} against {} and {}",
                e.frequency,
                e.uncompressed_size,
                z.frequency(),
                sizes[s]
            ));
        }
    }
    Ok(())
}
