//! `System\Manifest.ini` and `System\Manifest.int`: what a UMOD installs.
//!
//! Keys and semantics follow UT432 `Setup/Inc/Setup.h` and
//! `Setup/Src/USetupDefinition.cpp` (`classic.md` §2.10). Real manifests carry
//! stale `Size=` values and empty fields; they are accepted and reported as
//! warnings, never as errors.

use std::collections::{HashMap, HashSet};

use pakrat_io::{Error, Result};
use serde::Serialize;

use crate::archive::{fold, Problem, ProblemKind, Umod};
use pakrat_io::ini::{Ini, Section, MAX_INI_LINES, MAX_INI_SIZE};

/// Member name of the setup definition.
pub const MANIFEST_INI: &str = "System\\Manifest.ini";
/// Member name of its English localisation.
pub const MANIFEST_INT: &str = "System\\Manifest.int";

/// The ini reader's caps, applied to a manifest member before it is parsed
/// (a manifest of nothing but line ends once cost 80 times its size).
fn check_caps(data: &[u8], name: &str, offset: u32) -> Result<()> {
    if data.len() as u64 > MAX_INI_SIZE {
        return Err(Error::invalid(
            u64::from(offset),
            format!(
                "{name} of at most {MAX_INI_SIZE} bytes (an ini file), found {} bytes",
                data.len()
            ),
        ));
    }
    // Line ends as the ini reader splits them (\r\n, \n, lone \r).
    let lines = data
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && data.get(i + 1) != Some(&b'\n')))
        .count();
    if lines > MAX_INI_LINES {
        return Err(Error::invalid(
            u64::from(offset),
            format!("{name} of at most {MAX_INI_LINES} lines, found {lines}"),
        ));
    }
    Ok(())
}

/// `File=` (installed) or `Copy=` (setup-only, bootstrap) record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordKind {
    /// `File=`: copied into the game by Setup.
    File,
    /// `Copy=`: setup files (the manifest itself), not installed.
    Copy,
}

/// One `File=(…)` / `Copy=(…)` record (`FFileInfo`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileRecord {
    /// `File` or `Copy`.
    pub kind: RecordKind,
    /// Group section it appears in.
    pub group: String,
    /// `Src=`: archive member, game-root relative.
    pub src: String,
    /// `Dest=`: install path, game-root relative (defaults to `Src`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dest: Option<String>,
    /// `Master=`: path on the developer's machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub master: Option<String>,
    /// `Ref=`: the old file a delta member patches.
    #[serde(skip_serializing_if = "Option::is_none", rename = "ref")]
    pub reference: Option<String>,
    /// `RefSize=`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ref_size: Option<u64>,
    /// `Size=` (informational; may be stale).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// `Lang=`: only installed for this language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// `Flags=`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<u32>,
    /// The value as written.
    pub raw: String,
}

impl FileRecord {
    /// Where Setup installs it (relative to the game root).
    pub fn install_dest(&self) -> &str {
        match &self.dest {
            Some(d) if !d.is_empty() => d,
            _ => &self.src,
        }
    }

    /// The archive member name for `Src` (a leading `..\` is stripped, as
    /// `ToArcFilename` does).
    pub fn member_name(&self) -> &str {
        self.src
            .strip_prefix("..\\")
            .or_else(|| self.src.strip_prefix("../"))
            .unwrap_or(&self.src)
    }

    /// True when Setup decodes the member while installing (`.uz` source
    /// installed under a name that is not `.uz`; UT432 `ProcessCopy`).
    pub fn decodes_uz(&self) -> bool {
        ends_with_ci(&self.src, ".uz") && !ends_with_ci(self.install_dest(), ".uz")
    }

