//! Sharded searches and the memory budget: `K` shards merge to exactly the unsplit search, a
//! merge of anything else is refused with a typed error, and a search past its budget stops
//! with a report of how far it got.

use facedown_cards::search::{
    merge, parse_deck, parse_function, search, MergeError, SearchOutcome, SearchQuery,
    SearchRuntime, SearchStatus, Shard, ShuffleClass,
};

use crate::support;

fn query(deck: &str, f: &str, steps: usize, shuffles: ShuffleClass) -> SearchQuery {
    let mut q = SearchQuery::new(
        parse_deck(deck).expect("deck"),
        parse_function(f).expect("function"),
        steps,
    );
    q.shuffles = shuffles;
    q.committed = true;
    q
}

/// Everything a merged outcome must share with the unsplit one (seconds, threads and the memory
/// peak are measurements, not results).
fn assert_same_answer(merged: &SearchOutcome, whole: &SearchOutcome) {
    assert_eq!(merged.status, whole.status);
    assert_eq!(merged.found, whole.found);
    assert_eq!(merged.length, whole.length);
    assert_eq!(merged.protocols, whole.protocols);
    assert_eq!(merged.protocol_tasks, whole.protocol_tasks);
    assert_eq!(merged.analyses, whole.analyses);
    assert_eq!(merged.states_explored, whole.states_explored);
    assert_eq!(merged.memo_hits, whole.memo_hits);
    assert_eq!(merged.top_level_actions, whole.top_level_actions);
    assert_eq!(merged.shuffle_count, whole.shuffle_count);
    let work = |o: &SearchOutcome| -> Vec<(usize, u64, u64)> {
        o.per_depth
            .iter()
            .map(|d| (d.depth, d.states_explored, d.memo_hits))
            .collect()
    };
    assert_eq!(work(merged), work(whole));
}

#[test]
fn shards_merge_to_exactly_the_unsplit_search_found_or_not() {
    let cases = [
        // Found at 2 steps, one protocol per winning top-level action ([MS09] six-card AND).
        query("♣♣♣♥♥♥", "and", 2, ShuffleClass::RandomCuts),
        // None within 6 steps ([KWH15]: no finite four-card committed AND).
        query("♣♣♥♥", "and", 6, ShuffleClass::Closed),
        // Found at 2 steps on four cards ([MS09] XOR), with --first.
        {
            let mut q = query("♣♣♥♥", "xor", 3, ShuffleClass::RandomCuts);
            q.first = true;
            q
        },
    ];
    for q in &cases {
        let whole = search(q).expect("the unsplit search runs");
        // More shards than top-level actions leaves some shards empty; they merge too.
        for count in [1, 2, 3, whole.top_level_actions + 2] {
            let parts = support::shards(q, count);
            let tasks: usize = parts.iter().map(|p| p.shard_tasks).sum();
            assert_eq!(tasks, whole.top_level_actions);
            let merged = merge(q, parts).expect("the shards merge");
            assert_same_answer(&merged, &whole);
            assert_eq!(merged.merged_from.len(), count);
        }
    }
}

#[test]
fn shards_merge_in_any_order() {
    let q = query("♣♣♣♥♥♥", "and", 2, ShuffleClass::RandomCuts);
    let whole = search(&q).expect("runs");
    let mut parts = support::shards(&q, 3);
    parts.reverse();
    assert_same_answer(&merge(&q, parts).expect("merges"), &whole);
}

