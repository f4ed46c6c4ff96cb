//! Shuffles restricted to an explicit small set of permutations, with a disjunctive proof.
//!
//! Card-based protocols use *restricted* shuffles: a **random cut** (a uniformly random cyclic
//! rotation) or a **random bisection cut** (swap the two halves, or not) \[MS09\]. On encrypted
//! cards the shuffler picks `k` uniformly from a public set `S = {π_1, …, π_K}`, outputs
//! `D_j = C_{σ_k(j)} + (ρ_j·G, ρ_j·Y)` (with `σ_k = π_k⁻¹`) and proves
//!
//! > ∃ k ∈ S: every `D_j − C_{σ_k(j)}` is an encryption of zero.
//!
//! The verifier's per-card statements are compressed into one with weights `w_j` drawn from the
//! transcript after both decks are absorbed: `Δ_k = Σ_j w_j·(D_j − C_{σ_k(j)})`. If some
//! difference is not an encryption of zero, `Δ_k` is one with probability `1/ℓ`. Each `Δ_k` is
//! then a DLEQ statement `log_G Δ_k.1 = log_Y Δ_k.2`, and the disjunction over `k` is the
//! Cramer–Damgård–Schoenmakers OR-composition: the prover simulates every branch but the true
//! one and the branch challenges must sum to the Fiat–Shamir challenge. The proof is `2K`
//! scalars and the work `O(K·n)`: fine for cuts of a card-protocol row or the two bisections,
//! but for a 52-card random cut (`K = 52`) a rotation argument \[dHSSV09\] would be cheaper.
//!
//! The prover's branches run in variable time depending on which `k` is real.

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_TABLE;
use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::VartimeMultiscalarMul;
use facedown_core::Perm;
use merlin::Transcript;
use rand::{CryptoRng, Rng, RngCore};
use serde::{Deserialize, Serialize};

use crate::elgamal::{Ciphertext, Deck, JointKey};
use crate::encoding::{decode_scalars, ScalarBytes};
use crate::errors::{PokerError, ProofKind, Result};
use crate::transcript::{ProofContext, TranscriptProtocol};

const RESTRICTED_LABEL: &[u8] = b"facedown-poker/restricted-shuffle/cds-or/v1";

/// A public, explicit, non-empty set of permutations of `n` positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PermSet {
    n: usize,
    perms: Vec<Perm>,
    /// `σ_k = π_k⁻¹` as image vectors: output `j` takes input `sources[k][j]`.
    sources: Vec<Vec<usize>>,
}

impl PermSet {
    /// A set from explicit permutations, all of the same size `n ≥ 1`.
    pub fn new(perms: Vec<Perm>) -> Result<PermSet> {
        let n = perms
            .first()
            .ok_or_else(|| PokerError::InvalidParameters("empty permutation set".to_owned()))?
            .len();
        if n == 0 || perms.iter().any(|p| p.len() != n) {
            return Err(PokerError::InvalidParameters(
                "permutations of a set must all have the same non-zero size".to_owned(),
            ));
        }
        let sources = perms.iter().map(|p| p.inverse().to_images()).collect();
        Ok(PermSet { n, perms, sources })
    }

    /// The `n` cyclic rotations of `n` positions (a *random cut*): rotation `k` moves the card
    /// at position `i` to position `i + k mod n`.
    pub fn cyclic(n: usize) -> Result<PermSet> {
        let perms = (0..n)
            .map(|k| Perm::from_images((0..n).map(|i| (i + k) % n).collect()))
            .collect::<core::result::Result<Vec<_>, _>>()
            .map_err(|e| PokerError::InvalidParameters(e.to_string()))?;
        PermSet::new(perms)
    }

