//! `pakrat export` for UE4/UE5 inputs: loose `.uasset`/`.umap` packages,
//! `.pak` files, IoStore containers (`.utoc`), or a folder of any of them.
//! Every texture export of the packages chosen (GLOBs over package paths,
//! `--class`) is written below OUT at its package path
//! (`Game/Textures/T_Wood.png`; `T_Wood.<Object>.png` for an object not
//! named as its package), decoded to PNG or EXR, or undecoded to DDS; every
//! SoundWave's audio likewise (`.wav` for PCM and ADPCM, the codec's own
//! stream for the others: docs/sounds.md); every StaticMesh, SkeletalMesh
//! and Skeleton as glTF, AnimSequences skipped with their codec
//! (docs/meshes.md).
//!
//! Packages are exported in parallel (rayon), one package at a time per
//! thread: a package's bytes, its bulk files and one decoded image at a
//! time are all a thread holds.

mod material;
mod mesh;
mod sound;
mod texture;
mod vt;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Result};
use pakrat_asset::legacy::Layout;
use pakrat_asset::props::open::{self, BulkFrom};
use pakrat_asset::props::{
    schemas_with_package, ContainerSource, Containers, NoSchemas, Opened, Schemas,
};
use pakrat_asset::zen::{ContainerPackages, ScriptObjects};
use pakrat_io::fsutil::OutputDir;
use pakrat_iostore::Container;
use pakrat_pak::Pak;
use serde::Serialize;

use crate::args::ExportArgs;
use crate::cmd::common::{engine, exit_code, in_file, keyring, par_map};
use crate::detect::Format;
use texture::{Options, Outcome, Written};

/// Whether `export` takes `path` as UE4/UE5 input: a pak, container or
/// legacy package, or a folder holding one (and no UE1/UE2 package route).
pub fn takes(path: &Path) -> bool {
    if path.is_dir() {
        return pakrat_system::scan::list_files(path).is_ok_and(|files| {
            files
                .iter()
                .any(|f| matches!(ext(f).as_str(), "utoc" | "pak" | "uasset" | "umap"))
        });
    }
    matches!(
        crate::sniff(path),
        Ok(Format::IoStoreToc | Format::IoStoreCas | Format::Pak | Format::LegacyPackage)
    )
}

