//! Exporters: textures → PNG, sounds → their stored file, music → the
//! tracker module, script text → `Classes/<Class>.uc` (`classic.md` §3.8–3.10).
//!
//! Every file is written through [`pakrat_io::fsutil::OutputDir`] (safe
//! relative names, atomic, no overwrite without `force`). Objects whose class
//! has no exporter, and objects that hold nothing to export by design
//! (server-stripped, procedural), are reported as skipped with the reason.

use pakrat_io::fsutil::OutputDir;
use pakrat_io::{Error, Reader, Result};
use rayon::prelude::*;
use serde::Serialize;

use crate::package::Package;
use crate::props::read_object;
use crate::texture::{self, decode_mip, FormatTable, Mip};

/// Exporter kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Kind {
    /// Texture → PNG.
    Texture,
    /// Sound → stored file.
    Sound,
    /// Music → tracker module.
    Music,
    /// TextBuffer → `.uc`.
    TextBuffer,
    /// Vertex mesh → glTF, through the [`MeshHook`] of
    /// [`ExportOptions::mesh`] (the `pakrat-mesh` crate).
    Mesh,
    /// UE2 material object (Shader, Combiner, FinalBlend, ...) → a JSON
    /// description ([`crate::material`]).
    Material,
}

impl Kind {
    /// Parse a `--class` value (case-insensitive).
    pub fn parse(s: &str) -> Option<Kind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "texture" | "textures" => Some(Kind::Texture),
            "sound" | "sounds" => Some(Kind::Sound),
            "music" => Some(Kind::Music),
            "textbuffer" | "script" | "scripttext" => Some(Kind::TextBuffer),
            "mesh" | "meshes" | "lodmesh" | "staticmesh" | "skeletalmesh" | "vertmesh"
            | "meshanimation" | "animation" => Some(Kind::Mesh),
            "material" | "materials" | "shader" | "combiner" | "finalblend" => Some(Kind::Material),
            _ => None,
        }
    }
}

/// UE1/UE2 texture classes whose data starts with `UTexture`'s mips.
const TEXTURE_CLASSES: &[&str] = &[
    "Texture",
    "FireTexture",
    "WaterTexture",
    "WaveTexture",
    "WetTexture",
    "IceTexture",
    "FractalTexture",
    "ScriptedTexture",
];

/// Mesh classes exported through [`MeshHook`].
const MESH_CLASSES: &[&str] = &[
    "Mesh",
    "LodMesh",
    "StaticMesh",
    "SkeletalMesh",
    "VertMesh",
    "MeshAnimation",
];

