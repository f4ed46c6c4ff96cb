//! The dealer's per-player engines at a table of the in-memory driver: the layer model of card
//! protocols and the deal, what each player sees, and what a cheating player or network is
//! refused (named).

use std::sync::{Arc, OnceLock};

use facedown_core::adversary::{self, Adversary, At, Rule};
use facedown_core::engine::Engine as _;
use facedown_core::local::Delivery;
use facedown_core::rng::party_rng;
use facedown_core::table::{FaceDownTable, ShuffleSet, TableError};
use facedown_core::{Blame, DriveError, LocalDriver, PartyId, Perm, Symbol};
use facedown_dealer::engine::{DealerMessage, EngineError, ViewEvent};
use facedown_dealer::{
    Body, DealerEngine, DealerError, Deviation, Domain, Envelope, Recipient, SessionId,
};
use rand_chacha::ChaCha20Rng;

pub(crate) type Engine = DealerEngine<ChaCha20Rng>;

pub(crate) fn engines(parties: usize, seed: u64) -> Vec<Engine> {
    PartyId::all(parties)
        .map(|p| {
            DealerEngine::with_rng(p, parties, b"engine tests", party_rng(seed, 0, p))
                .expect("valid player")
        })
        .collect()
}

fn table(parties: usize, seed: u64) -> LocalDriver<Engine> {
    LocalDriver::new(engines(parties, seed)).expect("honest setup")
}

fn bit(b: bool) -> [Symbol; 2] {
    if b {
        [Symbol::Heart, Symbol::Club]
    } else {
        [Symbol::Club, Symbol::Heart]
    }
}

pub(crate) fn cut(n: usize) -> Vec<Perm> {
    (0..n)
        .map(|k| Perm::from_images((0..n).map(|i| (i + k) % n).collect()).expect("perm"))
        .collect()
}

#[test]
fn a_commitment_opens_to_its_cards_and_costs_signed_messages() {
    for b in [false, true] {
        let mut t = table(2, 1);
        let setup = t.cost().messages;
        t.commit(PartyId(1), &bit(b)).expect("commit");
        // One commitment broadcast, then the echo round: N·(N − 1) = 2 echoes.
        assert_eq!(t.cost().messages - setup, 1 + 2, "one commitment broadcast");
        let seen = t.turn(&[0, 1]).expect("in range");
        assert_eq!(seen, bit(b));
        // Both positions follow player 1's layer: one message carries both cards (and its echo).
        assert_eq!(t.cost().messages - setup, 2 * (1 + 2));
        t.finish()
            .expect("the honest openings match the commitments");
        assert!(t.turn(&[0]).is_err(), "nothing after the end");
        let views: Vec<&[ViewEvent]> = t.engines().map(|e| e.view()).collect();
        assert!(matches!(views[0][0], ViewEvent::OwnLayer(_)));
        assert_eq!(
            views[1],
            [ViewEvent::Public(bit(b)[0]), ViewEvent::Public(bit(b)[1])]
        );
    }
}

#[test]
fn group_shuffles_compose_and_every_player_knows_the_route() {
    let mut t = table(3, 2);
    t.place(&[Symbol::Card(0), Symbol::Card(1), Symbol::Card(2)])
        .expect("place");
    t.shuffle(&ShuffleSet::Uniform(cut(3))).expect("a group");
    let mut seen = t.turn(&[0, 1, 2]).expect("in range");
    seen.sort();
    assert_eq!(seen, [Symbol::Card(0), Symbol::Card(1), Symbol::Card(2)]);
    // Three layers (one per player) on every position: the route visits 3, 2, 1, then player 1
    // broadcasts the cards: 2 hops and one broadcast to two players; then the echo round,
    // N·(N − 1) = 6 messages in one more round.
    let open = t.ops().last().expect("the turn").cost;
    assert_eq!((open.messages, open.rounds), (4 + 6, 3 + 1));
    assert!(matches!(
        t.turn(&[3]),
        Err(DriveError::Engine {
            source: EngineError::Table(TableError::Position { position: 3, .. }),
            ..
        })
    ));
    t.finish().expect("every layer opens to its commitment");
}

#[test]
fn a_private_opening_on_the_row_reaches_its_player_only() {
    let mut t = table(2, 3);
    t.commit(PartyId(2), &bit(true)).expect("commit");
    t.place(&[Symbol::Club]).expect("place");
    t.shuffle(&ShuffleSet::Uniform(cut(3))).expect("a group");
    let hand = t.open_to(PartyId(1), &[0, 1, 2]).expect("open");
    let mut sorted = hand.clone();
    sorted.sort();
    assert_eq!(sorted, [Symbol::Club, Symbol::Club, Symbol::Heart]);
    let privately: Vec<usize> = t
        .engines()
        .map(|e| {
            e.view()
                .iter()
                .filter(|v| matches!(v, ViewEvent::Private(_)))
                .count()
        })
        .collect();
    assert_eq!(privately, [3, 0]);
}

