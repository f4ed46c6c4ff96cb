//! Forged `cards simulate` shards: besides each input's runs and outcomes, the merge checks
//! every count a shard report carries against the runs it made — views, shuffle sums, totals,
//! correct runs — and refuses a report no run can have produced with a typed error naming the
//! shard and the claim.

use facedown_cards::library::builtins;
use facedown_cards::search::shard::Forgery;
use facedown_cards::search::{MergeError, Shard};
use facedown_cards::simulate::{
    merge_correct_runs, merge_reports, SimulationReport, Simulator, ViewCount,
};
use facedown_cards::Protocol;

use crate::support;

const RUNS: u64 = 1000;

fn protocol(name: &str) -> Protocol {
    builtins()
        .iter()
        .find(|b| b.name == name)
        .expect("built in")
        .protocol()
}

/// The shards `1/2` and `2/2` of `RUNS` runs of `inputs` (every input when empty), seed 0.
fn shards_of(p: &Protocol, inputs: &[usize]) -> Vec<SimulationReport> {
    let sim = Simulator::new(p).expect("simulates");
    (1..=2)
        .map(|i| {
            let shard = Shard::new(i, 2).expect("a shard");
            sim.simulate_shard(inputs, (RUNS, 0), Some(shard), None)
                .expect("runs")
        })
        .collect()
}

/// The brief's run: the five-card trick, 1000 runs per input, in two shards.
fn five_card_shards() -> Vec<SimulationReport> {
    shards_of(&protocol("five-card-trick"), &[])
}

/// The forgery the merge refuses `parts` for, with the shard it names (from 1).
fn forgery(parts: Vec<SimulationReport>) -> (usize, Forgery) {
    match merge_reports(parts) {
        Err(MergeError::Forged { shard, forgery }) => (shard.index(), forgery),
        other => panic!("expected a forged shard, got {other:?}"),
    }
}

/// The correct runs of `p`'s whole run of every input, and the merge of its two shards'.
fn correct_runs_whole_and_merged(p: &Protocol) -> (Vec<u64>, Vec<u64>) {
    let whole = Simulator::new(p)
        .expect("simulates")
        .simulate_shard(&[], (RUNS, 0), None, None)
        .expect("runs");
    let parts = shards_of(p, &[]);
    let correct: Vec<Vec<u64>> = parts.iter().map(|r| r.correct_runs(p, None)).collect();
    let counted: Vec<(&SimulationReport, &[u64])> = parts
        .iter()
        .zip(&correct)
        .map(|(r, c)| (r, c.as_slice()))
        .collect();
    let merged = merge_correct_runs(&counted).expect("adds up");
    assert_eq!(merge_reports(parts).expect("merges"), whole);
    (whole.correct_runs(p, None), merged)
}

#[test]
fn the_honest_shards_and_their_correct_runs_merge_to_the_unsplit_run() {
    let p = protocol("five-card-trick");
    let (whole, merged) = correct_runs_whole_and_merged(&p);
    assert_eq!(merged, whole);
    assert_eq!(whole, vec![RUNS; 4], "the five-card trick is always right");
    // One input only: the views count it in its own column.
    let one = shards_of(&p, &[2]);
    merge_reports(one).expect("merges");
}

/// The six-card AND, then a fair coin of two helper cards: on ♣ it looks at the output's left
/// card and commits only when that shows 0, on ♥ it turns the output. An input of output 0
/// ends both ways, and its committed ending's view tells the output.
const COIN_THEN_PEEK: &str = "protocol toy-coin-then-peek
inputs a b
function and
layout a b 0 ♣ ♥
perm (2 4 3)
shuffle bisect 1 2 3 | 4 5 6
perm (2 3 4)
shuffle {id, (7 8)}
turn 7 {
  ♣: turn 1 2 {
    ♣♥: turn 5 {
      ♣: result 5 6
      ♥: {}
    }
    ♥♣: turn 3 {
      ♣: result 3 4
      ♥: {}
    }
  }
  ♥: turn 1 2 {
    ♣♥: turn 5
    ♥♣: turn 3
  }
}
";

/// A run that ends committed is right once, by its decoded result, and not again by its view
/// (counted twice, the runs of output 0 had about 1.5 × their number of correct runs, and an
/// honest shard was refused for it).
#[test]
fn a_mixed_protocols_committed_ending_is_counted_once_and_its_shards_merge() {
    let (whole, merged) = correct_runs_whole_and_merged(&support::protocol(COIN_THEN_PEEK));
    assert_eq!(whole, vec![RUNS; 4], "each ending is right");
    assert_eq!(merged, whole);
}

#[test]
fn a_view_counted_more_often_than_its_input_ran_is_refused() {
    let mut parts = five_card_shards();
    parts[0].views[0].counts[0] = u64::MAX;
    let (shard, f) = forgery(parts);
    assert_eq!(shard, 1);
    assert!(
        matches!(&f, Forgery::ViewRuns { input: Some(i), seen: None, runs: RUNS, .. } if i == "00"),
        "{f}"
    );
    let mut parts = five_card_shards();
    parts[0].views[0].counts[0] += 1;
    let (_, f) = forgery(parts);
    assert!(
        matches!(
            f,
            Forgery::ViewRuns {
                seen: Some(1001),
                runs: RUNS,
                stuck: 0,
                ..
            }
        ),
        "{f}"
    );
}

