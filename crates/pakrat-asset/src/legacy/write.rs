//! Writing a cooked legacy package header: [`LegacyPackage::to_bytes`].

use pakrat_io::{Error, Result, Writer};

use super::summary::{ue4, ue5, write_fstring};
use super::{name_hashes, Export, FName, LegacyPackage, Section, SoftPackageRef, Summary};

impl LegacyPackage {
    /// Write the header of a cooked package back, laying the sections out as
    /// the cooker does (names, imports, exports, cell maps, depends, asset
    /// registry data, preload dependencies, data resources) and updating
    /// every offset, `TotalHeaderSize`, the export serial offsets and
    /// `BulkDataStartOffset` to the new header size.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let s0 = &self.summary;
        if !s0.filter_editor_only() {
            return Err(Error::Other(
                "writing uncooked (editor) packages is not supported: their thumbnails, gatherable text and searchable names are not modelled".into(),
            ));
        }
        if s0.gatherable_text.is_some_and(|s| s.count > 0) {
            return Err(Error::Other(
                "packages with gatherable text are not written (cooked packages have none)".into(),
            ));
        }
        if s0.soft_object_paths.is_none() && !self.soft_object_path_list.is_empty() {
            return Err(Error::Other(format!(
                "a soft object path list needs UE5 {} or later",
                ue5::ADD_SOFTOBJECTPATH_LIST
            )));
        }
        let mut h = HeaderWriter {
            pkg: self,
            s: s0.clone(),
            w: Writer::new(),
            serial_at: Vec::with_capacity(self.exports.len()),
        };
        h.s.write(&mut h.w);
        h.names();
        h.imports();
        h.exports();
        h.cells()?;
        h.depends();
        h.soft_package_references();
        h.asset_registry_and_preload();
        h.data_resources()?;
        h.finish()
    }
}

/// A cooked header being written: the summary whose sections are filled in
/// as they are laid out, and where each export's serial size went.
struct HeaderWriter<'a> {
    pkg: &'a LegacyPackage,
    s: Summary,
    w: Writer,
    /// Position of each export's `SerialSize` (the offset follows it).
    serial_at: Vec<usize>,
}

