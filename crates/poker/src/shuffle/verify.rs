//! The shuffle argument's verifier: decoding and replaying a proof, and the weighted sum of its
//! verification equations — one proof's, or a batch's — as one multiscalar multiplication.

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_POINT;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::Identity;
use facedown_core::PartyId;
use merlin::Transcript;

use super::{absorb_statement, check_sizes, powers, ShuffleProof};
use crate::elgamal::{decode_ciphertexts, CompressedCiphertext, Deck, JointKey};
use crate::encoding::{decode_point, decode_scalars, ScalarBytes};
use crate::errors::{Item, PokerError, ProofKind, Result};
use crate::generators::CommitmentKey;
use crate::parallel::{join, vartime_msm};
use crate::transcript::{ProofContext, TranscriptProtocol};

/// A shuffle proof's points and scalars, decoded (canonical encodings only).
struct DecodedProof {
    /// `A, B, c_d, c_Δ, c_δ, A_0, E_0.c1, E_0.c2`.
    points: [RistrettoPoint; 8],
    a_tilde: Vec<Scalar>,
    b_tilde: Vec<Scalar>,
    a_bar: Vec<Scalar>,
    r_tilde: Scalar,
    s_tilde: Scalar,
    r_bar: Scalar,
    tau_bar: Scalar,
}

impl DecodedProof {
    fn decode(proof: &ShuffleProof, n: usize, player: PartyId) -> Result<DecodedProof> {
        let p = |c: &CompressedRistretto| decode_point(c, player, Item::Proof);
        let s = |v: &ScalarBytes| v.decode(player, Item::Proof);
        Ok(DecodedProof {
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
        })
    }
}

/// A shuffle proof decoded and replayed against its transcript: everything the verifier knows
/// before the group check, with the checks that need no group operation already done.
pub(crate) struct ReplayedShuffle {
    /// The prover, whom a failure names.
    pub(crate) player: PartyId,
    proof: DecodedProof,
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
        let decoded = DecodedProof::decode(proof, n, player)?;

        absorb_statement(t, ctx, key, input, output);
        t.append_point(b"A", &proof.c_a);
        let x = t.challenge_scalar(b"x");
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
        let xp = powers(&x, n);

        // The public product ∏ (y·i + x^i − z), with y·i accumulated by additions.
        let (mut target, mut yi) = (Scalar::ONE, Scalar::ZERO);
        for xi in &xp {
            yi += y;
            target *= yi + xi - z;
        }
        let (at, bt) = (&decoded.a_tilde, &decoded.b_tilde);
        if bt[0] != at[0] || bt[n - 1] != e * target {
            return Err(PokerError::InvalidProof {
                player,
                kind: ProofKind::Shuffle,
            });
        }
        let (weights, binding) = draw_weights(t, proof, &decoded);
        Ok(ReplayedShuffle {
            player,
            proof: decoded,
            xp,
            y,
            z,
            e,
            weights,
            binding,
        })
    }

    /// Adds this proof's five verification equations, weighted (and scaled by the batch
    /// weight `alpha`, if any), to `sum`; `input` and `output` are the decks' slots in `sum`.
    pub(crate) fn add_to<'a>(
        &'a self,
        alpha: Option<&Scalar>,
        sum: &mut ShuffleSum<'a>,
        input: usize,
        output: usize,
    ) {
        let [w1, w2, w4, w6] = self.weights;
        let (w1, w2, w4, w5) = match alpha {
            None => (w1, w2, w4, Scalar::ONE),
            Some(a) => (a * w1, a * w2, a * w4, *a),
        };
        let n = self.xp.len();
        let p = &self.proof;
        let (e, at, bt, ab) = (self.e, &p.a_tilde, &p.b_tilde, &p.a_bar);

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
        fixed[0] -= w1 * p.r_tilde + w2 * p.s_tilde + w4 * p.r_bar;
        fixed[1] -= w5 * p.tau_bar;
        fixed[2] -= w5 * w6 * p.tau_bar;
        sum.scalars
            .extend([w1 * e * self.y, (w1 + w4) * e, w1, w2e, w2, w4, w5, w5 * w6]);
        sum.points.extend(&p.points);

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

/// The verification weights `w1, w2, w4, w6` and the binding challenge, from a fork of the
/// transcript that has absorbed the responses, so they are fixed only after the whole proof is;
/// the caller's transcript ends where the prover's did.
fn draw_weights(
    t: &Transcript,
    proof: &ShuffleProof,
    decoded: &DecodedProof,
) -> ([Scalar; 4], [u8; 64]) {
    let mut w = t.clone();
    for (label, v) in [
        (b"a_tilde" as &'static [u8], &proof.a_tilde),
        (b"b_tilde", &proof.b_tilde),
        (b"a_bar", &proof.a_bar),
    ] {
        let mut bytes = Vec::with_capacity(32 * v.len());
        for s in v {
            bytes.extend_from_slice(&s.0);
        }
        w.append_message(label, &bytes);
    }
    let d = decoded;
    for v in [&d.r_tilde, &d.s_tilde, &d.r_bar, &d.tau_bar] {
        w.append_scalar(b"response", v);
    }
    let weights = [
        w.challenge_scalar(b"w1"),
        w.challenge_scalar(b"w2"),
        w.challenge_scalar(b"w4"),
        w.challenge_scalar(b"w6"),
    ];
    let mut binding = [0; 64];
    w.challenge_bytes(b"binding", &mut binding);
    (weights, binding)
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
    points: Vec<&'a RistrettoPoint>,
    decks: Vec<DeckSlot<'a>>,
}

impl<'a> ShuffleSum<'a> {
    /// An empty sum for `proofs` proofs over at most `decks` distinct decks of `n` cards.
    pub(crate) fn new(
        ck: &'a CommitmentKey,
        key: &'a JointKey,
        n: usize,
        proofs: usize,
        decks: usize,
    ) -> ShuffleSum<'a> {
        let capacity = n + 3 + 8 * proofs + 2 * n * decks;
        let mut points = Vec::with_capacity(capacity);
        points.extend(&ck.g[..n]);
        points.extend([&ck.h, &RISTRETTO_BASEPOINT_POINT, key.point()]);
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
        let mut place = |point: &'a RistrettoPoint, wire: &CompressedRistretto| {
            if is_identity(wire) {
                return ABSENT;
            }
            self.points.push(point);
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
    let (replayed, cts) = join(
        || ReplayedShuffle::replay(t, ctx, ck, key, input, &output, proof),
        || decode_ciphertexts(&output, ctx.player),
    );
    let (replayed, cts) = (replayed?, cts?);
    let deck = Deck::from_parts(cts, output);
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
