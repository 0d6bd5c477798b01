//! Name, import and export tables and object-reference resolution
//! (`classic.md` §1.3, §3.3–3.5).

use std::borrow::Cow;

use pakrat_io::{Error, Reader, Result};
use serde::Serialize;

use crate::summary::Summary;

/// An object reference as stored on disk (a compact index or i32):
/// `0` = none, `< 0` = `imports[-i-1]`, `> 0` = `exports[i-1]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct ObjRef(pub i32);

/// What an [`ObjRef`] points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// Reference 0.
    None,
    /// Index into [`Package::imports`].
    Import(usize),
    /// Index into [`Package::exports`].
    Export(usize),
}

impl ObjRef {
    /// The null reference.
    pub const NONE: ObjRef = ObjRef(0);

    /// Which table entry this refers to (not range-checked).
    pub fn target(self) -> Target {
        match self.0 {
            0 => Target::None,
            i if i < 0 => Target::Import((-(i64::from(i)) - 1) as usize),
            i => Target::Export((i - 1) as usize),
        }
    }

    /// The reference to `exports[i]`.
    pub fn export(i: usize) -> ObjRef {
        ObjRef(i as i32 + 1)
    }

    /// The reference to `imports[i]`.
    pub fn import(i: usize) -> ObjRef {
        ObjRef(-(i as i32) - 1)
    }

    /// True for reference 0.
    pub fn is_none(self) -> bool {
        self.0 == 0
    }
}

/// One name-table entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Name<'a> {
    /// The text (borrowed from the file when it is plain ASCII).
    pub text: Cow<'a, str>,
    /// The u32 flags stored after it (RF_* bits, usually `0x00070010`).
    pub flags: u32,
    /// True when stored as UTF-16 (negative length).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub wide: bool,
}

/// One import-table entry (`classic.md` §3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Import {
    /// Name index of the class's package (e.g. `Core`).
    pub class_package: u32,
    /// Name index of the class (e.g. `Package`, `Texture`).
    pub class_name: u32,
    /// The outer object (for a top-level package import: none).
    pub outer: ObjRef,
    /// Name index of the object.
    pub object_name: u32,
    /// Absolute file offset of this entry.
    pub entry_offset: u32,
}

/// One export-table entry (`classic.md` §3.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Export {
    /// The object's class (0 = the object is itself a `Class`).
    pub class: ObjRef,
    /// The super struct (classes, structs, states, functions).
    pub super_: ObjRef,
    /// The outer object (group, or 0 for top level).
    pub outer: ObjRef,
    /// Name index of the object.
    pub object_name: u32,
    /// Object flags (RF_*).
    pub flags: u32,
    /// Size of the serialised object data.
    pub serial_size: u32,
    /// Absolute file offset of the data (0 when `serial_size` is 0).
    pub serial_offset: u32,
    /// Absolute file offset of this entry.
    pub entry_offset: u32,
}

/// A problem found while checking references (see [`Package::problems`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// File offset of the table entry (or data) concerned.
    pub offset: u64,
    /// What is wrong.
    pub what: String,
}

impl From<Problem> for Error {
    fn from(p: Problem) -> Error {
        Error::invalid(p.offset, p.what)
    }
}

/// A parsed package: summary, names, imports and exports, borrowing the
/// file's bytes (names that are plain ASCII are not copied).
#[derive(Clone, Debug)]
pub struct Package<'a> {
    data: &'a [u8],
    /// The header.
    pub summary: Summary,
    /// The name table.
    pub names: Vec<Name<'a>>,
    /// The import table.
    pub imports: Vec<Import>,
    /// The export table.
    pub exports: Vec<Export>,
    /// Where each table ends in the file (names, imports, exports).
    ends: [u32; 3],
    /// File offset of each name entry.
    name_offsets: Vec<u32>,
}

/// Longest chain of outers followed before declaring a cycle. Real packages
/// nest a few levels; a chain longer than the table is necessarily a cycle,
/// so the real bound is `min(table size, this)`.
const MAX_OUTER_DEPTH: usize = 4096;

