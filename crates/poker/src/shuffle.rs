//! A verifiable shuffle of ElGamal ciphertexts: Bayer–Groth \[BG12\] with a single row (`m = 1`).
//!
//! The shuffler publishes `D_j = C_{σ(j)} + (ρ_j·G, ρ_j·Y)` for a secret permutation `σ` (output
//! position `j` takes the card from input position `σ(j)`) and fresh `ρ_j`, and proves in zero
//! knowledge that such `σ` and `ρ` exist. See [`crate::notes`] for the argument, its notation
//! table and why `m = 1` was chosen; in short:
//!
//! 1. commit `A = com(σ(1), …, σ(n); r_A)`; challenge `x`;
//! 2. commit `B = com(x^{σ(1)}, …, x^{σ(n)}; s_B)`; challenges `y`, `z`;
//! 3. a *single-value product argument* that `y·A + B − z·ΣG_i` opens to a vector whose product is
//!    `∏_{i=1}^{n} (y·i + x^i − z)` — which forces `A` to commit to a permutation and `B` to the
//!    matching powers of `x`;
//! 4. a *multi-exponentiation argument* (with `m = 1`, a plain sigma protocol) that
//!    `Σ_i x^i·C_i = Enc(0; ρ) + Σ_j x^{σ(j)}·D_j` for the vector committed in `B`.
//!
//! Steps 3 and 4 share the last challenge `e`. The verifier checks the five group equations of
//! steps 3–4 as **one** multiscalar multiplication with random weights drawn from a fork of the
//! transcript that has absorbed the whole proof (responses included): a false proof passes with
//! probability at most about `1/ℓ` more than the unbatched check. The same weighted sums of
//! several proofs add up to one multiscalar multiplication for a whole batch
//! ([`crate::batch::verify_shuffles`]).
//!
//! Proving and verifying run on the current rayon pool (the global one, or the pool the caller
//! entered with `ThreadPool::install`). The prover draws all its coins first, in the order of
//! the original sequential prover, then works in three parallel phases; group arithmetic is
//! exact, so the deck, the proof bytes and the verdict do not depend on the thread count.
//!
//! The prover's multiscalar multiplications are variable-time (`vartime_multiscalar_mul`) and
//! their scalars are secret: this trades side-channel resistance for speed, acceptable for
//! research measurements but not for a deployment on shared hardware.

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_POINT;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::Identity;
use facedown_core::{PartyId, Perm};
use merlin::Transcript;
use rand::{CryptoRng, RngCore};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::elgamal::{Ciphertext, CompressedCiphertext, Deck, JointKey};
use crate::encoding::{decode_point, decode_scalars, ScalarBytes};
use crate::errors::{Item, PokerError, ProofKind, Result};
use crate::generators::CommitmentKey;
use crate::parallel::{join, vartime_msm};
use crate::transcript::{ProofContext, TranscriptProtocol};

const SHUFFLE_LABEL: &[u8] = b"facedown-poker/shuffle/bg12-m1/v1";

