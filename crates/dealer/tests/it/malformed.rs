//! Malformed, forged or out-of-range messages and transcripts get typed errors naming the
//! player — never a panic.

use ed25519_dalek::SigningKey;
use facedown_core::rng::seeded_rng;
use facedown_core::PartyId;
use facedown_dealer::messages::SessionId;
use facedown_dealer::{
    audit, Body, DealerError, Envelope, Operation, Params, Player, PlayerReady, Recipient, Roster,
    Route, Scheme, Transcript,
};
use rand::RngCore;

pub(crate) struct Fixture {
    keys: Vec<SigningKey>,
    params: Params,
    pub(crate) players: Vec<PlayerReady>,
}

/// Three players in play (deterministic: two calls give equal tables).
pub(crate) fn fixture() -> Fixture {
    let mut rng = seeded_rng(42);
    let keys: Vec<SigningKey> = (0..3)
        .map(|_| {
            let mut s = [0u8; 32];
            rng.fill_bytes(&mut s);
            SigningKey::from_bytes(&s)
        })
        .collect();
    let params = Params {
        scheme: Scheme::general(3, 8).expect("valid"),
        session: SessionId([3; 32]),
        roster: Roster::of(&keys),
    };
    let mut waiting = vec![];
    let mut msgs = vec![];
    for (j, k) in keys.iter().enumerate() {
        let p = Player::new_with_rng(
            params.clone(),
            PartyId::from_index(j),
            k.clone(),
            None,
            &mut rng,
        )
        .expect("player");
        let (w, out) = p.commit();
        waiting.push(w);
        msgs.extend(out);
    }
    let players = waiting
        .into_iter()
        .map(|w| {
            let me = w.view().party;
            let mine: Vec<Envelope> = msgs.iter().filter(|e| e.is_for(me)).cloned().collect();
            w.receive_setup(&mine).expect("setup")
        })
        .collect();
    Fixture {
        keys,
        params,
        players,
    }
}

fn signed(f: &Fixture, from: u16, to: Recipient, seq: u32, body: Body) -> Envelope {
    Envelope::sign(
        &f.params.session,
        &f.keys[usize::from(from) - 1],
        PartyId(from),
        to,
        seq,
        body,
    )
}

fn schedule_public(f: &mut Fixture) -> Envelope {
    let op = Operation {
        id: 0,
        position: 2,
        route: Route::Public,
    };
    let mut first = vec![];
    for p in &mut f.players {
        first.extend(p.schedule(op).expect("schedule"));
    }
    first.pop().expect("player 1 starts the chain")
}

#[test]
fn out_of_range_card_names_the_sender() {
    let mut f = fixture();
    schedule_public(&mut f);
    let bad = signed(
        &f,
        1,
        Recipient::Party(PartyId(2)),
        100,
        Body::Value {
            op: 0,
            hop: 0,
            value: 8,
        },
    );
    assert_eq!(
        f.players[1].receive(&bad),
        Err(DealerError::CardOutOfRange {
            from: PartyId(1),
            value: 8,
            cards: 8
        })
    );
}

#[test]
fn wrong_sender_and_bad_signature_are_rejected() {
    let mut f = fixture();
    let good = schedule_public(&mut f);
    let mut impostor = good.clone();
    impostor.from = PartyId(3);
    assert!(matches!(
        f.players[1].receive(&impostor),
        Err(DealerError::BadSignature {
            from: PartyId(3),
            ..
        })
    ));
    let mut flipped = good.clone();
    flipped.signature[10] ^= 1;
    assert!(matches!(
        f.players[1].receive(&flipped),
        Err(DealerError::BadSignature {
            from: PartyId(1),
            ..
        })
    ));
    // Signed by player 3 but sent where only player 1 may speak.
    let out_of_turn = signed(
        &f,
        3,
        Recipient::Party(PartyId(2)),
        100,
        Body::Value {
            op: 0,
            hop: 0,
            value: 1,
        },
    );
    assert!(matches!(
        f.players[1].receive(&out_of_turn),
        Err(DealerError::Unexpected {
            from: PartyId(3),
            ..
        })
    ));
    // The honest message still goes through, once.
    assert!(f.players[1].receive(&good).is_ok());
    assert_eq!(
        f.players[1].receive(&good),
        Err(DealerError::Replay {
            from: PartyId(1),
            seq: good.seq
        })
    );
}

