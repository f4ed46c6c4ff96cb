//! The legal-play proof: a player proves that none of the cards shown to him alone bears a
//! symbol of a public set — in a trick-taking game, that he holds no card of the suit led when
//! he does not follow it — and nothing else about them.
//!
//! | Camenisch–Shoup (CRYPTO 2003) | code | meaning |
//! |---|---|---|
//! | `G`, `Y = x·G` | basepoint, [`PublicKey`] of the owner | the owner's key share and its secret `x` |
//! | `(c1, c2)` | [`ClaimedCard::ct`] | a card of the row, encrypted under the joint key |
//! | `d_i = x_i·c1` | the forwarded reveal tokens | the other players' tokens for that card |
//! | `P = c2 − Σ_{i≠o} d_i` | [`ClaimedCard::p`] | the card under the owner's key alone: `P = M + x·c1` |
//! | `M_s` | [`Excluded::point`] | the point of an excluded symbol |
//! | `Q = P − M_s`, `H = c1` | — | the statement of one inequality: `Q ≠ x·H` |
//!
//! **Why it is the card.** The owner's card is `M = P − x·c1`, so `M ≠ M_s` exactly when
//! `log_H Q ≠ log_G Y`: an inequality of discrete logarithms, proved as Camenisch and Shoup
//! do ("Practical verifiable encryption and decryption of discrete logarithms", CRYPTO 2003). The prover draws `α ≠ 0`, publishes `Z = α·Q − β·H` with `β = α·x` (that is,
//! `Z = α·(M − M_s)`), and proves knowledge of `(α, β)` with
//!
//! ```text
//!   Z = α·Q − β·H        and        0 = α·Y − β·G.
//! ```
//!
//! The second equation forces `β = α·x`, so the first is `Z = α·(Q − x·H) = α·(M − M_s)`, and
//! the verifier's check `Z ≠ 0` is the claim `M ≠ M_s` (the group has prime order). The
//! sigma protocol is Schnorr's for a linear relation: commitments `T1 = kα·Q − kβ·H`,
//! `T2 = kα·Y − kβ·G`, challenge `c`, responses `sα = kα + c·α`, `sβ = kβ + c·β`; the verifier
//! checks `sα·Q − sβ·H = T1 + c·Z` and `sα·Y − sβ·G = T2`. For an honest prover `Z` is a
//! uniformly random non-identity point whatever the card, so the proof is zero-knowledge (and
//! `P`, an ElGamal encryption of `M` under `Y`, hides the card by DDH).
//!
//! **One proof for a hand.** A claim about `n` cards and `m` symbols is the AND of `n·m`
//! inequalities with one challenge (Fiat–Shamir over a transcript that absorbs the owner's key,
//! every card and `P`, every symbol and every `(Z, T1, T2)`, bound to session, round and
//! prover), sent in commitment form `(Z, T1, T2, sα, sβ)`: 160 bytes an inequality. The
//! verifier adds all `2·n·m` equations with weights drawn from the transcript after the
//! responses and checks the sum with **one** multiscalar multiplication over
//! `2n + m + 2 + 3·n·m` points (each `P`, `c1`, `M_s`, `Y` and `G` once).
//!
//! The engine ([`crate::engine`]) gets `P` to every verifier without a round of its own: the
//! owner forwards the other players' reveal tokens for his cards, with their Chaum–Pedersen
//! proofs, as they were sent to him when the cards were shown; their proofs are transferable,
//! so each verifier checks them against the card's ciphertext and the makers' keys.

use curve25519_dalek::constants::{RISTRETTO_BASEPOINT_POINT, RISTRETTO_BASEPOINT_TABLE};
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{Identity, MultiscalarMul};
use merlin::Transcript;
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};

use crate::elgamal::{Ciphertext, CompressedCiphertext};
use crate::encoding::{decode_point, ScalarBytes};
use crate::errors::{Item, PokerError, ProofKind, Result};
use crate::keys::{PublicKey, SecretKey};
use crate::parallel::vartime_msm;
use crate::transcript::{ProofContext, TranscriptProtocol};