fn ext(p: &Path) -> String {
    p.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Where the packages come from.
struct Inputs {
    loose: Vec<PathBuf>,
    /// One group of paks (mount order).
    paks: Vec<Pak>,
    /// Containers with their packages and script objects.
    containers: Vec<(Container, ContainerPackages, Option<ScriptObjects>)>,
    /// Paks and containers from this index on are `--with` inputs: looked
    /// in, not exported.
    with_paks: usize,
    /// See `with_paks`.
    with_containers: usize,
}

/// One package to look at.
#[derive(Clone, Copy)]
enum Job {
    Loose(usize),
    Pak(usize, usize),
    Zen(usize, usize),
}

/// One object's line in the report.
#[derive(Debug, Serialize)]
struct Row {
    package: String,
    object: String,
    class: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pixel_format: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    audio_format: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    written: Vec<Written>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// A mesh's material slots and the textures they show.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    materials: Vec<material::MaterialUse>,
}

fn open_inputs(a: &ExportArgs) -> Result<Inputs> {
    let keys = keyring(&a.ue.keys)?;
    let mut files = if a.package.is_dir() {
        pakrat_system::scan::list_files(&a.package).map_err(|e| in_file(e, &a.package))?
    } else {
        vec![a.package.clone()]
    };
    // Patch containers (`…_P.utoc`) after the others: their packages win
    // where a mesh's materials are looked up.
    files.sort_by_key(|f| {
        f.file_stem()
            .is_some_and(|s| s.to_string_lossy().to_ascii_uppercase().ends_with("_P"))
    });
    let mut inputs = Inputs {
        loose: Vec::new(),
        paks: Vec::new(),
        containers: Vec::new(),
        with_paks: usize::MAX,
        with_containers: usize::MAX,
    };
    let mut pak_paths = Vec::new();
    for f in files {
        let format = if a.package.is_dir() {
            match ext(&f).as_str() {
                "utoc" if f.file_name().is_none_or(|n| n != "global.utoc") => Format::IoStoreToc,
                "pak" => Format::Pak,
                "uasset" | "umap" => Format::LegacyPackage,
                _ => continue,
            }
        } else {
            crate::sniff(&f)?
        };
        match format {
            Format::IoStoreToc | Format::IoStoreCas => {
                let toc = crate::detect::utoc_for_ucas(&f).unwrap_or(f.clone());
                let c = Container::open(&toc, &keys).map_err(|e| in_file(e, &toc))?;
                let cp = ContainerPackages::read(&c).map_err(|e| in_file(e, &toc))?;
                let (script, _notes) =
                    crate::cmd::common::global_script(&toc, a.ue.global.as_deref(), &a.ue.keys)?;
                inputs.containers.push((c, cp, script));
            }
            Format::Pak => pak_paths.push(f),
            Format::LegacyPackage => inputs.loose.push(f),
            other => bail!(
                "{}: is {}, not a UE4/UE5 package, pak or container",
                f.display(),
                other.kind()
            ),
        }
    }
    pakrat_pak::mount_order(&mut pak_paths);
    for p in &pak_paths {
        inputs
            .paks
            .push(Pak::open(p, &keys).map_err(|e| in_file(e, p))?);
    }
    inputs.with_paks = inputs.paks.len();
    inputs.with_containers = inputs.containers.len();
    for f in &a.with {
        match crate::sniff(f)? {
            Format::IoStoreToc | Format::IoStoreCas => {
                let toc = crate::detect::utoc_for_ucas(f).unwrap_or(f.clone());
                let c = Container::open(&toc, &keys).map_err(|e| in_file(e, &toc))?;
                let cp = ContainerPackages::read(&c).map_err(|e| in_file(e, &toc))?;
                let (script, _notes) =
                    crate::cmd::common::global_script(&toc, a.ue.global.as_deref(), &a.ue.keys)?;
                inputs.containers.push((c, cp, script));
            }
            Format::Pak => inputs
                .paks
                .push(Pak::open(f, &keys).map_err(|e| in_file(e, f))?),
            other => bail!(
                "--with {}: is {}, not a .utoc container or .pak",
                f.display(),
                other.kind()
            ),
        }
    }
    Ok(inputs)
}

/// The packages the globs choose, with their package paths.
fn jobs(inputs: &Inputs, a: &ExportArgs) -> Result<Vec<(Job, String)>> {
    let globs = crate::cmd::common::globset(&a.objects)?;
    let keep = |names: &[&str]| match &globs {
        None => true,
        Some(g) => names
            .iter()
            .any(|n| g.is_match(n) || g.is_match(n.trim_start_matches('/'))),
    };
    Ok(packages(inputs, a, keep)
        .into_iter()
        .filter(|(job, _)| match *job {
            Job::Pak(p, _) => p < inputs.with_paks,
            Job::Zen(c, _) => c < inputs.with_containers,
            Job::Loose(_) => true,
        })
        .collect())
}

/// The packages `keep` keeps (given the names a glob may match), with
/// their package paths: loose files, then paks, then containers, each in
/// mount order.
fn packages(inputs: &Inputs, a: &ExportArgs, keep: impl Fn(&[&str]) -> bool) -> Vec<(Job, String)> {
    let mut out = Vec::new();
    for (i, f) in inputs.loose.iter().enumerate() {
        let shown = f.display().to_string();
        // Below a folder: its path there, and the package path that stands
        // for (`Project/Content/A/B.uasset` → `/Game/A/B`).
        let rel = f
            .strip_prefix(&a.package)
            .ok()
            .filter(|r| !r.as_os_str().is_empty())
            .map_or_else(|| shown.clone(), |r| r.to_string_lossy().replace('\\', "/"));
        let pkg = open::package_path_of_file(&rel).unwrap_or_else(|| rel.clone());
        if keep(&[&pkg, &rel, &shown]) {
            out.push((Job::Loose(i), pkg));
        }
    }
    for (pi, pak) in inputs.paks.iter().enumerate() {
        let mount = &pak.index.mount_point;
        for (ei, e) in pak.index.entries.iter().enumerate() {
            if e.deleted() || !open::is_package_header(&e.path) {
                continue;
            }
            let full = format!("{mount}{}", e.path);
            let pkg = open::package_path_of_file(&full).unwrap_or_else(|| e.path.clone());
            if keep(&[&pkg, &e.path, full.trim_start_matches("../")]) {
                out.push((Job::Pak(pi, ei), pkg));
            }
        }
    }
    for (ci, (_, cp, _)) in inputs.containers.iter().enumerate() {
        for (ei, e) in cp.packages.iter().enumerate() {
            let name = e.header.as_ref().map(|h| h.name.clone()).ok();
            let file = e.path.clone().unwrap_or_default();
            let pkg = name.clone().unwrap_or_else(|| file.clone());
            if keep(&[&pkg, &file]) {
                out.push((Job::Zen(ci, ei), pkg));
            }
        }
    }
    out
}

/// Whether `class` (short name) is chosen by `--class`.
fn class_chosen(class: &str, wanted: &[String]) -> bool {
    wanted.is_empty()
        || wanted.iter().any(|w| {
            w.eq_ignore_ascii_case(class)
                || (w.eq_ignore_ascii_case("Texture")
                    && pakrat_asset::texture::is_texture_class(class))
                || (w.eq_ignore_ascii_case("Sound") && pakrat_asset::sound::is_sound_class(class))
                || (w.eq_ignore_ascii_case("Mesh") && pakrat_mesh::ue5::is_mesh_class(class))
        })
}

/// The file name base of object `object` of package `package`.
fn base_name(package: &str, object: &str) -> String {
    let pkg = package.trim_start_matches('/');
    let short = pkg.rsplit('/').next().unwrap_or(pkg);
    let safe = |s: &str| pakrat_classic::export::safe_component(s);
    let mut parts: Vec<String> = pkg.split('/').filter(|p| !p.is_empty()).map(safe).collect();
    if parts.is_empty() {
        return safe(object);
    }
    if object != short {
        if let Some(last) = parts.last_mut() {
            *last = format!("{last}.{}", safe(object));
        }
    }
    parts.join("/")
}

struct Ctx<'a> {
    inputs: &'a Inputs,
    engine: Option<Layout>,
    mappings: &'a dyn Schemas,
    out: &'a OutputDir,
    opts: Options,
    class: &'a [String],
    mesh: mesh::MeshOpts,
    /// Every package of the inputs (a mesh's materials and textures).
    index: material::PackageIndex,
    /// With several containers: all of them, resolving a zen package's
    /// imports of another container's packages.
    zen_src: Option<Containers<'a>>,
}

