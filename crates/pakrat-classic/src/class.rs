//! Default properties of `Class` exports.
//!
//! A UE1/UE2 `UClass` is serialised as `UField` (SuperField, Next),
//! `UStruct` (ScriptText, Children, FriendlyName, CppText from v120, Line, TextPos,
//! ScriptSize, bytecode), `UState` (u64 ProbeMask, u64 IgnoreMask, u16
//! LabelTableOffset, u32 StateFlags), then `UClass`: u32 ClassFlags, GUID,
//! `Dependencies` (CIdx count × {class, u32 Deep, u32 ScriptTextCRC}),
//! `PackageImports` (names), from v62 `ClassWithin` and `ClassConfigName`,
//! from v99 `HideCategories` (names), and finally the default properties as
//! a tagged list that ends the object (UT432 headers; UELib `UClass`,
//! `UState`, version markers `Release62`, `AddedHideCategoriesToUClass`).
//!
//! The bytecode is stored token by token with compact indices, so its size
//! on disk differs from `ScriptSize`. Instead of walking the bytecode, pakrat
//! **searches** for the one offset from which the whole tail (state fields,
//! class fields, dependencies that all name classes with `Deep` 0 or 1 and
//! include the class itself, `LabelTableOffset` = 0xFFFF (classes have no
//! labels), valid names, and a tagged list ending exactly
//! at the end of the object)
//! parses. The answer is accepted only when exactly one offset fits;
//! otherwise the defaults are reported as not located.

use pakrat_io::{Error, Guid, Reader, Result};

use crate::package::{ObjRef, Package, Target};
use crate::props::{read_tagged, Property};

/// The class fields after the bytecode, and the default properties.
#[derive(Clone, Debug)]
pub struct ClassTail<'a> {
    /// File offset where the `UState` fields start (just after the bytecode).
    pub offset: u64,
    /// Class flags.
    pub class_flags: u32,
    /// Class GUID.
    pub guid: Guid,
    /// Dependencies: (class, deep, script-text CRC).
    pub dependencies: Vec<(ObjRef, u32, u32)>,
    /// Name indices of the packages the class's script imports.
    pub package_imports: Vec<u32>,
    /// `ClassWithin` (v62+).
    pub within: ObjRef,
    /// `ClassConfigName` (v62+).
    pub config_name: Option<u32>,
    /// Hidden categories (v99+).
    pub hide_categories: Vec<u32>,
    /// File offset of the default-property list.
    pub defaults_offset: u64,
    /// The default properties.
    pub defaults: Vec<Property<'a>>,
}

fn is_class(pkg: &Package<'_>, r: ObjRef) -> bool {
    match pkg.check_ref(r) {
        Ok(Target::Import(i)) => pkg.name(pkg.imports[i].class_name) == "Class",
        Ok(Target::Export(i)) => pkg.exports[i].class.is_none(),
        _ => false,
    }
}

fn name(pkg: &Package<'_>, r: &mut Reader<'_>) -> Option<u32> {
    let i = r.compact("name").ok()?;
    (i >= 0 && (i as usize) < pkg.names.len()).then_some(i as u32)
}

fn names(pkg: &Package<'_>, r: &mut Reader<'_>) -> Option<Vec<u32>> {
    let n = r.compact_count("names", 1).ok()?;
    (0..n).map(|_| name(pkg, r)).collect()
}