#[test]
fn a_view_moved_to_another_input_is_refused() {
    let mut parts = five_card_shards();
    let v = &mut parts[1].views[0];
    let (from, to) = (
        v.counts.iter().position(|&c| c > 0).expect("a seen input"),
        v.counts
            .iter()
            .position(|&c| c == 0)
            .expect("an unseen input"),
    );
    v.counts.swap(from, to);
    let (shard, f) = forgery(parts);
    assert_eq!(shard, 2);
    assert!(matches!(f, Forgery::ViewRuns { .. }), "{f}");
}

#[test]
fn a_view_counted_for_an_input_the_shard_did_not_simulate_is_refused() {
    let mut parts = shards_of(&protocol("five-card-trick"), &[2]);
    let v = &mut parts[0].views[0];
    assert_eq!(v.counts[0], 0, "only input 2 was simulated");
    v.counts[0] = 1;
    let (_, f) = forgery(parts);
    assert!(matches!(f, Forgery::ViewOfAnotherInput { .. }), "{f}");
}

#[test]
fn a_view_that_is_not_a_view_is_refused() {
    for bad in ["zzzz", "", "♣♥ / ", "#01", "♣ C", "(everything)"] {
        let mut parts = five_card_shards();
        parts[0].views[0].view = bad.to_owned();
        let (_, f) = forgery(parts);
        assert_eq!(
            f,
            Forgery::MalformedView {
                view: bad.to_owned()
            },
            "{bad:?}"
        );
    }
}

#[test]
fn a_view_listed_twice_is_refused() {
    let mut parts = five_card_shards();
    let twice = parts[0].views[0].clone();
    parts[0].views.push(twice.clone());
    let (shard, f) = forgery(parts);
    assert_eq!(shard, 1);
    assert_eq!(
        f,
        Forgery::ViewTwice {
            whose: "view".into(),
            view: twice.view
        }
    );
}

#[test]
fn a_view_no_run_saw_is_refused() {
    let mut parts = five_card_shards();
    let width = parts[0].views[0].counts.len();
    parts[0].views.push(ViewCount {
        view: "♣♣♣♣♣".into(),
        counts: vec![0; width],
    });
    let (_, f) = forgery(parts);
    assert!(matches!(f, Forgery::UnseenView { .. }), "{f}");
}

#[test]
fn a_view_with_counts_for_another_number_of_inputs_is_refused() {
    let mut parts = five_card_shards();
    parts[1].views[1].counts.push(0);
    let (shard, f) = forgery(parts);
    assert_eq!(shard, 2);
    assert!(
        matches!(
            f,
            Forgery::ViewWidth {
                got: 5,
                expected: 4,
                ..
            }
        ),
        "{f}"
    );
}

#[test]
fn a_shuffle_sum_beyond_the_runs_times_the_largest_count_is_refused() {
    let mut parts = five_card_shards();
    parts[0].inputs[0].shuffles_sum = u64::MAX;
    let (shard, f) = forgery(parts);
    assert_eq!(shard, 1);
    assert!(
        matches!(
            &f,
            Forgery::ShuffleCounts {
                sum: u64::MAX,
                max: 1,
                runs: RUNS,
                ..
            }
        ),
        "{f}"
    );
}

#[test]
fn a_largest_shuffle_count_beyond_the_sum_is_refused() {
    let mut parts = five_card_shards();
    parts[0].inputs[0].shuffles_max = u64::MAX;
    let (_, f) = forgery(parts);
    assert!(
        matches!(&f, Forgery::ShuffleCounts { max: u64::MAX, .. }),
        "{f}"
    );
    // And a sum of squares no counts of that sum and largest have.
    let mut parts = five_card_shards();
    parts[0].inputs[0].shuffles_sum_of_squares = u128::MAX;
    let (_, f) = forgery(parts);
    assert!(matches!(f, Forgery::ShuffleCounts { .. }), "{f}");
}

#[test]
fn a_total_that_is_not_the_inputs_runs_is_refused() {
    let mut parts = five_card_shards();
    parts[1].total_runs += 1;
    let (shard, f) = forgery(parts);
    assert_eq!(shard, 2);
    assert!(matches!(f, Forgery::TotalRuns { .. }), "{f}");
}

#[test]
fn a_shard_claiming_more_correct_runs_than_runs_is_refused() {
    let parts = five_card_shards();
    let forged = [1_000_000, 0, 1000, 0];
    let honest = [0, 1000, 0, 1000];
    let counted: Vec<(&SimulationReport, &[u64])> =
        vec![(&parts[0], &forged[..]), (&parts[1], &honest[..])];
    let err = merge_correct_runs(&counted).expect_err("refused");
    assert!(
        matches!(
            &err,
            MergeError::Forged {
                forgery: Forgery::CorrectRuns { input, correct: 1_000_000, runs: RUNS, .. },
                shard,
            } if input == "00" && shard.index() == 1
        ),
        "{err}"
    );
}

#[test]
fn a_shard_claiming_fewer_correct_runs_than_its_right_committed_results_is_refused() {
    let p = protocol("ms09-six-card-and");
    let parts = shards_of(&p, &[]);
    let mut correct: Vec<Vec<u64>> = parts.iter().map(|r| r.correct_runs(&p, None)).collect();
    let j = correct[0].iter().position(|&c| c > 0).expect("a right run");
    correct[0][j] -= 1;
    let counted: Vec<(&SimulationReport, &[u64])> = parts
        .iter()
        .zip(&correct)
        .map(|(r, c)| (r, c.as_slice()))
        .collect();
    let err = merge_correct_runs(&counted).expect_err("refused");
    assert!(
        matches!(&err, MergeError::Forged { forgery: Forgery::CorrectRuns { least, correct, .. }, .. } if correct < least),
        "{err}"
    );
}
