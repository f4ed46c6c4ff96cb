//! Players of Barnett–Smart mental poker \[BS03\] as sans-IO state machines.
//!
//! A player never touches a network: every step consumes the previous state and the messages it
//! needs, and returns the next state and the messages to send, so steps cannot run out of order
//! (the type-state pattern of dalek's bulletproofs parties). Transports (the in-memory
//! [`crate::driver`], or a network) only carry [`crate::messages`].
//!
//! ```text
//! Player::new_with_rng ──KeyShare──▶ PlayerAwaitingKeys
//!   .receive_key_shares ─▶ PlayerShuffling  (N turns: shuffle_with_rng / receive_shuffle)
//!   .finish ─▶ PlayerDealing ──RevealMessage──▶ .receive_reveals ─▶ DealtHand
//! ```
//!
//! Rounds (bound into every proof's transcript): key generation is round 0, player `i`'s shuffle
//! is round `i`, reveal tokens are round `N + 1`.

use facedown_core::PartyId;
use merlin::Transcript;
use rand::{CryptoRng, RngCore};

use crate::elgamal::{CardEncoding, Deck, JointKey};
use crate::errors::{PokerError, Result};
use crate::generators::CommitmentKey;
use crate::keys::{joint_key, KeyShare, PublicKey, SecretKey};
use crate::messages::{RestrictedShuffleMessage, RevealMessage, ShuffleMessage};
use crate::restricted::{restricted_shuffle_with_rng, verify_restricted_shuffle, PermSet};
use crate::reveal::{open_card, own_token, reveal_token_with_rng, verify_reveal_token};
use crate::shuffle::{shuffle_with_rng, verify_shuffle};
use crate::transcript::ProofContext;

/// What is dealt: `players` hands of `hand` cards and `public` face-up cards from a deck of
/// `cards` distinct cards (numbered from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
        let dealt = self
            .players
            .checked_mul(self.hand)
            .and_then(|h| h.checked_add(self.public));
        match dealt {
            Some(d) if d <= usize::from(self.cards) => Ok(()),
            _ => Err(PokerError::InvalidParameters(format!(
                "{} hands of {} and {} public cards do not fit a deck of {}",
                self.players, self.hand, self.public, self.cards
            ))),
        }
    }

    /// The deck positions of player `p`'s hand.
    pub fn hand_positions(&self, p: PartyId) -> core::ops::Range<usize> {
        let start = p.index() * self.hand;
        start..start + self.hand
    }

    /// The deck positions of the public cards.
    pub fn public_positions(&self) -> core::ops::Range<usize> {
        let start = self.players * self.hand;
        start..start + self.public
    }

    /// Every dealt position except `p`'s hand: what `p` reveals tokens for.
    pub fn positions_revealed_by(&self, p: PartyId) -> Vec<usize> {
        let own = self.hand_positions(p);
        (0..self.players * self.hand + self.public)
            .filter(|i| !own.contains(i))
            .collect()
    }
}

/// The public setup every player recomputes identically: session id, parameters, card points
/// and Pedersen generators (all by hash-to-group; nobody chooses them).
#[derive(Clone, Debug)]
pub struct GameSetup {
    session: Vec<u8>,
    params: DealParams,
    cards: CardEncoding,
    ck: CommitmentKey,
}

impl GameSetup {
    /// The setup of session `session` (any byte string both sides agree on; use a fresh one per
    /// game so proofs cannot be replayed across games).
    pub fn new(session: &[u8], params: DealParams) -> Result<GameSetup> {
        params.validate()?;
        Ok(GameSetup {
            session: session.to_vec(),
            params,
            cards: CardEncoding::new(params.cards),
            ck: CommitmentKey::new(usize::from(params.cards)),
        })
    }

    /// The deal's parameters.
    pub fn params(&self) -> &DealParams {
        &self.params
    }

    /// The card encoding.
    pub fn cards(&self) -> &CardEncoding {
        &self.cards
    }

    /// The Pedersen commitment key of the shuffle argument.
    pub fn commitment_key(&self) -> &CommitmentKey {
        &self.ck
    }

    /// The session id.
    pub fn session(&self) -> &[u8] {
        &self.session
    }

    fn ctx(&self, round: u64, player: PartyId) -> ProofContext<'_> {
        ProofContext {
            session: &self.session,
            round,
            player,
        }
    }

    fn reveal_round(&self) -> u64 {
        self.params.players as u64 + 1
    }
}

/// State common to every phase.
#[derive(Clone)]
struct Common {
    setup: GameSetup,
    id: PartyId,
    base: Transcript,
    sk: SecretKey,
}

