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

    /// The open (unencrypted) deck `(0, M_c)` for every code `c` of `cards`, in code order.
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

/// The card encoding `c ↦ M_c` for a set of card codes, with a reverse lookup table.
///
/// The set need not be a range: a multiset deck's kinds have codes from `0xFF00` up
/// ([`facedown_core::Symbol::code`]), and an encoding of `0..0xFF02` would hash 65 282 points
/// to the group where two suffice.
#[derive(Clone, Debug)]
pub struct CardEncoding {
    /// The codes, increasing.
    codes: Vec<u16>,
    /// `M_c` for each code, in the same order.
    points: Vec<RistrettoPoint>,
    lookup: HashMap<CompressedRistretto, u16>,
}

impl CardEncoding {
    /// The encoding of cards `0..n`.
    pub fn new(n: u16) -> CardEncoding {
        CardEncoding::of_codes((0..n).collect())
    }

    /// The encoding of exactly the cards `codes` (sorted and deduplicated here).
    pub fn of_codes(mut codes: Vec<u16>) -> CardEncoding {
        codes.sort_unstable();
        codes.dedup();
        let points: Vec<RistrettoPoint> = codes.iter().map(|&c| card_point(c)).collect();
        let lookup = points
            .iter()
            .zip(&codes)
            .map(|(p, &c)| (p.compress(), c))
            .collect();
        CardEncoding {
            codes,
            points,
            lookup,
        }
    }

    /// The codes this encoding covers, increasing.
    pub fn codes(&self) -> &[u16] {
        &self.codes
    }

    /// Whether card `code` is covered.
    pub fn contains(&self, code: u16) -> bool {
        self.codes.binary_search(&code).is_ok()
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
        let at = self.codes.binary_search(&card).ok()?;
        self.points.get(at).copied()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_encoding_of_scattered_codes_covers_exactly_those_codes() {
        let kind = 0xFF01;
        let cards = CardEncoding::of_codes(vec![kind, 1, 0, 1]);
        assert_eq!(cards.codes(), [0, 1, kind]);
        assert_eq!(cards.len(), 3);
        for &c in cards.codes() {
            let m = cards.point(c).expect("covered");
            assert_eq!(m, card_point(c), "the same point as in a dense encoding");
            assert_eq!(cards.card(&m), Some(c));
        }
        assert!(!cards.contains(2) && cards.point(2).is_none());
        assert_eq!(cards.card(&card_point(2)), None);
    }
}