const NONE_OF_LABEL: &[u8] = b"facedown-poker/none-of/v1";

/// One card of a claim, as every player can compute it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClaimedCard {
    /// The card's position in the row (bound into the transcript).
    pub position: usize,
    /// Its ciphertext under the joint key, decoded and compressed.
    pub ct: (Ciphertext, CompressedCiphertext),
    /// `P = c2 − Σ_{i≠o} d_i`: the card under the owner's key alone.
    pub p: RistrettoPoint,
}

/// A symbol the claim excludes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Excluded {
    /// Its code ([`facedown_core::Symbol::code`]), bound into the transcript.
    pub code: u16,
    /// Its point `M_s`.
    pub point: RistrettoPoint,
}

/// The claim "none of `cards` is one of `excluded`", by the owner of `key`.
#[derive(Clone, Copy, Debug)]
pub struct NoneOfStatement<'a> {
    /// The owner's key share `Y`.
    pub key: &'a PublicKey,
    /// The cards.
    pub cards: &'a [ClaimedCard],
    /// The symbols.
    pub excluded: &'a [Excluded],
}

/// One inequality `M ≠ M_s` in commitment form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct InequalityProof {
    /// `Z = α·(M − M_s)`, never the identity.
    pub z: CompressedRistretto,
    /// `T1 = kα·Q − kβ·H`.
    pub t1: CompressedRistretto,
    /// `T2 = kα·Y − kβ·G`.
    pub t2: CompressedRistretto,
    /// `sα = kα + c·α`.
    pub s_alpha: ScalarBytes,
    /// `sβ = kβ + c·β`.
    pub s_beta: ScalarBytes,
}

/// The proof of a claim: one inequality per card and symbol, card by card (the symbols of
/// card 0 first), under one challenge.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NoneOfProof {
    /// The inequalities, `cards × excluded` of them.
    pub inequalities: Vec<InequalityProof>,
}

impl NoneOfProof {
    /// The encoded size of the proof's inequalities (160 bytes each).
    pub fn size_bytes(&self) -> usize {
        self.inequalities.len() * (3 * 32 + 2 * 32)
    }
}

/// The statement's part of the transcript: the owner's key, the cards, the symbols.
fn absorb(t: &mut Transcript, ctx: &ProofContext<'_>, st: &NoneOfStatement<'_>) {
    t.proof_domain(NONE_OF_LABEL, ctx);
    t.append_point(b"Y", &st.key.compressed);
    t.append_u64(b"cards", st.cards.len() as u64);
    for card in st.cards {
        t.append_u64(b"position", card.position as u64);
        t.append_point(b"c1", &card.ct.1.c1);
        t.append_point(b"c2", &card.ct.1.c2);
        t.append_point(b"P", &card.p.compress());
    }
    t.append_u64(b"excluded", st.excluded.len() as u64);
    for s in st.excluded {
        t.append_u64(b"symbol", u64::from(s.code));
    }
}

/// A prover's secrets for one inequality.
struct Witness {
    alpha: Scalar,
    beta: Scalar,
    k_alpha: Scalar,
    k_beta: Scalar,
}

fn nonzero<R: RngCore + CryptoRng>(rng: &mut R) -> Scalar {
    loop {
        let s = Scalar::random(rng);
        if s != Scalar::ZERO {
            return s;
        }
    }
}

/// Commits to one inequality: `(Z, T1, T2)` and the witness to answer with.
fn commit_inequality<R: RngCore + CryptoRng>(
    x: &Scalar,
    y: &RistrettoPoint,
    card: &ClaimedCard,
    m: &RistrettoPoint,
    s: &Excluded,
    rng: &mut R,
) -> (InequalityProof, Witness) {
    let alpha = nonzero(rng);
    let w = Witness {
        alpha,
        beta: alpha * x,
        k_alpha: Scalar::random(rng),
        k_beta: Scalar::random(rng),
    };
    let q = card.p - s.point;
    let h = card.ct.0.c1;
    let z = (m - s.point) * alpha;
    let t1 = RistrettoPoint::multiscalar_mul([w.k_alpha, -w.k_beta], [q, h]);
    let t2 = y * w.k_alpha - RISTRETTO_BASEPOINT_TABLE * &w.k_beta;
    let proof = InequalityProof {
        z: z.compress(),
        t1: t1.compress(),
        t2: t2.compress(),
        ..InequalityProof::default()
    };
    (proof, w)
}

