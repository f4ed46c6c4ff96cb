//! Exact analysis of every built-in protocol (target: well under 1 ms each, release).

use criterion::{black_box, criterion_main, BenchmarkId, Criterion};
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

/// The benchmark group (written out instead of `criterion_group!`, whose generated function
/// has no docs).
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    bench_analyze(&mut c);
}

criterion_main!(benches);
