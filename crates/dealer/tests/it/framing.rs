//! Attempts to get an honest player named: a second signed version of a hop or of a helper
//! half relayed in the transcript exchange, a hop of the layer model relayed into the deal's
//! transcript, a transcript exchange sent in two versions, and sequence numbers that skip.
//! Every honest player's verdict names the cheater (or nobody), never an honest player; the
//! same games without the deviation pass.
//!
//! The engine-level attacks run the real [`DealerEngine`]s on the in-memory driver, the cheater
//! wrapped in an [`Adversary`] that re-signs what it sends with his own key (the attack review's
//! proofs of concept); the audit-level ones edit a transcript of the standalone table.

use crate::support::seeded_keys;
use std::sync::{Arc, Mutex, OnceLock};

use facedown_core::adversary::{self, Adversary, At, Rule};
use facedown_core::rng::{party_rng, seeded_rng};
use facedown_core::{Blame, DriveError, FaceDownTable, LocalDriver, PartyId, Symbol};
use facedown_dealer::engine::{DealerMessage, EngineError};
use facedown_dealer::{
    audit, AuditReport, Body, DealerEngine, DealerError, Deviation, Envelope, FindingKind,
    Recipient, Scheme, SessionId, Transcript,
};

use super::engine::{own_key, Engine};

const CARDS: u16 = 9;

type Cheating = LocalDriver<Adversary<Engine>>;
type Verdict = DriveError<EngineError>;

/// Three engines of `context`, player `cheater` deviating by `rules`.
fn table(seed: u64, context: &[u8], cheater: PartyId, rules: Vec<Rule>) -> Cheating {
    let players = PartyId::all(3)
        .map(|p| {
            let e = DealerEngine::with_rng(p, 3, context, party_rng(seed, 0, p)).expect("player");
            let rules = if p == cheater { rules.clone() } else { vec![] };
            Adversary::new(e, rules)
        })
        .collect();
    LocalDriver::new(players).expect("honest setup")
}

/// A rule that rewrites every message of the cheater by `edit`.
fn forge_all(edit: adversary::Edit) -> Vec<Rule> {
    vec![Rule {
        at: At::Matching(Arc::new(|_: &[u8]| true)),
        deviation: adversary::Deviation::Forge(edit),
    }]
}

/// Every verdict of the failed `finish` (the first, then the later ones).
fn verdicts<'a>(t: &'a Cheating, first: &'a Verdict) -> Vec<&'a Verdict> {
    std::iter::once(first).chain(t.later_failures()).collect()
}

fn party_of(v: &Verdict) -> Option<PartyId> {
    match v {
        DriveError::Engine { party, .. } | DriveError::Echo { party, .. } => Some(*party),
        _ => None,
    }
}

/// Every honest player reached a verdict naming `cheater`, and every audit an honest player
/// ran names nobody but him.
fn assert_honest_players_name(t: &Cheating, failed: &Verdict, cheater: PartyId) {
    let all = verdicts(t, failed);
    for honest in PartyId::all(3).filter(|&p| p != cheater) {
        let mine: Vec<&&Verdict> = all.iter().filter(|v| party_of(v) == Some(honest)).collect();
        assert!(!mine.is_empty(), "{honest} reaches a verdict: {all:?}");
        for v in mine {
            assert_eq!(v.blamed(), Some(cheater), "{honest}: {v}");
        }
        if let Some(report) = t.engine(honest).and_then(|a| a.inner().audit()) {
            assert_names_only(report, cheater);
        }
    }
}

fn assert_names_only(report: &AuditReport, cheater: PartyId) {
    assert!(
        report.findings.iter().all(|f| f.player == cheater),
        "{:?}",
        report.findings
    );
}

/// The cheater's edit of the attack review's first proof of concept: every envelope he signs
/// is signed again with its sequence number times `stretch`; with `second`, his transcript
/// exchange adds a second version of his first private message (a hop's value plus one, or a
/// helper half composed with a transposition), numbered one below the real one so that it
/// sorts first.
fn resign_edit(
    session: Arc<OnceLock<SessionId>>,
    key: ed25519_dalek::SigningKey,
    cheater: PartyId,
    stretch: u32,
    second: bool,
) -> adversary::Edit {
    Arc::new(move |bytes: &[u8]| {
        let (Ok(msg), Some(session)) = (DealerMessage::from_bytes(bytes, cheater), session.get())
        else {
            return bytes.to_vec();
        };
        let resign = |e: &Envelope| {
            if e.from != cheater {
                return e.clone();
            }
            Envelope::sign(session, &key, e.from, e.to, e.seq * stretch, e.body.clone())
        };
        let out = match msg {
            DealerMessage::Envelope(e) => DealerMessage::Envelope(resign(&e)),
            DealerMessage::Transcript(list) => {
                let mut list: Vec<Envelope> = list.iter().map(resign).collect();
                if second {
                    let real = list
                        .iter()
                        .find(|e| e.from == cheater && e.to != Recipient::All)
                        .cloned();
                    if let Some(real) = real {
                        let body = other_version(&real.body);
                        let fake =
                            Envelope::sign(session, &key, real.from, real.to, real.seq - 1, body);
                        list.push(fake);
                    }
                }
                DealerMessage::Transcript(list)
            }
            other => other,
        };
        out.to_bytes()
    })
}

