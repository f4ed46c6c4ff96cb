//! Hash commitments to permutations, as in the seed: a hash of the number `X + k·n!`.
//!
//! Player `j` commits to each permutation he draws by publishing
//!
//! ```text
//! c = SHA3-256( "facedown-dealer/commit/v1" ‖ n:u32 ‖ j:u16 ‖ slot:3 bytes ‖ W:u32 ‖ V )
//! V = X + k · n!        written big-endian in exactly W = ⌈(bits(n!) + 256) / 8⌉ bytes
//! ```
//!
//! where `X` is the permutation's [rank](crate::rank) and `k` a 256-bit salt. Since `0 ≤ X < n!`
//! and `0 ≤ k < 2^256`, `V < 2^256·n!` fits in `W` bytes, and `V` determines `(X, k)` uniquely
//! (`X = V mod n!`, `k = V div n!`): the commitment is binding as long as SHA3-256 is collision
//! resistant, and hiding because `k` has 256 bits of entropy.
//!
//! Three pitfalls of the published text are enforced here and pinned by tests:
//!
//! * the verifier **checks `X < n!`** — otherwise `(X + n!, k − 1)` opens the same commitment;
//! * the multiplier is `n!`, **not `n`** — with `k·n` two different permutations `X` and `X + n`
//!   open the same value;
//! * the salt is 256 bits and the encoding fixed-width, so small decks cannot be brute-forced and
//!   no two `(n, V)` share a byte string.
//!
//! Binding the committer's number and slot into the hash (beyond the seed) stops one player from
//! replaying another's commitment as his own.
//!
//! Part of the permutation-sharing dealer \[perm-sharing-dealer\]; see the [crate docs](crate).

use facedown_core::PartyId;
use num_bigint::BigUint;
use num_traits::CheckedSub;
use rand::{CryptoRng, RngCore};
use serde::{Deserialize, Serialize};
use sha3::{Digest, Sha3_256};

use crate::hexser;
use crate::rank::factorial;
use crate::scheme::Slot;

/// Domain-separation label of commitments.
pub const COMMIT_LABEL: &[u8] = b"facedown-dealer/commit/v1";

/// The salt `k`: 256 bits, read as a big-endian integer.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Salt(#[serde(with = "hexser")] pub [u8; 32]);

impl Salt {
    /// A fresh uniformly random salt.
    pub fn random_with_rng<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Salt {
        let mut k = [0u8; 32];
        rng.fill_bytes(&mut k);
        Salt(k)
    }

    /// `k` as an integer.
    pub fn value(&self) -> BigUint {
        BigUint::from_bytes_be(&self.0)
    }
}

impl core::fmt::Debug for Salt {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Salt({})", hex::encode(self.0))
    }
}

/// A published commitment (the SHA3-256 digest).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Commitment(#[serde(with = "hexser")] pub [u8; 32]);

impl core::fmt::Debug for Commitment {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Commitment({})", hex::encode(self.0))
    }
}

/// Why an opening does not match a commitment.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommitError {
    /// The opened ordinal is not below `n!`.
    #[error("ordinal is not below n!")]
    RankOutOfRange,
    /// The hash of the opening differs from the commitment.
    #[error("opening does not match the commitment")]
    Mismatch,
}

/// The width `W` in bytes of the encoding of `V = X + k·n!` for a deck of `n` cards.
pub fn encoding_width(n: usize) -> usize {
    (factorial(n).bits() as usize + 256).div_ceil(8)
}

/// The committed number `V = X + k·n!` (no range check: see [`verify`]).
pub fn committed_value(n: usize, rank: &BigUint, salt: &Salt) -> BigUint {
    rank + salt.value() * factorial(n)
}

