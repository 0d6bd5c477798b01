//! Name resolution in a plain folder (issue 32 item 8): `deps` on a package
//! that reaches every other one, and `scan`, over synthetic folders of 1k,
//! 3k and 9k small packages. Resolution is one hash lookup per name (the
//! folder's name index is built once), so time should grow linearly with
//! the package count; with a scan of every file per name it grew with its
//! square (9,000 packages took 3.4 s in `deps`).
//!
//! ```text
//! cargo bench -p pakrat-system --bench resolve
//! ```
//!
//! The folders are written once into a temporary folder (outside the
//! timing): package `P{i}` imports `Core`, `P{i-1}` and `P{i/2}`, spread
//! over 16 subfolders, as a plain folder (no System folder, no ini).

use std::path::Path;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use pakrat_io::Writer;
use pakrat_system::{deps, scan, GameDir};

/// A v69 package with only a name table and imports of `deps` (each a
/// top-level `Core.Package` import).
fn package(deps: &[String]) -> Vec<u8> {
    let mut names: Vec<String> = ["None", "Core", "Package"].map(String::from).to_vec();
    names.extend(deps.iter().cloned());
    let mut w = Writer::new();
    w.u32(0x9E2A_83C1).u16(69).u16(0).u32(1);
    let fields = w.len();
    w.zeros(24);
    w.guid(pakrat_io::Guid {
        words: [1, 2, 3, 4],
    });
    w.i32(1).i32(0).i32(names.len() as i32);
    let name_off = w.len();
    for n in &names {
        w.fstring(&n.as_str().into()).u32(0x0007_0010);
    }
    let imp_off = w.len();
    for k in 0..deps.len() {
        w.compact(1).compact(2).i32(0).compact(3 + k as i32);
    }
    let exp_off = w.len();
    let v = [names.len(), name_off, 0, exp_off, deps.len(), imp_off];
    for (i, x) in v.iter().enumerate() {
        w.patch_u32(fields + 4 * i, *x as u32);
    }
    w.into_inner()
}

fn make_folder(root: &Path, n: usize) {
    for d in 0..16 {
        std::fs::create_dir_all(root.join(format!("d{d}"))).unwrap();
    }
    std::fs::write(root.join("d0/Core.u"), package(&[])).unwrap();
    for i in 0..n {
        let mut deps = vec!["Core".to_string()];
        if i > 0 {
            deps.push(format!("P{}", i - 1));
        }
        if i > 1 && i / 2 != i - 1 {
            deps.push(format!("P{}", i / 2));
        }
        let path = root.join(format!("d{}/P{i}.u", i % 16));
        std::fs::write(path, package(&deps)).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("plain_folder");
    group.sample_size(10);
    for n in [1_000usize, 3_000, 9_000] {
        let root = tmp.path().join(format!("n{n}"));
        make_folder(&root, n);
        let top = format!("P{}", n - 1);
        group.bench_with_input(BenchmarkId::new("deps", n), &n, |b, &n| {
            b.iter(|| {
                let game = GameDir::open(&root, None).unwrap();
                let g = deps::walk(&game, &top).unwrap();
                assert_eq!(g.nodes.len(), n + 1);
                assert!(g.missing.is_empty());
            })
        });
        group.bench_with_input(BenchmarkId::new("scan", n), &n, |b, &n| {
            b.iter(|| {
                let r = scan::scan(&root, &|_| {}).unwrap();
                assert_eq!(r.packages.len(), n + 1);
                assert!(r.missing.is_empty());
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
