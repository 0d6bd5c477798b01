//! `convert::from_legacy` against the import count (issue 32, item 8): a
//! corpus legacy package (`zenpair/retoc/UE5.6/SM_Cube`) with N imports
//! added, half packages and half one object in each, so every import has
//! its own package and its own public export hash (the worst case for a
//! lookup by linear search). Linear scaling: time per import stays flat
//! from 1k to 50k imports. Skips (says so) without the corpus.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use pakrat_asset::convert::{self, ZenTarget};
use pakrat_asset::legacy::{FName, Layout, LegacyPackage, NameEntry};

/// The base package with `n` more imports (n/2 packages, n/2 objects).
pub fn with_imports(base: &LegacyPackage, n: usize) -> LegacyPackage {
    let mut p = base.clone();
    let name = |p: &mut LegacyPackage, text: &str| -> FName {
        let i = p
            .names
            .iter()
            .position(|x| x.text == text)
            .unwrap_or_else(|| {
                p.names.push(NameEntry::new(text));
                p.names.len() - 1
            });
        FName {
            index: i as i32,
            number: 0,
        }
    };
    let core = name(&mut p, "/Script/CoreUObject");
    let package = name(&mut p, "Package");
    let engine = name(&mut p, "/Script/Engine");
    let mesh = name(&mut p, "StaticMesh");
    let template = base.imports[0].clone();
    for k in 0..n / 2 {
        let pk = FName {
            index: p.names.len() as i32,
            number: 0,
        };
        p.names.push(NameEntry::new(&format!("/Game/Bench/P{k}")));
        let ob = FName {
            index: p.names.len() as i32,
            number: 0,
        };
        p.names.push(NameEntry::new(&format!("O{k}")));
        let outer = -(p.imports.len() as i32) - 1;
        let mut a = template.clone();
        a.class_package = core;
        a.class_name = package;
        a.outer = 0;
        a.object_name = pk;
        p.imports.push(a);
        let mut b = template.clone();
        b.class_package = engine;
        b.class_name = mesh;
        b.outer = outer;
        b.object_name = ob;
        p.imports.push(b);
    }
    p
}

fn bench(c: &mut Criterion) {
    let Some(root) = pakrat_testkit::corpus_dir() else {
        eprintln!("from_legacy_imports: no corpus, skipped");
        return;
    };
    let dir = root.join("zenpair/retoc/UE5.6");
    let asset = std::fs::read(dir.join("SM_Cube.uasset")).unwrap();
    let uexp = std::fs::read(dir.join("SM_Cube.uexp")).unwrap();
    let base = LegacyPackage::read(&asset, Layout::for_engine("5.6")).unwrap();
    convert::from_legacy(&base, &uexp, None, ZenTarget::for_layout(base.layout)).unwrap();
    let mut g = c.benchmark_group("from_legacy_imports");
    g.sample_size(10);
    for n in [1_000usize, 10_000, 50_000] {
        let p = with_imports(&base, n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &p, |b, p| {
            b.iter(|| {
                convert::from_legacy(p, &uexp, None, ZenTarget::for_layout(p.layout)).unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
