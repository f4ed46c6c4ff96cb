//! "A cheater cannot win or frame anyone" on the layer model's openings: a holder on a route
//! through several holders who forwards a wrong position or shows a false card, publicly or
//! to one player, is named at the end by every honest player from the signed hops everyone
//! holds then; a false bundle of hops names its sender; an honest player is never blamed.
//!
//! Every table is three players, three cards `0, 1, 2` and one uniform cut drawn by all, so
//! an opening's route visits 3, 2, 1: hop 0 from player 3 to 2, hop 1 from 2 to 1, hop 2 the
//! cards from 1 (to everyone, or to one player).

use std::sync::{Arc, OnceLock};

use facedown_core::adversary::{self, Adversary, At, Edit, Rule};
use facedown_core::engine::Engine as _;
use facedown_core::table::{FaceDownTable, ShuffleSet};
use facedown_core::{Blame, DriveError, LocalDriver, PartyId, Symbol};
use facedown_dealer::engine::{BundleFault, DealerMessage, EngineError, HopFault};
use facedown_dealer::{Body, Domain, Envelope, SessionId};

use crate::engine::{cut, engines, own_key};

type Cheating = Adversary<crate::engine::Engine>;

/// What one cheater does.
#[derive(Clone)]
enum Act {
    /// Edits the values he signs on hop `hop` of lane 0 and signs them anew; with `bundle`,
    /// the same envelope in his bundle at the end too (a consistent liar).
    Hop {
        hop: u16,
        edit: fn(&mut [u16]),
        bundle: bool,
    },
    /// Rewrites his bundle at the end (given his key and the session, to sign anew).
    Bundle(fn(&mut Vec<Envelope>, &ed25519_dalek::SigningKey, &SessionId)),
}

fn swap(values: &mut [u16]) {
    values.swap(0, 1);
}

/// The session, known once the table is set up.
type Session = Arc<OnceLock<SessionId>>;

/// The cheater's rewriting of one message's bytes.
fn forge(act: Act, me: PartyId, key: ed25519_dalek::SigningKey, session: Session) -> Edit {
    Arc::new(move |bytes: &[u8]| {
        let (Ok(message), Some(session)) =
            (DealerMessage::from_bytes(bytes, PartyId(1)), session.get())
        else {
            return bytes.to_vec();
        };
        let resign = |env: &Envelope, on: u16, edit: fn(&mut [u16])| match &env.body {
            Body::Values {
                lane: 0,
                hop,
                values,
            } if *hop == on => {
                let mut values = values.clone();
                edit(&mut values);
                let body = Body::Values {
                    lane: 0,
                    hop: *hop,
                    values,
                };
                Envelope::sign_in(
                    Domain::Layers,
                    session,
                    &key,
                    env.from,
                    env.to,
                    env.seq,
                    body,
                )
            }
            _ => env.clone(),
        };
        let message = match (message, &act) {
            (DealerMessage::Envelope(env), Act::Hop { hop, edit, .. }) => {
                DealerMessage::Envelope(resign(&env, *hop, *edit))
            }
            (
                DealerMessage::Close { reveal, mut held },
                Act::Hop {
                    hop,
                    edit,
                    bundle: true,
                },
            ) => {
                for env in held.iter_mut().filter(|e| e.from == me) {
                    *env = resign(env, *hop, *edit);
                }
                DealerMessage::Close { reveal, held }
            }
            (DealerMessage::Close { reveal, mut held }, Act::Bundle(rewrite)) => {
                rewrite(&mut held, &key, session);
                DealerMessage::Close { reveal, held }
            }
            (other, _) => other,
        };
        message.to_bytes()
    })
}

/// A table whose `cheaters` act as given, set up, with the session shared with their edits.
fn table(seed: u64, cheaters: &[(PartyId, Act)]) -> LocalDriver<Cheating> {
    let session: Session = Arc::new(OnceLock::new());
    let players = engines(3, seed)
        .into_iter()
        .map(|e| {
            let rules = cheaters
                .iter()
                .filter(|(p, _)| *p == e.me())
                .map(|(p, act)| Rule {
                    at: At::Matching(Arc::new(|_: &[u8]| true)),
                    deviation: adversary::Deviation::Forge(forge(
                        act.clone(),
                        *p,
                        own_key(seed, *p),
                        session.clone(),
                    )),
                })
                .collect();
            Adversary::new(e, rules)
        })
        .collect();
    let t = LocalDriver::new(players).expect("honest setup");
    let id = t.engine(PartyId(1)).and_then(|a| a.inner().session());
    session.set(id.expect("set up")).expect("set once");
    t
}

/// What an honest table of the same seed turns.
fn honest_turn(seed: u64) -> Vec<Symbol> {
    let mut h = table(seed, &[]);
    deal_three(&mut h);
    h.turn(&[0, 1, 2]).expect("honest")
}

