//! Renaming a package path or a folder of packages in legacy UE4/UE5
//! packages (`pakrat asset rename`): the UE4/UE5 string replacer.
//!
//! [`PathRename`] maps a path that is `OLD` or lies below it (`OLD/…`,
//! `OLD.Object…`) to the same path below `NEW`, without regard to ASCII case
//! (the engine looks paths up that way). [`rename_header`] applies it to
//! everything the header of a package holds by path: the name map (which
//! imports, export outer paths, soft object paths and soft package
//! references in UE4 514+ use through their names; the number of each
//! `FName` is kept), the summary's package name, soft package references
//! stored as text, and the asset registry data kept in the package (its
//! object paths and tag values). [`find_in_export_data`] finds the old path
//! where names do not reach: strings inside the export data.

use pakrat_io::{Error, Reader, Result, Writer};
use serde::Serialize;

use crate::legacy::{LegacyPackage, NameEntry, SoftPackageRef};

/// `OLD` → `NEW`: a package path (`/Game/A/B`) or a folder prefix
/// (`/Game/A`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathRename {
    old: String,
    new: String,
}

/// Checks a long package path: `/Mount/…`, no empty component, no `.` or
/// `:` (object separators), no backslash or control character.
fn check_path(p: &str, what: &str) -> Result<()> {
    let bad = |why: &str| Err(Error::Other(format!("{what} {p:?}: {why}")));
    if !p.starts_with('/') || p.len() < 2 {
        return bad("a package path starts with / and a mount point (/Game/…)");
    }
    if p.ends_with('/') || p.contains("//") {
        return bad("a path component is empty");
    }
    if p.contains(['.', ':', '\\', '"', '\'', ' ']) || p.chars().any(char::is_control) {
        return bad("a package path holds no . : \\ quotes, spaces or control characters");
    }
    Ok(())
}

impl PathRename {
    /// A rename of `old` to `new`, both long package paths (a package or a
    /// folder). Refused: the same path, and a new path below the old one
    /// (every run would rename again).
    pub fn new(old: &str, new: &str) -> Result<PathRename> {
        check_path(old, "old path")?;
        check_path(new, "new path")?;
        if old.eq_ignore_ascii_case(new) {
            return Err(Error::Other(format!(
                "{old}: old and new path are the same"
            )));
        }
        if starts_with_path(new, old) {
            return Err(Error::Other(format!(
                "new path {new} lies below the old one {old}"
            )));
        }
        if old.matches('/').count() < 2 {
            return Err(Error::Other(format!(
                "old path {old}: a whole mount point is not renamed (give /Mount/Folder or a package)"
            )));
        }
        Ok(PathRename {
            old: old.to_string(),
            new: new.to_string(),
        })
    }

    /// The old path.
    pub fn old(&self) -> &str {
        &self.old
    }

    /// The new path.
    pub fn new_path(&self) -> &str {
        &self.new
    }

    /// `s` renamed, when it is the old path or lies below it (`OLD/…`,
    /// `OLD.…`, `OLD:…`); `None` otherwise.
    pub fn apply(&self, s: &str) -> Option<String> {
        if !starts_with_path(s, &self.old) {
            return None;
        }
        Some(format!("{}{}", self.new, &s[self.old.len()..]))
    }

    /// Every occurrence in a longer text (a tag value listing paths, a
    /// string property): the old path followed by the end of the text or a
    /// separator and preceded by the start or a non-path character.
    pub fn apply_within(&self, s: &str) -> Option<String> {
        let lower = s.to_ascii_lowercase();
        let old = self.old.to_ascii_lowercase();
        let mut out = String::with_capacity(s.len());
        let mut at = 0;
        let mut changed = false;
        while let Some(k) = lower[at..].find(&old) {
            let start = at + k;
            let end = start + old.len();
            let before_ok = start == 0
                || !s[..start]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '/');
            let after_ok = s[end..]
                .chars()
                .next()
                .is_none_or(|c| matches!(c, '/' | '.' | ':' | '\'' | '"' | ')' | ',' | ' '));
            out.push_str(&s[at..start]);
            if before_ok && after_ok {
                out.push_str(&self.new);
                changed = true;
            } else {
                out.push_str(&s[start..end]);
            }
            at = end;
        }
        out.push_str(&s[at..]);
        changed.then_some(out)
    }
}

