//! The encrypted deck as a [`FaceDownTable`]: every card on the table is an ElGamal ciphertext
//! under the players' joint key, and every step that hides something comes with a proof.
//!
//! | table operation | on the encrypted deck | proof | rounds |
//! |---|---|---|---|
//! | setup | key shares `Y_i`, joint key `Y` | Schnorr | 1 |
//! | [`place`](FaceDownTable::place) | open maskings `(0, M_c)` | none (public) | 0 |
//! | [`commit`](FaceDownTable::commit) by `p` | open maskings of the sorted cards, then `p` alone applies the arrangement of his choice, as a restricted shuffle over every arrangement | OR-proof: the row is *some* arrangement of these cards | 1 |
//! | [`rearrange`](FaceDownTable::rearrange) | reorder the ciphertexts | none (public) | 0 |
//! | [`shuffle`](FaceDownTable::shuffle) `Uniform(G)`, `G` a group | each player in turn applies a uniform element of `G` to the cards `G` moves, re-randomised | restricted-shuffle OR-proof \[MS09\] | `N` |
//! | [`shuffle`](FaceDownTable::shuffle) `All` | each player in turn shuffles the whole row | Bayer–Groth \[BG12\] | `N` |
//! | [`turn`](FaceDownTable::turn) | every player broadcasts reveal tokens `d_i = x_i·c1` | Chaum–Pedersen | 1 |
//! | [`open_to`](FaceDownTable::open_to) `p` | the others send their tokens to `p`, who adds his own | Chaum–Pedersen | 1 |
//!
//! An input commitment is *not* a masking with a Chaum–Pedersen proof of the card: that proof
//! needs the card to verify. It is a restricted shuffle by the committing party over all
//! arrangements of the (public) multiset of cards — for a bit, `{id, swap}` of `♣♥` — so the
//! others learn that the pair is a valid commitment and nothing else.
//!
//! Weighted shuffles and uniform shuffles over a set that is not a group are refused: each
//! player's uniform element composes to a uniform element only over a group, and one player
//! drawing alone would know the permutation.
//!
//! **Accounting** follows [`crate::driver`]: every message is encoded with
//! [`Message::to_bytes`] and broadcast to the `N − 1` others (`N − 1` messages, `N − 1` times its
//! bytes), except the tokens of a private opening, which go to the one recipient. Every proof
//! is verified once, by the table standing for each honest receiver (the receivers run the same
//! deterministic check, in parallel on a real network).
//!
//! Security model: malicious players, any coalition of up to `N − 1` (computational: DDH on
//! ristretto255 and the random-oracle model for Fiat–Shamir).

use std::collections::BTreeMap;

use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::traits::Identity;
use facedown_core::table::TableError;
use facedown_core::table::{Capabilities, FaceDownTable, SecurityModel, ShuffleSet, Support};
use facedown_core::{CommitCards, Cost, PartyId, Perm, Seen, Symbol, TableOp};
pub use merlin::Transcript;
use rand::{CryptoRng, RngCore};

use crate::elgamal::{card_point, CardEncoding, Ciphertext, Deck, JointKey};
use crate::errors::PokerError;
use crate::generators::CommitmentKey;
use crate::keys::{joint_key, PublicKey, SecretKey};
use crate::messages::{Message, RestrictedShuffleMessage, RevealMessage, ShuffleMessage};
use crate::restricted::{restricted_shuffle_by_with_rng, verify_restricted_shuffle, PermSet};
use crate::reveal::{open_card, own_token, reveal_token_with_rng, verify_reveal_token};
use crate::shuffle::{shuffle_with_rng, verify_shuffle};
use crate::transcript::ProofContext;

/// Largest number of cards in one input commitment (its proof has one branch per arrangement).
pub const MAX_COMMIT: usize = 5;

/// Why the encrypted table refused or failed an operation.
#[derive(Debug, thiserror::Error)]
pub enum EncryptedTableError {
    /// Bad input: a position, permutation size, party or empty shuffle.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A proof, message or decoding failed (names the offending player).
    #[error(transparent)]
    Poker(#[from] PokerError),
    /// A weighted shuffle.
    #[error(
        "the encrypted deck cannot perform a weighted shuffle: per-player uniform shuffles do not \
         compose to it, and a single player drawing it would know the permutation"
    )]
    Weighted,
    /// A uniform shuffle over a set that is not a group.
    #[error(
        "the encrypted deck cannot shuffle uniformly over these {size} permutations: they do not \
         form a group, so per-player shuffles do not compose to a uniform element"
    )]
    NotAGroup {
        /// Number of permutations listed.
        size: usize,
    },
    /// An input commitment of too many cards.
    #[error("an input commitment of {0} cards is too large (at most {MAX_COMMIT})")]
    CommitTooLarge(usize),
}

