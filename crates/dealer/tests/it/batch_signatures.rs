//! Signatures whose signer crafted their nonce or scalar: a non-canonical `s`, the identity or
//! another small-order point as the nonce `R`, a non-canonical encoding of `R`. Envelope
//! signatures are ed25519, on edwards25519 (not ristretto255): that group has small-order
//! points, and before this suite ed25519-dalek's cofactorless `verify` and its batch check
//! disagreed on them — the identity nonce verified alone, a non-canonically encoded one verified
//! in a batch only, a small-order one in some batches only. Each is now refused alone, in any
//! batch and in the audit, naming its signer (and only him); a nonce with a torsion component is
//! accepted alike by both. `batch_verify.rs` has the forged (bit-flipped) signatures.

use crate::support::seeded_keys;
use curve25519_dalek::constants::{ED25519_BASEPOINT_POINT, EIGHT_TORSION};
use curve25519_dalek::edwards::EdwardsPoint;
use curve25519_dalek::scalar::Scalar;
use ed25519_dalek::{Digest, Sha512, SigningKey};
use facedown_core::rng::seeded_rng;
use facedown_dealer::messages::{verify_all, PublicKey};
use facedown_dealer::{audit, DealerError, Domain, Envelope, Roster, Scheme, Table, Transcript};

/// An audited 3-player, 9-card deal of three hands of three, and the players' signing keys
/// (the first thing the table draws from its generator).
fn deal(seed: u64) -> (Transcript, Vec<SigningKey>) {
    let keys = seeded_keys(seed, 3);
    let scheme = Scheme::general(3, 9).expect("valid");
    let mut table = Table::setup_with_rng(scheme, None, &mut seeded_rng(seed)).expect("setup");
    table.deal_hands(3).expect("deal");
    let finished = table.finish().expect("finish");
    assert!(finished.audit.passed, "an honest deal passes its audit");
    let t = finished.transcript;
    assert_eq!(t.params.roster, Roster::of(&keys), "the table's keys");
    (t, keys)
}

/// How the signer crafts his signature.
#[derive(Clone, Copy, Debug)]
enum Craft {
    /// The honest signature with `s + ℓ` for `s`: the equation still holds modulo `ℓ`.
    ScalarPlusL,
    /// `R` the identity and `s = k·a`: the cofactorless equation `R = [s]B − [k]A` holds.
    IdentityNonce,
    /// `R` the `j`-th point of small order and `s = k·a`: the cofactored equation holds.
    SmallOrderNonce(usize),
    /// `R` the identity encoded as `y = p + 1` and `s = k·a`: decodes to a point that
    /// satisfies the equation, under bytes that are not its encoding.
    NonCanonicalNonce,
    /// `R = [r]B + T`, `T` of order 8, `s = r + k·a`: satisfies the cofactored equation with a
    /// nonce of large order (accepted, alone and in batches alike).
    TorsionComponent,
}

/// `R` as bytes and `s`, given the challenge function.
fn crafted(craft: Craft, a: Scalar, k: impl Fn(&[u8; 32]) -> Scalar) -> ([u8; 32], [u8; 32]) {
    let by_key = |r: [u8; 32]| (r, (k(&r) * a).to_bytes());
    match craft {
        Craft::ScalarPlusL => unreachable!("made from the honest signature"),
        Craft::IdentityNonce => by_key(EdwardsPoint::default().compress().to_bytes()),
        Craft::SmallOrderNonce(j) => by_key(EIGHT_TORSION[j].compress().to_bytes()),
        Craft::NonCanonicalNonce => {
            let mut r = [0xffu8; 32];
            r[0] = 0xee; // p + 1 = 2^255 − 18
            r[31] = 0x7f;
            by_key(r)
        }
        Craft::TorsionComponent => {
            let nonce = Scalar::from(1234u16);
            let r = (ED25519_BASEPOINT_POINT * nonce + EIGHT_TORSION[1])
                .compress()
                .to_bytes();
            (r, (nonce + k(&r) * a).to_bytes())
        }
    }
}

/// `s + ℓ` as 32 little-endian bytes (it fits: `s < ℓ < 2^253`).
fn plus_l(s: &[u8]) -> [u8; 32] {
    // ℓ = 2^252 + 27742317777372353535851937790883648493, little-endian.
    const L: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde,
        0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let mut out = [0u8; 32];
    let mut carry = 0u16;
    for i in 0..32 {
        let sum = u16::from(s[i]) + u16::from(L[i]) + carry;
        out[i] = sum as u8;
        carry = sum >> 8;
    }
    out
}

/// Envelope `i` of `t` signed again by its signer, crafted.
fn resign(t: &Transcript, keys: &[SigningKey], i: usize, craft: Craft) -> Transcript {
    let mut t = t.clone();
    let e = &t.envelopes[i];
    let key = &keys[e.from.index()];
    let message = e.signed_bytes(Domain::Deal, &t.params.session);
    let (r, s) = match craft {
        Craft::ScalarPlusL => {
            let mut r = [0u8; 32];
            r.copy_from_slice(&e.signature[..32]);
            (r, plus_l(&e.signature[32..]))
        }
        _ => crafted(craft, key.to_scalar(), |r| {
            let mut h = Sha512::new();
            h.update(r);
            h.update(key.verifying_key().as_bytes());
            h.update(&message);
            let mut hram = [0u8; 64];
            hram.copy_from_slice(&h.finalize());
            Scalar::from_bytes_mod_order_wide(&hram)
        }),
    };
    t.envelopes[i].signature[..32].copy_from_slice(&r);
    t.envelopes[i].signature[32..].copy_from_slice(&s);
    t
}