/// `s` is `base` or lies below it (ASCII case ignored).
fn starts_with_path(s: &str, base: &str) -> bool {
    s.len() >= base.len()
        && s.is_char_boundary(base.len())
        && s[..base.len()].eq_ignore_ascii_case(base)
        && matches!(
            s.as_bytes().get(base.len()),
            None | Some(b'/' | b'.' | b':')
        )
}

/// One change made to a package.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// What changed: `name 12`, `package name`, `soft package reference 0`,
    /// `asset registry object 0`, `asset registry tag 0 PrimaryAssetName`.
    pub field: String,
    /// The text before.
    pub old: String,
    /// The text after.
    pub new: String,
}

/// A package with the rename applied.
#[derive(Clone, Debug)]
pub struct Renamed {
    /// The new header.
    pub package: LegacyPackage,
    /// What changed, in header order.
    pub changes: Vec<Change>,
}

impl Renamed {
    /// Whether the package's own name changed (its files move).
    pub fn moves(&self) -> bool {
        self.changes.iter().any(|c| c.field == "package name")
    }
}

/// Apply `r` to a package header. The export data is not touched: names
/// are shared with it through their indices, which stay.
pub fn rename_header(pkg: &LegacyPackage, r: &PathRename) -> Result<Renamed> {
    let mut p = pkg.clone();
    let mut changes = Vec::new();
    for (i, n) in p.names.iter_mut().enumerate() {
        if let Some(t) = r.apply(&n.text) {
            changes.push(Change {
                field: format!("name {i}"),
                old: n.text.clone(),
                new: t.clone(),
            });
            let fresh = NameEntry::new(&t);
            // Keep the width the cooker chose when the text still fits it.
            let wide = n.wide || fresh.wide;
            *n = NameEntry {
                hashes: n.hashes.map(|_| crate::legacy::name_hashes(&t, wide)),
                text: t,
                wide,
            };
        }
    }
    if let Some(t) = r.apply(&p.summary.package_name) {
        changes.push(Change {
            field: "package name".into(),
            old: p.summary.package_name.clone(),
            new: t.clone(),
        });
        p.summary.package_name = t;
    }
    for (i, s) in p.soft_package_references.iter_mut().enumerate() {
        if let SoftPackageRef::Text(t) = s {
            if let Some(n) = r.apply(t) {
                changes.push(Change {
                    field: format!("soft package reference {i}"),
                    old: t.clone(),
                    new: n.clone(),
                });
                *t = n;
            }
        }
    }
    if let Some(ar) = rename_registry(&p.asset_registry_data, r, &mut changes)? {
        p.asset_registry_data = ar;
    }
    Ok(Renamed {
        package: p,
        changes,
    })
}

