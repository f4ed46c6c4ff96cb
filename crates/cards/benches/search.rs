//! Protocol search: time per query (criterion, `cargo bench -p facedown-cards --bench search`).
//!
//! The queries are the ones of the report table: finds of known protocols at their lengths and
//! lower bounds (no protocol within the bound), on two-colour and standard decks.

use criterion::{criterion_main, BenchmarkId, Criterion};
use facedown_cards::search::{
    parse_deck, parse_function, search, SearchQuery, SearchRuntime, ShuffleClass,
};

/// `(label, deck, function, max steps, shuffles, committed, single-card turns)`.
const QUERIES: &[(&str, &str, &str, usize, ShuffleClass, bool, bool)] = &[
    (
        "xor4-committed-L2-cuts",
        "♣♣♥♥",
        "xor",
        2,
        ShuffleClass::RandomCuts,
        true,
        false,
    ),
    (
        "xor4-committed-L2-any",
        "♣♣♥♥",
        "xor",
        2,
        ShuffleClass::Any,
        true,
        false,
    ),
    (
        "xor4-std-committed-L2-cuts",
        "1234",
        "xor",
        2,
        ShuffleClass::Cuts,
        true,
        true,
    ),
    (
        "five-card-trick-L2-cuts",
        "♣♣♥♥♥",
        "and",
        2,
        ShuffleClass::RandomCuts,
        false,
        false,
    ),
    (
        "mks-and4-L4-closed",
        "♣♣♥♥",
        "and",
        4,
        ShuffleClass::Closed,
        false,
        false,
    ),
    (
        "no-and4-committed-L8-closed",
        "♣♣♥♥",
        "and",
        8,
        ShuffleClass::Closed,
        true,
        false,
    ),
    (
        "no-and4-committed-L12-uniform-closed",
        "♣♣♥♥",
        "and",
        12,
        ShuffleClass::UniformClosed,
        true,
        false,
    ),
    (
        "no-and4-committed-L16-random-cuts",
        "♣♣♥♥",
        "and",
        16,
        ShuffleClass::RandomCuts,
        true,
        false,
    ),
    (
        "no-xor4-committed-L4-cuts",
        "♣♣♥♥",
        "xor",
        4,
        ShuffleClass::Cuts,
        true,
        false,
    ),
];

/// Las Vegas queries (committed AND on `♣♣♥♥`): `(label, radius bound, shuffles)`.
const LAS_VEGAS: &[(&str, usize, ShuffleClass)] = &[
    ("lv-and4-committed-R8-closed", 8, ShuffleClass::Closed),
    (
        "no-lv-and4-committed-R24-uniform-closed",
        24,
        ShuffleClass::UniformClosed,
    ),
    (
        "no-lv-and4-committed-cuts-exhausted",
        30,
        ShuffleClass::Cuts,
    ),
];

fn bench_search(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    for &(label, deck, f, steps, shuffles, committed, single) in QUERIES {
        let mut q = SearchQuery::new(
            parse_deck(deck).expect("deck"),
            parse_function(f).expect("function"),
            steps,
        );
        q.shuffles = shuffles;
        q.committed = committed;
        q.single_card_turns = single;
        q.first = true;
        group.bench_with_input(BenchmarkId::from_parameter(label), &q, |b, q| {
            b.iter(|| search(q).expect("search runs"));
        });
    }
    for &(label, radius, shuffles) in LAS_VEGAS {
        let mut q = SearchQuery::new(
            parse_deck("♣♣♥♥").expect("deck"),
            parse_function("and").expect("function"),
            radius,
        );
        q.shuffles = shuffles;
        q.committed = true;
        q.runtime = SearchRuntime::LasVegas;
        q.first = true;
        group.bench_with_input(BenchmarkId::from_parameter(label), &q, |b, q| {
            b.iter(|| search(q).expect("search runs"));
        });
    }
    group.finish();
}

/// The benchmark group (written out instead of `criterion_group!`, whose generated function
/// has no docs).
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    bench_search(&mut c);
}
criterion_main!(benches);