impl Common {
    fn transcript(&self) -> Transcript {
        self.base.clone()
    }
}

/// Entry point of the player state machine.
#[derive(Debug)]
pub struct Player;

impl Player {
    /// Player `id` joins a game: draws its secret share and announces its public share with a
    /// Schnorr proof. `transcript` is the application's base transcript (created by the
    /// application with its own label); every proof extends a clone of it.
    pub fn new_with_rng<R: RngCore + CryptoRng>(
        setup: GameSetup,
        id: PartyId,
        transcript: Transcript,
        rng: &mut R,
    ) -> Result<(PlayerAwaitingKeys, KeyShare)> {
        if id.0 == 0 || id.index() >= setup.params.players {
            return Err(PokerError::InvalidParameters(format!(
                "{id} is not one of the {} players",
                setup.params.players
            )));
        }
        let sk = SecretKey::random_with_rng(rng);
        let common = Common {
            setup,
            id,
            base: transcript,
            sk,
        };
        let share =
            common
                .sk
                .key_share_with_rng(&mut common.transcript(), &common.setup.ctx(0, id), rng);
        Ok((PlayerAwaitingKeys { common }, share))
    }
}

/// Waiting for every player's key share.
pub struct PlayerAwaitingKeys {
    common: Common,
}

impl PlayerAwaitingKeys {
    /// Verifies all `N` key shares (in any order, including one's own) and computes the joint
    /// key. The open deck `(0, M_0), …, (0, M_{n−1})` becomes the current deck.
    pub fn receive_key_shares(self, shares: &[KeyShare]) -> Result<PlayerShuffling> {
        let c = self.common;
        let n_players = c.setup.params.players;
        let mut keys: Vec<Option<PublicKey>> = vec![None; n_players];
        for share in shares {
            let p = share.player;
            let slot = keys.get_mut(p.index()).filter(|_| p.0 != 0).ok_or(
                PokerError::UnexpectedMessage {
                    player: p,
                    reason: "key share from a player who is not in the game",
                },
            )?;
            if slot.is_some() {
                return Err(PokerError::UnexpectedMessage {
                    player: p,
                    reason: "second key share",
                });
            }
            let pk = share.verify(&mut c.transcript(), &c.setup.ctx(0, p))?;
            *slot = Some(pk);
        }
        let keys = keys
            .into_iter()
            .enumerate()
            .map(|(i, k)| {
                k.ok_or(PokerError::Missing {
                    player: PartyId::from_index(i),
                    what: "a key share",
                })
            })
            .collect::<Result<Vec<_>>>()?;
        if keys[c.id.index()] != *c.sk.public() {
            return Err(PokerError::UnexpectedMessage {
                player: c.id,
                reason: "own key share was replaced",
            });
        }
        let joint = joint_key(&keys)?;
        let deck = Deck::open_deck(&c.setup.cards);
        Ok(PlayerShuffling {
            common: c,
            keys,
            joint,
            deck,
            next: 0,
        })
    }
}

/// The shuffle phase: players `1, …, N` shuffle in turn; everyone verifies every turn.
pub struct PlayerShuffling {
    common: Common,
    keys: Vec<PublicKey>,
    joint: JointKey,
    deck: Deck,
    next: usize,
}

impl PlayerShuffling {
    /// Whose turn it is, or `None` when everyone has shuffled.
    pub fn next_shuffler(&self) -> Option<PartyId> {
        (self.next < self.common.setup.params.players).then(|| PartyId::from_index(self.next))
    }

    /// The current deck.
    pub fn deck(&self) -> &Deck {
        &self.deck
    }

    /// The joint key.
    pub fn joint_key(&self) -> &JointKey {
        &self.joint
    }

    /// Takes this player's turn: shuffles the current deck by a uniformly random permutation,
    /// re-randomises it and proves it.
    pub fn shuffle_with_rng<R: RngCore + CryptoRng>(
        &mut self,
        rng: &mut R,
    ) -> Result<ShuffleMessage> {
        let c = &self.common;
        if self.next_shuffler() != Some(c.id) {
            return Err(PokerError::UnexpectedMessage {
                player: c.id,
                reason: "asked to shuffle out of turn",
            });
        }
        let ctx = c.setup.ctx(self.next as u64 + 1, c.id);
        let (deck, proof) = shuffle_with_rng(
            &mut c.transcript(),
            &ctx,
            &c.setup.ck,
            &self.joint,
            &self.deck,
            rng,
        )?;
        let msg = ShuffleMessage {
            player: c.id,
            deck: deck.wire().to_vec(),
            proof,
        };
        self.deck = deck;
        self.next += 1;
        Ok(msg)
    }

