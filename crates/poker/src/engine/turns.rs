//! Shuffles in turn: input commitments (one turn, by the committing player), uniform shuffles
//! over a group (every player in turn, restricted-shuffle OR-proofs), deals (every player in
//! turn, Bayer–Groth) and the weakened single-drawer shuffle.
//!
//! A deal's shuffle proofs are verified **in one batch** when the last turn is in
//! ([`crate::batch::verify_shuffles`]): a player shuffles the deck it received without waiting
//! for its proof (it only re-randomises and permutes ciphertexts, which reveals nothing), and
//! nothing is opened before the batch has passed. When the batch fails, the proofs are checked
//! one by one in turn order, so the first bad turn's player is named, as verifying each on
//! arrival would. An engine built to verify one by one
//! ([`PokerEngine::verifying`](super::PokerEngine::verifying)) checks them so at the same point:
//! the baseline of the bench's deal figures.

use facedown_core::engine::{After, Step, To};
use facedown_core::table::ShuffleSet;
use facedown_core::{PartyId, Perm, Seen};
use rand::{CryptoRng, Rng, RngCore};

use super::{commitment_key, Pending, PokerEngine, Stage, Table};
use crate::batch::ShuffleClaim;
use crate::elgamal::Deck;
use crate::errors::{PokerError, Result};
use crate::generators::CommitmentKey;
use crate::messages::{Message, RestrictedShuffleMessage, ShuffleMessage};
use crate::restricted::{restricted_shuffle_by_with_rng, verify_restricted_shuffle, PermSet};
use crate::shuffle::{shuffle_with_rng, ShuffleProof};
use merlin::Transcript;

/// How the player whose turn it is picks its permutation.
enum Pick {
    /// Uniformly from the set.
    Uniform,
    /// With these weights (one per element of the set).
    Weighted(Vec<u64>),
    /// This element (a commitment's arrangement, known to its owner only).
    Fixed(Option<usize>),
}

enum Kind {
    Restricted { set: PermSet, pick: Pick },
    Full { ck: CommitmentKey },
}

/// A shuffle in progress: who shuffles, in which order, and what.
pub(super) struct Turns {
    kind: Kind,
    /// The deck positions shuffled, in row order.
    support: Vec<usize>,
    order: Vec<PartyId>,
    next: usize,
    /// The round of the first turn; turn `t` is round `first_round + t`.
    first_round: u64,
    /// The other players' Bayer–Groth turns, whose proofs wait for the batch.
    received: Vec<Received>,
}

/// A received shuffle turn whose proof is not verified yet.
struct Received {
    round: u64,
    player: PartyId,
    input: Deck,
    output: Deck,
    proof: ShuffleProof,
}

impl Turns {
    /// The commitment of `party` to the cards at `support`: one turn, by `party`.
    pub(super) fn commit(
        table: &mut Table,
        party: PartyId,
        support: Vec<usize>,
        arrangement: Option<usize>,
    ) -> Result<Turns> {
        let set = PermSet::new(Perm::all(support.len()).collect())?;
        Ok(Turns::new(
            table,
            Kind::Restricted {
                set,
                pick: Pick::Fixed(arrangement),
            },
            support,
            vec![party],
        ))
    }

