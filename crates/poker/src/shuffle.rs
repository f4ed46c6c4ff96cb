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
//! steps 3–4 as **one** multiscalar multiplication with random weights drawn from the transcript
//! after the whole proof has been absorbed: a false proof passes with probability at most about
//! `5/ℓ` more than the unbatched check.
//!
//! The prover's multiscalar multiplications are variable-time (`vartime_multiscalar_mul`) and
//! their scalars are secret: this trades side-channel resistance for speed, acceptable for
//! research measurements but not for a deployment on shared hardware.

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_POINT;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{Identity, VartimeMultiscalarMul};
use facedown_core::Perm;
use merlin::Transcript;
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};

use crate::elgamal::{Ciphertext, CompressedCiphertext, Deck, JointKey};
use crate::encoding::{decode_point, decode_scalars, ScalarBytes};
use crate::errors::{Item, PokerError, ProofKind, Result};
use crate::generators::CommitmentKey;
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
    output: &Deck,
) {
    t.proof_domain(SHUFFLE_LABEL, ctx);
    t.append_point(b"Y", key.compressed());
    t.append_deck(b"input", input.wire());
    t.append_deck(b"output", output.wire());
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

/// Shuffles `input` by a uniformly random permutation, re-randomises every card, and proves it.
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
    let rho = random_vec(n, rng);
    let inp = input.ciphertexts();
    let out_cts: Vec<Ciphertext> = (0..n)
        .map(|j| inp[sigma[j]] + key.zero_encryption(&rho[j]))
        .collect();
    let output = Deck::from_ciphertexts(out_cts);
    let proof = prove(t, ctx, ck, key, input, &output, &sigma, &rho, rng);
    Ok((output, proof))
}