/// A Bayer–Groth shuffle proof for `n` ciphertexts: 8 points and `3n + 4` scalars.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShuffleProof {
    /// `A = com(σ(1), …, σ(n); r_A)`.
    pub c_a: CompressedRistretto,
    /// `B = com(x^{σ(1)}, …, x^{σ(n)}; s_B)`.
    pub c_b: CompressedRistretto,
    /// Product argument: `c_d = com(d; r_d)`.
    pub c_d: CompressedRistretto,
    /// Product argument: `c_δ = com(−δ_1·d_2, …, −δ_{n−1}·d_n; s_1)`.
    pub c_delta: CompressedRistretto,
    /// Product argument: `c_Δ = com(δ_{k+1} − a_{k+1}·δ_k − b_k·d_{k+1} …; s_x)`.
    pub c_cap_delta: CompressedRistretto,
    /// Multi-exponentiation argument: `A_0 = com(a_0; r_0)`.
    pub c_a0: CompressedRistretto,
    /// Multi-exponentiation argument: `E_0 = Enc(0; τ_0) + Σ a_{0,j}·D_j`.
    pub e0: CompressedCiphertext,
    /// Product argument: `ã = e·a + d` (`n` scalars).
    pub a_tilde: Vec<ScalarBytes>,
    /// Product argument: `b̃ = e·b + δ` (`n` scalars).
    pub b_tilde: Vec<ScalarBytes>,
    /// Product argument: `r̃ = e·r + r_d`.
    pub r_tilde: ScalarBytes,
    /// Product argument: `s̃ = e·s_x + s_1`.
    pub s_tilde: ScalarBytes,
    /// Multi-exponentiation argument: `ā = a_0 + e·b` (`n` scalars).
    pub a_bar: Vec<ScalarBytes>,
    /// Multi-exponentiation argument: `r̄ = r_0 + e·s_B`.
    pub r_bar: ScalarBytes,
    /// Multi-exponentiation argument: `τ̄ = τ_0 + e·ρ`.
    pub tau_bar: ScalarBytes,
}

fn check_sizes(ck: &CommitmentKey, n: usize) -> Result<()> {
    if n < 2 {
        return Err(PokerError::InvalidParameters(format!(
            "a shuffle argument needs at least 2 cards, got {n}"
        )));
    }
    if ck.capacity() < n {
        return Err(PokerError::InvalidParameters(format!(
            "commitment key for {} entries is too short for {n} cards",
            ck.capacity()
        )));
    }
    Ok(())
}

fn absorb_statement(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    key: &JointKey,
    input: &Deck,
    output: &[CompressedCiphertext],
) {
    t.proof_domain(SHUFFLE_LABEL, ctx);
    t.append_point(b"Y", key.compressed());
    t.append_deck(b"input", input.wire());
    t.append_deck(b"output", output);
}

/// `x, x², …, x^n`.
fn powers(x: &Scalar, n: usize) -> Vec<Scalar> {
    let mut out = Vec::with_capacity(n);
    let mut acc = *x;
    for _ in 0..n {
        out.push(acc);
        acc *= x;
    }
    out
}

fn random_vec<R: RngCore + CryptoRng>(n: usize, rng: &mut R) -> Vec<Scalar> {
    (0..n).map(|_| Scalar::random(rng)).collect()
}

/// The prover's random choices for one proof, drawn from the caller's generator in one fixed
/// order — the order of the original sequential prover — before any parallel work starts, so
/// that a seed gives the same deck and proof whatever the number of threads.
struct Coins {
    rho: Vec<Scalar>,
    r_a: Scalar,
    s_b: Scalar,
    d: Vec<Scalar>,
    r_d: Scalar,
    delta: Vec<Scalar>,
    s_1: Scalar,
    s_x: Scalar,
    a0: Vec<Scalar>,
    r_0: Scalar,
    tau_0: Scalar,
    /// Added to `E_0.c1` before it is absorbed: a dishonest prover for the batching tests.
    #[cfg(test)]
    e0_offset: RistrettoPoint,
}

impl Coins {
    fn draw<R: RngCore + CryptoRng>(n: usize, rng: &mut R) -> Coins {
        let rho = random_vec(n, rng);
        let r_a = Scalar::random(rng);
        let s_b = Scalar::random(rng);
        let d = random_vec(n, rng);
        let r_d = Scalar::random(rng);
        let mut delta = random_vec(n, rng);
        delta[0] = d[0];
        delta[n - 1] = Scalar::ZERO;
        Coins {
            rho,
            r_a,
            s_b,
            d,
            r_d,
            delta,
            s_1: Scalar::random(rng),
            s_x: Scalar::random(rng),
            a0: random_vec(n, rng),
            r_0: Scalar::random(rng),
            tau_0: Scalar::random(rng),
            #[cfg(test)]
            e0_offset: RistrettoPoint::identity(),
        }
    }
}