    fn parse(
        kind: RecordKind,
        group: &str,
        value: &str,
        warn: &mut Vec<String>,
    ) -> Option<FileRecord> {
        let mut inner = value.trim();
        inner = inner.strip_prefix('(').unwrap_or(inner);
        inner = inner.strip_suffix(')').unwrap_or(inner);
        let mut rec = FileRecord {
            kind,
            group: group.to_string(),
            src: String::new(),
            dest: None,
            master: None,
            reference: None,
            ref_size: None,
            size: None,
            lang: None,
            flags: None,
            raw: value.to_string(),
        };
        let key_name = match kind {
            RecordKind::File => "File",
            RecordKind::Copy => "Copy",
        };
        for part in split_fields(inner) {
            let Some((k, v)) = part.split_once('=') else {
                if !part.trim().is_empty() {
                    warn.push(format!(
                        "[{group}] {key_name}={value}: ignoring {part:?} (no '=')"
                    ));
                }
                continue;
            };
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
                .unwrap_or(v);
            let mut num = |field: &str| -> Option<u64> {
                if v.is_empty() {
                    warn.push(format!("[{group}] {key_name}={value}: empty {field}="));
                    return None;
                }
                match v.parse::<u64>() {
                    Ok(n) => Some(n),
                    Err(_) => {
                        warn.push(format!(
                            "[{group}] {key_name}={value}: {field}={v:?} is not a number"
                        ));
                        None
                    }
                }
            };
            match k.trim().to_ascii_lowercase().as_str() {
                "src" => rec.src = v.to_string(),
                "dest" => rec.dest = Some(v.to_string()),
                "master" => rec.master = Some(v.to_string()),
                "ref" => rec.reference = Some(v.to_string()).filter(|s| !s.is_empty()),
                "refsize" => rec.ref_size = num("RefSize"),
                "size" => rec.size = num("Size"),
                "lang" => rec.lang = Some(v.to_string()).filter(|s| !s.is_empty()),
                "flags" => rec.flags = num("Flags").and_then(|n| u32::try_from(n).ok()),
                "masterrecurse" | "compressed" | "compsize" | "optional" => {}
                other => warn.push(format!(
                    "[{group}] {key_name}={value}: unknown field {other:?}"
                )),
            }
        }
        if rec.src.is_empty() {
            warn.push(format!(
                "[{group}] {key_name}={value}: no Src=, record ignored"
            ));
            return None;
        }
        Some(rec)
    }
}

fn ends_with_ci(s: &str, suffix: &str) -> bool {
    s.len() >= suffix.len()
        && s.is_char_boundary(s.len() - suffix.len())
        && s[s.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
}

/// Split `a=1,b="x,y"` on commas outside double quotes.
fn split_fields(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut quoted = false;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// A requirement section named by `Requires=` (`USetupProduct`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Requirement {
    /// The section name.
    pub section: String,
    /// `Product=`: the product that must be installed.
    pub product: Option<String>,
    /// `Version=`: minimum version (may be empty: any version).
    pub version: Option<String>,
    /// `OldVersionInstallCheck=`: a file whose presence means "installed".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_version_install_check: Option<String>,
    /// `OldVersionNumber=`: the version assumed when that file exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_version_number: Option<String>,
    /// `LocalProduct=` from Manifest.int.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_product: Option<String>,
    /// Other keys (`DLLCheck`, `UCheck`, URLs...), kept as written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other: Vec<(String, String)>,
}

/// A group section (`USetupGroup`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Group {
    /// Section name.
    pub name: String,
    /// Parent group, for subgroups.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// `File=` and `Copy=` records, in order.
    pub files: Vec<FileRecord>,
    /// `Ini=` / `AddIni=` / other edits, as `(key, value)` in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other: Vec<(String, String)>,
}

