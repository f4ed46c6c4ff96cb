//! Helpers shared by the suites.

use ed25519_dalek::SigningKey;
use facedown_core::rng::seeded_rng;
use rand::RngCore;

/// The signing keys of `players` players drawn from `seeded_rng(seed)`, 32 bytes each: the
/// keys `Table::setup_with_rng` gives its players from a generator of that seed (they are the
/// first thing it draws).
pub(crate) fn seeded_keys(seed: u64, players: usize) -> Vec<SigningKey> {
    let mut rng = seeded_rng(seed);
    (0..players)
        .map(|_| {
            let mut secret = [0u8; 32];
            rng.fill_bytes(&mut secret);
            SigningKey::from_bytes(&secret)
        })
        .collect()
}
