//! Criterion benches of the legal-play proof ([`facedown_poker::legal`]): a 12-card hand against
//! a 9-card suit, Ninety-Nine's worst case (3 players, 36 cards, 12 each).
//!
//! * `none_of_cpu`: `prove` and `verify` of the proof alone (CPU time of the one working
//!   thread, in a one-thread rayon pool);
//! * `none_of_table_cpu`: the whole table operation at a 3-player table in one process — the
//!   owner's proof, both other players' checks of the forwarded tokens and of the proof, the
//!   echo round — and a Ninety-Nine trick with and without the two followers' claims (three
//!   cards turned): the CPU of all three players together.
//!
//! Sizes and the operation's messages, bytes and rounds are printed at the end.

#![allow(missing_docs)] // criterion's macros generate undocumented items.

use std::time::Duration;

use criterion::Criterion;
use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::scalar::Scalar;
use facedown_core::rng::{party_rng, seeded_rng};
use facedown_core::table::{deal, FaceDownTable};
use facedown_core::{LocalDriver, PartyId, Symbol, TableOp};
use facedown_poker::elgamal::card_point;
use facedown_poker::keys::{joint_key, PublicKey, SecretKey};
use facedown_poker::legal::{
    prove_none_of_with_rng, verify_none_of, ClaimedCard, Excluded, NoneOfProof, NoneOfStatement,
};
use facedown_poker::reveal::own_token;
use facedown_poker::{PokerEngine, ProofContext};
use merlin::Transcript;
use rand_chacha::ChaCha20Rng;
use rayon::ThreadPool;

const HAND: u16 = 12;
const SUIT: u16 = 9;
const SESSION: &[u8] = b"bench legal";

fn thread_cpu(pool: &ThreadPool, iters: u64, mut f: impl FnMut() + Send) -> Duration {
    pool.install(|| {
        let start = cpu_time::ThreadTime::now();
        for _ in 0..iters {
            f();
        }
        start.elapsed()
    })
}

/// Player 2 of 3 holds cards 9..21 (no card of suit 0, cards 0..9) under the joint key.
struct Claim {
    owner: SecretKey,
    key: PublicKey,
    cards: Vec<ClaimedCard>,
    excluded: Vec<Excluded>,
}

impl Claim {
    fn new() -> Claim {
        let mut rng = seeded_rng(90);
        let sks: Vec<SecretKey> = (0..3)
            .map(|_| SecretKey::random_with_rng(&mut rng))
            .collect();
        let pks: Vec<PublicKey> = sks.iter().map(|s| *s.public()).collect();
        let joint = joint_key(&pks).expect("nonzero key");
        let cards = (SUIT..SUIT + HAND)
            .enumerate()
            .map(|(position, code)| {
                let ct = joint.encrypt(&card_point(code), &Scalar::random(&mut rng));
                let others: RistrettoPoint = [0, 2].iter().map(|&i| own_token(&sks[i], &ct)).sum();
                ClaimedCard {
                    position,
                    ct: (ct, ct.compress()),
                    p: ct.c2 - others,
                }
            })
            .collect();
        let excluded = (0..SUIT)
            .map(|code| Excluded {
                code,
                point: card_point(code),
            })
            .collect();
        Claim {
            key: pks[1],
            owner: sks[1].clone(),
            cards,
            excluded,
        }
    }

    fn statement(&self) -> NoneOfStatement<'_> {
        NoneOfStatement {
            key: &self.key,
            cards: &self.cards,
            excluded: &self.excluded,
        }
    }
}

const CTX: ProofContext<'static> = ProofContext {
    session: SESSION,
    round: 5,
    player: PartyId(2),
};

fn transcript() -> Transcript {
    Transcript::new(b"bench legal")
}

