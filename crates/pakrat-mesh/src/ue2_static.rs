//! UE2 `StaticMesh` (package versions 112–129, the UT2003/UT2004 layout):
//! the native data after the properties, and the mesh as a [`Scene`].
//!
//! Layout (facts from UEViewer `Unreal/UnrealMesh/UnMesh2.h`,
//! `UnMesh2.cpp` `UStaticMesh::Serialize`):
//!
//! ```text
//! UPrimitive  FBox (6 f32 + u8), FSphere (4 f32)
//! Sections    TArray<(i32, u16 FirstIndex, u16 FirstVertex, u16 LastVertex, u16, u16 NumFaces)>
//! FBox        BoundingBox (again)
//! Vertices    TArray<(FVector Pos, FVector Normal)>, i32 Revision
//! Colours     TArray<FColor (R, G, B, A)>, i32 Revision       (ColorStream)
//! Alpha       TArray<FColor>, i32 Revision                     (AlphaStream)
//! UV streams  TArray<(TArray<(f32 U, f32 V)>, i32, i32)>
//! Indices     TArray<u16>, i32 Revision                        (triangles)
//! Wireframe   TArray<u16>, i32 Revision                        (lines; not exported)
//! Object      collision model reference
//! …           collision data (not read)
//! ```
//!
//! Section `k` draws `NumFaces` triangles from index `FirstIndex` with
//! material `k` of the `Materials` property (an array of
//! `StaticMeshMaterial { Material, EnableCollision }` structs).

use pakrat_classic::props::{read_object, read_tagged, Value};
use pakrat_classic::{ObjRef, Package};
use pakrat_io::{Error, Reader, Result};

use crate::model::{Material, Mesh, Scene, Section};
use crate::ue1_scene::{convert_axes, skin_image};

/// One section.
#[derive(Clone, Copy, Debug)]
pub struct StaticSection {
    /// First index of its triangles in the index stream.
    pub first_index: u16,
    /// First vertex it uses.
    pub first_vertex: u16,
    /// Last vertex it uses.
    pub last_vertex: u16,
    /// Triangles.
    pub faces: u16,
}

/// A UE2 static mesh.
#[derive(Clone, Debug, Default)]
pub struct StaticMesh {
    /// Sections, one per material.
    pub sections: Vec<StaticSection>,
    /// Positions (Unreal axes and units).
    pub positions: Vec<[f32; 3]>,
    /// Normals as stored.
    pub normals: Vec<[f32; 3]>,
    /// Vertex colours (R, G, B, A).
    pub colors: Vec<[u8; 4]>,
    /// Vertex alpha stream.
    pub alpha: Vec<[u8; 4]>,
    /// UV streams.
    pub uvs: Vec<Vec<[f32; 2]>>,
    /// Triangle indices.
    pub indices: Vec<u16>,
    /// Wireframe line indices (count only).
    pub wire_indices: usize,
    /// The `Materials` property: one material per section.
    pub materials: Vec<ObjRef>,
    /// The `UseVertexColor` property.
    pub use_vertex_color: bool,
}

fn vec3(r: &mut Reader<'_>, what: &str) -> Result<[f32; 3]> {
    Ok([r.f32(what)?, r.f32(what)?, r.f32(what)?])
}

fn colors(r: &mut Reader<'_>, what: &str) -> Result<Vec<[u8; 4]>> {
    let n = r.compact_count(what, 4)?;
    let v = (0..n)
        .map(|_| Ok([r.u8(what)?, r.u8(what)?, r.u8(what)?, r.u8(what)?]))
        .collect::<Result<Vec<_>>>()?;
    r.i32("stream revision")?;
    Ok(v)
}

fn u16_stream(r: &mut Reader<'_>, what: &str) -> Result<Vec<u16>> {
    let n = r.compact_count(what, 2)?;
    let v = (0..n).map(|_| r.u16(what)).collect::<Result<Vec<_>>>()?;
    r.i32("stream revision")?;
    Ok(v)
}

/// The `Materials` property: each element's `Material` reference.
fn materials(pkg: &Package<'_>, o: &pakrat_classic::props::ObjectData<'_>) -> Result<Vec<ObjRef>> {
    let Some(p) = o.get(pkg, "Materials") else {
        return Ok(Vec::new());
    };
    match &p.value {
        Value::Array { count, data, .. } => {
            let mut r = Reader::new(data);
            let mut out = Vec::new();
            for _ in 0..*count {
                let props = read_tagged(pkg, &mut r, 1)?;
                let m = props
                    .iter()
                    .find(|p| pkg.name(p.name).eq_ignore_ascii_case("Material"))
                    .and_then(|p| match p.value {
                        Value::Object(o) => Some(o),
                        _ => None,
                    });
                out.push(m.unwrap_or(ObjRef::NONE));
            }
            Ok(out)
        }
        Value::TypedArray { elems, .. } => Ok(elems
            .iter()
            .map(|e| match e {
                Value::Struct(s) => match s.as_ref() {
                    pakrat_classic::props::StructValue::Tagged(props) => props.as_slice(),
                    _ => &[],
                }
                .iter()
                .find(|p| pkg.name(p.name).eq_ignore_ascii_case("Material"))
                .and_then(|p| match p.value {
                    Value::Object(o) => Some(o),
                    _ => None,
                })
                .unwrap_or(ObjRef::NONE),
                _ => ObjRef::NONE,
            })
            .collect()),
        _ => Ok(Vec::new()),
    }
}

