//! Proving and verifying on the current rayon pool: the same seed gives the same deck and the
//! same proof bytes on one thread and on two, and the verdicts agree.

use crate::common;

use common::{ctx, fixture, transcript};
use facedown_core::rng::seeded_rng;
use facedown_poker::elgamal::Deck;
use facedown_poker::shuffle::{decode_and_verify_shuffle, shuffle_with_rng, verify_shuffle};

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// 130 cards: large enough that every multiscalar multiplication of the prover (`n + 1`
/// points) and of the verifier is split in two on a 2-thread pool.
#[test]
fn shuffle_proof_bytes_do_not_depend_on_the_thread_count() {
    let f = fixture(3, 130, 8);
    let c = ctx(b"threads", 1, 2);
    let prove = || {
        shuffle_with_rng(
            &mut transcript(),
            &c,
            &f.ck,
            &f.key,
            &f.open,
            &mut seeded_rng(9),
        )
        .expect("sizes fit")
    };
    let (one, two) = (pool(1).install(prove), pool(2).install(prove));
    assert_eq!(one.0.wire(), two.0.wire(), "the shuffled decks differ");
    assert_eq!(
        bincode::serialize(&one.1).expect("encodable"),
        bincode::serialize(&two.1).expect("encodable"),
        "the proofs differ"
    );
    // A second shuffle from a non-open deck, verified on both pools, with and without decoding.
    let (deck, proof) = pool(2).install(|| {
        shuffle_with_rng(
            &mut transcript(),
            &c,
            &f.ck,
            &f.key,
            &one.0,
            &mut seeded_rng(10),
        )
        .expect("sizes fit")
    });
    for threads in [1, 2] {
        pool(threads).install(|| {
            verify_shuffle(&mut transcript(), &c, &f.ck, &f.key, &one.0, &deck, &proof)
                .expect("an honest proof verifies");
            let decoded = decode_and_verify_shuffle(
                &mut transcript(),
                &c,
                &f.ck,
                &f.key,
                &one.0,
                deck.wire().to_vec(),
                &proof,
            )
            .expect("an honest proof verifies");
            assert_eq!(decoded, deck);
        });
    }
}

/// A false shuffle (two output cards swapped after proving) is rejected on every pool, and so
/// is a valid proof presented for the wrong input deck.
#[test]
fn a_false_shuffle_is_rejected_whatever_the_thread_count() {
    let f = fixture(2, 130, 11);
    let c = ctx(b"threads", 1, 1);
    let (out, proof) = shuffle_with_rng(
        &mut transcript(),
        &c,
        &f.ck,
        &f.key,
        &f.open,
        &mut seeded_rng(12),
    )
    .expect("sizes fit");
    let mut cts = out.ciphertexts().to_vec();
    cts.swap(3, 100);
    let swapped = Deck::from_ciphertexts(cts);
    for threads in [1, 2] {
        pool(threads).install(|| {
            let err = verify_shuffle(
                &mut transcript(),
                &c,
                &f.ck,
                &f.key,
                &f.open,
                &swapped,
                &proof,
            );
            assert!(err.is_err(), "{threads} thread(s): swapped deck accepted");
            let err = verify_shuffle(&mut transcript(), &c, &f.ck, &f.key, &out, &out, &proof);
            assert!(err.is_err(), "{threads} thread(s): wrong input accepted");
            let err = decode_and_verify_shuffle(
                &mut transcript(),
                &c,
                &f.ck,
                &f.key,
                &f.open,
                swapped.wire().to_vec(),
                &proof,
            );
            assert!(
                err.is_err(),
                "{threads} thread(s): swapped deck accepted after decoding"
            );
        });
    }
}

/// At every size — down to halves of one card — the prover splits each phase (the output deck
/// with `A`, `c_d`, `A_0` and `E_0`; `B` in two halves; `c_δ` with `c_Δ`) on two threads and
/// must still produce the one-thread deck and proof bytes, from an open deck (whose `c1` are
/// left out of `E_0`) and from an encrypted one.
#[test]
fn shuffle_proof_bytes_do_not_depend_on_the_thread_count_at_small_sizes() {
    for n in [2u16, 3, 5, 52] {
        let f = fixture(2, n, 20 + u64::from(n));
        let c = ctx(b"threads", 1, 1);
        let prove = |input: &Deck, seed: u64| {
            shuffle_with_rng(
                &mut transcript(),
                &c,
                &f.ck,
                &f.key,
                input,
                &mut seeded_rng(seed),
            )
            .expect("sizes fit")
        };
        let (first, _) = pool(1).install(|| prove(&f.open, 1));
        for input in [&f.open, &first] {
            let (one, two) = (
                pool(1).install(|| prove(input, 2)),
                pool(2).install(|| prove(input, 2)),
            );
            assert_eq!(one.0.wire(), two.0.wire(), "{n} cards: the decks differ");
            assert_eq!(
                bincode::serialize(&one.1).expect("encodable"),
                bincode::serialize(&two.1).expect("encodable"),
                "{n} cards: the proofs differ"
            );
            verify_shuffle(&mut transcript(), &c, &f.ck, &f.key, input, &two.0, &two.1)
                .expect("an honest proof verifies");
        }
    }
}
