//! The UE1 vertex-mesh import pair, `Name_d.3d` + `Name_a.3d` (issue 28
//! item 1): what `#exec MESH IMPORT MESH=Name ANIVFILE=Name_a.3d
//! DATAFILE=Name_d.3d` reads, so a mesh taken out of a package can go back
//! into UnrealEd.
//!
//! Layouts (ActorX's `EJSMeshTriType` headers and the engine's mesh
//! importer, which turns a triangle's type back into poly flags; UEViewer's
//! `Export3D.cpp` writes the same two headers):
//! * `_d.3d`: a 48-byte header (`u16 NumPolys`, `u16 NumVertices`, then 44
//!   unused bytes), then per triangle 16 bytes: `u16 iVertex[3]`, `u8 Type`,
//!   `u8 Color`, `u8 Tex[3][2]` (U, V), `u8 TextureNum`, `u8 Flags`.
//! * `_a.3d`: `u16 NumFrames`, `u16 FrameSize` (bytes per frame), then each
//!   frame's vertices as packed `FMeshVert`s (X: bits 0–10, Y: 11–21, Z:
//!   22–31, signed), the form the package stores.
//!
//! `Type` is one of Normal (0), NormalTwoSided (1), Translucent (2), Masked
//! (3), Modulate (4), Placeholder (8, the invisible weapon triangle), plus
//! the effect bits Unlit (0x10), Flat (0x20), Environment (0x40) and
//! NoSmooth (0x80); it is rebuilt here from the triangle's poly flags, the
//! inverse of the importer's mapping.

use crate::ue1::VertMesh;

const PF_INVISIBLE: u32 = 0x1;
const PF_MASKED: u32 = 0x2;
const PF_TRANSLUCENT: u32 = 0x4;
const PF_ENVIRONMENT: u32 = 0x10;
const PF_MODULATED: u32 = 0x40;
const PF_TWO_SIDED: u32 = 0x100;
const PF_NO_SMOOTH: u32 = 0x800;
const PF_FLAT: u32 = 0x4000;
const PF_UNLIT: u32 = 0x40_0000;

/// The James mesh type of a triangle with these poly flags.
pub fn tri_type(poly_flags: u32) -> u8 {
    let f = poly_flags;
    let mut t = if f & PF_INVISIBLE != 0 {
        8
    } else if f & PF_MODULATED != 0 {
        4
    } else if f & PF_TRANSLUCENT != 0 {
        2
    } else if f & PF_MASKED != 0 {
        3
    } else if f & PF_TWO_SIDED != 0 {
        1
    } else {
        0
    };
    for (pf, bit) in [
        (PF_UNLIT, 0x10),
        (PF_FLAT, 0x20),
        (PF_ENVIRONMENT, 0x40),
        (PF_NO_SMOOTH, 0x80),
    ] {
        if f & pf != 0 {
            t |= bit;
        }
    }
    t
}

/// Pack a vertex as `FMeshVert` (the inverse of [`crate::ue1::unpack_vert`]).
pub fn pack_vert(p: [i16; 3]) -> u32 {
    (p[0] as u32 & 0x7FF) | ((p[1] as u32 & 0x7FF) << 11) | ((p[2] as u32 & 0x3FF) << 22)
}

/// One `_d.3d` triangle: vertices, type, UVs, texture.
struct Tri3d {
    verts: [u16; 3],
    kind: u8,
    uv: [[u8; 2]; 3],
    texture: u8,
}

fn texture_num(t: i32) -> Result<u8, String> {
    u8::try_from(t).map_err(|_| format!("texture index {t} does not fit the format's byte"))
}

/// The triangles of the mesh, as the importer would read them back.
fn triangles(m: &VertMesh) -> Result<Vec<Tri3d>, String> {
    let Some(l) = &m.lod else {
        return m
            .tris
            .iter()
            .map(|t| {
                Ok(Tri3d {
                    verts: t.verts,
                    kind: tri_type(t.poly_flags),
                    uv: t.uv,
                    texture: texture_num(t.texture)?,
                })
            })
            .collect();
    };
    let special = l.special_verts.max(0) as usize;
    let mut out = Vec::with_capacity(l.faces.len() + l.special_faces.len());
    // The weapon triangle: its three indices are vertices below SpecialVerts.
    for f in &l.special_faces {
        if f.wedges.iter().any(|&v| usize::from(v) >= special) {
            return Err(format!(
                "a special face uses vertex {:?}, beyond the {special} special vertices",
                f.wedges
            ));
        }
        out.push(Tri3d {
            verts: f.wedges,
            kind: 8,
            uv: [[0; 2]; 3],
            texture: 0,
        });
    }
    for f in &l.faces {
        let (flags, tex) = l
            .materials
            .get(usize::from(f.material))
            .copied()
            .ok_or_else(|| {
                format!(
                    "a face uses material {}, the mesh has {}",
                    f.material,
                    l.materials.len()
                )
            })?;
        let mut verts = [0u16; 3];
        let mut uv = [[0u8; 2]; 3];
        for k in 0..3 {
            let w = l
                .wedges
                .get(usize::from(f.wedges[k]))
                .ok_or_else(|| format!("a face uses wedge {}", f.wedges[k]))?;
            verts[k] = u16::try_from(usize::from(w.0) + special)
                .map_err(|_| "a vertex index does not fit 16 bits".to_string())?;
            uv[k] = w.1;
        }
        out.push(Tri3d {
            verts,
            kind: tri_type(flags),
            uv,
            texture: texture_num(tex)?,
        });
    }
    Ok(out)
}

