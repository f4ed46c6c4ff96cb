//! Known-answer vectors: the card encoding and the Pedersen generators are pinned, and a
//! shuffle proof and a reveal token made by version 1 of the transcript format must keep
//! verifying. (Regenerate `vectors/v1.json` only for a deliberate format change, by running this
//! test with `FACEDOWN_WRITE_VECTORS=1`, and bump the domain separators' version when you do.)

use crate::common;

use common::{ctx, fixture, transcript};
use curve25519_dalek::ristretto::CompressedRistretto;
use facedown_core::rng::seeded_rng;
use facedown_poker::elgamal::{card_point, CompressedCiphertext, Deck, JointKey};
use facedown_poker::generators::CommitmentKey;
use facedown_poker::keys::PublicKey;
use facedown_poker::reveal::{reveal_token_with_rng, verify_reveal_token, RevealToken};
use facedown_poker::shuffle::{shuffle_with_rng, verify_shuffle, ShuffleProof};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Vectors {
    card_points: Vec<CompressedRistretto>,
    joint_key: CompressedRistretto,
    input: Vec<CompressedCiphertext>,
    output: Vec<CompressedCiphertext>,
    shuffle_proof: ShuffleProof,
    player_key: CompressedRistretto,
    token: RevealToken,
}

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/v1.json");

fn generate() -> Vectors {
    let f = fixture(2, 4, 2024);
    let mut rng = seeded_rng(2025);
    let (out, proof) = shuffle_with_rng(
        &mut transcript(),
        &ctx(b"kat", 1, 1),
        &f.ck,
        &f.key,
        &f.open,
        &mut rng,
    )
    .expect("sizes fit");
    let token = reveal_token_with_rng(
        &mut transcript(),
        &ctx(b"kat", 3, 2),
        &f.sks[1],
        2,
        (&out.ciphertexts()[2], &out.wire()[2]),
        &mut rng,
    );
    Vectors {
        card_points: (0..4).map(|c| card_point(c).compress()).collect(),
        joint_key: *f.key.compressed(),
        input: f.open.wire().to_vec(),
        output: out.wire().to_vec(),
        shuffle_proof: proof,
        player_key: f.sks[1].public().compressed,
        token,
    }
}

/// The prover runs in parallel now, but draws its coins in the order of the original
/// sequential prover: with the seeds of the committed file it must reproduce every byte of it,
/// on one thread and on two.
#[test]
fn v1_vectors_are_reproduced_byte_for_byte_on_one_and_two_threads() {
    let committed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(PATH).expect("vectors file"))
            .expect("valid vectors");
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        let made = serde_json::to_value(pool.install(generate)).expect("serializable");
        assert_eq!(made, committed, "{threads} thread(s)");
    }
}

#[test]
fn v1_vectors_still_verify() {
    if std::env::var_os("FACEDOWN_WRITE_VECTORS").is_some() {
        let json = serde_json::to_string_pretty(&generate()).expect("serializable");
        std::fs::write(PATH, json).expect("writable vectors file");
    }
    let v: Vectors = serde_json::from_str(&std::fs::read_to_string(PATH).expect("vectors file"))
        .expect("valid vectors");
    // The encodings are pinned.
    for (c, p) in v.card_points.iter().enumerate() {
        assert_eq!(card_point(c as u16).compress(), *p, "card {c}");
    }
    let ck = CommitmentKey::new(4);
    let key = JointKey::from_point(v.joint_key.decompress().expect("valid key"));
    let p1 = ctx(b"kat", 1, 1);
    let input = Deck::decode(v.input, p1.player).expect("valid deck");
    let output = Deck::decode(v.output, p1.player).expect("valid deck");
    verify_shuffle(
        &mut transcript(),
        &p1,
        &ck,
        &key,
        &input,
        &output,
        &v.shuffle_proof,
    )
    .expect("the v1 shuffle proof verifies");
    let pk = PublicKey {
        point: v.player_key.decompress().expect("valid key"),
        compressed: v.player_key,
    };
    let ct = (&output.ciphertexts()[2], &output.wire()[2]);
    verify_reveal_token(&mut transcript(), &ctx(b"kat", 3, 2), &pk, ct, &v.token)
        .expect("the v1 reveal token verifies");
    // And the vectors are not vacuous: the proof fails in another round.
    assert!(verify_shuffle(
        &mut transcript(),
        &ctx(b"kat", 2, 1),
        &ck,
        &key,
        &input,
        &output,
        &v.shuffle_proof
    )
    .is_err());
}
