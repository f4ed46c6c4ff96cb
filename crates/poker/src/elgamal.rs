//! ElGamal over ristretto255 under the joint key, card encoding and decks.
//!
//! A card `c` is the point `M_c = hash_to_group("facedown-poker/card/v1" ‖ c)` (SHA3-512 and the
//! ristretto Elligator map, [`RistrettoPoint::hash_from_bytes`]); nobody knows a discrete-log
//! relation between card points. A ciphertext under the joint key `Y` is `(c1, c2) = (r·G,
//! M + r·Y)`; the *open masking* `(0, M)` is the public starting deck; re-randomising adds an
//! encryption of zero `(ρ·G, ρ·Y)`. Decryption needs every player's token `x_i·c1`:
//! `M = c2 − Σ x_i·c1` \[BS03\].

use std::collections::HashMap;

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_TABLE;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoBasepointTable, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::Identity;
use facedown_core::PartyId;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha3::Sha3_512;

use crate::encoding::decode_point;
use crate::errors::{Item, PokerError, Result};

/// Domain label of the card encoding.
const CARD_LABEL: &[u8] = b"facedown-poker/card/v1";

/// The fewest cards a parallel task compresses or decompresses (about 10 µs each).
const CARDS_PER_TASK: usize = 8;

/// An ElGamal ciphertext `(c1, c2)` of a card point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ciphertext {
    /// `r·G`.
    pub c1: RistrettoPoint,
    /// `M + r·Y`.
    pub c2: RistrettoPoint,
}

impl Ciphertext {
    /// The open masking `(0, M)` of a point: a "ciphertext" everyone can read.
    pub fn open(m: RistrettoPoint) -> Ciphertext {
        Ciphertext {
            c1: RistrettoPoint::identity(),
            c2: m,
        }
    }

    /// Compresses both components.
    pub fn compress(&self) -> CompressedCiphertext {
        CompressedCiphertext {
            c1: self.c1.compress(),
            c2: self.c2.compress(),
        }
    }
}

impl core::ops::Add for Ciphertext {
    type Output = Ciphertext;
    fn add(self, o: Ciphertext) -> Ciphertext {
        Ciphertext {
            c1: self.c1 + o.c1,
            c2: self.c2 + o.c2,
        }
    }
}

impl core::ops::Sub for Ciphertext {
    type Output = Ciphertext;
    fn sub(self, o: Ciphertext) -> Ciphertext {
        Ciphertext {
            c1: self.c1 - o.c1,
            c2: self.c2 - o.c2,
        }
    }
}

/// A ciphertext on the wire: both components compressed (64 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CompressedCiphertext {
    /// Compressed `c1`.
    pub c1: CompressedRistretto,
    /// Compressed `c2`.
    pub c2: CompressedRistretto,
}

impl CompressedCiphertext {
    /// Decompresses, rejecting non-canonical encodings as coming from `player`. The identity is
    /// allowed (the open masking has `c1 = 0`).
    pub fn decompress(&self, player: PartyId) -> Result<Ciphertext> {
        Ok(Ciphertext {
            c1: decode_point(&self.c1, player, Item::Ciphertext)?,
            c2: decode_point(&self.c2, player, Item::Ciphertext)?,
        })
    }
}

/// A deck: ciphertexts in both forms, kept consistent by construction (the compressed form is
/// what transcripts absorb and what goes on the wire; the decompressed form is what the
/// arithmetic uses).
///
/// Compressing and decompressing a deck — an inverse square root per point, the largest cost
/// after the multiscalar multiplications — run on the current rayon pool; the result does not
/// depend on the number of threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deck {
    cts: Vec<Ciphertext>,
    wire: Vec<CompressedCiphertext>,
}

impl Deck {
    /// A deck from ciphertexts (compresses each).
    pub fn from_ciphertexts(cts: Vec<Ciphertext>) -> Deck {
        let wire = cts
            .par_iter()
            .with_min_len(CARDS_PER_TASK)
            .map(Ciphertext::compress)
            .collect();
        Deck { cts, wire }
    }

    /// A deck from ciphertexts and their compressed forms, which the caller keeps consistent
    /// (both taken from decks, never computed apart).
    pub(crate) fn from_parts(cts: Vec<Ciphertext>, wire: Vec<CompressedCiphertext>) -> Deck {
        Deck { cts, wire }
    }

