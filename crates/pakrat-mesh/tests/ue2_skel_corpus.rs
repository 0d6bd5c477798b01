//! The UE2 skeletal meshes, animations and vertex meshes of the corpus
//! against the counts UEViewer (umodel, built from its public source,
//! commit a0bfb468, run with `-export -psk` and `-export -gltf` on
//! 2026-11-26) wrote for the same objects: vertices (wedges), triangles,
//! bones, points and weights of its `.psk`, sequences, frames and keys of
//! its `.psa`, polygons, vertices and frames of its `_d.3d`/`_a.3d`. The
//! `.psk`/`.psa` files pakrat writes must hold the same counts.
//! docs/meshes.md lists them.

use pakrat_classic::Package;
use pakrat_mesh::{psk, ue2_anim, ue2_export, ue2_skel, ue2_vert};

/// (package, mesh, wedges, triangles, bones, psk points, psk weights,
/// sequences, frames) as umodel wrote them.
type Row = (
    &'static str,
    &'static str,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
);

const SKELETAL: &[Row] = &[
    (
        "licensee/hp3_RT_Box_K.ukx",
        "BoxModel",
        20,
        12,
        4,
        8,
        12,
        6,
        28,
    ),
    (
        "ue2/Intro_brockfan.ukx",
        "intro_BrockFan",
        1345,
        1976,
        73,
        1021,
        1575,
        1,
        506,
    ),
    (
        "ue2/NvidiaGorge.ukx",
        "Nvidia_anim2",
        5847,
        5760,
        75,
        2657,
        2958,
        1,
        296,
    ),
    (
        "ue2/SniperAnims.ukx",
        "SniperRifle_1st",
        1408,
        1269,
        2,
        1006,
        1006,
        6,
        58,
    ),
    (
        "ue2/intro_jugchick.ukx",
        "intro_jugchick",
        2071,
        2853,
        71,
        1553,
        1837,
        5,
        2680,
    ),
    (
        "ue2/tk_ZenCoders.u",
        "Benelli_1st",
        644,
        880,
        6,
        496,
        496,
        5,
        74,
    ),
];

/// (package, vertex mesh, polygons, wedges, frames) of umodel's `.3d` pair.
const VERTMESH: &[(&str, &str, usize, usize, usize)] = &[
    ("ue2/XVehicles_rc.u", "hoverPlatM", 932, 2796, 1),
    ("ue2/XVehicles_rc.u", "hoverbikeBM", 888, 2664, 1),
    ("ue2/XVehicles_rc.u", "tireLeftM", 168, 135, 1),
    ("ue2/XVehicles_rc.u", "tireRightM", 168, 135, 1),
    ("ue2/XVehicles_rc.u", "viperM", 1330, 1566, 1),
    ("ue2/XVehicles_rc.u", "hoverbikeAM", 866, 2598, 1),
];

fn find(pkg: &Package<'_>, name: &str) -> usize {
    (0..pkg.exports.len())
        .find(|&i| {
            pkg.name(pkg.exports[i].object_name)
                .eq_ignore_ascii_case(name)
        })
        .unwrap_or_else(|| panic!("{name} not in the package"))
}

/// ActorX chunk counts by id.
fn chunk_counts(d: &[u8]) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut o = 0;
    while o + 32 <= d.len() {
        let id = String::from_utf8_lossy(&d[o..o + 20])
            .trim_end_matches('\0')
            .to_string();
        let size = i32::from_le_bytes(d[o + 24..o + 28].try_into().unwrap()) as usize;
        let count = i32::from_le_bytes(d[o + 28..o + 32].try_into().unwrap()) as usize;
        out.push((id, count));
        o += 32 + size * count;
    }
    assert_eq!(o, d.len(), "chunks end with the file");
    out
}

fn count(c: &[(String, usize)], id: &str) -> usize {
    c.iter().find(|x| x.0 == id).map(|x| x.1).unwrap()
}