impl<'a> Package<'a> {
    /// Parse the header and the three tables of `data` (the whole file) and
    /// check every reference: name indices, import/export references in
    /// range, no cycles in outer chains, export data inside the file. The
    /// first problem found is returned as the error (see
    /// [`Package::parse_lenient`] + [`Package::problems`] to list them all).
    pub fn parse(data: &'a [u8]) -> Result<Package<'a>> {
        let p = Self::parse_lenient(data)?;
        let problems = p.problems();
        let n = problems.len();
        if let Some(first) = problems.into_iter().next() {
            let mut e: Error = first.into();
            if n > 1 {
                e = match e {
                    Error::Invalid { offset, what } => Error::Invalid {
                        offset,
                        what: format!("{what} (and {} more problems)", n - 1),
                    },
                    e => e,
                };
            }
            return Err(e);
        }
        Ok(p)
    }

    /// Parse header and tables, checking only what is needed to read them
    /// (every name index must be in range; object references are kept as
    /// they are and may be checked later with [`Package::problems`]).
    ///
    /// Versions 55–59 are read with the standard tables first, as UEViewer
    /// reads every UE1 version (`FObjectImport`/`FObjectExport` in its
    /// `UnPackage.cpp` have no case below 60) and as a real v55 texture
    /// package needs; the beta layout of UMR's `unrealfmt.c` is the fallback
    /// when the standard tables do not read or their references do not hold.
    pub fn parse_lenient(data: &'a [u8]) -> Result<Package<'a>> {
        let summary = Summary::parse(data)?;
        if summary.layout == crate::summary::TableLayout::Beta {
            let mut standard = summary.clone();
            standard.layout = crate::summary::TableLayout::Standard;
            if let Ok(p) = Self::read_tables(data, standard) {
                if p.problems().is_empty() {
                    return Ok(p);
                }
            }
        }
        Self::read_tables(data, summary)
    }

    /// The tables of `data` in the layout `summary` names.
    fn read_tables(data: &'a [u8], summary: Summary) -> Result<Package<'a>> {
        let r = Reader::new(data);
        let (names, name_offsets, names_end) = read_names(&r, &summary)?;
        let name_count = names.len() as u32;
        let name_at = |r: &mut Reader<'_>, what: &str| -> Result<u32> {
            let at = r.offset();
            let i = r.compact(what)?;
            if i < 0 || i as u32 >= name_count {
                return Err(Error::invalid(
                    at,
                    format!("{what}: name index {i} is outside the name table (0..{name_count})"),
                ));
            }
            Ok(i as u32)
        };

        let beta = summary.layout == crate::summary::TableLayout::Beta;
        let mut ir = r.at(u64::from(summary.imports.offset), "import table")?;
        let mut imports = Vec::with_capacity(summary.imports.count as usize);
        for _ in 0..summary.imports.count {
            let entry_offset = ir.offset() as u32;
            let class_package = name_at(&mut ir, "import class package")?;
            let class_name = name_at(&mut ir, "import class name")?;
            let outer = if beta {
                // v55–59: a compact index of unknown use; no package index.
                ir.compact("import field (Unreal beta)")?;
                ObjRef::NONE
            } else {
                ObjRef(ir.i32("import outer (package index)")?)
            };
            imports.push(Import {
                class_package,
                class_name,
                outer,
                object_name: name_at(&mut ir, "import object name")?,
                entry_offset,
            });
        }

        let imports_end = ir.offset() as u32;
        let mut er = r.at(u64::from(summary.exports.offset), "export table")?;
        let mut exports = Vec::with_capacity(summary.exports.count as usize);
        for _ in 0..summary.exports.count {
            let entry_offset = er.offset() as u32;
            let class = ObjRef(er.compact("export class")?);
            let super_ = ObjRef(er.compact("export super")?);
            let outer = if beta {
                ObjRef::NONE
            } else {
                ObjRef(er.i32("export outer (package index)")?)
            };
            let object_name = name_at(&mut er, "export object name")?;
            let flags = er.u32("export object flags")?;
            let at = er.offset();
            let size = er.compact("export serial size")?;
            if size < 0 {
                return Err(Error::invalid(
                    at,
                    format!("export serial size is negative ({size})"),
                ));
            }
            let mut serial_offset = 0;
            if size > 0 {
                let at = er.offset();
                let off = er.compact("export serial offset")?;
                if off < 0 {
                    return Err(Error::invalid(
                        at,
                        format!("export serial offset is negative ({off})"),
                    ));
                }
                serial_offset = off as u32;
            }
            exports.push(Export {
                class,
                super_,
                outer,
                object_name,
                flags,
                serial_size: size as u32,
                serial_offset,
                entry_offset,
            });
        }
        let exports_end = er.offset() as u32;
        Ok(Package {
            data,
            summary,
            names,
            imports,
            exports,
            ends: [names_end, imports_end, exports_end],
            name_offsets,
        })
    }

    /// The whole file.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// File offset of each name-table entry.
    pub fn name_offsets(&self) -> &[u32] {
        &self.name_offsets
    }

    /// The bytes each table occupies in the file: names, imports, exports
    /// (start and end offsets; an empty table is an empty range).
    pub fn table_spans(&self) -> [std::ops::Range<u64>; 3] {
        let s = &self.summary;
        [
            u64::from(s.names.offset)..u64::from(self.ends[0]),
            u64::from(s.imports.offset)..u64::from(self.ends[1]),
            u64::from(s.exports.offset)..u64::from(self.ends[2]),
        ]
    }

    /// Every reference problem: object references out of range, outer
    /// chains that loop, export data outside the file. Empty for a sound
    /// package. Bounded: each outer chain is followed at most
    /// `imports + exports + 1` steps.
    pub fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        let len = self.data.len() as u64;
        for (i, imp) in self.imports.iter().enumerate() {
            let at = u64::from(imp.entry_offset);
            if let Err(e) = self.check_ref(imp.outer) {
                out.push(Problem {
                    offset: at,
                    what: format!("import {i} outer: {e}"),
                });
            } else if let Err(e) = self.outer_chain_len(ObjRef::import(i)) {
                out.push(Problem {
                    offset: at,
                    what: format!("import {i}: {e}"),
                });
            }
        }
        for (i, exp) in self.exports.iter().enumerate() {
            let at = u64::from(exp.entry_offset);
            for (what, r) in [
                ("class", exp.class),
                ("super", exp.super_),
                ("outer", exp.outer),
            ] {
                if let Err(e) = self.check_ref(r) {
                    out.push(Problem {
                        offset: at,
                        what: format!("export {i} {what}: {e}"),
                    });
                }
            }
            if self.check_ref(exp.outer).is_ok() {
                if let Err(e) = self.outer_chain_len(ObjRef::export(i)) {
                    out.push(Problem {
                        offset: at,
                        what: format!("export {i}: {e}"),
                    });
                }
            }
            let end = u64::from(exp.serial_offset) + u64::from(exp.serial_size);
            if exp.serial_size > 0 && end > len {
                out.push(Problem {
                    offset: at,
                    what: format!(
                        "export {i} ({}): data {:#x}+{:#x} ends past the end of the file ({len:#x})",
                        self.name(exp.object_name),
                        exp.serial_offset,
                        exp.serial_size
                    ),
                });
            }
        }
        out
    }

    /// Check that `r` is 0 or points inside the import/export table.
    pub fn check_ref(&self, r: ObjRef) -> Result<Target> {
        let t = r.target();
        let ok = match t {
            Target::None => true,
            Target::Import(i) => i < self.imports.len(),
            Target::Export(i) => i < self.exports.len(),
        };
        if ok {
            Ok(t)
        } else {
            Err(Error::Other(format!(
                "object reference {} is out of range ({} imports, {} exports)",
                r.0,
                self.imports.len(),
                self.exports.len()
            )))
        }
    }

    fn outer_of(&self, t: Target) -> ObjRef {
        match t {
            Target::None => ObjRef::NONE,
            Target::Import(i) => self.imports[i].outer,
            Target::Export(i) => self.exports[i].outer,
        }
    }

    /// Number of objects in the outer chain of `r` (itself included), or an
    /// error on an out-of-range reference or a cycle.
    fn outer_chain_len(&self, r: ObjRef) -> Result<usize> {
        let limit = (self.imports.len() + self.exports.len() + 1).min(MAX_OUTER_DEPTH);
        let mut cur = r;
        let mut n = 0;
        while !cur.is_none() {
            let t = self.check_ref(cur)?;
            n += 1;
            if n > limit {
                return Err(Error::Other(format!(
                    "the outer chain of object reference {} loops (cycle or deeper than {limit})",
                    r.0
                )));
            }
            cur = self.outer_of(t);
        }
        Ok(n)
    }

    /// The text of name `i` (`"?"` for an index out of range, which
    /// [`Package::parse`] never lets through for table entries).
    pub fn name(&self, i: u32) -> &str {
        self.names.get(i as usize).map_or("?", |n| &n.text)
    }

    /// Look a name up (case-insensitive, like the engine).
    pub fn find_name(&self, text: &str) -> Option<u32> {
        self.names
            .iter()
            .position(|n| n.text.eq_ignore_ascii_case(text))
            .map(|i| i as u32)
    }

    /// The object name of a reference (`"None"` for 0).
    pub fn object_name(&self, r: ObjRef) -> Result<&str> {
        Ok(match self.check_ref(r)? {
            Target::None => "None",
            Target::Import(i) => self.name(self.imports[i].object_name),
            Target::Export(i) => self.name(self.exports[i].object_name),
        })
    }

    /// The dotted path of an object through its outers: for an export
    /// `Group.Name` (the package itself, i.e. the file name, is not
    /// included), for an import `Package.Group.Name`. `"None"` for 0.
    /// Errors on out-of-range references and cycles.
    pub fn object_path(&self, r: ObjRef) -> Result<String> {
        if r.is_none() {
            return Ok("None".into());
        }
        self.outer_chain_len(r)?;
        let mut parts = Vec::new();
        let mut cur = r;
        while !cur.is_none() {
            let t = self.check_ref(cur)?;
            parts.push(self.object_name(cur)?);
            cur = self.outer_of(t);
        }
        parts.reverse();
        Ok(parts.join("."))
    }

    /// The class name of the object `r` refers to: for an import its stored
    /// class name; for an export the name of its class object (`Class` when
    /// the export's class is 0, i.e. the export is a UClass).
    pub fn class_name(&self, r: ObjRef) -> Result<&str> {
        match self.check_ref(r)? {
            Target::None => Ok("None"),
            Target::Import(i) => Ok(self.name(self.imports[i].class_name)),
            Target::Export(i) => self.export_class_name(i),
        }
    }

    /// Class name of `exports[i]` (`Class` when its class reference is 0).
    pub fn export_class_name(&self, i: usize) -> Result<&str> {
        let e = self.export(i)?;
        if e.class.is_none() {
            Ok("Class")
        } else {
            self.object_name(e.class)
        }
    }

    /// Dotted path of `exports[i]`.
    pub fn export_path(&self, i: usize) -> Result<String> {
        self.object_path(ObjRef::export(i))
    }

    /// `exports[i]`, or an error naming the range.
    pub fn export(&self, i: usize) -> Result<&Export> {
        self.exports.get(i).ok_or_else(|| {
            Error::Other(format!(
                "export {i} does not exist ({} exports)",
                self.exports.len()
            ))
        })
    }

    /// The package an import lives in: the name of the outermost object of
    /// its outer chain (for `Engine.Texture` → `Engine`).
    pub fn import_package(&self, i: usize) -> Result<&str> {
        self.outer_chain_len(ObjRef::import(i))?;
        let mut cur = ObjRef::import(i);
        loop {
            let t = self.check_ref(cur)?;
            let outer = self.outer_of(t);
            if outer.is_none() {
                return self.object_name(cur);
            }
            cur = outer;
        }
    }

    /// Names of the packages this one imports from (the top-level imports
    /// whose class is `Package`, in table order, deduplicated).
    pub fn imported_packages(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for imp in &self.imports {
            if imp.outer.is_none() && self.name(imp.class_name).eq_ignore_ascii_case("Package") {
                let n = self.name(imp.object_name);
                if !out.iter().any(|o| o.eq_ignore_ascii_case(n)) {
                    out.push(n);
                }
            }
        }
        out
    }

    /// The serialised data of `exports[i]` (empty when its size is 0).
    pub fn export_data(&self, i: usize) -> Result<&'a [u8]> {
        let e = self.export(i)?;
        if e.serial_size == 0 {
            return Ok(&[]);
        }
        let start = e.serial_offset as usize;
        let end = start + e.serial_size as usize;
        self.data.get(start..end).ok_or_else(|| {
            Error::invalid(
                u64::from(e.entry_offset),
                format!(
                    "export {i}: data {start:#x}+{:#x} ends past the end of the file ({:#x})",
                    e.serial_size,
                    self.data.len()
                ),
            )
        })
    }

