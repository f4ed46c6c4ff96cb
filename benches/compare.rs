//! Criterion benches for the comparison matrix of `facedown compare`: every workload on the
//! ideal table, the permutation-sharing dealer and the encrypted deck, one run per iteration
//! through the library the command runs ([`facedown::compare::run_once`]: table setup with one
//! engine per player, the protocol or deal, the end-of-game audit). Card protocols run with
//! every input 1. Message, byte and round counts are not timed here: they come from the
//! drivers' accounting, printed by `facedown compare --json`.

use criterion::{criterion_main, BenchmarkId, Criterion};
use facedown::compare::{entries, run_once, Backend};

/// Every entry on every backend.
fn matrix(c: &mut Criterion) {
    let mut g = c.benchmark_group("compare");
    g.sample_size(10);
    for entry in entries().expect("the comparison's workloads") {
        for backend in Backend::ALL {
            let (_, inputs) = entry.trials(backend).pop().unwrap_or_default();
            let mut trial = 0u64;
            g.bench_function(BenchmarkId::new(entry.name(), backend.name()), |b| {
                b.iter(|| {
                    trial += 1;
                    run_once(&entry, backend, 0, trial, &inputs).expect("runs")
                })
            });
        }
    }
    g.finish();
}

/// The benchmark group (written out instead of `criterion_group!`, whose generated function
/// has no docs).
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    matrix(&mut c);
}

criterion_main!(benches);
