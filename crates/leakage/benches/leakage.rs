//! Benches: the exact collusion table for N = 3 over deck sizes.

use criterion::{criterion_main, BenchmarkId, Criterion};
use facedown_dealer::Scheme;
use facedown_leakage::collusion::{collusion_table, Method};
use facedown_leakage::Schedule;

const DECKS: [usize; 3] = [4, 5, 6];

/// The exact collusion table (hands of 1 and one public card) for n = 4, 5, 6.
fn table(c: &mut Criterion) {
    let mut g = c.benchmark_group("collusion_table_exact_n3");
    g.sample_size(10);
    for n in DECKS {
        let scheme = Scheme::general(3, n).expect("scheme");
        let sched = Schedule::new(&scheme, 1, 1).expect("schedule");
        g.bench_with_input(BenchmarkId::from_parameter(n), &sched, |b, s| {
            b.iter(|| collusion_table(s, Method::Exact).expect("table"))
        });
    }
    g.finish();
}

/// The benchmark group (written out instead of `criterion_group!`, whose generated function
/// has no docs).
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    table(&mut c);
}

criterion_main!(benches);