/// Shuffles `input` by a uniformly random permutation, re-randomises every card, and proves it.
///
/// The work runs on the current rayon pool; the deck and proof depend only on the inputs and
/// `rng`, not on the number of threads.
pub fn shuffle_with_rng<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    ck: &CommitmentKey,
    key: &JointKey,
    input: &Deck,
    rng: &mut R,
) -> Result<(Deck, ShuffleProof)> {
    let perm = Perm::random_with_rng(input.len(), rng);
    shuffle_by_with_rng(t, ctx, ck, key, input, &perm, rng)
}

/// Shuffles `input` by the given permutation `π` (the card at position `i` moves to position
/// `π(i)`), re-randomises every card, and proves it.
pub fn shuffle_by_with_rng<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    ck: &CommitmentKey,
    key: &JointKey,
    input: &Deck,
    perm: &Perm,
    rng: &mut R,
) -> Result<(Deck, ShuffleProof)> {
    let n = input.len();
    check_sizes(ck, n)?;
    if perm.len() != n {
        return Err(PokerError::InvalidParameters(format!(
            "permutation of {} points for a deck of {n} cards",
            perm.len()
        )));
    }
    // σ(j) = π⁻¹(j): output j takes input σ(j).
    let sigma = perm.inverse().to_images();
    let coins = Coins::draw(n, rng);
    Ok(prove(t, ctx, ck, key, input, &sigma, &coins))
}

/// A dishonest shuffle for the batching tests: honest in everything but `E_0.c1`, which is
/// offset by `offset` before it enters the transcript, so that only equation 5a fails, by
/// exactly `offset` (its weight is 1 in a proof's own sum).
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn shuffle_with_e0_offset<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    ck: &CommitmentKey,
    key: &JointKey,
    input: &Deck,
    offset: RistrettoPoint,
    rng: &mut R,
) -> (Deck, ShuffleProof) {
    let sigma = Perm::random_with_rng(input.len(), rng)
        .inverse()
        .to_images();
    let mut coins = Coins::draw(input.len(), rng);
    coins.e0_offset = offset;
    prove(t, ctx, ck, key, input, &sigma, &coins)
}

/// `D_j = C_{σ(j)} + Enc(0; ρ_j)` for every output position, in parallel.
fn rerandomize_deck(key: &JointKey, input: &Deck, sigma: &[usize], rho: &[Scalar]) -> Deck {
    let inp = input.ciphertexts();
    let cts = sigma
        .par_iter()
        .zip(rho)
        .with_min_len(8)
        .map(|(&s, r)| inp[s] + key.zero_encryption(r))
        .collect();
    Deck::from_ciphertexts(cts)
}

/// `E_0 = Enc(0; τ_0) + Σ a_{0,j}·D_j`.
fn multi_exp_commitment(
    key: &JointKey,
    output: &Deck,
    a0: &[Scalar],
    tau_0: &Scalar,
) -> CompressedCiphertext {
    let out = output.ciphertexts();
    let scalars: Vec<Scalar> = core::iter::once(*tau_0).chain(a0.iter().copied()).collect();
    let component = |base: &RistrettoPoint, pick: fn(&Ciphertext) -> RistrettoPoint| {
        let points: Vec<RistrettoPoint> = core::iter::once(*base)
            .chain(out.iter().map(pick))
            .collect();
        vartime_msm(&scalars, &points)
    };
    let (c1, c2) = join(
        || component(&RISTRETTO_BASEPOINT_POINT, |c| c.c1),
        || component(key.point(), |c| c.c2),
    );
    Ciphertext { c1, c2 }.compress()
}