/// The asset registry data kept in a package: `ObjectCount`, then per
/// object its path, class name and `(key, value)` tags, all `FString`s.
/// Cooked packages keep an empty list; a section that does not parse in
/// that form but holds the old path is an error (it would keep naming it).
fn rename_registry(
    data: &[u8],
    r: &PathRename,
    changes: &mut Vec<Change>,
) -> Result<Option<Vec<u8>>> {
    if data.len() <= 4 {
        return Ok(None);
    }
    let parsed = parse_registry(data);
    let Ok(objects) = parsed else {
        if contains_ignore_case(data, r.old.as_bytes()) {
            return Err(Error::Other(format!(
                "the asset registry data names {} but is not in the form pakrat rewrites",
                r.old
            )));
        }
        return Ok(None);
    };
    let mut w = Writer::new();
    w.i32(objects.len() as i32);
    let mut any = false;
    for (i, (path, class, tags)) in objects.iter().enumerate() {
        let mut put = |w: &mut Writer, field: String, s: &str, whole: bool| {
            let n = if whole { r.apply(s) } else { r.apply_within(s) };
            if let Some(n) = &n {
                changes.push(Change {
                    field,
                    old: s.to_string(),
                    new: n.clone(),
                });
                any = true;
            }
            pakrat_codec::fstring::write_fstring(w, n.as_deref().unwrap_or(s));
        };
        put(&mut w, format!("asset registry object {i}"), path, true);
        pakrat_codec::fstring::write_fstring(&mut w, class);
        w.i32(tags.len() as i32);
        for (k, v) in tags {
            pakrat_codec::fstring::write_fstring(&mut w, k);
            put(&mut w, format!("asset registry tag {i} {k}"), v, false);
        }
    }
    Ok(any.then(|| w.into_inner()))
}

type RegistryObject = (String, String, Vec<(String, String)>);

fn parse_registry(data: &[u8]) -> Result<Vec<RegistryObject>> {
    let mut rd = Reader::new(data);
    let n = rd.i32_count("asset registry objects", 12)?;
    let mut out = Vec::with_capacity(n);
    let s = |rd: &mut Reader<'_>, what: &str| pakrat_codec::fstring::read_fstring(rd, what);
    for _ in 0..n {
        let path = s(&mut rd, "asset registry object path")?;
        let class = s(&mut rd, "asset registry class")?;
        let k = rd.i32_count("asset registry tags", 8)?;
        let mut tags = Vec::with_capacity(k);
        for _ in 0..k {
            tags.push((s(&mut rd, "tag key")?, s(&mut rd, "tag value")?));
        }
        out.push((path, class, tags));
    }
    if rd.remaining() != 0 {
        return Err(rd.invalid("bytes after the asset registry objects"));
    }
    Ok(out)
}

fn contains_ignore_case(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty()
        && hay
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
}

/// Offsets in `data` (export data) where the old path is stored as 8-bit or
/// UTF-16 text: strings the name map does not hold (string properties, soft
/// object paths in their old string form), which [`rename_header`] leaves.
pub fn find_in_export_data(data: &[u8], r: &PathRename) -> Vec<usize> {
    let narrow = r.old.as_bytes().to_vec();
    let wide: Vec<u8> = r.old.bytes().flat_map(|b| [b, 0]).collect();
    let mut out = Vec::new();
    for needle in [narrow, wide] {
        let n = needle.len();
        let mut i = 0;
        while i + n <= data.len() {
            if data[i..i + n].eq_ignore_ascii_case(&needle) {
                out.push(i);
                i += n;
            } else {
                i += 1;
            }
        }
    }
    out.sort_unstable();
    out
}

/// A package's files with the rename applied.
#[derive(Clone, Debug)]
pub struct RenamedFiles {
    /// The new `.uasset`/`.umap`.
    pub main: Vec<u8>,
    /// The new `.uexp`, when export data changed.
    pub uexp: Option<Vec<u8>>,
    /// Bulk files that changed, by extension (see
    /// [`crate::edit::EditedPackage::bulk`]).
    pub bulk: Vec<(String, Vec<u8>)>,
    /// The package name before and after.
    pub package: (String, String),
    /// What changed: header fields, then export properties.
    pub changes: Vec<Change>,
}

impl RenamedFiles {
    /// Whether the package itself was renamed (its files move).
    pub fn moves(&self) -> bool {
        self.package.0 != self.package.1
    }
}