/// Try to read the tail at the reader's position; `None` if anything fails
/// or the tagged list does not end exactly at the end of the object.
fn try_tail<'a>(pkg: &Package<'a>, me: ObjRef, mut r: Reader<'a>) -> Option<ClassTail<'a>> {
    let v = pkg.summary.version;
    let offset = r.offset();
    r.u64("ProbeMask").ok()?;
    r.u64("IgnoreMask").ok()?;
    // A class has no label table (labels live in states): MAXWORD, as in
    // all 2805 classes located in the corpus.
    // SWAT 4's script-less classes (the SEF mod's) store 0 and no
    // dependencies at all (checked on the corpus's 26 such classes).
    let vengeance = crate::summary::vengeance_header(v, pkg.summary.licensee);
    let label = r.u16("LabelTableOffset").ok()?;
    if label != 0xFFFF && !(vengeance && label == 0) {
        return None;
    }
    r.u32("StateFlags").ok()?;
    if v < 62 {
        r.i32("class record size").ok()?;
    }
    let class_flags = r.u32("ClassFlags").ok()?;
    let guid = r.guid("ClassGuid").ok()?;
    // DNF (2001, v68/lic2, and 2011) stores no `Deep` (UELib
    // `UClass.Dependency`: "no IsDeep" for DNF; checked on the corpus).
    let no_deep = (v, pkg.summary.licensee) == (68, 2) || crate::props::is_dnf2011(pkg);
    let n = r
        .compact_count("dependencies", if no_deep { 5 } else { 9 })
        .ok()?;
    let mut dependencies = Vec::with_capacity(n);
    for _ in 0..n {
        let c = ObjRef(r.compact("dependency class").ok()?);
        let deep = if no_deep { 0 } else { r.u32("Deep").ok()? };
        let crc = r.u32("ScriptTextCRC").ok()?;
        if !is_class(pkg, c) || deep > 1 {
            return None;
        }
        dependencies.push((c, deep, crc));
    }
    // Every class lists itself among its dependencies (all 2334 classes
    // located in the corpus do): a strong check against false matches.
    let lists_itself = dependencies.iter().any(|d| d.0 == me);
    if !(lists_itself || vengeance && dependencies.is_empty()) {
        return None;
    }
    let package_imports = names(pkg, &mut r)?;
    let (mut within, mut config_name) = (ObjRef::NONE, None);
    if v >= 62 {
        within = ObjRef(r.compact("ClassWithin").ok()?);
        if !within.is_none() && !is_class(pkg, within) {
            return None;
        }
        config_name = Some(name(pkg, &mut r)?);
    }
    let hide_categories = if v >= 99 {
        names(pkg, &mut r)?
    } else {
        Vec::new()
    };
    let l = pkg.summary.licensee;
    if crate::props::is_dnf2011(pkg) {
        // DNF 2011 after HideCategories (UELib `UClass.Deserialize`, DNF
        // branch): from v137 an array of strings (tags), from v113 a UBOOL
        // and an FBitArray's length and bytes.
        if v >= 137 {
            let n = r.compact_count("DNF class tags", 1).ok()?;
            for _ in 0..n {
                r.fstring("DNF class tag").ok()?;
            }
        }
        if v >= 113 {
            r.u32("DNF class flag").ok()?;
            let n = r.i32("DNF bit array length").ok()?;
            let n = u64::try_from(n).ok()?;
            r.bytes(n, "DNF bit array").ok()?;
        }
    }
    if crate::summary::vengeance_header(v, l) {
        // SWAT 4 / Tribes: Vengeance add, by licensee (UELib `UClass.cs`,
        // Vengeance branch): two u64s, two FStrings, a name array and two
        // object arrays before the defaults.
        if l >= 2 {
            r.u64("Vengeance class field").ok()?;
        }
        if l >= 3 {
            r.u64("Vengeance class field").ok()?;
        }
        if l >= 2 {
            r.fstring("Vengeance class string").ok()?;
        }
        if l >= 6 {
            r.fstring("Vengeance class string").ok()?;
        }
        if l >= 12 {
            names(pkg, &mut r)?;
        }
        for min in [15, 20] {
            if l >= min {
                let n = r.compact_count("Vengeance class objects", 1).ok()?;
                for _ in 0..n {
                    let o = ObjRef(r.compact("Vengeance class object").ok()?);
                    pkg.check_ref(o).ok()?;
                }
            }
        }
    }
    let defaults_offset = r.offset();
    let defaults = read_tagged(pkg, &mut r, 0).ok()?;
    (r.remaining() == 0).then_some(ClassTail {
        offset,
        class_flags,
        guid,
        dependencies,
        package_imports,
        within,
        config_name,
        hide_categories,
        defaults_offset,
        defaults,
    })
}

/// Locate and read the class fields and default properties of
/// `exports[i]` (which must be a `Class`).
pub fn read_class_tail<'a>(pkg: &Package<'a>, i: usize) -> Result<ClassTail<'a>> {
    let e = *pkg.export(i)?;
    if !e.class.is_none() {
        return Err(Error::Other(format!("export {i} is not a Class")));
    }
    let data = pkg.export_data(i)?;
    let base = u64::from(e.serial_offset);
    // SuperField, Next, ScriptText, Children, FriendlyName (≥ 5 compact
    // bytes), Line, TextPos, ScriptSize (12): the tail starts after them.
    let first = 17usize;
    // The tail needs at least 22 (state) + 4 + 16 + 1 + 1 + 1 (None) bytes.
    let min_tail = 45usize;
    let mut found: Option<ClassTail<'a>> = None;
    let mut count = 0;
    let mut offsets = Vec::new();
    if data.len() >= first + min_tail {
        for p in first..=data.len() - min_tail {
            let r = Reader::with_base(&data[p..], base + p as u64);
            if let Some(t) = try_tail(pkg, ObjRef::export(i), r) {
                count += 1;
                offsets.push(t.offset);
                if found.is_none() {
                    found = Some(t);
                }
            }
        }
    }
    // Two fits happen when the script is empty (`ScriptSize` 0 just before
    // the first fit) and the defaults happen to contain a second parse: an
    // empty script means the tail starts right there, so take the first.
    if count > 1 {
        if let Some(&first) = offsets.first() {
            let at = (first - base) as usize;
            let script_size = data
                .get(at.wrapping_sub(4)..at)
                .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            if at >= 4 && script_size == Some(0) {
                count = 1;
            }
        }
    }
    match (count, found) {
        (1, Some(t)) => Ok(t),
        (0, _) => Err(Error::invalid(
            base,
            "class defaults not located: no offset after the bytecode parses as the \
             state/class fields followed by a tagged list ending the object",
        )),
        (n, _) => Err(Error::invalid(
            base,
            format!(
                "class defaults not located: {n} offsets fit ({offsets:x?}), refusing to guess"
            ),
        )),
    }
}
