//! A player who appears twice in a saved transcript with his commitments or his openings.
//!
//! Two *different* versions, both signed by him, are his equivocation, treated as two versions
//! of one hop or one helper half are (`TwoVersions`, `TwoHelpers`): a finding against the
//! signer (`TwoCommits`, `TwoReveals`), and neither version is used — none of his permutations
//! is opened, so nobody else is judged by one version or the other. Before, the later version
//! silently replaced the earlier, and the verdict depended on which came last.
//!
//! A *copy* of an envelope (the same signed statement again) is not a second version: whoever
//! holds a message can copy it, so a copy names nobody; the audit reads each message once, and
//! the report is the report without the copy. Before, a copy was a `Replay` error naming its
//! honest signer (its number does not increase).

use crate::support::seeded_keys;
use facedown_core::rng::seeded_rng;
use facedown_core::PartyId;
use facedown_dealer::{
    audit, AuditReport, Body, Envelope, FindingKind, Recipient, Scheme, Table, Transcript,
};

/// An audited 3-player, 9-card deal of three hands of three, and the players' signing keys.
fn deal(seed: u64) -> (Transcript, Vec<ed25519_dalek::SigningKey>) {
    let keys = seeded_keys(seed, 3);
    let scheme = Scheme::general(3, 9).expect("valid");
    let mut table = Table::setup_with_rng(scheme, None, &mut seeded_rng(seed)).expect("setup");
    table.deal_hands(3).expect("deal");
    (table.finish().expect("finish").transcript, keys)
}

/// The transcript with every envelope of `who` signed again with its number plus one times 1000, so
/// that a second version fits next to each.
fn stretched(t: &Transcript, keys: &[ed25519_dalek::SigningKey], who: PartyId) -> Transcript {
    let mut t = t.clone();
    for e in t.envelopes.iter_mut().filter(|e| e.from == who) {
        *e = Envelope::sign(
            &t.params.session,
            &keys[who.index()],
            e.from,
            e.to,
            (e.seq + 1) * 1000,
            e.body.clone(),
        );
    }
    t
}

fn is_commit(e: &Envelope) -> bool {
    matches!(e.body, Body::Commit { .. })
}

fn is_reveal(e: &Envelope) -> bool {
    matches!(e.body, Body::Reveal { .. })
}

/// Another version of a broadcast body: another player's commitment in the first slot, or
/// the first opening's ordinal plus one.
fn other_version(t: &Transcript, e: &Envelope) -> Body {
    match &e.body {
        Body::Commit { commitments } => {
            let theirs = t
                .envelopes
                .iter()
                .find_map(|o| match &o.body {
                    Body::Commit { commitments } if o.from != e.from => Some(commitments[0].1),
                    _ => None,
                })
                .expect("another player's commitments");
            let mut commitments = commitments.clone();
            commitments[0].1 = theirs;
            Body::Commit { commitments }
        }
        Body::Reveal { openings } => {
            let mut openings = openings.clone();
            openings[0].rank = &openings[0].rank + 1u32;
            Body::Reveal { openings }
        }
        other => panic!("not a broadcast of the setup or the end: {other:?}"),
    }
}

/// The transcript with a second version of `who`'s envelope picked by `which`, signed by him
/// and placed just before the real one (numbered one below it) or just after it (one above).
fn with_second_version(
    t: &Transcript,
    keys: &[ed25519_dalek::SigningKey],
    who: PartyId,
    which: fn(&Envelope) -> bool,
    before: bool,
) -> (Transcript, usize) {
    let mut t = stretched(t, keys, who);
    let i = t
        .envelopes
        .iter()
        .position(|e| e.from == who && which(e))
        .expect("the envelope");
    let real = t.envelopes[i].clone();
    let (seq, at) = if before {
        (real.seq - 1, i)
    } else {
        (real.seq + 1, i + 1)
    };
    let fake = Envelope::sign(
        &t.params.session,
        &keys[who.index()],
        who,
        real.to,
        seq,
        other_version(&t, &real),
    );
    assert_eq!(fake.to, Recipient::All);
    t.envelopes.insert(at, fake);
    (t, i)
}

/// Every finding names `who` and nobody else.
fn assert_names_only(report: &AuditReport, who: PartyId) {
    assert!(!report.passed);
    assert_eq!(report.blame, Some(who), "{:?}", report.findings);
    assert!(
        report.findings.iter().all(|f| f.player == who),
        "{:?}",
        report.findings
    );
}

/// For every player, with the second version before or after the first: one finding of
/// `kind` against him at the first version, and his permutation not opened. Not, say, a
/// mismatch of his openings against whichever version of his commitments came last.
fn two_versions_name_him_and_neither_is_used(
    seed: u64,
    which: fn(&Envelope) -> bool,
    kind: FindingKind,
) {
    let (t, keys) = deal(seed);
    for who in PartyId::all(3) {
        for before in [true, false] {
            let (t, first) = with_second_version(&t, &keys, who, which, before);
            let report = audit(&t).expect("audits");
            assert_names_only(&report, who);
            let kinds: Vec<(&FindingKind, Option<usize>)> = report
                .findings
                .iter()
                .map(|f| (&f.what, f.message))
                .collect();
            assert_eq!(
                kinds,
                [(&kind, Some(first))],
                "{who}, second version {}",
                if before { "first" } else { "last" }
            );
            assert_eq!(report.deal, None, "his permutation is not opened");
        }
    }
}

#[test]
fn two_versions_of_a_players_commitments_name_him_and_neither_is_used() {
    two_versions_name_him_and_neither_is_used(50, is_commit, FindingKind::TwoCommits);
}

#[test]
fn two_versions_of_a_players_openings_name_him_and_neither_is_used() {
    two_versions_name_him_and_neither_is_used(51, is_reveal, FindingKind::TwoReveals);
}

#[test]
fn a_copy_of_any_envelope_is_read_once_and_names_nobody() {
    let (t, _) = deal(52);
    let honest = audit(&t).expect("audits");
    assert!(honest.passed);
    for i in 0..t.envelopes.len() {
        // Just after the original, and at the end of the transcript.
        for at in [i + 1, t.envelopes.len()] {
            let mut copied = t.clone();
            copied.envelopes.insert(at, t.envelopes[i].clone());
            let report = audit(&copied).unwrap_or_else(|e| panic!("envelope {i}: {e}"));
            assert_eq!(report, honest, "a copy of envelope {i} at {at}");
        }
    }
    // Every envelope twice over.
    let mut doubled = t.clone();
    doubled.envelopes.extend(t.envelopes.iter().cloned());
    assert_eq!(audit(&doubled).expect("audits"), honest);
}

#[test]
fn a_copy_next_to_a_second_version_still_names_only_the_signer_once() {
    // The copy adds nothing: the finding is the same as with the two versions alone.
    let (t, keys) = deal(53);
    let who = PartyId(2);
    let (two, first) = with_second_version(&t, &keys, who, is_commit, true);
    let mut copied = two.clone();
    copied.envelopes.push(two.envelopes[first].clone());
    copied.envelopes.push(two.envelopes[first + 1].clone());
    let report = audit(&copied).expect("audits");
    assert_eq!(report, audit(&two).expect("audits"));
    assert_names_only(&report, who);
}