/// A mesh exporter: builds the files of mesh `exports[i]` (paths and
/// descriptions only when `dry`), or says why there is nothing to export.
/// Lives outside this crate (`pakrat-mesh`), which depends on it.
pub type MeshHook = fn(&Package<'_>, usize, &ExportOptions, bool) -> Result<Produced>;

/// The exporter for a class name, if any.
pub fn kind_of_class(class: &str) -> Option<Kind> {
    if TEXTURE_CLASSES
        .iter()
        .any(|c| c.eq_ignore_ascii_case(class))
    {
        Some(Kind::Texture)
    } else if class.eq_ignore_ascii_case("Sound") {
        Some(Kind::Sound)
    } else if class.eq_ignore_ascii_case("Music") {
        Some(Kind::Music)
    } else if class.eq_ignore_ascii_case("TextBuffer") {
        Some(Kind::TextBuffer)
    } else if MESH_CLASSES.iter().any(|c| c.eq_ignore_ascii_case(class)) {
        Some(Kind::Mesh)
    } else if crate::material::is_material_class(class) {
        Some(Kind::Material)
    } else {
        None
    }
}

/// Options for [`export_objects`].
#[derive(Clone, Debug, Default)]
pub struct ExportOptions {
    /// Only these kinds (empty = all).
    pub kinds: Vec<Kind>,
    /// Textures: every mip, not only the first.
    pub all_mips: bool,
    /// Meshes: the exporter (None: meshes have no exporter, as without
    /// `pakrat-mesh`).
    pub mesh: Option<MeshHook>,
    /// Meshes: `.gltf` + `.bin` instead of `.glb`.
    pub mesh_gltf: bool,
    /// Meshes: ActorX `.psk` (meshes) and `.psa` (animations) instead of
    /// glTF.
    pub mesh_psk: bool,
    /// Skeletal meshes: every LOD, not only LOD 0.
    pub mesh_all_lods: bool,
    /// UE1 vertex meshes: the editor's import pair `Name_d.3d` +
    /// `Name_a.3d` (with the `#exec` lines in `Name.uc`) instead of glTF.
    pub mesh_3d: bool,
    /// Classes: decompile each class's bytecode into `Classes/<Class>.uc`
    /// with these natives (the package's own and those of the packages
    /// beside it); kept script text then goes to
    /// `KeptSource/Classes/<Class>.uc`.
    pub decompile: Option<std::sync::Arc<crate::script::natives::NativeTable>>,
    /// The package's name (its file name without the extension, as the
    /// engine names a package), for full object paths in JSON output
    /// (materials); empty when unknown.
    pub package: String,
}

/// One file written.
#[derive(Clone, Debug, Serialize)]
pub struct Written {
    /// Path relative to the output folder.
    pub path: String,
    /// Bytes written.
    pub size: u64,
    /// What it is (`PNG 256x256 from DXT1 (UE2 numbering)`, `RIFF WAVE`, ...).
    pub detail: String,
}

/// What happened to one export.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Outcome {
    /// Files were written.
    Exported {
        /// The files.
        files: Vec<Written>,
    },
    /// Not exported, and nothing is wrong: no exporter for the class,
    /// filtered out by `--class`, or content the file does not hold
    /// (server-stripped data, a procedural texture drawn at run time).
    Skipped {
        /// Which kind of skip.
        cause: SkipCause,
        /// Why, in words.
        reason: String,
    },
    /// The exporter failed.
    Failed {
        /// The error.
        error: String,
    },
}

/// Why an object was skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipCause {
    /// pakrat has no exporter for the class.
    NoExporter,
    /// The class was left out by `--class`.
    Filtered,
    /// The object holds nothing to export, by design: a server-stripped
    /// copy, a procedural texture, a P8 texture whose palette lives in
    /// another package.
    Content,
}

/// What [`export_files`] made of one export.
#[derive(Clone, Debug)]
pub enum Made {
    /// No exporter for the class.
    NoExporter,
    /// The class is not among [`ExportOptions::kinds`].
    Filtered,
    /// Nothing to export, by design (see [`SkipCause::Content`]); why.
    Nothing(Kind, String),
    /// The files to write.
    Files(Kind, Vec<OutFile>),
}

/// The result for one export.
#[derive(Clone, Debug, Serialize)]
pub struct ObjectReport {
    /// Export index.
    pub index: usize,
    /// Dotted path.
    pub object: String,
    /// Class name.
    pub class: String,
    /// Outcome.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// A file to write: relative path, bytes, description.
pub type OutFile = (String, Vec<u8>, String);

/// Make an object name safe as one path component (control characters,
/// separators and reserved characters become `_`).
pub fn safe_component(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_control() || "/\\:*?\"<>|".contains(c) {
                '_'
            } else {
                c
            }
        })
        .collect();
    let s = s.trim().to_string();
    if s.is_empty() || s == "." || s == ".." {
        "_".into()
    } else {
        s.chars().take(200).collect()
    }
}

/// `Group/Sub/Name` for an export path `Group.Sub.Name`.
fn rel_path(pkg: &Package<'_>, i: usize) -> Result<String> {
    let p = pkg.export_path(i)?;
    Ok(p.split('.')
        .map(safe_component)
        .collect::<Vec<_>>()
        .join("/"))
}

/// Build the files for `exports[i]` (no writing).
pub fn export_files(pkg: &Package<'_>, i: usize, opts: &ExportOptions) -> Result<Made> {
    build(pkg, i, opts, false)
}