#[test]
fn a_deal_gives_each_player_his_hand_and_every_player_audits_it() {
    let mut t = table(3, 4);
    let dealt = facedown_core::table::deal(&mut t, 9, 3, 0).expect("deal");
    let mut all: Vec<Symbol> = dealt.hands.iter().flatten().flatten().copied().collect();
    all.sort();
    assert_eq!(all, (0..9).map(Symbol::Card).collect::<Vec<_>>());
    // A commitment after the deal (a game's announcement) lies past the dealt cards, and a
    // turn of dealt cards and later ones together is refused.
    t.commit(PartyId(1), &bit(true))
        .expect("a commitment after the deal");
    assert_eq!(t.turn(&[9, 10]).expect("turned"), bit(true));
    assert!(matches!(
        t.turn(&[0, 9]),
        Err(DriveError::Engine {
            source: EngineError::MixedOpening,
            ..
        })
    ));
    t.finish().expect("the layers open and the audit passes");
    for e in t.engines() {
        let audit = e.audit().expect("every player audited");
        assert!(audit.passed);
        assert_eq!(audit.deal.as_ref().map(Vec::len), Some(9));
    }
}

#[test]
fn a_deal_needs_three_players_and_public_cards() {
    let mut t = table(2, 5);
    t.place(&[Symbol::Club, Symbol::Heart]).expect("place");
    assert!(matches!(
        t.shuffle(&ShuffleSet::All),
        Err(DriveError::Engine {
            source: EngineError::DealPlayers(2),
            ..
        })
    ));
    let mut t = table(3, 5);
    t.commit(PartyId(2), &bit(true)).expect("commit");
    assert!(matches!(
        t.shuffle(&ShuffleSet::All),
        Err(DriveError::Engine {
            source: EngineError::DealOverSecrets,
            ..
        })
    ));
}

#[test]
fn a_cheater_in_a_deal_is_named_by_the_audit() {
    let mut es = engines(3, 6);
    let cheater = es
        .remove(1)
        .deviating(Deviation::WrongValue { nth: 0, offset: 0 });
    es.insert(1, cheater);
    let mut t = LocalDriver::new(es).expect("setup");
    facedown_core::table::deal(&mut t, 9, 2, 1).expect("the deal runs");
    let err = t.finish().expect_err("the audit fails");
    assert_eq!(err.blamed(), Some(PartyId(2)), "{err}");
    // The driver stops at the first player whose audit fails.
    let audit = t.engines().find_map(|e| e.audit()).expect("audited");
    assert_eq!(audit.blame, Some(PartyId(2)));
}

/// Rewrites the first layer-model value of player `from` (keeping its signature).
fn tamper_value(from: PartyId) -> impl FnMut(&mut Delivery) -> bool {
    move |d: &mut Delivery| {
        if d.from == from {
            if let Ok(DealerMessage::Envelope(mut env)) =
                DealerMessage::from_bytes(&d.payload, d.from)
            {
                if let Body::Values { values, .. } = &mut env.body {
                    values[0] ^= 1;
                    d.payload = DealerMessage::Envelope(env).to_bytes();
                }
            }
        }
        true
    }
}

