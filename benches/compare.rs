//! Criterion benches for the comparison matrix of `facedown compare`: every workload on the
//! ideal table, the permutation-sharing dealer and the encrypted deck. One iteration is one
//! complete run (table setup, the protocol or deal, the end-of-game audit); card protocols run
//! with input `a = b = 1`. Message, byte and round counts are not timed here: they come from
//! the backends' accounting, printed by `facedown compare --json`.

use criterion::{criterion_main, BenchmarkId, Criterion};
use facedown::cards::library;
use facedown::cards::on_table::{run_on_table, RunOptions};
use facedown::cards::Protocol;
use facedown::core::rng::trial_rng;
use facedown::core::table::{FaceDownTable, ShuffleSet};
use facedown::core::{IdealTable, PartyId, Symbol};
use facedown::dealer::table::DealerTable;
use facedown::poker::table::{EncryptedTable, Transcript};
use rand_chacha::ChaCha20Rng;

const CARD_PROTOCOLS: [&str; 4] = [
    "five-card-trick",
    "mks-four-card-and",
    "ms09-six-card-and",
    "ms09-four-card-xor",
];

/// `(name, players, cards, hand, public)`.
const DEALS: [(&str, usize, u16, usize, usize); 2] =
    [("ninety-nine", 3, 37, 12, 1), ("poker", 4, 52, 2, 5)];

fn encrypted(parties: usize, rng: ChaCha20Rng) -> EncryptedTable<ChaCha20Rng> {
    EncryptedTable::setup_with_rng(parties, Transcript::new(b"facedown bench"), rng)
        .expect("honest setup")
}

fn card<T: FaceDownTable>(p: &Protocol, mut table: T) -> Vec<bool> {
    let owners: Vec<PartyId> = PartyId::all(2).collect();
    let run = run_on_table(p, &[true, true], &owners, &mut table, RunOptions::default())
        .expect("runs on every backend");
    table.finish().expect("honest audit");
    run.outputs
}

fn deal<T: FaceDownTable>(mut table: T, cards: u16, hand: usize, public: usize) -> usize {
    let deck: Vec<Symbol> = (0..cards).map(Symbol::Card).collect();
    table.place(&deck).expect("place");
    table.shuffle(&ShuffleSet::All).expect("deal");
    let mut opened = 0;
    for p in PartyId::all(table.parties()) {
        let pos: Vec<usize> = (p.index() * hand..(p.index() + 1) * hand).collect();
        opened += table.open_to(p, &pos).expect("open").len();
    }
    let start = table.parties() * hand;
    let up: Vec<usize> = (start..start + public).collect();
    opened += table.turn(&up).expect("turn").len();
    table.finish().expect("honest audit");
    opened
}

/// Card protocols on every backend.
fn card_protocols(c: &mut Criterion) {
    let mut g = c.benchmark_group("compare/card");
    g.sample_size(10);
    for name in CARD_PROTOCOLS {
        let p = library::find(name).expect("built in").protocol();
        let mut trial = 0u64;
        let mut next = || {
            trial += 1;
            trial_rng(0, trial)
        };
        g.bench_function(BenchmarkId::new(name, "ideal"), |b| {
            b.iter(|| card(&p, IdealTable::with_rng(2, next())))
        });
        g.bench_function(BenchmarkId::new(name, "dealer"), |b| {
            b.iter(|| card(&p, DealerTable::with_rng(2, next())))
        });
        g.bench_function(BenchmarkId::new(name, "encrypted"), |b| {
            b.iter(|| card(&p, encrypted(2, next())))
        });
    }
    g.finish();
}

/// Deals on every backend.
fn deals(c: &mut Criterion) {
    let mut g = c.benchmark_group("compare/deal");
    g.sample_size(10);
    for (name, players, cards, hand, public) in DEALS {
        let mut trial = 0u64;
        let mut next = || {
            trial += 1;
            trial_rng(1, trial)
        };
        g.bench_function(BenchmarkId::new(name, "ideal"), |b| {
            b.iter(|| deal(IdealTable::with_rng(players, next()), cards, hand, public))
        });
        g.bench_function(BenchmarkId::new(name, "dealer"), |b| {
            b.iter(|| deal(DealerTable::with_rng(players, next()), cards, hand, public))
        });
        g.bench_function(BenchmarkId::new(name, "encrypted"), |b| {
            b.iter(|| deal(encrypted(players, next()), cards, hand, public))
        });
    }
    g.finish();
}

/// The benchmark group (written out instead of `criterion_group!`, whose generated function
/// has no docs).
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    card_protocols(&mut c);
    deals(&mut c);
}

criterion_main!(benches);
