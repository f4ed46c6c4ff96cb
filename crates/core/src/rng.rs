//! Seeded randomness, one independent stream per trial.
//!
//! Reproducible Monte-Carlo runs must not depend on how trials are spread over threads. Each
//! trial therefore gets its own ChaCha20 generator: the key is derived from the run's seed and the
//! stream number is the trial index. Any scheduling of trials over threads sees the same numbers.

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// The generator for trial `trial` of a run seeded with `seed`.
///
/// Distinct trials use distinct ChaCha streams under the same key, so they are independent and
/// do not overlap.
pub fn trial_rng(seed: u64, trial: u64) -> ChaCha20Rng {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    rng.set_stream(trial);
    rng
}

/// Stream `stream` of a secret 256-bit `key`: a party's own randomness (a player's, or the
/// ideal table's), which nobody else can compute.
pub fn key_stream(key: &[u8; 32], stream: u64) -> ChaCha20Rng {
    let mut rng = ChaCha20Rng::from_seed(*key);
    rng.set_stream(stream);
    rng
}

/// Where a party's randomness comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Randomness {
    /// A seed every party knows: runs are reproducible, and each party can compute every
    /// other's secrets — not for real play.
    Seed(u64),
    /// The party's own secret 256-bit key, which nobody else can compute.
    Key([u8; 32]),
}

impl Randomness {
    /// Stream `stream` of the seed ([`trial_rng`]) or of the key ([`key_stream`]).
    pub fn stream(&self, stream: u64) -> ChaCha20Rng {
        match self {
            Randomness::Seed(seed) => trial_rng(*seed, stream),
            Randomness::Key(key) => key_stream(key, stream),
        }
    }
}

/// The generator for a whole (single-stream) run seeded with `seed`.
pub fn seeded_rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// The generator of player `party` in trial `trial` of a run seeded with `seed`: every
/// `(seed, trial)` pair is its own ChaCha20 key, every player its own stream under it. A run
/// in memory and the same run with one process per player draw the same numbers.
pub fn party_rng(seed: u64, trial: u64, party: crate::PartyId) -> ChaCha20Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&trial.to_le_bytes());
    key[16..].copy_from_slice(b"facedown/players");
    let mut rng = ChaCha20Rng::from_seed(key);
    rng.set_stream(u64::from(party.0));
    rng
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn trial_streams_are_reproducible_and_distinct() {
        let a = trial_rng(7, 3).next_u64();
        assert_eq!(a, trial_rng(7, 3).next_u64());
        assert_ne!(a, trial_rng(7, 4).next_u64());
        assert_ne!(a, trial_rng(8, 3).next_u64());
        let p = party_rng(7, 3, crate::PartyId(1)).next_u64();
        assert_eq!(p, party_rng(7, 3, crate::PartyId(1)).next_u64());
        assert_ne!(p, party_rng(7, 3, crate::PartyId(2)).next_u64());
        assert_ne!(p, party_rng(7, 4, crate::PartyId(1)).next_u64());
        assert_ne!(p, party_rng(8, 3, crate::PartyId(1)).next_u64());
    }

    #[test]
    fn a_seeds_streams_are_its_trials_and_a_keys_are_its_own() {
        let seeded = Randomness::Seed(7);
        assert_eq!(seeded.stream(3).next_u64(), trial_rng(7, 3).next_u64());
        let key = [9u8; 32];
        let keyed = Randomness::Key(key);
        let k = keyed.stream(3).next_u64();
        assert_eq!(k, key_stream(&key, 3).next_u64());
        assert_ne!(k, keyed.stream(4).next_u64());
        assert_ne!(k, Randomness::Key([8u8; 32]).stream(3).next_u64());
    }
}
