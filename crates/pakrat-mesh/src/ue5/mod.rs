//! UE4/UE5 meshes: cooked `StaticMesh` exports read into a model
//! ([`static_mesh::NativeStaticMesh`] plus the material slots and sockets of
//! the properties, [`StaticMesh`]) and built into a [`Scene`] for the glTF
//! writer; cooked `SkeletalMesh` exports ([`skeletal_mesh`], [`skin`],
//! [`skel_scene`]) with their reference skeleton, `Skeleton` exports
//! ([`skeleton`]), and `AnimSequence` exports ([`anim`], decoded by
//! [`anim_codec`], put on their skeleton by [`anim_scene`]).
//!
//! Axes: Unreal (X forward, Y right, Z up, left-handed) → glTF (−Y, Z, X),
//! as for the UE1/UE2 meshes; triangles keep their stored order (the
//! stored normals then face the counter-clockwise side: checked on the
//! fixtures by `tests/ue5_mesh_corpus.rs`). Units stay centimetres.
//!
//! Materials: [`material`] picks each slot's base colour and normal map
//! from the material chain (the CLI opens the packages).
//!
//! Not read yet: animation codecs other than per-track compression (see
//! [`anim::anim_problem`]) and animation curves; Nanite
//! resources (a Nanite mesh exports its fallback LODs where the package
//! has them, and is skipped with that reason where not: [`lod_problem`]).

pub mod anim;
pub mod anim_codec;
pub mod anim_scene;
pub mod buffers;
pub mod material;
pub mod skel_scene;
pub mod skeletal_mesh;
pub mod skeleton;
pub mod skin;
pub mod static_mesh;

use pakrat_asset::bulk::BulkRef;
use pakrat_asset::props::{self, Asset, Property, Schemas, Value};
use pakrat_io::{Error, Result};

use crate::model::{Material, Mesh, Scene, Section, Socket};
use crate::ue1_scene::convert_axes;
pub use static_mesh::{BulkFetch, Lod, LodSection, NativeStaticMesh};

/// A static mesh: its native data, material slots and sockets.
#[derive(Clone, Debug, Default)]
pub struct StaticMesh {
    /// Object name.
    pub name: String,
    /// Full object path.
    pub path: String,
    /// The native part (LODs).
    pub native: NativeStaticMesh,
    /// Material slots (`StaticMaterials`): slot name and material path.
    pub materials: Vec<(String, Option<String>)>,
    /// Sockets (`StaticMeshSocket` objects of the package).
    pub sockets: Vec<SocketInfo>,
    /// `NaniteSettings.bEnabled`.
    pub nanite: bool,
}

/// A `StaticMeshSocket`, in Unreal axes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SocketInfo {
    /// `SocketName`.
    pub name: String,
    /// `RelativeLocation`.
    pub location: [f64; 3],
    /// `RelativeRotation` (pitch, yaw, roll in degrees).
    pub rotation: [f64; 3],
    /// `RelativeScale`.
    pub scale: [f64; 3],
}

/// The classes this module reads: `StaticMesh`, `SkeletalMesh`,
/// `Skeleton` and `AnimSequence`.
pub fn is_mesh_class(class: &str) -> bool {
    matches!(
        class,
        "StaticMesh" | "SkeletalMesh" | "Skeleton" | "AnimSequence"
    )
}

fn prop<'p>(props: &'p [Property], name: &str) -> Option<&'p Value> {
    props.iter().find(|p| p.name == name).map(|p| &p.value)
}

fn number(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Double(d) => Some(*d),
        Value::Float(f) => Some(f64::from(*f)),
        Value::Int(i) => Some(*i as f64),
        _ => None,
    }
}

/// A struct property's three named numbers.
fn triple(props: &[Property], name: &str, keys: [&str; 3], default: f64) -> [f64; 3] {
    match prop(props, name) {
        Some(Value::Struct(f)) => keys.map(|k| number(prop(f, k)).unwrap_or(default)),
        _ => [default; 3],
    }
}

