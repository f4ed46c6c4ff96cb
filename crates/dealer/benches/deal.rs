//! A 52-card deal with every card opened, privately and publicly, for N = 3..8 players:
//! setup (commitments, helper halves), 52 private openings (card `i` to player `i mod N + 1`,
//! one parallel batch), 52 public openings (one parallel batch), then the openings of every
//! commitment and the audit. Everything is signed and verified. The message, byte and round
//! counts of each phase are printed once per `N` (they do not depend on timing).

use criterion::{criterion_main, BenchmarkId, Criterion};
use facedown_core::rng::trial_rng;
use facedown_core::PartyId;
use facedown_dealer::messages::SessionId;
use facedown_dealer::{Body, Envelope, Finished, Recipient, Roster, Scheme, Table};

const PLAYERS: [usize; 6] = [3, 4, 5, 6, 7, 8];
const CARDS: usize = 52;

fn full_deal(players: usize, trial: u64) -> Finished {
    let scheme = Scheme::general(players, CARDS).expect("valid parameters");
    let mut rng = trial_rng(52, trial);
    let mut table = Table::setup_with_rng(scheme.clone(), None, &mut rng).expect("setup");
    let private: Vec<_> = (0..CARDS)
        .map(|i| {
            let to = PartyId::from_index(i % players);
            (
                i,
                scheme.private_route(to).expect("every player has a path"),
            )
        })
        .collect();
    table.run("52 private openings", &private).expect("private");
    let all: Vec<usize> = (0..CARDS).collect();
    table.open_public(&all).expect("public");
    let finished = table.finish().expect("audit");
    assert!(finished.audit.passed);
    finished
}

/// The same deals timed in CPU time of the one thread that runs every player (the in-memory
/// driver runs them in turn), so the figure is the whole deal's CPU and does not count time
/// spent waiting for a core on a shared machine.
fn bench_deal_cpu(c: &mut Criterion) {
    let mut group = c.benchmark_group("dealer_52_cards_all_opened_cpu");
    group.sample_size(10);
    for &players in &PLAYERS {
        let mut trial = 1;
        group.bench_with_input(BenchmarkId::from_parameter(players), &players, |b, &p| {
            b.iter_custom(|iters| {
                let start = cpu_time::ThreadTime::now();
                for _ in 0..iters {
                    trial += 1;
                    full_deal(p, trial);
                }
                start.elapsed()
            })
        });
    }
    group.finish();
}

fn bench_deal(c: &mut Criterion) {
    let mut group = c.benchmark_group("dealer_52_cards_all_opened");
    group.sample_size(10);
    for &players in &PLAYERS {
        let f = full_deal(players, 0);
        for phase in &f.phases {
            eprintln!(
                "N = {players}: {:<40} messages {:>5}  bytes {:>7}  rounds {}",
                phase.name, phase.cost.messages, phase.cost.bytes, phase.cost.rounds
            );
        }
        let mut trial = 1;
        group.bench_with_input(BenchmarkId::from_parameter(players), &players, |b, &p| {
            b.iter(|| {
                trial += 1;
                full_deal(p, trial)
            })
        });
    }
    group.finish();
}

/// What one value message costs to sign and to check: the dominant cost of a deal, which
/// signs every message once and verifies it at every receiver and again in the audit.
fn bench_message(c: &mut Criterion) {
    let key = ed25519_dalek::SigningKey::from_bytes(&[7; 32]);
    let roster = Roster::of(std::slice::from_ref(&key));
    let session = SessionId([1; 32]);
    let body = Body::Value {
        op: 1,
        hop: 0,
        value: 17,
    };
    let to = Recipient::All;
    let mut group = c.benchmark_group("dealer_value_message");
    group.bench_function("sign", |b| {
        b.iter(|| Envelope::sign(&session, &key, PartyId(1), to, 0, body.clone()))
    });
    let env = Envelope::sign(&session, &key, PartyId(1), to, 0, body.clone());
    group.bench_function("verify", |b| b.iter(|| env.verify(&session, &roster)));
    let bytes = env.to_bytes();
    group.bench_function("decode", |b| {
        b.iter(|| Envelope::from_bytes(&bytes, PartyId(1)))
    });
    group.finish();
}

/// The benchmark group (written out instead of `criterion_group!`, whose generated function
/// has no docs).
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    bench_message(&mut c);
    bench_deal(&mut c);
    bench_deal_cpu(&mut c);
}

criterion_main!(benches);
