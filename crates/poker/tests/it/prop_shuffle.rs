//! Property tests: for random decks, permutations and seeds, the shuffle argument is complete
//! (verifies, moves card i to π(i)) and sound against a post-hoc transposition.

use crate::common;

use common::{ctx, fixture, transcript};
use facedown_core::rng::seeded_rng;
use facedown_core::Perm;
use facedown_poker::elgamal::Deck;
use facedown_poker::shuffle::{shuffle_by_with_rng, verify_shuffle};
use proptest::prelude::*;

fn perm_and_swap() -> impl Strategy<Value = (Vec<usize>, usize, usize, u64)> {
    (2usize..=9).prop_flat_map(|n| {
        (
            Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
            0..n,
            0..n,
            any::<u64>(),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn bg12_shuffle_is_complete_and_rejects_a_transposition((images, i, j, seed) in perm_and_swap()) {
        let n = images.len();
        let f = fixture(2, n as u16, seed);
        let perm = Perm::from_images(images).expect("a shuffled identity is a permutation");
        let mut rng = seeded_rng(seed);
        let c = ctx(b"prop", 1, 1);
        let (out, proof) = shuffle_by_with_rng(&mut transcript(), &c, &f.ck, &f.key, &f.open, &perm, &mut rng)
            .expect("sizes fit");
        prop_assert!(verify_shuffle(&mut transcript(), &c, &f.ck, &f.key, &f.open, &out, &proof).is_ok());
        let opened = f.decrypt(&out);
        for k in 0..n {
            prop_assert_eq!(usize::from(opened[perm.apply(k)]), k);
        }
        if i != j {
            let mut cts = out.ciphertexts().to_vec();
            cts.swap(i, j);
            let swapped = Deck::from_ciphertexts(cts);
            prop_assert!(verify_shuffle(&mut transcript(), &c, &f.ck, &f.key, &f.open, &swapped, &proof).is_err());
        }
    }
}