fn deal_three(t: &mut LocalDriver<Cheating>) {
    t.place(&[Symbol::Card(0), Symbol::Card(1), Symbol::Card(2)])
        .expect("place");
    t.shuffle(&ShuffleSet::Uniform(cut(3))).expect("a group");
}

/// Every player's verdict on a failed end, by player.
fn verdicts(
    t: &LocalDriver<Cheating>,
    failed: &DriveError<EngineError>,
) -> Vec<(PartyId, Option<PartyId>, String)> {
    std::iter::once(failed)
        .chain(t.later_failures())
        .filter_map(|e| match e {
            DriveError::Engine { party, source } => {
                Some((*party, source.blamed(), format!("{source:?}")))
            }
            DriveError::Echo { party, source } => {
                Some((*party, source.blamed(), format!("{source:?}")))
            }
            _ => None,
        })
        .collect()
}

/// The honest players' engine verdicts at the end.
fn honest_errors<'a>(
    t: &'a LocalDriver<Cheating>,
    failed: &'a DriveError<EngineError>,
    cheaters: &[PartyId],
) -> Vec<(PartyId, &'a EngineError)> {
    std::iter::once(failed)
        .chain(t.later_failures())
        .filter_map(|e| match e {
            DriveError::Engine { party, source } if !cheaters.contains(party) => {
                Some((*party, source))
            }
            _ => None,
        })
        .collect()
}

/// Every honest player reaches a verdict that names `cheater` as the false holder of `hop`,
/// and no honest player's verdict names anyone but a cheater.
fn assert_named(
    t: &LocalDriver<Cheating>,
    failed: &DriveError<EngineError>,
    cheaters: &[PartyId],
    cheater: PartyId,
    hop: u16,
    two_versions: bool,
) {
    let errors = honest_errors(t, failed, cheaters);
    for honest in PartyId::all(3).filter(|p| !cheaters.contains(p)) {
        let (_, source) = errors
            .iter()
            .find(|(p, _)| *p == honest)
            .unwrap_or_else(|| panic!("{honest} reaches a verdict: {:?}", verdicts(t, failed)));
        match source {
            EngineError::FalseCard {
                party,
                hop: h,
                fault,
                ..
            } => {
                assert_eq!((*party, *h), (cheater, hop), "{honest}: {source}");
                assert_eq!(
                    matches!(fault, HopFault::TwoVersions),
                    two_versions,
                    "{honest}: {source}"
                );
            }
            other => panic!("{honest}: {other}"),
        }
        assert_eq!(source.blamed(), Some(cheater));
    }
    for (party, blamed, what) in verdicts(t, failed) {
        if !cheaters.contains(&party) {
            assert!(
                blamed.is_none() || cheaters.contains(&blamed.unwrap_or(party)),
                "{party} blames an honest player: {what}"
            );
        }
    }
}

#[test]
fn a_middle_holder_who_forwards_a_wrong_position_is_named_by_every_honest_player() {
    for bundle in [true, false] {
        let cheater = PartyId(2);
        let act = Act::Hop {
            hop: 1,
            edit: swap,
            bundle,
        };
        let mut t = table(11, &[(cheater, act)]);
        deal_three(&mut t);
        let mut seen = t
            .turn(&[0, 1, 2])
            .expect("every view agrees on the false cards");
        seen.sort();
        assert_eq!(seen, [Symbol::Card(0), Symbol::Card(1), Symbol::Card(2)]);
        let failed = t.finish().expect_err("the end recomputes the route");
        // A consistent liar's bundle shows the false value; otherwise his bundle and player
        // 1's show two envelopes he signed for one hop.
        assert_named(&t, &failed, &[cheater], cheater, 1, !bundle);
    }
}

#[test]
fn a_first_holder_who_forwards_a_wrong_position_is_named_by_every_honest_player() {
    let cheater = PartyId(3);
    let act = Act::Hop {
        hop: 0,
        edit: swap,
        bundle: true,
    };
    let mut t = table(12, &[(cheater, act)]);
    deal_three(&mut t);
    let seen = t.turn(&[0, 1, 2]).expect("every view agrees");
    assert_ne!(seen, honest_turn(12), "the swap changed the cards turned");
    let failed = t.finish().expect_err("named at the end");
    assert_named(&t, &failed, &[cheater], cheater, 0, false);
}

#[test]
fn the_last_of_three_holders_who_shows_a_false_card_is_named_by_every_honest_player() {
    let cheater = PartyId(1);
    let act = Act::Hop {
        hop: 2,
        edit: swap,
        bundle: true,
    };
    let mut t = table(13, &[(cheater, act)]);
    deal_three(&mut t);
    // He sees his own honest cards, the others the swapped ones: the views differ.
    let turned = t.turn(&[0, 1, 2]);
    assert!(
        matches!(turned, Err(DriveError::Inconsistent { .. })),
        "{turned:?}"
    );
    let failed = t.finish().expect_err("named at the end");
    assert_named(&t, &failed, &[cheater], cheater, 2, false);
}

