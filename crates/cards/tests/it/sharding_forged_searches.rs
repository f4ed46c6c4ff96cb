//! Forged `cards search` shards: every claim a shard file makes is checked against the query
//! (and against the shard's other claims) before the merge uses it, so a file edited by hand
//! is refused with a typed error that names the shard and the claim, and no loop runs over a
//! number a shard supplies.

use facedown_cards::search::shard::Forgery;
use facedown_cards::search::{
    merge, parse_deck, parse_function, search, DepthStats, MergeError, SearchOutcome, SearchQuery,
    SearchRuntime, SearchStatus, ShuffleClass, StopReport,
};

use crate::support;

/// A length no search reaches.
const HUGE: usize = 1_000_000_000_000_000_000;

/// The brief's query: a non-committed AND on ♣♣♥♥♥ with random cuts, found at 2 steps.
fn and_query(max_steps: usize) -> SearchQuery {
    let mut q = SearchQuery::new(
        parse_deck("CCHHH").expect("deck"),
        parse_function("and").expect("function"),
        max_steps,
    );
    q.shuffles = ShuffleClass::Cuts;
    q
}

/// The two shards of `q` and the position of the one that found.
fn two_shards(q: &SearchQuery) -> (Vec<SearchOutcome>, usize) {
    let parts = support::shards(q, 2);
    let finder = parts.iter().position(|p| p.found).expect("a shard finds");
    (parts, finder)
}

/// The forgery the merge refuses `parts` for, and which shard it names.
fn forgery(q: &SearchQuery, parts: Vec<SearchOutcome>) -> (usize, Forgery) {
    match merge(q, parts) {
        Err(MergeError::Forged { shard, forgery }) => (shard.index() - 1, forgery),
        other => panic!("expected a forged shard, got {other:?}"),
    }
}

/// Makes a shard's totals the sums of its work per depth again (a careful forger's touch).
fn retotal(p: &mut SearchOutcome) {
    p.states_explored = p.per_depth.iter().map(|d| d.states_explored).sum();
    p.memo_hits = p.per_depth.iter().map(|d| d.memo_hits).sum();
}

fn depth(depth: usize) -> DepthStats {
    DepthStats {
        depth,
        states_explored: 0,
        memo_hits: 0,
        seconds: 0.0,
    }
}

#[test]
fn the_honest_shards_of_the_query_merge_to_the_unsplit_search() {
    let q = and_query(2);
    let whole = search(&q).expect("runs");
    let merged = merge(&q, support::shards(&q, 2)).expect("merges");
    assert_eq!(merged.length, Some(2));
    assert_eq!(merged.protocols, whole.protocols);
    assert_eq!(merged.protocol_tasks, whole.protocol_tasks);
    assert_eq!(merged.states_explored, whole.states_explored);
}

#[test]
fn a_shard_claiming_a_length_beyond_max_steps_is_refused() {
    let q = and_query(2);
    let (mut parts, finder) = two_shards(&q);
    parts[finder].length = Some(HUGE);
    let (named, f) = forgery(&q, parts);
    assert_eq!(named, finder);
    assert_eq!(
        f,
        Forgery::LengthBeyondBound {
            length: HUGE,
            max_steps: 2
        }
    );
}

#[test]
fn a_shard_claiming_work_at_a_huge_depth_is_refused_at_once() {
    let q = and_query(2);
    let (mut parts, finder) = two_shards(&q);
    parts[finder].length = Some(HUGE);
    parts[finder].per_depth.push(depth(HUGE));
    let (_, f) = forgery(&q, parts);
    assert!(
        matches!(f, Forgery::LengthBeyondBound { length: HUGE, .. }),
        "{f}"
    );
}

#[test]
fn a_shard_reporting_work_at_a_depth_beyond_max_steps_is_refused() {
    let q = and_query(2);
    let (mut parts, finder) = two_shards(&q);
    let other = 1 - finder;
    for extra in [3, HUGE] {
        let mut forged = parts.clone();
        forged[other].per_depth.push(depth(extra));
        let (named, f) = forgery(&q, forged);
        assert_eq!(named, other);
        assert_eq!(
            f,
            Forgery::DepthBeyondBound {
                depth: extra,
                max_steps: 2
            }
        );
    }
    // Depths out of order are refused too.
    parts[other].per_depth.swap(0, 1);
    let (_, f) = forgery(&q, parts);
    assert_eq!(
        f,
        Forgery::DepthOutOfPlace {
            expected: 1,
            got: 2
        }
    );
}

