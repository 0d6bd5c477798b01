//! Reading a legacy package header: [`LegacyPackage::read`] and the
//! section readers it is made of.

use pakrat_io::{Error, Reader, Result};

use super::summary::{ue4, ue5};
use super::{
    CellExport, CellImport, DataResource, Export, FName, Import, Layout, LegacyPackage, NameEntry,
    Section, SoftObjectPathEntry, SoftPackageRef, Summary,
};

fn read_fname(r: &mut Reader<'_>, what: &str) -> Result<FName> {
    Ok(FName {
        index: r.i32(what)?,
        number: r.i32(what)?,
    })
}

fn read_bool(r: &mut Reader<'_>, what: &str) -> Result<bool> {
    let at = r.offset();
    match r.u32(what)? {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(Error::invalid(
            at,
            format!("{what}: boolean {v}, expected 0 or 1"),
        )),
    }
}

/// An `FString` with its stored width.
fn read_fstring_wide(r: &mut Reader<'_>, what: &str) -> Result<(String, bool)> {
    let at = r.offset();
    let len = r.i32(what)?;
    r.seek(at - r.base(), what)?;
    let s = pakrat_codec::fstring::read_fstring(r, what)?;
    Ok((s, len < 0))
}

fn read_utf8(r: &mut Reader<'_>, what: &str) -> Result<String> {
    let at = r.offset();
    let n = i64::from(r.i32(what)?);
    let n = r.check_count(n, 1, what)?;
    let b = r.bytes(n as u64, what)?;
    let b = b.strip_suffix(&[0]).unwrap_or(b);
    String::from_utf8(b.to_vec()).map_err(|_| Error::invalid(at, format!("{what}: not UTF-8")))
}

fn section<'a>(
    all: &Reader<'a>,
    s: Section,
    min: usize,
    end: usize,
    what: &str,
) -> Result<Reader<'a>> {
    if s.count < 0 {
        return Err(Error::invalid(
            0,
            format!("{what}: negative count {}", s.count),
        ));
    }
    if s.count == 0 {
        return all.sub(0, 0, what);
    }
    if s.offset < 0 || s.offset as usize > end {
        return Err(Error::invalid(
            0,
            format!(
                "{what}: offset {:#x} lies outside the header (TotalHeaderSize {end:#x})",
                s.offset
            ),
        ));
    }
    let r = all.sub(s.offset as u64, (end - s.offset as usize) as u64, what)?;
    r.check_count(i64::from(s.count), min, what)?;
    Ok(r)
}

impl LegacyPackage {
    /// Parse the header of a `.uasset`/`.umap` (`data` is the whole file;
    /// export data may follow in it or live in the `.uexp`). `fallback` is
    /// the layout for unversioned packages.
    pub fn read(data: &[u8], fallback: Option<Layout>) -> Result<LegacyPackage> {
        let all = Reader::new(data);
        let mut r = all.clone();
        let (summary, mut layout) = Summary::read(&mut r, fallback)?;
        let summary_end = r.pos();
        let ths = summary.total_header_size;
        if ths < summary_end as i32 || ths as usize > data.len() {
            return Err(Error::invalid(
                0,
                format!(
                    "TotalHeaderSize {ths:#x} outside {summary_end:#x}..={:#x} (the summary's end and the file's)",
                    data.len()
                ),
            ));
        }
        let h = Header {
            all: &all,
            s: &summary,
            end: ths as usize,
        };
        let names = h.names(layout)?;
        let soft_object_path_list = h.soft_object_path_list(layout)?;
        let imports = h.imports(&mut layout)?;
        let exports = h.exports(layout)?;
        let (cell_imports, cell_exports) = h.cells()?;
        let depends = h.depends(exports.len())?;
        let soft_package_references = h.soft_package_references(layout)?;
        let preload_dependencies = h.preload_dependencies()?;
        let (data_resource_version, data_resources) = h.data_resources()?;
        let asset_registry_data = h.asset_registry_data(data);
        let pkg = LegacyPackage {
            summary,
            layout,
            names,
            soft_object_path_list,
            imports,
            exports,
            cell_imports,
            cell_exports,
            depends,
            soft_package_references,
            asset_registry_data,
            preload_dependencies,
            data_resource_version,
            data_resources,
        };
        pkg.check_references()?;
        Ok(pkg)
    }
}