/// The `_d.3d` and `_a.3d` files of `m`, or why the mesh cannot be written
/// in that form (Deus Ex's 16-bit vertices, counts over the format's 16-bit
/// fields).
pub fn write_pair(m: &VertMesh) -> Result<(Vec<u8>, Vec<u8>), String> {
    if m.deus_ex {
        return Err("Deus Ex's 16-bit vertices have no _a.3d form this writer knows".into());
    }
    let tris = triangles(m)?;
    let nv = m.vertex_count();
    let frames = m.frame_count();
    let frame_size = nv * 4;
    let (Ok(n_tris), Ok(n_verts), Ok(n_frames), Ok(fsize)) = (
        u16::try_from(tris.len()),
        u16::try_from(nv),
        u16::try_from(frames),
        u16::try_from(frame_size),
    ) else {
        return Err(format!(
            "{} triangles, {nv} vertices, {frames} frames: over the 16-bit counts of the .3d format",
            tris.len()
        ));
    };
    let mut d = Vec::with_capacity(48 + tris.len() * 16);
    d.extend(n_tris.to_le_bytes());
    d.extend(n_verts.to_le_bytes());
    d.resize(48, 0);
    for t in &tris {
        for v in t.verts {
            d.extend(v.to_le_bytes());
        }
        d.push(t.kind);
        d.push(0); // Color (unused)
        for uv in t.uv {
            d.extend(uv);
        }
        d.push(t.texture);
        d.push(0); // Flags (unused)
    }
    let mut a = Vec::with_capacity(4 + frames * frame_size);
    a.extend(n_frames.to_le_bytes());
    a.extend(fsize.to_le_bytes());
    for f in 0..frames {
        for v in 0..nv {
            a.extend(pack_vert(m.packed(f, v)).to_le_bytes());
        }
    }
    Ok((d, a))
}

/// The `#exec` lines that import the pair with the mesh's origin,
/// sequences, scale and notifys (as a class file beside the pair, the way
/// UnrealScript sources carried them).
pub fn exec_script(name: &str, m: &VertMesh) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "class {name} extends Actor;\n");
    let _ = writeln!(
        s,
        "#exec MESH IMPORT MESH={name} ANIVFILE={name}_a.3d DATAFILE={name}_d.3d"
    );
    let [p, y, r] = m.rot_origin;
    let [ox, oy, oz] = m.origin;
    let _ = writeln!(
        s,
        "#exec MESH ORIGIN MESH={name} X={ox} Y={oy} Z={oz} YAW={} PITCH={} ROLL={}\n",
        y >> 8,
        p >> 8,
        r >> 8
    );
    for q in &m.seqs {
        let _ = write!(
            s,
            "#exec MESH SEQUENCE MESH={name} SEQ={} STARTFRAME={} NUMFRAMES={}",
            q.name, q.start, q.frames
        );
        if q.rate != 1.0 && q.frames > 1 {
            let _ = write!(s, " RATE={}", q.rate);
        }
        if !q.group.is_empty() && !q.group.eq_ignore_ascii_case("None") {
            let _ = write!(s, " GROUP={}", q.group);
        }
        s.push('\n');
    }
    let [sx, sy, sz] = m.scale;
    let _ = writeln!(
        s,
        "\n#exec MESHMAP SCALE MESHMAP={name} X={sx} Y={sy} Z={sz}"
    );
    for q in &m.seqs {
        for (time, func) in &q.notifys {
            let _ = writeln!(
                s,
                "#exec MESH NOTIFY MESH={name} SEQ={} TIME={time} FUNCTION={func}",
                q.name
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_is_the_inverse_of_unpacking() {
        for p in [
            [0, 0, 0],
            [-1, -1, -1],
            [1023, -1024, 511],
            [-1024, 1023, -512],
            [5, -7, 9],
        ] {
            assert_eq!(crate::ue1::unpack_vert(pack_vert(p)), p);
        }
    }

    #[test]
    fn types_follow_the_importers_mapping() {
        assert_eq!(tri_type(0), 0);
        assert_eq!(tri_type(PF_TWO_SIDED), 1);
        assert_eq!(tri_type(PF_TWO_SIDED | PF_TRANSLUCENT), 2);
        assert_eq!(tri_type(PF_TWO_SIDED | PF_MASKED), 3);
        assert_eq!(tri_type(PF_TWO_SIDED | PF_MODULATED), 4);
        assert_eq!(tri_type(PF_TWO_SIDED | PF_INVISIBLE), 8);
        assert_eq!(tri_type(PF_UNLIT | PF_ENVIRONMENT), 0x50);
        assert_eq!(tri_type(PF_TWO_SIDED | PF_FLAT | PF_NO_SMOOTH), 0xA1);
    }
}
