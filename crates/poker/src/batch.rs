//! Batched verification: several shuffle proofs, or a round of reveal tokens, in one combined
//! check.
//!
//! Each proof's verification is a set of group equations "a known combination of points is the
//! identity". A batch draws one random weight per proof (per equation, for reveal tokens) from a
//! transcript that has absorbed every proof of the batch, adds the weighted equations, and
//! evaluates the sum with **one** multiscalar multiplication, in which a point that several
//! proofs share — a deck that is one shuffle's output and the next one's input, a ciphertext's
//! `c1` that several players' tokens open, a player's key — appears once. If every proof is
//! valid, the sum is the identity; if any is not, it is the identity only with probability about
//! `1/ℓ` (the argument, and what it relies on, is in [`crate::notes`]).
//!
//! When the combined check fails, or any proof fails to decode, the batch is verified again one
//! proof at a time, in order, and the first failure is returned: its error names the player who
//! made that proof, exactly as verifying one by one would. Batching therefore changes the cost,
//! never the verdict (`tests/it/batch.rs` compares both on random batches).
//!
//! The batch's multiplication, and the per-proof replays, run on the current rayon pool.

use std::collections::HashMap;

use curve25519_dalek::constants::{RISTRETTO_BASEPOINT_COMPRESSED, RISTRETTO_BASEPOINT_POINT};
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::Identity;
use merlin::Transcript;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::elgamal::{Ciphertext, CompressedCiphertext, Deck, JointKey};
use crate::errors::Result;
use crate::generators::CommitmentKey;
use crate::keys::PublicKey;
use crate::parallel::vartime_msm;
use crate::reveal::{replay_batchable_token, verify_batchable_reveal_token, BatchableRevealToken};
use crate::shuffle::{verify_shuffle, ReplayedShuffle, ShuffleProof, ShuffleSum};
use crate::transcript::{ProofContext, TranscriptProtocol};

/// Domain label of the transcript that draws a batch's weights.
const BATCH_LABEL: &[u8] = b"facedown-poker/batch-weights/v1";

/// One shuffle proof to verify in a batch: the statement `input → output` by `ctx.player`, with
/// the transcript its prover started from (the same one [`verify_shuffle`] would be given).
pub struct ShuffleClaim<'a> {
    /// The application's transcript for this proof.
    pub transcript: Transcript,
    /// Session, round and prover.
    pub ctx: ProofContext<'a>,
    /// The deck the prover shuffled.
    pub input: &'a Deck,
    /// The deck it published.
    pub output: &'a Deck,
    /// Its proof.
    pub proof: &'a ShuffleProof,
}

/// How a player checks the proofs that reach it together: the other players' shuffles of a
/// deal, a round's reveal tokens. The verdict is the same either way (the first failure, naming
/// its author); only the cost differs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verification {
    /// In one combined check, falling back to one by one when it fails (what players do).
    #[default]
    Batched,
    /// Each proof on its own: the baseline the batch is measured against.
    OneByOne,
}

impl Verification {
    /// [`verify_shuffles`] or [`verify_shuffles_one_by_one`].
    pub fn shuffles(
        self,
        ck: &CommitmentKey,
        key: &JointKey,
        claims: Vec<ShuffleClaim<'_>>,
    ) -> Result<()> {
        match self {
            Verification::Batched => verify_shuffles(ck, key, claims),
            Verification::OneByOne => verify_shuffles_one_by_one(ck, key, claims),
        }
    }

    /// [`verify_reveal_tokens`] or [`verify_reveal_tokens_one_by_one`].
    pub fn reveal_tokens(self, claims: Vec<TokenClaim<'_>>) -> Result<Vec<RistrettoPoint>> {
        match self {
            Verification::Batched => verify_reveal_tokens(claims),
            Verification::OneByOne => verify_reveal_tokens_one_by_one(claims),
        }
    }
}

/// Verifies several shuffle proofs under one joint key — typically the other players' shuffles
/// of a deal, where each output deck is the next input — with one multiscalar multiplication.
///
/// The result is the result of verifying the claims one by one in order: `Ok` if every proof
/// verifies, otherwise the first failure, which names its prover.
pub fn verify_shuffles(
    ck: &CommitmentKey,
    key: &JointKey,
    claims: Vec<ShuffleClaim<'_>>,
) -> Result<()> {
    if claims.is_empty() || shuffles_vanish(ck, key, &claims) {
        return Ok(());
    }
    verify_shuffles_one_by_one(ck, key, claims)
}