#[test]
fn a_shard_reporting_work_beyond_its_own_length_is_refused() {
    let q = and_query(3);
    let (mut parts, finder) = two_shards(&q);
    assert_eq!(parts[finder].length, Some(2));
    parts[finder].per_depth.push(depth(3));
    let (named, f) = forgery(&q, parts);
    assert_eq!(named, finder);
    assert_eq!(f, Forgery::DepthBeyondEnd { depth: 3, end: 2 });
}

#[test]
fn a_shard_missing_work_up_to_where_it_ended_is_refused() {
    let q = and_query(2);
    let (mut parts, finder) = two_shards(&q);
    let other = 1 - finder;
    parts[other].per_depth.pop();
    retotal(&mut parts[other]);
    let (named, f) = forgery(&q, parts);
    assert_eq!(named, other);
    assert_eq!(
        f,
        Forgery::DepthsMissing {
            last: Some(1),
            end: 2
        }
    );
}

#[test]
fn a_shard_claiming_a_find_without_a_protocol_is_refused() {
    // The brief's case (c): the shard that found nothing claims a find at 1 step; the merge
    // would drop the other shard's real 2-step protocol.
    let q = and_query(2);
    let (parts, finder) = two_shards(&q);
    let other = 1 - finder;
    for status in [SearchStatus::None, SearchStatus::Found] {
        let mut forged = parts.clone();
        forged[other].length = Some(1);
        forged[other].found = true;
        forged[other].status = status;
        assert!(forged[other].protocols.is_empty());
        let (named, f) = forgery(&q, forged);
        assert_eq!(named, other);
        assert_eq!(f, Forgery::NoProtocolOfLength { length: 1 });
    }
}

#[test]
fn a_shard_whose_found_disagrees_with_its_length_is_refused() {
    let q = and_query(2);
    let (parts, finder) = two_shards(&q);
    let mut forged = parts.clone();
    forged[finder].found = false;
    let (_, f) = forgery(&q, forged);
    assert_eq!(
        f,
        Forgery::FoundDisagreesWithLength {
            found: false,
            length: Some(2)
        }
    );
    let mut forged = parts;
    forged[1 - finder].found = true;
    let (named, f) = forgery(&q, forged);
    assert_eq!(named, 1 - finder);
    assert_eq!(
        f,
        Forgery::FoundDisagreesWithLength {
            found: true,
            length: None
        }
    );
}

#[test]
fn a_shard_whose_status_disagrees_with_its_find_is_refused() {
    let q = and_query(2);
    let (mut parts, finder) = two_shards(&q);
    parts[finder].status = SearchStatus::None;
    let (_, f) = forgery(&q, parts);
    assert_eq!(
        f,
        Forgery::StatusDisagrees {
            status: SearchStatus::None,
            expected: SearchStatus::Found
        }
    );
}

#[test]
fn a_shard_listing_protocols_without_a_find_is_refused() {
    let q = and_query(2);
    let (mut parts, finder) = two_shards(&q);
    parts[finder].found = false;
    parts[finder].length = None;
    parts[finder].status = SearchStatus::None;
    let (named, f) = forgery(&q, parts);
    assert_eq!(named, finder);
    assert_eq!(f, Forgery::ProtocolsWithoutFind { count: 1 });
}

#[test]
fn a_shard_whose_protocol_has_another_number_of_steps_than_its_length_is_refused() {
    // A careful forger: length 1 with the work of depth 1 only, totals to match; the 2-step
    // protocol it lists betrays it.
    let q = and_query(2);
    let (mut parts, finder) = two_shards(&q);
    let task = parts[finder].protocol_tasks[0];
    parts[finder].length = Some(1);
    parts[finder].per_depth.truncate(1);
    retotal(&mut parts[finder]);
    let (named, f) = forgery(&q, parts);
    assert_eq!(named, finder);
    assert_eq!(
        f,
        Forgery::ProtocolOfOtherLength {
            task,
            steps: 2,
            length: 1
        }
    );
}

#[test]
fn a_shard_whose_totals_are_not_its_work_per_depth_is_refused() {
    let q = and_query(2);
    let (mut parts, finder) = two_shards(&q);
    let claimed = parts[finder].states_explored + 1;
    parts[finder].states_explored = claimed;
    let (_, f) = forgery(&q, parts);
    assert!(
        matches!(
            f,
            Forgery::WorkDisagrees { what: "states explored", total, .. } if total == claimed
        ),
        "{f}"
    );
}