type Result<T> = core::result::Result<T, EncryptedTableError>;

fn symbol_code(s: Symbol) -> u16 {
    match s {
        Symbol::Club => 0,
        Symbol::Heart => 1,
        Symbol::Card(k) => k.saturating_add(2),
    }
}

fn code_symbol(c: u16) -> Symbol {
    match c {
        0 => Symbol::Club,
        1 => Symbol::Heart,
        k => Symbol::Card(k - 2),
    }
}

/// Barnett–Smart players at a table of encrypted cards (see the [module docs](self)).
pub struct EncryptedTable<R> {
    parties: usize,
    secrets: Vec<SecretKey>,
    publics: Vec<PublicKey>,
    key: JointKey,
    row: Vec<Ciphertext>,
    encoding: CardEncoding,
    commitment_keys: BTreeMap<usize, CommitmentKey>,
    transcript: Transcript,
    session: Vec<u8>,
    round: u64,
    cost: Cost,
    rng: R,
}

impl<R> core::fmt::Debug for EncryptedTable<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EncryptedTable")
            .field("parties", &self.parties)
            .field("cards", &self.row.len())
            .field("cost", &self.cost)
            .finish_non_exhaustive()
    }
}

impl<R: RngCore + CryptoRng> EncryptedTable<R> {
    /// Sets up a table for `parties ≥ 2` players: key shares with Schnorr proofs, verified, and
    /// the joint key (one round). `transcript` is the application's, extended by every proof.
    pub fn setup_with_rng(parties: usize, transcript: Transcript, mut rng: R) -> Result<Self> {
        if parties < 2 {
            return Err(PokerError::InvalidParameters(format!(
                "an encrypted table needs at least 2 players, not {parties}"
            ))
            .into());
        }
        let mut session = vec![0u8; 32];
        rng.fill_bytes(&mut session);
        let mut table = EncryptedTable {
            parties,
            secrets: Vec::new(),
            publics: Vec::new(),
            key: JointKey::from_point(RistrettoPoint::identity()),
            row: Vec::new(),
            encoding: CardEncoding::new(2),
            commitment_keys: BTreeMap::new(),
            transcript,
            session,
            round: 0,
            cost: Cost::ZERO,
            rng,
        };
        for p in PartyId::all(parties) {
            let sk = SecretKey::random_with_rng(&mut table.rng);
            let session = table.session.clone();
            let ctx = ProofContext {
                session: &session,
                round: table.round,
                player: p,
            };
            let mut verifier = table.transcript.clone();
            let share = sk.key_share_with_rng(&mut table.transcript, &ctx, &mut table.rng);
            let public = share.verify(&mut verifier, &ctx)?;
            table.broadcast(&Message::KeyShare(share))?;
            table.secrets.push(sk);
            table.publics.push(public);
        }
        table.key = joint_key(&table.publics)?;
        table.next_round();
        Ok(table)
    }

    fn next_round(&mut self) {
        self.round += 1;
        self.cost.rounds += 1;
    }

    fn broadcast(&mut self, msg: &Message) -> Result<()> {
        let bytes = msg.to_bytes()?.len() as u64;
        let d = self.parties as u64 - 1;
        self.cost.messages += d;
        self.cost.bytes += d * bytes;
        Ok(())
    }

    fn send_one(&mut self, msg: &Message) -> Result<()> {
        let bytes = msg.to_bytes()?.len() as u64;
        self.cost.messages += 1;
        self.cost.bytes += bytes;
        Ok(())
    }

    fn check_party(&self, party: PartyId) -> Result<()> {
        if party.0 == 0 || party.index() >= self.parties {
            return Err(TableError::Party {
                party,
                parties: self.parties,
            }
            .into());
        }
        Ok(())
    }

    fn check_positions(&self, positions: &[usize]) -> Result<()> {
        match positions.iter().find(|&&p| p >= self.row.len()) {
            Some(&position) => Err(TableError::Position {
                position,
                len: self.row.len(),
            }
            .into()),
            None => Ok(()),
        }
    }

    fn learn_symbols(&mut self, cards: &[Symbol]) {
        let max = cards.iter().map(|&s| symbol_code(s)).max().unwrap_or(0);
        if usize::from(max) >= self.encoding.len() {
            self.encoding = CardEncoding::new(max.saturating_add(1));
        }
    }