fn rotate(q: [f32; 4], v: [f32; 3]) -> [f32; 3] {
    let [x, y, z, w] = q;
    let u = [x, y, z];
    let cross = |a: [f32; 3], b: [f32; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let t = cross(u, v).map(|c| 2.0 * c);
    let c = cross(u, t);
    [0, 1, 2].map(|k| v[k] + w * t[k] + c[k])
}

fn qmul(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// Median distance from each bone (with at least 5 vertices it dominates)
/// to the centre of those vertices, over the mesh's size; `flip` inverts
/// every non-root rotation (the other convention).
fn bone_fit(scene: &pakrat_mesh::model::Scene, flip: bool) -> Option<f32> {
    let sk = scene.skeleton.as_ref()?;
    let m = &scene.meshes[0];
    let mut world: Vec<([f32; 3], [f32; 4])> = Vec::new();
    for b in &sk.bones {
        let mut q = b.rotation;
        if flip && b.parent.is_some() {
            q = [-q[0], -q[1], -q[2], q[3]];
        }
        world.push(match b.parent {
            Some(p) => {
                let (pt, pq) = world[p];
                let t = rotate(pq, b.translation);
                ([pt[0] + t[0], pt[1] + t[1], pt[2] + t[2]], qmul(pq, q))
            }
            None => (b.translation, q),
        });
    }
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    for p in &m.positions {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    let size = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f32>().sqrt();
    let mut d = Vec::new();
    for (b, w) in world.iter().enumerate() {
        let vs: Vec<&[f32; 3]> = (0..m.positions.len())
            .filter(|&v| usize::from(m.joints[v][0]) == b && m.weights[v][0] > 0.5)
            .map(|v| &m.positions[v])
            .collect();
        if vs.len() < 5 {
            continue;
        }
        let c = [0, 1, 2].map(|k| vs.iter().map(|p| p[k]).sum::<f32>() / vs.len() as f32);
        d.push((0..3).map(|k| (c[k] - w.0[k]).powi(2)).sum::<f32>().sqrt() / size);
    }
    d.sort_by(f32::total_cmp);
    d.get(d.len() / 2).copied()
}

#[test]
fn skeletal_meshes_match_umodel() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let mut better = false;
    for &(file, name, wedges, tris, bones, points, weights, seqs, frames) in SKELETAL {
        let data = std::fs::read(corpus.join(file)).unwrap();
        let pkg = Package::parse(&data).unwrap();
        let i = find(&pkg, name);
        let m = ue2_skel::read_skeletal_mesh(&pkg, i).unwrap();
        let (_, anim) = ue2_export::mesh_animation(&pkg, &m).expect("its animation");
        let scene = ue2_export::skeletal_scene(&pkg, i, &m, Some(&anim), false).unwrap();
        let mesh = &scene.meshes[0];
        assert_eq!(
            (mesh.positions.len(), mesh.triangle_count(), m.bones.len()),
            (wedges, tris, bones),
            "{name}"
        );
        assert_eq!(
            (anim.seqs.len(), anim.frame_count()),
            (seqs, frames),
            "{name}"
        );
        assert_eq!(scene.animations.len(), seqs);
        let infos: Vec<psk::SeqInfo> = anim
            .seqs
            .iter()
            .map(|s| psk::SeqInfo {
                name: s.name.clone(),
                group: String::new(),
                rate: s.rate,
                frames: s.frames as usize,
            })
            .collect();
        let files = psk::write(&scene, "m", Some(&infos)).unwrap();
        let k = chunk_counts(&files[0].1);
        assert_eq!(
            [
                count(&k, "PNTS0000"),
                count(&k, "VTXW0000"),
                count(&k, "FACE0000"),
                count(&k, "REFSKELT"),
                count(&k, "RAWWEIGHTS")
            ],
            [points, wedges, tris, bones, weights],
            "{name}.psk"
        );
        let a = chunk_counts(&files[1].1);
        assert_eq!(
            [
                count(&a, "BONENAMES"),
                count(&a, "ANIMINFO"),
                count(&a, "ANIMKEYS")
            ],
            [bones, seqs, frames * bones],
            "{name}.psa"
        );
        let glb = pakrat_mesh::gltf::write(&scene, pakrat_mesh::gltf::Format::Glb, "m").unwrap();
        assert!(glb[0].1.starts_with(b"glTF"));
        // The rotation convention puts each bone among the vertices it
        // moves; the other one does not (where the rest pose rotates).
        if bones > 10 {
            let ours = bone_fit(&scene, false).unwrap();
            let other = bone_fit(&scene, true).unwrap();
            eprintln!("{name}: bone fit {ours:.3} (other convention {other:.3})");
            assert!(
                ours < 0.1 && ours <= other + 1e-4,
                "{name}: {ours} vs {other}"
            );
            better |= ours < other / 2.0;
        }
    }
    assert!(better, "no mesh tells the bone conventions apart");
}

#[test]
fn vertex_meshes_match_umodel() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    for &(file, name, polys, wedges, frames) in VERTMESH {
        let data = std::fs::read(corpus.join(file)).unwrap();
        let pkg = Package::parse(&data).unwrap();
        let i = find(&pkg, name);
        let m = ue2_vert::read_vert_mesh(&pkg, i).unwrap();
        let scene = ue2_vert::to_scene(&pkg, i, &m).unwrap();
        assert_eq!(
            (
                scene.meshes[0].triangle_count(),
                scene.meshes[0].positions.len(),
                m.frame_count as usize
            ),
            (polys, wedges, frames),
            "{name}"
        );
    }
}

#[test]
fn stand_alone_animation_and_skipped_meshes() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let data = std::fs::read(corpus.join("ue2/tk_ZenCoders.u")).unwrap();
    let pkg = Package::parse(&data).unwrap();
    // ZenAnims (umodel's psa: 4 bones, 3 sequences, 35 frames) is played
    // by meshes whose geometry is only the encoded skinning stream.
    let i = find(&pkg, "ZenAnims");
    let a = ue2_anim::read_mesh_animation(&pkg, i).unwrap();
    assert_eq!((a.bones.len(), a.seqs.len(), a.frame_count()), (4, 3, 35));
    let scene = ue2_export::animation_scene(&pkg, i, &a).unwrap();
    assert_eq!(scene.animations.len(), 3);
    for name in ["mp5_3rd", "Benelli_3rd", "mp5_1st"] {
        let m = ue2_skel::read_skeletal_mesh(&pkg, find(&pkg, name)).unwrap();
        assert!(
            m.lod_geometry(0).is_none_or(|g| g.tris.is_empty()),
            "{name}"
        );
    }
}