impl HeaderWriter<'_> {
    fn pos(&self) -> i32 {
        self.w.len() as i32
    }

    /// A section of `count` entries starting here.
    fn here(&self, count: usize) -> Section {
        Section {
            count: count as i32,
            offset: self.pos(),
        }
    }

    fn names(&mut self) {
        let v4 = self.pkg.layout.ue4;
        self.s.names = self.here(self.pkg.names.len());
        for n in &self.pkg.names {
            write_fstring(&mut self.w, &n.text, n.wide);
            if v4 >= ue4::NAME_HASHES_SERIALIZED {
                let (a, b) = n.hashes.unwrap_or_else(|| name_hashes(&n.text, n.wide));
                self.w.u16(a).u16(b);
            }
        }
        if self.s.soft_object_paths.is_some() {
            let list = &self.pkg.soft_object_path_list;
            self.s.soft_object_paths = Some(self.here(list.len()));
            for e in list {
                let w = &mut self.w;
                w.i32(e.package.index).i32(e.package.number);
                w.i32(e.asset.index).i32(e.asset.number);
                write_fstring(w, &e.sub_path, e.sub_path_wide);
            }
        }
    }

    fn imports(&mut self) {
        self.s.imports = self.here(self.pkg.imports.len());
        let w = &mut self.w;
        for im in &self.pkg.imports {
            let f = |w: &mut Writer, n: FName| {
                w.i32(n.index).i32(n.number);
            };
            f(w, im.class_package);
            f(w, im.class_name);
            w.i32(im.outer);
            f(w, im.object_name);
            if let Some(p) = im.package_name {
                f(w, p);
            }
            if let Some(o) = im.optional {
                w.u32(u32::from(o));
            }
        }
    }

    /// The export map; serial offsets are patched by [`HeaderWriter::finish`],
    /// once the header size is known.
    fn exports(&mut self) {
        self.s.exports = self.here(self.pkg.exports.len());
        let v4 = self.pkg.layout.ue4;
        for e in &self.pkg.exports {
            let at = write_export(&mut self.w, e, v4);
            self.serial_at.push(at);
        }
    }

    fn cells(&mut self) -> Result<()> {
        let pkg = self.pkg;
        if self.s.cells.is_none() {
            if !pkg.cell_imports.is_empty() || !pkg.cell_exports.is_empty() {
                return Err(Error::Other(format!(
                    "Verse cells need UE5 {} or later",
                    ue5::VERSE_CELLS
                )));
            }
            return Ok(());
        }
        let imports = self.here(pkg.cell_imports.len());
        for c in &pkg.cell_imports {
            self.w.i32(c.package_index);
            write_utf8(&mut self.w, &c.verse_path);
        }
        let exports = self.here(pkg.cell_exports.len());
        for c in &pkg.cell_exports {
            let w = &mut self.w;
            w.i32(c.cpp_class_info.index).i32(c.cpp_class_info.number);
            write_utf8(w, &c.verse_path);
            w.i64(c.serial_offset)
                .i64(c.serial_layout_size)
                .i64(c.serial_size);
            for d in c.dependencies {
                w.i32(d);
            }
        }
        self.s.cells = Some((exports, imports));
        Ok(())
    }

    fn depends(&mut self) {
        self.s.depends_offset = self.pos();
        for i in 0..self.pkg.exports.len() {
            let d = self.pkg.depends.get(i).map(Vec::as_slice).unwrap_or(&[]);
            self.w.i32(d.len() as i32);
            for &x in d {
                self.w.i32(x);
            }
        }
    }

    fn soft_package_references(&mut self) {
        let refs = &self.pkg.soft_package_references;
        if self.s.soft_package_references.is_none() {
            return;
        }
        self.s.soft_package_references = Some(if refs.is_empty() {
            Section {
                count: 0,
                offset: 0,
            }
        } else {
            self.here(refs.len())
        });
        for r in refs {
            match r {
                SoftPackageRef::Name(n) => {
                    self.w.i32(n.index).i32(n.number);
                }
                SoftPackageRef::Text(t) => write_fstring(&mut self.w, t, false),
            }
        }
    }

    /// Asset registry data (cooked: an empty list), then the preload
    /// dependencies.
    fn asset_registry_and_preload(&mut self) {
        self.s.asset_registry_data_offset = self.pos();
        if self.pkg.asset_registry_data.is_empty() {
            self.w.i32(0);
        } else {
            self.w.bytes(&self.pkg.asset_registry_data);
        }
        if self.s.preload_dependencies.is_some() {
            self.s.preload_dependencies = Some(self.here(self.pkg.preload_dependencies.len()));
            for &x in &self.pkg.preload_dependencies {
                self.w.i32(x);
            }
        }
    }

    fn data_resources(&mut self) -> Result<()> {
        let pkg = self.pkg;
        if self.s.data_resource_offset.is_none() {
            if !pkg.data_resources.is_empty() {
                return Err(Error::Other(format!(
                    "data resources need UE5 {} or later",
                    ue5::DATA_RESOURCES
                )));
            }
            return Ok(());
        }
        if pkg.data_resources.is_empty() && pkg.data_resource_version.is_none() {
            self.s.data_resource_offset = Some(-1);
            return Ok(());
        }
        self.s.data_resource_offset = Some(self.pos());
        let w = &mut self.w;
        let v = pkg.data_resource_version.unwrap_or(2);
        w.u32(v).i32(pkg.data_resources.len() as i32);
        for r in &pkg.data_resources {
            w.u32(r.flags);
            if v >= 2 {
                w.u8(r.cooked_index.unwrap_or(0));
            }
            w.i64(r.serial_offset)
                .i64(r.duplicate_serial_offset)
                .i64(r.serial_size)
                .i64(r.raw_size)
                .i32(r.outer)
                .u32(r.legacy_bulk_data_flags);
        }
        Ok(())
    }

    /// Header size and everything that depends on it: the summary is
    /// written again over its first copy and the export serial offsets
    /// move by the change in size.
    fn finish(mut self) -> Result<Vec<u8>> {
        let s0 = &self.pkg.summary;
        let ths = self.w.len() as i64;
        let delta = ths - i64::from(s0.total_header_size);
        self.s.total_header_size = ths as i32;
        self.s.bulk_data_start_offset =
            s0.bulk_data_start_offset
                .checked_add(delta)
                .ok_or_else(|| {
                    Error::Other("BulkDataStartOffset overflows with the new header size".into())
                })?;
        let mut out = self.w.into_inner();
        let mut head = Writer::new();
        self.s.write(&mut head);
        let head = head.into_inner();
        out[..head.len()].copy_from_slice(&head);
        let wide = self.pkg.layout.ue4 >= ue4::EXPORTMAP_64BIT_SERIALSIZES;
        for (i, (e, &at)) in self.pkg.exports.iter().zip(&self.serial_at).enumerate() {
            let off = e.serial_offset.checked_add(delta).ok_or_else(|| {
                Error::Other("an export serial offset overflows with the new header size".into())
            })?;
            // Export data lies after the header: an offset inside the old
            // header (which the new size could move below zero) is no
            // cooked package's, and the narrow form holds 32 bits.
            if e.serial_offset < i64::from(s0.total_header_size)
                || off < 0
                || (!wide && off > i64::from(i32::MAX))
            {
                return Err(Error::Other(format!(
                    "export {i}: serial offset {:#x} lies inside the header ({:#x} bytes); cannot move it",
                    e.serial_offset, s0.total_header_size
                )));
            }
            if wide {
                out[at + 8..at + 16].copy_from_slice(&off.to_le_bytes());
            } else {
                out[at + 4..at + 8].copy_from_slice(&(off as i32).to_le_bytes());
            }
        }
        Ok(out)
    }
}

/// One export map entry; returns where its serial size was written.
fn write_export(w: &mut Writer, e: &Export, v4: i32) -> usize {
    w.i32(e.class).i32(e.super_index);
    if let Some(t) = e.template {
        w.i32(t);
    }
    w.i32(e.outer)
        .i32(e.object_name.index)
        .i32(e.object_name.number)
        .u32(e.object_flags);
    let at = w.len();
    if v4 >= ue4::EXPORTMAP_64BIT_SERIALSIZES {
        w.i64(e.serial_size).i64(e.serial_offset);
    } else {
        w.i32(e.serial_size as i32).i32(e.serial_offset as i32);
    }
    w.u32(u32::from(e.forced_export))
        .u32(u32::from(e.not_for_client))
        .u32(u32::from(e.not_for_server));
    if let Some(g) = e.package_guid {
        w.guid(g);
    }
    if let Some(b) = e.inherited_instance {
        w.u32(u32::from(b));
    }
    w.u32(e.package_flags);
    for b in [
        e.not_always_loaded_for_editor_game,
        e.is_asset,
        e.generate_public_hash,
    ]
    .into_iter()
    .flatten()
    {
        w.u32(u32::from(b));
    }
    if let Some(d) = e.dependencies {
        for x in d {
            w.i32(x);
        }
    }
    if let Some((a, b)) = e.script_serialization {
        w.i64(a).i64(b);
    }
    at
}

fn write_utf8(w: &mut Writer, s: &str) {
    w.i32(s.len() as i32 + 1).bytes(s.as_bytes()).u8(0);
}