/// A parsed setup definition.
#[derive(Clone, Debug, Serialize)]
pub struct Manifest {
    /// `[Setup] Product=`.
    pub product: Option<String>,
    /// `[Setup] Version=`.
    pub version: Option<String>,
    /// `[Setup] Archive=`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archive: Option<String>,
    /// Requirements, in `Requires=` order.
    pub requirements: Vec<Requirement>,
    /// Groups reachable from `[Setup] Group=`, depth first.
    pub groups: Vec<Group>,
    /// Manifest.int `[Setup]` keys (LocalProduct, Developer, URLs, ReadMe…).
    pub localized: Vec<(String, String)>,
    /// Tolerated oddities (empty values, unknown fields, missing sections).
    pub warnings: Vec<String>,
}

impl Manifest {
    /// Parse from Manifest.ini (and Manifest.int, if present) bytes.
    ///
    /// No size limit here: [`Manifest::from_umod`] applies the ini reader's
    /// caps ([`MAX_INI_SIZE`], [`MAX_INI_LINES`]) first. Work is linear in
    /// the input: sections are looked up through one index.
    pub fn parse(ini: &[u8], int: Option<&[u8]>) -> Manifest {
        let ini = Ini::parse(ini);
        let int = int.map(Ini::parse);
        // First section of each name (case-insensitive), as Ini::section.
        let mut index: HashMap<String, &Section> = HashMap::new();
        for s in &ini.sections {
            index.entry(s.name.to_ascii_lowercase()).or_insert(s);
        }
        let section = |n: &str| index.get(&n.to_ascii_lowercase()).copied();
        let mut warnings = Vec::new();
        let setup = section("Setup");
        if setup.is_none() {
            warnings.push("Manifest.ini has no [Setup] section".into());
        }
        let get = |k: &str| setup.and_then(|s| s.get(k)).map(str::to_string);
        let product = get("Product");
        let version = get("Version");
        match product.as_deref() {
            None | Some("") => warnings.push("[Setup] has no Product=".into()),
            _ => {}
        }
        match version.as_deref() {
            None => warnings.push("[Setup] has no Version=".into()),
            Some(v) if v.trim().parse::<i64>().is_err() => warnings.push(format!(
                "[Setup] Version={v:?} is not a number (the engine's Setup refuses it)"
            )),
            _ => {}
        }
        let mut requirements = Vec::new();
        for sec in setup.into_iter().flat_map(|s| s.get_all("Requires")) {
            let Some(s) = section(sec) else {
                warnings.push(format!("Requires={sec} but there is no [{sec}] section"));
                continue;
            };
            let version = s.get("Version").map(str::to_string);
            if version.as_deref() == Some("") {
                warnings.push(format!(
                    "[{sec}] Version= is empty: any installed version is accepted"
                ));
            }
            let known = [
                "product",
                "version",
                "oldversioninstallcheck",
                "oldversionnumber",
            ];
            requirements.push(Requirement {
                section: sec.to_string(),
                product: s.get("Product").map(str::to_string),
                version,
                old_version_install_check: s
                    .get("OldVersionInstallCheck")
                    .filter(|v| !v.is_empty())
                    .map(str::to_string),
                old_version_number: s.get("OldVersionNumber").map(str::to_string),
                local_product: int
                    .as_ref()
                    .and_then(|i| i.get(sec, "LocalProduct"))
                    .map(str::to_string),
                other: s
                    .entries()
                    .filter(|(k, _)| !known.contains(&k.to_ascii_lowercase().as_str()))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            });
        }
        // Groups, depth first; bounded by the visited set (cycles are reported).
        let mut groups = Vec::new();
        let mut visited = HashSet::new();
        let mut stack: Vec<(String, Option<String>)> = setup
            .into_iter()
            .flat_map(|s| s.get_all("Group"))
            .map(|g| (g.to_string(), None))
            .collect();
        stack.reverse();
        while let Some((name, parent)) = stack.pop() {
            if !visited.insert(name.to_ascii_lowercase()) {
                warnings.push(format!("group [{name}] is listed more than once"));
                continue;
            }
            let Some(sec) = section(&name) else {
                warnings.push(format!("Group={name} but there is no [{name}] section"));
                continue;
            };
            let mut g = Group {
                name: name.clone(),
                parent,
                files: Vec::new(),
                other: Vec::new(),
            };
            let mut subs = Vec::new();
            for (k, v) in sec.entries() {
                match k.to_ascii_lowercase().as_str() {
                    "file" => {
                        g.files
                            .extend(FileRecord::parse(RecordKind::File, &name, v, &mut warnings))
                    }
                    "copy" => {
                        g.files
                            .extend(FileRecord::parse(RecordKind::Copy, &name, v, &mut warnings))
                    }
                    "group" => subs.push(v.to_string()),
                    _ => g.other.push((k.to_string(), v.to_string())),
                }
            }
            groups.push(g);
            for s in subs.into_iter().rev() {
                stack.push((s, Some(name.clone())));
            }
        }
        let localized = int
            .as_ref()
            .and_then(|i| i.section("Setup"))
            .map(|s| {
                s.entries()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            })
            .unwrap_or_default();
        Manifest {
            product,
            version,
            archive: get("Archive"),
            requirements,
            groups,
            localized,
            warnings,
        }
    }

