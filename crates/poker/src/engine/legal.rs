//! A none-of proof at the table ([`TableOp::ProveNoneOf`](facedown_core::TableOp)): the owner
//! forwards, for each of his cards, the other players' reveal tokens he was sent when it was
//! shown to him, and proves that none of the cards is an excluded symbol ([`crate::legal`]).
//! One broadcast, one round (and the echo); every other player checks the forwarded tokens
//! against the card's ciphertext, computes `P = c2 − Σ_{i≠o} d_i` and verifies the proof.
//!
//! Every failure of the forwarded tokens or of the proof names the owner: an honest owner
//! forwards only tokens it verified, for the ciphertext every player holds, so a token that
//! does not verify now was altered by him.

use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::traits::Identity;
use facedown_core::engine::{After, Step, To};
use facedown_core::table::{check_party, check_positions};
use facedown_core::{PartyId, Seen, Symbol};
use merlin::Transcript;
use rand::{CryptoRng, RngCore};

use super::{idle, PokerEngine, Stage, Table};
use crate::batch::TokenClaim;
use crate::elgamal::card_point;
use crate::errors::{PokerError, ProofKind, Result};
use crate::legal::{
    prove_none_of_with_rng, verify_none_of, ClaimedCard, Excluded, NoneOfStatement,
};
use crate::messages::{Message, NoneOfMessage, ShownCard};

/// A claim under way at a player other than its owner: waiting for the owner's proof.
pub(super) struct Claim {
    owner: PartyId,
    positions: Vec<usize>,
    excluded: Vec<Excluded>,
    round: u64,
}

impl Claim {
    pub(super) fn awaiting(&self) -> Vec<PartyId> {
        vec![self.owner]
    }
}

/// The excluded symbols, each once, in code order (every player derives the same list).
fn excluded_points(table: &Table, excluded: &[Symbol]) -> Vec<Excluded> {
    let mut codes: Vec<u16> = excluded.iter().map(|s| s.code()).collect();
    codes.sort_unstable();
    codes.dedup();
    codes
        .into_iter()
        .map(|code| Excluded {
            code,
            point: table
                .encoding
                .point(code)
                .unwrap_or_else(|| card_point(code)),
        })
        .collect()
}

fn is_hidden(table: &Table, position: usize) -> bool {
    table.deck.ciphertexts()[position].c1 != RistrettoPoint::identity()
}

/// The owner's own cards: their `P` from the tokens it kept, and what it forwards.
fn own_cards(
    table: &Table,
    me: PartyId,
    positions: &[usize],
) -> Result<(Vec<ClaimedCard>, Vec<ShownCard>)> {
    let (cts, wire) = (table.deck.ciphertexts(), table.deck.wire());
    let mut cards = Vec::with_capacity(positions.len());
    let mut forwarded = Vec::with_capacity(positions.len());
    for &i in positions {
        let (round, tokens, others) = if is_hidden(table, i) {
            let shown = table.shown.get(&wire[i]).ok_or_else(|| {
                PokerError::InvalidParameters(format!(
                    "the card at position {i} was not shown to {me} alone since it was last \
                     shuffled"
                ))
            })?;
            (shown.round, shown.tokens.clone(), shown.others)
        } else {
            (0, Vec::new(), RistrettoPoint::identity())
        };
        cards.push(ClaimedCard {
            position: i,
            ct: (cts[i], wire[i]),
            p: cts[i].c2 - others,
        });
        forwarded.push(ShownCard { round, tokens });
    }
    Ok((cards, forwarded))
}

/// A failure of a token the owner forwarded, blamed on the owner.
fn forwarded_by(owner: PartyId, e: PokerError) -> PokerError {
    match e {
        PokerError::InvalidProof { .. } => PokerError::InvalidProof {
            player: owner,
            kind: ProofKind::NoneOf,
        },
        PokerError::NonCanonical { item, .. } => PokerError::NonCanonical {
            player: owner,
            item,
        },
        PokerError::IdentityPoint { item, .. } => PokerError::IdentityPoint {
            player: owner,
            item,
        },
        other => other,
    }
}

/// The players whose tokens the owner forwards for the card at `position`: every other
/// player, or nobody for an open masking.
fn makers(table: &Table, position: usize, owner: PartyId, parties: usize) -> Vec<PartyId> {
    match is_hidden(table, position) {
        true => PartyId::all(parties).filter(|&p| p != owner).collect(),
        false => Vec::new(),
    }
}

