//! Writing UE1/UE2 packages: the header and the name, import, export and
//! heritage tables serialised from the model, object data kept byte for byte
//! where it lies (`classic.md` §3; the mirror of [`Package::parse`]).
//!
//! Object data is never moved: serialised objects hold absolute file offsets
//! (lazy arrays, mip skip offsets), so moving one would mean relocating them
//! all. A table that still fits where it was is written there (the bytes it
//! no longer uses are zeroed); one that grew is appended at the end of the
//! file, and the header points at it, as the engine reads tables wherever
//! the header says. Unchanged, [`Rewrite::to_bytes`] reproduces the file
//! byte for byte (tested on every UE1/UE2 package of the corpus).
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let data = std::fs::read("Weapons.u")?;
//! let pkg = pakrat_classic::Package::parse(&data)?;
//! let mut w = pakrat_classic::write::Rewrite::new(&pkg);
//! w.rename_name("Weapons", "WeaponsV2")?;
//! std::fs::write("Weapons-renamed.u", w.to_bytes()?)?;
//! # Ok(()) }
//! ```

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

use pakrat_io::{Error, Guid, Result, Writer};
use serde::Serialize;

use crate::package::{Export, Import, Name, Package};
use crate::summary::{Generation, Summary, TableLayout, TableRef};

/// Longest name the engines store: `NAME_SIZE` is 64 characters with the
/// terminator (UE1 and UE2 `UnNames.h`).
pub const MAX_NAME_LEN: usize = 63;

/// `RF_Public`: an object other packages may import (UT432 `UnObjBas.h`).
const RF_PUBLIC: u32 = 0x4;

/// Names the format reserves, with why: `package rename-name` refuses to
/// rename them or to rename anything to them. Compared ignoring case, as
/// `FName` compares.
///
/// Sources: `classic.md` §3.4–3.6 (the property list ends at `None`; a
/// package import has class `Core.Package`; structs other than
/// `Vector`/`Rotator`/`Color` are tagged lists from v118, those three stay
/// binary, chosen by name), and the UE1/UE2 `UnNames.h` hard-coded names
/// of the `Core` classes that the linker finds by name (`Core.Class`,
/// `Core.Object`, the field and property classes, `TextBuffer`), as UELib
/// resolves them by name too. `ScriptText` is how a class's source is
/// found (`strip`).
pub const RESERVED_NAMES: &[(&str, &str)] = &[
    ("None", "it ends every property list"),
    ("Core", "the package of the classes every package uses"),
    ("Class", "the class of every class (imports of Core.Class)"),
    (
        "Package",
        "the class of packages and groups (imports of Core.Package)",
    ),
    ("Object", "Core's base class"),
    ("Field", "a Core class the loader finds by name"),
    ("Struct", "a Core class the loader finds by name"),
    ("State", "a Core class the loader finds by name"),
    ("Function", "a Core class the loader finds by name"),
    ("Enum", "a Core class the loader finds by name"),
    ("Const", "a Core class the loader finds by name"),
    ("TextBuffer", "a Core class the loader finds by name"),
    ("ScriptText", "the name of every class's source text"),
    ("Property", "a Core class the loader finds by name"),
    ("ByteProperty", "a Core property class"),
    ("IntProperty", "a Core property class"),
    ("BoolProperty", "a Core property class"),
    ("FloatProperty", "a Core property class"),
    ("ObjectProperty", "a Core property class"),
    ("ClassProperty", "a Core property class"),
    ("NameProperty", "a Core property class"),
    ("StrProperty", "a Core property class"),
    ("StringProperty", "a Core property class"),
    ("ArrayProperty", "a Core property class"),
    ("FixedArrayProperty", "a Core property class"),
    ("MapProperty", "a Core property class"),
    ("StructProperty", "a Core property class"),
    ("DelegateProperty", "a Core property class"),
    ("PointerProperty", "a Core property class"),
    ("Vector", "a struct serialised natively, chosen by name"),
    ("Rotator", "a struct serialised natively, chosen by name"),
    ("Color", "a struct serialised natively, chosen by name"),
];

