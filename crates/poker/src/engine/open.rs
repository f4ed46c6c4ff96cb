//! Openings: every player sends every other player its reveal tokens for the public positions
//! and for the positions shown to that player; each player adds its own token and reads the
//! cards.
//!
//! A card never shuffled or committed is still an open masking `(0, M)`: everyone reads it and
//! no token is sent for it. The tokens for the public positions are proved once and sent to
//! everyone; those for a private group go to its recipient only. Tokens travel in the
//! batchable encoding, and a player verifies the whole round's in one batch
//! ([`crate::batch::verify_reveal_tokens`]) once every sender's are in.
//!
//! The recipient of a private group keeps the tokens it was sent for it, with their proofs
//! ([`super::Shown`]): a none-of proof about those cards forwards them ([`super::legal`]).

use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::traits::Identity;
use facedown_core::engine::{After, Step, To};
use facedown_core::{Opening, PartyId, Seen, Symbol};
use merlin::Transcript;
use rand::{CryptoRng, RngCore};

use super::{Shown, Table};
use crate::batch::TokenClaim;
use crate::errors::{PokerError, Result};
use crate::keys::SecretKey;
use crate::messages::{Message, RevealMessage};
use crate::reveal::{batchable_reveal_token_and_point_with_rng, own_token, BatchableRevealToken};

/// An opening in progress at one player.
pub(super) struct Open {
    opening: Opening,
    round: u64,
    me: PartyId,
    /// The positions this player reads, hidden ones first need tokens: public, then its own.
    want: Vec<usize>,
    /// For each entry of `want` that is hidden, the sum of the tokens so far (own included).
    sums: Vec<RistrettoPoint>,
    /// Players whose tokens have not arrived.
    pending: Vec<PartyId>,
    /// Where this player's own hidden positions start in `want`.
    own_from: usize,
    /// For each own hidden position, the verified tokens, by sender.
    kept: Vec<Vec<(PartyId, BatchableRevealToken, RistrettoPoint)>>,
    /// The tokens received so far, by sender, verified in one batch once all are in.
    arrived: Vec<(PartyId, Vec<BatchableRevealToken>)>,
}

fn hidden(table: &Table, positions: &[usize]) -> Vec<usize> {
    let cts = table.deck.ciphertexts();
    positions
        .iter()
        .copied()
        .filter(|&i| cts[i].c1 != RistrettoPoint::identity())
        .collect()
}

/// The positions whose tokens `to` collects: the hidden public ones, then its hidden own ones.
fn wanted_by(table: &Table, opening: &Opening, to: PartyId) -> Vec<usize> {
    let mut want = hidden(table, &opening.public);
    if let Some(mine) = opening.private_to(to) {
        want.extend(hidden(table, mine));
    }
    want
}

/// What an opening needs of its player.
pub(super) struct Context<'a> {
    /// The player's secret key.
    pub(super) sk: &'a SecretKey,
    /// The player.
    pub(super) me: PartyId,
    /// The number of players.
    pub(super) parties: usize,
    /// The opening's round.
    pub(super) round: u64,
    /// The base transcript.
    pub(super) base: &'a Transcript,
}

struct Prover<'a, R> {
    table: &'a Table,
    cx: &'a Context<'a>,
    rng: &'a mut R,
}

impl<R: RngCore + CryptoRng> Prover<'_, R> {
    /// This player's tokens for `positions`, each with its point `d_i`.
    fn tokens(&mut self, positions: &[usize]) -> Vec<(BatchableRevealToken, RistrettoPoint)> {
        let ctx = self.table.ctx(self.cx.round, self.cx.me);
        let (cts, wire) = (self.table.deck.ciphertexts(), self.table.deck.wire());
        positions
            .iter()
            .map(|&i| {
                batchable_reveal_token_and_point_with_rng(
                    &mut self.cx.base.clone(),
                    &ctx,
                    self.cx.sk,
                    i as u32,
                    (&cts[i], &wire[i]),
                    self.rng,
                )
            })
            .collect()
    }
}

impl Open {
    /// Sends this player's tokens; returns the opening to complete (or `None` with the seen
    /// cards in the step if nothing needs to arrive).
    pub(super) fn begin<R: RngCore + CryptoRng>(
        table: &Table,
        cx: &Context<'_>,
        opening: &Opening,
        rng: &mut R,
    ) -> Result<(Option<Open>, Step)> {
        let (me, parties) = (cx.me, cx.parties);
        let mut prover = Prover { table, cx, rng };
        let public = prover.tokens(&hidden(table, &opening.public));
        let mut step = Step::wait();
        for to in PartyId::all(parties).filter(|&p| p != me) {
            let mut tokens: Vec<BatchableRevealToken> = public.iter().map(|(t, _)| *t).collect();
            if let Some(group) = opening.private_to(to) {
                let private = prover.tokens(&hidden(table, group));
                tokens.extend(private.into_iter().map(|(t, _)| t));
            }
            if tokens.is_empty() {
                continue;
            }
            let msg = Message::Reveal(RevealMessage { player: me, tokens });
            step = step.with(To::Party(to), After::Start, msg.to_bytes()?);
        }
        let want = wanted_by(table, opening, me);
        let own_from = hidden(table, &opening.public).len();
        let cts = table.deck.ciphertexts();
        // The own token of a public position is the one just proved: reuse its point rather
        // than multiply (or decompress) again.
        let mut sums = Vec::with_capacity(want.len());
        for (k, &i) in want.iter().enumerate() {
            let proved = public.get(k).map(|(_, d)| *d);
            sums.push(proved.unwrap_or_else(|| own_token(cx.sk, &cts[i])));
        }
        let open = Open {
            opening: opening.clone(),
            round: cx.round,
            me,
            sums,
            pending: if want.is_empty() {
                Vec::new()
            } else {
                PartyId::all(parties).filter(|&p| p != me).collect()
            },
            own_from,
            kept: vec![Vec::new(); want.len() - own_from],
            arrived: Vec::new(),
            want,
        };
        if open.pending.is_empty() {
            step.done = Some(open.read(table)?);
            return Ok((None, step));
        }
        Ok((Some(open), step))
    }