#[test]
fn a_shard_counting_other_top_level_actions_is_refused_before_any_loop_over_them() {
    let q = and_query(2);
    let mut parts = support::shards(&q, 1);
    parts[0].top_level_actions = usize::MAX;
    parts[0].shard_tasks = usize::MAX;
    parts[0].stop = Some(StopReport {
        reason: "forged".into(),
        last_completed: 1,
        in_progress: 2,
        max_steps: 2,
        decided_top_level_actions: Vec::new(),
        open_top_level_actions: Vec::new(),
        open_states: None,
        graph_nodes: None,
    });
    let (_, f) = forgery(&q, parts);
    assert!(
        matches!(
            f,
            Forgery::OtherSearch {
                top_level_actions: usize::MAX,
                expected_top_level_actions: 11,
                ..
            }
        ),
        "{f}"
    );
}

#[test]
fn a_shard_with_a_forged_stop_report_is_refused() {
    let q = and_query(2);
    let (mut parts, finder) = two_shards(&q);
    let other = 1 - finder;
    parts[other].status = SearchStatus::Stopped;
    parts[other].stop = Some(StopReport {
        reason: "forged".into(),
        last_completed: HUGE - 1,
        in_progress: HUGE,
        max_steps: 2,
        decided_top_level_actions: Vec::new(),
        open_top_level_actions: Vec::new(),
        open_states: None,
        graph_nodes: None,
    });
    let (named, f) = forgery(&q, parts);
    assert_eq!(named, other);
    assert_eq!(f, Forgery::Stop("stops at a depth outside 1 … the bound"));
}

#[test]
fn a_protocol_of_a_top_level_action_the_query_does_not_have_is_refused() {
    let q = and_query(2);
    let (mut parts, finder) = two_shards(&q);
    let shard = parts[finder].shard.expect("a shard");
    // A task the shard would own, were there that many top-level actions.
    let beyond = (parts[finder].top_level_actions..)
        .find(|&t| shard.owns(t))
        .expect("some task");
    parts[finder].protocol_tasks[0] = Some(beyond);
    let (_, f) = forgery(&q, parts);
    assert!(
        matches!(f, Forgery::BadTask { task: Some(t), .. } if t == beyond),
        "{f}"
    );
}

#[test]
fn a_protocol_filed_under_another_top_level_action_is_refused() {
    let q = and_query(2);
    let (mut parts, finder) = two_shards(&q);
    let shard = parts[finder].shard.expect("a shard");
    let real = parts[finder].protocol_tasks[0].expect("a task");
    let other = (0..parts[finder].top_level_actions)
        .find(|&t| shard.owns(t) && t != real)
        .expect("another task of the shard");
    parts[finder].protocol_tasks[0] = Some(other);
    let (_, f) = forgery(&q, parts);
    assert!(
        matches!(f, Forgery::NotOfItsTask { task, .. } if task == other),
        "{f}"
    );
}

#[test]
fn a_protocol_with_a_shuffle_outside_the_class_is_refused() {
    let q = and_query(2);
    let (mut parts, finder) = two_shards(&q);
    let text = parts[finder].protocols[0].clone();
    let cut = text
        .lines()
        .find(|l| l.starts_with("shuffle cut"))
        .expect("the protocol shuffles by a cut")
        .to_owned();
    // A bisection: a random cut of `--shuffles random-cuts`, not of `--shuffles cuts`.
    parts[finder].protocols[0] = text.replace(&cut, "shuffle bisect 1 2 | 3 4");
    let (named, f) = forgery(&q, parts);
    assert_eq!(named, finder);
    assert!(
        matches!(&f, Forgery::ForeignAction { action, .. } if action.contains("bisect")),
        "{f}"
    );
}

#[test]
fn a_protocol_under_another_header_than_the_query_gives_it_is_refused() {
    let q = and_query(2);
    let (mut parts, finder) = two_shards(&q);
    let task = parts[finder].protocol_tasks[0];
    let text = parts[finder].protocols[0].clone();
    let name = text.lines().next().expect("a header").to_owned();
    parts[finder].protocols[0] = text.replace(&name, "protocol not-the-search-s-name");
    let (_, f) = forgery(&q, parts);
    assert_eq!(f, Forgery::NotAsWritten { task });
}

#[test]
fn a_merge_for_a_las_vegas_query_is_refused() {
    let q = and_query(2);
    let parts = support::shards(&q, 2);
    let mut lv = q.clone();
    lv.runtime = SearchRuntime::LasVegas;
    let err = merge(&lv, parts).expect_err("refused");
    assert!(matches!(err, MergeError::Query(_)), "{err}");
}
