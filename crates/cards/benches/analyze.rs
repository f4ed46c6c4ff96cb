//! Exact analysis of every built-in protocol on both arithmetic paths (`small`: machine
//! integers with overflow checks, the default; `big`: big rationals throughout). Target: every
//! protocol under 50 µs on the small path, release.

use criterion::{black_box, criterion_main, BenchmarkId, Criterion};
use facedown_cards::analyze::{analyze_with, AnalysisOptions, Arithmetic};
use facedown_cards::library::builtins;

fn bench_analyze(c: &mut Criterion) {
    let mut group = c.benchmark_group("analyze");
    for b in builtins() {
        let p = b.protocol();
        for arithmetic in [Arithmetic::Small, Arithmetic::Big] {
            let opts = AnalysisOptions {
                arithmetic,
                ..AnalysisOptions::default()
            };
            let used = analyze_with(&p, &opts)
                .expect("built-ins analyze")
                .arithmetic;
            if used != arithmetic {
                eprintln!("{}: the small path overflowed and fell back", b.name);
            }
            let id = BenchmarkId::new(arithmetic.to_string(), b.name);
            group.bench_with_input(id, &p, |bench, p| {
                bench.iter(|| analyze_with(black_box(p), &opts).expect("built-ins analyze"));
            });
        }
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
