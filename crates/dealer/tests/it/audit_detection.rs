//! The audit passes honest runs and names every single deviating player (proptest).

use facedown_core::rng::seeded_rng;
use facedown_core::PartyId;
use facedown_dealer::{Deviation, FindingKind, Finished, Route, Scheme, Table};
use proptest::prelude::*;

/// Opens every position once, cycling through every route the scheme has (public, direct and
/// every helper pair), so every path is exercised.
fn run_all(scheme: Scheme, cheat: Option<(PartyId, Deviation)>, seed: u64) -> Finished {
    let n = scheme.cards;
    let mut routes = vec![Route::Public, Route::Direct];
    routes.extend((0..scheme.pairs.len() as u16).map(Route::Helper));
    let mut table = Table::setup_with_rng(scheme, cheat, &mut seeded_rng(seed)).expect("setup");
    let openings: Vec<(usize, Route)> = (0..n).map(|i| (i, routes[i % routes.len()])).collect();
    table.run("everything", &openings).expect("run");
    table.finish().expect("finish")
}

fn scheme_strategy() -> impl Strategy<Value = Scheme> {
    prop_oneof![
        (3usize..=6, 2usize..=16).prop_map(|(p, n)| Scheme::general(p, n).expect("valid")),
        (2usize..=16).prop_map(|n| Scheme::published(n).expect("valid")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("regressions"),
        )),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_opening_path_returns_the_right_card_and_honest_runs_pass(
        scheme in scheme_strategy(), seed in any::<u64>()
    ) {
        let f = run_all(scheme, None, seed);
        prop_assert!(f.audit.passed, "{:?}", f.audit.findings);
        prop_assert_eq!(f.audit.blame, None);
        let deal = f.audit.deal.clone().expect("every A_j opened");
        // What each player learned is the card A(i) at that position.
        for v in &f.views {
            for l in &v.learned {
                prop_assert_eq!(l.card, deal[usize::from(l.position)]);
            }
        }
        // And every opening reached its learner.
        prop_assert!(f.audit.openings.iter().all(|o| o.card.is_some()));
    }

    #[test]
    fn audit_names_every_single_value_deviation(
        scheme in scheme_strategy(), seed in any::<u64>(), who in any::<prop::sample::Index>(),
        which in any::<prop::sample::Index>(), offset in any::<u16>()
    ) {
        let players = scheme.players;
        let honest = run_all(scheme.clone(), None, seed);
        let p = PartyId::from_index(who.index(players));
        let sent = honest.views[p.index()].sent.iter()
            .filter(|e| matches!(e.body, facedown_dealer::Body::Value { .. })).count();
        prop_assume!(sent > 0);
        let nth = which.index(sent);
        let f = run_all(scheme, Some((p, Deviation::WrongValue { nth, offset })), seed);
        prop_assert!(!f.audit.passed);
        prop_assert_eq!(f.audit.blame, Some(p));
        let first = f.audit.first().expect("a finding");
        let is_wrong_value = matches!(first.what, FindingKind::WrongValue { .. });
        prop_assert!(is_wrong_value, "{:?}", first);
        // The named message is his.
        let idx = first.message.expect("a message");
        prop_assert_eq!(f.transcript.envelopes[idx].from, p);
        // Nobody else is blamed for anything.
        prop_assert!(f.audit.findings.iter().all(|x| x.player == p));
    }

    #[test]
    fn audit_names_every_wrong_opening(
        scheme in scheme_strategy(), seed in any::<u64>(), who in any::<prop::sample::Index>(),
        switch in any::<bool>()
    ) {
        let p = PartyId::from_index(who.index(scheme.players));
        let dev = if switch { Deviation::SwitchPermutation } else { Deviation::RevealOther };
        let f = run_all(scheme, Some((p, dev)), seed);
        prop_assert_eq!(f.audit.blame, Some(p));
        let mismatch = f.audit.findings.iter().any(|x| {
            x.player == p && matches!(x.what, FindingKind::CommitmentMismatch { .. })
        });
        prop_assert!(mismatch, "{:?}", f.audit.findings);
        prop_assert!(f.audit.findings.iter().all(|x| x.player == p));
    }

    #[test]
    fn audit_names_a_wrong_announcement_a_wrong_helper_and_a_withheld_message(
        scheme in scheme_strategy(), seed in any::<u64>(), nth in 0usize..2
    ) {
        let last = scheme.last();
        // The last player sends at least one announcement in `run_all`, and player 1 starts
        // every one of the n ≥ 2 openings.
        for dev in [Deviation::WrongAnnouncement { nth: 0 }, Deviation::WrongHelper, Deviation::Withhold { nth: 0 }] {
            let f = run_all(scheme.clone(), Some((last, dev)), seed);
            prop_assert_eq!(f.audit.blame, Some(last), "{:?}: {:?}", dev, f.audit.findings);
            prop_assert!(f.audit.findings.iter().all(|x| x.player == last));
        }
        let f = run_all(scheme.clone(), Some((PartyId(1), Deviation::Withhold { nth })), seed);
        prop_assert_eq!(f.audit.blame, Some(PartyId(1)));
        let missing = matches!(f.audit.first().expect("finding").what, FindingKind::MissingValue { .. });
        prop_assert!(missing);
    }
}

#[test]
fn an_honest_player_who_forwards_a_wrong_value_is_not_blamed() {
    // Player 1 lies on his first message; player 2 forwards the wrong value faithfully.
    let scheme = Scheme::general(4, 10).expect("valid");
    let f = run_all(
        scheme,
        Some((PartyId(1), Deviation::WrongValue { nth: 0, offset: 0 })),
        7,
    );
    assert_eq!(f.audit.blame, Some(PartyId(1)));
    assert_eq!(f.audit.findings.len(), 1, "{:?}", f.audit.findings);
}

#[test]
fn a_saved_transcript_re_audits_to_the_same_verdict() {
    let scheme = Scheme::general(5, 12).expect("valid");
    let f = run_all(
        scheme,
        Some((PartyId(3), Deviation::WrongValue { nth: 2, offset: 5 })),
        11,
    );
    let json = f.transcript.to_json();
    let back = facedown_dealer::Transcript::from_json(&json).expect("reads");
    let again = facedown_dealer::audit(&back).expect("audits");
    assert_eq!(again, f.audit);
    assert_eq!(again.blame, Some(PartyId(3)));
}
