//! UE4/UE5 skeletons: `FReferenceSkeleton` (shared by `USkeleton` and
//! `USkeletalMesh`) and the native part of a cooked `USkeleton`.
//!
//! `FReferenceSkeleton` (UE 4.x `REFERENCE_SKELETON_REFACTOR`+, cooked):
//! `TArray<FMeshBoneInfo>` (an `FName` and an `i32` parent index; the
//! export name is editor data, not in cooked packages), `TArray<FTransform>`
//! (the reference pose, relative to the parent: rotation quaternion,
//! translation, scale, as `f64` with large world coordinates (UE5), `f32`
//! before), then the `TMap<FName, i32>` name → index map. Facts: UE
//! `ReferenceSkeleton.cpp`; CUE4Parse `FReferenceSkeleton.cs`,
//! `FMeshBoneInfo.cs`, `USkeleton.cs`.
//!
//! Every bone's parent must come before it (the root, bone 0, has −1), the
//! pose must have one transform per bone and the map must name bones that
//! exist.

use pakrat_asset::props::{self, Asset, Property, Schemas, Value};
use pakrat_io::{Error, Reader, Result};

use super::{prop, triple};

/// One bone: name and parent (−1 for the root).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoneInfo {
    /// `FName`.
    pub name: String,
    /// Parent bone index, −1 for the root.
    pub parent: i32,
}

/// A bone transform in Unreal axes, relative to the parent bone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Rotation quaternion (x, y, z, w).
    pub rotation: [f64; 4],
    /// Translation.
    pub translation: [f64; 3],
    /// Scale.
    pub scale: [f64; 3],
}

impl Default for Transform {
    fn default() -> Self {
        Transform {
            rotation: [0.0, 0.0, 0.0, 1.0],
            translation: [0.0; 3],
            scale: [1.0; 3],
        }
    }
}

/// `FReferenceSkeleton`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RefSkeleton {
    /// Bones, parents first.
    pub bones: Vec<BoneInfo>,
    /// The reference pose, one transform per bone.
    pub pose: Vec<Transform>,
    /// The stored name → bone index map.
    pub name_to_index: Vec<(String, i32)>,
}

/// An `FName` of export data: name-map index and number.
pub(crate) fn fname(asset: &Asset<'_>, r: &mut Reader<'_>, what: &str) -> Result<String> {
    let at = r.offset();
    let i = r.u32(what)?;
    let n = r.u32(what)?;
    asset.name(i, n).ok_or_else(|| {
        Error::invalid(
            at,
            format!(
                "{what}: name {i} is outside the name map ({} names)",
                asset.names.len()
            ),
        )
    })
}

/// A little-endian `f64`.
pub(crate) fn f64le(r: &mut Reader<'_>, what: &str) -> Result<f64> {
    Ok(f64::from_bits(r.u64(what)?))
}

/// `n` reals: `f64` with large world coordinates, `f32` before.
pub(crate) fn reals<const N: usize>(r: &mut Reader<'_>, lwc: bool, what: &str) -> Result<[f64; N]> {
    let mut v = [0f64; N];
    for x in &mut v {
        *x = if lwc {
            f64le(r, what)?
        } else {
            f64::from(r.f32(what)?)
        };
    }
    Ok(v)
}

/// `FTransform`: rotation, translation, scale.
pub(crate) fn transform(r: &mut Reader<'_>, lwc: bool) -> Result<Transform> {
    Ok(Transform {
        rotation: reals::<4>(r, lwc, "bone rotation")?,
        translation: reals::<3>(r, lwc, "bone translation")?,
        scale: reals::<3>(r, lwc, "bone scale")?,
    })
}

/// Read an `FReferenceSkeleton` (cooked: no bone export names).
pub fn read_ref_skeleton(asset: &Asset<'_>, r: &mut Reader<'_>, lwc: bool) -> Result<RefSkeleton> {
    let at = r.offset();
    let n = r.i32_count("bones", 12)?;
    let mut s = RefSkeleton::default();
    for k in 0..n {
        let name = fname(asset, r, "bone name")?;
        let parent = r.i32("bone parent")?;
        let ok = if k == 0 {
            parent == -1
        } else {
            (0..k as i32).contains(&parent)
        };
        if !ok {
            return Err(Error::invalid(
                at,
                format!("bone {k} ({name}) has parent {parent}, not an earlier bone"),
            ));
        }
        s.bones.push(BoneInfo { name, parent });
    }
    let size = if lwc { 80 } else { 40 };
    let m = r.i32_count("reference pose", size)?;
    if m != n {
        return Err(r.invalid(format!("{n} bones but {m} reference pose transforms")));
    }
    for _ in 0..m {
        s.pose.push(transform(r, lwc)?);
    }
    let m = r.i32_count("bone name map", 12)?;
    for _ in 0..m {
        let name = fname(asset, r, "bone map name")?;
        let i = r.i32("bone map index")?;
        if !(0..n as i32).contains(&i) {
            return Err(r.invalid(format!("bone map: {name} → {i}, past the {n} bones")));
        }
        s.name_to_index.push((name, i));
    }
    Ok(s)
}