fn open_job<'a>(c: &Ctx<'a>, job: Job) -> pakrat_io::Result<(Opened, BulkFrom<'a>)> {
    Ok(match job {
        Job::Loose(i) => (
            open::open_loose(&c.inputs.loose[i], c.engine)?,
            BulkFrom::Loose,
        ),
        Job::Pak(p, e) => (
            open::open_pak_entry(&c.inputs.paks, p, e, c.engine)?,
            BulkFrom::Paks(&c.inputs.paks),
        ),
        Job::Zen(ci, ei) => {
            let (cont, cp, script) = &c.inputs.containers[ci];
            let e = &cp.packages[ei];
            let opened = match &c.zen_src {
                Some(src) => open::open_container_entry_in(cont, cp, src, e, c.engine)?,
                None => open::open_container_entry(cont, cp, script.as_ref(), e, c.engine)?,
            };
            (opened, BulkFrom::Container(cont))
        }
    })
}

/// The callback of [`mesh::Lookup`].
type LookupFn<'f> = dyn FnMut(
        &pakrat_asset::props::Asset<'_>,
        usize,
        &dyn Schemas,
        &pakrat_mesh::ue5::BulkFetch<'_>,
    ) -> std::result::Result<(), String>
    + 'f;

/// The package at package path `pkg` among the inputs (a container entry
/// or pak entry; loose packages: a file of the same folder).
fn find_job(inputs: &Inputs, pkg: &str) -> Option<Job> {
    for (ci, (_, cp, _)) in inputs.containers.iter().enumerate() {
        for (ei, e) in cp.packages.iter().enumerate() {
            if e.header
                .as_ref()
                .is_ok_and(|h| h.name.eq_ignore_ascii_case(pkg))
            {
                return Some(Job::Zen(ci, ei));
            }
        }
    }
    for (pi, pak) in inputs.paks.iter().enumerate() {
        let mount = &pak.index.mount_point;
        for (ei, e) in pak.index.entries.iter().enumerate() {
            if e.deleted() || !open::is_package_header(&e.path) {
                continue;
            }
            let full = format!("{mount}{}", e.path);
            if open::package_path_of_file(&full).is_some_and(|p| p.eq_ignore_ascii_case(pkg)) {
                return Some(Job::Pak(pi, ei));
            }
        }
    }
    let leaf = pkg.rsplit('/').next().unwrap_or(pkg);
    inputs
        .loose
        .iter()
        .position(|f| f.file_stem().is_some_and(|s| s.eq_ignore_ascii_case(leaf)))
        .map(Job::Loose)
}

