//! One player of the encrypted deck as an [`Engine`]: every card on the table is an ElGamal
//! ciphertext under the players' joint key, and every step that hides something comes with a
//! proof that every other player verifies.
//!
//! | table operation | on the encrypted deck | proof | rounds |
//! |---|---|---|---|
//! | setup | a hello (fresh session id), then key shares `Y_i` and the joint key `Y` | Schnorr | 2 |
//! | place | open maskings `(0, M_c)` | none (public) | 0 |
//! | commit by `p` | open maskings of the sorted cards, then `p` alone applies the arrangement of his choice, as a restricted shuffle over every arrangement | OR-proof: the row is *some* arrangement of these cards | 1 |
//! | rearrange | reorder the ciphertexts | none (public) | 0 |
//! | shuffle `Uniform(G)`, `G` a group | each player in turn applies a uniform element of `G` to the cards `G` moves, re-randomised | restricted-shuffle OR-proof \[MS09\] | `N` |
//! | shuffle `All` | each player in turn shuffles the whole row | Bayer–Groth \[BG12\] | `N` |
//! | any other shuffle (weighted, or over a non-group) | player 1 alone draws from it, as a restricted shuffle | OR-proof | 1 (**weakened**) |
//! | open | every player sends each other player its reveal tokens `d_i = x_i·c1` for the public positions and those shown to that player | Chaum–Pedersen | 1 |
//! | prove none of, by `o` | `o` forwards the tokens he was sent for his cards and proves that none is an excluded symbol | inequality of discrete logarithms ([`crate::legal`]) | 1 |
//!
//! An input commitment is *not* a masking with a Chaum–Pedersen proof of the card: that proof
//! needs the card to verify. It is a restricted shuffle by the committing player over all
//! arrangements of the (public) multiset of cards — for a bit, `{id, swap}` of `♣♥` — so the
//! others learn that the pair is a valid commitment and nothing else.
//!
//! Per-player uniform shuffles compose to a uniform element only over a group. A weighted
//! shuffle, or a uniform one over a set that is not a group, is drawn by player 1 alone: he
//! learns the permutation (and, the proof showing only that it is one of the set, could pick
//! it); the capabilities say so ([`Support::Weakened`]).
//!
//! **Transcripts.** The engine keeps the application's base transcript and clones it for every
//! proof, which is bound to the session, the round and the prover ([`ProofContext`]). Rounds
//! are numbered identically by every engine: the key shares are round 0, every shuffle turn and
//! every opening takes the next number. The same engine runs in memory
//! ([`facedown_core::LocalDriver`]) and over a network, so a proof made on one path verifies on
//! the other.
//!
//! Security model: malicious players, any coalition of up to `N − 1` (computational: DDH on
//! ristretto255 and the random-oracle model for Fiat–Shamir).

mod legal;
mod open;
mod params;
mod setup;
mod turns;

use facedown_core::engine::{Engine, Step};
use facedown_core::table::{check_party, Capabilities, SecurityModel, ShuffleSet, Support};
use facedown_core::{CommitCards, Opening, PartyId, Perm, Seen, Symbol, TableOp};
use merlin::Transcript;
use rand::{CryptoRng, RngCore};

use crate::batch::Verification;
use crate::elgamal::{CardEncoding, CompressedCiphertext, Deck, JointKey};
use crate::errors::{PokerError, Result};
use crate::keys::{PublicKey, SecretKey};
use crate::messages::Message;
use crate::transcript::ProofContext;

pub use params::{commitment_key, encoding, encoding_of};

/// Largest number of cards in one input commitment (its proof has one branch per arrangement).
pub const MAX_COMMIT: usize = 5;

/// The label of the base transcript [`PokerEngine::with_rng`] creates.
pub const TRANSCRIPT_LABEL: &[u8] = b"facedown-poker/table/v1";

/// The name of this backend, in capabilities and session ids.
pub const BACKEND: &str = "encrypted";