#[test]
fn messages_for_someone_else_or_unknown_operations_are_rejected() {
    let mut f = fixture();
    let good = schedule_public(&mut f);
    assert_eq!(
        f.players[2].receive(&good),
        Err(DealerError::WrongRecipient {
            from: PartyId(1),
            me: PartyId(3)
        })
    );
    let unknown = signed(
        &f,
        1,
        Recipient::Party(PartyId(2)),
        50,
        Body::Value {
            op: 9,
            hop: 0,
            value: 1,
        },
    );
    assert!(matches!(
        f.players[1].receive(&unknown),
        Err(DealerError::Unexpected {
            from: PartyId(1),
            ..
        })
    ));
    let beyond = signed(
        &f,
        1,
        Recipient::Party(PartyId(2)),
        51,
        Body::Value {
            op: 0,
            hop: 7,
            value: 1,
        },
    );
    assert!(matches!(
        f.players[1].receive(&beyond),
        Err(DealerError::Unexpected {
            from: PartyId(1),
            ..
        })
    ));
    let reveal = signed(
        &f,
        1,
        Recipient::Party(PartyId(2)),
        52,
        Body::Reveal { openings: vec![] },
    );
    assert!(matches!(
        f.players[1].receive(&reveal),
        Err(DealerError::Unexpected {
            from: PartyId(1),
            ..
        })
    ));
}

#[test]
fn truncated_wire_bytes_name_the_peer() {
    let mut f = fixture();
    let good = schedule_public(&mut f);
    let bytes = good.to_bytes();
    for cut in [0, 1, bytes.len() / 2, bytes.len() - 1] {
        assert!(matches!(
            Envelope::from_bytes(&bytes[..cut], PartyId(1)),
            Err(DealerError::Malformed {
                peer: PartyId(1),
                ..
            })
        ));
    }
}

#[test]
fn setup_rejects_a_missing_commitment_naming_the_silent_player() {
    let mut rng = seeded_rng(1);
    let keys: Vec<SigningKey> = (0..3).map(|_| SigningKey::generate(&mut rng)).collect();
    let params = Params {
        scheme: Scheme::general(3, 8).expect("valid"),
        session: SessionId([1; 32]),
        roster: Roster::of(&keys),
    };
    let p1 = Player::new_with_rng(params.clone(), PartyId(1), keys[0].clone(), None, &mut rng)
        .expect("p1");
    let p2 = Player::new_with_rng(params, PartyId(2), keys[1].clone(), None, &mut rng).expect("p2");
    let (w1, _) = p1.commit();
    let (_, m2) = p2.commit();
    let mine: Vec<Envelope> = m2.into_iter().filter(|e| e.is_for(PartyId(1))).collect();
    assert!(matches!(
        w1.receive_setup(&mine),
        Err(DealerError::Unexpected {
            from: PartyId(3),
            ..
        })
    ));
}

fn honest_transcript() -> Transcript {
    let mut table = facedown_dealer::Table::setup_with_rng(
        Scheme::general(3, 8).expect("valid"),
        None,
        &mut seeded_rng(8),
    )
    .expect("setup");
    table.deal_hands(2).expect("deal");
    table.finish().expect("finish").transcript
}