fn one_by_one(t: &Transcript) -> Result<(), DealerError> {
    t.envelopes
        .iter()
        .try_for_each(|e| e.verify(&t.params.session, &t.params.roster))
}

fn batch(t: &Transcript) -> Result<(), DealerError> {
    let keys = t.params.roster.verifying_keys().expect("valid roster keys");
    let all: Vec<&Envelope> = t.envelopes.iter().collect();
    verify_all(&all, &t.params.session, &keys)
}

const REFUSED: [Craft; 10] = [
    Craft::ScalarPlusL,
    Craft::IdentityNonce,
    Craft::SmallOrderNonce(1),
    Craft::SmallOrderNonce(2),
    Craft::SmallOrderNonce(3),
    Craft::SmallOrderNonce(4),
    Craft::SmallOrderNonce(5),
    Craft::SmallOrderNonce(6),
    Craft::SmallOrderNonce(7),
    Craft::NonCanonicalNonce,
];

#[test]
fn a_crafted_nonce_or_scalar_is_refused_alone_in_the_batch_and_in_the_audit_naming_its_signer() {
    let (t, keys) = deal(40);
    let len = t.envelopes.len();
    for (k, craft) in REFUSED.into_iter().enumerate() {
        // Among good signatures: first, last, and in between (each signer in turn).
        for i in [0, len - 1, (k * 7 + 3) % len] {
            let crafted = resign(&t, &keys, i, craft);
            let e = &crafted.envelopes[i];
            let want = Err(DealerError::BadSignature {
                from: e.from,
                seq: e.seq,
            });
            assert_eq!(one_by_one(&crafted), want, "{craft:?} at {i}, alone");
            assert_eq!(batch(&crafted), want, "{craft:?} at {i}, in the batch");
            assert_eq!(
                audit(&crafted).map(|_| ()),
                want,
                "{craft:?} at {i}, in the audit"
            );
        }
    }
}

#[test]
fn a_batch_with_one_crafted_signature_among_good_ones_names_exactly_its_signer() {
    // Every envelope in turn, each signer's: the fallback names the one crafted envelope,
    // never the signer of a good one before or after it.
    let (t, keys) = deal(41);
    for i in 0..t.envelopes.len() {
        let craft = REFUSED[i % REFUSED.len()];
        let crafted = resign(&t, &keys, i, craft);
        let e = &crafted.envelopes[i];
        assert_eq!(
            batch(&crafted),
            Err(DealerError::BadSignature {
                from: e.from,
                seq: e.seq
            }),
            "{craft:?} at {i}"
        );
    }
}

#[test]
fn a_nonce_with_a_torsion_component_gets_one_verdict_alone_and_in_any_batch() {
    // Accepted by the cofactored rule, alone and in every batch alike (before, ed25519-dalek's
    // batch accepted it or not depending on the other signatures' weights, and the
    // cofactorless single check refused it).
    let (t, keys) = deal(42);
    for i in [0, t.envelopes.len() / 2, t.envelopes.len() - 1] {
        let crafted = resign(&t, &keys, i, Craft::TorsionComponent);
        assert_ne!(crafted.envelopes[i], t.envelopes[i]);
        assert_eq!(one_by_one(&crafted), Ok(()), "{i}, alone");
        assert_eq!(batch(&crafted), Ok(()), "{i}, in the batch");
        let report = audit(&crafted).expect("audits");
        assert!(report.passed, "{i}: {:?}", report.findings);
        // In a batch of two, with each other envelope in turn.
        let keys_of = crafted.params.roster.verifying_keys().expect("valid keys");
        for other in &crafted.envelopes {
            let pair = [&crafted.envelopes[i], other];
            assert_eq!(verify_all(&pair, &crafted.params.session, &keys_of), Ok(()));
        }
    }
}

#[test]
fn a_roster_key_of_small_order_or_non_canonical_encoding_is_refused() {
    // A key of small order would let anyone sign as its player (and so let him deny his own
    // messages); the audit refuses the transcript, blaming nobody.
    let (t, _) = deal(43);
    let mut non_canonical = [0xffu8; 32];
    non_canonical[0] = 0xee;
    non_canonical[31] = 0x7f;
    let bad: Vec<[u8; 32]> = EIGHT_TORSION
        .iter()
        .map(|p| p.compress().to_bytes())
        .chain([non_canonical])
        .collect();
    for key in bad {
        let mut t = t.clone();
        t.params.roster.keys[1] = PublicKey(key);
        assert!(
            matches!(
                t.params.roster.verifying_keys(),
                Err(DealerError::Transcript(_))
            ),
            "{key:?}"
        );
        let err = audit(&t).expect_err("a weak roster key");
        assert!(matches!(err, DealerError::Transcript(_)), "{err}");
        assert_eq!(facedown_core::Blame::blamed(&err), None);
    }
}