/// A package header being read: the whole file, its summary and where the
/// header ends (`TotalHeaderSize`, checked).
struct Header<'a, 'd> {
    all: &'a Reader<'d>,
    s: &'a Summary,
    end: usize,
}

impl<'d> Header<'_, 'd> {
    fn section(&self, s: Section, min: usize, what: &str) -> Result<Reader<'d>> {
        section(self.all, s, min, self.end, what)
    }

    /// The name map.
    fn names(&self, layout: Layout) -> Result<Vec<NameEntry>> {
        let s = self.s;
        let mut nr = self.section(s.names, 4, "name map")?;
        let mut names = Vec::with_capacity(s.names.count as usize);
        for _ in 0..s.names.count {
            let (text, wide) = read_fstring_wide(&mut nr, "name")?;
            let hashes = if layout.ue4 >= ue4::NAME_HASHES_SERIALIZED {
                Some((nr.u16("name hash")?, nr.u16("name hash")?))
            } else {
                None
            };
            names.push(NameEntry { text, wide, hashes });
        }
        Ok(names)
    }

    /// The soft object path list (UE5 1008+): per entry two `FName`s
    /// and an `FString`.
    fn soft_object_path_list(&self, layout: Layout) -> Result<Vec<SoftObjectPathEntry>> {
        let Some(s) = self.s.soft_object_paths else {
            return Ok(Vec::new());
        };
        if s.count <= 0 || layout.ue5 < ue5::ADD_SOFTOBJECTPATH_LIST {
            return Ok(Vec::new());
        }
        let what = "soft object path list";
        let mut r = self.section(s, 20, what)?;
        let mut out = Vec::with_capacity(s.count as usize);
        for _ in 0..s.count {
            let package = read_fname(&mut r, what)?;
            let asset = read_fname(&mut r, what)?;
            let (sub_path, sub_path_wide) = read_fstring_wide(&mut r, what)?;
            out.push(SoftObjectPathEntry {
                package,
                asset,
                sub_path,
                sub_path_wide,
            });
        }
        Ok(out)
    }

    /// Whether imports store `PackageName`: fixed by the layout, except
    /// that UE 5.8 writes it in cooked packages too; an unknown layout
    /// decides by the space between the import and export maps (and
    /// remembers the answer in `layout`).
    fn import_package_name(&self, layout: &mut Layout, base: usize) -> bool {
        let s = self.s;
        let editor_pkg_name =
            layout.ue4 >= ue4::NON_OUTER_PACKAGE_IMPORT && !s.filter_editor_only();
        editor_pkg_name
            || match layout.import_package_name {
                Some(b) => b,
                None => {
                    let span = i64::from(s.exports.offset) - i64::from(s.imports.offset);
                    let n = i64::from(s.imports.count);
                    let guess =
                        n > 0 && span == n * (base as i64 + 8) && s.legacy_file_version <= -9;
                    layout.import_package_name = Some(guess);
                    guess
                }
            }
    }

    /// The import map.
    fn imports(&self, layout: &mut Layout) -> Result<Vec<Import>> {
        let s = self.s;
        let optional = layout.ue5 >= ue5::OPTIONAL_RESOURCES;
        let base = 28 + if optional { 4 } else { 0 };
        let with_pkg_name = self.import_package_name(layout, base);
        let isize = base + if with_pkg_name { 8 } else { 0 };
        let mut ir = self.section(s.imports, isize, "import map")?;
        let mut imports = Vec::with_capacity(s.imports.count as usize);
        for _ in 0..s.imports.count {
            imports.push(Import {
                class_package: read_fname(&mut ir, "import class package")?,
                class_name: read_fname(&mut ir, "import class name")?,
                outer: ir.i32("import outer")?,
                object_name: read_fname(&mut ir, "import object name")?,
                package_name: if with_pkg_name {
                    Some(read_fname(&mut ir, "import package name")?)
                } else {
                    None
                },
                optional: if optional {
                    Some(read_bool(&mut ir, "import bImportOptional")?)
                } else {
                    None
                },
            });
        }
        Ok(imports)
    }

    /// The export map.
    fn exports(&self, layout: Layout) -> Result<Vec<Export>> {
        let s = self.s;
        let script = layout.ue5 >= ue5::SCRIPT_SERIALIZATION_OFFSET && !s.unversioned_properties();
        let mut er = self.section(s.exports, 40, "export map")?;
        let mut exports = Vec::with_capacity(s.exports.count as usize);
        for _ in 0..s.exports.count {
            exports.push(read_export(&mut er, layout, script)?);
        }
        Ok(exports)
    }

    /// The Verse cell import and export maps (UE 5.6+).
    fn cells(&self) -> Result<(Vec<CellImport>, Vec<CellExport>)> {
        let mut cell_imports = Vec::new();
        let mut cell_exports = Vec::new();
        let Some((ce, ci)) = self.s.cells else {
            return Ok((cell_imports, cell_exports));
        };
        let mut cr = self.section(ci, 8, "cell import map")?;
        for _ in 0..ci.count {
            cell_imports.push(CellImport {
                package_index: cr.i32("cell import package")?,
                verse_path: read_utf8(&mut cr, "cell import verse path")?,
            });
        }
        let mut cr = self.section(ce, 48, "cell export map")?;
        for _ in 0..ce.count {
            cell_exports.push(CellExport {
                cpp_class_info: read_fname(&mut cr, "cell export class")?,
                verse_path: read_utf8(&mut cr, "cell export verse path")?,
                serial_offset: cr.i64("cell export offset")?,
                serial_layout_size: cr.i64("cell export layout size")?,
                serial_size: cr.i64("cell export size")?,
                dependencies: [
                    cr.i32("cell dep")?,
                    cr.i32("cell dep")?,
                    cr.i32("cell dep")?,
                ],
            });
        }
        Ok((cell_imports, cell_exports))
    }

    /// The depends map: one TArray<FPackageIndex> per export.
    fn depends(&self, export_count: usize) -> Result<Vec<Vec<i32>>> {
        let mut depends = Vec::new();
        if export_count == 0 || self.s.depends_offset <= 0 {
            return Ok(depends);
        }
        let ds = Section {
            count: export_count as i32,
            offset: self.s.depends_offset,
        };
        let mut dr = self.section(ds, 4, "depends map")?;
        for _ in 0..export_count {
            let n = i64::from(dr.i32("depends count")?);
            let n = dr.check_count(n, 4, "depends count")?;
            depends.push(
                (0..n)
                    .map(|_| dr.i32("depends entry"))
                    .collect::<Result<Vec<_>>>()?,
            );
        }
        Ok(depends)
    }

    /// Soft package references: names, or strings before UE4
    /// `ADDED_SOFT_OBJECT_PATH`.
    fn soft_package_references(&self, layout: Layout) -> Result<Vec<SoftPackageRef>> {
        let mut refs = Vec::new();
        let Some(sp) = self.s.soft_package_references else {
            return Ok(refs);
        };
        let mut sr = self.section(sp, 4, "soft package references")?;
        for _ in 0..sp.count {
            refs.push(if layout.ue4 >= ue4::ADDED_SOFT_OBJECT_PATH {
                SoftPackageRef::Name(read_fname(&mut sr, "soft package reference")?)
            } else {
                SoftPackageRef::Text(pakrat_codec::fstring::read_fstring(
                    &mut sr,
                    "soft package reference",
                )?)
            });
        }
        Ok(refs)
    }

    /// The preload dependencies.
    fn preload_dependencies(&self) -> Result<Vec<i32>> {
        let mut preload = Vec::new();
        if let Some(p) = self.s.preload_dependencies {
            if p.count > 0 {
                let mut pr = self.section(p, 4, "preload dependencies")?;
                for _ in 0..p.count {
                    preload.push(pr.i32("preload dependency")?);
                }
            }
        }
        Ok(preload)
    }

    /// The data resource map version and entries (UE5).
    fn data_resources(&self) -> Result<(Option<u32>, Vec<DataResource>)> {
        let mut data_resources = Vec::new();
        let Some(off) = self.s.data_resource_offset.filter(|&o| o > 0) else {
            return Ok((None, data_resources));
        };
        let mut dr = self.section(
            Section {
                count: 1,
                offset: off,
            },
            8,
            "data resources",
        )?;
        let at = dr.offset();
        let v = dr.u32("data resource version")?;
        if !(1..=2).contains(&v) {
            return Err(Error::unsupported(
                at,
                format!("data resource version {v}, expected 1 or 2"),
            ));
        }
        let n = i64::from(dr.i32("data resource count")?);
        let n = dr.check_count(n, if v >= 2 { 45 } else { 44 }, "data resource count")?;
        for _ in 0..n {
            data_resources.push(DataResource {
                flags: dr.u32("data resource flags")?,
                cooked_index: if v >= 2 {
                    Some(dr.u8("data resource cooked index")?)
                } else {
                    None
                },
                serial_offset: dr.i64("data resource offset")?,
                duplicate_serial_offset: dr.i64("data resource duplicate offset")?,
                serial_size: dr.i64("data resource size")?,
                raw_size: dr.i64("data resource raw size")?,
                outer: dr.i32("data resource outer")?,
                legacy_bulk_data_flags: dr.u32("data resource bulk flags")?,
            });
        }
        Ok((Some(v), data_resources))
    }

    /// Asset registry data: from its offset to the next section.
    fn asset_registry_data(&self, data: &[u8]) -> Vec<u8> {
        let s = self.s;
        let ths = s.total_header_size;
        let ar = s.asset_registry_data_offset;
        if ar <= 0 || (ar as usize) > self.end {
            return Vec::new();
        }
        let next = [
            s.preload_dependencies
                .map(|p| p.offset)
                .filter(|&o| p_nonempty(s.preload_dependencies) && o >= ar),
            s.data_resource_offset.filter(|&o| o >= ar),
            s.world_tile_info_data_offset.filter(|&o| o > ar),
            Some(ths),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(ths);
        data[ar as usize..next as usize].to_vec()
    }
}

