//! Criterion benches: the 52-card shuffle argument (prove, verify), a reveal token (make,
//! verify), a full 4-player deal, and the multiscalar-multiplication floor for comparison.

#![allow(missing_docs)] // criterion_group! generates an undocumented function.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::VartimeMultiscalarMul;
use facedown_core::{rng::seeded_rng, PartyId};
use facedown_poker::deal::{deal_with_rng, DealParams};
use facedown_poker::elgamal::{CardEncoding, Deck};
use facedown_poker::generators::CommitmentKey;
use facedown_poker::keys::{joint_key, SecretKey};
use facedown_poker::reveal::{reveal_token_with_rng, verify_reveal_token};
use facedown_poker::shuffle::{shuffle_with_rng, verify_shuffle};
use facedown_poker::ProofContext;
use merlin::Transcript;

const DECKS: [u16; 3] = [8, 26, 52];

fn ctx() -> ProofContext<'static> {
    ProofContext {
        session: b"bench",
        round: 1,
        player: PartyId(1),
    }
}

fn shuffle(c: &mut Criterion) {
    let mut rng = seeded_rng(1);
    let sks: Vec<SecretKey> = (0..4)
        .map(|_| SecretKey::random_with_rng(&mut rng))
        .collect();
    let pks: Vec<_> = sks.iter().map(|s| *s.public()).collect();
    let key = joint_key(&pks).expect("nonzero joint key");
    let base = Transcript::new(b"bench");
    let mut group = c.benchmark_group("shuffle");
    for n in DECKS {
        let ck = CommitmentKey::new(usize::from(n));
        let open = Deck::open_deck(&CardEncoding::new(n));
        let (deck, _) = shuffle_with_rng(&mut base.clone(), &ctx(), &ck, &key, &open, &mut rng)
            .expect("valid deck");
        group.bench_with_input(BenchmarkId::new("prove", n), &n, |b, _| {
            b.iter(|| shuffle_with_rng(&mut base.clone(), &ctx(), &ck, &key, &deck, &mut rng))
        });
        let (out, proof) = shuffle_with_rng(&mut base.clone(), &ctx(), &ck, &key, &deck, &mut rng)
            .expect("valid deck");
        group.bench_with_input(BenchmarkId::new("verify", n), &n, |b, _| {
            b.iter(|| verify_shuffle(&mut base.clone(), &ctx(), &ck, &key, &deck, &out, &proof))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("reveal_token");
    let ck = CommitmentKey::new(52);
    let open = Deck::open_deck(&CardEncoding::new(52));
    let (deck, _) = shuffle_with_rng(&mut base.clone(), &ctx(), &ck, &key, &open, &mut rng)
        .expect("valid deck");
    let ct = (&deck.ciphertexts()[0], &deck.wire()[0]);
    group.bench_function("make", |b| {
        b.iter(|| reveal_token_with_rng(&mut base.clone(), &ctx(), &sks[0], 0, ct, &mut rng))
    });
    let token = reveal_token_with_rng(&mut base.clone(), &ctx(), &sks[0], 0, ct, &mut rng);
    group.bench_function("verify", |b| {
        b.iter(|| verify_reveal_token(&mut base.clone(), &ctx(), sks[0].public(), ct, &token))
    });
    group.finish();
}

fn deal(c: &mut Criterion) {
    let mut group = c.benchmark_group("deal");
    group.sample_size(10);
    let params = DealParams {
        players: 4,
        cards: 52,
        hand: 2,
        public: 5,
    };
    let mut rng = seeded_rng(2);
    group.bench_function("4_players_52_cards", |b| {
        b.iter(|| deal_with_rng(params, b"bench deal", &mut rng))
    });
    group.finish();
}

fn msm_floor(c: &mut Criterion) {
    let mut rng = seeded_rng(3);
    let mut group = c.benchmark_group("vartime_msm");
    for n in [53usize, 271] {
        let points: Vec<RistrettoPoint> =
            (0..n).map(|_| RistrettoPoint::random(&mut rng)).collect();
        let scalars: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| RistrettoPoint::vartime_multiscalar_mul(&scalars, &points))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default();
    targets = shuffle, deal, msm_floor
}
criterion_main!(benches);
