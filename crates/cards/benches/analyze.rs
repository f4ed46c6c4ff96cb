//! Exact analysis of every built-in protocol (target: well under 1 ms each, release).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use facedown_cards::analyze::analyze;
use facedown_cards::library::builtins;

fn bench_analyze(c: &mut Criterion) {
    let mut group = c.benchmark_group("analyze");
    for b in builtins() {
        let p = b.protocol();
        group.bench_with_input(BenchmarkId::from_parameter(b.name), &p, |bench, p| {
            bench.iter(|| analyze(black_box(p)).expect("built-ins analyze"));
        });
    }
    group.finish();
}

criterion_group!(benches, bench_analyze);
criterion_main!(benches);
