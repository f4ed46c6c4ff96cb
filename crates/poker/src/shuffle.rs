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
use facedown_core::Perm;
use merlin::Transcript;
use rand::{CryptoRng, RngCore};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::elgamal::{Ciphertext, CompressedCiphertext, Deck, JointKey};
use crate::encoding::ScalarBytes;
use crate::errors::{PokerError, Result};
use crate::generators::CommitmentKey;
use crate::parallel::{join, vartime_msm};
use crate::transcript::{ProofContext, TranscriptProtocol};

mod verify;

pub use verify::{decode_and_verify_shuffle, verify_shuffle};
pub(crate) use verify::{ReplayedShuffle, ShuffleSum};

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
            e0_offset: RistrettoPoint::default(),
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

/// `E_0 = Enc(0; τ_0) + Σ a_{0,j}·D_j`, computed from the *input* deck so that it needs neither
/// the output deck nor a challenge: since `D_j = C_{σ(j)} + Enc(0; ρ_j)`,
/// `E_0 = Enc(0; τ_0 + Σ a_{0,j}·ρ_j) + Σ a_{0,j}·C_{σ(j)}` — the same point, exactly.
/// An input point that is the identity (an open deck's `c1`) is left out.
fn multi_exp_commitment(
    key: &JointKey,
    input: &Deck,
    sigma: &[usize],
    coins: &Coins,
) -> CompressedCiphertext {
    let (inp, wire) = (input.ciphertexts(), input.wire());
    let tau: Scalar = coins.tau_0 + inner_product(&coins.a0, &coins.rho);
    let component = |base: &RistrettoPoint, first: bool| {
        let mut scalars = Vec::with_capacity(sigma.len() + 1);
        let mut points = Vec::with_capacity(sigma.len() + 1);
        scalars.push(tau);
        points.push(base);
        for (&s, a) in sigma.iter().zip(&coins.a0) {
            let (p, w) = if first {
                (&inp[s].c1, &wire[s].c1)
            } else {
                (&inp[s].c2, &wire[s].c2)
            };
            if *w != CompressedRistretto::default() {
                scalars.push(*a);
                points.push(p);
            }
        }
        vartime_msm(&scalars, &points)
    };
    let (c1, c2) = join(
        || component(&RISTRETTO_BASEPOINT_POINT, true),
        || component(key.point(), false),
    );
    Ciphertext { c1, c2 }.compress()
}

/// `Σ u_i·v_i`.
fn inner_product(u: &[Scalar], v: &[Scalar]) -> Scalar {
    u.iter().zip(v).map(|(a, b)| a * b).sum()
}

/// The prover. Three parallel phases, separated by the challenges they wait for: (1) the output
/// deck with `A`, `c_d`, `A_0` and `E_0`, which need no challenge; (2) after `x`, `B`, in two
/// halves; (3) after `y, z`, `c_δ` and `c_Δ`. The transcript sees exactly what the sequential
/// prover's did, in the same order.
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
    let ((output, e0), (c_a, (c_d, c_a0))) = join(
        || {
            join(
                || rerandomize_deck(key, input, sigma, &coins.rho),
                || multi_exp_commitment(key, input, sigma, coins),
            )
        },
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

    // x^{σ(j)}, committed in B.
    let b: Vec<Scalar> = sigma.iter().map(|&s| xp[s]).collect();
    let c_b = ck.commit_in_halves(&b, &coins.s_b).compress();
    #[cfg(test)]
    let e0 = CompressedCiphertext {
        c1: (e0.c1.decompress().unwrap_or_default() + coins.e0_offset).compress(),
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