/// The prover. Three parallel phases, separated by the challenges they wait for: (1) the output
/// deck with `A`, `c_d` and `A_0`, which need no challenge; (2) after `x`, `B` and `E_0`;
/// (3) after `y, z`, `c_δ` and `c_Δ`. The transcript sees exactly what the sequential prover's
/// did, in the same order.
fn prove(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    ck: &CommitmentKey,
    key: &JointKey,
    input: &Deck,
    sigma: &[usize],
    coins: &Coins,
) -> (Deck, ShuffleProof) {
    let n = sigma.len();
    // 1-based permutation values.
    let a: Vec<Scalar> = sigma.iter().map(|&s| Scalar::from(s as u64 + 1)).collect();
    let (output, (c_a, (c_d, c_a0))) = join(
        || rerandomize_deck(key, input, sigma, &coins.rho),
        || {
            join(
                || ck.commit(&a, &coins.r_a).compress(),
                || {
                    join(
                        || ck.commit(&coins.d, &coins.r_d).compress(),
                        || ck.commit(&coins.a0, &coins.r_0).compress(),
                    )
                },
            )
        },
    );
    absorb_statement(t, ctx, key, input, output.wire());
    t.append_point(b"A", &c_a);
    let x = t.challenge_scalar(b"x");
    let xp = powers(&x, n);

    // x^{σ(j)}, committed in B; E_0 needs no challenge but waits for the output deck.
    let b: Vec<Scalar> = sigma.iter().map(|&s| xp[s]).collect();
    let (c_b, e0) = join(
        || ck.commit(&b, &coins.s_b).compress(),
        || multi_exp_commitment(key, &output, &coins.a0, &coins.tau_0),
    );
    #[cfg(test)]
    let e0 = CompressedCiphertext {
        c1: (decode_point(&e0.c1, ctx.player, Item::Proof).unwrap_or_default() + coins.e0_offset)
            .compress(),
        c2: e0.c2,
    };
    t.append_point(b"B", &c_b);
    let y = t.challenge_scalar(b"y");
    let z = t.challenge_scalar(b"z");

    // Single-value product argument on pa = y·a + b − z (randomness pr = y·r_A + s_B).
    let pa: Vec<Scalar> = a.iter().zip(&b).map(|(ai, bi)| y * ai + bi - z).collect();
    let pr = y * coins.r_a + coins.s_b;
    let pb = partial_products(&pa);
    let (d, delta) = (&coins.d, &coins.delta);
    let v_delta: Vec<Scalar> = (0..n - 1).map(|k| -delta[k] * d[k + 1]).collect();
    let v_cap_delta: Vec<Scalar> = (0..n - 1)
        .map(|k| delta[k + 1] - pa[k + 1] * delta[k] - pb[k] * d[k + 1])
        .collect();
    let (c_delta, c_cap_delta) = join(
        || ck.commit(&v_delta, &coins.s_1).compress(),
        || ck.commit(&v_cap_delta, &coins.s_x).compress(),
    );

    t.append_point(b"c_d", &c_d);
    t.append_point(b"c_delta", &c_delta);
    t.append_point(b"c_Delta", &c_cap_delta);
    t.append_point(b"A0", &c_a0);
    t.append_point(b"E0.c1", &e0.c1);
    t.append_point(b"E0.c2", &e0.c2);
    let e = t.challenge_scalar(b"e");

    // Multi-exponentiation argument for Σ x^i C_i = Enc(0; ρ) + Σ b_j D_j.
    let rho_total: Scalar = -coins
        .rho
        .iter()
        .zip(&b)
        .map(|(r, bj)| r * bj)
        .sum::<Scalar>();
    let respond = |u: &[Scalar], v: &[Scalar]| -> Vec<ScalarBytes> {
        u.iter()
            .zip(v)
            .map(|(ui, vi)| (e * ui + vi).into())
            .collect()
    };
    let proof = ShuffleProof {
        c_a,
        c_b,
        c_d,
        c_delta,
        c_cap_delta,
        c_a0,
        e0,
        a_tilde: respond(&pa, d),
        b_tilde: respond(&pb, delta),
        r_tilde: (e * pr + coins.r_d).into(),
        s_tilde: (e * coins.s_x + coins.s_1).into(),
        a_bar: respond(&b, &coins.a0),
        r_bar: (coins.r_0 + e * coins.s_b).into(),
        tau_bar: (coins.tau_0 + e * rho_total).into(),
    };
    (output, proof)
}

