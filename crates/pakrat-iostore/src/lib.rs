//! IoStore containers (.utoc/.ucas): TOC, blocks, compression, encryption,
//! directory index, perfect hash, container header; read, verify, extract
//! and write.
//!
//! Start with [`Container::open`]: it parses the `.utoc` ([`toc::Toc`]),
//! maps the `.ucas` partitions, picks the AES key by the header's key GUID
//! and decodes the directory index. Then [`Container::read_chunk`] (or
//! [`Container::stream_chunk`] for bounded memory) returns a chunk's bytes,
//! [`Container::find_chunk`] looks a [`toc::ChunkId`] up through the perfect
//! hash, and [`verify::verify`] checks everything. The zen packages inside
//! are read by `pakrat-asset`; the codecs and keys are `pakrat-codec`'s.
#![deny(missing_docs)]

pub mod container;
pub mod container_header;
pub mod dirindex;
pub mod engine;
pub mod extract;
pub mod perfect_hash;
pub mod shader_library;
pub mod toc;
pub mod verify;
pub mod write;

pub use container::{ChunkInfo, Container};
pub use toc::{ChunkId, ChunkType, Numbering, Toc};