    /// The *random bisection cut* of `2m` positions: the identity, or swapping the two halves.
    pub fn bisection(n: usize) -> Result<PermSet> {
        if n == 0 || !n.is_multiple_of(2) {
            return Err(PokerError::InvalidParameters(format!(
                "a bisection cut needs an even positive number of cards, got {n}"
            )));
        }
        let half = n / 2;
        let swap = Perm::from_images((0..n).map(|i| (i + half) % n).collect())
            .map_err(|e| PokerError::InvalidParameters(e.to_string()))?;
        PermSet::new(vec![Perm::identity(n), swap])
    }

    /// The number of positions the permutations act on.
    pub fn degree(&self) -> usize {
        self.n
    }

    /// The number of permutations `K`.
    pub fn len(&self) -> usize {
        self.perms.len()
    }

    /// Always false (sets are non-empty).
    pub fn is_empty(&self) -> bool {
        self.perms.is_empty()
    }

    /// The permutations.
    pub fn perms(&self) -> &[Perm] {
        &self.perms
    }
}

/// The OR-proof: one challenge and one response per permutation of the set.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RestrictedShuffleProof {
    /// Branch challenges `c_k`, summing to the Fiat–Shamir challenge.
    pub challenges: Vec<ScalarBytes>,
    /// Branch responses `s_k`.
    pub responses: Vec<ScalarBytes>,
}

/// Absorbs the statement and returns the weights `w_j` and `Δ_k` for every branch.
fn statement(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    key: &JointKey,
    set: &PermSet,
    input: &Deck,
    output: &Deck,
) -> (Vec<Scalar>, Vec<Ciphertext>) {
    let n = set.n;
    t.proof_domain(RESTRICTED_LABEL, ctx);
    t.append_point(b"Y", key.compressed());
    t.append_u64(b"set.n", n as u64);
    t.append_u64(b"set.len", set.perms.len() as u64);
    let mut images = Vec::with_capacity(8 * n * set.perms.len());
    for src in &set.sources {
        for &s in src {
            images.extend_from_slice(&(s as u64).to_le_bytes());
        }
    }
    t.append_message(b"set", &images);
    t.append_deck(b"input", input.wire());
    t.append_deck(b"output", output.wire());
    let w: Vec<Scalar> = (0..n).map(|_| t.challenge_scalar(b"w")).collect();
    let (inp, out) = (input.ciphertexts(), output.ciphertexts());
    let w_out = Ciphertext {
        c1: RistrettoPoint::vartime_multiscalar_mul(&w, out.iter().map(|c| c.c1)),
        c2: RistrettoPoint::vartime_multiscalar_mul(&w, out.iter().map(|c| c.c2)),
    };
    let deltas = set
        .sources
        .iter()
        .map(|src| {
            let w_in = Ciphertext {
                c1: RistrettoPoint::vartime_multiscalar_mul(&w, src.iter().map(|&s| inp[s].c1)),
                c2: RistrettoPoint::vartime_multiscalar_mul(&w, src.iter().map(|&s| inp[s].c2)),
            };
            w_out - w_in
        })
        .collect();
    (w, deltas)
}

fn check_sizes(set: &PermSet, input: &Deck) -> Result<()> {
    if input.len() != set.n {
        return Err(PokerError::InvalidParameters(format!(
            "a permutation set of degree {} cannot shuffle {} cards",
            set.n,
            input.len()
        )));
    }
    Ok(())
}

/// Shuffles `input` by a uniformly random element of `set`, re-randomises every card and proves
/// it. Returns the output deck, the proof and the index of the permutation used (secret: the
/// caller must not reveal it).
pub fn restricted_shuffle_with_rng<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    key: &JointKey,
    set: &PermSet,
    input: &Deck,
    rng: &mut R,
) -> Result<(Deck, RestrictedShuffleProof, usize)> {
    let k = rng.gen_range(0..set.len());
    let (out, proof) = restricted_shuffle_by_with_rng(t, ctx, key, set, input, k, rng)?;
    Ok((out, proof, k))
}

