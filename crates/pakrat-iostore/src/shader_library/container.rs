//! Shader libraries inside a container: the `ShaderCodeLibrary` chunk and
//! its `ShaderCode` group chunks, read back as the pak form.

use pakrat_io::{Error, Result};

use super::convert::zen_to_legacy;
use super::{LegacyShaderLibrary, ZenShaderLibrary};
use crate::container::{ChunkInfo, Container};
use crate::toc::ChunkType;

/// The container's shader library chunks.
pub fn libraries(c: &Container) -> Vec<ChunkInfo> {
    c.chunks()
        .into_iter()
        .filter(|x| x.chunk_type == ChunkType::ShaderCodeLibrary)
        .collect()
}

/// A library chunk in the pak form, with the TOC entries of its group chunks.
pub fn to_legacy(c: &Container, index: usize) -> Result<(LegacyShaderLibrary, Vec<usize>)> {
    let zen = ZenShaderLibrary::parse(&c.read_chunk(index)?)?;
    let mut used = Vec::with_capacity(zen.group_entries.len());
    let lib = zen_to_legacy(&zen, &mut |g, id| {
        let i = c.find_chunk(&id).ok_or_else(|| {
            Error::Other(format!(
                "shader group {g}: chunk {} is not in the container",
                id.to_hex()
            ))
        })?;
        used.push(i);
        c.read_chunk(i)
    })?;
    Ok((lib, used))
}
