//! Key generation: secret shares `x_i`, public shares `Y_i = x_i·G` with a Schnorr \[Sch91\] proof of
//! knowledge (made non-interactive by Fiat–Shamir \[FS86\]), and the joint key `Y = Σ Y_i`.
//!
//! The proof of knowledge is what stops a *rogue key*: without it, the last player to announce
//! could publish `Y* − Σ_{j≠i} Y_j` for a `Y*` whose secret it knows, and decrypt alone. The proof
//! is bound to the session, the round and the player (they open its transcript), so replaying
//! another player's or another session's proof fails.

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_TABLE;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::Identity;
use facedown_core::PartyId;
use merlin::Transcript;
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};

use crate::elgamal::JointKey;
use crate::encoding::{decode_nonidentity_point, ScalarBytes};
use crate::errors::{Item, PokerError, ProofKind, Result};
use crate::transcript::{ProofContext, TranscriptProtocol};

const KEYGEN_LABEL: &[u8] = b"facedown-poker/keygen/v1";

/// A player's secret key share `x_i` (never leaves the player).
#[derive(Clone)]
pub struct SecretKey {
    x: Scalar,
    public: PublicKey,
}

impl core::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SecretKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

/// A verified public key share `Y_i` (decompressed, not the identity).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PublicKey {
    /// `Y_i`.
    pub point: RistrettoPoint,
    /// `Y_i`, compressed.
    pub compressed: CompressedRistretto,
}

/// A Schnorr proof of knowledge of `x_i` with `Y_i = x_i·G`: `(c, s)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SchnorrProof {
    /// The challenge.
    pub c: ScalarBytes,
    /// The response `s = k + c·x_i`.
    pub s: ScalarBytes,
}

/// What a player announces in key generation: its public share and the proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct KeyShare {
    /// The announcing player.
    pub player: PartyId,
    /// `Y_i`, compressed.
    pub key: CompressedRistretto,
    /// Proof of knowledge of `x_i`.
    pub proof: SchnorrProof,
}

impl SecretKey {
    /// A fresh uniformly random nonzero secret share.
    pub fn random_with_rng<R: RngCore + CryptoRng>(rng: &mut R) -> SecretKey {
        loop {
            let x = Scalar::random(rng);
            if x != Scalar::ZERO {
                return SecretKey::from_scalar_unchecked(x);
            }
        }
    }

    fn from_scalar_unchecked(x: Scalar) -> SecretKey {
        let point = RISTRETTO_BASEPOINT_TABLE * &x;
        SecretKey {
            x,
            public: PublicKey {
                point,
                compressed: point.compress(),
            },
        }
    }

    /// The secret scalar (for the local steps of this crate).
    pub(crate) fn scalar(&self) -> &Scalar {
        &self.x
    }

    /// The public share.
    pub fn public(&self) -> &PublicKey {
        &self.public
    }

    /// The key-generation announcement with a Schnorr proof bound to `ctx` (whose `player` must
    /// be the owner of this key).
    pub fn key_share_with_rng<R: RngCore + CryptoRng>(
        &self,
        t: &mut Transcript,
        ctx: &ProofContext<'_>,
        rng: &mut R,
    ) -> KeyShare {
        t.proof_domain(KEYGEN_LABEL, ctx);
        t.append_point(b"Y_i", &self.public.compressed);
        let k = Scalar::random(rng);
        let r = RISTRETTO_BASEPOINT_TABLE * &k;
        t.append_point(b"R", &r.compress());
        let c = t.challenge_scalar(b"c");
        KeyShare {
            player: ctx.player,
            key: self.public.compressed,
            proof: SchnorrProof {
                c: c.into(),
                s: (k + c * self.x).into(),
            },
        }
    }
}

impl KeyShare {
    /// Verifies the share in context `ctx` (whose `player` must be the announced one) and returns
    /// the public key. Rejects the identity, non-canonical encodings and invalid proofs.
    pub fn verify(&self, t: &mut Transcript, ctx: &ProofContext<'_>) -> Result<PublicKey> {
        let player = self.player;
        if player != ctx.player {
            return Err(PokerError::UnexpectedMessage {
                player,
                reason: "key share announced for another player",
            });
        }
        let point = decode_nonidentity_point(&self.key, player, Item::PublicKey)?;
        let c = self.proof.c.decode(player, Item::Proof)?;
        let s = self.proof.s.decode(player, Item::Proof)?;
        t.proof_domain(KEYGEN_LABEL, ctx);
        t.validate_and_append_point(b"Y_i", &self.key, player, Item::PublicKey)?;
        let r = RistrettoPoint::vartime_double_scalar_mul_basepoint(&-c, &point, &s);
        t.append_point(b"R", &r.compress());
        if t.challenge_scalar(b"c") != c {
            return Err(PokerError::InvalidProof {
                player,
                kind: ProofKind::KeyOwnership,
            });
        }
        Ok(PublicKey {
            point,
            compressed: self.key,
        })
    }
}

/// The joint key `Y = Σ Y_i` of verified shares. Fails if the sum is the identity (which honest
/// shares reach with probability ~1/ℓ, and which would make every ciphertext readable).
pub fn joint_key(shares: &[PublicKey]) -> Result<JointKey> {
    let y: RistrettoPoint = shares.iter().map(|k| k.point).sum();
    if y == RistrettoPoint::identity() {
        return Err(PokerError::InvalidParameters(
            "the key shares sum to the identity".to_owned(),
        ));
    }
    Ok(JointKey::from_point(y))
}
