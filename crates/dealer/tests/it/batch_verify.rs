//! Batched signature checks give the one-by-one verdict: the same error, naming the same
//! sender and sequence number, wherever the forged envelopes sit in the batch — at a receiver
//! (`PlayerReady::receive_round`), in the audit, and in `verify_all` itself.

use facedown_core::rng::seeded_rng;
use facedown_core::PartyId;
use facedown_dealer::messages::verify_all;
use facedown_dealer::{
    audit, DealerError, Envelope, Operation, PlayerReady, Route, Scheme, Table, Transcript,
};
use proptest::prelude::*;

use crate::malformed::fixture;

/// A 4-player, 16-card deal with hands of 2 and 4 public cards, audited.
fn honest_transcript() -> Transcript {
    let scheme = Scheme::general(4, 16).expect("valid");
    let mut table = Table::setup_with_rng(scheme, None, &mut seeded_rng(21)).expect("setup");
    table.deal_hands(2).expect("hands");
    table.open_public(&[8, 9, 10, 11]).expect("public");
    let finished = table.finish().expect("finish");
    assert!(finished.audit.passed, "an honest deal passes its audit");
    finished.transcript
}

/// The first error of checking every envelope on its own, in order.
fn one_by_one(t: &Transcript) -> Result<(), DealerError> {
    t.envelopes
        .iter()
        .try_for_each(|e| e.verify(&t.params.session, &t.params.roster))
}

/// Flips one bit of the signature of each envelope in `forged` (indices modulo the length).
fn forge(t: &Transcript, forged: &[usize]) -> Transcript {
    let mut t = t.clone();
    let len = t.envelopes.len();
    for &i in forged {
        t.envelopes[i % len].signature[i % 64] ^= 1 << (i % 8);
    }
    t
}

fn batch(t: &Transcript) -> Result<(), DealerError> {
    let keys = t.params.roster.verifying_keys().expect("valid roster keys");
    let all: Vec<&Envelope> = t.envelopes.iter().collect();
    verify_all(&all, &t.params.session, &keys)
}

#[test]
fn an_honest_transcript_verifies_in_one_batch() {
    let t = honest_transcript();
    assert!(t.envelopes.len() > 50, "a batch of many envelopes");
    assert_eq!(batch(&t), Ok(()));
}

#[test]
fn a_forged_envelope_names_its_signer_in_the_batch_and_in_the_audit() {
    let t = honest_transcript();
    for i in [0, 1, t.envelopes.len() / 2, t.envelopes.len() - 1] {
        let forged = forge(&t, &[i]);
        let e = &forged.envelopes[i];
        let want = DealerError::BadSignature {
            from: e.from,
            seq: e.seq,
        };
        assert_eq!(one_by_one(&forged), Err(want.clone()));
        assert_eq!(
            batch(&forged),
            Err(want.clone()),
            "envelope {i} in the batch"
        );
        assert_eq!(audit(&forged), Err(want), "envelope {i} in the audit");
    }
}

#[test]
fn an_unknown_sender_in_a_batch_is_named_as_one_by_one() {
    let mut t = honest_transcript();
    let i = t.envelopes.len() / 3;
    t.envelopes[i].from = PartyId(9);
    let want = Err(DealerError::UnknownSender {
        claimed: 9,
        players: 4,
    });
    assert_eq!(one_by_one(&t), want);
    assert_eq!(batch(&t), want);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn batch_verdict_equals_one_by_one(forged in prop::collection::vec(0usize..4096, 0..4)) {
        let t = forge(&honest_transcript(), &forged);
        prop_assert_eq!(batch(&t), one_by_one(&t));
    }
}

/// Schedules public openings of positions 0..4 and returns the first round: the messages
/// every player sends before receiving any.
fn first_round(players: &mut [PlayerReady]) -> Vec<Envelope> {
    let mut round = vec![];
    for id in 0..4 {
        let op = Operation {
            id,
            position: id as u16,
            route: Route::Public,
        };
        for p in players.iter_mut() {
            round.extend(p.schedule(op).expect("schedule"));
        }
    }
    round
}

#[test]
fn a_receivers_batch_gives_the_answers_and_the_error_of_one_by_one() {
    for forged in [None, Some(0), Some(2), Some(3)] {
        let mut batched = fixture().players;
        let mut single = fixture().players;
        let mut round = first_round(&mut batched);
        assert_eq!(round, first_round(&mut single), "deterministic tables");
        let to = round[0].to;
        round.retain(|e| e.to == to);
        assert_eq!(
            round.len(),
            4,
            "one first hop per opening, all to one player"
        );
        if let Some(i) = forged {
            round[i].signature[0] ^= 1;
        }
        let receiver = batched
            .iter()
            .position(|p| round[0].is_for(p.id()))
            .expect("a receiver");
        let refs: Vec<&Envelope> = round.iter().collect();
        let got = batched[receiver].receive_round(&refs);
        let mut want = vec![];
        for e in &round {
            let r = single[receiver].receive(e);
            let failed = r.is_err();
            want.push(r);
            if failed {
                break;
            }
        }
        assert_eq!(got, want, "forged envelope {forged:?}");
        if let Some(i) = forged {
            let named = DealerError::BadSignature {
                from: round[i].from,
                seq: round[i].seq,
            };
            assert_eq!(got.last(), Some(&Err(named)), "the forger is named");
            assert_eq!(got.len(), i + 1, "nothing after the forgery is acted on");
        }
    }
}