#[test]
fn a_value_changed_in_transit_fails_its_signature_naming_the_sender() {
    let mut t = LocalDriver::tapped(engines(2, 7), tamper_value(PartyId(2))).expect("setup");
    t.commit(PartyId(1), &bit(true)).expect("commit");
    t.shuffle(&ShuffleSet::Uniform(cut(2))).expect("a group");
    let err = t.turn(&[0, 1]).expect_err("tampered");
    assert!(
        matches!(
            err,
            DriveError::Engine {
                source: EngineError::Dealer(DealerError::BadSignature {
                    from: PartyId(2),
                    ..
                }),
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn an_envelope_relayed_as_ones_own_is_refused_naming_the_relayer() {
    // Player 3 forwards player 1's commitment to player 2 as if it were its own.
    let mut first: Option<Vec<u8>> = None;
    let relay = move |d: &mut Delivery| {
        let is_commit = |bytes: &[u8]| {
            matches!(
                DealerMessage::from_bytes(bytes, PartyId(1)),
                Ok(DealerMessage::Envelope(e)) if matches!(e.body, Body::Commit { .. })
            )
        };
        if d.from == PartyId(1) && is_commit(&d.payload) {
            first.get_or_insert_with(|| d.payload.clone());
        }
        if d.from == PartyId(3) && d.to == PartyId(2) && is_commit(&d.payload) {
            if let Some(f) = &first {
                d.payload = f.clone();
            }
        }
        true
    };
    let mut t = LocalDriver::tapped(engines(3, 8), relay).expect("setup");
    t.place(&[Symbol::Club, Symbol::Heart]).expect("place");
    let err = t
        .shuffle(&ShuffleSet::Uniform(cut(2)))
        .expect_err("relayed");
    // Player 2 got the relayed envelope and names player 3; player 1, whose copy was genuine,
    // learns from the echo only that player 3's broadcasts differ, and blames nobody.
    let verdicts: Vec<&DriveError<EngineError>> =
        std::iter::once(&err).chain(t.later_failures()).collect();
    let of = |p: PartyId| {
        verdicts
            .iter()
            .find(|e| matches!(e, DriveError::Engine { party, .. } | DriveError::Echo { party, .. } if *party == p))
    };
    let two = of(PartyId(2)).expect("player 2 fails");
    assert!(
        matches!(
            two,
            DriveError::Engine {
                source: EngineError::Dealer(DealerError::Malformed {
                    peer: PartyId(3),
                    ..
                }),
                ..
            }
        ),
        "{two}"
    );
    // The honest players frame nobody (player 3's own seat, whose message the tap rewrote,
    // is the cheater's and no witness).
    for p in [PartyId(1), PartyId(2)] {
        if let Some(e) = of(p) {
            assert!(matches!(e.blamed(), None | Some(PartyId(3))), "{e}");
        }
    }
}

#[test]
fn a_forged_envelope_in_the_transcript_exchange_is_blamed_on_its_relayer() {
    // Player 3 relays, in its transcript, an envelope "from player 1" whose value it changed:
    // the signature no longer verifies, and the relayer — not player 1 — is named.
    let forge = |d: &mut Delivery| {
        if d.from == PartyId(3) {
            if let Ok(DealerMessage::Transcript(mut list)) =
                DealerMessage::from_bytes(&d.payload, d.from)
            {
                if let Some(env) = list
                    .iter_mut()
                    .find(|e| matches!(e.body, Body::Value { .. }))
                {
                    if let Body::Value { value, .. } = &mut env.body {
                        *value ^= 1;
                    }
                }
                d.payload = DealerMessage::Transcript(list).to_bytes();
            }
        }
        true
    };
    let mut t = LocalDriver::tapped(engines(3, 9), forge).expect("setup");
    facedown_core::table::deal(&mut t, 9, 2, 1).expect("the deal runs");
    let err = t.finish().expect_err("a forged relay");
    assert!(
        matches!(
            err,
            DriveError::Engine {
                source: EngineError::Dealer(DealerError::Malformed {
                    peer: PartyId(3),
                    ..
                }),
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.blamed(), Some(PartyId(3)));
}

#[test]
fn a_hello_without_a_valid_signature_key_is_refused_naming_its_sender() {
    // The first `[k, 0, …, 0]` that is not the encoding of a point.
    let not_a_point = (2u8..)
        .map(|k| {
            let mut b = [0u8; 32];
            b[0] = k;
            b
        })
        .find(|b| ed25519_dalek::VerifyingKey::from_bytes(b).is_err())
        .expect("some y is not on the curve");
    let bad_key = move |d: &mut Delivery| {
        if d.from == PartyId(2) {
            if let Ok(DealerMessage::Hello(mut h)) = DealerMessage::from_bytes(&d.payload, d.from) {
                h.key = Some(not_a_point);
                d.payload = DealerMessage::Hello(h).to_bytes();
            }
        }
        true
    };
    let err = LocalDriver::tapped(engines(3, 10), bad_key).expect_err("an invalid key");
    assert_eq!(err.blamed(), Some(PartyId(2)), "{err}");
}

/// Player `cheater`'s own signing key: the first 32 bytes of the generator his engine got.
pub(crate) fn own_key(seed: u64, cheater: PartyId) -> ed25519_dalek::SigningKey {
    let mut secret = [0u8; 32];
    rand::RngCore::fill_bytes(&mut party_rng(seed, 0, cheater), &mut secret);
    ed25519_dalek::SigningKey::from_bytes(&secret)
}

/// The cheater's broadcast of turned cards with the first two swapped, signed anew by him:
/// his own engine says another bit than the one he committed, and the signature holds.
fn swap_shown_cards(
    key: ed25519_dalek::SigningKey,
    session: Arc<OnceLock<SessionId>>,
) -> impl Fn(&[u8]) -> Vec<u8> {
    move |bytes| {
        let Ok(DealerMessage::Envelope(env)) = DealerMessage::from_bytes(bytes, CHEATER) else {
            return bytes.to_vec();
        };
        let (
            Body::Values {
                lane,
                hop,
                mut values,
            },
            Some(session),
        ) = (env.body, session.get())
        else {
            return bytes.to_vec();
        };
        values.swap(0, 1);
        let body = Body::Values { lane, hop, values };
        let env = Envelope::sign_in(
            Domain::Layers,
            session,
            &key,
            env.from,
            env.to,
            env.seq,
            body,
        );
        DealerMessage::Envelope(env).to_bytes()
    }
}

const CHEATER: PartyId = PartyId(1);

/// A broadcast of two turned cards: the turn of a one-bit announcement.
fn is_turned_pair(bytes: &[u8]) -> bool {
    matches!(
        DealerMessage::from_bytes(bytes, CHEATER),
        Ok(DealerMessage::Envelope(Envelope {
            to: Recipient::All,
            body: Body::Values { ref values, .. },
            ..
        })) if values.len() == 2
    )
}

#[test]
fn a_committer_whose_own_engine_shows_another_bit_after_the_deal_is_named_at_finish_by_every_honest_player(
) {
    let seed = 6;
    let session = Arc::new(OnceLock::new());
    let swap = swap_shown_cards(own_key(seed, CHEATER), session.clone());
    let rules = vec![Rule {
        at: At::Matching(Arc::new(is_turned_pair)),
        deviation: adversary::Deviation::Forge(Arc::new(swap)),
    }];
    let players = engines(3, seed)
        .into_iter()
        .map(|e| {
            let rules = if e.me() == CHEATER {
                rules.clone()
            } else {
                Vec::new()
            };
            Adversary::new(e, rules)
        })
        .collect();
    let mut t = LocalDriver::new(players).expect("honest setup");
    let id = t.engine(CHEATER).and_then(|a| a.inner().session());
    session.set(id.expect("set up")).expect("set once");
    facedown_core::table::deal(&mut t, 9, 3, 0).expect("deal");
    t.commit(CHEATER, &bit(true)).expect("his announcement");
    // The others see ♣♥ (0) where he committed ♥♣ (1); he sees his own bit, so the views of
    // the turn differ, and the signature and the echo hold: nothing is refused at the turn.
    let turned = t.turn(&[9, 10]);
    assert!(
        matches!(turned, Err(DriveError::Inconsistent { .. })),
        "{turned:?}"
    );
    let forged: Vec<usize> = t.engines().map(|a| a.deviated()).collect();
    assert!(forged[0] > 0 && forged[1..] == [0, 0], "{forged:?}");
    let failed = t.finish().expect_err("the end opens his layer");
    let verdicts: Vec<&DriveError<EngineError>> =
        std::iter::once(&failed).chain(t.later_failures()).collect();
    for honest in [PartyId(2), PartyId(3)] {
        let verdict = verdicts
            .iter()
            .find(|e| matches!(e, DriveError::Engine { party, .. } if *party == honest))
            .unwrap_or_else(|| panic!("{honest} reaches a verdict: {verdicts:?}"));
        let DriveError::Engine { source, .. } = verdict else {
            unreachable!("matched above");
        };
        assert!(
            matches!(
                source,
                EngineError::FalseCard {
                    party: CHEATER,
                    hop: 0,
                    ..
                }
            ),
            "{honest}: {source}"
        );
        assert_eq!(source.blamed(), Some(CHEATER));
    }
    for e in &verdicts {
        if let DriveError::Engine { party, source } = e {
            if *party != CHEATER {
                assert_eq!(source.blamed(), Some(CHEATER), "no honest player is named");
            }
        }
    }
}

#[test]
fn an_honest_committer_after_the_deal_passes_the_check_of_shown_cards_at_finish() {
    for b in [false, true] {
        let mut t = table(3, 6);
        facedown_core::table::deal(&mut t, 9, 3, 0).expect("deal");
        t.commit(PartyId(2), &bit(b)).expect("commit");
        t.commit(PartyId(3), &bit(!b)).expect("commit");
        assert_eq!(t.turn(&[9, 10, 11, 12]).expect("turned")[..2], bit(b));
        t.finish()
            .expect("every card shown is the one its layer gives");
    }
}
