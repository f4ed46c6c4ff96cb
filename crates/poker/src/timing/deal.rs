//! A whole deal of the bench's deck: four players in one process dealing 2-card hands and 5
//! public cards, their engines checking the proofs that reach them together in one batch and,
//! in the same run, one by one. The two deals of a repetition share their randomness, so they
//! deal the same cards and send the same messages: only the verification differs.

use rand::{CryptoRng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::ThreadPool;
use serde::{Deserialize, Serialize};

use super::{ratio, Samples};
use crate::batch::Verification;
use crate::deal::{run_deal_verifying, DealParams, Honest};
use crate::errors::Result;
use crate::workloads::PLAYERS;

/// Cards in each hand of the bench's deal.
const HAND: usize = 2;
/// Public cards of the bench's deal.
const PUBLIC: usize = 5;

/// A whole deal's CPU per player, batched against one by one: the thread CPU of the one thread
/// that runs every player in turn (the in-memory driver), divided by the players.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DealFigures {
    /// Players at the table.
    pub players: usize,
    /// Cards in each hand.
    pub hand: usize,
    /// Public cards.
    pub public: usize,
    /// Deals timed with each verification (none when the deck cannot hold the deal).
    pub deals: usize,
    /// Mean thread CPU ms per player, the engines batching (what players do).
    pub batched_cpu_ms_per_player: Option<f64>,
    /// The same, the engines verifying every proof on its own.
    pub one_by_one_cpu_ms_per_player: Option<f64>,
    /// `batched` ÷ `one_by_one`.
    pub batch_ratio: Option<f64>,
}

/// The deal's parameters for a deck of `cards`, if it holds the hands and the public cards.
fn params(cards: u16) -> Option<DealParams> {
    let needed = PLAYERS * HAND + PUBLIC;
    (usize::from(cards) >= needed).then_some(DealParams {
        players: PLAYERS,
        cards,
        hand: HAND,
        public: PUBLIC,
    })
}

/// Times `deals` deals of `cards` cards with each verification, interleaved, on `one` (a
/// one-thread pool). A deck too small for the deal gives figures without times.
pub(super) fn measure_deal<R: RngCore + CryptoRng>(
    cards: u16,
    deals: usize,
    one: &ThreadPool,
    rng: &mut R,
    step: &mut dyn FnMut(usize),
) -> Result<DealFigures> {
    let (mut batched, mut alone) = (Samples::default(), Samples::default());
    let deal = params(cards);
    let timed = if deal.is_some() { deals } else { 0 };
    for params in std::iter::repeat_n(deal, timed).flatten() {
        let seed = rng.next_u64();
        for (v, samples) in [
            (Verification::Batched, &mut batched),
            (Verification::OneByOne, &mut alone),
        ] {
            samples.time(one, || one_deal(params, v, seed))?;
        }
        step(1);
    }
    step(deals - timed);
    let per_player = |s: &Samples| s.thread_cpu().map(|ms| ms / PLAYERS as f64);
    let (b, a) = (per_player(&batched), per_player(&alone));
    Ok(DealFigures {
        players: PLAYERS,
        hand: HAND,
        public: PUBLIC,
        deals: timed,
        batched_cpu_ms_per_player: b,
        one_by_one_cpu_ms_per_player: a,
        batch_ratio: ratio(b, a),
    })
}

/// One honest deal whose players verify as `verification` says, from `seed`.
fn one_deal(params: DealParams, verification: Verification, seed: u64) -> Result<()> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let session = b"facedown poker bench deal";
    run_deal_verifying(params, session, &mut Honest, verification, &mut rng)
        .0
        .map(drop)
}