/// Run `f` on object `path` (`/Game/A/B.B`) of the inputs.
fn lookup(c: &Ctx<'_>, path: &str, f: &mut LookupFn<'_>) -> std::result::Result<(), String> {
    let pkg = path.split(['.', ':']).next().unwrap_or(path);
    let job = find_job(c.inputs, pkg).ok_or_else(|| format!("{pkg} is not among the inputs"))?;
    let (opened, from) = open_job(c, job).map_err(|e| format!("{pkg}: {e}"))?;
    let asset = opened.asset();
    let i = asset
        .exports
        .iter()
        .position(|e| e.path.eq_ignore_ascii_case(path))
        .ok_or_else(|| format!("{pkg} has no object {path}"))?;
    let with = schemas_with_package(&asset, c.mappings);
    let fetch = |b: &pakrat_asset::bulk::BulkRef| opened.bulk(b, from).map(|x| x.into_owned());
    f(&asset, i, &with, &fetch)
}

/// Export every chosen texture and sound of one package.
fn export_package(c: &Ctx<'_>, job: Job, package: &str) -> Vec<Row> {
    let (opened, from) = match open_job(c, job) {
        Ok(x) => x,
        Err(e) => {
            return vec![Row {
                package: package.to_string(),
                object: String::new(),
                class: String::new(),
                pixel_format: None,
                audio_format: None,
                written: Vec::new(),
                skipped: None,
                error: Some(format!("the package does not open: {e}")),
                materials: Vec::new(),
            }]
        }
    };
    let asset = opened.asset();
    let with = schemas_with_package(&asset, c.mappings);
    let mut rows = Vec::new();
    for (i, e) in asset.exports.iter().enumerate() {
        let class = e.class_name();
        let texture = pakrat_asset::texture::is_texture_class(class);
        let sound = pakrat_asset::sound::is_sound_class(class);
        let mesh = pakrat_mesh::ue5::is_mesh_class(class);
        if !(texture || sound || mesh) || !class_chosen(class, c.class) {
            continue;
        }
        let mut row = Row {
            package: asset.package.clone(),
            object: e.path.clone(),
            class: class.to_string(),
            pixel_format: None,
            audio_format: None,
            written: Vec::new(),
            skipped: None,
            error: None,
            materials: Vec::new(),
        };
        let base = base_name(&asset.package, &e.name);
        let outcome = if mesh {
            let lookup = |path: &str, f: &mut LookupFn<'_>| lookup(c, path, f);
            mesh::export(
                c,
                &opened,
                from,
                &asset,
                i,
                &with,
                &base,
                &mut row.materials,
                &lookup,
            )
        } else if texture {
            match pakrat_asset::texture::read_export(&asset, i, &with) {
                Err(err) => Outcome::Failed(err.to_string()),
                Ok(t) => {
                    row.pixel_format = Some(t.format.clone());
                    texture::export(&opened, from, &t, &base, c.out, c.opts)
                }
            }
        } else {
            match pakrat_asset::sound::read_export(&asset, i, &with) {
                Err(err) => Outcome::Failed(err.to_string()),
                Ok(w) => {
                    row.audio_format = Some(w.format.clone());
                    sound::export(&opened, from, &w, &base, c.out)
                }
            }
        };
        match outcome {
            Outcome::Written(w) => row.written = w,
            Outcome::Skipped(s) => row.skipped = Some(s),
            Outcome::Failed(s) => row.error = Some(format!("{}: {s}", opened.origin)),
        }
        rows.push(row);
    }
    rows
}