/// What the encrypted deck can do, and how securely.
pub fn capabilities(_parties: usize) -> Capabilities {
    Capabilities {
        backend: BACKEND.to_owned(),
        security: SecurityModel::MaliciousUpToNMinus1,
        information_theoretic: false,
        commit: Support::Secure,
        uniform_shuffle: Support::Secure,
        other_shuffle: Support::Weakened(
            "per-player uniform shuffles do not compose to it, so player 1 draws it alone: he \
             learns the permutation, and the proof shows only that it is one of the set"
                .to_owned(),
        ),
        full_shuffle: Support::Secure,
        private_open: Support::Secure,
        prove_none_of: Support::Secure,
    }
}

/// One player of the encrypted deck (see the [module docs](self)).
pub struct PokerEngine<R> {
    me: PartyId,
    parties: usize,
    context: Vec<u8>,
    base: Transcript,
    sk: SecretKey,
    rng: R,
    stage: Stage,
    verification: Verification,
}

impl<R> core::fmt::Debug for PokerEngine<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PokerEngine")
            .field("me", &self.me)
            .field("parties", &self.parties)
            .finish_non_exhaustive()
    }
}

enum Stage {
    Fresh,
    Setup(setup::Setup),
    /// Boxed: the joint key carries its precomputed tables.
    Table(Box<Table>),
    Finished,
}

/// The public state every player holds after the setup, and the operation under way.
struct Table {
    session: Vec<u8>,
    keys: Vec<PublicKey>,
    joint: JointKey,
    /// How this player checks the proofs that arrive together.
    verification: Verification,
    /// The row, in both forms (kept together: compressing is the costly part).
    deck: Deck,
    encoding: std::sync::Arc<CardEncoding>,
    round: u64,
    pending: Pending,
    /// The tokens other players sent this player for the cards shown to it alone, by the
    /// card's ciphertext (a card shuffled since is not found).
    shown: std::collections::HashMap<CompressedCiphertext, Shown>,
}

/// The other players' verified reveal tokens for one card shown to this player alone.
struct Shown {
    /// The opening's round.
    round: u64,
    /// The tokens, by player.
    tokens: Vec<crate::reveal::BatchableRevealToken>,
    /// Their sum `Σ_{i≠me} d_i`.
    others: curve25519_dalek::ristretto::RistrettoPoint,
}

enum Pending {
    Idle,
    Turns(turns::Turns),
    Open(open::Open),
    NoneOf(legal::Claim),
}

impl Table {
    fn ctx(&self, round: u64, player: PartyId) -> ProofContext<'_> {
        ProofContext {
            session: &self.session,
            round,
            player,
        }
    }

    /// The next round number.
    fn next_round(&mut self) -> u64 {
        self.round += 1;
        self.round
    }

    fn place(&mut self, cards: &[Symbol]) -> Result<()> {
        if !cards.iter().all(|s| self.encoding.contains(s.code())) {
            self.encoding = covering(&self.encoding, cards);
        }
        let mut cts = self.deck.ciphertexts().to_vec();
        let mut wire = self.deck.wire().to_vec();
        for s in cards {
            let (ct, w) = params::open_masking(s.code()).ok_or(PokerError::UnknownCard {
                position: cts.len(),
            })?;
            cts.push(ct);
            wire.push(w);
        }
        self.deck = Deck::from_parts(cts, wire);
        Ok(())
    }

    fn rearrange(&mut self, perm: &Perm) -> Result<()> {
        let misfit = facedown_core::table::TableError::PermSize {
            got: perm.len(),
            len: self.deck.len(),
        };
        let cts = perm.apply_to_row(self.deck.ciphertexts());
        let wire = perm.apply_to_row(self.deck.wire());
        let (Some(cts), Some(wire)) = (cts, wire) else {
            return Err(misfit.into());
        };
        self.deck = Deck::from_parts(cts, wire);
        Ok(())
    }

    /// The cards at `positions`, as a deck.
    fn row(&self, positions: &[usize]) -> Deck {
        let (cts, wire) = (self.deck.ciphertexts(), self.deck.wire());
        Deck::from_parts(
            positions.iter().map(|&i| cts[i]).collect(),
            positions.iter().map(|&i| wire[i]).collect(),
        )
    }

    /// Puts `row` back at `positions`.
    fn splice(&mut self, positions: &[usize], row: &Deck) {
        let mut cts = self.deck.ciphertexts().to_vec();
        let mut wire = self.deck.wire().to_vec();
        for (k, &i) in positions.iter().enumerate() {
            cts[i] = row.ciphertexts()[k];
            wire[i] = row.wire()[k];
        }
        self.deck = Deck::from_parts(cts, wire);
    }
}