/// `b_k = ∏_{i≤k} a_i`.
fn partial_products(a: &[Scalar]) -> Vec<Scalar> {
    let mut acc = Scalar::ONE;
    a.iter()
        .map(|v| {
            acc *= v;
            acc
        })
        .collect()
}

/// A shuffle proof decoded and replayed against its transcript: everything the verifier knows
/// before the group check, with the checks that need no group operation already done.
pub(crate) struct ReplayedShuffle {
    /// The prover, whom a failure names.
    pub(crate) player: PartyId,
    /// `A, B, c_d, c_Δ, c_δ, A_0, E_0.c1, E_0.c2`, decoded.
    points: [RistrettoPoint; 8],
    a_tilde: Vec<Scalar>,
    b_tilde: Vec<Scalar>,
    a_bar: Vec<Scalar>,
    r_tilde: Scalar,
    s_tilde: Scalar,
    r_bar: Scalar,
    tau_bar: Scalar,
    /// `x, x², …, x^n`.
    xp: Vec<Scalar>,
    y: Scalar,
    z: Scalar,
    e: Scalar,
    /// The weights `w1, w2, w4, w6` of equations 1, 2, 4 and 5b (equation 5a has weight 1).
    weights: [Scalar; 4],
    /// A 64-byte challenge drawn after the whole proof, which binds a batch's weights to it.
    pub(crate) binding: [u8; 64],
}

impl ReplayedShuffle {
    fn decode(proof: &ShuffleProof, n: usize, player: PartyId) -> Result<ReplayedShuffle> {
        let p = |c: &CompressedRistretto| decode_point(c, player, Item::Proof);
        let s = |v: &ScalarBytes| v.decode(player, Item::Proof);
        Ok(ReplayedShuffle {
            player,
            points: [
                p(&proof.c_a)?,
                p(&proof.c_b)?,
                p(&proof.c_d)?,
                p(&proof.c_cap_delta)?,
                p(&proof.c_delta)?,
                p(&proof.c_a0)?,
                p(&proof.e0.c1)?,
                p(&proof.e0.c2)?,
            ],
            a_tilde: decode_scalars(&proof.a_tilde, n, player, "ã scalars")?,
            b_tilde: decode_scalars(&proof.b_tilde, n, player, "b̃ scalars")?,
            a_bar: decode_scalars(&proof.a_bar, n, player, "ā scalars")?,
            r_tilde: s(&proof.r_tilde)?,
            s_tilde: s(&proof.s_tilde)?,
            r_bar: s(&proof.r_bar)?,
            tau_bar: s(&proof.tau_bar)?,
            xp: Vec::new(),
            y: Scalar::ZERO,
            z: Scalar::ZERO,
            e: Scalar::ZERO,
            weights: [Scalar::ZERO; 4],
            binding: [0; 64],
        })
    }

    /// Decodes `proof`, replays the transcript of the statement `input → output` (only the
    /// output's wire form is needed, so the caller may decode the output deck meanwhile) and
    /// checks the two scalar equations of the product argument.
    pub(crate) fn replay(
        t: &mut Transcript,
        ctx: &ProofContext<'_>,
        ck: &CommitmentKey,
        key: &JointKey,
        input: &Deck,
        output: &[CompressedCiphertext],
        proof: &ShuffleProof,
    ) -> Result<ReplayedShuffle> {
        let n = input.len();
        let player = ctx.player;
        check_sizes(ck, n)?;
        if output.len() != n {
            return Err(PokerError::WrongLength {
                player,
                what: "shuffled cards",
                expected: n,
                got: output.len(),
            });
        }
        let mut r = ReplayedShuffle::decode(proof, n, player)?;

        absorb_statement(t, ctx, key, input, output);
        t.append_point(b"A", &proof.c_a);
        let x = t.challenge_scalar(b"x");
        t.append_point(b"B", &proof.c_b);
        r.y = t.challenge_scalar(b"y");
        r.z = t.challenge_scalar(b"z");
        t.append_point(b"c_d", &proof.c_d);
        t.append_point(b"c_delta", &proof.c_delta);
        t.append_point(b"c_Delta", &proof.c_cap_delta);
        t.append_point(b"A0", &proof.c_a0);
        t.append_point(b"E0.c1", &proof.e0.c1);
        t.append_point(b"E0.c2", &proof.e0.c2);
        r.e = t.challenge_scalar(b"e");
        r.xp = powers(&x, n);

        // The public product ∏ (y·i + x^i − z), with y·i accumulated by additions.
        let (mut target, mut yi) = (Scalar::ONE, Scalar::ZERO);
        for xi in &r.xp {
            yi += r.y;
            target *= yi + xi - r.z;
        }
        if r.b_tilde[0] != r.a_tilde[0] || r.b_tilde[n - 1] != r.e * target {
            return Err(PokerError::InvalidProof {
                player,
                kind: ProofKind::Shuffle,
            });
        }
        r.draw_weights(t, proof);
        Ok(r)
    }