/// Why `text` is reserved ([`RESERVED_NAMES`]), if it is.
pub fn reserved_name(text: &str) -> Option<&'static str> {
    RESERVED_NAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(text))
        .map(|(_, why)| *why)
}

/// Name flags written for a name this module adds: the value UCC gives
/// names it writes (`RF_TagImp | RF_TagExp | RF_LoadForClient |
/// RF_LoadForServer | RF_LoadForEdit` = 0x00070010).
pub const NEW_NAME_FLAGS: u32 = 0x0007_0010;

/// Append one name-table entry: before v64 the bytes and a NUL; from v64
/// a compact length (negative: UTF-16 units) including the terminator
/// (UE1/UE2 `FNameEntry` serialisation).
pub fn write_name(w: &mut Writer, version: u16, n: &Name<'_>) -> Result<()> {
    let bad = |why: &str| Error::Other(format!("name {:?}: {why}", n.text));
    if n.text.contains('\0') && n.wide {
        return Err(bad("a wide name cannot hold NUL"));
    }
    if version < 64 {
        let bytes = pakrat_io::FString::to_latin1(&n.text)
            .filter(|_| !n.wide)
            .ok_or_else(|| bad("names before v64 are 8-bit"))?;
        if bytes.contains(&0) {
            return Err(bad("names before v64 end at their first NUL"));
        }
        w.bytes(&bytes).u8(0);
    } else {
        match (n.wide, pakrat_io::FString::to_latin1(&n.text)) {
            (false, Some(bytes)) => {
                w.compact(bytes.len() as i32 + 1).bytes(&bytes).u8(0);
            }
            _ => {
                let units: Vec<u16> = n.text.encode_utf16().collect();
                w.compact(-(units.len() as i32 + 1));
                for u in units {
                    w.u16(u);
                }
                w.u16(0);
            }
        }
    }
    w.u32(n.flags);
    Ok(())
}

/// Append one import-table entry (`classic.md` §3.4).
pub fn write_import(w: &mut Writer, i: &Import) {
    w.compact(i.class_package as i32)
        .compact(i.class_name as i32)
        .i32(i.outer.0)
        .compact(i.object_name as i32);
}

/// Append one export-table entry (`classic.md` §3.5): the serial offset is
/// present only when the size is not 0.
pub fn write_export(w: &mut Writer, e: &Export) {
    w.compact(e.class.0)
        .compact(e.super_.0)
        .i32(e.outer.0)
        .compact(e.object_name as i32)
        .u32(e.flags)
        .compact(e.serial_size as i32);
    if e.serial_size > 0 {
        w.compact(e.serial_offset as i32);
    }
}

/// The header bytes for `s` (`Summary::parse` reads them back): tag,
/// version, licensee, flags, the three tables, then the heritage table
/// position (before v68) or the GUID and generations.
pub fn header_bytes(s: &Summary) -> Vec<u8> {
    let mut w = Writer::with_capacity(64 + 8 * s.generations.len());
    w.u32(s.tag)
        .u16(s.version)
        .u16(s.licensee)
        .u32(s.package_flags);
    for t in [s.names, s.exports, s.imports] {
        w.u32(t.count).u32(t.offset);
    }
    if s.layout == TableLayout::ExtraInt {
        w.bytes(&s.header_extra);
    }
    if s.version < 68 {
        let h = s.heritage_table.unwrap_or(TableRef {
            count: 0,
            offset: 0,
        });
        w.u32(h.count).u32(h.offset);
    } else {
        w.guid(s.guid).u32(s.generations.len() as u32);
        for g in &s.generations {
            w.i32(g.export_count).i32(g.name_count);
        }
    }
    if s.layout == TableLayout::Dnf2011 {
        w.bytes(&s.header_extra);
    }
    w.into_inner()
}

/// One change [`Rewrite`] made, for `--dry-run` and reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// What changed, in words.
    pub what: String,
}

/// What [`Rewrite::strip_source`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StripReport {
    /// Paths of the text buffers emptied.
    pub stripped: Vec<String>,
    /// Bytes of text removed (zeroed in place).
    pub freed: u64,
    /// Text buffers that were empty already.
    pub already_empty: usize,
    /// Text buffers whose data is not a text buffer, with the reason.
    pub not_text: Vec<(String, String)>,
}