/// One export map entry; `script`: the entry has script serialization
/// offsets (UE5 `SCRIPT_SERIALIZATION_OFFSET`, tagged properties).
fn read_export(er: &mut Reader<'_>, layout: Layout, script: bool) -> Result<Export> {
    let (v4, v5) = (layout.ue4, layout.ue5);
    let optional = v5 >= ue5::OPTIONAL_RESOURCES;
    let class = er.i32("export class")?;
    let super_index = er.i32("export super")?;
    let template = if v4 >= ue4::TEMPLATE_INDEX_IN_COOKED_EXPORTS {
        Some(er.i32("export template")?)
    } else {
        None
    };
    let outer = er.i32("export outer")?;
    let object_name = read_fname(er, "export name")?;
    let object_flags = er.u32("export object flags")?;
    let (serial_size, serial_offset) = if v4 >= ue4::EXPORTMAP_64BIT_SERIALSIZES {
        (
            er.i64("export serial size")?,
            er.i64("export serial offset")?,
        )
    } else {
        (
            i64::from(er.i32("export serial size")?),
            i64::from(er.i32("export serial offset")?),
        )
    };
    let forced_export = read_bool(er, "export bForcedExport")?;
    let not_for_client = read_bool(er, "export bNotForClient")?;
    let not_for_server = read_bool(er, "export bNotForServer")?;
    let package_guid = if v5 < ue5::REMOVE_OBJECT_EXPORT_PACKAGE_GUID {
        Some(er.guid("export package guid")?)
    } else {
        None
    };
    let inherited_instance = if v5 >= ue5::TRACK_OBJECT_EXPORT_IS_INHERITED {
        Some(read_bool(er, "export bIsInheritedInstance")?)
    } else {
        None
    };
    let package_flags = er.u32("export package flags")?;
    let not_always_loaded_for_editor_game = if v4 >= ue4::LOAD_FOR_EDITOR_GAME {
        Some(read_bool(er, "export bNotAlwaysLoadedForEditorGame")?)
    } else {
        None
    };
    let is_asset = if v4 >= ue4::COOKED_ASSETS_IN_EDITOR_SUPPORT {
        Some(read_bool(er, "export bIsAsset")?)
    } else {
        None
    };
    let generate_public_hash = if optional {
        Some(read_bool(er, "export bGeneratePublicHash")?)
    } else {
        None
    };
    let dependencies = if v4 >= ue4::PRELOAD_DEPENDENCIES_IN_COOKED_EXPORTS {
        let mut d = [0i32; 5];
        for x in &mut d {
            *x = er.i32("export preload dependency")?;
        }
        Some(d)
    } else {
        None
    };
    let script_serialization = if script {
        Some((er.i64("export script start")?, er.i64("export script end")?))
    } else {
        None
    };
    Ok(Export {
        class,
        super_index,
        template,
        outer,
        object_name,
        object_flags,
        serial_size,
        serial_offset,
        forced_export,
        not_for_client,
        not_for_server,
        package_guid,
        inherited_instance,
        package_flags,
        not_always_loaded_for_editor_game,
        is_asset,
        generate_public_hash,
        dependencies,
        script_serialization,
    })
}

fn p_nonempty(s: Option<Section>) -> bool {
    s.is_some_and(|s| s.count > 0)
}
