//! Issue 14, item 11 (roster): a roster that would let one player answer for another, or whose
//! "authentication" proves nothing, is refused with a typed error naming the players.

use crate::common;

use facedown_core::PartyId;
use facedown_net::{NetError, Roster, RosterError, StaticKeypair, TcpMesh};

use common::{loopback, quick};

/// X25519 public keys of small order (and their aliases), each of which makes every
/// Diffie–Hellman output with it predictable: 0, 1, the two points of order 8, `p − 1`, and the
/// non-canonical `p`, `p + 1` and a key with the top bit set.
fn weak_keys() -> Vec<[u8; 32]> {
    let hex32 = |s: &str| -> [u8; 32] {
        let v = hex::decode(s).expect("hex");
        <[u8; 32]>::try_from(v.as_slice()).expect("32 bytes")
    };
    let mut p = [0xffu8; 32];
    p[0] = 0xed;
    p[31] = 0x7f;
    let mut p_minus_1 = p;
    p_minus_1[0] = 0xec;
    let mut p_plus_1 = p;
    p_plus_1[0] = 0xee;
    let mut one = [0u8; 32];
    one[0] = 1;
    let mut top_bit = StaticKeypair::from_private([3; 32]).public;
    top_bit[31] |= 0x80;
    vec![
        [0u8; 32],
        one,
        hex32("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
        hex32("5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"),
        p_minus_1,
        p,
        p_plus_1,
        top_bit,
    ]
}

#[test]
fn issue_14_a_weak_public_key_is_refused_naming_its_player() {
    let (roster, _, _) = loopback(3, 40);
    for key in weak_keys() {
        let mut r = roster.clone();
        r.parties[1].public_key = key;
        let expected = Err(RosterError::WeakKey {
            party: PartyId(2),
            reason: match r.validate() {
                Err(RosterError::WeakKey { reason, .. }) => reason,
                other => panic!("{} must be refused, got {other:?}", hex::encode(key)),
            },
        });
        assert_eq!(r.validate(), expected);
        match Roster::from_toml(&r.to_toml()) {
            Err(NetError::Roster(RosterError::WeakKey { party, .. })) => {
                assert_eq!(party, PartyId(2));
            }
            other => panic!("the parser must refuse {}: {other:?}", hex::encode(key)),
        }
    }
    assert_eq!(roster.validate(), Ok(()), "fresh keys are fine");
}

#[test]
fn issue_14_a_shared_key_or_address_is_refused_naming_both_players() {
    let (roster, _, _) = loopback(3, 41);
    let mut shared_key = roster.clone();
    shared_key.parties[2].public_key = shared_key.parties[0].public_key;
    assert_eq!(
        shared_key.validate(),
        Err(RosterError::DuplicateKey {
            first: PartyId(1),
            second: PartyId(3)
        })
    );
    assert!(matches!(
        Roster::from_toml(&shared_key.to_toml()),
        Err(NetError::Roster(RosterError::DuplicateKey { .. }))
    ));
    let mut shared_address = roster.clone();
    shared_address.parties[2].address = shared_address.parties[1].address;
    assert_eq!(
        shared_address.validate(),
        Err(RosterError::DuplicateAddress {
            first: PartyId(2),
            second: PartyId(3),
            address: roster.parties[1].address,
        })
    );
    assert!(matches!(
        Roster::from_toml(&shared_address.to_toml()),
        Err(NetError::Roster(RosterError::DuplicateAddress { .. }))
    ));
    let mut nowhere = roster.clone();
    nowhere.parties[0].address = "0.0.0.0:4000".parse().expect("address");
    assert!(matches!(
        nowhere.validate(),
        Err(RosterError::UndialableAddress {
            party: PartyId(1),
            ..
        })
    ));
}

#[test]
fn issue_14_connect_refuses_a_roster_built_in_code_with_a_shared_key() {
    let (mut roster, keys, mut listeners) = loopback(2, 42);
    roster.parties[1].public_key = roster.parties[0].public_key;
    let listener = listeners.remove(0);
    match TcpMesh::connect(&roster, PartyId(1), &keys[0], listener, quick()) {
        Err(NetError::Roster(RosterError::DuplicateKey { first, second })) => {
            assert_eq!((first, second), (PartyId(1), PartyId(2)));
        }
        other => panic!("connect must refuse the roster, got {other:?}"),
    }
}

#[test]
fn issue_14_signing_keys_are_in_the_roster_checked_and_bound_to_the_key_file() {
    let (roster, keys, _) = loopback(3, 41);
    // Round trip through the file, signing keys included.
    assert_eq!(
        Roster::from_toml(&roster.to_toml()).expect("parses"),
        roster
    );
    // The identity (small order) and a non-point are refused, naming the player.
    let not_a_point = (2u8..=255)
        .map(|b| {
            let mut k = [0u8; 32];
            k[0] = b;
            k
        })
        .find(|k| ed25519_dalek::VerifyingKey::from_bytes(k).is_err())
        .expect("some y is not on the curve");
    let mut identity = [0u8; 32];
    identity[0] = 1;
    for key in [identity, not_a_point] {
        let mut r = roster.clone();
        r.parties[2].signing_key = key;
        assert!(
            matches!(
                r.validate(),
                Err(RosterError::WeakKey {
                    party: PartyId(3),
                    ..
                })
            ),
            "{}: {:?}",
            hex::encode(key),
            r.validate()
        );
    }
    // Two players with one signing key: either could sign for the other.
    let mut shared = roster.clone();
    shared.parties[1].signing_key = shared.parties[0].signing_key;
    assert_eq!(
        shared.validate(),
        Err(RosterError::DuplicateSigningKey {
            first: PartyId(1),
            second: PartyId(2)
        })
    );
    // A player's broadcast keys come from its own key file, and only from it.
    assert!(roster.broadcast_keys(PartyId(1), &keys[0]).is_ok());
    assert!(matches!(
        roster.broadcast_keys(PartyId(1), &keys[1]),
        Err(NetError::Config(_))
    ));
}
