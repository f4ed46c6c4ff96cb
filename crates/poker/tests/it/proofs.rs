//! The proofs one by one: completeness, soundness against wrong statements, binding to session,
//! round and player, and survival of serialize → deserialize.

use crate::common;

use common::{ctx, fixture, transcript};
use curve25519_dalek::constants::RISTRETTO_BASEPOINT_POINT;
use facedown_core::rng::seeded_rng;
use facedown_core::{PartyId, Perm};
use facedown_poker::elgamal::{Ciphertext, Deck};
use facedown_poker::errors::{PokerError, ProofKind};
use facedown_poker::keys::KeyShare;
use facedown_poker::masking::{mask_with_rng, remask_with_rng, verify_mask, verify_remask};
use facedown_poker::restricted::{
    restricted_shuffle_by_with_rng, restricted_shuffle_with_rng, verify_restricted_shuffle,
    PermSet, RestrictedShuffleProof,
};
use facedown_poker::reveal::{reveal_token_with_rng, verify_reveal_token, RevealToken};
use facedown_poker::shuffle::{
    shuffle_by_with_rng, shuffle_with_rng, verify_shuffle, ShuffleProof,
};
use facedown_poker::ProofContext;

/// Three contexts that differ from `base` in exactly one of session, round, player.
fn other_contexts(base: ProofContext<'static>) -> [ProofContext<'static>; 3] {
    [
        ProofContext {
            session: b"another session",
            ..base
        },
        ProofContext {
            round: base.round + 1,
            ..base
        },
        ProofContext {
            player: PartyId(base.player.0 + 1),
            ..base
        },
    ]
}

fn bincode_roundtrip<T: serde::Serialize + serde::de::DeserializeOwned>(v: &T) -> T {
    let bytes = bincode::serialize(v).expect("serializable");
    bincode::deserialize(&bytes).expect("decodes what it encoded")
}

fn json_roundtrip<T: serde::Serialize + serde::de::DeserializeOwned>(v: &T) -> T {
    serde_json::from_str(&serde_json::to_string(v).expect("serializable")).expect("decodes")
}

/// The shuffle moves the card at position i to position π(i) (the `Perm` convention of
/// facedown-core), and the plaintexts survive re-randomisation.
#[test]
fn bg12_shuffle_applies_the_permutation_in_the_core_convention() {
    let f = fixture(3, 6, 1);
    let mut rng = seeded_rng(2);
    let perm = Perm::from_images(vec![2, 0, 1, 5, 3, 4]).expect("a permutation");
    let c = ctx(b"s", 1, 1);
    let (out, proof) = shuffle_by_with_rng(
        &mut transcript(),
        &c,
        &f.ck,
        &f.key,
        &f.open,
        &perm,
        &mut rng,
    )
    .expect("sizes fit");
    verify_shuffle(&mut transcript(), &c, &f.ck, &f.key, &f.open, &out, &proof)
        .expect("honest proof");
    let opened = f.decrypt(&out);
    for i in 0..6 {
        assert_eq!(usize::from(opened[perm.apply(i)]), i);
    }
    // Re-randomised: no output ciphertext equals an input one.
    assert!(out.wire().iter().all(|w| !f.open.wire().contains(w)));
}

/// [BG12] soundness against a false statement: an output that is the right permutation of
/// the input but *not* of encryptions of the same cards (one card replaced) fails, and a proof
/// for one deck does not verify for another.
#[test]
fn bg12_shuffle_proof_does_not_transfer_to_another_deck() {
    let f = fixture(2, 8, 3);
    let mut rng = seeded_rng(4);
    let c = ctx(b"s", 1, 2);
    let (out, proof) = shuffle_with_rng(&mut transcript(), &c, &f.ck, &f.key, &f.open, &mut rng)
        .expect("sizes fit");
    let (out2, _) = shuffle_with_rng(&mut transcript(), &c, &f.ck, &f.key, &f.open, &mut rng)
        .expect("sizes fit");
    let err = verify_shuffle(&mut transcript(), &c, &f.ck, &f.key, &f.open, &out2, &proof);
    assert_eq!(
        err,
        Err(PokerError::InvalidProof {
            player: PartyId(2),
            kind: ProofKind::Shuffle
        })
    );
    // The same output re-randomised under a different key is not a shuffle under this one.
    let g = fixture(2, 8, 99);
    let mut cts = out.ciphertexts().to_vec();
    cts[0] = cts[0]
        + g.key
            .zero_encryption(&curve25519_dalek::scalar::Scalar::from(5u64));
    let bad = Deck::from_ciphertexts(cts);
    assert!(verify_shuffle(&mut transcript(), &c, &f.ck, &f.key, &f.open, &bad, &proof).is_err());
    // Too few cards, and a commitment key that is too short, are parameter errors.
    let one = Deck::from_ciphertexts(vec![f.open.ciphertexts()[0]]);
    assert!(matches!(
        shuffle_with_rng(&mut transcript(), &c, &f.ck, &f.key, &one, &mut rng),
        Err(PokerError::InvalidParameters(_))
    ));
    let short = facedown_poker::generators::CommitmentKey::new(4);
    assert!(matches!(
        verify_shuffle(&mut transcript(), &c, &short, &f.key, &f.open, &out, &proof),
        Err(PokerError::InvalidParameters(_))
    ));
}