/// Verifies the claims one at a time with [`verify_shuffle`], stopping at the first failure:
/// the reference that [`verify_shuffles`] agrees with, and its fallback.
pub fn verify_shuffles_one_by_one(
    ck: &CommitmentKey,
    key: &JointKey,
    claims: Vec<ShuffleClaim<'_>>,
) -> Result<()> {
    for mut c in claims {
        verify_shuffle(
            &mut c.transcript,
            &c.ctx,
            ck,
            key,
            c.input,
            c.output,
            c.proof,
        )?;
    }
    Ok(())
}

/// The combined check: true if the weighted sum of every claim's equations is the identity
/// (and every claim decodes and passes its scalar checks).
fn shuffles_vanish(ck: &CommitmentKey, key: &JointKey, claims: &[ShuffleClaim<'_>]) -> bool {
    let replayed: Result<Vec<ReplayedShuffle>> = claims
        .par_iter()
        .map(|c| {
            ReplayedShuffle::replay(
                &mut c.transcript.clone(),
                &c.ctx,
                ck,
                key,
                c.input,
                c.output.wire(),
                c.proof,
            )
        })
        .collect();
    let Ok(replayed) = replayed else {
        return false;
    };
    let alphas = batch_weights(replayed.iter().map(|r| &r.binding), 1);
    let n = claims.iter().map(|c| c.input.len()).max().unwrap_or(0);
    let mut sum = ShuffleSum::new(ck, key, n, claims.len(), 2 * claims.len());
    for ((c, r), alpha) in claims.iter().zip(&replayed).zip(&alphas) {
        let (input, output) = (sum.slot(c.input), sum.slot(c.output));
        r.add_to(Some(alpha), &mut sum, input, output);
    }
    sum.vanishes()
}

/// `per_item` weights for each of a batch's proofs, drawn from a transcript that has absorbed
/// every proof's binding bytes (each a challenge of that proof's transcript drawn after its
/// last message), so no weight is known before the whole batch is fixed.
fn batch_weights<'b>(
    bindings: impl ExactSizeIterator<Item = &'b [u8; 64]>,
    per_item: usize,
) -> Vec<Scalar> {
    let mut t = Transcript::new(BATCH_LABEL);
    let count = bindings.len();
    t.append_u64(b"proofs", count as u64);
    for b in bindings {
        t.append_message(b"binding", b);
    }
    (0..count * per_item)
        .map(|_| t.challenge_scalar(b"weight"))
        .collect()
}

/// One reveal token to verify in a batch: player `ctx.player`'s token for `ct`, whose public
/// share is `pk`, with the transcript its prover started from.
pub struct TokenClaim<'a> {
    /// The application's transcript for this token.
    pub transcript: Transcript,
    /// Session, round and the player who made the token.
    pub ctx: ProofContext<'a>,
    /// That player's public key share `Y_i`.
    pub pk: &'a PublicKey,
    /// The ciphertext the token opens, decoded and compressed.
    pub ct: (&'a Ciphertext, &'a CompressedCiphertext),
    /// The token.
    pub token: &'a BatchableRevealToken,
}

/// Verifies a round of reveal tokens — from any players, for any ciphertexts — with one
/// multiscalar multiplication, and returns the tokens `d_i` in claim order.
///
/// The result is the result of verifying the claims one by one in order: the tokens if every
/// proof verifies, otherwise the first failure, which names its player.
pub fn verify_reveal_tokens(claims: Vec<TokenClaim<'_>>) -> Result<Vec<RistrettoPoint>> {
    if let Some(tokens) = tokens_vanish(&claims) {
        return Ok(tokens);
    }
    verify_reveal_tokens_one_by_one(claims)
}

/// Verifies the claims one at a time with [`verify_batchable_reveal_token`], stopping at the
/// first failure: the reference that [`verify_reveal_tokens`] agrees with, and its fallback.
pub fn verify_reveal_tokens_one_by_one(claims: Vec<TokenClaim<'_>>) -> Result<Vec<RistrettoPoint>> {
    claims
        .into_iter()
        .map(|mut c| verify_batchable_reveal_token(&mut c.transcript, &c.ctx, c.pk, c.ct, c.token))
        .collect()
}