/// Read `exports[i]` as a UE2 static mesh.
pub fn read_static_mesh(pkg: &Package<'_>, i: usize) -> Result<StaticMesh> {
    let v = pkg.summary.version;
    if !(112..130).contains(&v) {
        return Err(Error::unsupported(
            0,
            format!(
                "StaticMesh of package version {v}: the layout read is that of versions 112-129"
            ),
        ));
    }
    let o = read_object(pkg, i)?;
    let mut m = StaticMesh {
        // A Materials array pakrat cannot parse leaves the sections
        // unnamed rather than the mesh unexported.
        materials: materials(pkg, &o).unwrap_or_default(),
        use_vertex_color: matches!(
            o.get(pkg, "UseVertexColor").map(|p| &p.value),
            Some(Value::Bool(true))
        ),
        ..Default::default()
    };
    let mut r = o.native.clone();
    r.skip(25 + 16, "bounds")?;
    let ns = r.compact_count("sections", 14)?;
    for _ in 0..ns {
        r.i32("section flags")?;
        m.sections.push(StaticSection {
            first_index: r.u16("section first index")?,
            first_vertex: r.u16("section first vertex")?,
            last_vertex: r.u16("section last vertex")?,
            faces: {
                r.u16("section")?;
                r.u16("section faces")?
            },
        });
    }
    r.skip(25, "bounding box")?;
    let nv = r.compact_count("vertices", 24)?;
    for _ in 0..nv {
        m.positions.push(vec3(&mut r, "vertex position")?);
        m.normals.push(vec3(&mut r, "vertex normal")?);
    }
    r.i32("vertex stream revision")?;
    m.colors = colors(&mut r, "colour stream")?;
    m.alpha = colors(&mut r, "alpha stream")?;
    let nuv = r.compact_count("UV streams", 9)?;
    for _ in 0..nuv {
        let n = r.compact_count("UVs", 8)?;
        let uv = (0..n)
            .map(|_| Ok([r.f32("U")?, r.f32("V")?]))
            .collect::<Result<Vec<_>>>()?;
        r.skip(8, "UV stream fields")?;
        m.uvs.push(uv);
    }
    m.indices = u16_stream(&mut r, "indices")?;
    m.wire_indices = u16_stream(&mut r, "wireframe indices")?.len();
    r.compact("collision model")?;
    m.check()?;
    Ok(m)
}

impl StaticMesh {
    fn check(&self) -> Result<()> {
        let n = self.positions.len();
        if let Some(&bad) = self.indices.iter().find(|&&x| usize::from(x) >= n) {
            return Err(Error::Other(format!(
                "index {bad} outside the {n} vertices"
            )));
        }
        for (k, s) in self.sections.iter().enumerate() {
            let end = usize::from(s.first_index) + 3 * usize::from(s.faces);
            if end > self.indices.len() {
                return Err(Error::Other(format!(
                    "section {k}: triangles up to index {end}, the mesh has {}",
                    self.indices.len()
                )));
            }
        }
        Ok(())
    }

    /// Triangles drawn by the sections.
    pub fn triangle_count(&self) -> usize {
        self.sections.iter().map(|s| usize::from(s.faces)).sum()
    }
}

fn unit(v: [f32; 3]) -> [f32; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if l > 1e-6 && l.is_finite() {
        [v[0] / l, v[1] / l, v[2] / l]
    } else {
        [0.0, 1.0, 0.0]
    }
}

/// Build the scene of `exports[i]`, read as `m`: axes as for UE1 meshes
/// ([`convert_axes`]), but the triangles keep their stored order: unlike
/// UE1 vertex meshes, the corpus's static meshes come out with their
/// stored normals on the counter-clockwise side that way (the stored
/// normals agree with the counter-clockwise face normal for 28,252 of the
/// corpus's 28,287 triangles, and 51 of its 64 meshes have a positive
/// signed volume; the others are open shapes).
pub fn to_scene(pkg: &Package<'_>, i: usize, m: &StaticMesh) -> Result<Scene> {
    let short = pkg.name(pkg.export(i)?.object_name).to_string();
    let mut scene = Scene {
        name: pkg.export_path(i)?,
        ..Default::default()
    };
    let n = m.positions.len();
    let mut mesh = Mesh {
        name: short.clone(),
        positions: m.positions.iter().map(|&p| convert_axes(p)).collect(),
        normals: m.normals.iter().map(|&p| unit(convert_axes(p))).collect(),
        uvs: m.uvs.iter().filter(|u| u.len() == n).cloned().collect(),
        ..Default::default()
    };
    if m.use_vertex_color && m.colors.len() == n {
        mesh.colors = m.colors.clone();
    }
    for (k, s) in m.sections.iter().enumerate() {
        let mref = m.materials.get(k).copied().unwrap_or(ObjRef::NONE);
        let name = if mref.is_none() {
            format!("material {k}")
        } else {
            format!(
                "material {k}: {}",
                pkg.object_path(mref).unwrap_or_default()
            )
        };
        let base_color = skin_image(pkg, mref, &short, &mut scene.images);
        scene.materials.push(Material {
            name,
            base_color: base_color.filter(|_| !mesh.uvs.is_empty()),
            ..Default::default()
        });
        let first = usize::from(s.first_index);
        let tris = &m.indices[first..first + 3 * usize::from(s.faces)];
        mesh.sections.push(Section {
            material: Some(k),
            indices: tris
                .chunks_exact(3)
                .flat_map(|t| [u32::from(t[0]), u32::from(t[1]), u32::from(t[2])])
                .collect(),
        });
    }
    scene.meshes.push(mesh);
    Ok(scene)
}