/// Checks the shape of what the owner forwards: one entry per position, one token per maker,
/// from a past round.
fn check_forwarded(
    table: &Table,
    claim: &Claim,
    shown: &[ShownCard],
    parties: usize,
) -> Result<()> {
    let owner = claim.owner;
    let wrong_length = |what, expected, got| PokerError::WrongLength {
        player: owner,
        what,
        expected,
        got,
    };
    if shown.len() != claim.positions.len() {
        let got = shown.len();
        return Err(wrong_length("shown cards", claim.positions.len(), got));
    }
    for (&i, card) in claim.positions.iter().zip(shown) {
        let expected = makers(table, i, owner, parties).len();
        if card.tokens.len() != expected {
            let got = card.tokens.len();
            return Err(wrong_length("forwarded reveal tokens", expected, got));
        }
        if expected > 0 && !(1..claim.round).contains(&card.round) {
            return Err(PokerError::UnexpectedMessage {
                player: owner,
                reason: "forwarded reveal tokens of a round that is not a past one",
            });
        }
    }
    Ok(())
}

/// The verifier's cards: every forwarded token checked, in one batch, against the card and its
/// maker's key.
fn claimed_cards(
    table: &Table,
    base: &Transcript,
    claim: &Claim,
    shown: &[ShownCard],
    parties: usize,
) -> Result<Vec<ClaimedCard>> {
    check_forwarded(table, claim, shown, parties)?;
    let owner = claim.owner;
    let (cts, wire) = (table.deck.ciphertexts(), table.deck.wire());
    let mut claims = Vec::new();
    for (&i, card) in claim.positions.iter().zip(shown) {
        for (p, token) in makers(table, i, owner, parties)
            .into_iter()
            .zip(&card.tokens)
        {
            claims.push(TokenClaim {
                transcript: base.clone(),
                ctx: table.ctx(card.round, p),
                pk: &table.keys[p.index()],
                ct: (&cts[i], &wire[i]),
                token,
            });
        }
    }
    let mut tokens = table
        .verification
        .reveal_tokens(claims)
        .map_err(|e| forwarded_by(owner, e))?
        .into_iter();
    let cards = claim.positions.iter().zip(shown).map(|(&i, card)| {
        let others: RistrettoPoint = tokens.by_ref().take(card.tokens.len()).sum();
        ClaimedCard {
            position: i,
            ct: (cts[i], wire[i]),
            p: cts[i].c2 - others,
        }
    });
    Ok(cards.collect())
}

impl<R: RngCore + CryptoRng> PokerEngine<R> {
    pub(super) fn begin_none_of(
        &mut self,
        owner: PartyId,
        positions: &[usize],
        excluded: &[Symbol],
    ) -> Result<Step> {
        let (me, parties) = (self.me, self.parties);
        let table = idle(&mut self.stage)?;
        check_party(owner, parties)?;
        check_positions(positions, table.deck.len())?;
        let round = table.next_round();
        let excluded = excluded_points(table, excluded);
        if positions.is_empty() || excluded.is_empty() {
            return Ok(Step::done(Seen::default()));
        }
        if owner != me {
            let positions = positions.to_vec();
            table.pending = super::Pending::NoneOf(Claim {
                owner,
                positions,
                excluded,
                round,
            });
            return Ok(Step::wait());
        }
        let (cards, forwarded) = own_cards(table, me, positions)?;
        let st = NoneOfStatement {
            key: &table.keys[me.index()],
            cards: &cards,
            excluded: &excluded,
        };
        let ctx = table.ctx(round, me);
        let proof =
            prove_none_of_with_rng(&mut self.base.clone(), &ctx, &self.sk, &st, &mut self.rng)?;
        let msg = Message::NoneOf(NoneOfMessage {
            player: me,
            cards: forwarded,
            proof,
        });
        Ok(Step::done(Seen::default()).with(To::All, After::Start, msg.to_bytes()?))
    }

    pub(super) fn receive_none_of(
        &mut self,
        claim: Claim,
        from: PartyId,
        msg: Message,
    ) -> Result<Step> {
        let Stage::Table(table) = &self.stage else {
            return Err(PokerError::OutOfOrder("not at the table"));
        };
        let Message::NoneOf(m) = msg else {
            return Err(PokerError::UnexpectedMessage {
                player: from,
                reason: "a message other than a none-of proof during one",
            });
        };
        let cards = claimed_cards(table, &self.base, &claim, &m.cards, self.parties)?;
        let st = NoneOfStatement {
            key: &table.keys[claim.owner.index()],
            cards: &cards,
            excluded: &claim.excluded,
        };
        let ctx = table.ctx(claim.round, claim.owner);
        verify_none_of(&mut self.base.clone(), &ctx, &st, &m.proof)?;
        Ok(Step::done(Seen::default()))
    }
}