#[test]
fn colluding_holders_name_the_first_of_them_and_never_the_honest_one() {
    // 3 forwards a wrong position and 2 a wrong one again: 3 deviated first.
    let first = (
        PartyId(3),
        Act::Hop {
            hop: 0,
            edit: swap,
            bundle: true,
        },
    );
    let second = (
        PartyId(2),
        Act::Hop {
            hop: 1,
            edit: swap,
            bundle: true,
        },
    );
    let mut t = table(14, &[first.clone(), second]);
    deal_three(&mut t);
    // The second swap undoes the first: the cards turned are the true ones.
    assert_eq!(t.turn(&[0, 1, 2]).expect("agreed"), honest_turn(14));
    let failed = t.finish().expect_err("still named");
    assert_named(&t, &failed, &[PartyId(2), PartyId(3)], PartyId(3), 0, false);
    // 3 forwards a wrong position to the honest 2, and 1 "corrects" the card he shows: the
    // true cards are turned, and 3 is named, not the honest 2 in the middle.
    let fixer = (
        PartyId(1),
        Act::Hop {
            hop: 2,
            edit: swap,
            bundle: true,
        },
    );
    let mut t = table(14, &[first, fixer]);
    deal_three(&mut t);
    // 1's own engine sees the cards it computed from the wrong position, the others the
    // true ones he shows: the views differ at the turn, and nothing there names anyone.
    let turned = t.turn(&[0, 1, 2]);
    assert!(
        matches!(turned, Err(DriveError::Inconsistent { .. })),
        "{turned:?}"
    );
    let failed = t.finish().expect_err("named at the end");
    assert_named(&t, &failed, &[PartyId(1), PartyId(3)], PartyId(3), 0, false);
}

#[test]
fn a_false_card_opened_privately_is_named_by_every_honest_player() {
    for bundle in [true, false] {
        let cheater = PartyId(1);
        let act = Act::Hop {
            hop: 2,
            edit: swap,
            bundle,
        };
        let mut t = table(15, &[(cheater, act)]);
        deal_three(&mut t);
        let mut hand = t.open_to(PartyId(2), &[0, 1]).expect("shown to player 2");
        hand.sort();
        assert_eq!(hand.len(), 2);
        let failed = t.finish().expect_err("the receiver's card is rechecked");
        assert_named(&t, &failed, &[cheater], cheater, 2, !bundle);
    }
}

#[test]
fn a_false_card_opened_privately_to_a_player_without_layers_is_named_by_every_honest_player() {
    // Player 3 alone holds a layer (his committed bit); player 1 holds none but holds the
    // signed card, and sends it at the end.
    let cheater = PartyId(3);
    let act = Act::Hop {
        hop: 0,
        edit: swap,
        bundle: true,
    };
    let mut t = table(16, &[(cheater, act)]);
    t.commit(cheater, &[Symbol::Heart, Symbol::Club])
        .expect("his bit");
    let hand = t.open_to(PartyId(1), &[0, 1]).expect("shown to player 1");
    assert_eq!(hand, [Symbol::Club, Symbol::Heart], "the swapped bit");
    let failed = t.finish().expect_err("the receiver's card is rechecked");
    assert_named(&t, &failed, &[cheater], cheater, 0, false);
}

#[test]
fn honest_openings_through_several_holders_never_blame_anyone() {
    for seed in 0..6 {
        let mut t = table(seed, &[]);
        deal_three(&mut t);
        t.turn(&[0]).expect("turned");
        t.open_to(PartyId(2), &[1]).expect("to 2");
        t.open_to(PartyId(1), &[2]).expect("to 1");
        t.commit(PartyId(3), &[Symbol::Club, Symbol::Heart])
            .expect("a bit");
        t.open_to(PartyId(1), &[3, 4])
            .expect("to a player without its layer");
        t.finish()
            .unwrap_or_else(|e| panic!("seed {seed}: an honest end blamed: {e}"));
    }
}

/// A table where player 2 rewrites his bundle at the end, after a turn through all three.
fn false_bundle(
    seed: u64,
    rewrite: fn(&mut Vec<Envelope>, &ed25519_dalek::SigningKey, &SessionId),
) -> (LocalDriver<Cheating>, DriveError<EngineError>) {
    let mut t = table(seed, &[(PartyId(2), Act::Bundle(rewrite))]);
    deal_three(&mut t);
    t.turn(&[0, 1, 2]).expect("honest turn");
    let failed = t.finish().expect_err("a false bundle");
    (t, failed)
}

