//! `Usmap::parse` of the corpus mappings (`pak/cue4parse/UE5_8/Mappings/`):
//! one dump stored uncompressed and compressed with Oodle, Brotli and
//! Zstandard, parsed from memory (the file read beforehand). Prints, per
//! file, the peak heap of one parse and the heap the model keeps (a
//! counting allocator), then criterion's time per parse. Skips (says so)
//! without the corpus. docs/usmap.md has the figures.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pakrat_asset::usmap::Usmap;
use pakrat_testkit::mutate::CountingAlloc;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fn bench(c: &mut Criterion) {
    let Some(root) = pakrat_testkit::corpus_dir() else {
        eprintln!("usmap_parse: no corpus, skipped");
        return;
    };
    let dir = root.join("pak/cue4parse/UE5_8/Mappings");
    let mut g = c.benchmark_group("usmap_parse");
    g.sample_size(20);
    for method in ["Uncompressed", "Oodle", "Brotli", "Zstandard"] {
        let data = std::fs::read(dir.join(format!("CUE4ParseFixtures-{method}.usmap"))).unwrap();
        let before = ALLOC.live();
        ALLOC.reset_peak();
        let u = Usmap::parse(&data).unwrap();
        let peak = ALLOC.peak().saturating_sub(before);
        let kept = ALLOC.live().saturating_sub(before);
        eprintln!(
            "usmap_parse {method:12} file {:7} bytes, payload {} bytes: peak heap {:.1} MiB, model {:.1} MiB",
            data.len(),
            u.decompressed_size,
            peak as f64 / 1048576.0,
            kept as f64 / 1048576.0
        );
        drop(u);
        g.throughput(Throughput::Bytes(data.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(method), &data, |b, d| {
            b.iter(|| Usmap::parse(d).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