    /// Find exports by name or dotted path (case-insensitive): `Name`
    /// matches every export with that object name, `Group.Name` (or a longer
    /// path) matches the path exactly; a leading package-name component is
    /// also accepted when it does not name a group.
    pub fn find_exports(&self, query: &str) -> Vec<usize> {
        let q = query.trim();
        let leaf = q.rsplit('.').next().unwrap_or(q);
        // Compare text, not name indices: a name may appear twice in a table.
        let cands: Vec<usize> = (0..self.exports.len())
            .filter(|&i| {
                self.name(self.exports[i].object_name)
                    .eq_ignore_ascii_case(leaf)
            })
            .collect();
        if !q.contains('.') {
            return cands;
        }
        let exact: Vec<usize> = cands
            .iter()
            .copied()
            .filter(|&i| self.export_path(i).is_ok_and(|p| p.eq_ignore_ascii_case(q)))
            .collect();
        if !exact.is_empty() {
            return exact;
        }
        // `Package.Group.Name`: drop the first component.
        let rest = q.split_once('.').map_or(q, |(_, r)| r);
        cands
            .into_iter()
            .filter(|&i| {
                self.export_path(i)
                    .is_ok_and(|p| p.eq_ignore_ascii_case(rest))
            })
            .collect()
    }
}