/// `pakrat export` of UE4/UE5 inputs.
pub fn run(a: &ExportArgs) -> Result<ExitCode> {
    if a.mips {
        bail!("--mips is for UE1/UE2 packages; UE4/UE5: --mip N picks one, --format dds keeps all");
    }
    crate::output::set_kind(if a.package.is_dir() {
        "folder"
    } else {
        crate::sniff(&a.package).map_or("package", |f| f.kind())
    });
    let inputs = open_inputs(a)?;
    let jobs = jobs(&inputs, a)?;
    if jobs.is_empty() {
        return Err(crate::cmd::common::nothing_matches(
            &a.package, "package", &a.objects,
        ));
    }
    let usmap = match &a.ue.usmap {
        Some(p) => Some(pakrat_asset::usmap::Usmap::open(p).map_err(|e| in_file(e, p))?),
        None => None,
    };
    let mappings: &dyn Schemas = match &usmap {
        Some(u) => u,
        None => &NoSchemas,
    };
    if a.mesh_format == Some(crate::args_export::MeshFormat::Unreal3d) {
        anyhow::bail!(
            "--mesh-format 3d is the UE1 editor's vertex-mesh pair (_d.3d/_a.3d); UE4/UE5 meshes export as glb, gltf or psk"
        );
    }
    let out = OutputDir::create(&a.output, a.force).map_err(|e| in_file(e, &a.output))?;
    let ctx = Ctx {
        inputs: &inputs,
        engine: engine(a.ue.ue_version.as_deref())?,
        mappings,
        out: &out,
        opts: Options {
            format: a.format,
            mip: a.mip.unwrap_or(0),
            layout: a.layout,
        },
        class: &a.class,
        mesh: mesh::MeshOpts {
            format: if a.mesh_format == Some(crate::args_export::MeshFormat::Gltf) {
                pakrat_mesh::gltf::Format::Gltf
            } else {
                pakrat_mesh::gltf::Format::Glb
            },
            psk: a.mesh_format == Some(crate::args_export::MeshFormat::Psk),
            lod: a.lod.unwrap_or(0),
            all_lods: a.all_lods,
        },
        index: material::index(&{
            // The `--with` inputs first: the exported ones win over them.
            let (main, with): (Vec<_>, Vec<_>) = packages(&inputs, a, |_| true)
                .into_iter()
                .partition(|(job, _)| match *job {
                    Job::Pak(p, _) => p < inputs.with_paks,
                    Job::Zen(c, _) => c < inputs.with_containers,
                    Job::Loose(_) => true,
                });
            // Among them the first given wins (a search path).
            with.into_iter().rev().chain(main).collect::<Vec<_>>()
        }),
        zen_src: (inputs.containers.len() > 1).then(|| {
            Containers::new(
                inputs
                    .containers
                    .iter()
                    .map(|(_, cp, script)| ContainerSource::new(cp, script.as_ref()))
                    .collect(),
            )
        }),
    };
    let bar =
        crate::cmd::common::progress_count(jobs.len() as u64, a.out.json, "exporting", "packages");
    let rows: Vec<Row> = par_map(&jobs, |(job, pkg)| {
        let r = export_package(&ctx, *job, pkg);
        if let Some(b) = &bar {
            b.inc(1);
        }
        r
    })
    .into_iter()
    .flatten()
    .collect();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    report(a, &out, &rows, jobs.len())
}