    /// Player `p` shuffles the cards at `support` by element `k` of `set` (on `support`),
    /// proves it, and the proof is verified.
    fn restricted_by(
        &mut self,
        p: PartyId,
        support: &[usize],
        set: &PermSet,
        k: usize,
    ) -> Result<()> {
        let input = Deck::from_ciphertexts(support.iter().map(|&i| self.row[i]).collect());
        let session = self.session.clone();
        let ctx = ProofContext {
            session: &session,
            round: self.round,
            player: p,
        };
        let mut verifier = self.transcript.clone();
        let (output, proof) = restricted_shuffle_by_with_rng(
            &mut self.transcript,
            &ctx,
            &self.key,
            set,
            &input,
            k,
            &mut self.rng,
        )?;
        verify_restricted_shuffle(&mut verifier, &ctx, &self.key, set, &input, &output, &proof)?;
        let msg = Message::RestrictedShuffle(RestrictedShuffleMessage {
            player: p,
            positions: support.iter().map(|&i| i as u32).collect(),
            deck: output.wire().to_vec(),
            proof,
        });
        self.broadcast(&msg)?;
        for (&i, ct) in support.iter().zip(output.ciphertexts()) {
            self.row[i] = *ct;
        }
        Ok(())
    }

    /// Reveal tokens of `p` for `positions`, verified; the points `d_p`.
    fn tokens_of(
        &mut self,
        p: PartyId,
        positions: &[usize],
    ) -> Result<(RevealMessage, Vec<RistrettoPoint>)> {
        let session = self.session.clone();
        let ctx = ProofContext {
            session: &session,
            round: self.round,
            player: p,
        };
        let mut tokens = Vec::with_capacity(positions.len());
        let mut points = Vec::with_capacity(positions.len());
        for &i in positions {
            let ct = self.row[i];
            let wire = ct.compress();
            let mut verifier = self.transcript.clone();
            let tok = reveal_token_with_rng(
                &mut self.transcript,
                &ctx,
                &self.secrets[p.index()],
                i as u32,
                (&ct, &wire),
                &mut self.rng,
            );
            points.push(verify_reveal_token(
                &mut verifier,
                &ctx,
                &self.publics[p.index()],
                (&ct, &wire),
                &tok,
            )?);
            tokens.push(tok);
        }
        Ok((RevealMessage { player: p, tokens }, points))
    }

    fn open(&mut self, positions: &[usize], to: Option<PartyId>) -> Result<Vec<Symbol>> {
        self.check_positions(positions)?;
        // Cards never shuffled or committed are still open maskings: everyone reads them.
        let hidden: Vec<usize> = positions
            .iter()
            .copied()
            .filter(|&i| self.row[i].c1 != RistrettoPoint::identity())
            .collect();
        let mut sums: BTreeMap<usize, RistrettoPoint> = BTreeMap::new();
        if !hidden.is_empty() {
            for p in PartyId::all(self.parties) {
                if Some(p) == to {
                    for &i in &hidden {
                        *sums.entry(i).or_insert_with(RistrettoPoint::identity) +=
                            own_token(&self.secrets[p.index()], &self.row[i]);
                    }
                    continue;
                }
                let (msg, points) = self.tokens_of(p, &hidden)?;
                match to {
                    None => self.broadcast(&Message::Reveal(msg))?,
                    Some(_) => self.send_one(&Message::Reveal(msg))?,
                }
                for (&i, d) in hidden.iter().zip(points) {
                    *sums.entry(i).or_insert_with(RistrettoPoint::identity) += d;
                }
            }
            self.next_round();
        }
        positions
            .iter()
            .map(|&i| {
                let d = sums
                    .get(&i)
                    .copied()
                    .unwrap_or_else(RistrettoPoint::identity);
                let code = open_card(&self.encoding, i, &self.row[i], &[d])?;
                Ok(code_symbol(code))
            })
            .collect()
    }
}