/// Another value for the same slot: a hop's value plus one, a helper half with its first two
/// images swapped.
fn other_version(body: &Body) -> Body {
    match body.clone() {
        Body::Value { op, hop, value } => Body::Value {
            op,
            hop,
            value: (value + 1) % CARDS,
        },
        Body::Helper { pair, half, perm } => {
            let mut images: Vec<usize> = (0..perm.len()).map(|i| perm.apply(i)).collect();
            images.swap(0, 1);
            let perm = facedown_core::Perm::from_images(images).expect("a permutation");
            Body::Helper { pair, half, perm }
        }
        other => other,
    }
}

/// A deal of three hands of three, then the end, with `cheater` re-signing as `resign_edit`.
fn resigned_deal(
    seed: u64,
    cheater: PartyId,
    stretch: u32,
    second: bool,
) -> (Cheating, Result<(), Verdict>) {
    let session = Arc::new(OnceLock::new());
    let edit = resign_edit(
        session.clone(),
        own_key(seed, cheater),
        cheater,
        stretch,
        second,
    );
    let mut t = table(seed, b"framing", cheater, forge_all(edit));
    let id = t.engine(cheater).and_then(|a| a.inner().session());
    session.set(id.expect("set up")).expect("set once");
    facedown_core::table::deal(&mut t, CARDS, 3, 0).expect("the deal runs");
    let end = t.finish();
    (t, end)
}

#[test]
fn a_second_signed_version_of_a_private_message_names_its_signer_not_the_next_holder() {
    // Players 1 and 2 forward hops (a value to the next holder); player 3, the last player,
    // sends helper halves: each relays a second version of his first private message.
    for cheater in PartyId::all(3) {
        let (t, end) = resigned_deal(11, cheater, 1000, true);
        let failed = end.expect_err("the second version is caught");
        assert_honest_players_name(&t, &failed, cheater);
        let two_versions = |r: &AuditReport| {
            r.findings.iter().any(|f| {
                f.player == cheater
                    && matches!(
                        f.what,
                        FindingKind::TwoVersions { .. } | FindingKind::TwoHelpers { .. }
                    )
            })
        };
        for honest in PartyId::all(3).filter(|&p| p != cheater) {
            let report = t
                .engine(honest)
                .and_then(|a| a.inner().audit())
                .unwrap_or_else(|| panic!("{honest} audits"));
            assert!(two_versions(report), "{honest}: {:?}", report.findings);
        }
    }
}

#[test]
fn sequence_numbers_that_skip_name_nobody_and_every_honest_audit_passes() {
    // The policy: a receiver requires a sender's numbers to increase, not to be consecutive
    // (it sees only its share of his messages), and the audit identifies a message by its
    // place in the protocol, not by its number. A player who numbers his messages 0, 1000,
    // 2000, … and plays honestly is named by nobody.
    for cheater in PartyId::all(3) {
        let (t, end) = resigned_deal(11, cheater, 1000, false);
        // Only the cheater's own seat can fail: it holds the envelopes as his engine signed
        // them, and the others' relays of them as he re-signed them.
        let all: Vec<&Verdict> = match &end {
            Ok(()) => vec![],
            Err(first) => verdicts(&t, first),
        };
        for v in all.iter().filter(|v| party_of(v) != Some(cheater)) {
            assert!(
                v.blamed().is_none_or(|b| b == cheater),
                "{cheater}'s gaps: {v}"
            );
        }
        for honest in PartyId::all(3).filter(|&p| p != cheater) {
            let report = t.engine(honest).and_then(|a| a.inner().audit());
            let report = report.unwrap_or_else(|| panic!("{honest} audits"));
            assert!(report.passed, "{honest}: {:?}", report.findings);
        }
    }
}

#[test]
fn the_same_deal_without_a_second_version_passes_every_audit() {
    for cheater in PartyId::all(3) {
        let (t, end) = resigned_deal(11, cheater, 1, false);
        end.expect("re-signing with the same numbers changes nothing");
        for e in t.engines() {
            assert!(e.inner().audit().expect("audited").passed);
        }
    }
}

