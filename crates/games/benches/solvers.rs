//! The exact solvers: a Devyatka deal (both results and the importance of the first move) over
//! a fixed set of seeded random deals and over deals found by the importance search, and the
//! Chopsticks retrograde analysis for rollovers 5..12.

use criterion::{criterion_main, BenchmarkId, Criterion};
use facedown_core::rng::seeded_rng;
use facedown_games::chopsticks::{Graph, Rules, Solution};
use facedown_games::devyatka::{distinct_importances, Deal, Solver};

const DEALS: usize = 64;
const ROLLOVERS: [u8; 3] = [5, 8, 12];

fn devyatka(c: &mut Criterion) {
    let mut rng = seeded_rng(1769);
    let random: Vec<Deal> = (0..DEALS).map(|_| Deal::random(&mut rng)).collect();
    let important: Vec<Deal> = distinct_importances(13, 100_000, 13, &mut |_| {})
        .expect("13 distinct importances")
        .deals
        .into_iter()
        .map(|f| f.deal)
        .collect();
    let mut group = c.benchmark_group("devyatka_importance_per_deal");
    group.sample_size(10);
    for (name, deals) in [("random", &random), ("k13_output", &important)] {
        let mut solver = Solver::new();
        let mut next = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                let deal = deals[next % deals.len()];
                next += 1;
                solver.importance(&deal)
            })
        });
    }
    group.finish();
}

fn chopsticks(c: &mut Criterion) {
    let mut group = c.benchmark_group("chopsticks_retrograde_two_players");
    group.sample_size(10);
    for &r in &ROLLOVERS {
        let rules = Rules::pr(2, r);
        group.bench_with_input(BenchmarkId::from_parameter(r), &rules, |b, rules| {
            b.iter(|| {
                let graph = Graph::from_start(rules, 1 << 20).expect("small");
                Solution::retrograde(&graph).value(0)
            })
        });
    }
    group.finish();
}

/// The benchmark group (written out instead of `criterion_group!`, whose generated function
/// has no docs).
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    devyatka(&mut c);
    chopsticks(&mut c);
}

criterion_main!(benches);