    /// Draws the batch weights from a fork of the transcript that has absorbed the responses,
    /// so they are fixed only after the whole proof is; the caller's transcript ends where the
    /// prover's did.
    fn draw_weights(&mut self, t: &Transcript, proof: &ShuffleProof) {
        let mut w = t.clone();
        for (label, v) in [
            (b"a_tilde" as &'static [u8], &proof.a_tilde),
            (b"b_tilde", &proof.b_tilde),
            (b"a_bar", &proof.a_bar),
        ] {
            let bytes: Vec<u8> = v.iter().flat_map(|s| s.0).collect();
            w.append_message(label, &bytes);
        }
        for v in [&self.r_tilde, &self.s_tilde, &self.r_bar, &self.tau_bar] {
            w.append_scalar(b"response", v);
        }
        self.weights = [
            w.challenge_scalar(b"w1"),
            w.challenge_scalar(b"w2"),
            w.challenge_scalar(b"w4"),
            w.challenge_scalar(b"w6"),
        ];
        w.challenge_bytes(b"binding", &mut self.binding);
    }

    /// Adds this proof's five verification equations, weighted (and scaled by the batch
    /// weight `alpha`, if any), to `sum`; `input` and `output` are the decks' slots in `sum`.
    pub(crate) fn add_to(
        &self,
        alpha: Option<&Scalar>,
        sum: &mut ShuffleSum<'_>,
        input: usize,
        output: usize,
    ) {
        let [w1, w2, w4, w6] = self.weights;
        let (w1, w2, w4, w5) = match alpha {
            None => (w1, w2, w4, Scalar::ONE),
            Some(a) => (a * w1, a * w2, a * w4, *a),
        };
        let n = self.xp.len();
        let (e, at, bt, ab) = (self.e, &self.a_tilde, &self.b_tilde, &self.a_bar);

        // G_i: −w1·(ã_i + e·z) − w4·ā_i − w2·(e·b̃_{i+1} − b̃_i·ã_{i+1}).
        let (w1ez, w2e) = (w1 * e * self.z, w2 * e);
        for i in 0..n {
            let mut coef = w1 * at[i] + w1ez + w4 * ab[i];
            if i + 1 < n {
                coef += w2e * bt[i + 1] - (w2 * bt[i]) * at[i + 1];
            }
            sum.scalars[i] -= coef;
        }
        // H, G and Y follow the generators; equation 5b's weight is w6 relative to 5a's.
        let fixed = &mut sum.scalars[sum.n..sum.n + 3];
        fixed[0] -= w1 * self.r_tilde + w2 * self.s_tilde + w4 * self.r_bar;
        fixed[1] -= w5 * self.tau_bar;
        fixed[2] -= w5 * w6 * self.tau_bar;
        sum.scalars
            .extend([w1 * e * self.y, (w1 + w4) * e, w1, w2e, w2, w4, w5, w5 * w6]);
        sum.points.extend(self.points);

        // Σ x^i·C_i with weight w5·e (c1) and w5·w6·e (c2); Σ ā_j·D_j with −w5, −w5·w6.
        let w5e = w5 * e;
        for (i, xi) in self.xp.iter().enumerate() {
            let c = w5e * xi;
            sum.add_card(input, i, c, w6 * c);
        }
        for (j, aj) in ab.iter().enumerate() {
            let c = if alpha.is_some() { w5 * aj } else { *aj };
            sum.add_card(output, j, -c, -(w6 * c));
        }
    }
}

/// Where one deck's points sit in a [`ShuffleSum`]: for each card, the indices of `c1` and
/// `c2`, or [`ABSENT`] for a point that is the identity (the `c1` of an open deck), which
/// contributes nothing and is left out.
struct DeckSlot<'a> {
    deck: &'a Deck,
    index: Vec<[u32; 2]>,
}