/// Proves the claim with the owner's secret key `sk`; refuses ([`PokerError::HoldsExcluded`])
/// when a card is one of the symbols, for which no sound proof exists.
pub fn prove_none_of_with_rng<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    sk: &SecretKey,
    st: &NoneOfStatement<'_>,
    rng: &mut R,
) -> Result<NoneOfProof> {
    let x = sk.scalar();
    let cards: Vec<RistrettoPoint> = st.cards.iter().map(|c| c.p - c.ct.0.c1 * x).collect();
    for (card, m) in st.cards.iter().zip(&cards) {
        if st.excluded.iter().any(|s| s.point == *m) {
            return Err(PokerError::HoldsExcluded {
                player: ctx.player,
                position: card.position,
            });
        }
    }
    Ok(prove_unchecked(t, ctx, x, st, &cards, rng))
}

/// The prover without the check that the claim is true (the soundness tests call it on a false
/// claim).
fn prove_unchecked<R: RngCore + CryptoRng>(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    x: &Scalar,
    st: &NoneOfStatement<'_>,
    cards: &[RistrettoPoint],
    rng: &mut R,
) -> NoneOfProof {
    absorb(t, ctx, st);
    let mut proofs = Vec::with_capacity(st.cards.len() * st.excluded.len());
    let mut witnesses = Vec::with_capacity(proofs.capacity());
    for (card, m) in st.cards.iter().zip(cards) {
        for s in st.excluded {
            let (p, w) = commit_inequality(x, &st.key.point, card, m, s, rng);
            append_commitments(t, &p);
            proofs.push(p);
            witnesses.push(w);
        }
    }
    let c = t.challenge_scalar(b"c");
    for (p, w) in proofs.iter_mut().zip(&witnesses) {
        p.s_alpha = (w.k_alpha + c * w.alpha).into();
        p.s_beta = (w.k_beta + c * w.beta).into();
    }
    NoneOfProof {
        inequalities: proofs,
    }
}

fn append_commitments(t: &mut Transcript, p: &InequalityProof) {
    t.append_point(b"Z", &p.z);
    t.append_point(b"T1", &p.t1);
    t.append_point(b"T2", &p.t2);
}

/// One inequality decoded.
struct Decoded {
    z: RistrettoPoint,
    t1: RistrettoPoint,
    t2: RistrettoPoint,
    s_alpha: Scalar,
    s_beta: Scalar,
}

fn decode(p: &InequalityProof, player: facedown_core::PartyId) -> Result<Decoded> {
    if p.z == CompressedRistretto::identity() {
        // `Z = α·(M − M_s)` is the identity exactly when the card is the symbol.
        return Err(PokerError::IdentityPoint {
            player,
            item: Item::Proof,
        });
    }
    Ok(Decoded {
        z: decode_point(&p.z, player, Item::Proof)?,
        t1: decode_point(&p.t1, player, Item::Proof)?,
        t2: decode_point(&p.t2, player, Item::Proof)?,
        s_alpha: p.s_alpha.decode(player, Item::Proof)?,
        s_beta: p.s_beta.decode(player, Item::Proof)?,
    })
}