fn proof_alone(c: &mut Criterion, claim: &Claim, one: &ThreadPool) -> NoneOfProof {
    let st = claim.statement();
    let mut rng = seeded_rng(91);
    let proof = prove_none_of_with_rng(&mut transcript(), &CTX, &claim.owner, &st, &mut rng)
        .expect("a true claim");
    let mut group = c.benchmark_group("none_of_cpu");
    group.sample_size(20);
    group.bench_function("prove/12x9", |b| {
        b.iter_custom(|iters| {
            thread_cpu(one, iters, || {
                std::hint::black_box(
                    prove_none_of_with_rng(&mut transcript(), &CTX, &claim.owner, &st, &mut rng)
                        .expect("a true claim"),
                );
            })
        })
    });
    group.bench_function("verify/12x9", |b| {
        b.iter_custom(|iters| {
            thread_cpu(one, iters, || {
                verify_none_of(&mut transcript(), &CTX, &st, &proof).expect("verifies");
            })
        })
    });
    group.finish();
    proof
}

type Table = LocalDriver<PokerEngine<ChaCha20Rng>>;

/// A 3-player table after a 36-card deal of 12 cards each, and the hands.
fn dealt_table() -> (Table, Vec<Vec<Symbol>>) {
    let engines = PartyId::all(3)
        .map(|p| PokerEngine::with_rng(p, 3, SESSION, party_rng(92, 0, p)).expect("a player"))
        .collect();
    let mut t = LocalDriver::new(engines).expect("setup");
    let dealt = deal(&mut t, 36, 12, 0).expect("an honest deal");
    let hands = dealt.hands.into_iter().flatten().collect();
    (t, hands)
}

/// `owner`'s claim about his whole hand against 9 cards he does not hold (a claim costs the
/// same for any 9 symbols he lacks, a suit among them).
fn claim_op(owner: u16, hands: &[Vec<Symbol>]) -> TableOp {
    let k = usize::from(owner - 1);
    let excluded = (0..36)
        .map(Symbol::Card)
        .filter(|s| !hands[k].contains(s))
        .take(usize::from(SUIT))
        .collect();
    TableOp::ProveNoneOf {
        owner: PartyId(owner),
        positions: (12 * k..12 * (k + 1)).collect(),
        excluded,
    }
}

fn at_the_table(c: &mut Criterion, one: &ThreadPool) -> facedown_core::Cost {
    let (mut t, hands) = dealt_table();
    let (second, third) = (claim_op(2, &hands), claim_op(3, &hands));
    let before = t.cost();
    t.apply(&second).expect("a true claim");
    let mut cost = t.cost();
    cost.messages -= before.messages;
    cost.bytes -= before.bytes;
    cost.rounds -= before.rounds;
    let mut group = c.benchmark_group("none_of_table_cpu");
    group.sample_size(10);
    group.bench_function("claim_3_players_12x9", |b| {
        b.iter_custom(|iters| {
            thread_cpu(one, iters, || {
                t.apply(&second).expect("a true claim");
            })
        })
    });
    // A trick: player 1 leads, players 2 and 3 each prove they lack the suit, then play.
    group.bench_function("ninety_nine_trick_two_claims", |b| {
        b.iter_custom(|iters| {
            thread_cpu(one, iters, || {
                t.turn(&[0]).expect("lead");
                t.apply(&second).expect("player 2's claim");
                t.turn(&[12]).expect("player 2 plays");
                t.apply(&third).expect("player 3's claim");
                t.turn(&[24]).expect("player 3 plays");
            })
        })
    });
    group.bench_function("ninety_nine_trick_no_claim", |b| {
        b.iter_custom(|iters| {
            thread_cpu(one, iters, || {
                t.turn(&[0]).expect("lead");
                t.turn(&[12]).expect("player 2 plays");
                t.turn(&[24]).expect("player 3 plays");
            })
        })
    });
    group.finish();
    cost
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a thread pool");
    let claim = Claim::new();
    let proof = proof_alone(&mut c, &claim, &one);
    let cost = at_the_table(&mut c, &one);
    c.final_summary();
    println!(
        "\nnone-of proof, 12 cards × 9 symbols: {} inequalities, {} B",
        proof.inequalities.len(),
        proof.size_bytes()
    );
    println!(
        "the claim at a 3-player table: {} messages, {} B, {} rounds (the proof's broadcast \
         with the forwarded tokens, then the echo)",
        cost.messages, cost.bytes, cost.rounds
    );
}