    /// The turns of a shuffle, or `None` if it moves no card.
    pub(super) fn shuffle(
        table: &mut Table,
        parties: usize,
        set: &ShuffleSet,
    ) -> Result<Option<Turns>> {
        let n = table.deck.len();
        let everyone: Vec<PartyId> = PartyId::all(parties).collect();
        let (perms, pick, order) = match set {
            ShuffleSet::All if n < 2 => return Ok(None),
            ShuffleSet::All => {
                let kind = Kind::Full {
                    ck: commitment_key(n),
                };
                return Ok(Some(Turns::new(table, kind, (0..n).collect(), everyone)));
            }
            ShuffleSet::Uniform(perms) if set.is_group() => {
                (perms.clone(), Pick::Uniform, everyone)
            }
            ShuffleSet::Uniform(perms) => (perms.clone(), Pick::Uniform, vec![PartyId(1)]),
            ShuffleSet::Weighted(weighted) => {
                let kept: Vec<_> = weighted.iter().filter(|(_, w)| *w > 0).collect();
                let perms = kept.iter().map(|(p, _)| p.clone()).collect();
                let weights = kept.iter().map(|(_, w)| *w).collect();
                (perms, Pick::Weighted(weights), vec![PartyId(1)])
            }
        };
        let support: Vec<usize> = (0..n)
            .filter(|&i| perms.iter().any(|p| p.apply(i) != i))
            .collect();
        if support.is_empty() {
            return Ok(None);
        }
        let set = PermSet::new(restrict(&perms, &support, n)?)?;
        Ok(Some(Turns::new(
            table,
            Kind::Restricted { set, pick },
            support,
            order,
        )))
    }

    fn new(table: &mut Table, kind: Kind, support: Vec<usize>, order: Vec<PartyId>) -> Turns {
        let first_round = table.round + 1;
        table.round += order.len() as u64;
        Turns {
            kind,
            support,
            order,
            next: 0,
            first_round,
            received: Vec::new(),
        }
    }

    /// Verifies every received Bayer–Groth turn in one batch (restricted shuffles are verified
    /// on arrival).
    fn verify_received(&self, base: &Transcript, table: &Table) -> Result<()> {
        let Kind::Full { ck } = &self.kind else {
            return Ok(());
        };
        let claims = self
            .received
            .iter()
            .map(|r| ShuffleClaim {
                transcript: base.clone(),
                ctx: table.ctx(r.round, r.player),
                input: &r.input,
                output: &r.output,
                proof: &r.proof,
            })
            .collect();
        table.verification.shuffles(ck, &table.joint, claims)
    }

    fn current(&self) -> Option<PartyId> {
        self.order.get(self.next).copied()
    }

    pub(super) fn awaiting(&self, me: PartyId) -> Vec<PartyId> {
        self.current().filter(|&p| p != me).into_iter().collect()
    }

    fn round(&self) -> u64 {
        self.first_round + self.next as u64
    }

    fn row(&self, table: &Table) -> Deck {
        table.row(&self.support)
    }

    fn adopt(&mut self, table: &mut Table, row: &Deck) {
        table.splice(&self.support, row);
        self.next += 1;
    }
}

/// The permutations of `perms` (on `n` positions) as permutations of the row `support`.
fn restrict(perms: &[Perm], support: &[usize], n: usize) -> Result<Vec<Perm>> {
    let mut index = vec![usize::MAX; n];
    for (a, &i) in support.iter().enumerate() {
        index[i] = a;
    }
    perms
        .iter()
        .map(|p| Perm::from_images(support.iter().map(|&i| index[p.apply(i)]).collect()))
        .collect::<core::result::Result<Vec<_>, _>>()
        .map_err(|e| PokerError::InvalidParameters(e.to_string()))
}

fn draw<R: RngCore + CryptoRng>(pick: &Pick, size: usize, rng: &mut R) -> Result<usize> {
    match pick {
        Pick::Uniform => Ok(rng.gen_range(0..size)),
        Pick::Fixed(k) => k.ok_or(PokerError::OutOfOrder("a commitment by another player")),
        Pick::Weighted(w) => {
            let total: u128 = w.iter().map(|&x| u128::from(x)).sum();
            let mut x = rng.gen_range(0..total.max(1));
            for (k, &wk) in w.iter().enumerate() {
                if x < u128::from(wk) {
                    return Ok(k);
                }
                x -= u128::from(wk);
            }
            Err(PokerError::InvalidParameters(
                "a shuffle without weight".to_owned(),
            ))
        }
    }
}

