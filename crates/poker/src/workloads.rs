//! The workloads the measurements time (`poker bench` and the criterion benches): the shuffles
//! of a 4-player deal, the reveal round of one of its players, and the floors they are compared
//! with.

use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::VartimeMultiscalarMul;
use facedown_core::PartyId;
use merlin::Transcript;
use rand::{CryptoRng, RngCore};

use crate::batch::{ShuffleClaim, TokenClaim};
use crate::elgamal::{CardEncoding, Deck, JointKey};
use crate::errors::Result;
use crate::generators::CommitmentKey;
use crate::keys::{joint_key, SecretKey};
use crate::reveal::{
    batchable_reveal_token_with_rng, reveal_token_with_rng, verify_reveal_token,
    BatchableRevealToken, RevealToken,
};
use crate::shuffle::{shuffle_with_rng, ShuffleProof};
use crate::transcript::ProofContext;

/// Players of the measured deal.
pub const PLAYERS: usize = 4;
/// Positions a player of a 4-player deal with 2-card hands and 5 public cards has opened for
/// it: its hand and the public cards.
pub const OPENED_PER_PLAYER: usize = 7;

/// The shuffles of a 4-player deal, for measurements (`poker bench`, the criterion benches):
/// keys, generators, and each player's shuffle with its proof.
pub struct DealFixture {
    /// The players' secret keys (player `k + 1` holds `sks[k]`).
    pub sks: Vec<SecretKey>,
    /// The joint key.
    pub key: JointKey,
    /// The commitment key.
    pub ck: CommitmentKey,
    /// The transcript every proof starts from.
    pub base: Transcript,
    /// `decks[0]` is the open deck; player `k + 1` turned `decks[k]` into `decks[k + 1]` in
    /// round `k + 1`.
    pub decks: Vec<Deck>,
    /// `proofs[k]` is player `k + 1`'s shuffle proof.
    pub proofs: Vec<ShuffleProof>,
}

/// The proof context of round `round` by `player` in measurements.
pub fn ctx(round: u64, player: u16) -> ProofContext<'static> {
    ProofContext {
        session: b"facedown poker bench",
        round,
        player: PartyId(player),
    }
}

impl DealFixture {
    /// A 4-player deal of `cards` cards: every player shuffles once, in turn.
    pub fn new_with_rng<R: RngCore + CryptoRng>(cards: u16, rng: &mut R) -> Result<DealFixture> {
        let sks: Vec<SecretKey> = (0..PLAYERS)
            .map(|_| SecretKey::random_with_rng(rng))
            .collect();
        let pks: Vec<_> = sks.iter().map(|s| *s.public()).collect();
        let mut t = DealFixture {
            key: joint_key(&pks)?,
            sks,
            ck: CommitmentKey::new(usize::from(cards)),
            base: Transcript::new(b"facedown-poker bench"),
            decks: vec![Deck::open_deck(&CardEncoding::new(cards))],
            proofs: Vec::new(),
        };
        for k in 0..PLAYERS {
            let c = ctx(k as u64 + 1, k as u16 + 1);
            let (out, proof) =
                shuffle_with_rng(&mut t.base.clone(), &c, &t.ck, &t.key, &t.decks[k], rng)?;
            t.decks.push(out);
            t.proofs.push(proof);
        }
        Ok(t)
    }

    /// The claims player `me` (1-based) verifies: every other player's shuffle.
    pub fn claims_of(&self, me: usize) -> Vec<ShuffleClaim<'_>> {
        (0..PLAYERS)
            .filter(|&k| k + 1 != me)
            .map(|k| ShuffleClaim {
                transcript: self.base.clone(),
                ctx: ctx(k as u64 + 1, k as u16 + 1),
                input: &self.decks[k],
                output: &self.decks[k + 1],
                proof: &self.proofs[k],
            })
            .collect()
    }

    /// The floor of player `me`'s verification of the other shuffles: every distinct point of
    /// the decks involved, and decoding the three received decks.
    pub fn floor_of<R: RngCore>(&self, me: usize, rng: &mut R) -> Floor {
        let claims = self.claims_of(me);
        let mut decks: Vec<&Deck> = Vec::new();
        for d in claims.iter().flat_map(|c| [c.input, c.output]) {
            if !decks.iter().any(|e| e.wire() == d.wire()) {
                decks.push(d);
            }
        }
        let received: Vec<&Deck> = claims.iter().map(|c| c.output).collect();
        Floor::of_decks(&decks, &received, rng)
    }

    /// The floor of one shuffle, player 2's (`decks[1] → decks[2]`).
    pub fn shuffle_floor<R: RngCore>(&self, rng: &mut R) -> Floor {
        Floor::of_decks(&[&self.decks[1], &self.decks[2]], &[&self.decks[2]], rng)
    }
}

/// A floor workload: one variable-time multiscalar multiplication with random scalars over
/// every distinct non-identity point of some decks or tokens, and decompressing the received
/// points, with curve25519-dalek alone.
pub struct Floor {
    scalars: Vec<Scalar>,
    points: Vec<RistrettoPoint>,
    received: Vec<CompressedRistretto>,
}

