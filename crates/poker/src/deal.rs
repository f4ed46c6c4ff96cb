//! A whole Barnett–Smart deal \[BS03\]: one [`PokerEngine`] per player, run in memory by
//! [`LocalDriver`], with the cost of every real encoded message.
//!
//! The deal is three table operations after the setup: place the deck `0..n` face up, shuffle
//! it (every player in turn, Bayer–Groth), then one opening that shows every hand to its player
//! and turns the public cards. An [`Adversary`] may rewrite any delivery (as a [`Message`] or
//! as bytes) to show that tampering is caught and blamed.
//!
//! **Accounting** ([`LocalDriver`]): every delivery counts one message and its encoded size. The
//! setup is a hello and a key share from every player to every other (2 rounds), the shuffles
//! take one round per player, and the opening one round in which every player sends every
//! other player the tokens it needs: `N + 3` rounds and `4·N·(N − 1)` messages in all.

use facedown_core::local::{Delivery, LocalDriver, Tap};
use facedown_core::table::{deal_opening, FaceDownTable, ShuffleSet};
use facedown_core::{Cost, DriveError, Opening, PartyId, Symbol, TableOp};
use rand::{CryptoRng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};

use crate::batch::Verification;
use crate::engine::PokerEngine;
use crate::errors::{PokerError, Result};
use crate::messages::Message;

/// What is dealt: `players` hands of `hand` cards and `public` face-up cards from a deck of
/// `cards` distinct cards (numbered from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealParams {
    /// Number of players `N ≥ 2`.
    pub players: usize,
    /// Deck size `n ≥ 2`.
    pub cards: u16,
    /// Cards per hand.
    pub hand: usize,
    /// Public cards.
    pub public: usize,
}

/// Most players of a deal: every player shuffles and proves in turn, so the cost grows with
/// `N²`; the dealer's scheme has the same limit.
pub const MAX_PLAYERS: usize = 64;

/// Largest deck: each shuffle proves a permutation of the whole deck (Bayer–Groth), and each
/// player checks every other's; the dealer's scheme has the same limit.
pub const MAX_CARDS: u16 = 1024;

impl DealParams {
    /// Checks that the players and the deck are within [`MAX_PLAYERS`] and [`MAX_CARDS`] and
    /// that the deal fits the deck (with checked arithmetic).
    pub fn validate(&self) -> Result<()> {
        if !(2..=MAX_PLAYERS).contains(&self.players) {
            return Err(PokerError::InvalidParameters(format!(
                "need 2..={MAX_PLAYERS} players, got {}",
                self.players
            )));
        }
        if !(2..=MAX_CARDS).contains(&self.cards) {
            return Err(PokerError::InvalidParameters(format!(
                "need a deck of 2..={MAX_CARDS} cards, got {}",
                self.cards
            )));
        }
        deal_opening(
            self.players,
            usize::from(self.cards),
            self.hand,
            self.public,
        )
        .map(drop)
        .map_err(|_| {
            PokerError::InvalidParameters(format!(
                "{} hands of {} and {} public cards do not fit a deck of {}",
                self.players, self.hand, self.public, self.cards
            ))
        })
    }
}

/// Rewrites deliveries in transit (for tests and cheating experiments). Both hooks are called
/// for every delivery (a broadcast is `N − 1` deliveries) and default to doing nothing.
pub trait Adversary {
    /// Rewrites a message before it is re-encoded for its recipient.
    fn tamper_message(&mut self, _msg: &mut Message) {}
    /// Rewrites the encoded bytes of a message from `sender`.
    fn tamper_bytes(&mut self, _sender: PartyId, _bytes: &mut Vec<u8>) {}
    /// Whether the hooks may change anything (the default). An adversary that says `false`
    /// is never called, and the driver does not decode the deliveries for it.
    fn rewrites(&self) -> bool {
        true
    }
}

/// The adversary that changes nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Honest;

impl Adversary for Honest {
    fn rewrites(&self) -> bool {
        false
    }
}