/// Shuffle proofs are bound to session, round and player, and survive serde.
#[test]
fn shuffle_proof_is_bound_to_its_context_and_survives_serde() {
    let f = fixture(2, 8, 5);
    let mut rng = seeded_rng(6);
    let c = ctx(b"s", 3, 1);
    let (out, proof) = shuffle_with_rng(&mut transcript(), &c, &f.ck, &f.key, &f.open, &mut rng)
        .expect("sizes fit");
    for p in [bincode_roundtrip(&proof), json_roundtrip(&proof)] {
        verify_shuffle(&mut transcript(), &c, &f.ck, &f.key, &f.open, &out, &p)
            .expect("verifies after serde");
    }
    for other in other_contexts(c) {
        assert_eq!(
            verify_shuffle(
                &mut transcript(),
                &other,
                &f.ck,
                &f.key,
                &f.open,
                &out,
                &proof
            ),
            Err(PokerError::InvalidProof {
                player: other.player,
                kind: ProofKind::Shuffle
            })
        );
    }
    // A proof cut short is a length error.
    let mut short: ShuffleProof = proof.clone();
    short.b_tilde.pop();
    assert!(matches!(
        verify_shuffle(&mut transcript(), &c, &f.ck, &f.key, &f.open, &out, &short),
        Err(PokerError::WrongLength { .. })
    ));
}

/// Key shares: bound to session, round and player; survive serde.
#[test]
fn schnorr_key_share_is_bound_to_its_context_and_survives_serde() {
    let f = fixture(1, 2, 7);
    let mut rng = seeded_rng(8);
    let c = ctx(b"s", 0, 1);
    let share = f.sks[0].key_share_with_rng(&mut transcript(), &c, &mut rng);
    for s in [bincode_roundtrip(&share), json_roundtrip(&share)] {
        assert_eq!(
            s.verify(&mut transcript(), &c).expect("valid"),
            *f.sks[0].public()
        );
    }
    for other in other_contexts(c) {
        let relabelled = KeyShare {
            player: other.player,
            ..share
        };
        assert_eq!(
            relabelled.verify(&mut transcript(), &other),
            Err(PokerError::InvalidProof {
                player: other.player,
                kind: ProofKind::KeyOwnership
            })
        );
    }
}

/// Reveal tokens: correct tokens open the card; bound to context and position; survive serde.
#[test]
fn reveal_token_is_bound_to_context_and_position_and_survives_serde() {
    let f = fixture(2, 4, 9);
    let mut rng = seeded_rng(10);
    let (deck, _) = shuffle_with_rng(
        &mut transcript(),
        &ctx(b"s", 1, 1),
        &f.ck,
        &f.key,
        &f.open,
        &mut rng,
    )
    .expect("sizes fit");
    let c = ctx(b"s", 4, 2);
    let ct = (&deck.ciphertexts()[1], &deck.wire()[1]);
    let token = reveal_token_with_rng(&mut transcript(), &c, &f.sks[1], 1, ct, &mut rng);
    for t in [bincode_roundtrip(&token), json_roundtrip(&token)] {
        verify_reveal_token(&mut transcript(), &c, f.sks[1].public(), ct, &t).expect("valid");
    }
    for other in other_contexts(c) {
        assert!(
            verify_reveal_token(&mut transcript(), &other, f.sks[1].public(), ct, &token).is_err()
        );
    }
    let moved = RevealToken {
        position: 2,
        ..token
    };
    assert!(verify_reveal_token(&mut transcript(), &c, f.sks[1].public(), ct, &moved).is_err());
    // The wrong key share.
    assert!(verify_reveal_token(&mut transcript(), &c, f.sks[0].public(), ct, &token).is_err());
}