    pub(super) fn awaiting(&self) -> Vec<PartyId> {
        self.pending.clone()
    }

    /// Takes the tokens of `from`; verifies every player's and reads the cards once all are in.
    pub(super) fn receive(
        &mut self,
        table: &mut Table,
        base: &Transcript,
        from: PartyId,
        msg: &RevealMessage,
    ) -> Result<Option<Seen>> {
        let Some(slot) = self.pending.iter().position(|&p| p == from) else {
            return Err(PokerError::UnexpectedMessage {
                player: from,
                reason: "second set of reveal tokens",
            });
        };
        if msg.tokens.len() != self.want.len() {
            return Err(PokerError::WrongLength {
                player: from,
                what: "reveal tokens",
                expected: self.want.len(),
                got: msg.tokens.len(),
            });
        }
        if self
            .want
            .iter()
            .zip(&msg.tokens)
            .any(|(&i, t)| t.position as usize != i)
        {
            return Err(PokerError::UnexpectedMessage {
                player: from,
                reason: "reveal tokens for the wrong positions",
            });
        }
        self.arrived.push((from, msg.tokens.clone()));
        self.pending.remove(slot);
        if self.pending.is_empty() {
            self.verify_arrived(table, base)?;
            self.keep(table);
            return self.read(table).map(Some);
        }
        Ok(None)
    }

    /// Every player's tokens are in: verifies them in one batch (by sender, then position, so
    /// a failure names the first sender with a bad token) and adds them up.
    fn verify_arrived(&mut self, table: &Table, base: &Transcript) -> Result<()> {
        let mut arrived = std::mem::take(&mut self.arrived);
        arrived.sort_by_key(|(p, _)| *p);
        let (cts, wire) = (table.deck.ciphertexts(), table.deck.wire());
        let claims = arrived
            .iter()
            .flat_map(|(p, tokens)| {
                self.want.iter().zip(tokens).map(|(&i, token)| TokenClaim {
                    transcript: base.clone(),
                    ctx: table.ctx(self.round, *p),
                    pk: &table.keys[p.index()],
                    ct: (&cts[i], &wire[i]),
                    token,
                })
            })
            .collect();
        let points = table.verification.reveal_tokens(claims)?;
        for ((p, tokens), ds) in arrived.iter().zip(points.chunks(self.want.len().max(1))) {
            for (sum, d) in self.sums.iter_mut().zip(ds) {
                *sum += d;
            }
            let own = tokens.iter().zip(ds).skip(self.own_from);
            for (kept, (token, d)) in self.kept.iter_mut().zip(own) {
                kept.push((*p, *token, *d));
            }
        }
        Ok(())
    }

    /// Every token is in: the recipient keeps those of its own cards, by the card's ciphertext.
    fn keep(&mut self, table: &mut Table) {
        let own = self.want[self.own_from..].iter();
        for (&i, mut kept) in own.zip(std::mem::take(&mut self.kept)) {
            kept.sort_by_key(|(p, _, _)| *p);
            let shown = Shown {
                round: self.round,
                others: kept.iter().map(|(_, _, d)| d).sum(),
                tokens: kept.into_iter().map(|(_, t, _)| t).collect(),
            };
            table.shown.insert(table.deck.wire()[i], shown);
        }
    }

    /// Reads every card this player was shown.
    fn read(&self, table: &Table) -> Result<Seen> {
        let card = |i: usize| -> Result<Symbol> {
            let ct = &table.deck.ciphertexts()[i];
            let m = match self.want.iter().position(|&w| w == i) {
                Some(k) => ct.c2 - self.sums[k],
                None => ct.c2,
            };
            table
                .encoding
                .card(&m)
                .map(Symbol::from_code)
                .ok_or(PokerError::UnknownCard { position: i })
        };
        let cards = |ps: &[usize]| ps.iter().map(|&i| card(i)).collect::<Result<Vec<_>>>();
        let public = cards(&self.opening.public)?;
        let private = self
            .opening
            .private
            .iter()
            .map(|(p, ps)| (*p == self.me).then(|| cards(ps)).transpose())
            .collect::<Result<Vec<_>>>()?;
        Ok(Seen { public, private })
    }
}