/// The canonical fixed-width big-endian encoding of `V` in [`encoding_width`]`(n)` bytes, or
/// `None` when `V` does not fit (only possible for an out-of-range rank).
pub fn encode_value(n: usize, v: &BigUint) -> Option<Vec<u8>> {
    let width = encoding_width(n);
    let bytes = v.to_bytes_be();
    if bytes.len() > width {
        return None;
    }
    let mut out = vec![0u8; width - bytes.len()];
    out.extend_from_slice(&bytes);
    Some(out)
}

fn digest(n: usize, party: PartyId, slot: Slot, encoded: &[u8]) -> Commitment {
    let mut h = Sha3_256::new();
    h.update(COMMIT_LABEL);
    h.update((n as u32).to_be_bytes());
    h.update(party.0.to_be_bytes());
    h.update(slot.code());
    h.update((encoded.len() as u32).to_be_bytes());
    h.update(encoded);
    Commitment(h.finalize().into())
}

/// Commits party `party` to the permutation of rank `rank` in `slot`, with salt `salt`.
///
/// Returns `None` if `rank ≥ n!` (an honest committer never asks for that).
pub fn commit(
    n: usize,
    party: PartyId,
    slot: Slot,
    rank: &BigUint,
    salt: &Salt,
) -> Option<Commitment> {
    if *rank >= factorial(n) {
        return None;
    }
    let encoded = encode_value(n, &committed_value(n, rank, salt))?;
    Some(digest(n, party, slot, &encoded))
}

/// Checks an opening `(rank, salt)` of `commitment`, **enforcing `0 ≤ rank < n!`**.
pub fn verify(
    commitment: &Commitment,
    n: usize,
    party: PartyId,
    slot: Slot,
    rank: &BigUint,
    salt: &Salt,
) -> Result<(), CommitError> {
    if *rank >= factorial(n) {
        return Err(CommitError::RankOutOfRange);
    }
    match commit(n, party, slot, rank, salt) {
        Some(c) if c == *commitment => Ok(()),
        _ => Err(CommitError::Mismatch),
    }
}

/// A commitment with the pitfalls exposed, for experiments (`facedown dealer commit-attack`):
/// the multiplier of the salt, whether the verifier checks `X < n!`, and the salt's length.
/// [`Experiment::honest`] is the scheme as implemented ([`commit`] and [`verify`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Experiment {
    /// The multiplier `M` of `V = X + k·M`; `None` is `n!`.
    pub multiplier: Option<BigUint>,
    /// Whether the verifier refuses `X ≥ n!`.
    pub range_check: bool,
    /// Bits of salt: `0 ≤ k < 2^salt_bits`.
    pub salt_bits: u32,
}

/// Two openings of one commitment to different permutations, both accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Equivocation {
    /// The committed number `V`.
    pub value: BigUint,
    /// The honest opening `(X, k)`.
    pub first: (BigUint, BigUint),
    /// The second opening `(X', k')`, `X' ≠ X`.
    pub second: (BigUint, BigUint),
}

impl Experiment {
    /// The parameters of the scheme: `M = n!`, the range check, 256 bits of salt.
    pub fn honest() -> Experiment {
        Experiment {
            multiplier: None,
            range_check: true,
            salt_bits: 256,
        }
    }

    fn multiplier_for(&self, n: usize) -> BigUint {
        self.multiplier.clone().unwrap_or_else(|| factorial(n))
    }

    /// The width of the encoding of `V`: the scheme's [`encoding_width`] for the honest
    /// parameters, else wide enough for any `X < n! + M` and `k < 2^salt_bits`.
    fn width(&self, n: usize) -> usize {
        if *self == Experiment::honest() {
            return encoding_width(n);
        }
        let bits = factorial(n).bits() + self.multiplier_for(n).bits() + 1;
        (bits as usize + self.salt_bits as usize).div_ceil(8)
    }

