//! Exact analysis of every built-in protocol on both arithmetic paths (`small`: machine
//! integers with overflow checks, the default; `big`: big rationals throughout). Target: every
//! protocol under 50 µs of CPU on the small path, release.
//!
//! Every figure is the **thread CPU time** of the thread that ran the analyses
//! (`CLOCK_THREAD_CPUTIME_ID`, through `cpu_time::ThreadTime`), not wall time, so that other
//! work on a loaded machine does not inflate it: criterion's `time` column is CPU time here.
//! After criterion, a summary table gives each protocol's median CPU time per analysis over a
//! few batches, and the largest of them against the target.
//!
//! The bench allocates with mimalloc, as the `facedown` binary does, so that its figures are
//! those of the headline report.
//!
//! The `large` group analyses one protocol with a large shuffle, outside the target: eight
//! cards, four ♣ and four ♥, shuffled uniformly over all 40 320 permutations (322 560 products
//! for the 8 inputs' rows, into the 70 sequences of four ♣ and four ♥), then every card turned.

use std::time::Duration;

use cpu_time::ThreadTime;
use criterion::{black_box, criterion_main, BenchmarkId, Criterion};
use facedown_cards::analyze::{analyze_with, AnalysisOptions, Arithmetic};
use facedown_cards::library::builtins;
use facedown_cards::Protocol;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The target of issue 21, per protocol on the small path.
const TARGET_US: f64 = 50.0;

fn options(arithmetic: Arithmetic) -> AnalysisOptions {
    AnalysisOptions {
        arithmetic,
        ..AnalysisOptions::default()
    }
}

/// The thread CPU time of `iters` analyses of `p`.
fn cpu_of(p: &Protocol, opts: &AnalysisOptions, iters: u64) -> Duration {
    let start = ThreadTime::now();
    for _ in 0..iters {
        black_box(analyze_with(black_box(p), opts).expect("built-ins analyze"));
    }
    start.elapsed()
}

fn bench_analyze(c: &mut Criterion) {
    let mut group = c.benchmark_group("analyze");
    for b in builtins() {
        let p = b.protocol();
        for arithmetic in [Arithmetic::Small, Arithmetic::Big] {
            let opts = options(arithmetic);
            let used = analyze_with(&p, &opts)
                .expect("built-ins analyze")
                .arithmetic;
            if used != arithmetic {
                eprintln!("{}: the small path overflowed and fell back", b.name);
            }
            let id = BenchmarkId::new(arithmetic.to_string(), b.name);
            group.bench_with_input(id, &p, |bench, p| {
                bench.iter_custom(|iters| cpu_of(p, &opts, iters));
            });
        }
    }
    group.finish();
}

/// Three inputs in eight cards, shuffled over every order, every card turned.
const LARGE: &str = "protocol eight-cards-every-order
inputs a b c
function and
layout a b c ♣ ♥
shuffle <(1 2 3 4 5 6 7 8), (1 2)>
turn 1 2 3 4 5 6 7 8
";

fn bench_large(c: &mut Criterion) {
    let p = facedown_cards::parse::parse(LARGE).expect("the large protocol parses");
    let opts = options(Arithmetic::Small);
    let mut group = c.benchmark_group("large");
    group.sample_size(10);
    group.bench_function("eight-cards-every-order", |bench| {
        bench.iter_custom(|iters| cpu_of(&p, &opts, iters));
    });
    group.finish();
}

/// The median CPU time of one small-path analysis of `p`, in µs, over 9 batches of about
/// 20 ms each.
fn median_cpu_us(p: &Protocol) -> f64 {
    let opts = options(Arithmetic::Small);
    let once = cpu_of(p, &opts, 10).as_secs_f64() / 10.0;
    let iters = ((0.02 / once.max(1e-9)) as u64).clamp(10, 100_000);
    let mut per: Vec<f64> = (0..9)
        .map(|_| cpu_of(p, &opts, iters).as_secs_f64() / iters as f64 * 1e6)
        .collect();
    per.sort_by(f64::total_cmp);
    per[per.len() / 2]
}

/// Prints each protocol's median CPU time and the largest against the target.
fn summary() {
    println!("\nthread CPU per analysis, small path (median of 9 batches):");
    let mut worst = (0.0, "");
    for b in builtins() {
        let us = median_cpu_us(&b.protocol());
        println!("  {:<36} {us:>8.1} µs", b.name);
        if us > worst.0 {
            worst = (us, b.name);
        }
    }
    let verdict = if worst.0 < TARGET_US { "under" } else { "OVER" };
    println!(
        "largest: {} at {:.1} µs, {verdict} the {TARGET_US} µs target",
        worst.1, worst.0
    );
}

/// The benchmark group (written out instead of `criterion_group!`, whose generated function
/// has no docs), then the summary (skipped when criterion only tests or lists the benches).
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    bench_analyze(&mut c);
    bench_large(&mut c);
    if !std::env::args().any(|a| a == "--test" || a == "--list") {
        summary();
    }
}

criterion_main!(benches);
