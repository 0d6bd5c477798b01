//! Benchmark of the mesh exporter over every UE1/UE2 package of the shared
//! corpus: each mesh read (`Mesh`/`LodMesh` of UE1, `StaticMesh`,
//! `SkeletalMesh` with its animation and `VertMesh` of UE2),
//! built into a scene and written as `.glb` in memory; meshes/s and
//! triangles/s on one thread and over the rayon pool, best of N rounds.
//! Packages are mapped and parsed once, outside the timing.
//!
//! Run: `cargo run --release -p pakrat-mesh --example mesh_bench [ROUNDS]`
//! (the corpus: `PAKRAT_CORPUS` or `../shared/corpus`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use pakrat_classic::Package;
use pakrat_io::Source;
use pakrat_mesh::gltf::{self, Format};
use pakrat_mesh::{ue1, ue1_scene, ue2_export, ue2_skel, ue2_static, ue2_vert};
use rayon::prelude::*;

/// One mesh exported to `.glb` bytes: (triangles, bytes written), or
/// `None` when it is not exported.
fn export(pkg: &Package<'_>, i: usize) -> Option<(u64, u64)> {
    let class = pkg.export_class_name(i).ok()?;
    let scene = if class.eq_ignore_ascii_case("StaticMesh") {
        let m = ue2_static::read_static_mesh(pkg, i).ok()?;
        ue2_static::to_scene(pkg, i, &m).ok()?
    } else if class.eq_ignore_ascii_case("SkeletalMesh") {
        let m = ue2_skel::read_skeletal_mesh(pkg, i).ok()?;
        let a = ue2_export::mesh_animation(pkg, &m);
        ue2_export::skeletal_scene(pkg, i, &m, a.as_ref().map(|a| &a.1), false).ok()?
    } else if class.eq_ignore_ascii_case("VertMesh") {
        let m = ue2_vert::read_vert_mesh(pkg, i).ok()?;
        ue2_vert::to_scene(pkg, i, &m).ok()?
    } else if ue1::mesh_class(class).is_some() && pkg.summary.version < 100 {
        let m = ue1::read_mesh(pkg, i).ok()?;
        ue1_scene::to_scene(pkg, i, &m).ok()?
    } else {
        return None;
    };
    let tris = scene.meshes.iter().map(|m| m.triangle_count() as u64).sum();
    let files = gltf::write(&scene, Format::Glb, "m").ok()?;
    Some((tris, files.iter().map(|f| f.1.len() as u64).sum()))
}

/// Every package file of the corpus's UE1, UE2 and licensee folders.
fn corpus_packages() -> Vec<PathBuf> {
    let corpus =
        pakrat_testkit::corpus_dir().expect("the corpus (PAKRAT_CORPUS or ../shared/corpus)");
    let mut paths = Vec::new();
    for dir in ["ue1", "ue2", "licensee"] {
        let Ok(rd) = std::fs::read_dir(corpus.join(dir)) else {
            continue;
        };
        paths.extend(rd.flatten().map(|e| e.path()).filter(|p| p.is_file()));
    }
    paths.sort();
    paths
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let sources: Vec<Source> = corpus_packages()
        .iter()
        .filter_map(|p| Source::open(p).ok())
        .collect();
    let pkgs: Vec<Package<'_>> = sources
        .iter()
        .filter_map(|s| Package::parse(s).ok())
        .collect();
    // (package, export) of every mesh that exports.
    let meshes: Vec<(usize, usize)> = pkgs
        .iter()
        .enumerate()
        .flat_map(|(k, p)| (0..p.exports.len()).map(move |i| (k, i)))
        .filter(|&(k, i)| export(&pkgs[k], i).is_some())
        .collect();
    let run = |par: bool| -> (Duration, u64, u64) {
        let mut best = Duration::MAX;
        let (mut tris, mut bytes) = (0, 0);
        for _ in 0..rounds {
            let t0 = Instant::now();
            let each = |&(k, i): &(usize, usize)| export(&pkgs[k], i).unwrap_or((0, 0));
            let r: Vec<(u64, u64)> = if par {
                meshes.par_iter().map(each).collect()
            } else {
                meshes.iter().map(each).collect()
            };
            best = best.min(t0.elapsed());
            tris = r.iter().map(|x| x.0).sum();
            bytes = r.iter().map(|x| x.1).sum();
        }
        (best, tris, bytes)
    };
    println!(
        "{} packages, {} meshes; best of {rounds} rounds, {} threads",
        pkgs.len(),
        meshes.len(),
        rayon::current_num_threads()
    );
    println!(
        "{:<8} {:>10} {:>10} {:>12} {:>10} {:>10}",
        "threads", "ms", "meshes/s", "triangles/s", "triangles", "MB/s glb"
    );
    for (label, par) in [("1", false), ("all", true)] {
        let (d, tris, bytes) = run(par);
        let s = d.as_secs_f64();
        println!(
            "{label:<8} {:>10.2} {:>10.0} {:>12.0} {:>10} {:>10.1}",
            s * 1e3,
            meshes.len() as f64 / s,
            tris as f64 / s,
            tris,
            bytes as f64 / s / 1e6
        );
    }
}