#[allow(clippy::too_many_arguments)]
fn prove<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    ck: &CommitmentKey,
    key: &JointKey,
    input: &Deck,
    output: &Deck,
    sigma: &[usize],
    rho: &[Scalar],
    rng: &mut R,
) -> ShuffleProof {
    let n = sigma.len();
    absorb_statement(t, ctx, key, input, output);

    // 1. Commit to the permutation (1-based values).
    let a: Vec<Scalar> = sigma.iter().map(|&s| Scalar::from(s as u64 + 1)).collect();
    let r_a = Scalar::random(rng);
    let c_a = ck.commit(&a, &r_a).compress();
    t.append_point(b"A", &c_a);
    let x = t.challenge_scalar(b"x");
    let xp = powers(&x, n);

    // 2. Commit to x^{σ(j)}.
    let b: Vec<Scalar> = sigma.iter().map(|&s| xp[s]).collect();
    let s_b = Scalar::random(rng);
    let c_b = ck.commit(&b, &s_b).compress();
    t.append_point(b"B", &c_b);
    let y = t.challenge_scalar(b"y");
    let z = t.challenge_scalar(b"z");

    // 3. Single-value product argument on pa = y·a + b − z (randomness pr = y·r_A + s_B).
    let pa: Vec<Scalar> = a.iter().zip(&b).map(|(ai, bi)| y * ai + bi - z).collect();
    let pr = y * r_a + s_b;
    let mut pb = Vec::with_capacity(n); // partial products
    let mut acc = Scalar::ONE;
    for v in &pa {
        acc *= v;
        pb.push(acc);
    }
    let d = random_vec(n, rng);
    let r_d = Scalar::random(rng);
    let mut delta = random_vec(n, rng);
    delta[0] = d[0];
    delta[n - 1] = Scalar::ZERO;
    let s_1 = Scalar::random(rng);
    let s_x = Scalar::random(rng);
    let v_delta: Vec<Scalar> = (0..n - 1).map(|k| -delta[k] * d[k + 1]).collect();
    let v_cap_delta: Vec<Scalar> = (0..n - 1)
        .map(|k| delta[k + 1] - pa[k + 1] * delta[k] - pb[k] * d[k + 1])
        .collect();
    let c_d = ck.commit(&d, &r_d).compress();
    let c_delta = ck.commit(&v_delta, &s_1).compress();
    let c_cap_delta = ck.commit(&v_cap_delta, &s_x).compress();

    // 4. Multi-exponentiation argument for Σ x^i C_i = Enc(0; ρ) + Σ b_j D_j.
    let rho_total: Scalar = -rho.iter().zip(&b).map(|(r, bj)| r * bj).sum::<Scalar>();
    let a0 = random_vec(n, rng);
    let r_0 = Scalar::random(rng);
    let tau_0 = Scalar::random(rng);
    let c_a0 = ck.commit(&a0, &r_0).compress();
    let out = output.ciphertexts();
    let e0 = Ciphertext {
        c1: RistrettoPoint::vartime_multiscalar_mul(
            core::iter::once(&tau_0).chain(&a0),
            core::iter::once(&RISTRETTO_BASEPOINT_POINT).chain(out.iter().map(|c| &c.c1)),
        ),
        c2: RistrettoPoint::vartime_multiscalar_mul(
            core::iter::once(&tau_0).chain(&a0),
            core::iter::once(key.point()).chain(out.iter().map(|c| &c.c2)),
        ),
    }
    .compress();

    t.append_point(b"c_d", &c_d);
    t.append_point(b"c_delta", &c_delta);
    t.append_point(b"c_Delta", &c_cap_delta);
    t.append_point(b"A0", &c_a0);
    t.append_point(b"E0.c1", &e0.c1);
    t.append_point(b"E0.c2", &e0.c2);
    let e = t.challenge_scalar(b"e");

    let a_tilde = pa
        .iter()
        .zip(&d)
        .map(|(ai, di)| (e * ai + di).into())
        .collect();
    let b_tilde = pb
        .iter()
        .zip(&delta)
        .map(|(bi, di)| (e * bi + di).into())
        .collect();
    let a_bar = a0
        .iter()
        .zip(&b)
        .map(|(a0i, bi)| (a0i + e * bi).into())
        .collect();
    ShuffleProof {
        c_a,
        c_b,
        c_d,
        c_delta,
        c_cap_delta,
        c_a0,
        e0,
        a_tilde,
        b_tilde,
        r_tilde: (e * pr + r_d).into(),
        s_tilde: (e * s_x + s_1).into(),
        a_bar,
        r_bar: (r_0 + e * s_b).into(),
        tau_bar: (tau_0 + e * rho_total).into(),
    }
}