impl<R: RngCore + CryptoRng> PokerEngine<R> {
    /// Player `me` of `parties ≥ 2`, in a game whose players agreed beforehand on `context`
    /// (a roster's session, a label), extending the application's base `transcript` with every
    /// proof and drawing every secret from `rng`.
    pub fn new_with_rng(
        me: PartyId,
        parties: usize,
        context: &[u8],
        transcript: Transcript,
        mut rng: R,
    ) -> Result<Self> {
        if parties < 2 || parties >= usize::from(u16::MAX) {
            return Err(PokerError::InvalidParameters(format!(
                "an encrypted table needs at least 2 players, not {parties}"
            )));
        }
        check_party(me, parties)?;
        let sk = SecretKey::random_with_rng(&mut rng);
        Ok(PokerEngine {
            me,
            parties,
            context: context.to_vec(),
            base: transcript,
            sk,
            rng,
            stage: Stage::Fresh,
            verification: Verification::default(),
        })
    }

    /// This engine, checking the proofs that arrive together as `verification` says (batched
    /// unless told): one by one is the baseline that batching is measured against, and gives
    /// the same verdicts.
    pub fn verifying(mut self, verification: Verification) -> Self {
        self.verification = verification;
        self
    }

    /// As [`new_with_rng`](PokerEngine::new_with_rng), with a base transcript labelled
    /// [`TRANSCRIPT_LABEL`].
    pub fn with_rng(me: PartyId, parties: usize, context: &[u8], rng: R) -> Result<Self> {
        PokerEngine::new_with_rng(me, parties, context, Transcript::new(TRANSCRIPT_LABEL), rng)
    }

    /// The joint public key, once the setup is done.
    pub fn joint_key(&self) -> Option<&JointKey> {
        self.table().ok().map(|t| &t.joint)
    }

    /// The current row of ciphertexts, once the setup is done.
    pub fn deck(&self) -> Option<&Deck> {
        self.table().ok().map(|t| &t.deck)
    }

    fn table(&self) -> Result<&Table> {
        match &self.stage {
            Stage::Table(t) => Ok(t),
            Stage::Fresh | Stage::Setup(_) => Err(PokerError::OutOfOrder("before the setup")),
            Stage::Finished => Err(PokerError::OutOfOrder("after the end of the game")),
        }
    }

    fn begin(&mut self, op: &TableOp) -> Result<Step> {
        match op {
            TableOp::Setup => self.begin_setup(),
            TableOp::Place(cards) => {
                idle(&mut self.stage)?.place(cards)?;
                Ok(Step::done(Seen::default()))
            }
            TableOp::Commit { party, cards } => self.begin_commit(*party, cards),
            TableOp::Rearrange(perm) => {
                idle(&mut self.stage)?.rearrange(perm)?;
                Ok(Step::done(Seen::default()))
            }
            TableOp::Shuffle(set) => self.begin_shuffle(set),
            TableOp::Open(opening) => self.begin_open(opening),
            TableOp::ProveNoneOf {
                owner,
                positions,
                excluded,
            } => self.begin_none_of(*owner, positions, excluded),
            TableOp::Finish => {
                idle(&mut self.stage)?;
                self.stage = Stage::Finished;
                Ok(Step::done(Seen::default()))
            }
        }
    }