/// Verifies the claim's proof by `ctx.player`; every failure names him.
pub fn verify_none_of(
    t: &mut Transcript,
    ctx: &ProofContext<'_>,
    st: &NoneOfStatement<'_>,
    proof: &NoneOfProof,
) -> Result<()> {
    let player = ctx.player;
    let expected = st.cards.len() * st.excluded.len();
    if proof.inequalities.len() != expected {
        return Err(PokerError::WrongLength {
            player,
            what: "inequalities in a none-of proof",
            expected,
            got: proof.inequalities.len(),
        });
    }
    let decoded = proof
        .inequalities
        .iter()
        .map(|p| decode(p, player))
        .collect::<Result<Vec<_>>>()?;
    absorb(t, ctx, st);
    for p in &proof.inequalities {
        append_commitments(t, p);
    }
    let c = t.challenge_scalar(b"c");
    // The batch weights come after the responses, so the prover knows none of them.
    for d in &decoded {
        t.append_scalar(b"s_alpha", &d.s_alpha);
        t.append_scalar(b"s_beta", &d.s_beta);
    }
    if combined_check(t, st, &decoded, &c) {
        Ok(())
    } else {
        Err(PokerError::InvalidProof {
            player,
            kind: ProofKind::NoneOf,
        })
    }
}

/// Every equation, weighted (`u_k` for the first of inequality `k`, `v_k` for the second), as
/// one multiscalar multiplication: the sum is the identity if every equation holds, and
/// otherwise with probability about `1/ℓ`.
fn combined_check(
    t: &mut Transcript,
    st: &NoneOfStatement<'_>,
    decoded: &[Decoded],
    c: &Scalar,
) -> bool {
    let m = st.excluded.len();
    let capacity = 2 * st.cards.len() + m + 2 + 3 * decoded.len();
    let (mut scalars, mut points) = (Vec::with_capacity(capacity), Vec::with_capacity(capacity));
    let mut symbols = vec![Scalar::ZERO; m];
    let (mut on_y, mut on_g) = (Scalar::ZERO, Scalar::ZERO);
    for (j, card) in st.cards.iter().enumerate() {
        let (mut on_p, mut on_h) = (Scalar::ZERO, Scalar::ZERO);
        for (k, d) in decoded[j * m..(j + 1) * m].iter().enumerate() {
            let u = t.challenge_scalar(b"weight");
            let v = t.challenge_scalar(b"weight");
            // u·(sα·P − sα·M_s − sβ·H − T1 − c·Z) + v·(sα·Y − sβ·G − T2)
            on_p += u * d.s_alpha;
            symbols[k] -= u * d.s_alpha;
            on_h -= u * d.s_beta;
            on_y += v * d.s_alpha;
            on_g -= v * d.s_beta;
            scalars.extend([-u, -(u * c), -v]);
            points.extend([d.t1, d.z, d.t2]);
        }
        scalars.extend([on_p, on_h]);
        points.extend([card.p, card.ct.0.c1]);
    }
    scalars.extend(symbols);
    points.extend(st.excluded.iter().map(|s| s.point));
    scalars.extend([on_y, on_g]);
    points.extend([st.key.point, RISTRETTO_BASEPOINT_POINT]);
    vartime_msm(&scalars, &points) == RistrettoPoint::identity()
}

#[cfg(test)]
mod tests {
    //! Soundness on the edge cases: a card equal to an excluded symbol has no accepted proof,
    //! whether the prover publishes the honest `Z` (the identity) or a `Z` with `β ≠ α·x`.
    use super::*;
    use crate::elgamal::card_point;
    use crate::keys::joint_key;
    use facedown_core::{rng::seeded_rng, PartyId};

    struct Setup {
        owner: SecretKey,
        key: PublicKey,
        cards: Vec<ClaimedCard>,
        held: Vec<RistrettoPoint>,
    }