impl<R: RngCore + CryptoRng> FaceDownTable for EncryptedTable<R> {
    type Error = EncryptedTableError;

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            backend: "encrypted".to_owned(),
            security: SecurityModel::MaliciousUpToNMinus1,
            information_theoretic: false,
            commit: Support::Secure,
            uniform_shuffle: Support::Secure,
            other_shuffle: Support::Unsupported(
                "per-player uniform shuffles do not compose to a weighted shuffle; one player \
                 drawing it alone would know the permutation"
                    .to_owned(),
            ),
            full_shuffle: Support::Secure,
            private_open: Support::Secure,
        }
    }

    fn parties(&self) -> usize {
        self.parties
    }

    fn len(&self) -> usize {
        self.row.len()
    }

    fn cost(&self) -> Cost {
        self.cost
    }

    fn apply(&mut self, op: &TableOp) -> core::result::Result<Seen, EncryptedTableError> {
        match op {
            TableOp::Setup => {}
            TableOp::Place(c) => self.do_place(c)?,
            TableOp::Commit {
                party,
                cards: CommitCards::Known(c),
            } => self.do_commit(*party, c)?,
            TableOp::Commit { party, .. } => {
                return Err(TableError::HiddenCommit { party: *party }.into())
            }
            TableOp::Rearrange(p) => self.do_rearrange(p)?,
            TableOp::Shuffle(set) => self.do_shuffle(set)?,
            TableOp::Open(o) => {
                let public = if o.public.is_empty() {
                    Vec::new()
                } else {
                    self.do_turn(&o.public)?
                };
                let mut private = Vec::new();
                for (p, pos) in &o.private {
                    private.push(Some(self.do_open_to(*p, pos)?));
                }
                return Ok(Seen { public, private });
            }
            TableOp::Finish => {}
        }
        Ok(Seen::default())
    }
}

impl<R: RngCore + CryptoRng> EncryptedTable<R> {
    fn do_place(&mut self, cards: &[Symbol]) -> Result<()> {
        self.learn_symbols(cards);
        self.row.extend(
            cards
                .iter()
                .map(|&s| Ciphertext::open(card_point(symbol_code(s)))),
        );
        Ok(())
    }

    fn do_commit(&mut self, party: PartyId, cards: &[Symbol]) -> Result<()> {
        self.check_party(party)?;
        let m = cards.len();
        if m > MAX_COMMIT {
            return Err(EncryptedTableError::CommitTooLarge(m));
        }
        if m == 0 {
            return Ok(());
        }
        let mut sorted = cards.to_vec();
        sorted.sort();
        let start = self.row.len();
        self.place(&sorted)?;
        // Every arrangement of m cards; the one that puts the sorted cards in `cards`' order.
        let arrangements: Vec<Perm> = all_perms(m);
        let k = arrangements
            .iter()
            .position(|p| {
                p.apply_to_row(&sorted)
                    .is_some_and(|row| row.as_slice() == cards)
            })
            .ok_or(TableError::EmptyShuffle)?;
        let set = PermSet::new(arrangements)?;
        let support: Vec<usize> = (start..start + m).collect();
        self.restricted_by(party, &support, &set, k)?;
        self.next_round();
        Ok(())
    }

    fn do_rearrange(&mut self, perm: &Perm) -> Result<()> {
        self.row = perm.apply_to_row(&self.row).ok_or(TableError::PermSize {
            got: perm.len(),
            len: self.row.len(),
        })?;
        Ok(())
    }

    fn do_shuffle(&mut self, set: &ShuffleSet) -> Result<()> {
        let n = self.row.len();
        match set {
            ShuffleSet::Weighted(_) => Err(EncryptedTableError::Weighted),
            ShuffleSet::Uniform(perms) => {
                set.check_fits(n)?;
                if !set.is_group() {
                    return Err(EncryptedTableError::NotAGroup { size: perms.len() });
                }
                let support: Vec<usize> = (0..n)
                    .filter(|&i| perms.iter().any(|p| p.apply(i) != i))
                    .collect();
                if support.is_empty() {
                    return Ok(());
                }
                let mut index = vec![usize::MAX; n];
                for (a, &i) in support.iter().enumerate() {
                    index[i] = a;
                }
                let restricted = perms
                    .iter()
                    .map(|p| {
                        Perm::from_images(support.iter().map(|&i| index[p.apply(i)]).collect())
                    })
                    .collect::<core::result::Result<Vec<_>, _>>()
                    .map_err(|e| PokerError::InvalidParameters(e.to_string()))?;
                let set = PermSet::new(restricted)?;
                for p in PartyId::all(self.parties) {
                    let k = rand::Rng::gen_range(&mut self.rng, 0..set.len());
                    self.restricted_by(p, &support, &set, k)?;
                    self.next_round();
                }
                Ok(())
            }
            ShuffleSet::All => {
                if n < 2 {
                    return Ok(());
                }
                let ck = self
                    .commitment_keys
                    .entry(n)
                    .or_insert_with(|| CommitmentKey::new(n))
                    .clone();
                for p in PartyId::all(self.parties) {
                    let input = Deck::from_ciphertexts(self.row.clone());
                    let session = self.session.clone();
                    let ctx = ProofContext {
                        session: &session,
                        round: self.round,
                        player: p,
                    };
                    let mut verifier = self.transcript.clone();
                    let (output, proof) = shuffle_with_rng(
                        &mut self.transcript,
                        &ctx,
                        &ck,
                        &self.key,
                        &input,
                        &mut self.rng,
                    )?;
                    verify_shuffle(&mut verifier, &ctx, &ck, &self.key, &input, &output, &proof)?;
                    let msg = Message::Shuffle(Box::new(ShuffleMessage {
                        player: p,
                        deck: output.wire().to_vec(),
                        proof,
                    }));
                    self.broadcast(&msg)?;
                    self.row = output.ciphertexts().to_vec();
                    self.next_round();
                }
                Ok(())
            }
        }
    }