/// The attack review's second proof of concept: the cheater keeps the layer-model hops the
/// others sent him privately (from their bundles at the end) and relays them in the deal's
/// transcript exchange.
fn relay_layer_hops(cheater: PartyId) -> adversary::Edit {
    let stash: Arc<Mutex<Vec<Envelope>>> = Arc::new(Mutex::new(Vec::new()));
    Arc::new(move |bytes: &[u8]| {
        let Ok(msg) = DealerMessage::from_bytes(bytes, cheater) else {
            return bytes.to_vec();
        };
        let mut stash = stash.lock().unwrap_or_else(|p| p.into_inner());
        match msg {
            DealerMessage::Close { reveal, held } => {
                stash.extend(held.iter().filter(|e| e.from != cheater).cloned());
                DealerMessage::Close { reveal, held }.to_bytes()
            }
            DealerMessage::Transcript(mut list) => {
                list.extend(stash.iter().cloned());
                DealerMessage::Transcript(list).to_bytes()
            }
            other => other.to_bytes(),
        }
    })
}

/// A deal, then player 1's announcement opened to `cheater` alone, then the end.
fn announcement_opened_to(cheater: PartyId, rules: Vec<Rule>) -> (Cheating, Result<(), Verdict>) {
    let mut t = table(21, b"framing layers", cheater, rules);
    facedown_core::table::deal(&mut t, CARDS, 3, 0).expect("deal");
    t.commit(PartyId(1), &[Symbol::Heart, Symbol::Club])
        .expect("a commitment after the deal");
    let shown = t.open_to(cheater, &[9, 10]).expect("opened to the cheater");
    assert_eq!(shown, [Symbol::Heart, Symbol::Club]);
    let end = t.finish();
    (t, end)
}

#[test]
fn a_layer_hop_relayed_into_the_deals_transcript_names_the_relayer_not_its_signer() {
    let cheater = PartyId(3);
    let (t, end) = announcement_opened_to(cheater, forge_all(relay_layer_hops(cheater)));
    assert!(t.engine(cheater).expect("seated").deviated() > 0);
    let failed = end.expect_err("a relayed layer hop is refused");
    assert_honest_players_name(&t, &failed, cheater);
    for v in verdicts(&t, &failed) {
        if party_of(v) != Some(cheater) {
            assert!(
                matches!(
                    v,
                    DriveError::Engine {
                        source: EngineError::Dealer(DealerError::Malformed { peer, .. }),
                        ..
                    } if *peer == cheater
                ),
                "{v}"
            );
        }
    }
}

#[test]
fn the_same_game_without_the_relay_passes_every_check() {
    let (t, end) = announcement_opened_to(PartyId(3), vec![]);
    end.expect("an honest game ends");
    for e in t.engines() {
        assert!(e.inner().audit().expect("audited").passed);
    }
}

#[test]
fn a_transcript_exchange_sent_in_two_versions_is_named_by_the_echo() {
    // Player 3 sends player 1 his list with a second version of his first private message,
    // player 2 the true list: the echo of the exchange holds two of his signed broadcasts for
    // one slot, and names him.
    let cheater = PartyId(3);
    let seed = 12;
    let session = Arc::new(OnceLock::new());
    let edit = resign_edit(session.clone(), own_key(seed, cheater), cheater, 1, true);
    let is_transcript: adversary::Predicate = Arc::new(move |b: &[u8]| {
        matches!(
            DealerMessage::from_bytes(b, cheater),
            Ok(DealerMessage::Transcript(_))
        )
    });
    let rules = vec![Rule {
        at: At::Matching(is_transcript),
        deviation: adversary::Deviation::Equivocate {
            to: PartyId(1),
            edit,
        },
    }];
    let mut t = table(seed, b"framing", cheater, rules);
    let id = t.engine(cheater).and_then(|a| a.inner().session());
    session.set(id.expect("set up")).expect("set once");
    facedown_core::table::deal(&mut t, CARDS, 3, 0).expect("the deal runs");
    let failed = t.finish().expect_err("two versions of one broadcast");
    assert!(t.engine(cheater).expect("seated").deviated() > 0);
    assert_honest_players_name(&t, &failed, cheater);
    // Player 2 got the true list, and his audit passes: the echo alone names player 3.
    let two = verdicts(&t, &failed)
        .into_iter()
        .find(|v| party_of(v) == Some(PartyId(2)))
        .expect("player 2's verdict");
    assert!(
        matches!(
            two,
            DriveError::Echo {
                source: facedown_core::echo::EchoError::Differs {
                    blamed: Some(p),
                    ..
                },
                ..
            } if *p == cheater
        ),
        "{two}"
    );
}