const ABSENT: u32 = u32::MAX;

/// A weighted sum of the verification equations of one or more shuffle proofs under the same
/// key and commitment key, kept as one coefficient per distinct point: it is the identity if
/// every proof is valid. A deck that several proofs share (the output of one shuffle is the
/// input of the next) has one coefficient per point, the sum of all its coefficients.
///
/// Layout of `scalars`/`points`: `G_1 … G_n`, `H`, `G`, `Y`, then decks and proof points in
/// the order they are added.
pub(crate) struct ShuffleSum<'a> {
    n: usize,
    scalars: Vec<Scalar>,
    points: Vec<RistrettoPoint>,
    decks: Vec<DeckSlot<'a>>,
}

impl<'a> ShuffleSum<'a> {
    /// An empty sum for `proofs` proofs over at most `decks` distinct decks of `n` cards.
    pub(crate) fn new(
        ck: &CommitmentKey,
        key: &JointKey,
        n: usize,
        proofs: usize,
        decks: usize,
    ) -> ShuffleSum<'a> {
        let capacity = n + 3 + 8 * proofs + 2 * n * decks;
        let mut points = Vec::with_capacity(capacity);
        points.extend_from_slice(&ck.g[..n]);
        points.extend([ck.h, RISTRETTO_BASEPOINT_POINT, *key.point()]);
        let mut scalars = Vec::with_capacity(capacity);
        scalars.resize(n + 3, Scalar::ZERO);
        ShuffleSum {
            n,
            scalars,
            points,
            decks: Vec::with_capacity(decks),
        }
    }

    /// The slot of `deck`, shared with any equal deck already in the sum.
    pub(crate) fn slot(&mut self, deck: &'a Deck) -> usize {
        let same = |d: &DeckSlot<'_>| core::ptr::eq(d.deck, deck) || d.deck.wire() == deck.wire();
        if let Some(i) = self.decks.iter().position(same) {
            return i;
        }
        let mut place = |point: &RistrettoPoint, wire: &CompressedRistretto| {
            if is_identity(wire) {
                return ABSENT;
            }
            self.points.push(*point);
            self.scalars.push(Scalar::ZERO);
            (self.points.len() - 1) as u32
        };
        let index = deck
            .ciphertexts()
            .iter()
            .zip(deck.wire())
            .map(|(ct, w)| [place(&ct.c1, &w.c1), place(&ct.c2, &w.c2)])
            .collect();
        self.decks.push(DeckSlot { deck, index });
        self.decks.len() - 1
    }

    /// Adds `c1`, `c2` to the coefficients of card `card` of the deck in `slot`.
    fn add_card(&mut self, slot: usize, card: usize, c1: Scalar, c2: Scalar) {
        let [i1, i2] = self.decks[slot].index[card];
        if i1 != ABSENT {
            self.scalars[i1 as usize] += c1;
        }
        if i2 != ABSENT {
            self.scalars[i2 as usize] += c2;
        }
    }

    /// Whether the sum is the identity: one multiscalar multiplication on the current pool.
    pub(crate) fn vanishes(self) -> bool {
        vartime_msm(&self.scalars, &self.points) == RistrettoPoint::identity()
    }
}