    /// Commits to `(x, k)` (no checks: the experiment commits whatever it is given).
    pub fn commit(
        &self,
        n: usize,
        party: PartyId,
        slot: Slot,
        x: &BigUint,
        k: &BigUint,
    ) -> Option<Commitment> {
        let v = x + k * self.multiplier_for(n);
        let bytes = v.to_bytes_be();
        let width = self.width(n);
        if bytes.len() > width {
            return None;
        }
        let mut encoded = vec![0u8; width - bytes.len()];
        encoded.extend_from_slice(&bytes);
        Some(digest(n, party, slot, &encoded))
    }

    /// The verifier under these parameters.
    pub fn verify(
        &self,
        c: &Commitment,
        n: usize,
        party: PartyId,
        slot: Slot,
        x: &BigUint,
        k: &BigUint,
    ) -> Result<(), CommitError> {
        if self.range_check && *x >= factorial(n) {
            return Err(CommitError::RankOutOfRange);
        }
        if k.bits() > u64::from(self.salt_bits) {
            return Err(CommitError::Mismatch);
        }
        match self.commit(n, party, slot, x, k) {
            Some(d) if d == *c => Ok(()),
            _ => Err(CommitError::Mismatch),
        }
    }

    /// A second opening of the commitment to `(x, k)` that the verifier accepts: `(X ± M,
    /// k ∓ 1)` gives the same `V`; `None` when neither is accepted (the honest parameters).
    pub fn equivocate(
        &self,
        n: usize,
        party: PartyId,
        slot: Slot,
        x: &BigUint,
        k: &BigUint,
    ) -> Option<Equivocation> {
        let m = self.multiplier_for(n);
        let c = self.commit(n, party, slot, x, k)?;
        let mut candidates = vec![(x + &m, k.checked_sub(&BigUint::from(1u32)))];
        if *x >= m {
            candidates.push((x - &m, Some(k + 1u32)));
        }
        candidates.into_iter().find_map(|(x2, k2)| {
            let k2 = k2?;
            self.verify(&c, n, party, slot, &x2, &k2).ok()?;
            Some(Equivocation {
                value: x + k * &m,
                first: (x.clone(), k.clone()),
                second: (x2, k2),
            })
        })
    }

    /// Recovers the committed permutation by trying every salt and every ordinal, as an
    /// attacker who sees only `c` would: the opening found and the number of hashes tried.
    /// `None` (nothing tried) for salts of 64 bits or more, which no one can enumerate.
    pub fn brute_force(
        &self,
        c: &Commitment,
        n: usize,
        party: PartyId,
        slot: Slot,
    ) -> (Option<(BigUint, BigUint)>, u64) {
        if self.salt_bits >= 64 {
            return (None, 0);
        }
        let perms = factorial(n);
        let mut tried = 0u64;
        for k in 0..1u64 << self.salt_bits {
            let k = BigUint::from(k);
            let mut x = BigUint::from(0u32);
            while x < perms {
                tried += 1;
                if self.commit(n, party, slot, &x, &k).as_ref() == Some(c) {
                    return (Some((x, k)), tried);
                }
                x += 1u32;
            }
        }
        (None, tried)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::{rank, unrank};
    use facedown_core::Perm;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn salt_minus_one(s: &Salt) -> Salt {
        let v = s.value() - 1u32;
        let bytes = v.to_bytes_be();
        let mut out = [0u8; 32];
        out[32 - bytes.len()..].copy_from_slice(&bytes);
        Salt(out)
    }

    #[test]
    fn honest_opening_verifies_and_wrong_ones_do_not() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let n = 52;
        let p = Perm::random_with_rng(n, &mut rng);
        let salt = Salt::random_with_rng(&mut rng);
        let slot = Slot::Deal(PartyId(2));
        let c = commit(n, PartyId(2), slot, &rank(&p), &salt).expect("in range");
        assert_eq!(verify(&c, n, PartyId(2), slot, &rank(&p), &salt), Ok(()));
        let other = rank(&p) + 1u32;
        assert_eq!(
            verify(&c, n, PartyId(2), slot, &other, &salt),
            Err(CommitError::Mismatch)
        );
        // Bound to the committer and the slot.
        assert!(verify(&c, n, PartyId(1), Slot::Deal(PartyId(1)), &rank(&p), &salt).is_err());
        assert!(verify(&c, n, PartyId(2), Slot::Outer(0), &rank(&p), &salt).is_err());
    }

