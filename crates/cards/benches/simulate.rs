//! Simulator throughput (target: ≥ 10 million five-card-trick runs per second on 2 cores).
//!
//! Each iteration simulates `RUNS` runs of every input on the global rayon pool, so the
//! reported throughput is `4 · RUNS` runs per iteration time.

use criterion::{black_box, criterion_main, BenchmarkId, Criterion, Throughput};
use facedown_cards::library::find;
use facedown_cards::simulate::Compiled;

const RUNS: u64 = 1 << 20;
const PROTOCOLS: [&str; 3] = [
    "five-card-trick",
    "mks-four-card-and",
    "four-card-las-vegas-and",
];

fn bench_simulate(c: &mut Criterion) {
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10);
    for name in PROTOCOLS {
        let p = find(name).expect("built in").protocol();
        let compiled = Compiled::new(&p).expect("compiles");
        let total = RUNS * compiled.input_count() as u64;
        group.throughput(Throughput::Elements(total));
        group.bench_with_input(BenchmarkId::from_parameter(name), &compiled, |bench, c| {
            bench.iter(|| {
                c.simulate(name, &[], black_box(RUNS), 1, None)
                    .expect("simulates")
            });
        });
    }
    group.finish();
}

/// The benchmark group (written out instead of `criterion_group!`, whose generated function
/// has no docs).
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    bench_simulate(&mut c);
}

criterion_main!(benches);
