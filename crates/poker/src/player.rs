//! Players as sans-IO state machines.
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
use crate::messages::{RevealMessage, ShuffleMessage};
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

impl DealParams {
    /// Checks that the deal fits the deck.
    pub fn validate(&self) -> Result<()> {
        if self.players < 2 || self.players >= usize::from(u16::MAX) {
            return Err(PokerError::InvalidParameters(format!(
                "need at least 2 players, got {}",
                self.players
            )));
        }
        if self.cards < 2 {
            return Err(PokerError::InvalidParameters(format!(
                "need at least 2 cards, got {}",
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
            deck: self.deck,
        })
    }
}

/// The dealing phase: the final deck is fixed; hands are opened privately, public cards
/// publicly.
pub struct PlayerDealing {
    common: Common,
    keys: Vec<PublicKey>,
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
    pub fn receive_reveals(self, msgs: &[RevealMessage]) -> Result<DealtHand> {
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
        let mut seen = vec![false; params.players];
        for msg in msgs {
            let p = msg.player;
            if p == c.id {
                continue;
            }
            let slot = seen.get_mut(p.index()).filter(|_| p.0 != 0).ok_or(
                PokerError::UnexpectedMessage {
                    player: p,
                    reason: "reveal tokens from a player who is not in the game",
                },
            )?;
            if *slot {
                return Err(PokerError::UnexpectedMessage {
                    player: p,
                    reason: "second set of reveal tokens",
                });
            }
            *slot = true;
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
        if let Some(i) = (0..params.players).find(|&i| i != c.id.index() && !seen[i]) {
            return Err(PokerError::Missing {
                player: PartyId::from_index(i),
                what: "reveal tokens",
            });
        }
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
