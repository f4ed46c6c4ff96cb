//! An in-memory driver that runs a whole Barnett–Smart \[BS03\] deal between sans-IO
//! [`crate::player`]s, with message, byte and round accounting.
//!
//! Every message is encoded with [`Message::to_bytes`] and decoded with
//! [`Message::from_bytes`], exactly as a network transport would, so byte counts are real wire
//! sizes and decoding failures are exercised. An [`Adversary`] may rewrite any message (as a
//! struct or as bytes) before delivery, to test that tampering is caught and blamed.
//!
//! **Accounting.** Every message is broadcast to the `N − 1` other players; each delivery counts
//! as one message and its encoded size in bytes (a broadcast costs `N − 1` messages). Rounds
//! are sequential steps: key generation (1), one per shuffler (`N`), reveal tokens (1) —
//! `N + 2` in all. A deal therefore costs `3·N·(N − 1)` messages.

use facedown_core::{Cost, PartyId};
use merlin::Transcript;
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};

use crate::errors::{PokerError, Result};
use crate::messages::{Message, RevealMessage};
use crate::player::{DealParams, DealtHand, GameSetup, Player};

/// Rewrites messages in transit (for tests and cheating experiments). Both hooks default to
/// doing nothing.
pub trait Adversary {
    /// Rewrites a message before it is encoded.
    fn tamper_message(&mut self, _msg: &mut Message) {}
    /// Rewrites the encoded bytes of a message from `sender`.
    fn tamper_bytes(&mut self, _sender: PartyId, _bytes: &mut Vec<u8>) {}
}

/// The adversary that changes nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Honest;

impl Adversary for Honest {}

/// The result of the end-of-deal audit.
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

struct Wire<'a, A: Adversary> {
    adversary: &'a mut A,
    players: usize,
    cost: Cost,
}

impl<A: Adversary> Wire<'_, A> {
    /// Broadcasts one message from its sender; returns what the receivers decode.
    fn send(&mut self, mut msg: Message) -> Result<Message> {
        let sender = msg.sender();
        self.adversary.tamper_message(&mut msg);
        let mut bytes = msg.to_bytes()?;
        self.adversary.tamper_bytes(sender, &mut bytes);
        let receivers = self.players as u64 - 1;
        self.cost.messages += receivers;
        self.cost.bytes += receivers * bytes.len() as u64;
        Message::from_bytes(sender, &bytes)
    }

    fn round(&mut self) {
        self.cost.rounds += 1;
    }
}

/// Runs an honest deal.
pub fn deal_with_rng<R: RngCore + CryptoRng>(
    params: DealParams,
    session: &[u8],
    rng: &mut R,
) -> DealReport {
    deal_with_adversary_with_rng(params, session, &mut Honest, rng)
}

/// Runs a deal in which `adversary` may rewrite messages in transit. Never panics: a failure
/// is reported in [`DealReport::audit`], blaming the offending player.
pub fn deal_with_adversary_with_rng<A: Adversary, R: RngCore + CryptoRng>(
    params: DealParams,
    session: &[u8],
    adversary: &mut A,
    rng: &mut R,
) -> DealReport {
    let (result, cost) = run_deal_with_adversary_with_rng(params, session, adversary, rng);
    let (hands, public, audit) = match result {
        Ok(dealt) => {
            let public = dealt.first().map(|d| d.public.clone()).unwrap_or_default();
            (
                dealt.into_iter().map(|d| d.hand).collect(),
                public,
                Audit {
                    passed: true,
                    blame: None,
                    error: None,
                },
            )
        }
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

/// Runs a deal and returns every player's view, or the first typed error, together with the
/// cost up to that point.
pub fn run_deal_with_adversary_with_rng<A: Adversary, R: RngCore + CryptoRng>(
    params: DealParams,
    session: &[u8],
    adversary: &mut A,
    rng: &mut R,
) -> (Result<Vec<DealtHand>>, Cost) {
    let mut wire = Wire {
        adversary,
        players: params.players,
        cost: Cost::ZERO,
    };
    let result = run(params, session, &mut wire, rng);
    (result, wire.cost)
}

fn run<A: Adversary, R: RngCore + CryptoRng>(
    params: DealParams,
    session: &[u8],
    wire: &mut Wire<'_, A>,
    rng: &mut R,
) -> Result<Vec<DealtHand>> {
    let setup = GameSetup::new(session, params)?;
    let n = params.players;
    let transcript = Transcript::new(b"facedown-poker deal");

    // Round 1: key shares.
    wire.round();
    let mut waiting = Vec::with_capacity(n);
    let mut shares = Vec::with_capacity(n);
    for p in PartyId::all(n) {
        let (player, share) = Player::new_with_rng(setup.clone(), p, transcript.clone(), rng)?;
        waiting.push(player);
        match wire.send(Message::KeyShare(share))? {
            Message::KeyShare(s) => shares.push(s),
            _ => return Err(wrong_kind(p)),
        }
    }
    let mut shuffling = waiting
        .into_iter()
        .map(|w| w.receive_key_shares(&shares))
        .collect::<Result<Vec<_>>>()?;

    // Rounds 2..=N+1: shuffles in turn.
    for p in PartyId::all(n) {
        wire.round();
        let msg = shuffling[p.index()].shuffle_with_rng(rng)?;
        let msg = match wire.send(Message::Shuffle(Box::new(msg)))? {
            Message::Shuffle(m) => m,
            _ => return Err(wrong_kind(p)),
        };
        for (i, other) in shuffling.iter_mut().enumerate() {
            if i != p.index() {
                other.receive_shuffle(&msg)?;
            }
        }
    }
    let dealing = shuffling
        .into_iter()
        .map(|s| s.finish())
        .collect::<Result<Vec<_>>>()?;

    // Round N+2: reveal tokens.
    wire.round();
    let mut reveals: Vec<RevealMessage> = Vec::with_capacity(n);
    for (i, d) in dealing.iter().enumerate() {
        let p = PartyId::from_index(i);
        match wire.send(Message::Reveal(d.reveal_message_with_rng(rng)))? {
            Message::Reveal(m) => reveals.push(m),
            _ => return Err(wrong_kind(p)),
        }
    }
    let dealt = dealing
        .into_iter()
        .map(|d| d.receive_reveals(&reveals))
        .collect::<Result<Vec<_>>>()?;
    if let Some(d) = dealt.iter().find(|d| d.public != dealt[0].public) {
        return Err(PokerError::UnexpectedMessage {
            player: d.player,
            reason: "players opened different public cards",
        });
    }
    Ok(dealt)
}

fn wrong_kind(p: PartyId) -> PokerError {
    PokerError::UnexpectedMessage {
        player: p,
        reason: "message of the wrong kind for this round",
    }
}