fn report(a: &ExportArgs, out: &OutputDir, rows: &[Row], packages: usize) -> Result<ExitCode> {
    let files: usize = rows.iter().map(|r| r.written.len()).sum();
    let skipped = rows.iter().filter(|r| r.skipped.is_some()).count();
    let failed = rows.iter().filter(|r| r.error.is_some()).count();
    if rows.is_empty() && !a.class.is_empty() {
        return Err(anyhow!(
            "{}: no object of class {} in the {packages} packages chosen; nothing was written",
            a.package.display(),
            a.class.join(",")
        ));
    }
    if a.out.json {
        let written: Vec<&Row> = rows.iter().filter(|r| !r.written.is_empty()).collect();
        let skipped: Vec<&Row> = rows.iter().filter(|r| r.skipped.is_some()).collect();
        let failed: Vec<&Row> = rows.iter().filter(|r| r.error.is_some()).collect();
        crate::output::print_json(&serde_json::json!({
            "input": a.package.display().to_string(),
            "output": out.root().display().to_string(),
            "packages": packages,
            "written": written,
            "skipped": skipped,
            "failed": failed,
        }))?;
    } else {
        let mut o = String::new();
        let mut sorted: Vec<&Row> = rows.iter().collect();
        sorted.sort_by(|x, y| (&x.package, &x.object).cmp(&(&y.package, &y.object)));
        for r in sorted {
            for w in &r.written {
                let dims = if w.width > 0 {
                    format!("{}x{}, ", w.width, w.height)
                } else {
                    String::new()
                };
                o.push_str(&format!(
                    "{:<18} {} -> {} ({dims}{})\n",
                    r.class, r.object, w.file, w.detail
                ));
            }
            if let Some(s) = &r.skipped {
                o.push_str(&format!("{:<18} {} skipped: {s}\n", r.class, r.object));
            }
            if let Some(e) = &r.error {
                o.push_str(&format!("{:<18} {} FAILED: {e}\n", r.class, r.object));
            }
        }
        o.push_str(&format!(
            "{files} files written to {}, {skipped} skipped, {failed} failed ({packages} packages looked at)\n",
            out.root().display()
        ));
        crate::output::with_stdout(|w| {
            for line in o.lines() {
                writeln!(w, "{}", pakrat_io::text::show(line))?;
            }
            Ok(ExitCode::SUCCESS)
        })?;
    }
    Ok(exit_code(failed == 0))
}

#[cfg(test)]
mod tests {
    use super::base_name;

    #[test]
    fn output_names_mirror_package_paths_and_stay_below_out() {
        assert_eq!(base_name("/Game/T/T_A", "T_A"), "Game/T/T_A");
        assert_eq!(base_name("/Game/T/T_A", "Other"), "Game/T/T_A.Other");
        assert_eq!(base_name("/Game/../../etc/x", "x"), "Game/_/_/etc/x");
        assert_eq!(base_name("/../..", ".."), "_/_");
        assert_eq!(base_name("", "T"), "T");
        assert_eq!(base_name("/", ""), "_");
        assert_eq!(base_name("/Game/a\\b:c", "o/p"), "Game/a_b_c.o_p");
    }
}