    /// Read the manifest members of a UMOD; `None` if it has no Manifest.ini.
    pub fn from_umod(umod: &Umod<'_>) -> Result<Option<Manifest>> {
        let Some(ini) = umod.find(MANIFEST_INI) else {
            return Ok(None);
        };
        let ini_bytes = umod.entry_data(ini)?;
        check_caps(ini_bytes, MANIFEST_INI, ini.offset)?;
        let int = match umod.find(MANIFEST_INT) {
            Some(e) => {
                let b = umod.entry_data(e)?;
                check_caps(b, MANIFEST_INT, e.offset)?;
                Some(b)
            }
            None => None,
        };
        Ok(Some(Manifest::parse(ini_bytes, int)))
    }

    /// A Manifest.int `[Setup]` value (case-insensitive key).
    pub fn local(&self, key: &str) -> Option<&str> {
        self.localized
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    /// The product name shown to people (`LocalProduct`, else `Product`).
    pub fn display_name(&self) -> Option<&str> {
        self.local("LocalProduct")
            .filter(|s| !s.is_empty())
            .or(self.product.as_deref())
    }

    /// Every record of every group, in install order.
    pub fn records(&self) -> impl Iterator<Item = &FileRecord> {
        self.groups.iter().flat_map(|g| g.files.iter())
    }

    /// The first record naming each member, indexed once (linear in the
    /// records): [`MemberIndex::get`] looks a member up in constant time.
    pub fn member_index(&self) -> MemberIndex<'_> {
        let mut map = HashMap::new();
        for r in self.records() {
            map.entry(member_key(r.member_name())).or_insert(r);
        }
        MemberIndex { map }
    }

    /// Compare the manifest with the archive's directory.
    pub fn check_against(&self, umod: &Umod<'_>) -> Vec<Problem> {
        let mut out: Vec<Problem> = self
            .warnings
            .iter()
            .map(|w| Problem::warning(ProblemKind::Manifest, None, format!("manifest: {w}")))
            .collect();
        for rec in self.records() {
            let kind = match rec.kind {
                RecordKind::File => "File",
                RecordKind::Copy => "Copy",
            };
            let Some(e) = umod.find(rec.member_name()) else {
                out.push(Problem::error(
                    ProblemKind::Manifest,
                    None,
                    format!(
                        "manifest: [{}] {kind}= names {:?} but the archive has no such member",
                        rec.group, rec.src
                    ),
                ));
                continue;
            };
            if let Some(size) = rec.size {
                if size != u64::from(e.size) {
                    let why = if fold(&rec.src) == fold(MANIFEST_INI) {
                        " (a stale self-size, as ucc master writes it: harmless)"
                    } else {
                        " (Setup uses it only for progress)"
                    };
                    out.push(Problem::warning(
                        ProblemKind::Manifest,
                        Some(e.record_offset),
                        format!(
                            "manifest: [{}] {kind}= says Size={size} for {:?}, the member has {} bytes{why}",
                            rec.group, rec.src, e.size
                        ),
                    ));
                }
            }
            if let Some(flags) = rec.flags {
                if flags != e.flags {
                    out.push(Problem::warning(
                        ProblemKind::Manifest,
                        Some(e.record_offset),
                        format!(
                            "manifest: [{}] {kind}= says Flags={flags} for {:?}, the directory has {}",
                            rec.group, rec.src, e.flags
                        ),
                    ));
                }
            }
            if rec.reference.is_some() {
                out.push(Problem::warning(
                    ProblemKind::Manifest,
                    Some(e.record_offset),
                    format!(
                        "manifest: {:?} is a delta patch of {:?}; pakrat installs it only after checking the reference",
                        rec.src,
                        rec.reference.as_deref().unwrap_or("")
                    ),
                ));
            }
        }
        out
    }
}