    const CTX: ProofContext<'static> = ProofContext {
        session: b"legal unit tests",
        round: 3,
        player: PartyId(2),
    };

    /// Two players; player 2 owns cards `codes`, encrypted under the joint key.
    fn setup(codes: &[u16]) -> Setup {
        let mut rng = seeded_rng(60);
        let other = SecretKey::random_with_rng(&mut rng);
        let owner = SecretKey::random_with_rng(&mut rng);
        let joint = joint_key(&[*other.public(), *owner.public()]).expect("nonzero");
        let mut cards = Vec::new();
        let mut held = Vec::new();
        for (position, &code) in codes.iter().enumerate() {
            let m = card_point(code);
            let ct = joint.encrypt(&m, &Scalar::random(&mut rng));
            let p = ct.c2 - ct.c1 * other.scalar();
            cards.push(ClaimedCard {
                position,
                ct: (ct, ct.compress()),
                p,
            });
            held.push(m);
        }
        Setup {
            key: *owner.public(),
            owner,
            cards,
            held,
        }
    }

    fn symbols(codes: &[u16]) -> Vec<Excluded> {
        codes
            .iter()
            .map(|&code| Excluded {
                code,
                point: card_point(code),
            })
            .collect()
    }

    fn t() -> Transcript {
        Transcript::new(b"legal unit tests")
    }

    #[test]
    fn an_honest_claim_verifies() {
        let s = setup(&[4, 5, 6]);
        let excluded = symbols(&[7, 8]);
        let st = NoneOfStatement {
            key: &s.key,
            cards: &s.cards,
            excluded: &excluded,
        };
        let proof = prove_none_of_with_rng(&mut t(), &CTX, &s.owner, &st, &mut seeded_rng(61))
            .expect("true claim");
        assert_eq!(proof.inequalities.len(), 6);
        assert_eq!(verify_none_of(&mut t(), &CTX, &st, &proof), Ok(()));
    }

    #[test]
    fn a_card_equal_to_an_excluded_symbol_gives_the_identity_and_is_rejected() {
        let s = setup(&[4, 5]);
        let excluded = symbols(&[5, 9]);
        let st = NoneOfStatement {
            key: &s.key,
            cards: &s.cards,
            excluded: &excluded,
        };
        assert_eq!(
            prove_none_of_with_rng(&mut t(), &CTX, &s.owner, &st, &mut seeded_rng(62)),
            Err(PokerError::HoldsExcluded {
                player: PartyId(2),
                position: 1
            })
        );
        // The honest algorithm run anyway: card 1 against symbol 5 has Z = α·0.
        let proof = prove_unchecked(
            &mut t(),
            &CTX,
            s.owner.scalar(),
            &st,
            &s.held,
            &mut seeded_rng(63),
        );
        assert_eq!(proof.inequalities[2].z, CompressedRistretto::identity());
        assert_eq!(
            verify_none_of(&mut t(), &CTX, &st, &proof),
            Err(PokerError::IdentityPoint {
                player: PartyId(2),
                item: Item::Proof
            })
        );
    }

    #[test]
    fn a_nonzero_z_for_an_equal_card_needs_beta_other_than_alpha_x_and_fails() {
        let s = setup(&[5]);
        let excluded = symbols(&[5]);
        let st = NoneOfStatement {
            key: &s.key,
            cards: &s.cards,
            excluded: &excluded,
        };
        // The forger answers honestly for (α, β) with β = α·x + 1, so that Z = −H ≠ 0 and the
        // first equation holds; the second cannot.
        let mut rng = seeded_rng(64);
        let x = s.owner.scalar();
        let alpha = nonzero(&mut rng);
        let beta = alpha * x + Scalar::ONE;
        let (k_alpha, k_beta) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
        let card = &s.cards[0];
        let (q, h) = (card.p - excluded[0].point, card.ct.0.c1);
        let z = q * alpha - h * beta;
        assert_ne!(z, RistrettoPoint::identity());
        let mut tp = t();
        absorb(&mut tp, &CTX, &st);
        let mut p = InequalityProof {
            z: z.compress(),
            t1: (q * k_alpha - h * k_beta).compress(),
            t2: (s.key.point * k_alpha - RISTRETTO_BASEPOINT_POINT * k_beta).compress(),
            ..InequalityProof::default()
        };
        append_commitments(&mut tp, &p);
        let c = tp.challenge_scalar(b"c");
        p.s_alpha = (k_alpha + c * alpha).into();
        p.s_beta = (k_beta + c * beta).into();
        let proof = NoneOfProof {
            inequalities: vec![p],
        };
        assert_eq!(
            verify_none_of(&mut t(), &CTX, &st, &proof),
            Err(PokerError::InvalidProof {
                player: PartyId(2),
                kind: ProofKind::NoneOf
            })
        );
    }
}