    fn begin_commit(&mut self, party: PartyId, cards: &CommitCards) -> Result<Step> {
        let me = self.me;
        let parties = self.parties;
        let table = idle(&mut self.stage)?;
        check_party(party, parties)?;
        if cards.len() > MAX_COMMIT {
            return Err(PokerError::InvalidParameters(format!(
                "an input commitment of {} cards is too large (at most {MAX_COMMIT})",
                cards.len()
            )));
        }
        if cards.is_empty() {
            return Ok(Step::done(Seen::default()));
        }
        let sorted = cards.multiset();
        let start = table.deck.len();
        table.place(&sorted)?;
        let arrangement = match cards {
            CommitCards::Known(order) => Some(arrangement_of(&sorted, order)?),
            CommitCards::Hidden(_) if party == me => {
                return Err(facedown_core::table::TableError::HiddenCommit { party }.into())
            }
            CommitCards::Hidden(_) => None,
        };
        let support: Vec<usize> = (start..start + sorted.len()).collect();
        let turns = turns::Turns::commit(table, party, support, arrangement)?;
        self.run_turns(turns, true)
    }

    fn begin_shuffle(&mut self, set: &ShuffleSet) -> Result<Step> {
        let parties = self.parties;
        let table = idle(&mut self.stage)?;
        set.check_fits(table.deck.len())?;
        match turns::Turns::shuffle(table, parties, set)? {
            Some(turns) => self.run_turns(turns, true),
            None => Ok(Step::done(Seen::default())),
        }
    }

    fn begin_open(&mut self, opening: &Opening) -> Result<Step> {
        let (me, parties) = (self.me, self.parties);
        let table = idle(&mut self.stage)?;
        opening.check(table.deck.len(), parties)?;
        let round = table.next_round();
        let context = open::Context {
            sk: &self.sk,
            me,
            parties,
            round,
            base: &self.base,
        };
        let (open, step) = open::Open::begin(table, &context, opening, &mut self.rng)?;
        match open {
            Some(open) => {
                table.pending = Pending::Open(open);
                Ok(step)
            }
            None => Ok(step),
        }
    }

    fn handle(&mut self, from: PartyId, payload: &[u8]) -> Result<Step> {
        if !self.awaiting().contains(&from) {
            return Err(PokerError::UnexpectedMessage {
                player: from,
                reason: "a message this player does not await now",
            });
        }
        let msg = Message::from_bytes(from, payload)?;
        match &mut self.stage {
            Stage::Setup(_) => self.receive_setup(from, msg),
            Stage::Table(t) => match std::mem::replace(&mut t.pending, Pending::Idle) {
                Pending::Turns(turns) => self.receive_turn(turns, from, msg),
                Pending::Open(open) => self.receive_tokens(open, from, msg),
                Pending::NoneOf(claim) => self.receive_none_of(claim, from, msg),
                Pending::Idle => Err(unexpected(from)),
            },
            Stage::Fresh | Stage::Finished => Err(unexpected(from)),
        }
    }

    fn receive_tokens(
        &mut self,
        mut open: open::Open,
        from: PartyId,
        msg: Message,
    ) -> Result<Step> {
        let Stage::Table(table) = &mut self.stage else {
            return Err(unexpected(from));
        };
        let Message::Reveal(tokens) = msg else {
            return Err(PokerError::UnexpectedMessage {
                player: from,
                reason: "a message other than reveal tokens during an opening",
            });
        };
        match open.receive(table, &self.base, from, &tokens)? {
            Some(seen) => Ok(Step::done(seen)),
            None => {
                table.pending = Pending::Open(open);
                Ok(Step::wait())
            }
        }
    }
}