fn is_identity(point: &CompressedRistretto) -> bool {
    *point == CompressedRistretto::default()
}

/// Verifies that `output` is a shuffle and re-randomisation of `input` under `key`, made by
/// `ctx.player`, whom every error names.
///
/// One multiscalar multiplication of at most `5n + 11` points, on the current rayon pool.
pub fn verify_shuffle(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    ck: &CommitmentKey,
    key: &JointKey,
    input: &Deck,
    output: &Deck,
    proof: &ShuffleProof,
) -> Result<()> {
    let replayed = ReplayedShuffle::replay(t, ctx, ck, key, input, output.wire(), proof)?;
    check_one(&replayed, ck, key, input, output)
}

/// Decodes a shuffled deck received from `ctx.player` and verifies its proof, returning the
/// deck. Equivalent to [`Deck::decode`] followed by [`verify_shuffle`], but on several threads
/// the transcript is replayed while the deck is decoded.
#[allow(clippy::too_many_arguments)]
pub fn decode_and_verify_shuffle(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    ck: &CommitmentKey,
    key: &JointKey,
    input: &Deck,
    output: Vec<CompressedCiphertext>,
    proof: &ShuffleProof,
) -> Result<Deck> {
    let (replayed, deck) = join(
        || ReplayedShuffle::replay(t, ctx, ck, key, input, &output, proof),
        || Deck::decode(output.clone(), ctx.player),
    );
    let (replayed, deck) = (replayed?, deck?);
    check_one(&replayed, ck, key, input, &deck)?;
    Ok(deck)
}

fn check_one(
    replayed: &ReplayedShuffle,
    ck: &CommitmentKey,
    key: &JointKey,
    input: &Deck,
    output: &Deck,
) -> Result<()> {
    let mut sum = ShuffleSum::new(ck, key, input.len(), 1, 2);
    let (i, o) = (sum.slot(input), sum.slot(output));
    replayed.add_to(None, &mut sum, i, o);
    if sum.vanishes() {
        Ok(())
    } else {
        Err(PokerError::InvalidProof {
            player: replayed.player,
            kind: ProofKind::Shuffle,
        })
    }
}

/// Re-randomises a single ciphertext with `ρ` (constant time); exposed for tests and tampering
/// experiments.
pub fn rerandomize(key: &JointKey, ct: &Ciphertext, rho: &Scalar) -> Ciphertext {
    *ct + key.zero_encryption(rho)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elgamal::CardEncoding;
    use crate::keys::{joint_key, SecretKey};
    use facedown_core::{rng::seeded_rng, PartyId};

    fn ctx(player: u16) -> ProofContext<'static> {
        ProofContext {
            session: b"test",
            round: 1,
            player: PartyId(player),
        }
    }

    fn setup(n: u16) -> (JointKey, CommitmentKey, Deck) {
        let mut rng = seeded_rng(1);
        let sks: Vec<SecretKey> = (0..3)
            .map(|_| SecretKey::random_with_rng(&mut rng))
            .collect();
        let pks: Vec<_> = sks.iter().map(|s| *s.public()).collect();
        let key = joint_key(&pks).expect("nonzero key");
        let cards = CardEncoding::new(n);
        (
            key,
            CommitmentKey::new(usize::from(n)),
            Deck::open_deck(&cards),
        )
    }

    #[test]
    fn bg12_honest_shuffle_verifies_for_small_and_large_decks() {
        for n in [2u16, 3, 5, 52] {
            let (key, ck, deck) = setup(n);
            let mut rng = seeded_rng(u64::from(n));
            let (out, proof) = shuffle_with_rng(
                &mut Transcript::new(b"t"),
                &ctx(2),
                &ck,
                &key,
                &deck,
                &mut rng,
            )
            .expect("valid sizes");
            verify_shuffle(
                &mut Transcript::new(b"t"),
                &ctx(2),
                &ck,
                &key,
                &deck,
                &out,
                &proof,
            )
            .expect("honest proof verifies");
        }
    }
}