/// Rename in one legacy package: strings inside its export properties
/// that hold the old path (string properties, soft object paths) through
/// the property writer ([`crate::edit::write_edited`]), then the header
/// ([`rename_header`], written by `LegacyPackage::to_bytes`). `None` when
/// the package does not name the old path. Refused: an old path left in
/// export data that is not a decoded property (a native tail), an export
/// that does not decode fully, a header pakrat does not write.
pub fn rename_package(
    main: &[u8],
    uexp: Option<&[u8]>,
    engine: Option<crate::legacy::Layout>,
    schemas: &dyn crate::props::Schemas,
    r: &PathRename,
) -> Result<Option<RenamedFiles>> {
    let export_data = |m: &'_ [u8], u: Option<&'_ [u8]>, pkg: &LegacyPackage| -> Vec<usize> {
        let ths = usize::try_from(pkg.summary.total_header_size).unwrap_or(0);
        find_in_export_data(u.unwrap_or(&m[ths.min(m.len())..]), r)
    };
    let pkg = LegacyPackage::read(main, engine)?;
    let mut changes = Vec::new();
    let mut edited: Option<crate::edit::EditedPackage> = None;
    if !export_data(main, uexp, &pkg).is_empty() {
        let opened = crate::props::open::open_legacy_bytes(
            &pkg.summary.package_name,
            main.to_vec(),
            uexp.map(<[u8]>::to_vec),
            engine,
        )?;
        let asset = opened.asset();
        let mut edits = Vec::new();
        for i in 0..asset.exports.len() {
            let (mut props, _) = crate::props::decode_export_for_write(&asset, i, schemas);
            let before = changes.len();
            for p in &mut props.properties {
                let field = format!("export {i} {}", p.name);
                rename_value(&mut p.value, r, &field, &mut changes);
            }
            if changes.len() > before {
                edits.push(crate::edit::ExportEdit { export: i, props });
            }
        }
        if !edits.is_empty() {
            let out = crate::edit::write_edited(&opened, schemas, &edits)
                .map_err(|e| Error::Other(format!("export properties not rewritten: {e}")))?;
            edited = Some(out);
        }
    }
    let (main2, uexp2): (&[u8], Option<&[u8]>) = match &edited {
        Some(e) => (&e.main, e.uexp.as_deref().or(uexp)),
        None => (main, uexp),
    };
    let pkg2 = if edited.is_some() {
        LegacyPackage::read(main2, engine)?
    } else {
        pkg.clone()
    };
    let renamed = rename_header(&pkg2, r)?;
    let header = if renamed.changes.is_empty() {
        main2[..usize::try_from(pkg2.summary.total_header_size).unwrap_or(0)].to_vec()
    } else {
        renamed.package.to_bytes()?
    };
    let mut new_main = header;
    let ths2 = usize::try_from(pkg2.summary.total_header_size).unwrap_or(0);
    if uexp2.is_none() {
        new_main.extend_from_slice(&main2[ths2.min(main2.len())..]);
    }
    let left = export_data(&new_main, uexp2, &renamed.package);
    if !left.is_empty() {
        return Err(Error::Other(format!(
            "its export data holds {} as text outside the properties pakrat decodes \
             ({} place(s), the first at byte {:#x} of the export data): not rewritten",
            r.old,
            left.len(),
            left[0]
        )));
    }
    let mut all = renamed.changes;
    all.extend(changes);
    if all.is_empty() {
        return Ok(None);
    }
    Ok(Some(RenamedFiles {
        main: new_main,
        uexp: edited.as_ref().and_then(|e| e.uexp.clone()),
        bulk: edited.map(|e| e.bulk).unwrap_or_default(),
        package: (
            pkg.summary.package_name.clone(),
            renamed.package.summary.package_name.clone(),
        ),
        changes: all,
    }))
}