    fn do_turn(&mut self, positions: &[usize]) -> Result<Vec<Symbol>> {
        self.open(positions, None)
    }

    fn do_open_to(&mut self, party: PartyId, positions: &[usize]) -> Result<Vec<Symbol>> {
        self.check_party(party)?;
        self.open(positions, Some(party))
    }
}
/// Every permutation of `m` positions (Heap's algorithm order is irrelevant: a set).
fn all_perms(m: usize) -> Vec<Perm> {
    let mut out = Vec::new();
    let mut images: Vec<usize> = (0..m).collect();
    permute(&mut images, 0, &mut out);
    out
}

fn permute(images: &mut Vec<usize>, k: usize, out: &mut Vec<Perm>) {
    if k == images.len() {
        if let Ok(p) = Perm::from_images(images.clone()) {
            out.push(p);
        }
        return;
    }
    for i in k..images.len() {
        images.swap(k, i);
        permute(images, k + 1, out);
        images.swap(k, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use facedown_core::rng::seeded_rng;

    fn table(n: usize, seed: u64) -> EncryptedTable<rand_chacha::ChaCha20Rng> {
        EncryptedTable::setup_with_rng(n, Transcript::new(b"facedown table test"), seeded_rng(seed))
            .expect("setup")
    }

    #[test]
    fn a_commitment_is_hidden_until_turned_and_opens_to_its_cards() {
        for bit in [[Symbol::Club, Symbol::Heart], [Symbol::Heart, Symbol::Club]] {
            let mut t = table(2, 1);
            t.commit(PartyId(2), &bit).expect("commit");
            assert!(t.row.iter().all(|c| c.c1 != RistrettoPoint::identity()));
            assert_eq!(t.turn(&[0, 1]).expect("in range"), bit);
        }
    }

    #[test]
    fn cuts_and_deals_keep_the_multiset_and_open_privately() {
        let mut t = table(3, 2);
        let deck: Vec<Symbol> = (0..6).map(Symbol::Card).collect();
        t.place(&deck).expect("place");
        let cut: Vec<Perm> = (0..6)
            .map(|k| Perm::from_images((0..6).map(|i| (i + k) % 6).collect()).expect("perm"))
            .collect();
        t.shuffle(&ShuffleSet::Uniform(cut)).expect("a group");
        t.shuffle(&ShuffleSet::All).expect("deal");
        let mut seen = Vec::new();
        for p in PartyId::all(3) {
            seen.extend(
                t.open_to(p, &[2 * p.index(), 2 * p.index() + 1])
                    .expect("open"),
            );
        }
        seen.sort();
        assert_eq!(seen, deck);
        assert!(t.cost().messages > 0 && t.cost().bytes > 0);
    }

    #[test]
    fn weighted_and_non_group_shuffles_and_bad_positions_are_refused() {
        let mut t = table(2, 3);
        t.place(&[Symbol::Club, Symbol::Heart, Symbol::Club])
            .expect("place");
        assert!(matches!(
            t.shuffle(&ShuffleSet::Weighted(vec![(Perm::identity(3), 1)])),
            Err(EncryptedTableError::Weighted)
        ));
        let swap = Perm::parse_cycles(3, "(1 2)").expect("valid");
        let other = Perm::parse_cycles(3, "(2 3)").expect("valid");
        assert!(matches!(
            t.shuffle(&ShuffleSet::Uniform(vec![Perm::identity(3), swap, other])),
            Err(EncryptedTableError::NotAGroup { size: 3 })
        ));
        assert!(matches!(
            t.turn(&[3]),
            Err(EncryptedTableError::Table(TableError::Position { .. }))
        ));
        assert!(matches!(
            t.open_to(PartyId(3), &[0]),
            Err(EncryptedTableError::Table(TableError::Party { .. }))
        ));
    }
}