/// An [`Adversary`] as the driver's [`Tap`].
struct AdversaryTap<'a, A>(&'a mut A);

impl<A: Adversary> Tap for AdversaryTap<'_, A> {
    fn deliver(&mut self, d: &mut Delivery) -> bool {
        // The adversary speaks the protocol's messages; the seats' echoes pass untouched.
        if d.kind != facedown_core::engine::Kind::Engine || !self.0.rewrites() {
            return true;
        }
        if let Ok(mut msg) = Message::from_bytes(d.from, &d.payload) {
            let before = msg.clone();
            self.0.tamper_message(&mut msg);
            if msg != before {
                if let Ok(bytes) = msg.to_bytes() {
                    d.payload = bytes;
                }
            }
        }
        self.0.tamper_bytes(d.from, &mut d.payload);
        true
    }
}

/// The result of the end-of-deal checks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Audit {
    /// Whether every proof verified and every card opened.
    pub passed: bool,
    /// The player blamed for the first failure, if any.
    pub blame: Option<PartyId>,
    /// The first failure, in words.
    pub error: Option<String>,
}

/// The outcome of a deal, in the shape shared with the dealer's report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealReport {
    /// Number of players.
    pub players: usize,
    /// Deck size.
    pub cards: u16,
    /// Each player's hand (cards `0..n`), as that player opened it; empty if the deal failed.
    pub hands: Vec<Vec<u16>>,
    /// The public cards; empty if the deal failed.
    pub public: Vec<u16>,
    /// The audit.
    pub audit: Audit,
    /// What the deal cost on the wire, up to the failure if there was one.
    pub cost: Cost,
}

/// What the players opened: each hand (player 1 first) and the public cards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dealt {
    /// Each player's hand, in deck order.
    pub hands: Vec<Vec<u16>>,
    /// The public cards, in deck order.
    pub public: Vec<u16>,
}

/// Runs an honest deal in the game context `session` (any bytes the players agreed on).
pub fn deal_with_rng<R: RngCore + CryptoRng>(
    params: DealParams,
    session: &[u8],
    rng: &mut R,
) -> DealReport {
    deal_with_adversary_with_rng(params, session, &mut Honest, rng)
}

/// Runs a deal in which `adversary` may rewrite deliveries. Never panics: a failure is
/// reported in [`DealReport::audit`], blaming the offending player.
pub fn deal_with_adversary_with_rng<A: Adversary, R: RngCore + CryptoRng>(
    params: DealParams,
    session: &[u8],
    adversary: &mut A,
    rng: &mut R,
) -> DealReport {
    let (result, cost) = run_deal_with_adversary_with_rng(params, session, adversary, rng);
    report(params, result, cost)
}

/// The report of a deal that ended with `result` after costing `cost`.
fn report(params: DealParams, result: Result<Dealt>, cost: Cost) -> DealReport {
    let (hands, public, audit) = match result {
        Ok(dealt) => (
            dealt.hands,
            dealt.public,
            Audit {
                passed: true,
                blame: None,
                error: None,
            },
        ),
        Err(e) => (
            Vec::new(),
            Vec::new(),
            Audit {
                passed: false,
                blame: e.blamed(),
                error: Some(e.to_string()),
            },
        ),
    };
    DealReport {
        players: params.players,
        cards: params.cards,
        hands,
        public,
        audit,
        cost,
    }
}

/// Runs a deal and returns what the players opened, or the first typed error, together with
/// the cost up to that point. Player `j`'s randomness is the `j`-th ChaCha20 generator seeded
/// from `rng`.
pub fn run_deal_with_adversary_with_rng<A: Adversary, R: RngCore + CryptoRng>(
    params: DealParams,
    session: &[u8],
    adversary: &mut A,
    rng: &mut R,
) -> (Result<Dealt>, Cost) {
    run_deal_verifying(params, session, adversary, Verification::Batched, rng)
}

