//! Public parameters, computed once per process: the Pedersen generators of the shuffle argument
//! and the card points. Both are hash-to-group outputs of public labels — constants of the
//! scheme that no player chooses — so every engine of a process may share them.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::elgamal::{CardEncoding, Ciphertext, CompressedCiphertext};
use crate::generators::CommitmentKey;

fn cached<K: Ord + Clone, V: Clone>(
    cell: &'static OnceLock<Mutex<BTreeMap<K, V>>>,
    key: K,
    make: impl FnOnce(K) -> V,
) -> V {
    let map = cell.get_or_init(|| Mutex::new(BTreeMap::new()));
    // A poisoned lock only means another thread panicked while inserting; the map is intact.
    let mut map = map.lock().unwrap_or_else(|p| p.into_inner());
    map.entry(key.clone()).or_insert_with(|| make(key)).clone()
}

/// The commitment key for shuffles of `n` cards (with its precomputed tables).
pub fn commitment_key(n: usize) -> CommitmentKey {
    static KEYS: OnceLock<Mutex<BTreeMap<usize, CommitmentKey>>> = OnceLock::new();
    cached(&KEYS, n, CommitmentKey::new)
}

/// The encoding of card codes `0..n` ([`facedown_core::Symbol::code`]).
pub fn encoding(n: u16) -> Arc<CardEncoding> {
    encoding_of((0..n).collect())
}

/// The encoding of exactly the card codes `codes` (sorted and deduplicated), once per process.
pub fn encoding_of(mut codes: Vec<u16>) -> Arc<CardEncoding> {
    static ENCODINGS: OnceLock<Mutex<BTreeMap<Vec<u16>, Arc<CardEncoding>>>> = OnceLock::new();
    codes.sort_unstable();
    codes.dedup();
    cached(&ENCODINGS, codes, |codes| {
        Arc::new(CardEncoding::of_codes(codes))
    })
}

type Masking = Option<(Ciphertext, CompressedCiphertext)>;

/// The open masking `(0, M_c)` of card code `c`, in both forms, once per process.
pub(crate) fn open_masking(code: u16) -> Masking {
    static OPEN: OnceLock<Mutex<BTreeMap<u16, Masking>>> = OnceLock::new();
    cached(&OPEN, code, |c| {
        let m = encoding_of(vec![c]).point(c)?;
        let ct = Ciphertext::open(m);
        Some((ct, ct.compress()))
    })
}