#[test]
fn a_merge_of_anything_but_the_shards_of_one_search_is_refused() {
    let q = query("♣♣♥♥", "and", 4, ShuffleClass::Closed);
    let parts = support::shards(&q, 3);
    let refused = |parts: Vec<SearchOutcome>| merge(&q, parts).expect_err("refused");

    assert!(matches!(refused(Vec::new()), MergeError::NoShards));
    let missing = refused(parts[..2].to_vec());
    assert!(
        matches!(missing, MergeError::Missing(s) if s.index() == 3),
        "{missing}"
    );
    let missing = refused(parts[1..].to_vec());
    assert!(
        matches!(missing, MergeError::Missing(s) if s.index() == 1),
        "{missing}"
    );
    let twice = vec![parts[0].clone(), parts[0].clone(), parts[1].clone()];
    assert!(matches!(refused(twice), MergeError::Duplicate(_)));

    let mut unsharded = parts.clone();
    unsharded[1].shard = None;
    assert!(matches!(
        refused(unsharded),
        MergeError::NotAShard { position: 2 }
    ));

    // A shard of a split into two among shards of a split into three.
    let mut other_split = parts.clone();
    other_split[2] = support::shards(&q, 2).remove(1);
    assert!(matches!(
        refused(other_split),
        MergeError::CountMismatch {
            expected: 3,
            got: 2,
            ..
        }
    ));

    // A shard of another search (a different shuffle class: other top-level actions).
    let other = query("♣♣♥♥", "and", 4, ShuffleClass::RandomCuts);
    let mut mixed = parts.clone();
    mixed[1] = support::shards(&other, 3).remove(1);
    let err = refused(mixed);
    assert!(matches!(err, MergeError::Inconsistent { .. }), "{err}");

    // A shard claiming another shard's protocol.
    let found_q = query("♣♣♣♥♥♥", "and", 2, ShuffleClass::RandomCuts);
    let mut found = support::shards(&found_q, 2);
    let stolen = found
        .iter()
        .find_map(|p| p.protocol_tasks.first().copied().flatten());
    let owner = found
        .iter()
        .position(|p| !p.protocols.is_empty())
        .expect("a find");
    let thief = 1 - owner;
    let (text, analysis) = (
        found[owner].protocols[0].clone(),
        found[owner].analyses[0].clone(),
    );
    found[thief].protocols.push(text);
    found[thief].protocol_tasks.push(stolen);
    found[thief].analyses.push(analysis);
    let err = merge(&found_q, found).expect_err("refused");
    assert!(matches!(err, MergeError::Inconsistent { .. }), "{err}");
}

#[test]
fn a_shard_file_edited_by_hand_cannot_slip_a_wrong_protocol_into_the_merge() {
    let q = query("♣♣♣♥♥♥", "and", 2, ShuffleClass::RandomCuts);
    let mut parts = support::shards(&q, 2);
    let k = parts
        .iter()
        .position(|p| !p.protocols.is_empty())
        .expect("a shard with a find");
    // Swap the two cards of the first result: it parses, but computes the negation.
    let text = parts[k].protocols[0].clone();
    let forged: Vec<String> = text
        .lines()
        .map(|line| match line.split_once("result ") {
            Some((head, cards)) => {
                let c: Vec<&str> = cards.split_whitespace().collect();
                format!("{head}result {} {}", c[1], c[0])
            }
            None => line.to_owned(),
        })
        .collect();
    parts[k].protocols[0] = forged.join("\n");
    let err = merge(&q, parts.clone()).expect_err("refused");
    assert!(matches!(err, MergeError::Rejected { .. }), "{err}");
    // A claimed analysis that is not the analyzer's is refused too.
    let mut parts = support::shards(&q, 2);
    parts[k].analyses[0].expected_shuffles = Some("1/2".into());
    let err = merge(&q, parts).expect_err("refused");
    assert!(matches!(err, MergeError::Rejected { .. }), "{err}");
}