/// A `SkeletalMeshSocket`, in Unreal axes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoneSocket {
    /// `SocketName`.
    pub name: String,
    /// `BoneName`.
    pub bone: String,
    /// `RelativeLocation`.
    pub location: [f64; 3],
    /// `RelativeRotation` (pitch, yaw, roll in degrees).
    pub rotation: [f64; 3],
    /// `RelativeScale`.
    pub scale: [f64; 3],
}

/// A skeleton: its reference skeleton and sockets.
#[derive(Clone, Debug, Default)]
pub struct Skeleton {
    /// Object name.
    pub name: String,
    /// Full object path.
    pub path: String,
    /// `FReferenceSkeleton`.
    pub reference: RefSkeleton,
    /// Sockets (`SkeletalMeshSocket` objects of the package that `Sockets` names).
    pub sockets: Vec<BoneSocket>,
    /// Virtual bones: (name, source bone, target bone).
    pub virtual_bones: Vec<(String, String, String)>,
}

/// The `SkeletalMeshSocket` objects that property `Sockets` names, read
/// from the package.
pub(crate) fn bone_sockets(
    asset: &Asset<'_>,
    props: &[Property],
    schemas: &dyn Schemas,
) -> Vec<BoneSocket> {
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
        let name_of = |k: &str| match prop(&p, k) {
            Some(Value::Name(n)) => Some(n.clone()),
            _ => None,
        };
        out.push(BoneSocket {
            name: name_of("SocketName").unwrap_or_else(|| asset.exports[i].name.clone()),
            bone: name_of("BoneName").unwrap_or_default(),
            location: triple(&p, "RelativeLocation", ["X", "Y", "Z"], 0.0),
            rotation: triple(&p, "RelativeRotation", ["Pitch", "Yaw", "Roll"], 0.0),
            scale: triple(&p, "RelativeScale", ["X", "Y", "Z"], 1.0),
        });
    }
    out
}

/// `VirtualBones`: (name, source, target).
fn virtual_bones(props: &[Property]) -> Vec<(String, String, String)> {
    let Some(Value::Array(items)) = prop(props, "VirtualBones") else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|v| {
            let Value::Struct(f) = v else { return None };
            let n = |k: &str| match prop(f, k) {
                Some(Value::Name(n)) => n.clone(),
                _ => String::new(),
            };
            Some((
                n("VirtualBoneName"),
                n("SourceBoneName"),
                n("TargetBoneName"),
            ))
        })
        .collect()
}

/// The export's properties and a reader over its native data.
pub(crate) fn native<'a>(
    asset: &'a Asset<'_>,
    index: usize,
    schemas: &dyn Schemas,
    class: &str,
) -> Result<(Vec<Property>, Reader<'a>)> {
    let e = asset
        .exports
        .get(index)
        .ok_or_else(|| Error::Other(format!("export {index} does not exist")))?;
    if e.class_name() != class {
        return Err(Error::Other(format!(
            "{} is a {}, not a {class}",
            e.path,
            e.class_name()
        )));
    }
    let decoded = props::decode_export(asset, index, schemas);
    if let Some(err) = decoded.error {
        return Err(Error::Other(format!("{}: properties: {err}", e.path)));
    }
    let start = usize::try_from(decoded.native_start)
        .ok()
        .filter(|&s| s <= e.data.len())
        .ok_or_else(|| Error::Other(format!("{}: native data outside the export", e.path)))?;
    // The reader spans the whole export (inline bulk payloads are located
    // by their offset in it), starting at the native data.
    let mut r = Reader::with_base(e.data, e.offset);
    r.seek(start as u64, "native data")?;
    Ok((decoded.properties, r))
}

/// Read skeleton export `index` of `asset`: its properties (sockets,
/// virtual bones) and the reference skeleton of its native data.
pub fn read_skeleton(asset: &Asset<'_>, index: usize, schemas: &dyn Schemas) -> Result<Skeleton> {
    let (p, mut r) = native(asset, index, schemas, "Skeleton")?;
    let e = &asset.exports[index];
    let lwc = super::static_mesh::Gates::of(&asset.versions).lwc;
    let reference = read_ref_skeleton(asset, &mut r, lwc)
        .map_err(|err| Error::Other(format!("{}: {err}", e.path)))?;
    Ok(Skeleton {
        name: e.name.clone(),
        path: e.path.clone(),
        reference,
        sockets: bone_sockets(asset, &p, schemas),
        virtual_bones: virtual_bones(&p),
    })
}