impl<R: RngCore + CryptoRng> PokerEngine<R> {
    /// Takes this player's turn if it is his, then waits for the next turn or ends.
    pub(super) fn run_turns(&mut self, mut turns: Turns, at_start: bool) -> Result<Step> {
        let mut step = Step::wait();
        if turns.current() == Some(self.me) {
            let payload = self.my_turn(&mut turns)?;
            let after = if at_start {
                After::Start
            } else {
                After::Received
            };
            step = step.with(To::All, after, payload);
        }
        let Stage::Table(table) = &mut self.stage else {
            return Err(PokerError::OutOfOrder("not at the table"));
        };
        if turns.current().is_none() {
            turns.verify_received(&self.base, table)?;
            step.done = Some(Seen::default());
        } else {
            table.pending = Pending::Turns(turns);
        }
        Ok(step)
    }

    fn my_turn(&mut self, turns: &mut Turns) -> Result<Vec<u8>> {
        let Stage::Table(table) = &mut self.stage else {
            return Err(PokerError::OutOfOrder("not at the table"));
        };
        let input = turns.row(table);
        let round = turns.round();
        let ctx = table.ctx(round, self.me);
        let mut t = self.base.clone();
        let (out, msg) = match &turns.kind {
            Kind::Restricted { set, pick } => {
                let k = draw(pick, set.len(), &mut self.rng)?;
                let (out, proof) = restricted_shuffle_by_with_rng(
                    &mut t,
                    &ctx,
                    &table.joint,
                    set,
                    &input,
                    k,
                    &mut self.rng,
                )?;
                let msg = Message::RestrictedShuffle(RestrictedShuffleMessage {
                    player: self.me,
                    positions: turns.support.iter().map(|&i| i as u32).collect(),
                    deck: out.wire().to_vec(),
                    proof,
                });
                (out, msg)
            }
            Kind::Full { ck } => {
                let (out, proof) =
                    shuffle_with_rng(&mut t, &ctx, ck, &table.joint, &input, &mut self.rng)?;
                let msg = Message::Shuffle(Box::new(ShuffleMessage {
                    player: self.me,
                    deck: out.wire().to_vec(),
                    proof,
                }));
                (out, msg)
            }
        };
        turns.adopt(table, &out);
        msg.to_bytes()
    }

    pub(super) fn receive_turn(
        &mut self,
        mut turns: Turns,
        from: PartyId,
        msg: Message,
    ) -> Result<Step> {
        let Stage::Table(table) = &mut self.stage else {
            return Err(PokerError::OutOfOrder("not at the table"));
        };
        let input = turns.row(table);
        let round = turns.round();
        let ctx = table.ctx(round, from);
        let mut t = self.base.clone();
        let out = match (&turns.kind, msg) {
            (Kind::Restricted { set, .. }, Message::RestrictedShuffle(m)) => {
                let agreed = m.positions.len() == turns.support.len()
                    && m.positions
                        .iter()
                        .zip(&turns.support)
                        .all(|(&a, &b)| a as usize == b);
                if !agreed {
                    return Err(PokerError::UnexpectedMessage {
                        player: from,
                        reason: "restricted shuffle of other positions than agreed",
                    });
                }
                let out = decode_row(m.deck, input.len(), from, "cards in the shuffled row")?;
                verify_restricted_shuffle(&mut t, &ctx, &table.joint, set, &input, &out, &m.proof)?;
                out
            }
            (Kind::Full { .. }, Message::Shuffle(m)) => {
                let m = *m;
                let out = decode_row(m.deck, input.len(), from, "cards in the shuffled deck")?;
                turns.received.push(Received {
                    round,
                    player: from,
                    input,
                    output: out.clone(),
                    proof: m.proof,
                });
                out
            }
            _ => {
                return Err(PokerError::UnexpectedMessage {
                    player: from,
                    reason: "a message of the wrong kind for this shuffle turn",
                })
            }
        };
        turns.adopt(table, &out);
        self.run_turns(turns, false)
    }
}

fn decode_row(
    wire: Vec<crate::elgamal::CompressedCiphertext>,
    expected: usize,
    player: PartyId,
    what: &'static str,
) -> Result<Deck> {
    if wire.len() != expected {
        return Err(PokerError::WrongLength {
            player,
            what,
            expected,
            got: wire.len(),
        });
    }
    Deck::decode(wire, player)
}