fn read_names<'a>(r: &Reader<'a>, s: &Summary) -> Result<(Vec<Name<'a>>, Vec<u32>, u32)> {
    let mut nr = r.at(u64::from(s.names.offset), "name table")?;
    let mut names = Vec::with_capacity(s.names.count as usize);
    let mut offsets = Vec::with_capacity(s.names.count as usize);
    for _ in 0..s.names.count {
        let at = nr.offset();
        offsets.push(at as u32);
        let (text, wide) = if s.version < 64 {
            // Before v64: NUL-terminated, no length (UEViewer `LoadNameTable2`, UMR).
            let rest = nr.rest();
            let end = rest.iter().position(|&b| b == 0).ok_or_else(|| {
                Error::invalid(at, "name: no terminating NUL before the end of the file")
            })?;
            let raw = nr.bytes(end as u64 + 1, "name")?;
            (latin1(&raw[..end]), false)
        } else {
            let len = nr.compact("name length")?;
            if len >= 0 {
                let raw = nr.bytes(len as u64, "name")?;
                match raw.split_last() {
                    None => (Cow::Borrowed(""), false),
                    // Interior NULs occur (obfuscated names in anti-cheat
                    // packages such as ACE); the engine reads `len` bytes,
                    // so keep them all for an exact round trip.
                    Some((0, body)) => (latin1(body), false),
                    _ => {
                        return Err(Error::invalid(
                            at,
                            format!("name of {len} bytes is not NUL-terminated at its end"),
                        ))
                    }
                }
            } else {
                // UTF-16 (some Korean UE2 games): keep the characters exactly.
                let mut r2 = r.at(at - r.base(), "name")?;
                let f = r2.fstring("name")?;
                nr = r2;
                (Cow::Owned(f.text), true)
            }
        };
        let flags = nr.u32("name flags")?;
        names.push(Name { text, flags, wide });
    }
    Ok((names, offsets, nr.offset() as u32))
}

/// Borrow ASCII as is; widen other bytes as Latin-1 (byte-exact round trip).
fn latin1(b: &[u8]) -> Cow<'_, str> {
    if b.is_ascii() {
        // ASCII is valid UTF-8.
        Cow::Borrowed(std::str::from_utf8(b).unwrap_or_default())
    } else {
        Cow::Owned(b.iter().map(|&c| char::from(c)).collect())
    }
}
