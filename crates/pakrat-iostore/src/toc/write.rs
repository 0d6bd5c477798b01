//! Serializing a TOC: the mirror of its parser.

use pakrat_io::Writer;

use super::{Toc, TocVersion, TOC_HEADER_SIZE, TOC_MAGIC};

impl Toc {
    /// Serialize the TOC: the mirror of [`Toc::parse`], so that
    /// `Toc::parse(b)?.to_bytes() == b` for every TOC pakrat reads (checked
    /// on all corpus TOCs). Counts in the header are taken from the arrays,
    /// and the parts a version does not have are left out.
    pub fn to_bytes(&self) -> Vec<u8> {
        let h = &self.header;
        let v = h.version;
        let n = self.chunk_ids.len();
        let mut w = Writer::with_capacity(0x90 + n * 60 + self.blocks.len() * 12);
        w.bytes(TOC_MAGIC).u8(v).u8(0).u16(0).u32(TOC_HEADER_SIZE);
        w.u32(n as u32).u32(self.blocks.len() as u32).u32(12);
        w.u32(self.method_names.len() as u32);
        w.u32(h.method_name_length);
        w.u32(h.block_size);
        w.u32(self.directory_index.len() as u32);
        w.u32(h.partition_count);
        w.u64(h.container_id);
        w.guid(h.encryption_key_guid);
        w.u8(h.flags).u8(h.encryption_method_raw).u16(0);
        w.u32(if v >= 4 {
            self.perfect_hash_seeds.len() as u32
        } else {
            h.perfect_hash_seeds_count
        });
        w.u64(h.partition_size);
        w.u32(if v >= 5 {
            self.chunks_without_perfect_hash.len() as u32
        } else {
            h.chunks_without_perfect_hash_count
        });
        w.u32(h.source_hash_count);
        w.u32(if v >= 10 {
            self.encryption_ivs.len() as u32
        } else {
            h.encryption_iv_count
        });
        w.zeros(36);
        for id in &self.chunk_ids {
            w.bytes(&id.0);
        }
        for ol in &self.offsets {
            w.u40_be(ol.offset).u40_be(ol.length);
        }
        if v >= TocVersion::PerfectHash as u8 {
            for &s in &self.perfect_hash_seeds {
                w.i32(s);
            }
        }
        if v >= TocVersion::PerfectHashWithOverflow as u8 {
            for &s in &self.chunks_without_perfect_hash {
                w.i32(s);
            }
        }
        for b in &self.blocks {
            let mut e = [0u8; 12];
            e[..5].copy_from_slice(&b.offset.to_le_bytes()[..5]);
            e[5..8].copy_from_slice(&b.compressed_size.to_le_bytes()[..3]);
            e[8..11].copy_from_slice(&b.uncompressed_size.to_le_bytes()[..3]);
            e[11] = b.method_index;
            w.bytes(&e);
        }
        if v >= TocVersion::ContainerEncryptionMethod as u8 {
            for iv in &self.encryption_ivs {
                w.bytes(iv);
            }
        }
        let name_len = h.method_name_length as usize;
        for name in &self.method_names {
            let mut raw = vec![0u8; name_len];
            // NUL-terminated when it fits; cut on a character boundary.
            let mut k = name.len().min(name_len.saturating_sub(1));
            while !name.is_char_boundary(k) {
                k -= 1;
            }
            raw[..k].copy_from_slice(&name.as_bytes()[..k]);
            w.bytes(&raw);
        }
        if let Some(sig) = &self.signatures {
            w.i32(sig.toc_signature.len() as i32);
            w.bytes(&sig.toc_signature).bytes(&sig.block_signature);
            for hsh in &sig.block_hashes {
                w.bytes(hsh);
            }
        }
        w.bytes(&self.directory_index);
        for m in &self.metas {
            if v >= TocVersion::ReplaceIoChunkHashWithIoHash as u8 {
                w.bytes(&m.hash[..20]).u8(m.flags).zeros(3);
            } else {
                w.bytes(&m.hash).u8(m.flags);
            }
        }
        w.bytes(&self.on_demand);
        w.into_inner()
    }
}