    /// Decodes a deck received from `player`. (Every decoding error names `player` and the
    /// item, so which card fails first does not change the error.)
    pub fn decode(wire: Vec<CompressedCiphertext>, player: PartyId) -> Result<Deck> {
        let cts = wire
            .par_iter()
            .with_min_len(CARDS_PER_TASK)
            .map(|w| w.decompress(player))
            .collect::<Result<Vec<_>>>()?;
        Ok(Deck { cts, wire })
    }

    /// The open (unencrypted) deck `(0, M_0), …, (0, M_{n−1})` in card order.
    pub fn open_deck(cards: &CardEncoding) -> Deck {
        Deck::from_ciphertexts(cards.points.iter().map(|m| Ciphertext::open(*m)).collect())
    }

    /// The ciphertexts.
    pub fn ciphertexts(&self) -> &[Ciphertext] {
        &self.cts
    }

    /// The compressed ciphertexts.
    pub fn wire(&self) -> &[CompressedCiphertext] {
        &self.wire
    }

    /// The number of cards.
    pub fn len(&self) -> usize {
        self.cts.len()
    }

    /// Whether the deck has no cards.
    pub fn is_empty(&self) -> bool {
        self.cts.is_empty()
    }

    /// The ciphertext at `position`.
    pub fn get(&self, position: usize) -> Result<&Ciphertext> {
        self.cts
            .get(position)
            .ok_or(PokerError::PositionOutOfRange {
                position,
                len: self.cts.len(),
            })
    }
}

/// The card encoding `c ↦ M_c` for a deck of `n` cards, with a reverse lookup table.
#[derive(Clone, Debug)]
pub struct CardEncoding {
    points: Vec<RistrettoPoint>,
    lookup: HashMap<CompressedRistretto, u16>,
}

impl CardEncoding {
    /// The encoding of cards `0..n`.
    pub fn new(n: u16) -> CardEncoding {
        let points: Vec<RistrettoPoint> = (0..n).map(card_point).collect();
        let lookup = points
            .iter()
            .zip(0..n)
            .map(|(p, c)| (p.compress(), c))
            .collect();
        CardEncoding { points, lookup }
    }

    /// The number of cards.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether there are no cards.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// `M_c`, if `c` is a card of this deck.
    pub fn point(&self, card: u16) -> Option<RistrettoPoint> {
        self.points.get(usize::from(card)).copied()
    }

    /// The card a point encodes, if any.
    pub fn card(&self, point: &RistrettoPoint) -> Option<u16> {
        self.lookup.get(&point.compress()).copied()
    }
}

/// `M_c`: the point of card `c`, by hash-to-group from a public label (no party chooses it).
pub fn card_point(card: u16) -> RistrettoPoint {
    let mut input = CARD_LABEL.to_vec();
    input.extend_from_slice(&card.to_le_bytes());
    RistrettoPoint::hash_from_bytes::<Sha3_512>(&input)
}

/// The joint public key `Y = Σ Y_i`, with a precomputed table for fast fixed-base
/// multiplication (re-encryption computes `ρ·Y` for every card).
#[derive(Clone)]
pub struct JointKey {
    point: RistrettoPoint,
    compressed: CompressedRistretto,
    table: RistrettoBasepointTable,
}

impl core::fmt::Debug for JointKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("JointKey").field(&self.compressed).finish()
    }
}

impl JointKey {
    /// The joint key of a point `Y` (normally the sum of the verified key shares, see
    /// [`crate::keys::joint_key`]).
    pub fn from_point(point: RistrettoPoint) -> JointKey {
        JointKey {
            point,
            compressed: point.compress(),
            table: RistrettoBasepointTable::create(&point),
        }
    }

    /// `Y`.
    pub fn point(&self) -> &RistrettoPoint {
        &self.point
    }

    /// `Y`, compressed.
    pub fn compressed(&self) -> &CompressedRistretto {
        &self.compressed
    }

    /// An encryption of zero with randomness `r`: `(r·G, r·Y)`, in constant time.
    pub fn zero_encryption(&self, r: &Scalar) -> Ciphertext {
        Ciphertext {
            c1: RISTRETTO_BASEPOINT_TABLE * r,
            c2: &self.table * r,
        }
    }

    /// Encrypts the point `m` with randomness `r`: `(r·G, m + r·Y)`.
    pub fn encrypt(&self, m: &RistrettoPoint, r: &Scalar) -> Ciphertext {
        let z = self.zero_encryption(r);
        Ciphertext {
            c1: z.c1,
            c2: z.c2 + m,
        }
    }
}