/// The table, if no operation is under way.
fn idle(stage: &mut Stage) -> Result<&mut Table> {
    match stage {
        Stage::Table(t) if matches!(t.pending, Pending::Idle) => Ok(t),
        Stage::Table(_) => Err(PokerError::OutOfOrder("during another operation")),
        Stage::Fresh | Stage::Setup(_) => Err(PokerError::OutOfOrder("before the setup")),
        Stage::Finished => Err(PokerError::OutOfOrder("after the end of the game")),
    }
}

fn unexpected(from: PartyId) -> PokerError {
    PokerError::UnexpectedMessage {
        player: from,
        reason: "a message when no operation is under way",
    }
}

/// The index, in [`Perm::all`] order, of the arrangement that lays `sorted` as `order`.
fn arrangement_of(sorted: &[Symbol], order: &[Symbol]) -> Result<usize> {
    Perm::all(sorted.len())
        .position(|p| p.apply_to_row(sorted).is_some_and(|row| row == order))
        .ok_or(PokerError::InvalidParameters(
            "a commitment's cards are not an arrangement of their multiset".to_owned(),
        ))
}

impl<R: RngCore + CryptoRng> Engine for PokerEngine<R> {
    type Error = PokerError;

    fn capabilities(parties: usize) -> Capabilities {
        capabilities(parties)
    }

    fn me(&self) -> PartyId {
        self.me
    }

    fn parties(&self) -> usize {
        self.parties
    }

    fn start(&mut self, op: &TableOp) -> Result<Step> {
        self.begin(op)
    }

    fn receive(&mut self, from: PartyId, payload: &[u8]) -> Result<Step> {
        self.handle(from, payload)
    }

    /// The setup (hellos, key shares) and every shuffle turn are broadcasts every later step
    /// builds on, and a none-of proof is a verdict every player must reach alike; an
    /// opening's tokens are private and proved against the agreed deck.
    fn echoes(&self, op: &TableOp) -> bool {
        matches!(
            op,
            TableOp::Setup
                | TableOp::Commit { .. }
                | TableOp::Shuffle(_)
                | TableOp::ProveNoneOf { .. }
        )
    }

    /// Hellos, key shares, shuffle turns and none-of proofs.
    fn is_broadcast(&self, payload: &[u8]) -> bool {
        // Every kind but reveal tokens; the kind is the encoding's leading variant index.
        Message::from_bytes_unchecked(payload).is_some_and(|m| !matches!(m, Message::Reveal(_)))
    }

    fn awaiting(&self) -> Vec<PartyId> {
        match &self.stage {
            Stage::Setup(s) => s.awaiting(),
            Stage::Table(t) => match &t.pending {
                Pending::Turns(turns) => turns.awaiting(self.me),
                Pending::Open(open) => open.awaiting(),
                Pending::NoneOf(claim) => claim.awaiting(),
                Pending::Idle => Vec::new(),
            },
            Stage::Fresh | Stage::Finished => Vec::new(),
        }
    }
}

/// An encoding of `encoding`'s codes and those of `cards`: every code below the largest
/// numbered card's (a standard deck stays one range) and each kind's own code, so a multiset
/// deck's first ♦ costs one point and not the 65 281 below its code.
fn covering(encoding: &CardEncoding, cards: &[Symbol]) -> std::sync::Arc<CardEncoding> {
    let dense = cards
        .iter()
        .filter(|s| !matches!(s, Symbol::Kind(_)))
        .map(|s| s.code())
        .max()
        .map_or(0, |top| top.saturating_add(1));
    let kinds = cards.iter().filter(|s| matches!(s, Symbol::Kind(_)));
    let mut codes: Vec<u16> = encoding.codes().to_vec();
    codes.extend(0..dense);
    codes.extend(kinds.map(|s| s.code()));
    encoding_of(codes)
}