/// The relative paths [`export_objects`] would write for these exports (all
/// when `only` is empty), found without decoding pixels or copying data, so
/// that existing files can be refused before anything is written.
pub fn export_paths(pkg: &Package<'_>, only: &[usize], opts: &ExportOptions) -> Vec<String> {
    let idx: Vec<usize> = if only.is_empty() {
        (0..pkg.exports.len()).collect()
    } else {
        only.to_vec()
    };
    idx.par_iter()
        .flat_map_iter(|&i| match build(pkg, i, opts, true) {
            Ok(Made::Files(_, files)) => files.into_iter().map(|f| f.0).collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// [`export_files`]; with `dry`, the files carry their paths and
/// descriptions but no bytes.
fn build(pkg: &Package<'_>, i: usize, opts: &ExportOptions, dry: bool) -> Result<Made> {
    let e = pkg.export(i)?;
    // A class export named None with no data is a placeholder, not a class.
    let is_class = e.class.is_none()
        && e.serial_size > 0
        && !pkg.name(e.object_name).eq_ignore_ascii_case("None");
    if let (Some(natives), true) = (&opts.decompile, is_class) {
        if !opts.kinds.is_empty() && !opts.kinds.contains(&Kind::TextBuffer) {
            return Ok(Made::Filtered);
        }
        if let Err(why) = pkg.summary.object_layout() {
            return Ok(Made::Nothing(Kind::TextBuffer, why));
        }
        let name = safe_component(pkg.name(pkg.export(i)?.object_name));
        let path = format!("Classes/{name}.uc");
        if dry {
            return Ok(Made::Files(
                Kind::TextBuffer,
                vec![(path, Vec::new(), String::new())],
            ));
        }
        let text = crate::script::decompile_class(pkg, &opts.package, i, natives.as_ref())?;
        let detail = format!("decompiled from bytecode, {} lines", text.lines().count());
        return Ok(Made::Files(
            Kind::TextBuffer,
            vec![(path, text.into_bytes(), detail)],
        ));
    }
    let class = pkg.export_class_name(i)?;
    let Some(kind) = kind_of_class(class) else {
        return Ok(Made::NoExporter);
    };
    // Meshes have an exporter only when the caller links one in.
    if kind == Kind::Mesh && opts.mesh.is_none() {
        return Ok(Made::NoExporter);
    }
    if !opts.kinds.is_empty() && !opts.kinds.contains(&kind) {
        return Ok(Made::Filtered);
    }
    if let Err(why) = pkg.summary.object_layout() {
        return Ok(Made::Nothing(kind, why));
    }
    let made = match kind {
        Kind::Texture => texture_files(pkg, i, opts.all_mips, dry)?,
        Kind::Sound => sound_file(pkg, i, dry)?,
        Kind::Music => music_file(pkg, i, dry)?,
        Kind::TextBuffer => text_file(pkg, i, opts.decompile.is_some(), dry)?,
        Kind::Mesh => match opts.mesh {
            Some(hook) => hook(pkg, i, opts, dry)?,
            None => return Ok(Made::NoExporter),
        },
        Kind::Material => material_file(pkg, i, &opts.package, dry)?,
    };
    Ok(match made {
        Ok(files) => Made::Files(kind, files),
        Err(why) => Made::Nothing(kind, why),
    })
}

/// An exporter's result: the files, or why there is nothing to export.
pub type Produced = std::result::Result<Vec<OutFile>, String>;

fn texture_files(pkg: &Package<'_>, i: usize, all_mips: bool, dry: bool) -> Result<Produced> {
    let t = texture::read_texture(pkg, i)?;
    let base = rel_path(pkg, i)?;
    let palette = match texture::palette_export(pkg, t.palette) {
        Some(p) => Some(texture::read_palette(pkg, p)?),
        None => None,
    };
    let mut out = Vec::new();
    // `Ok(Some(why))`: nothing to export, by design.
    let mut one = |mips: &[Mip<'_>], format: u8, suffix: &str| -> Result<Option<String>> {
        let table = FormatTable::for_package(pkg, format);
        let pf = table.get(format).ok_or_else(|| {
            Error::Other(format!(
                "texture format {format} is not defined in the {} table",
                table.name
            ))
        })?;
        if pf == texture::PixelFormat::P8 && palette.is_none() {
            // UE1 WetTexture/WaterTexture often borrow the palette of a
            // texture in another package (genfluid.utx).
            return Ok(Some(format!(
                "P8 texture whose palette ({}) lives in another package",
                pkg.object_path(t.palette).unwrap_or_default()
            )));
        }
        let count = if all_mips {
            mips.len()
        } else {
            mips.len().min(1)
        };
        if count == 0 {
            return Ok(Some(
                "stripped: the texture has no mipmaps (a server-side copy without pixels)".into(),
            ));
        }
        if mips[0].data.is_empty() {
            let class = pkg.export_class_name(i).unwrap_or("Texture");
            return Ok(Some(if class.eq_ignore_ascii_case("Texture") {
                "stripped: mip 0 holds no pixels".to_string()
            } else {
                format!("procedural {class}: the engine draws its pixels at run time")
            }));
        }
        for (m, mip) in mips.iter().take(count).enumerate() {
            let name = if all_mips {
                format!("{base}{suffix}_mip{m}.png")
            } else {
                format!("{base}{suffix}.png")
            };
            if dry {
                out.push((name, Vec::new(), String::new()));
                continue;
            }
            let img = decode_mip(
                mip,
                pf,
                palette.as_deref(),
                t.masked,
                t.alpha && pkg.summary.version >= 100,
            )
            .map_err(|e| Error::Other(format!("mip {m}: {e}")))?;
            let detail = format!(
                "PNG {}x{} from format {format} = {pf:?} ({}){}",
                img.width,
                img.height,
                table.name,
                if t.masked { ", masked" } else { "" }
            );
            out.push((name, img.to_png()?, detail));
        }
        Ok(None)
    };
    if let Some(why) = one(&t.mips, t.format, "")? {
        return Ok(Err(why));
    }
    if let Some((cf, cm)) = &t.comp {
        if !cm.is_empty() {
            if let Some(why) = one(cm, *cf, "_comp")? {
                return Ok(Err(why));
            }
        }
    }
    Ok(Ok(out))
}

/// Name the type of sound data by its magic and pick an extension.
pub fn sound_type(data: &[u8], stored: &str) -> (&'static str, &'static str) {
    if data.starts_with(b"RIFF") && data.get(8..12) == Some(b"WAVE") {
        ("wav", "RIFF WAVE")
    } else if data.starts_with(b"OggS") {
        ("ogg", "Ogg")
    } else if data.starts_with(b"ID3")
        || data.first() == Some(&0xFF) && data.get(1).is_some_and(|b| b & 0xE0 == 0xE0)
    {
        ("mp3", "MPEG audio")
    } else if data.starts_with(b"FORM") {
        ("aiff", "AIFF")
    } else if stored.eq_ignore_ascii_case("wav") {
        ("wav", "unrecognised data stored as WAV")
    } else {
        ("bin", "unrecognised sound data")
    }
}

/// Read a sound or music object's `Name Format` and stored bytes. UT2003/
/// UT2004 builds (licensee ≥ 2, UEViewer `USound`) put a float between
/// them; the lazy array's end offset confirms which layout the file uses.
pub fn read_stored_file<'a>(
    pkg: &Package<'a>,
    i: usize,
    is_sound: bool,
) -> Result<(String, &'a [u8])> {
    let o = read_object(pkg, i)?;
    let mut r = o.native;
    let at = r.offset();
    let fmt_idx = r.compact("stored format name")?;
    if fmt_idx < 0 || fmt_idx as usize >= pkg.names.len() {
        return Err(Error::invalid(
            at,
            format!("format name index {fmt_idx} is outside the name table"),
        ));
    }
    let fmt = pkg.name(fmt_idx as u32).to_string();
    let v = pkg.summary.version;
    let float_first = is_sound && v >= 100 && pkg.summary.licensee >= 2;
    let try_read = |mut r: Reader<'a>, with_float: bool| -> Result<&'a [u8]> {
        if with_float {
            r.f32("sound duration")?;
        }
        texture::read_lazy_bytes(&mut r, v, "stored data")
    };
    let data = match try_read(r.clone(), float_first) {
        Ok(d) => d,
        Err(e) if is_sound && v >= 100 => try_read(r.clone(), !float_first).map_err(|_| e)?,
        Err(e) => return Err(e),
    };
    Ok((fmt, data))
}

fn sound_file(pkg: &Package<'_>, i: usize, dry: bool) -> Result<Produced> {
    let (fmt, data) = read_stored_file(pkg, i, true)?;
    if data.is_empty() {
        return Ok(Err("stripped: the sound holds no data".into()));
    }
    let (ext, what) = sound_type(data, &fmt);
    Ok(Ok(vec![(
        format!("{}.{ext}", rel_path(pkg, i)?),
        if dry { Vec::new() } else { data.to_vec() },
        format!("{what} (stored format {fmt:?})"),
    )]))
}

/// Pick a tracker module's extension from its magic (UMR): `IMPM` at 0 →
/// `it`, `SCRM` at 44 → `s3m`, `Extended Module` at 0 → `xm`, a MOD
/// signature at 1080 → `mod`, `MZ` → `dll` (a smuggled executable), else `umx`.
pub fn music_type(data: &[u8]) -> (&'static str, &'static str) {
    if data.starts_with(b"IMPM") {
        ("it", "Impulse Tracker")
    } else if data.get(44..48) == Some(b"SCRM") {
        ("s3m", "Scream Tracker 3")
    } else if data.starts_with(b"Extended Module") {
        ("xm", "FastTracker 2")
    } else if data.get(1080..1084).is_some_and(|s| {
        [
            b"M.K.", b"M!K!", b"FLT4", b"FLT8", b"4CHN", b"6CHN", b"8CHN", b"CD81", b"OKTA",
        ]
        .iter()
        .any(|m| s == *m)
            || (s[2..] == *b"CH" && s[..2].iter().all(u8::is_ascii_digit))
    }) {
        ("mod", "ProTracker module")
    } else if data.starts_with(b"MZ") {
        // ACE anti-cheat ships its client DLL inside Music objects.
        ("dll", "Windows executable (MZ), not a tracker module")
    } else {
        ("umx", "unrecognised module")
    }
}

fn music_file(pkg: &Package<'_>, i: usize, dry: bool) -> Result<Produced> {
    let (fmt, data) = read_stored_file(pkg, i, false)?;
    if data.is_empty() {
        return Ok(Err("stripped: the music holds no module data".into()));
    }
    let (ext, what) = music_type(data);
    let note = if ext != "umx" && !fmt.eq_ignore_ascii_case(ext) {
        format!("{what}; stored format {fmt:?} is wrong, chosen by magic")
    } else {
        format!("{what} (stored format {fmt:?})")
    };
    Ok(Ok(vec![(
        format!("{}.{ext}", rel_path(pkg, i)?),
        if dry { Vec::new() } else { data.to_vec() },
        note,
    )]))
}

/// Read a TextBuffer: `(Pos, Top, Text)`.
pub fn read_text_buffer(pkg: &Package<'_>, i: usize) -> Result<(i32, i32, pakrat_io::FString)> {
    let o = read_object(pkg, i)?;
    let mut r = o.native;
    let pos = r.i32("TextBuffer Pos")?;
    let top = r.i32("TextBuffer Top")?;
    let text = r.fstring("TextBuffer Text")?;
    Ok((pos, top, text))
}

fn material_file(pkg: &Package<'_>, i: usize, package: &str, dry: bool) -> Result<Produced> {
    let path = format!("{}.material.json", rel_path(pkg, i)?);
    if dry {
        return Ok(Ok(vec![(path, Vec::new(), String::new())]));
    }
    let j = crate::material::material_json(pkg, package, i)?;
    let detail = format!(
        "material JSON: {} references, base colour {}",
        j["references"].as_array().map_or(0, Vec::len),
        j["base_color"].as_str().unwrap_or("none")
    );
    let mut bytes = serde_json::to_vec_pretty(&j).map_err(|e| Error::Other(e.to_string()))?;
    bytes.push(b'\n');
    Ok(Ok(vec![(path, bytes, detail)]))
}

fn text_file(pkg: &Package<'_>, i: usize, decompiling: bool, dry: bool) -> Result<Produced> {
    let e = pkg.export(i)?;
    if e.serial_size == 0 {
        return Ok(Err("stripped: the text buffer holds no data".into()));
    }
    let name = pkg.name(e.object_name);
    let outer = pkg.object_name(e.outer).unwrap_or("None");
    let path = if name.eq_ignore_ascii_case("ScriptText") && !e.outer.is_none() {
        // With `--decompile` the decompiled class takes `Classes/`.
        let dir = if decompiling {
            "KeptSource/Classes"
        } else {
            "Classes"
        };
        format!("{dir}/{}.uc", safe_component(outer))
    } else {
        format!("TextBuffers/{}.txt", rel_path(pkg, i)?)
    };
    if dry {
        return Ok(Ok(vec![(path, Vec::new(), String::new())]));
    }
    let (_, _, text) = read_text_buffer(pkg, i)?;
    let bytes = if text.wide {
        text.text.clone().into_bytes()
    } else {
        pakrat_io::FString::to_latin1(&text.text).unwrap_or_else(|| text.text.clone().into_bytes())
    };
    Ok(Ok(vec![(
        path,
        bytes,
        format!("{} characters of text", text.text.chars().count()),
    )]))
}

/// Export the chosen exports (all when `only` is empty) into `out`, in
/// parallel. Never stops at the first failure: each object gets an outcome.
pub fn export_objects(
    pkg: &Package<'_>,
    only: &[usize],
    out: &OutputDir,
    opts: &ExportOptions,
) -> Vec<ObjectReport> {
    export_objects_with(pkg, only, out, opts, &|| {})
}

/// [`export_objects`], calling `done` once per object as it finishes (for
/// a progress bar).
pub fn export_objects_with(
    pkg: &Package<'_>,
    only: &[usize],
    out: &OutputDir,
    opts: &ExportOptions,
    done: &(dyn Fn() + Sync),
) -> Vec<ObjectReport> {
    let idx: Vec<usize> = if only.is_empty() {
        (0..pkg.exports.len()).collect()
    } else {
        only.to_vec()
    };
    // Build files in parallel; write them in parallel too (distinct names).
    idx.par_iter()
        .map(|&i| {
            let object = pkg.export_path(i).unwrap_or_else(|e| format!("<{e}>"));
            let class = pkg.export_class_name(i).unwrap_or("?").to_string();
            let outcome = match export_files(pkg, i, opts) {
                Ok(Made::NoExporter) => Outcome::Skipped {
                    cause: SkipCause::NoExporter,
                    reason: format!("no exporter for class {class}"),
                },
                Ok(Made::Filtered) => Outcome::Skipped {
                    cause: SkipCause::Filtered,
                    reason: "filtered out by --class".into(),
                },
                Ok(Made::Nothing(_, reason)) => Outcome::Skipped {
                    cause: SkipCause::Content,
                    reason,
                },
                Ok(Made::Files(_, files)) => {
                    let mut written = Vec::new();
                    let mut err = None;
                    for (path, bytes, detail) in files {
                        match out.write(&path, &bytes) {
                            Ok(_) => written.push(Written {
                                path,
                                size: bytes.len() as u64,
                                detail,
                            }),
                            Err(e) => {
                                err = Some(e.to_string());
                                break;
                            }
                        }
                    }
                    match err {
                        Some(error) => Outcome::Failed { error },
                        None => Outcome::Exported { files: written },
                    }
                }
                Err(e) => Outcome::Failed {
                    error: e.to_string(),
                },
            };
            done();
            ObjectReport {
                index: i,
                object,
                class,
                outcome,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn music_magic() {
        assert_eq!(music_type(b"IMPMxxxx").0, "it");
        let mut s3m = vec![0u8; 48];
        s3m[44..48].copy_from_slice(b"SCRM");
        assert_eq!(music_type(&s3m).0, "s3m");
        assert_eq!(music_type(b"Extended Module: x").0, "xm");
        let mut m = vec![0u8; 1084];
        m[1080..1084].copy_from_slice(b"M.K.");
        assert_eq!(music_type(&m).0, "mod");
        m[1080..1084].copy_from_slice(b"12CH");
        assert_eq!(music_type(&m).0, "mod");
        assert_eq!(music_type(b"junk").0, "umx");
    }

    #[test]
    fn names_are_made_safe() {
        assert_eq!(safe_component("a/b\\c:d"), "a_b_c_d");
        assert_eq!(safe_component("\u{10}\u{5}"), "__");
        assert_eq!(safe_component(".."), "_");
        assert_eq!(safe_component("  "), "_");
        assert_eq!(sound_type(b"RIFF\0\0\0\0WAVEfmt ", "WAV").0, "wav");
    }
}