#[test]
fn tampered_transcripts_are_typed_errors() {
    let t = honest_transcript();
    assert!(audit(&t).expect("audits").passed);

    // A value changed after signing: the forgery is detected, and attributed to nobody but
    // the claimed sender's signature.
    let mut forged = t.clone();
    let i = forged
        .envelopes
        .iter()
        .position(|e| matches!(e.body, Body::Value { .. }))
        .expect("a value message");
    if let Body::Value { value, .. } = &mut forged.envelopes[i].body {
        *value = (*value + 1) % 8;
    }
    let from = forged.envelopes[i].from;
    assert!(matches!(audit(&forged), Err(DealerError::BadSignature { from: f, .. }) if f == from));

    // A position outside the deck in the schedule.
    let mut bad_op = t.clone();
    bad_op.operations[0].position = 200;
    assert!(matches!(audit(&bad_op), Err(DealerError::Transcript(_))));

    // A copy of a message in the transcript: anyone holding the message can make one, so it
    // is read once and names nobody (its signer is not framed by a replay).
    let mut copied = t.clone();
    copied.envelopes.push(copied.envelopes[i].clone());
    assert_eq!(audit(&copied), audit(&t));
}

#[test]
fn malformed_transcript_files_are_typed_errors() {
    let json = honest_transcript().to_json();
    for cut in [0, 1, json.len() / 3, json.len() - 2] {
        assert!(matches!(
            Transcript::from_json(&json[..cut]),
            Err(DealerError::Transcript(_))
        ));
    }
    // Another format, and the first one (signed without the deal's domain label).
    for old in ["v0", "facedown-dealer-transcript/v1"] {
        let wrong_format = json.replacen("facedown-dealer-transcript/v2", old, 1);
        assert!(matches!(
            Transcript::from_json(&wrong_format),
            Err(DealerError::Transcript(_))
        ));
    }
    // Not a permutation: [0,0,…] in a helper half fails deserialization.
    let mut t = honest_transcript();
    let helper = t
        .envelopes
        .iter()
        .position(|e| matches!(e.body, Body::Helper { .. }))
        .expect("helper");
    let text = serde_json::to_string(&t.envelopes[helper]).expect("json");
    let broken = text.replacen("\"perm\":[", "\"perm\":[0,0,", 1);
    assert!(serde_json::from_str::<Envelope>(&broken).is_err());
    // Too few keys in the roster.
    t.params.roster.keys.pop();
    assert!(matches!(audit(&t), Err(DealerError::Transcript(_))));
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 256,
            failure_persistence: Some(Box::new(
                proptest::test_runner::FileFailurePersistence::WithSource("regressions"),
            )),
            ..ProptestConfig::default()
        })]

        /// Any corruption of a wire message is a typed error (or, if it still decodes, fails
        /// the signature check or is refused by the receiver) — never a panic.
        #[test]
        fn corrupted_wire_bytes_never_panic(pos in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<bool>()) {
            let mut f = fixture();
            let good = schedule_public(&mut f);
            let mut bytes = good.to_bytes();
            let i = pos.index(bytes.len());
            if cut {
                bytes.truncate(i);
            } else {
                bytes[i] = byte;
            }
            if let Ok(e) = Envelope::from_bytes(&bytes, PartyId(1)) {
                let r = f.players[1].receive(&e);
                if e != good {
                    prop_assert!(r.is_err());
                }
            }
        }

        /// Any single-character corruption of a saved transcript is rejected with a typed
        /// error or audited — never a panic — and never passes the audit with another deal.
        #[test]
        fn corrupted_transcripts_never_panic_nor_pass_with_another_deal(
            pos in any::<prop::sample::Index>(), c in any::<char>()
        ) {
            let original = honest_transcript();
            let real_deal = audit(&original).expect("audits").deal;
            let json = original.to_json();
            let mut chars: Vec<char> = json.chars().collect();
            let i = pos.index(chars.len());
            chars[i] = c;
            let text: String = chars.into_iter().collect();
            if let Ok(t) = Transcript::from_json(&text) {
                if let Ok(report) = audit(&t) {
                    if report.passed {
                        prop_assert_eq!(&report.deal, &real_deal);
                    }
                }
            }
        }
    }
}