/// Material slots from `StaticMaterials`.
fn material_slots(props: &[Property]) -> Vec<(String, Option<String>)> {
    let Some(Value::Array(items)) = prop(props, "StaticMaterials") else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .map(|(k, v)| {
            let f: &[Property] = match v {
                Value::Struct(f) => f,
                _ => &[],
            };
            let slot = match prop(f, "MaterialSlotName") {
                Some(Value::Name(n)) if n != "None" => n.clone(),
                _ => format!("slot {k}"),
            };
            let material = match prop(f, "MaterialInterface") {
                Some(Value::Object(o)) => o.clone(),
                _ => None,
            };
            (slot, material)
        })
        .collect()
}

/// The socket objects that `Sockets` names, read from the package.
fn sockets(asset: &Asset<'_>, props: &[Property], schemas: &dyn Schemas) -> Vec<SocketInfo> {
    let Some(Value::Array(items)) = prop(props, "Sockets") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for v in items {
        let Value::Object(Some(path)) = v else {
            continue;
        };
        let Some(i) = asset.exports.iter().position(|e| &e.path == path) else {
            continue;
        };
        let p = props::decode_export(asset, i, schemas).properties;
        let name = match prop(&p, "SocketName") {
            Some(Value::Name(n)) => n.clone(),
            _ => asset.exports[i].name.clone(),
        };
        out.push(SocketInfo {
            name,
            location: triple(&p, "RelativeLocation", ["X", "Y", "Z"], 0.0),
            rotation: triple(&p, "RelativeRotation", ["Pitch", "Yaw", "Roll"], 0.0),
            scale: triple(&p, "RelativeScale", ["X", "Y", "Z"], 1.0),
        });
    }
    out
}

/// Read static mesh export `index` of `asset`: its properties (through
/// `schemas` when unversioned), then its native data; `fetch` brings the
/// bytes of streamed LODs.
pub fn read_static_mesh(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn Schemas,
    fetch: &BulkFetch<'_>,
) -> Result<StaticMesh> {
    // The same reader as the skeletal classes: over the whole export,
    // starting at the native data.
    let (properties, mut r) = skeleton::native(asset, index, schemas, "StaticMesh")?;
    let e = &asset.exports[index];
    let native = static_mesh::read(asset, index, &mut r, fetch)
        .map_err(|err| Error::Other(format!("{}: {err}", e.path)))?;
    let nanite = match prop(&properties, "NaniteSettings") {
        Some(Value::Struct(f)) => matches!(prop(f, "bEnabled"), Some(Value::Bool(true))),
        _ => false,
    };
    Ok(StaticMesh {
        name: e.name.clone(),
        path: e.path.clone(),
        native,
        materials: material_slots(&properties),
        sockets: sockets(asset, &properties, schemas),
        nanite,
    })
}

/// `FRotator` (degrees) → quaternion (x, y, z, w) in Unreal axes (UE
/// `FRotator::Quaternion`).
fn rotator_quat([pitch, yaw, roll]: [f64; 3]) -> [f64; 4] {
    let h = |d: f64| (d.to_radians() / 2.0).sin_cos();
    let (sp, cp) = h(pitch);
    let (sy, cy) = h(yaw);
    let (sr, cr) = h(roll);
    [
        cr * sp * sy - sr * cp * cy,
        -cr * sp * cy - sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
        cr * cp * cy + sr * sp * sy,
    ]
}