/// Rename the paths a property value holds as text: strings (every
/// occurrence) and soft object paths. Names and object references go
/// through the name map, which [`rename_header`] renames.
fn rename_value(v: &mut crate::props::Value, r: &PathRename, field: &str, out: &mut Vec<Change>) {
    use crate::props::Value as V;
    let mut note = |old: &str, new: &str| {
        out.push(Change {
            field: field.to_string(),
            old: old.to_string(),
            new: new.to_string(),
        })
    };
    match v {
        V::Str(s) => {
            if let Some(n) = r.apply_within(s) {
                note(s, &n);
                *s = n;
            }
        }
        V::SoftObject { path, .. } => {
            if let Some(n) = r.apply(path) {
                note(path, &n);
                *path = n;
            }
        }
        V::Struct(ps) => {
            for p in ps {
                rename_value(&mut p.value, r, &format!("{field}.{}", p.name), out);
            }
        }
        V::Array(xs) | V::Set(xs) | V::Multicast(xs) => {
            for (k, x) in xs.iter_mut().enumerate() {
                rename_value(x, r, &format!("{field}[{k}]"), out);
            }
        }
        V::Map(es) => {
            for (k, (a, b)) in es.iter_mut().enumerate() {
                rename_value(a, r, &format!("{field}[{k}].key"), out);
                rename_value(b, r, &format!("{field}[{k}].value"), out);
            }
        }
        V::Optional(Some(x)) => rename_value(x, r, field, out),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_below_and_not() {
        let r = PathRename::new("/Game/Fixtures/Textures", "/Game/ModTextures").unwrap();
        assert_eq!(
            r.apply("/Game/Fixtures/Textures/T_BC1").as_deref(),
            Some("/Game/ModTextures/T_BC1")
        );
        assert_eq!(
            r.apply("/game/fixtures/textures/T.T").as_deref(),
            Some("/Game/ModTextures/T.T")
        );
        assert_eq!(
            r.apply("/Game/Fixtures/Textures").as_deref(),
            Some("/Game/ModTextures")
        );
        assert_eq!(r.apply("/Game/Fixtures/TexturesOld/T"), None);
        assert_eq!(r.apply("/Game/Fixtures"), None);
        assert_eq!(
            r.apply_within("(\"/Game/Fixtures/Textures/A.A\",/Game/Fixtures/TexturesX/B)")
                .as_deref(),
            Some("(\"/Game/ModTextures/A.A\",/Game/Fixtures/TexturesX/B)")
        );
        assert!(PathRename::new("/Game/A", "/Game/A/B").is_err());
        assert!(PathRename::new("/Game", "/Mod").is_err());
        assert!(PathRename::new("/Game/A.B", "/Game/C").is_err());
        assert!(PathRename::new("/Game/A/", "/Game/C").is_err());
    }

    #[test]
    fn registry_round_trip() {
        let mut w = Writer::new();
        w.i32(1);
        for s in ["/Game/A/B.B", "DataAsset"] {
            pakrat_codec::fstring::write_fstring(&mut w, s);
        }
        w.i32(1);
        for s in ["Ref", "/Game/A/C.C"] {
            pakrat_codec::fstring::write_fstring(&mut w, s);
        }
        let data = w.into_inner();
        let r = PathRename::new("/Game/A", "/Game/Z").unwrap();
        let mut ch = Vec::new();
        let out = rename_registry(&data, &r, &mut ch).unwrap().unwrap();
        let objs = parse_registry(&out).unwrap();
        assert_eq!(objs[0].0, "/Game/Z/B.B");
        assert_eq!(objs[0].2[0].1, "/Game/Z/C.C");
        assert_eq!(ch.len(), 2);
        assert!(rename_registry(&[0, 0, 0, 0], &r, &mut ch)
            .unwrap()
            .is_none());
    }

    #[test]
    fn export_strings_found() {
        let r = PathRename::new("/Game/A", "/Game/Z").unwrap();
        let mut d = b"xx/game/a/B\0".to_vec();
        d.extend("/Game/A.A".encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(find_in_export_data(&d, &r), vec![2, 12]);
    }
}
