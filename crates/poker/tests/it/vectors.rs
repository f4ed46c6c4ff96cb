//! Known-answer vectors: the card encoding and the Pedersen generators are pinned, and a
//! shuffle proof and a reveal token made by version 1 of the transcript format must keep
//! verifying. (Regenerate `vectors/v1.json` only for a deliberate format change, by running this
//! test with `FACEDOWN_WRITE_VECTORS=1`, and bump the domain separators' version when you do.)
//!
//! `vectors/v2.json` adds the batchable encoding of reveal tokens (format v2: the same
//! Chaum–Pedersen proof in commitment form `(A1, A2, s)`, same transcript). Its token is made from
//! the same seeds as v1's, so it must be exactly v1's token converted, and both files' proofs
//! must verify in batches. v1 is unchanged: its proofs still verify one by one, and the shuffle
//! format did not change.

use crate::common;

use common::{ctx, fixture, transcript};
use curve25519_dalek::ristretto::CompressedRistretto;
use facedown_core::rng::seeded_rng;
use facedown_core::PartyId;
use facedown_poker::batch::{verify_reveal_tokens, verify_shuffles, ShuffleClaim, TokenClaim};
use facedown_poker::elgamal::{card_point, CompressedCiphertext, Deck, JointKey};
use facedown_poker::generators::CommitmentKey;
use facedown_poker::keys::PublicKey;
use facedown_poker::reveal::{
    batchable_reveal_token_with_rng, reveal_token_with_rng, verify_batchable_reveal_token,
    verify_reveal_token, BatchableRevealToken, RevealToken,
};
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

/// Format v2: the batchable reveal token, for the ciphertext of v1's token.
#[derive(Serialize, Deserialize)]
struct VectorsV2 {
    ciphertext: CompressedCiphertext,
    player_key: CompressedRistretto,
    token: BatchableRevealToken,
}

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/v1.json");
const PATH_V2: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/v2.json");

/// The vectors' shuffle: player 1 shuffles the open 4-card deck under a 2-player key; the
/// generator goes on to draw the token's coins.
fn kat_shuffle() -> (
    common::Fixture,
    Deck,
    ShuffleProof,
    rand_chacha::ChaCha20Rng,
) {
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
    (f, out, proof, rng)
}

/// v1's generation with the token made in the batchable encoding: the same coins.
fn generate_v2() -> VectorsV2 {
    let (f, out, _, mut rng) = kat_shuffle();
    let token = batchable_reveal_token_with_rng(
        &mut transcript(),
        &ctx(b"kat", 3, 2),
        &f.sks[1],
        2,
        (&out.ciphertexts()[2], &out.wire()[2]),
        &mut rng,
    );
    VectorsV2 {
        ciphertext: out.wire()[2],
        player_key: f.sks[1].public().compressed,
        token,
    }
}

fn read<T: serde::de::DeserializeOwned>(path: &str) -> T {
    serde_json::from_str(&std::fs::read_to_string(path).expect("vectors file"))
        .expect("valid vectors")
}

fn generate() -> Vectors {
    let (f, out, proof, mut rng) = kat_shuffle();
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
    let committed: serde_json::Value = read(PATH_V2);
    assert_eq!(
        serde_json::to_value(generate_v2()).expect("serializable"),
        committed
    );
}

#[test]
fn v2_vectors_verify_alone_and_in_batches_and_encode_the_v1_token() {
    if std::env::var_os("FACEDOWN_WRITE_VECTORS").is_some() {
        let json = serde_json::to_string_pretty(&generate_v2()).expect("serializable");
        std::fs::write(PATH_V2, json).expect("writable vectors file");
    }
    let v1: Vectors = read(PATH);
    let v2: VectorsV2 = read(PATH_V2);
    assert_eq!(v2.ciphertext, v1.output[2]);
    assert_eq!(v2.player_key, v1.player_key);
    let pk = PublicKey {
        point: v2.player_key.decompress().expect("valid key"),
        compressed: v2.player_key,
    };
    let ct = v2
        .ciphertext
        .decompress(PartyId(2))
        .expect("valid ciphertext");
    let c3 = ctx(b"kat", 3, 2);
    let d = verify_batchable_reveal_token(
        &mut transcript(),
        &c3,
        &pk,
        (&ct, &v2.ciphertext),
        &v2.token,
    )
    .expect("the v2 token verifies");
    assert_eq!(d.compress(), v1.token.token);
    // v1's token, verified and converted, is v2's token byte for byte.
    let converted = v1
        .token
        .to_batchable(&mut transcript(), &c3, &pk, (&ct, &v2.ciphertext))
        .expect("the v1 token verifies");
    assert_eq!(converted, v2.token);
    // In a batch, and not in another round.
    let claim = |round| TokenClaim {
        transcript: transcript(),
        ctx: ctx(b"kat", round, 2),
        pk: &pk,
        ct: (&ct, &v2.ciphertext),
        token: &v2.token,
    };
    assert_eq!(verify_reveal_tokens(vec![claim(3)]), Ok(vec![d]));
    assert!(verify_reveal_tokens(vec![claim(3), claim(4)]).is_err());
    // v1's shuffle proof (format unchanged) verifies in a batch too.
    let key = JointKey::from_point(v1.joint_key.decompress().expect("valid key"));
    let input = Deck::decode(v1.input, PartyId(1)).expect("valid deck");
    let output = Deck::decode(v1.output, PartyId(1)).expect("valid deck");
    let shuffle = |round| ShuffleClaim {
        transcript: transcript(),
        ctx: ctx(b"kat", round, 1),
        input: &input,
        output: &output,
        proof: &v1.shuffle_proof,
    };
    let ck = CommitmentKey::new(4);
    assert_eq!(verify_shuffles(&ck, &key, vec![shuffle(1)]), Ok(()));
    assert!(verify_shuffles(&ck, &key, vec![shuffle(1), shuffle(2)]).is_err());
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