    #[test]
    fn pitfall_rank_plus_n_factorial_with_salt_minus_one_is_rejected() {
        // The seed's number X + k·n! equals (X + n!) + (k − 1)·n!: without the range check the
        // second pair would open the same commitment to a "different" ordinal.
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        for n in [3usize, 8, 37, 52] {
            let x = rank(&Perm::random_with_rng(n, &mut rng));
            let k = Salt::random_with_rng(&mut rng);
            let c = commit(n, PartyId(1), Slot::Deal(PartyId(1)), &x, &k).expect("in range");
            let forged_x = &x + factorial(n);
            let forged_k = salt_minus_one(&k);
            assert_eq!(
                committed_value(n, &x, &k),
                committed_value(n, &forged_x, &forged_k),
                "the same committed number"
            );
            assert_eq!(
                verify(
                    &c,
                    n,
                    PartyId(1),
                    Slot::Deal(PartyId(1)),
                    &forged_x,
                    &forged_k
                ),
                Err(CommitError::RankOutOfRange)
            );
            assert!(unrank(n, &forged_x).is_err());
        }
    }

    #[test]
    fn pitfall_multiplier_n_instead_of_n_factorial_does_not_bind() {
        // With V = X + k·n, the ordinals X and X + n (both valid permutations for n ≥ 3) and the
        // salts k and k − 1 give the same number, so a committer could open either.
        let n = 5usize;
        let x = BigUint::from(7u32);
        let k = BigUint::from(1000u32);
        let with_n = |x: &BigUint, k: &BigUint| x + k * n;
        let x2 = &x + n;
        assert!(x2 < factorial(n));
        assert_ne!(
            unrank(n, &x).expect("valid"),
            unrank(n, &x2).expect("valid")
        );
        assert_eq!(with_n(&x, &k), with_n(&x2, &(&k - 1u32)));
        // With n! the decomposition is unique: V mod n! recovers X.
        let s = Salt([7u8; 32]);
        let v = committed_value(n, &x, &s);
        assert_eq!(&v % factorial(n), x);
        assert_eq!(v / factorial(n), s.value());
    }

    #[test]
    fn known_answer_vector_from_an_independent_implementation() {
        // Computed from the specification in the module docs with Python's hashlib.sha3_256:
        // n = 5, party 2, slot A2 (code 00 00 02), X = 7, k = 0x00 01 02 … 1f, W = 33.
        let salt = Salt(core::array::from_fn(|i| i as u8));
        assert_eq!(encoding_width(5), 33);
        let c = commit(
            5,
            PartyId(2),
            Slot::Deal(PartyId(2)),
            &BigUint::from(7u32),
            &salt,
        )
        .expect("in range");
        assert_eq!(
            hex::encode(c.0),
            "1a9a5a0f683883d05c2ade6434ab3725a8440dcbb6a9dd3f895ad2c1ac003913"
        );
    }

    #[test]
    fn encoding_is_fixed_width() {
        let n = 10;
        let w = encoding_width(n);
        let zero = encode_value(n, &BigUint::from(0u32)).expect("fits");
        let max = committed_value(n, &(factorial(n) - 1u32), &Salt([0xff; 32]));
        assert_eq!(zero.len(), w);
        assert_eq!(encode_value(n, &max).expect("fits").len(), w);
        // The largest honest value needs all of W's bits: W is not wasteful.
        assert!(max.bits() as usize > 8 * (w - 1));
        assert_eq!(encoding_width(52), (226 + 256usize).div_ceil(8));
    }