/// The combined check of a round of tokens: the tokens if the weighted sum of all their
/// equations is the identity. Token `k` (player `p`, ciphertext `c1`, challenge `c_k`, response
/// `s_k`) contributes `β_k·(s_k·G − A1_k − c_k·Y_p) + γ_k·(s_k·c1 − A2_k − c_k·d_k)`; `G`, each
/// `Y_p` and each distinct `c1` get one coefficient for the whole round.
fn tokens_vanish(claims: &[TokenClaim<'_>]) -> Option<Vec<RistrettoPoint>> {
    let replayed = claims
        .par_iter()
        .map(|c| replay_batchable_token(&mut c.transcript.clone(), &c.ctx, c.pk, c.ct, c.token))
        .collect::<Result<Vec<_>>>()
        .ok()?;
    let bindings: Vec<[u8; 64]> = replayed.iter().map(|(_, r)| r.binding()).collect();
    let weights = batch_weights(bindings.iter(), 2);

    let mut shared = SharedPoints::default();
    let basepoint = shared.slot(RISTRETTO_BASEPOINT_POINT, RISTRETTO_BASEPOINT_COMPRESSED);
    let mut scalars = Vec::with_capacity(3 * claims.len());
    let mut points = Vec::with_capacity(3 * claims.len());
    for ((c, (d, r)), w) in claims.iter().zip(&replayed).zip(weights.chunks_exact(2)) {
        let (beta, gamma) = (&w[0], &w[1]);
        shared.add(basepoint, beta * r.s);
        let key = shared.slot(c.pk.point, c.pk.compressed);
        shared.add(key, -(beta * r.c));
        // The c1 of an open masking is the identity: it contributes nothing.
        if c.ct.1.c1 != CompressedRistretto::default() {
            let c1 = shared.slot(c.ct.0.c1, c.ct.1.c1);
            shared.add(c1, gamma * r.s);
        }
        scalars.extend([-beta, -gamma, -(gamma * r.c)]);
        points.extend([r.a1, r.a2, *d]);
    }
    scalars.extend(shared.scalars);
    points.extend(shared.points);
    let sum = vartime_msm(&scalars, &points);
    (sum == RistrettoPoint::identity()).then(|| replayed.into_iter().map(|(d, _)| d).collect())
}

/// Points that several equations of a batch share, each with one coefficient, found by their
/// canonical encoding (equal encodings are equal points, so merging them is exact).
#[derive(Default)]
struct SharedPoints {
    index: HashMap<CompressedRistretto, usize>,
    scalars: Vec<Scalar>,
    points: Vec<RistrettoPoint>,
}

impl SharedPoints {
    fn slot(&mut self, point: RistrettoPoint, encoding: CompressedRistretto) -> usize {
        *self.index.entry(encoding).or_insert_with(|| {
            self.points.push(point);
            self.scalars.push(Scalar::ZERO);
            self.points.len() - 1
        })
    }

    fn add(&mut self, slot: usize, coefficient: Scalar) {
        self.scalars[slot] += coefficient;
    }
}

#[cfg(test)]
mod tests {
    //! Proofs that are wrong by a chosen offset in one equation, consistent with their own
    //! transcripts: two such proofs with opposite offsets cancel in a sum whose weights the
    //! provers can predict. The batch's per-proof weights are what catches them.
    use super::*;
    use crate::elgamal::CardEncoding;
    use crate::errors::{PokerError, ProofKind};
    use crate::keys::{joint_key, SecretKey};
    use crate::reveal::batchable_reveal_token_with_offset;
    use crate::shuffle::shuffle_with_e0_offset;
    use facedown_core::{rng::seeded_rng, PartyId};

    fn ctx(round: u64, player: u16) -> ProofContext<'static> {
        ProofContext {
            session: b"batch unit tests",
            round,
            player: PartyId(player),
        }
    }

    fn keys(players: usize) -> (Vec<SecretKey>, JointKey) {
        let mut rng = seeded_rng(40);
        let sks: Vec<SecretKey> = (0..players)
            .map(|_| SecretKey::random_with_rng(&mut rng))
            .collect();
        let pks: Vec<_> = sks.iter().map(|s| *s.public()).collect();
        let key = joint_key(&pks).expect("nonzero key");
        (sks, key)
    }

    #[test]
    fn shuffle_proofs_with_cancelling_offsets_are_rejected_and_the_first_is_named() {
        let (_, key) = keys(3);
        let ck = CommitmentKey::new(6);
        let open = Deck::open_deck(&CardEncoding::new(6));
        let delta = RistrettoPoint::random(&mut seeded_rng(41));
        let mut rng = seeded_rng(42);
        let t = || Transcript::new(b"batch unit tests");
        let (d1, p1) =
            shuffle_with_e0_offset(&mut t(), &ctx(1, 1), &ck, &key, &open, delta, &mut rng);
        let (d2, p2) =
            shuffle_with_e0_offset(&mut t(), &ctx(2, 2), &ck, &key, &d1, -delta, &mut rng);
        let claims = || {
            vec![
                ShuffleClaim {
                    transcript: t(),
                    ctx: ctx(1, 1),
                    input: &open,
                    output: &d1,
                    proof: &p1,
                },
                ShuffleClaim {
                    transcript: t(),
                    ctx: ctx(2, 2),
                    input: &d1,
                    output: &d2,
                    proof: &p2,
                },
            ]
        };
        // Each proof alone fails in equation 5a only, by ±delta (weight 1): their unweighted
        // sums cancel.
        let claims_now = claims();
        let replayed: Vec<ReplayedShuffle> = claims_now
            .iter()
            .map(|c| {
                let wire = c.output.wire();
                ReplayedShuffle::replay(&mut t(), &c.ctx, &ck, &key, c.input, wire, c.proof)
                    .expect("the scalar checks pass")
            })
            .collect();
        let mut sum = ShuffleSum::new(&ck, &key, 6, 2, 3);
        for (c, r) in claims_now.iter().zip(&replayed) {
            let (i, o) = (sum.slot(c.input), sum.slot(c.output));
            r.add_to(None, &mut sum, i, o);
        }
        assert!(sum.vanishes(), "the offsets cancel without batch weights");
        let expected = PokerError::InvalidProof {
            player: PartyId(1),
            kind: ProofKind::Shuffle,
        };
        assert_eq!(verify_shuffles(&ck, &key, claims()), Err(expected));
    }

    #[test]
    fn tokens_with_cancelling_offsets_are_rejected_and_the_first_is_named() {
        let (sks, key) = keys(3);
        let ct = key.encrypt(&RistrettoPoint::random(&mut seeded_rng(43)), &Scalar::ONE);
        let wire = ct.compress();
        let delta = RistrettoPoint::random(&mut seeded_rng(44));
        let mut rng = seeded_rng(45);
        let t = || Transcript::new(b"batch unit tests");
        let tokens = [
            batchable_reveal_token_with_offset(
                &mut t(),
                &ctx(5, 2),
                &sks[1],
                0,
                (&ct, &wire),
                &delta,
                &mut rng,
            ),
            batchable_reveal_token_with_offset(
                &mut t(),
                &ctx(5, 3),
                &sks[2],
                0,
                (&ct, &wire),
                &-delta,
                &mut rng,
            ),
        ];
        let claims = || -> Vec<TokenClaim<'_>> {
            tokens
                .iter()
                .zip([2u16, 3])
                .map(|(token, p)| TokenClaim {
                    transcript: t(),
                    ctx: ctx(5, p),
                    pk: sks[usize::from(p - 1)].public(),
                    ct: (&ct, &wire),
                    token,
                })
                .collect()
        };
        // With weight 1 on every equation the two A1 offsets cancel.
        let mut sum = RistrettoPoint::identity();
        for c in claims() {
            let (d, r) =
                replay_batchable_token(&mut t(), &c.ctx, c.pk, c.ct, c.token).expect("decodes");
            sum += RISTRETTO_BASEPOINT_POINT * r.s - r.a1 - c.pk.point * r.c;
            sum += ct.c1 * r.s - r.a2 - d * r.c;
        }
        assert_eq!(
            sum,
            RistrettoPoint::identity(),
            "the offsets cancel without batch weights"
        );
        let expected = PokerError::InvalidProof {
            player: PartyId(2),
            kind: ProofKind::RevealToken,
        };
        assert_eq!(verify_reveal_tokens(claims()), Err(expected));
    }
}
