//! The mesh exporter behind `pakrat export`: the
//! [`MeshHook`](pakrat_classic::export::MeshHook) that the classic
//! exporter calls for `Mesh`/`LodMesh` (UE1) and `StaticMesh` (UE2) objects.

use pakrat_classic::export::{safe_component, ExportOptions, OutFile, Produced};
use pakrat_classic::Package;
use pakrat_io::{Error, Result};

use crate::gltf::{self, Format};
use crate::{ue1, ue1_scene, ue2_export, ue2_static};

/// `Group/Sub/Name` for an export path `Group.Sub.Name`.
fn rel_path(pkg: &Package<'_>, i: usize) -> Result<String> {
    Ok(pkg
        .export_path(i)?
        .split('.')
        .map(safe_component)
        .collect::<Vec<_>>()
        .join("/"))
}

/// Export mesh `exports[i]` as glTF (see [`MeshHook`](pakrat_classic::export::MeshHook)).
/// With `dry`, only the `.glb` (or `.gltf` and `.bin`) path is listed: the
/// skins' PNG files of `.gltf` output are known once the mesh is read.
pub fn hook(pkg: &Package<'_>, i: usize, opts: &ExportOptions, dry: bool) -> Result<Produced> {
    let class = pkg.export_class_name(i)?;
    let is_static = class.eq_ignore_ascii_case("StaticMesh");
    let ue2 = pkg.summary.version >= 100;
    let ue2_class = ["SkeletalMesh", "VertMesh", "MeshAnimation"]
        .iter()
        .any(|c| c.eq_ignore_ascii_case(class));
    if ue1::mesh_class(class).is_none() && !is_static && !ue2_class {
        return Ok(Err(format!("no mesh exporter for class {class}")));
    }
    if ue2_class != ue2 && !is_static {
        return Ok(Err(format!(
            "{class} of package v{}: no exporter for that generation",
            pkg.summary.version
        )));
    }
    let format = if opts.mesh_psk {
        Out::Psk
    } else if opts.mesh_gltf {
        Out::Gltf(Format::Gltf)
    } else {
        Out::Gltf(Format::Glb)
    };
    let base = rel_path(pkg, i)?;
    if opts.mesh_3d {
        return unreal_3d(pkg, i, class, &base, dry);
    }
    if class.eq_ignore_ascii_case("MeshAnimation") && ue2_export::animation_has_mesh(pkg, i) {
        return Ok(Err(
            "exported with the skeletal mesh that plays it".to_string()
        ));
    }
    if dry {
        let anim = class.eq_ignore_ascii_case("MeshAnimation");
        let names = match format {
            Out::Gltf(Format::Glb) => vec![format!("{base}.glb")],
            Out::Gltf(Format::Gltf) => vec![format!("{base}.gltf"), format!("{base}.bin")],
            Out::Psk if anim => vec![format!("{base}.psa")],
            Out::Psk => vec![format!("{base}.psk")],
        };
        return Ok(Ok(names
            .into_iter()
            .map(|n| (n, Vec::new(), String::new()))
            .collect()));
    }
    if ue2_class {
        return ue2_export::files(pkg, i, class, opts, format, &base);
    }
    if is_static {
        let m = ue2_static::read_static_mesh(pkg, i)?;
        let scene = ue2_static::to_scene(pkg, i, &m)?;
        let detail = format!(
            "{} {} vertices, {} triangles, {} sections, {} UV sets{}, {} textures",
            format.label(),
            m.positions.len(),
            m.triangle_count(),
            m.sections.len(),
            scene.meshes[0].uvs.len(),
            if scene.meshes[0].colors.is_empty() {
                ""
            } else {
                ", vertex colours"
            },
            scene.images.len()
        );
        return files_of(&scene, format, &base, detail, None);
    }
    let m = ue1::read_mesh(pkg, i)?;
    let scene = ue1_scene::to_scene(pkg, i, &m)?;
    let mesh = &scene.meshes[0];
    let detail = format!(
        "{} {} vertices ({} wedges), {} triangles, {} frames, {} sequences, {} skins",
        format.label(),
        m.vertex_count(),
        mesh.positions.len(),
        m.triangle_count(),
        m.frame_count(),
        m.seqs.len(),
        scene.images.len()
    );
    files_of(&scene, format, &base, detail, None)
}

/// A UE1 vertex mesh as the editor's import pair (`ue1_3d`).
fn unreal_3d(pkg: &Package<'_>, i: usize, class: &str, base: &str, dry: bool) -> Result<Produced> {
    if ue1::mesh_class(class).is_none() || pkg.summary.version >= 100 {
        return Ok(Err(format!(
            "the .3d pair is the UE1 vertex-mesh form (Mesh, LodMesh); this is a {class} (use glb, gltf or psk)"
        )));
    }
    let names = [
        format!("{base}_d.3d"),
        format!("{base}_a.3d"),
        format!("{base}.uc"),
    ];
    if dry {
        return Ok(Ok(names
            .into_iter()
            .map(|n| (n, Vec::new(), String::new()))
            .collect()));
    }
    let m = ue1::read_mesh(pkg, i)?;
    let (d, a) = match crate::ue1_3d::write_pair(&m) {
        Ok(x) => x,
        Err(why) => return Ok(Err(why)),
    };
    let name = pkg.name(pkg.export(i)?.object_name).to_string();
    let uc = crate::ue1_3d::exec_script(&name, &m).into_bytes();
    let [dn, an, un] = names;
    Ok(Ok(vec![
        (
            dn,
            d,
            format!(
                "Unreal _d.3d: {} triangles, {} vertices",
                m.triangle_count(),
                m.vertex_count()
            ),
        ),
        (an, a, format!("Unreal _a.3d: {} frames", m.frame_count())),
        (
            un,
            uc,
            format!("#exec import lines, {} sequences", m.seqs.len()),
        ),
    ]))
}

/// The output container.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Out {
    /// glTF (binary or JSON).
    Gltf(Format),
    /// ActorX psk/psa.
    Psk,
}

impl Out {
    /// The label of the detail line.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Out::Gltf(_) => "glTF",
            Out::Psk => "ActorX",
        }
    }
}

/// Write the scene; the first file carries `detail`.
/// With psk output, `psa` carries the sequences' (name, rate, frames) for
/// the `.psa` file (None: only the `.psk`; a scene without meshes writes
/// only the `.psa`).
pub(crate) fn files_of(
    scene: &crate::model::Scene,
    format: Out,
    base: &str,
    detail: String,
    psa: Option<&[crate::psk::SeqInfo]>,
) -> Result<Produced> {
    let files = match format {
        Out::Gltf(f) => gltf::write(scene, f, base).map_err(Error::Other)?,
        Out::Psk => crate::psk::write(scene, base, psa).map_err(Error::Other)?,
    };
    let out: Vec<OutFile> = files
        .into_iter()
        .enumerate()
        .map(|(k, (path, bytes))| {
            let d = if k == 0 {
                detail.clone()
            } else if path.ends_with(".bin") {
                "glTF buffer".to_string()
            } else if path.ends_with(".psa") {
                "ActorX animations".to_string()
            } else {
                "skin PNG".to_string()
            };
            (path, bytes, d)
        })
        .collect();
    Ok(Ok(out))
}