    /// Verifies another player's turn and adopts its deck.
    pub fn receive_shuffle(&mut self, msg: &ShuffleMessage) -> Result<()> {
        let c = &self.common;
        let expected = self.next_shuffler();
        if expected != Some(msg.player) || msg.player == c.id {
            return Err(PokerError::UnexpectedMessage {
                player: msg.player,
                reason: "shuffle out of turn",
            });
        }
        let n = self.deck.len();
        if msg.deck.len() != n {
            return Err(PokerError::WrongLength {
                player: msg.player,
                what: "cards in the shuffled deck",
                expected: n,
                got: msg.deck.len(),
            });
        }
        let deck = Deck::decode(msg.deck.clone(), msg.player)?;
        let ctx = c.setup.ctx(self.next as u64 + 1, msg.player);
        verify_shuffle(
            &mut c.transcript(),
            &ctx,
            &c.setup.ck,
            &self.joint,
            &self.deck,
            &deck,
            &msg.proof,
        )?;
        self.deck = deck;
        self.next += 1;
        Ok(())
    }

    /// Ends the shuffle phase; fails, naming the player whose turn is missing, if not everyone
    /// has shuffled.
    pub fn finish(self) -> Result<PlayerDealing> {
        if let Some(p) = self.next_shuffler() {
            return Err(PokerError::Missing {
                player: p,
                what: "a shuffle",
            });
        }
        Ok(PlayerDealing {
            common: self.common,
            keys: self.keys,
            joint: self.joint,
            deck: self.deck,
        })
    }
}

/// The dealing phase: the final deck is fixed; hands are opened privately, public cards
/// publicly. The deck can then be used as a table of face-down cards: any player may apply a
/// restricted shuffle (random cut, bisection cut, …) to a row of positions, and any positions
/// can be opened publicly. These table steps take their round number from the caller, who
/// must use rounds above `N + 1` (the deal's reveal round) and never reuse one.
pub struct PlayerDealing {
    common: Common,
    keys: Vec<PublicKey>,
    joint: JointKey,
    deck: Deck,
}

/// What a player knows at the end of a deal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealtHand {
    /// The player.
    pub player: PartyId,
    /// Its hand, in deck order.
    pub hand: Vec<u16>,
    /// The public cards, in deck order.
    pub public: Vec<u16>,
}

impl PlayerDealing {
    /// The final deck.
    pub fn deck(&self) -> &Deck {
        &self.deck
    }

    /// The player's reveal tokens (with proofs) for every dealt position outside its own hand.
    pub fn reveal_message_with_rng<R: RngCore + CryptoRng>(&self, rng: &mut R) -> RevealMessage {
        let c = &self.common;
        let ctx = c.setup.ctx(c.setup.reveal_round(), c.id);
        let (cts, wire) = (self.deck.ciphertexts(), self.deck.wire());
        let tokens = c
            .setup
            .params
            .positions_revealed_by(c.id)
            .into_iter()
            .map(|pos| {
                reveal_token_with_rng(
                    &mut c.transcript(),
                    &ctx,
                    &c.sk,
                    pos as u32,
                    (&cts[pos], &wire[pos]),
                    rng,
                )
            })
            .collect();
        RevealMessage {
            player: c.id,
            tokens,
        }
    }