/// Where a table went in the written file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// `names`, `imports`, `exports` or `heritage`.
    pub table: &'static str,
    /// Offset in the written file.
    pub offset: u64,
    /// Bytes it takes.
    pub len: u64,
    /// True when it no longer fitted where it was and went to the end.
    pub moved: bool,
}

/// A package being changed: the parsed model, editable, over the original
/// bytes. [`Rewrite::to_bytes`] writes the result.
#[derive(Clone, Debug)]
pub struct Rewrite<'a> {
    original: &'a [u8],
    spans: [Range<u64>; 4],
    header_size: u64,
    /// The header (GUID, flags, generations, heritage are editable; table
    /// counts and offsets are recomputed on writing).
    pub summary: Summary,
    /// The name table.
    pub names: Vec<Name<'a>>,
    /// The import table.
    pub imports: Vec<Import>,
    /// The export table (serial sizes and offsets are updated by
    /// [`Rewrite::replace_body`]).
    pub exports: Vec<Export>,
    original_exports: Vec<Export>,
    original_names: Vec<Name<'a>>,
    original_imports: Vec<Import>,
    /// Byte range of every original entry (names, imports, exports): an
    /// entry left as it was is copied, so that encodings other writers
    /// chose (a compact index with a needless zero continuation byte, as
    /// in `MapvoteLA13.u`) survive.
    raw: [Vec<Range<usize>>; 3],
    bodies: BTreeMap<usize, Vec<u8>>,
    changes: Vec<Change>,
    warnings: Vec<String>,
}