/// Every honest player names player 2 for his bundle, as `fault`.
fn assert_bundle_blamed(
    t: &LocalDriver<Cheating>,
    failed: &DriveError<EngineError>,
    fault: fn(&BundleFault) -> bool,
) {
    let errors = honest_errors(t, failed, &[PartyId(2)]);
    for honest in [PartyId(1), PartyId(3)] {
        let (_, source) = errors
            .iter()
            .find(|(p, _)| *p == honest)
            .unwrap_or_else(|| panic!("{honest} reaches a verdict: {:?}", verdicts(t, failed)));
        assert!(
            matches!(source, EngineError::Bundle { party: PartyId(2), fault: f } if fault(f)),
            "{honest}: {source}"
        );
    }
}

#[test]
fn a_holder_who_withholds_a_hop_from_his_bundle_is_named() {
    let (t, failed) = false_bundle(21, |held, _, _| {
        held.remove(0);
    });
    assert_bundle_blamed(&t, &failed, |f| {
        matches!(f, BundleFault::Missing { lane: 0, .. })
    });
}

#[test]
fn a_holder_who_claims_to_have_received_another_value_is_named_not_its_sender() {
    // He cannot sign as player 3: the changed envelope's signature fails, and he relayed it.
    let (t, failed) = false_bundle(22, |held, _, _| {
        for env in held.iter_mut().filter(|e| e.from == PartyId(3)) {
            if let Body::Values { values, .. } = &mut env.body {
                values.swap(0, 1);
            }
        }
    });
    assert_bundle_blamed(&t, &failed, |f| *f == BundleFault::Foreign);
}

#[test]
fn an_envelope_replayed_from_another_hop_or_session_in_a_bundle_names_its_relayer() {
    // Another hop: his own hop 1 in place of the hop 0 he received.
    let (t, failed) = false_bundle(23, |held, _, _| {
        if let Some(own) = held.iter().find(|e| e.from == PartyId(2)).cloned() {
            held.retain(|e| e.from == PartyId(2));
            held.push(own);
        }
    });
    assert_bundle_blamed(&t, &failed, |f| {
        *f == BundleFault::Missing { lane: 0, hop: 0 }
    });
    // Another session: his own hop as he signed it in another game.
    let (t, failed) = false_bundle(24, |held, key, _| {
        for env in held.iter_mut().filter(|e| e.from == PartyId(2)) {
            *env = Envelope::sign_in(
                Domain::Layers,
                &SessionId([7; 32]),
                key,
                env.from,
                env.to,
                env.seq,
                env.body.clone(),
            );
        }
    });
    assert_bundle_blamed(&t, &failed, |f| *f == BundleFault::Foreign);
}

#[test]
fn an_oversized_bundle_is_refused_naming_its_sender() {
    let (t, failed) = false_bundle(25, |held, _, _| {
        let copy = held.clone();
        held.extend(copy);
    });
    assert_bundle_blamed(&t, &failed, |f| {
        matches!(f, BundleFault::TooMany { got: 4, most: 2 })
    });
}

#[test]
fn a_holder_who_sends_different_bundles_to_different_peers_never_gets_an_honest_player_named() {
    let seed = 26;
    let session: Session = Arc::new(OnceLock::new());
    let act = Act::Hop {
        hop: 1,
        edit: swap,
        bundle: true,
    };
    let other = forge(act, PartyId(2), own_key(seed, PartyId(2)), session.clone());
    let players = engines(3, seed)
        .into_iter()
        .map(|e| {
            let rules = if e.me() == PartyId(2) {
                vec![Rule {
                    at: At::Matching(Arc::new(|b: &[u8]| {
                        matches!(
                            DealerMessage::from_bytes(b, PartyId(2)),
                            Ok(DealerMessage::Close { .. })
                        )
                    })),
                    deviation: adversary::Deviation::Equivocate {
                        to: PartyId(3),
                        edit: other.clone(),
                    },
                }]
            } else {
                Vec::new()
            };
            Adversary::new(e, rules)
        })
        .collect();
    let mut t = LocalDriver::new(players).expect("honest setup");
    let id = t.engine(PartyId(1)).and_then(|a| a.inner().session());
    session.set(id.expect("set up")).expect("set once");
    deal_three(&mut t);
    t.turn(&[0, 1, 2]).expect("honest turn");
    let failed = t.finish().expect_err("two bundles");
    let all = verdicts(&t, &failed);
    assert!(
        all.iter()
            .any(|(p, b, _)| *p != PartyId(2) && *b == Some(PartyId(2))),
        "an honest player names him: {all:?}"
    );
    for (party, blamed, what) in all {
        if party != PartyId(2) {
            assert!(matches!(blamed, None | Some(PartyId(2))), "{party}: {what}");
        }
    }
}