    /// Verifies the other players' tokens for this player's hand and the public cards, and opens
    /// them. `msgs` must hold one message from every other player (own message optional).
    pub fn receive_reveals(&self, msgs: &[RevealMessage]) -> Result<DealtHand> {
        let c = &self.common;
        let params = c.setup.params;
        let wanted: Vec<usize> = params
            .hand_positions(c.id)
            .chain(params.public_positions())
            .collect();
        let (cts, wire) = (self.deck.ciphertexts(), self.deck.wire());
        // tokens[k] collects the tokens for wanted[k].
        let mut tokens: Vec<Vec<_>> = wanted
            .iter()
            .map(|&pos| vec![own_token(&c.sk, &cts[pos])])
            .collect();
        let mut senders = TokenSenders::new(params.players, c.id);
        for msg in msgs {
            let p = msg.player;
            if !senders.admit(p)? {
                continue;
            }
            let expected = params.positions_revealed_by(p);
            if msg.tokens.len() != expected.len() {
                return Err(PokerError::WrongLength {
                    player: p,
                    what: "reveal tokens",
                    expected: expected.len(),
                    got: msg.tokens.len(),
                });
            }
            if msg
                .tokens
                .iter()
                .zip(&expected)
                .any(|(t, &e)| t.position as usize != e)
            {
                return Err(PokerError::UnexpectedMessage {
                    player: p,
                    reason: "reveal tokens for the wrong positions",
                });
            }
            let ctx = c.setup.ctx(c.setup.reveal_round(), p);
            let pk = &self.keys[p.index()];
            for (k, &pos) in wanted.iter().enumerate() {
                // `expected` is sorted, so the token for `pos` is found by binary search.
                let idx = expected
                    .binary_search(&pos)
                    .map_err(|_| PokerError::Missing {
                        player: p,
                        what: "a reveal token",
                    })?;
                let d = verify_reveal_token(
                    &mut c.transcript(),
                    &ctx,
                    pk,
                    (&cts[pos], &wire[pos]),
                    &msg.tokens[idx],
                )?;
                tokens[k].push(d);
            }
        }
        senders.all_heard()?;
        let mut opened = Vec::with_capacity(wanted.len());
        for (k, &pos) in wanted.iter().enumerate() {
            opened.push(open_card(&c.setup.cards, pos, &cts[pos], &tokens[k])?);
        }
        for (i, a) in opened.iter().enumerate() {
            if let Some(j) = opened[..i].iter().position(|b| b == a) {
                return Err(PokerError::DuplicateCard {
                    card: *a,
                    first: wanted[j],
                    second: wanted[i],
                });
            }
        }
        let public = opened.split_off(params.hand);
        Ok(DealtHand {
            player: c.id,
            hand: opened,
            public,
        })
    }
}

impl PlayerDealing {
    fn check_table_round(&self, round: u64) -> Result<()> {
        if round <= self.common.setup.reveal_round() {
            return Err(PokerError::InvalidParameters(format!(
                "table steps need rounds above {}, got {round}",
                self.common.setup.reveal_round()
            )));
        }
        Ok(())
    }

    fn row(&self, positions: &[usize]) -> Result<Deck> {
        let mut seen = vec![false; self.deck.len()];
        let mut cts = Vec::with_capacity(positions.len());
        for &p in positions {
            let ct = self.deck.get(p)?;
            if std::mem::replace(&mut seen[p], true) {
                return Err(PokerError::InvalidParameters(format!(
                    "position {p} appears twice in a row"
                )));
            }
            cts.push(*ct);
        }
        Ok(Deck::from_ciphertexts(cts))
    }

    fn replace_row(&mut self, positions: &[usize], row: &Deck) {
        let mut cts = self.deck.ciphertexts().to_vec();
        for (&p, ct) in positions.iter().zip(row.ciphertexts()) {
            cts[p] = *ct;
        }
        self.deck = Deck::from_ciphertexts(cts);
    }

    /// Shuffles the cards at `positions` (in that order, a row) by a uniformly random element of
    /// `set`, re-randomises them and proves it, in table round `round`.
    pub fn restricted_shuffle_with_rng<R: RngCore + CryptoRng>(
        &mut self,
        round: u64,
        set: &PermSet,
        positions: &[usize],
        rng: &mut R,
    ) -> Result<RestrictedShuffleMessage> {
        self.check_table_round(round)?;
        let row = self.row(positions)?;
        let c = &self.common;
        let ctx = c.setup.ctx(round, c.id);
        let (out, proof, _) =
            restricted_shuffle_with_rng(&mut c.transcript(), &ctx, &self.joint, set, &row, rng)?;
        let msg = RestrictedShuffleMessage {
            player: c.id,
            positions: positions.iter().map(|&p| p as u32).collect(),
            deck: out.wire().to_vec(),
            proof,
        };
        self.replace_row(positions, &out);
        Ok(msg)
    }

    /// Verifies another player's restricted shuffle of `positions` by an element of `set` in
    /// round `round`, and adopts the new row.
    pub fn receive_restricted_shuffle(
        &mut self,
        round: u64,
        set: &PermSet,
        positions: &[usize],
        msg: &RestrictedShuffleMessage,
    ) -> Result<()> {
        self.check_table_round(round)?;
        let player = msg.player;
        if player == self.common.id || player.0 == 0 || player.index() >= self.keys.len() {
            return Err(PokerError::UnexpectedMessage {
                player,
                reason: "restricted shuffle from an unexpected player",
            });
        }
        if msg.positions.len() != positions.len()
            || msg
                .positions
                .iter()
                .zip(positions)
                .any(|(&a, &b)| a as usize != b)
        {
            return Err(PokerError::UnexpectedMessage {
                player,
                reason: "restricted shuffle of other positions than agreed",
            });
        }
        if msg.deck.len() != positions.len() {
            return Err(PokerError::WrongLength {
                player,
                what: "cards in the shuffled row",
                expected: positions.len(),
                got: msg.deck.len(),
            });
        }
        let row = self.row(positions)?;
        let out = Deck::decode(msg.deck.clone(), player)?;
        let c = &self.common;
        verify_restricted_shuffle(
            &mut c.transcript(),
            &c.setup.ctx(round, player),
            &self.joint,
            set,
            &row,
            &out,
            &msg.proof,
        )?;
        self.replace_row(positions, &out);
        Ok(())
    }