/// The standalone table's transcript of three hands of three, and the players' signing keys
/// (the first thing the table draws from its generator).
fn standalone(seed: u64) -> (Transcript, Vec<ed25519_dalek::SigningKey>) {
    standalone_with(seed, None)
}

/// As [`standalone`], with a player deviating.
fn standalone_with(
    seed: u64,
    cheat: Option<(PartyId, Deviation)>,
) -> (Transcript, Vec<ed25519_dalek::SigningKey>) {
    let keys = seeded_keys(seed, 3);
    let mut table = facedown_dealer::Table::setup_with_rng(
        Scheme::general(3, usize::from(CARDS)).expect("valid"),
        cheat,
        &mut seeded_rng(seed),
    )
    .expect("setup");
    table.deal_hands(3).expect("deal");
    (table.finish().expect("finish").transcript, keys)
}

/// The transcript with every envelope of `who` signed again with its number times `stretch`.
fn stretched(
    t: &Transcript,
    keys: &[ed25519_dalek::SigningKey],
    who: PartyId,
    stretch: u32,
) -> Transcript {
    let mut t = t.clone();
    for e in &mut t.envelopes {
        if e.from == who {
            let key = &keys[who.index()];
            *e = Envelope::sign(
                &t.params.session,
                key,
                e.from,
                e.to,
                e.seq * stretch,
                e.body.clone(),
            );
        }
    }
    t
}

#[test]
fn an_audit_of_a_sender_whose_numbers_skip_names_nobody() {
    let (t, keys) = standalone(8);
    for who in PartyId::all(3) {
        let report = audit(&stretched(&t, &keys, who, 1000)).expect("audits");
        assert!(report.passed, "{who}: {:?}", report.findings);
    }
}

/// The transcript with a second version of `who`'s first private message inserted before it,
/// numbered one below it.
fn with_second_version(
    t: &Transcript,
    keys: &[ed25519_dalek::SigningKey],
    who: PartyId,
) -> Transcript {
    let mut t = stretched(t, keys, who, 1000);
    let i = t
        .envelopes
        .iter()
        .position(|e| e.from == who && e.to != Recipient::All)
        .expect("a private message");
    let real = &t.envelopes[i];
    let fake = Envelope::sign(
        &t.params.session,
        &keys[who.index()],
        who,
        real.to,
        real.seq - 1,
        other_version(&real.body),
    );
    t.envelopes.insert(i, fake);
    t
}

#[test]
fn an_audit_of_two_signed_versions_of_one_slot_names_the_signer_and_nobody_else() {
    let (t, keys) = standalone(8);
    for who in PartyId::all(3) {
        let report = audit(&with_second_version(&t, &keys, who)).expect("audits");
        assert_eq!(report.blame, Some(who), "{:?}", report.findings);
        assert_names_only(&report, who);
        let first = report.first().expect("a finding");
        assert!(
            matches!(
                first.what,
                FindingKind::TwoVersions { .. } | FindingKind::TwoHelpers { .. }
            ),
            "{first}"
        );
    }
}

#[test]
fn findings_follow_the_protocol_not_the_transcript_order() {
    // Player 3 hands out a helper pair that does not compose (setup); player 1 signs a second
    // version of his first hop (play) and places it second in the transcript, before player
    // 3's helper halves, with a number his own messages allow. The setup comes first in the
    // protocol, so player 3 is named first, whatever the transcript's order.
    let (t, keys) = standalone_with(8, Some((PartyId(3), Deviation::WrongHelper)));
    let mut t = stretched(&t, &keys, PartyId(1), 1000);
    let real = t
        .envelopes
        .iter()
        .find(|e| e.from == PartyId(1) && e.to != Recipient::All)
        .expect("player 1's first hop")
        .clone();
    let fake = Envelope::sign(
        &t.params.session,
        &keys[0],
        real.from,
        real.to,
        real.seq - 1,
        other_version(&real.body),
    );
    assert_eq!(
        t.envelopes[0].from,
        PartyId(1),
        "his commitment comes first"
    );
    t.envelopes.insert(1, fake);
    let report = audit(&t).expect("audits");
    let kinds: Vec<(PartyId, &FindingKind)> = report
        .findings
        .iter()
        .map(|f| (f.player, &f.what))
        .collect();
    assert!(
        matches!(
            kinds.as_slice(),
            [
                (PartyId(3), FindingKind::HelpersDoNotCompose { pair: 0 }),
                (PartyId(1), FindingKind::TwoVersions { op: 0, hop: 0 }),
            ]
        ),
        "{kinds:?}"
    );
    assert_eq!(report.findings[1].message, Some(1));
    assert_eq!(report.blame, Some(PartyId(3)));
}