    #[test]
    fn experiment_with_honest_parameters_is_the_scheme_and_refuses_a_second_opening() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let slot = Slot::Deal(PartyId(1));
        for n in [3usize, 5, 12] {
            let x = rank(&Perm::random_with_rng(n, &mut rng));
            let salt = Salt::random_with_rng(&mut rng);
            let honest = Experiment::honest();
            let c = honest.commit(n, PartyId(1), slot, &x, &salt.value());
            assert_eq!(c, commit(n, PartyId(1), slot, &x, &salt));
            assert_eq!(
                honest.equivocate(n, PartyId(1), slot, &x, &salt.value()),
                None
            );
        }
    }

    #[test]
    fn pitfall_the_posts_multiplier_n_equivocates_two_permutations() {
        // M = n as in the published text: (X + n, k − 1) opens the same commitment to another
        // permutation, and the verifier of that variant accepts both.
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        let n = 5usize;
        let slot = Slot::Deal(PartyId(1));
        let post = Experiment {
            multiplier: Some(BigUint::from(n)),
            range_check: true,
            salt_bits: 256,
        };
        let mut found = 0;
        for _ in 0..20 {
            let x = rank(&Perm::random_with_rng(n, &mut rng));
            let k = Salt::random_with_rng(&mut rng).value();
            let Some(e) = post.equivocate(n, PartyId(1), slot, &x, &k) else {
                continue;
            };
            found += 1;
            let c = post.commit(n, PartyId(1), slot, &x, &k).expect("fits");
            let (x2, k2) = &e.second;
            assert_eq!(post.verify(&c, n, PartyId(1), slot, x2, k2), Ok(()));
            assert_ne!(unrank(n, &x).expect("valid"), unrank(n, x2).expect("valid"));
        }
        // X + n or X − n is a valid ordinal for every X of a 5-card deck.
        assert_eq!(found, 20);
    }

    #[test]
    fn pitfall_without_the_range_check_an_out_of_range_opening_is_accepted() {
        let n = 4usize;
        let slot = Slot::Deal(PartyId(2));
        let x = BigUint::from(5u32);
        let k = BigUint::from(99u32);
        let unchecked = Experiment {
            multiplier: None,
            range_check: false,
            salt_bits: 256,
        };
        let e = unchecked
            .equivocate(n, PartyId(2), slot, &x, &k)
            .expect("equivocation");
        assert_eq!(e.second, (&x + factorial(n), BigUint::from(98u32)));
        let checked = Experiment {
            range_check: true,
            ..unchecked
        };
        assert_eq!(checked.equivocate(n, PartyId(2), slot, &x, &k), None);
    }

    #[test]
    fn a_short_salt_is_brute_forced_and_the_work_doubles_per_bit() {
        let n = 3usize;
        let slot = Slot::Deal(PartyId(1));
        let mut worst = Vec::new();
        for bits in 0..6u32 {
            let e = Experiment {
                multiplier: None,
                range_check: true,
                salt_bits: bits,
            };
            let (x, k) = (BigUint::from(4u32), BigUint::from((1u64 << bits) - 1));
            let c = e.commit(n, PartyId(1), slot, &x, &k).expect("fits");
            let (found, tried) = e.brute_force(&c, n, PartyId(1), slot);
            assert_eq!(found, Some((x, k)));
            worst.push(tried);
        }
        // The last salt and the fifth ordinal: (2^B − 1)·3! + 5 hashes.
        let want: Vec<u64> = (0..6u64).map(|b| ((1 << b) - 1) * 6 + 5).collect();
        assert_eq!(worst, want);
    }

    #[test]
    fn identity_can_be_committed_although_the_seed_says_0_lt_x() {
        let n = 6;
        let salt = Salt([1; 32]);
        let id = rank(&Perm::identity(n));
        let c = commit(n, PartyId(3), Slot::Deal(PartyId(3)), &id, &salt).expect("rank 0");
        assert_eq!(
            verify(&c, n, PartyId(3), Slot::Deal(PartyId(3)), &id, &salt),
            Ok(())
        );
    }
}