    /// This player's reveal tokens for `positions`, to open them publicly in round `round`.
    pub fn public_reveal_with_rng<R: RngCore + CryptoRng>(
        &self,
        round: u64,
        positions: &[usize],
        rng: &mut R,
    ) -> Result<RevealMessage> {
        self.check_table_round(round)?;
        let c = &self.common;
        let ctx = c.setup.ctx(round, c.id);
        let (cts, wire) = (self.deck.ciphertexts(), self.deck.wire());
        let tokens = positions
            .iter()
            .map(|&pos| {
                self.deck.get(pos)?;
                Ok(reveal_token_with_rng(
                    &mut c.transcript(),
                    &ctx,
                    &c.sk,
                    pos as u32,
                    (&cts[pos], &wire[pos]),
                    rng,
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(RevealMessage {
            player: c.id,
            tokens,
        })
    }

    /// Opens `positions` publicly with every other player's tokens from round `round` (own
    /// message optional) and this player's own token. Repeated symbols are allowed (a
    /// card-protocol row may hold several copies of a card).
    pub fn open_public(
        &self,
        round: u64,
        positions: &[usize],
        msgs: &[RevealMessage],
    ) -> Result<Vec<u16>> {
        self.check_table_round(round)?;
        let c = &self.common;
        let (cts, wire) = (self.deck.ciphertexts(), self.deck.wire());
        let mut tokens = positions
            .iter()
            .map(|&pos| Ok(vec![own_token(&c.sk, self.deck.get(pos)?)]))
            .collect::<Result<Vec<_>>>()?;
        let mut senders = TokenSenders::new(self.keys.len(), c.id);
        for msg in msgs {
            let p = msg.player;
            if !senders.admit(p)? {
                continue;
            }
            if msg.tokens.len() != positions.len() {
                return Err(PokerError::WrongLength {
                    player: p,
                    what: "reveal tokens",
                    expected: positions.len(),
                    got: msg.tokens.len(),
                });
            }
            let ctx = c.setup.ctx(round, p);
            for (k, (&pos, token)) in positions.iter().zip(&msg.tokens).enumerate() {
                if token.position as usize != pos {
                    return Err(PokerError::UnexpectedMessage {
                        player: p,
                        reason: "reveal tokens for the wrong positions",
                    });
                }
                let d = verify_reveal_token(
                    &mut c.transcript(),
                    &ctx,
                    &self.keys[p.index()],
                    (&cts[pos], &wire[pos]),
                    token,
                )?;
                tokens[k].push(d);
            }
        }
        senders.all_heard()?;
        positions
            .iter()
            .zip(&tokens)
            .map(|(&pos, t)| open_card(&c.setup.cards, pos, &cts[pos], t))
            .collect()
    }
}

/// Who has sent reveal tokens in a round: every other player exactly once.
struct TokenSenders {
    seen: Vec<bool>,
    me: PartyId,
}

impl TokenSenders {
    fn new(players: usize, me: PartyId) -> TokenSenders {
        TokenSenders {
            seen: vec![false; players],
            me,
        }
    }

    /// `Ok(true)` for the first set of tokens from another player of the game, `Ok(false)` for
    /// one's own (nothing to check); a stranger or a second set is an error naming the sender.
    fn admit(&mut self, p: PartyId) -> Result<bool> {
        if p == self.me {
            return Ok(false);
        }
        let slot = self.seen.get_mut(p.index()).filter(|_| p.0 != 0).ok_or(
            PokerError::UnexpectedMessage {
                player: p,
                reason: "reveal tokens from a player who is not in the game",
            },
        )?;
        if std::mem::replace(slot, true) {
            return Err(PokerError::UnexpectedMessage {
                player: p,
                reason: "second set of reveal tokens",
            });
        }
        Ok(true)
    }

    /// Errs naming the first other player not heard from.
    fn all_heard(&self) -> Result<()> {
        match (0..self.seen.len()).find(|&i| i != self.me.index() && !self.seen[i]) {
            Some(i) => Err(PokerError::Missing {
                player: PartyId::from_index(i),
                what: "reveal tokens",
            }),
            None => Ok(()),
        }
    }
}