/// Shuffles `input` by element `k` of `set`, re-randomises every card and proves it.
pub fn restricted_shuffle_by_with_rng<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    key: &JointKey,
    set: &PermSet,
    input: &Deck,
    k: usize,
    rng: &mut R,
) -> Result<(Deck, RestrictedShuffleProof)> {
    check_sizes(set, input)?;
    let src = set.sources.get(k).ok_or_else(|| {
        PokerError::InvalidParameters(format!("no permutation {k} in a set of {}", set.len()))
    })?;
    let rho: Vec<Scalar> = (0..set.n).map(|_| Scalar::random(rng)).collect();
    let inp = input.ciphertexts();
    let output = Deck::from_ciphertexts(
        src.iter()
            .zip(&rho)
            .map(|(&s, r)| inp[s] + key.zero_encryption(r))
            .collect(),
    );
    let (w, deltas) = statement(t, ctx, key, set, input, &output);
    // The witness of branch k: Δ_k = Enc(0; Σ w_j ρ_j).
    let witness: Scalar = w.iter().zip(&rho).map(|(wj, rj)| wj * rj).sum();
    let big_k = set.len();
    let mut challenges = vec![Scalar::ZERO; big_k];
    let mut responses = vec![Scalar::ZERO; big_k];
    let u = Scalar::random(rng);
    for (j, delta) in deltas.iter().enumerate() {
        let (a1, a2) = if j == k {
            (RISTRETTO_BASEPOINT_TABLE * &u, key.zero_encryption(&u).c2)
        } else {
            challenges[j] = Scalar::random(rng);
            responses[j] = Scalar::random(rng);
            branch_commitments(key, delta, &challenges[j], &responses[j])
        };
        t.append_point(b"A1", &a1.compress());
        t.append_point(b"A2", &a2.compress());
    }
    let c = t.challenge_scalar(b"c");
    let others: Scalar = challenges.iter().sum();
    challenges[k] = c - others;
    responses[k] = u + challenges[k] * witness;
    Ok((
        output,
        RestrictedShuffleProof {
            challenges: challenges.into_iter().map(Into::into).collect(),
            responses: responses.into_iter().map(Into::into).collect(),
        },
    ))
}

/// `A1 = s·G − c·Δ.1`, `A2 = s·Y − c·Δ.2`.
fn branch_commitments(
    key: &JointKey,
    delta: &Ciphertext,
    c: &Scalar,
    s: &Scalar,
) -> (RistrettoPoint, RistrettoPoint) {
    (
        RistrettoPoint::vartime_double_scalar_mul_basepoint(&-c, &delta.c1, s),
        RistrettoPoint::vartime_multiscalar_mul([*s, -c], [*key.point(), delta.c2]),
    )
}

/// Verifies that `output` is `input` shuffled by some element of `set` and re-randomised under
/// `key`, by `ctx.player`, whom every error names.
pub fn verify_restricted_shuffle(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    key: &JointKey,
    set: &PermSet,
    input: &Deck,
    output: &Deck,
    proof: &RestrictedShuffleProof,
) -> Result<()> {
    let player = ctx.player;
    check_sizes(set, input)?;
    if output.len() != set.n {
        return Err(PokerError::WrongLength {
            player,
            what: "shuffled cards",
            expected: set.n,
            got: output.len(),
        });
    }
    let cs = decode_scalars(&proof.challenges, set.len(), player, "branch challenges")?;
    let ss = decode_scalars(&proof.responses, set.len(), player, "branch responses")?;
    let (_, deltas) = statement(t, ctx, key, set, input, output);
    for ((delta, c), s) in deltas.iter().zip(&cs).zip(&ss) {
        let (a1, a2) = branch_commitments(key, delta, c, s);
        t.append_point(b"A1", &a1.compress());
        t.append_point(b"A2", &a2.compress());
    }
    let c = t.challenge_scalar(b"c");
    if cs.iter().sum::<Scalar>() == c {
        Ok(())
    } else {
        Err(PokerError::InvalidProof {
            player,
            kind: ProofKind::RestrictedShuffle,
        })
    }
}