impl Floor {
    fn new<R: RngCore>(
        points: Vec<RistrettoPoint>,
        received: Vec<CompressedRistretto>,
        rng: &mut R,
    ) -> Floor {
        let scalars = points
            .iter()
            .map(|_| {
                let mut wide = [0u8; 64];
                rng.fill_bytes(&mut wide);
                Scalar::from_bytes_mod_order_wide(&wide)
            })
            .collect();
        Floor {
            scalars,
            points,
            received,
        }
    }

    /// The points of `decks` (each once; the identity, an open deck's `c1`, is left out) and
    /// the points of `received`.
    fn of_decks<R: RngCore>(decks: &[&Deck], received: &[&Deck], rng: &mut R) -> Floor {
        let identity = CompressedRistretto::default();
        let points = decks
            .iter()
            .flat_map(|d| d.ciphertexts().iter().zip(d.wire()))
            .flat_map(|(ct, w)| [(ct.c1, w.c1), (ct.c2, w.c2)])
            .filter(|(_, w)| *w != identity)
            .map(|(p, _)| p)
            .collect();
        let received = received
            .iter()
            .flat_map(|d| d.wire())
            .flat_map(|w| [w.c1, w.c2])
            .collect();
        Floor::new(points, received, rng)
    }

    /// The multiplication.
    pub fn multiply(&self) -> RistrettoPoint {
        RistrettoPoint::vartime_multiscalar_mul(&self.scalars, &self.points)
    }

    /// The decompressions; the number of points that decode.
    pub fn decode(&self) -> usize {
        self.received
            .iter()
            .filter_map(CompressedRistretto::decompress)
            .count()
    }

    /// Points in the multiplication and points decoded.
    pub fn size(&self) -> (usize, usize) {
        (self.points.len(), self.received.len())
    }
}

/// The reveal round of player 1 in a 4-player deal with 2-card hands and 5 public cards: the
/// other three players' tokens for its hand and the public cards (positions `0..7` of the final
/// deck here), in both encodings.
pub struct RevealRound {
    /// (player, position) of each token.
    pub owners: Vec<(usize, usize)>,
    /// The tokens in the v1 encoding.
    pub compact: Vec<RevealToken>,
    /// The same tokens' statements, proved in the batchable encoding.
    pub batchable: Vec<BatchableRevealToken>,
}

impl RevealRound {
    /// The round on the final deck of `table`.
    pub fn new_with_rng<R: RngCore + CryptoRng>(table: &DealFixture, rng: &mut R) -> RevealRound {
        let deck = &table.decks[PLAYERS];
        let positions = OPENED_PER_PLAYER.min(deck.len());
        let owners: Vec<(usize, usize)> = (2..=PLAYERS)
            .flat_map(|p| (0..positions).map(move |pos| (p, pos)))
            .collect();
        let mut round = RevealRound {
            owners: Vec::new(),
            compact: Vec::new(),
            batchable: Vec::new(),
        };
        for &(p, pos) in &owners {
            let (c, sk) = (ctx(PLAYERS as u64 + 1, p as u16), &table.sks[p - 1]);
            let ct = (&deck.ciphertexts()[pos], &deck.wire()[pos]);
            let base = &table.base;
            round.compact.push(reveal_token_with_rng(
                &mut base.clone(),
                &c,
                sk,
                pos as u32,
                ct,
                rng,
            ));
            round.batchable.push(batchable_reveal_token_with_rng(
                &mut base.clone(),
                &c,
                sk,
                pos as u32,
                ct,
                rng,
            ));
        }
        round.owners = owners;
        round
    }

    /// The batchable tokens as batch claims.
    pub fn claims<'a>(&'a self, table: &'a DealFixture) -> Vec<TokenClaim<'a>> {
        let deck = &table.decks[PLAYERS];
        self.owners
            .iter()
            .zip(&self.batchable)
            .map(|(&(p, pos), token)| TokenClaim {
                transcript: table.base.clone(),
                ctx: ctx(PLAYERS as u64 + 1, p as u16),
                pk: table.sks[p - 1].public(),
                ct: (&deck.ciphertexts()[pos], &deck.wire()[pos]),
                token,
            })
            .collect()
    }

    /// Verifies the v1 tokens one at a time, as a player does without batching.
    pub fn verify_compact_one_by_one(&self, table: &DealFixture) -> Result<()> {
        let deck = &table.decks[PLAYERS];
        self.owners
            .iter()
            .zip(&self.compact)
            .try_for_each(|(&(p, pos), token)| {
                let c = ctx(PLAYERS as u64 + 1, p as u16);
                let ct = (&deck.ciphertexts()[pos], &deck.wire()[pos]);
                let pk = table.sks[p - 1].public();
                verify_reveal_token(&mut table.base.clone(), &c, pk, ct, token).map(|_| ())
            })
    }

    /// The round's floor: its statement points — each distinct `c1` once and every token —
    /// and decoding the tokens, which are what the verifier receives.
    pub fn floor<R: RngCore>(&self, deck: &Deck, rng: &mut R) -> Floor {
        let mut positions: Vec<usize> = self.owners.iter().map(|&(_, pos)| pos).collect();
        positions.sort_unstable();
        positions.dedup();
        let received: Vec<CompressedRistretto> = self.compact.iter().map(|t| t.token).collect();
        let mut points: Vec<RistrettoPoint> = positions
            .iter()
            .map(|&pos| deck.ciphertexts()[pos].c1)
            .collect();
        points.extend(received.iter().filter_map(CompressedRistretto::decompress));
        Floor::new(points, received, rng)
    }
}