/// A rotation in Unreal axes as one in glTF axes: conjugated by the axis
/// change (a reflection, so the axis flips sign with it).
fn quat_axes(q: [f64; 4]) -> [f32; 4] {
    let v = [q[1], -q[2], -q[0], q[3]];
    let l = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    if l > 1e-12 && l.is_finite() {
        v.map(|x| (x / l) as f32)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// Why LOD `lod` of `m` cannot be exported, if it cannot.
pub fn lod_problem(m: &StaticMesh, lod: usize) -> Option<String> {
    let n = &m.native;
    match n.lods.get(lod) {
        None if n.lod_count == 0 && m.nanite => Some(
            "a Nanite-only mesh: the package keeps no fallback mesh (Nanite resources are not decoded)"
                .to_string(),
        ),
        None if lod < n.lod_count => Some(format!(
            "LOD {lod} was not read: {}",
            n.lod_error.as_deref().unwrap_or("an earlier LOD failed")
        )),
        None => Some(format!("the mesh has {} LODs, not LOD {lod}", n.lod_count)),
        Some(l) if l.cooked_out || l.positions.is_empty() => Some(format!(
            "LOD {lod} holds no vertices (cooked out{})",
            if m.nanite { "; a Nanite mesh without fallback" } else { "" }
        )),
        Some(_) => None,
    }
}

/// The glTF scene of LOD `lod` of `m`: one mesh, one material per slot,
/// one glTF section per LOD section, the sockets as nodes below the mesh.
pub fn to_scene(m: &StaticMesh, lod: usize) -> std::result::Result<Scene, String> {
    if let Some(p) = lod_problem(m, lod) {
        return Err(p);
    }
    let l = &m.native.lods[lod];
    let mut scene = Scene {
        name: m.path.clone(),
        ..Default::default()
    };
    for (slot, material) in &m.materials {
        scene.materials.push(Material {
            name: match material {
                Some(p) => format!("{slot}: {p}"),
                None => slot.clone(),
            },
            ..Default::default()
        });
    }
    let mut mesh = Mesh {
        name: m.name.clone(),
        positions: l.positions.iter().map(|&p| convert_axes(p)).collect(),
        normals: l.vertex.normals.iter().map(|&p| convert_axes(p)).collect(),
        tangents: l
            .vertex
            .tangents
            .iter()
            .map(|&t| convert_tangent(t))
            .collect(),
        uvs: l.vertex.uvs.clone(),
        colors: l.colors.clone(),
        ..Default::default()
    };
    if mesh.normals.iter().any(|n| n == &[0.0, 0.0, 0.0]) {
        mesh.normals.clear();
    }
    for s in &l.sections {
        let first = s.first_index as usize;
        let tris = &l.indices[first..first + 3 * s.num_triangles as usize];
        let material = usize::try_from(s.material_index)
            .ok()
            .filter(|&k| k < scene.materials.len());
        mesh.sections.push(Section {
            material,
            indices: tris.to_vec(),
        });
    }
    if mesh.normals.is_empty() {
        mesh.compute_normals();
    }
    scene.meshes.push(mesh);
    for s in &m.sockets {
        let t = convert_axes(s.location.map(|x| x as f32));
        let sc = s.scale;
        scene.sockets.push(Socket {
            name: s.name.clone(),
            bone: None,
            translation: t,
            rotation: quat_axes(rotator_quat(s.rotation)),
            scale: [sc[1] as f32, sc[2] as f32, sc[0] as f32],
        });
    }
    Ok(scene)
}

/// A bulk fetcher for inputs without companion files: every streamed LOD
/// is an error naming it.
pub fn no_bulk(b: &BulkRef) -> Result<Vec<u8>> {
    Err(Error::Other(format!(
        "a streamed LOD ({}) needs the package's bulk data",
        b.describe()
    )))
}

/// A tangent (xyz, bitangent sign) in glTF's axes: the axis change is a
/// reflection, so the bitangent sign flips.
pub(crate) fn convert_tangent(t: [f32; 4]) -> [f32; 4] {
    let v = convert_axes([t[0], t[1], t[2]]);
    [v[0], v[1], v[2], -t[3]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaw_turns_about_up() {
        // 90° yaw turns Unreal X (forward) to Y (right): in glTF axes, a
        // turn about +Y (up) taking +Z to −X.
        let q = quat_axes(rotator_quat([0.0, 90.0, 0.0]));
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let want = [0.0, -h, 0.0, h];
        for k in 0..4 {
            assert!((q[k] - want[k]).abs() < 1e-5, "{q:?}");
        }
    }
}