/// Records by member name: see [`Manifest::member_index`].
#[derive(Debug)]
pub struct MemberIndex<'m> {
    map: HashMap<String, &'m FileRecord>,
}

impl<'m> MemberIndex<'m> {
    /// The first record whose `Src` names `member` (`/` and `\` alike,
    /// case ignored), if any.
    pub fn get(&self, member: &str) -> Option<&'m FileRecord> {
        self.map.get(&member_key(member)).copied()
    }
}

fn member_key(name: &str) -> String {
    name.replace('/', "\\").to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_tolerance() {
        let ini = b"[Setup]\r\nProduct=X\r\nVersion=\r\nRequires=Req\r\nGroup=G\r\nGroup=Missing\r\n\r\n\
[Req]\r\nProduct=UnrealTournament\r\nVersion=\r\n\r\n\
[G]\r\nCopy=(Src=System\\Manifest.ini,Master=System\\Manifest.ini,Size=1,Flags=3)\r\n\
File=(Src=\"Maps\\A B.unr\",Dest=Maps\\AB.unr,Size=,Lang=det)\r\nFile=Src=System\\X.u\r\nGroup=Sub\r\nGroup=G\r\n\r\n\
[Sub]\r\nFile=(Src=Textures\\T.utx,Size=12abc)\r\nAddIni=UnrealTournament.ini,Engine.GameEngine.ServerPackages=X\r\n";
        let m = Manifest::parse(ini, None);
        assert_eq!(m.product.as_deref(), Some("X"));
        assert_eq!(m.version.as_deref(), Some(""));
        assert_eq!(m.requirements[0].version.as_deref(), Some(""));
        assert_eq!(
            m.groups.iter().map(|g| g.name.as_str()).collect::<Vec<_>>(),
            ["G", "Sub"]
        );
        let recs: Vec<_> = m.records().collect();
        assert_eq!(recs.len(), 4);
        assert_eq!(recs[0].kind, RecordKind::Copy);
        assert_eq!(recs[0].flags, Some(3));
        assert_eq!(recs[1].src, "Maps\\A B.unr");
        assert_eq!(recs[1].install_dest(), "Maps\\AB.unr");
        assert_eq!(recs[1].lang.as_deref(), Some("det"));
        assert_eq!(recs[1].size, None);
        assert_eq!(recs[2].src, "System\\X.u");
        assert_eq!(recs[3].size, None);
        assert_eq!(m.groups[1].other[0].0, "AddIni");
        let w = m.warnings.join("\n");
        for needle in [
            "Version=\"\" is not a number",
            "[Req] Version= is empty",
            "empty Size=",
            "Size=\"12abc\" is not a number",
            "no [Missing] section",
            "listed more than once",
        ] {
            assert!(w.contains(needle), "missing {needle:?} in\n{w}");
        }
    }
}