/// Verifies that `output` is a shuffle and re-randomisation of `input` under `key`, made by
/// `ctx.player`, whom every error names.
pub fn verify_shuffle(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    ck: &CommitmentKey,
    key: &JointKey,
    input: &Deck,
    output: &Deck,
    proof: &ShuffleProof,
) -> Result<()> {
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
    let p = |c: &CompressedRistretto| decode_point(c, player, Item::Proof);
    let (c_a, c_b, c_d) = (p(&proof.c_a)?, p(&proof.c_b)?, p(&proof.c_d)?);
    let (c_delta, c_cap_delta, c_a0) =
        (p(&proof.c_delta)?, p(&proof.c_cap_delta)?, p(&proof.c_a0)?);
    let (e0_1, e0_2) = (p(&proof.e0.c1)?, p(&proof.e0.c2)?);
    let a_tilde = decode_scalars(&proof.a_tilde, n, player, "ã scalars")?;
    let b_tilde = decode_scalars(&proof.b_tilde, n, player, "b̃ scalars")?;
    let a_bar = decode_scalars(&proof.a_bar, n, player, "ā scalars")?;
    let s = |v: &ScalarBytes| v.decode(player, Item::Proof);
    let (r_tilde, s_tilde, r_bar, tau_bar) = (
        s(&proof.r_tilde)?,
        s(&proof.s_tilde)?,
        s(&proof.r_bar)?,
        s(&proof.tau_bar)?,
    );

    absorb_statement(t, ctx, key, input, output);
    t.append_point(b"A", &proof.c_a);
    let x = t.challenge_scalar(b"x");
    let xp = powers(&x, n);
    t.append_point(b"B", &proof.c_b);
    let y = t.challenge_scalar(b"y");
    let z = t.challenge_scalar(b"z");
    t.append_point(b"c_d", &proof.c_d);
    t.append_point(b"c_delta", &proof.c_delta);
    t.append_point(b"c_Delta", &proof.c_cap_delta);
    t.append_point(b"A0", &proof.c_a0);
    t.append_point(b"E0.c1", &proof.e0.c1);
    t.append_point(b"E0.c2", &proof.e0.c2);
    let e = t.challenge_scalar(b"e");

    let invalid = PokerError::InvalidProof {
        player,
        kind: ProofKind::Shuffle,
    };
    // The public product ∏ (y·i + x^i − z).
    let mut target = Scalar::ONE;
    for (i, xi) in xp.iter().enumerate() {
        target *= y * Scalar::from(i as u64 + 1) + xi - z;
    }
    if b_tilde[0] != a_tilde[0] || b_tilde[n - 1] != e * target {
        return Err(invalid);
    }

    // Batch weights, drawn after the whole proof is in the transcript.
    for v in a_tilde.iter().chain(&b_tilde).chain(&a_bar) {
        t.append_scalar(b"response", v);
    }
    for v in [&r_tilde, &s_tilde, &r_bar, &tau_bar] {
        t.append_scalar(b"response", v);
    }
    let w1 = t.challenge_scalar(b"w1");
    let w2 = t.challenge_scalar(b"w2");
    let w4 = t.challenge_scalar(b"w4");
    let w5 = t.challenge_scalar(b"w5");
    let w6 = t.challenge_scalar(b"w6");

    let mut scalars: Vec<Scalar> = Vec::with_capacity(5 * n + 12);
    let mut points: Vec<RistrettoPoint> = Vec::with_capacity(5 * n + 12);
    // G_i: −w1·ã_i − w1·e·z − w2·v_i − w4·ā_i, with v_k = e·b̃_{k+1} − b̃_k·ã_{k+1}.
    let w1ez = w1 * e * z;
    for i in 0..n {
        let mut coef = -w1 * a_tilde[i] - w1ez - w4 * a_bar[i];
        if i + 1 < n {
            coef -= w2 * (e * b_tilde[i + 1] - b_tilde[i] * a_tilde[i + 1]);
        }
        scalars.push(coef);
        points.push(ck.g[i]);
    }
    scalars.extend([
        -(w1 * r_tilde + w2 * s_tilde + w4 * r_bar),
        w1 * e * y,
        (w1 + w4) * e,
        w1,
        w2 * e,
        w2,
        w4,
        w5,
        w6,
        -w5 * tau_bar,
        -w6 * tau_bar,
    ]);
    points.extend([
        ck.h,
        c_a,
        c_b,
        c_d,
        c_cap_delta,
        c_delta,
        c_a0,
        e0_1,
        e0_2,
        RISTRETTO_BASEPOINT_POINT,
        *key.point(),
    ]);
    let (we5, we6) = (w5 * e, w6 * e);
    for (ct, xi) in input.ciphertexts().iter().zip(&xp) {
        scalars.push(we5 * xi);
        points.push(ct.c1);
        scalars.push(we6 * xi);
        points.push(ct.c2);
    }
    for (ct, ai) in output.ciphertexts().iter().zip(&a_bar) {
        scalars.push(-w5 * ai);
        points.push(ct.c1);
        scalars.push(-w6 * ai);
        points.push(ct.c2);
    }
    let check = RistrettoPoint::vartime_multiscalar_mul(&scalars, &points);
    if check == RistrettoPoint::identity() {
        Ok(())
    } else {
        Err(invalid)
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