#[test]
fn a_forged_count_is_refused_without_allocating_for_it() {
    let q = query("♣♣♥♥", "and", 3, ShuffleClass::Closed);
    let text = serde_json::to_string(&support::shards(&q, 1)[0]).expect("serialises");
    // The shard's own JSON with an absurd split: refused as a missing shard, at once.
    let forged = text.replace(
        r#""shard":{"index":1,"count":1}"#,
        r#""shard":{"index":1,"count":18446744073709551615}"#,
    );
    assert_ne!(forged, text, "the shard field is where the test expects it");
    let part: SearchOutcome = serde_json::from_str(&forged).expect("still an outcome");
    assert!(matches!(
        merge(&q, vec![part]),
        Err(MergeError::Missing(s)) if s.index() == 2
    ));
    // Index 0 or past the count does not even deserialise.
    for bad in [r#"{"index":0,"count":1}"#, r#"{"index":2,"count":1}"#] {
        let forged = text.replace(r#"{"index":1,"count":1}"#, bad);
        assert!(
            serde_json::from_str::<SearchOutcome>(&forged).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn the_las_vegas_search_is_not_sharded() {
    let mut q = query("♣♣♥♥", "and", 6, ShuffleClass::Closed);
    q.runtime = SearchRuntime::LasVegas;
    q.shard = Some(Shard::new(1, 2).expect("valid"));
    let err = search(&q).expect_err("refused");
    assert!(err.to_string().contains("does not split"), "{err}");
}

#[test]
fn a_finite_search_past_its_budget_stops_with_what_it_completed_and_what_is_open() {
    // [KWH15]'s question on four cards: none up to 12 steps. With 256 KiB of tables the search
    // cannot decide 12; it says which length it finished and which top-level actions are open.
    let mut q = query("♣♣♥♥", "and", 12, ShuffleClass::Closed);
    q.max_memory = Some(256 << 10);
    let out = search(&q).expect("a stop is an outcome, not an error");
    assert_eq!(out.status, SearchStatus::Stopped);
    assert!(!out.found);
    let stop = out.stop.as_ref().expect("a stop report");
    assert_eq!(stop.in_progress, stop.last_completed + 1);
    assert!(stop.in_progress <= 12);
    assert!(!stop.open_top_level_actions.is_empty());
    assert_eq!(
        stop.open_top_level_actions.len() + stop.decided_top_level_actions.len(),
        out.top_level_actions
    );
    assert_eq!(out.memory.budget_bytes, Some(256 << 10));
    assert!(out.memory.peak_bytes > 256 << 10);
    // What it completed agrees with an unbounded search of that length.
    let mut done = query("♣♣♥♥", "and", stop.last_completed, ShuffleClass::Closed);
    done.max_memory = None;
    let full = search(&done).expect("runs");
    assert_eq!(full.status, SearchStatus::None);
    let work =
        |o: &SearchOutcome| -> Vec<u64> { o.per_depth.iter().map(|d| d.states_explored).collect() };
    assert_eq!(
        work(&out)[..stop.last_completed],
        work(&full)[..stop.last_completed]
    );
}

#[test]
fn a_las_vegas_search_past_its_budget_stops_with_its_last_radius_and_open_states() {
    // The issue's query: COPY with two copies on four cards grows about 3× per radius.
    let mut q = query("♣♣♥♥", "copy", 12, ShuffleClass::Any);
    q.copies = 2;
    q.runtime = SearchRuntime::LasVegas;
    q.max_memory = Some(1 << 20);
    let out = search(&q).expect("a stop is an outcome");
    assert_eq!(out.status, SearchStatus::Stopped);
    let stop = out.stop.as_ref().expect("a stop report");
    assert_eq!(stop.in_progress, stop.last_completed + 1);
    assert!(stop.open_states.is_some_and(|n| n > 0));
    assert!(stop.graph_nodes.is_some_and(|n| n > 0));
    assert_eq!(out.per_depth.len(), stop.in_progress);
}

#[test]
fn a_budget_that_suffices_changes_nothing() {
    let q = query("♣♣♥♥", "and", 6, ShuffleClass::Closed);
    let free = search(&q).expect("runs");
    let mut bounded = q.clone();
    bounded.max_memory = Some(64 << 20);
    let out = search(&bounded).expect("runs");
    assert_eq!(out.status, free.status);
    assert_eq!(out.states_explored, free.states_explored);
    assert!(out.stop.is_none());
    assert!(out.memory.peak_bytes <= 64 << 20);
}

#[test]
fn merged_shards_that_stopped_are_stopped() {
    let mut q = query("♣♣♥♥", "and", 12, ShuffleClass::Closed);
    q.max_memory = Some(128 << 10);
    let parts = support::shards(&q, 2);
    assert!(parts.iter().any(|p| p.status == SearchStatus::Stopped));
    let merged = merge(&q, parts).expect("merges");
    assert_eq!(merged.status, SearchStatus::Stopped);
    let stop = merged.stop.expect("a stop report");
    assert!(!stop.open_top_level_actions.is_empty());
}