/// Masking: the proof pins the plaintext; re-masking: the proof pins the link.
#[test]
fn bs03_masking_and_remasking_proofs() {
    let f = fixture(3, 4, 11);
    let mut rng = seeded_rng(12);
    let c = ctx(b"s", 2, 3);
    let m = f.cards.point(2).expect("card 2");
    let (ct, proof) = mask_with_rng(&mut transcript(), &c, &f.key, &m, &mut rng);
    verify_mask(
        &mut transcript(),
        &c,
        &f.key,
        &m,
        &ct,
        &bincode_roundtrip(&proof),
    )
    .expect("valid mask");
    let other = f.cards.point(3).expect("card 3");
    assert_eq!(
        verify_mask(&mut transcript(), &c, &f.key, &other, &ct, &proof),
        Err(PokerError::InvalidProof {
            player: PartyId(3),
            kind: ProofKind::Masking
        })
    );
    let deck = Deck::from_ciphertexts(vec![ct]);
    assert_eq!(f.decrypt(&deck), vec![2]);

    let (after, rproof) = remask_with_rng(&mut transcript(), &c, &f.key, &ct, &mut rng);
    verify_remask(
        &mut transcript(),
        &c,
        &f.key,
        &ct,
        &after,
        &json_roundtrip(&rproof),
    )
    .expect("valid re-mask");
    assert_eq!(f.decrypt(&Deck::from_ciphertexts(vec![after])), vec![2]);
    let shifted = Ciphertext {
        c1: after.c1,
        c2: after.c2 + RISTRETTO_BASEPOINT_POINT,
    };
    assert_eq!(
        verify_remask(&mut transcript(), &c, &f.key, &ct, &shifted, &rproof),
        Err(PokerError::InvalidProof {
            player: PartyId(3),
            kind: ProofKind::Remasking
        })
    );
    for o in other_contexts(c) {
        assert!(verify_remask(&mut transcript(), &o, &f.key, &ct, &after, &rproof).is_err());
    }
}

/// [MS09] random cut and random bisection cut on encrypted cards: every element of the set
/// gives a verifying proof and the right arrangement; a permutation outside the set does not
/// verify.
#[test]
fn ms09_restricted_shuffles_cut_and_bisection() {
    let f = fixture(2, 6, 13);
    let mut rng = seeded_rng(14);
    let c = ctx(b"s", 5, 1);
    for set in [
        PermSet::cyclic(6).expect("cut"),
        PermSet::bisection(6).expect("bisection"),
    ] {
        for k in 0..set.len() {
            let (out, proof) = restricted_shuffle_by_with_rng(
                &mut transcript(),
                &c,
                &f.key,
                &set,
                &f.open,
                k,
                &mut rng,
            )
            .expect("sizes fit");
            let proof: RestrictedShuffleProof = bincode_roundtrip(&proof);
            verify_restricted_shuffle(&mut transcript(), &c, &f.key, &set, &f.open, &out, &proof)
                .expect("honest OR-proof");
            let opened = f.decrypt(&out);
            for i in 0..6 {
                assert_eq!(usize::from(opened[set.perms()[k].apply(i)]), i);
            }
            for o in other_contexts(c) {
                assert!(verify_restricted_shuffle(
                    &mut transcript(),
                    &o,
                    &f.key,
                    &set,
                    &f.open,
                    &out,
                    &proof
                )
                .is_err());
            }
        }
    }
    // A transposition is neither a rotation nor a bisection: a proof for a rotation, with the
    // output rearranged by a transposition, fails.
    let cut = PermSet::cyclic(6).expect("cut");
    let (out, proof, _) =
        restricted_shuffle_with_rng(&mut transcript(), &c, &f.key, &cut, &f.open, &mut rng)
            .expect("sizes fit");
    let mut cts = out.ciphertexts().to_vec();
    cts.swap(0, 1);
    let swapped = Deck::from_ciphertexts(cts);
    assert_eq!(
        verify_restricted_shuffle(
            &mut transcript(),
            &c,
            &f.key,
            &cut,
            &f.open,
            &swapped,
            &proof
        ),
        Err(PokerError::InvalidProof {
            player: PartyId(1),
            kind: ProofKind::RestrictedShuffle
        })
    );
    // The proof is tied to the set: the same proof does not verify for the bisection set.
    let bis = PermSet::bisection(6).expect("bisection");
    assert!(
        verify_restricted_shuffle(&mut transcript(), &c, &f.key, &bis, &f.open, &out, &proof)
            .is_err()
    );
    // Sets are validated.
    assert!(PermSet::bisection(5).is_err());
    assert!(PermSet::new(Vec::new()).is_err());
    assert!(PermSet::new(vec![Perm::identity(3), Perm::identity(4)]).is_err());
}