/// [`run_deal_with_adversary_with_rng`] with players who check the proofs that reach them
/// together as `verification` says: with the same `rng` and adversary, the same cards, messages
/// and verdict whichever the verification (one by one is the bench's baseline for batching),
/// at another CPU cost.
pub fn run_deal_verifying<A: Adversary, R: RngCore + CryptoRng>(
    params: DealParams,
    session: &[u8],
    adversary: &mut A,
    verification: Verification,
    rng: &mut R,
) -> (Result<Dealt>, Cost) {
    if let Err(e) = params.validate() {
        return (Err(e), Cost::ZERO);
    }
    let engines = match PartyId::all(params.players)
        .map(|p| {
            let mut seed = [0u8; 32];
            rng.fill_bytes(&mut seed);
            PokerEngine::with_rng(p, params.players, session, ChaCha20Rng::from_seed(seed))
                .map(|e| e.verifying(verification))
        })
        .collect::<Result<Vec<_>>>()
    {
        Ok(engines) => engines,
        Err(e) => return (Err(e), Cost::ZERO),
    };
    let mut driver = match LocalDriver::tapped(engines, AdversaryTap(adversary)) {
        Ok(d) => d,
        Err(e) => return (Err(poker_error(e)), Cost::ZERO),
    };
    let result = deal_on(&mut driver, params);
    (result, driver.cost())
}

fn deal_on<T: FaceDownTable<Error = DriveError<PokerError>>>(
    table: &mut T,
    params: DealParams,
) -> Result<Dealt> {
    let opening = deal_opening(
        params.players,
        usize::from(params.cards),
        params.hand,
        params.public,
    )?;
    let deck: Vec<Symbol> = (0..params.cards).map(Symbol::Card).collect();
    table.place(&deck).map_err(poker_error)?;
    table.shuffle(&ShuffleSet::All).map_err(poker_error)?;
    let seen = table
        .apply(&TableOp::Open(opening.clone()))
        .map_err(poker_error)?;
    let mut hands: Vec<Vec<u16>> = seen
        .private
        .iter()
        .map(|h| h.iter().flatten().map(|s| card_number(*s)).collect())
        .collect();
    hands.resize(params.players, Vec::new());
    let public: Vec<u16> = seen.public.iter().map(|s| card_number(*s)).collect();
    check_distinct(&opening, &hands, &public)?;
    Ok(Dealt { hands, public })
}

fn card_number(s: Symbol) -> u16 {
    match s {
        Symbol::Card(k) => k,
        other => other.code(),
    }
}

/// Every dealt card must be a different card of the deck (the test oracle's check: it sees
/// every hand).
fn check_distinct(opening: &Opening, hands: &[Vec<u16>], public: &[u16]) -> Result<()> {
    let positions = opening
        .private
        .iter()
        .flat_map(|(_, ps)| ps)
        .chain(&opening.public);
    let cards = hands.iter().flatten().chain(public);
    let mut seen: std::collections::BTreeMap<u16, usize> = Default::default();
    for (&pos, &card) in positions.zip(cards) {
        if let Some(&first) = seen.get(&card) {
            return Err(PokerError::DuplicateCard {
                card,
                first,
                second: pos,
            });
        }
        seen.insert(card, pos);
    }
    Ok(())
}

/// The driver's error as the protocol error it stands for.
fn poker_error(e: DriveError<PokerError>) -> PokerError {
    match e {
        DriveError::Engine { source, .. } => source,
        DriveError::Echo { source, .. } => PokerError::Echo(source),
        DriveError::Stuck { awaiting, .. } => PokerError::Missing {
            player: awaiting.first().copied().unwrap_or(PartyId(0)),
            what: "a message",
        },
        DriveError::Unawaited { from, .. } => PokerError::UnexpectedMessage {
            player: from,
            reason: "a message the protocol does not call for",
        },
        DriveError::Inconsistent { party } => PokerError::UnexpectedMessage {
            player: party,
            reason: "players opened different public cards",
        },
        DriveError::Table(t) => PokerError::Table(t),
    }
}
