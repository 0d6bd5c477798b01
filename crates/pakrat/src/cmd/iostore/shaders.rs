//! Shader libraries on extraction: a library chunk with a path is written in
//! the pak form (`.ushaderbytecode`, shaders stored plain) in place of the
//! IoStore library chunk and its group chunks (`docs/shader-library.md`).

use std::collections::HashSet;

use pakrat_io::fsutil::OutputDir;
use pakrat_iostore::shader_library::{container, ZenShaderLibrary};
use pakrat_iostore::{extract::Job, ChunkType, Container};

/// Take the shader library jobs (and their group chunks) out of `jobs`; the
/// libraries are returned to be written by [`write_libraries`].
pub(super) fn take_libraries(c: &Container, jobs: &mut Vec<Job>) -> Vec<Job> {
    let mut libs = Vec::new();
    let mut groups = HashSet::new();
    for j in jobs.iter() {
        if c.toc().chunk_type(j.index) != ChunkType::ShaderCodeLibrary
            || j.name.starts_with("_chunks/")
        {
            continue;
        }
        // A library that does not parse is extracted as stored.
        let Ok(zen) = c
            .read_chunk(j.index)
            .and_then(|b| ZenShaderLibrary::parse(&b))
        else {
            continue;
        };
        groups.extend(zen.group_chunk_ids.iter().filter_map(|id| c.find_chunk(id)));
        libs.push(j.clone());
    }
    let lib_idx: HashSet<usize> = libs.iter().map(|j| j.index).collect();
    jobs.retain(|j| !lib_idx.contains(&j.index) && !groups.contains(&j.index));
    libs
}

/// Write each library in the pak form; returns (files, bytes, errors).
pub(super) fn write_libraries(
    c: &Container,
    libs: &[Job],
    out: &OutputDir,
) -> (u64, u64, Vec<String>) {
    let (mut files, mut bytes, mut errors) = (0, 0, Vec::new());
    for j in libs {
        let done = container::to_legacy(c, j.index)
            .map_err(|e| e.to_string())
            .and_then(|(lib, _)| {
                let data = lib.to_bytes();
                out.write(&j.name, &data).map_err(|e| e.to_string())?;
                Ok(data.len() as u64)
            });
        match done {
            Ok(n) => {
                files += 1;
                bytes += n;
            }
            Err(e) => errors.push(format!("{}: {e}", j.name)),
        }
    }
    (files, bytes, errors)
}