impl<'a> Rewrite<'a> {
    /// Start from `pkg` as it is.
    pub fn new(pkg: &Package<'a>) -> Rewrite<'a> {
        let [n, i, e] = pkg.table_spans();
        let h = pkg
            .summary
            .heritage_table
            .map(|t| u64::from(t.offset)..u64::from(t.offset) + 16 * u64::from(t.count))
            .unwrap_or(0..0);
        Rewrite {
            original: pkg.data(),
            spans: [n, i, e, h],
            header_size: u64::from(pkg.summary.header_size),
            summary: pkg.summary.clone(),
            names: pkg.names.clone(),
            imports: pkg.imports.clone(),
            exports: pkg.exports.clone(),
            original_exports: pkg.exports.clone(),
            original_names: pkg.names.clone(),
            original_imports: pkg.imports.clone(),
            raw: entry_ranges(pkg),
            bodies: BTreeMap::new(),
            changes: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Encode every table entry anew (by default an entry left as it was is
    /// copied from the original file). The result reads the same but is
    /// byte-identical only where the original used the shortest encodings.
    pub fn reencode_all(&mut self) {
        self.original_names.clear();
        self.original_imports.clear();
        // Exports stay known (body replacement needs the original ranges);
        // mark them all as changed by clearing the raw ranges instead.
        self.raw[2].clear();
    }

    /// What has been changed so far.
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    fn note(&mut self, what: String) {
        self.changes.push(Change { what });
    }

    /// Index of the name `text` (names compare without regard to case, as
    /// the engines' `FName` does): the exact spelling first.
    pub fn find_name(&self, text: &str) -> Option<usize> {
        self.names.iter().position(|n| n.text == text).or_else(|| {
            self.names
                .iter()
                .position(|n| n.text.eq_ignore_ascii_case(text))
        })
    }

    /// Index of `text` in the name table, adding it at the end when absent
    /// (no existing index changes).
    pub fn add_name(&mut self, text: &str) -> Result<usize> {
        check_name(text)?;
        if let Some(i) = self.find_name(text) {
            return Ok(i);
        }
        self.names.push(Name {
            text: Cow::Owned(text.to_string()),
            flags: NEW_NAME_FLAGS,
            wide: false,
        });
        self.note(format!("name {text} added"));
        Ok(self.names.len() - 1)
    }

    /// Change the text of name `old` to `new` for the package's own uses
    /// (object names of its exports, names in object data).
    ///
    /// * Names the format reserves ([`RESERVED_NAMES`]) are refused either
    ///   way: renaming `None` or `Class` leaves a package nothing decodes.
    /// * Imports name objects of *other* packages, so they never change: when
    ///   an import uses `old` (as object, class or class-package name), the
    ///   name stays for the imports and object data, and the exports named
    ///   `old` are pointed at a new name entry `new` (a package's own group
    ///   renamed no longer repoints an import of another package's group of
    ///   the same name). A name only imports use is refused.
    /// * Exports that other packages can import by name (classes, groups,
    ///   public objects) are listed in [`Rewrite::warnings`].
    ///
    /// `new` must not already be a name of the package. Returns the index of
    /// the name that now reads `new`.
    pub fn rename_name(&mut self, old: &str, new: &str) -> Result<usize> {
        check_name(new)?;
        for n in [old, new] {
            if let Some(r) = reserved_name(n) {
                return Err(Error::Other(format!(
                    "name {n:?} is reserved: {r}; renaming it (or to it) would leave a package \
                     the engine cannot load"
                )));
            }
        }
        let i = self
            .find_name(old)
            .ok_or_else(|| Error::Other(format!("no name {old} in the name table")))?;
        if let Some(j) = self.find_name(new) {
            if j != i {
                return Err(Error::Other(format!(
                    "the package already has a name {} (index {j}); two equal names would \
                     make references ambiguous",
                    self.names[j].text
                )));
            }
        }
        let i32_ = i as u32;
        let imports_using: Vec<usize> = (0..self.imports.len())
            .filter(|&k| {
                let m = &self.imports[k];
                m.object_name == i32_ || m.class_name == i32_ || m.class_package == i32_
            })
            .collect();
        let exports_using: Vec<usize> = (0..self.exports.len())
            .filter(|&k| self.exports[k].object_name == i32_)
            .collect();
        for &k in &exports_using {
            if let Some(w) = self.importable_export(k) {
                self.warnings.push(format!(
                    "{old} is the name of {w} (export {k}): packages that import it by that \
                     name will no longer find it"
                ));
            }
        }
        if imports_using.is_empty() {
            let was = std::mem::replace(&mut self.names[i].text, Cow::Owned(new.to_string()));
            if was != new {
                self.names[i].wide = self.names[i].wide && !new.is_ascii();
                self.note(format!("name {i} {was} -> {new}"));
            }
            return Ok(i);
        }
        let shown: Vec<String> = imports_using
            .iter()
            .take(4)
            .map(|&k| self.import_path(k))
            .collect();
        let more = if imports_using.len() > 4 { ", ..." } else { "" };
        if exports_using.is_empty() {
            return Err(Error::Other(format!(
                "name {old} is used by {} import(s) of other packages' objects ({}{more}) and \
                 by no object of this package; renaming it would repoint those imports",
                imports_using.len(),
                shown.join(", ")
            )));
        }
        let flags = self.names[i].flags;
        self.names.push(Name {
            text: Cow::Owned(new.to_string()),
            flags,
            wide: false,
        });
        let j = self.names.len() - 1;
        for &k in &exports_using {
            self.exports[k].object_name = j as u32;
        }
        self.note(format!(
            "name {i} {old} kept for {} import(s) of other packages' objects ({}{more}) and \
             for names in object data; {} export(s) named {old} now named {new} (new name {j})",
            imports_using.len(),
            shown.join(", "),
            exports_using.len()
        ));
        Ok(j)
    }

    /// Warnings from the edits so far (e.g. a renamed name other packages
    /// import).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// What export `k` is, when other packages can import it by name: a
    /// class, a group (class `Package`) or a public object.
    fn importable_export(&self, k: usize) -> Option<String> {
        let e = self.exports[k];
        let class = match e.class.target() {
            crate::package::Target::None => "Class".to_string(),
            crate::package::Target::Import(m) => self
                .imports
                .get(m)
                .and_then(|m| self.names.get(m.object_name as usize))
                .map(|n| n.text.to_string())
                .unwrap_or_default(),
            crate::package::Target::Export(x) => self
                .exports
                .get(x)
                .and_then(|x| self.names.get(x.object_name as usize))
                .map(|n| n.text.to_string())
                .unwrap_or_default(),
        };
        if class.eq_ignore_ascii_case("Class") {
            Some("a class".into())
        } else if class.eq_ignore_ascii_case("Package") {
            Some("a group".into())
        } else if e.flags & RF_PUBLIC != 0 {
            Some(format!("a public {class}"))
        } else {
            None
        }
    }

    /// `Package.Group.Object` of import `k` (names as they are now).
    fn import_path(&self, k: usize) -> String {
        let mut parts = Vec::new();
        let mut cur = Some(k);
        // Bounded: an outer chain longer than the table is a cycle.
        for _ in 0..=self.imports.len() {
            let Some(c) = cur else { break };
            let Some(m) = self.imports.get(c) else { break };
            parts.push(
                self.names
                    .get(m.object_name as usize)
                    .map(|n| n.text.to_string())
                    .unwrap_or_else(|| "?".into()),
            );
            cur = match m.outer.target() {
                crate::package::Target::Import(o) => Some(o),
                _ => None,
            };
        }
        parts.reverse();
        parts.join(".")
    }

    /// Point every import of package `old` (a top-level import of class
    /// `Package`) at package `new`; the name `old` stays for its other
    /// uses. Returns how many imports changed.
    pub fn rename_imported_package(&mut self, old: &str, new: &str) -> Result<usize> {
        let is = |i: u32, t: &str| {
            self.names
                .get(i as usize)
                .is_some_and(|n| n.text.eq_ignore_ascii_case(t))
        };
        let hits: Vec<usize> = (0..self.imports.len())
            .filter(|&k| {
                let imp = &self.imports[k];
                imp.outer.is_none() && is(imp.class_name, "Package") && is(imp.object_name, old)
            })
            .collect();
        if hits.is_empty() {
            return Ok(0);
        }
        let n = self.add_name(new)? as u32;
        for &k in &hits {
            self.imports[k].object_name = n;
        }
        self.note(format!("import of package {old} -> {new}"));
        Ok(hits.len())
    }

    /// Set the package GUID (from v68 the header's; before, the last
    /// heritage GUID, which is the package's).
    pub fn set_guid(&mut self, guid: Guid) {
        if self.summary.version < 68 {
            match self.summary.heritage.last_mut() {
                Some(g) => *g = guid,
                None => self.summary.heritage.push(guid),
            }
        }
        self.summary.guid = guid;
        self.note(format!("GUID -> {guid}"));
    }

    /// A new generation with GUID `guid`, as the engine saves a changed
    /// package: from v68 the GUID is replaced and a generation entry with
    /// the current export and name counts is appended; before v68 the GUID
    /// is appended to the heritage table.
    pub fn new_generation(&mut self, guid: Guid) {
        if self.summary.version < 68 {
            self.summary.heritage.push(guid);
        } else {
            self.summary.generations.push(Generation {
                export_count: self.exports.len() as i32,
                name_count: self.names.len() as i32,
            });
        }
        self.summary.guid = guid;
        self.note(format!("new generation, GUID {guid}"));
    }

    /// Empty the text of every class's script source (`TextBuffer` exports
    /// named `ScriptText`), as `ucc` strips source for release builds: the
    /// object stays with its `Pos`/`Top` and an empty `Text`, written where
    /// it was; nothing else moves. Text buffers whose data does not read as
    /// one are left alone and listed.
    pub fn strip_source(&mut self, pkg: &Package<'_>) -> Result<StripReport> {
        let mut report = StripReport::default();
        for i in 0..pkg.exports.len() {
            let e = pkg.exports[i];
            let is_source = pkg
                .export_class_name(i)
                .is_ok_and(|c| c.eq_ignore_ascii_case("TextBuffer"))
                && pkg.name(e.object_name).eq_ignore_ascii_case("ScriptText");
            if !is_source || e.serial_size == 0 {
                continue;
            }
            let path = pkg.export_path(i).unwrap_or_else(|_| format!("export {i}"));
            let text_at = crate::props::read_object(pkg, i).and_then(|o| {
                let mut r = o.native;
                r.i32("TextBuffer Pos")?;
                r.i32("TextBuffer Top")?;
                let at = r.offset();
                let text = r.fstring("TextBuffer Text")?;
                Ok((at, text.text.is_empty()))
            });
            match text_at {
                Ok((_, true)) => report.already_empty += 1,
                Ok((at, false)) => {
                    let data = pkg.export_data(i)?;
                    let keep = (at - u64::from(e.serial_offset)) as usize;
                    let mut body = data[..keep].to_vec();
                    body.push(0); // FString of length 0: compact index 0
                    report.freed += u64::from(e.serial_size) - body.len() as u64;
                    self.replace_body(i, body)?;
                    report.stripped.push(path);
                }
                Err(err) => report.not_text.push((path, err.to_string())),
            }
        }
        if !report.stripped.is_empty() {
            self.note(format!(
                "script source emptied in {} text buffers ({} bytes)",
                report.stripped.len(),
                report.freed
            ));
        }
        Ok(report)
    }

    /// Set the package flags.
    pub fn set_flags(&mut self, flags: u32) {
        if flags != self.summary.package_flags {
            self.note(format!(
                "flags {:#010x} -> {flags:#010x}",
                self.summary.package_flags
            ));
            self.summary.package_flags = flags;
        }
    }

    /// Replace export `i`'s object data with `bytes`, written where the old
    /// data began (objects are not moved, so it may not be longer, and the
    /// bytes it no longer uses are zeroed).
    pub fn replace_body(&mut self, i: usize, bytes: Vec<u8>) -> Result<()> {
        let orig = *self
            .original_exports
            .get(i)
            .ok_or_else(|| Error::Other(format!("no export {i}")))?;
        if bytes.len() as u64 > u64::from(orig.serial_size) {
            return Err(Error::Other(format!(
                "export {i}: new data ({} bytes) is longer than the old ({} bytes); objects \
                 are not moved",
                bytes.len(),
                orig.serial_size
            )));
        }
        if bytes.is_empty() {
            return Err(Error::Other(format!(
                "export {i}: data cannot become empty"
            )));
        }
        let e = &mut self.exports[i];
        e.serial_size = bytes.len() as u32;
        e.serial_offset = orig.serial_offset;
        self.bodies.insert(i, bytes);
        Ok(())
    }

    /// Refuse files whose tables overlap the header, each other or object
    /// data (only hostile files do): rewriting a table there would change
    /// what the other reads.
    fn check_layout(&self) -> Result<()> {
        let names = [
            "name table",
            "import table",
            "export table",
            "heritage table",
        ];
        let mut regions: Vec<(Range<u64>, String)> =
            vec![(0..self.header_size, "the header".into())];
        for (k, r) in self.spans.iter().enumerate() {
            regions.push((r.clone(), names[k].into()));
        }
        for (i, e) in self.original_exports.iter().enumerate() {
            let start = u64::from(e.serial_offset);
            regions.push((
                start..start + u64::from(e.serial_size),
                format!("export {i}'s data"),
            ));
        }
        regions.retain(|(r, _)| !r.is_empty());
        regions.sort_by_key(|(r, _)| (r.start, r.end));
        let table = |w: &str| w.ends_with(" table") || w == "the header";
        let replaced: Vec<String> = self
            .bodies
            .keys()
            .map(|i| format!("export {i}'s data"))
            .collect();
        let mut widest: Option<&(Range<u64>, String)> = None;
        for cur in &regions {
            if let Some(prev) = widest {
                let involved = |w: &String| table(w) || replaced.contains(w);
                if cur.0.start < prev.0.end && (involved(&prev.1) || involved(&cur.1)) {
                    return Err(Error::invalid(
                        cur.0.start,
                        format!(
                            "{} ({:#x}..{:#x}) overlaps {} ({:#x}..{:#x}); not rewriting a \
                             package whose parts share bytes",
                            cur.1, cur.0.start, cur.0.end, prev.1, prev.0.start, prev.0.end
                        ),
                    ));
                }
            }
            if widest.is_none_or(|w| cur.0.end > w.0.end) {
                widest = Some(cur);
            }
        }
        Ok(())
    }

    /// Write the package. See the module notes for where tables go.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        Ok(self.write()?.0)
    }

    /// [`Rewrite::to_bytes`], with where each table went.
    pub fn write(&self) -> Result<(Vec<u8>, Vec<Placement>)> {
        if self.summary.layout == TableLayout::Beta {
            return Err(Error::Unsupported {
                offset: 4,
                what: format!(
                    "writing version {} packages (Unreal beta tables, no sample to check \
                     the writer against)",
                    self.summary.version
                ),
            });
        }
        self.check_layout()?;
        let mut out = self.with_bodies();
        let tables = self.tables()?;
        let must_move = self.header_growth(out.len() as u64)?;
        let placed = self.place(&tables, must_move, out.len() as u64)?;
        // Zero what the tables no longer use, then write them (in that order,
        // so that no zeroing touches a table written in place).
        for (k, p) in placed.iter().enumerate() {
            let span = &self.spans[k];
            let from = if p.moved {
                span.start
            } else {
                span.start + p.len
            };
            out[from as usize..span.end as usize].fill(0);
        }
        for (p, (_, bytes)) in placed.iter().zip(&tables) {
            if p.moved {
                out.extend_from_slice(bytes);
            } else {
                out[p.offset as usize..(p.offset + p.len) as usize].copy_from_slice(bytes);
            }
        }
        let header = header_bytes(&self.summary_at(&placed));
        out[..header.len()].copy_from_slice(&header);
        Ok((out, placed))
    }

    /// The original bytes with the object data replaced in place (the rest
    /// of its old range zeroed).
    fn with_bodies(&self) -> Vec<u8> {
        let mut out = self.original.to_vec();
        for (&i, body) in &self.bodies {
            let o = &self.original_exports[i];
            let start = o.serial_offset as usize;
            out[start..start + body.len()].copy_from_slice(body);
            out[start + body.len()..start + o.serial_size as usize].fill(0);
        }
        out
    }

    /// The tables' new bytes, in file-order of the summary: names, imports,
    /// exports and (before version 68) heritage.
    fn tables(&self) -> Result<Vec<(&'static str, Vec<u8>)>> {
        let v = self.summary.version;
        let mut tables: Vec<(&'static str, Vec<u8>)> = Vec::with_capacity(4);
        let names = self.table(0, &self.names, &self.original_names, |w, n| {
            write_name(w, v, n)
        })?;
        tables.push(("names", names));
        let imports = self.table(1, &self.imports, &self.original_imports, |w, i| {
            write_import(w, i);
            Ok(())
        })?;
        tables.push(("imports", imports));
        let exports = self.table(2, &self.exports, &self.original_exports, |w, e| {
            write_export(w, e);
            Ok(())
        })?;
        tables.push(("exports", exports));
        if v < 68 {
            let mut w = Writer::new();
            for g in &self.summary.heritage {
                w.guid(*g);
            }
            tables.push(("heritage", w.into_inner()));
        }
        Ok(tables)
    }

    /// Table `t`'s bytes: an entry equal to the original one (whose bytes
    /// are known) is copied as it was read, any other is written by `write`.
    fn table<T: PartialEq>(
        &self,
        t: usize,
        entries: &[T],
        originals: &[T],
        write: impl Fn(&mut Writer, &T) -> Result<()>,
    ) -> Result<Vec<u8>> {
        let raw = &self.raw[t];
        let mut w = Writer::new();
        for (k, e) in entries.iter().enumerate() {
            match originals.get(k) {
                Some(o) if o == e && k < raw.len() => {
                    w.bytes(&self.original[raw[k].clone()]);
                }
                _ => write(&mut w, e)?,
            }
        }
        Ok(w.into_inner())
    }

    /// The header may have grown (a generation added): the bytes it grows
    /// into must belong to tables, which then move to the end. Returns
    /// which tables must move; `len` is the file's length.
    fn header_growth(&self, len: u64) -> Result<[bool; 4]> {
        let header_len = header_bytes(&self.summary).len() as u64;
        let mut must_move = [false; 4];
        if header_len <= self.header_size {
            return Ok(must_move);
        }
        // The header may grow over bytes no object uses: tables there
        // move to the end; gaps (such as a table's old place, zeroed by
        // an earlier rewrite) are free.
        let need = self.header_size..header_len;
        let overlaps = |r: &Range<u64>| r.start < need.end && need.start < r.end;
        if let Some((i, e)) = self.original_exports.iter().enumerate().find(|(_, e)| {
            let s = u64::from(e.serial_offset);
            e.serial_size > 0 && overlaps(&(s..s + u64::from(e.serial_size)))
        }) {
            return Err(Error::Other(format!(
                "the header must grow to {header_len} bytes, but export {i}'s data starts \
                 at {:#x}; objects are not moved",
                e.serial_offset
            )));
        }
        for (k, r) in self.spans.iter().enumerate() {
            if !r.is_empty() && overlaps(r) {
                must_move[k] = true;
            }
        }
        if header_len > len {
            return Err(Error::Other(format!(
                "the header must grow to {header_len} bytes, past the end of the file"
            )));
        }
        Ok(must_move)
    }

    /// Where each table goes: where it was if it still fits (and need not
    /// move), else the end of the file (`len` bytes so far).
    fn place(
        &self,
        tables: &[(&'static str, Vec<u8>)],
        must_move: [bool; 4],
        len: u64,
    ) -> Result<Vec<Placement>> {
        let mut placed = Vec::with_capacity(tables.len());
        let mut end = len;
        for (k, (table, bytes)) in tables.iter().enumerate() {
            let span = &self.spans[k];
            let len = bytes.len() as u64;
            let fits = !must_move[k] && len <= span.end - span.start;
            let offset = if fits { span.start } else { end };
            if !fits {
                end += len;
            }
            if end > i32::MAX as u64 {
                return Err(Error::Other(format!(
                    "the {table} table would end past 2 GiB ({end:#x})"
                )));
            }
            placed.push(Placement {
                table,
                offset,
                len,
                moved: !fits,
            });
        }
        Ok(placed)
    }

    /// The summary with the tables' new counts and offsets.
    fn summary_at(&self, placed: &[Placement]) -> Summary {
        let mut summary = self.summary.clone();
        let count = |k: usize| match k {
            0 => self.names.len(),
            1 => self.imports.len(),
            2 => self.exports.len(),
            _ => self.summary.heritage.len(),
        } as u32;
        let at = |k: usize| TableRef {
            count: count(k),
            offset: placed[k].offset as u32,
        };
        summary.names = at(0);
        summary.imports = at(1);
        summary.exports = at(2);
        if self.summary.version < 68 {
            summary.heritage_table = Some(at(3));
        }
        summary
    }
}

/// Byte range of every entry of the three tables of `pkg`.
fn entry_ranges(pkg: &Package<'_>) -> [Vec<Range<usize>>; 3] {
    let spans = pkg.table_spans();
    let ranges = |starts: Vec<usize>, end: u64| {
        let mut out = Vec::with_capacity(starts.len());
        for (k, &s) in starts.iter().enumerate() {
            let e = starts.get(k + 1).copied().unwrap_or(end as usize);
            out.push(s..e);
        }
        out
    };
    [
        ranges(
            pkg.name_offsets().iter().map(|&o| o as usize).collect(),
            spans[0].end,
        ),
        ranges(
            pkg.imports
                .iter()
                .map(|i| i.entry_offset as usize)
                .collect(),
            spans[1].end,
        ),
        ranges(
            pkg.exports
                .iter()
                .map(|e| e.entry_offset as usize)
                .collect(),
            spans[2].end,
        ),
    ]
}

/// A name the engines can hold: 1–63 characters, no NUL, no control
/// characters, not `None`'s place (any text is fine otherwise).
pub fn check_name(text: &str) -> Result<()> {
    let n = text.chars().count();
    if n == 0 || n > MAX_NAME_LEN {
        return Err(Error::Other(format!(
            "name {text:?}: must be 1-{MAX_NAME_LEN} characters (the engines' NAME_SIZE is 64 \
             with the terminator), not {n}"
        )));
    }
    if text.chars().any(|c| c.is_control()) {
        return Err(Error::Other(format!(
            "name {text:?}: control characters are not allowed"
        )));
    }
    Ok(())
}
