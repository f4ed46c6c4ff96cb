//! The compiled simulator on protocols with several named outputs: each output's readings are
//! counted on their own, and agree with the exact analyzer — every output right in every run of
//! the half adder and of AND-and-OR at once \[MS09\], the view frequencies within their
//! sampling error of the exact view distribution, the broken sum named by both, and shards
//! that add up to the unsplit run.

use crate::output_sources::{AND_OR, AND_OR_BROKEN, HALF_ADDER, HALF_ADDER_BROKEN};
use crate::support::{assert_frequency_near, protocol};

use facedown_cards::analyze::{analyze, explore, AnalysisOptions, Defect};
use facedown_cards::model::output_bit;
use facedown_cards::print::render_view;
use facedown_cards::search::Shard;
use facedown_cards::simulate::{merge_reports, simulate, Compiled, SimulationReport};
use facedown_cards::Protocol;
use num_traits::ToPrimitive;

const RUNS: u64 = 20_000;

/// Every simulated view's frequency is within five standard errors of its exact probability,
/// and the simulator sees no view the analyzer does not have.
fn views_agree_with_the_analyzer(p: &Protocol, sim: &SimulationReport) {
    let ex = explore(p, &AnalysisOptions::default()).expect("explores");
    let dist = ex.view_distribution().expect("views").expect("acyclic");
    for vc in &sim.views {
        let exact = dist
            .iter()
            .find(|(v, _)| render_view(v) == vc.view)
            .map(|(_, probs)| probs)
            .unwrap_or_else(|| panic!("{}: view {} is not exact", p.name(), vc.view));
        for (i, (count, q)) in vc.counts.iter().zip(exact).enumerate() {
            let prob = q.to_f64().expect("a probability");
            let what = format!("{}: view {} input {i}", p.name(), vc.view);
            assert_frequency_near(*count, sim.runs_per_input, prob, &what);
        }
    }
}

/// Per input and output, the runs in which that output was right.
fn right_per_output(sim: &SimulationReport) -> Vec<Vec<u64>> {
    sim.inputs
        .iter()
        .map(|r| r.outputs.iter().map(|o| o.right()).collect())
        .collect()
}

#[test]
fn half_adder_and_and_or_every_output_right_in_every_run_ms09() {
    for src in [HALF_ADDER, AND_OR] {
        let p = protocol(src);
        let an = analyze(&p).expect("analyses");
        assert!(an.correct, "{}: {:?}", p.name(), an.errors());
        let sim = simulate(&p, RUNS, 7).expect("simulates several outputs");
        let names: Vec<&str> = p.function().output_names();
        for (i, r) in sim.inputs.iter().enumerate() {
            let got: Vec<(&str, bool)> = r
                .outputs
                .iter()
                .map(|o| (o.name.as_str(), o.expected))
                .collect();
            let want: Vec<(&str, bool)> = names
                .iter()
                .enumerate()
                .map(|(j, n)| (*n, output_bit(p.values()[i], j, names.len())))
                .collect();
            assert_eq!(got, want, "{} input {}", p.name(), r.input);
            assert_eq!(
                r.output_1,
                RUNS,
                "{} input {}: joint reading",
                p.name(),
                r.input
            );
            assert_eq!(r.not_a_commitment + r.stuck + r.gave_up, 0);
        }
        assert!(right_per_output(&sim).iter().flatten().all(|&n| n == RUNS));
        assert_eq!(sim.correct_runs(&p, None), vec![RUNS; p.input_count()]);
        views_agree_with_the_analyzer(&p, &sim);
    }
}

#[test]
fn a_sum_written_as_b_is_wrong_exactly_when_the_analyzer_says_and_carry_stays_right() {
    let p = protocol(HALF_ADDER_BROKEN);
    let an = analyze(&p).expect("analyses");
    let wrong: Vec<&str> = an
        .defects
        .iter()
        .filter_map(|d| match d {
            Defect::WrongResult { output, input, .. } => {
                assert_eq!(output.as_deref(), Some("sum"), "only the sum is wrong");
                Some(input.as_str())
            }
            _ => None,
        })
        .collect();
    let sim = simulate(&p, RUNS, 7).expect("simulates");
    for (r, right) in sim.inputs.iter().zip(right_per_output(&sim)) {
        // The sum reads b: right for a = 0, wrong for a = 1, in every run.
        let sum_wrong = r.input.starts_with('1');
        assert_eq!(wrong.contains(&r.input.as_str()), sum_wrong, "{}", r.input);
        assert_eq!(
            right,
            [if sum_wrong { 0 } else { RUNS }, RUNS],
            "{}",
            r.input
        );
        assert_eq!(r.output_1, if sum_wrong { 0 } else { RUNS }, "{}", r.input);
    }
}

#[test]
fn an_unshuffled_copy_shows_b_in_the_simulated_views_as_in_the_exact_ones() {
    let p = protocol(AND_OR_BROKEN);
    let sim = simulate(&p, RUNS, 11).expect("simulates");
    views_agree_with_the_analyzer(&p, &sim);
    // Both outputs stay right: the protocol is correct and leaks b.
    assert!(right_per_output(&sim).iter().flatten().all(|&n| n == RUNS));
    let first_turn = |view: &str| view.split(" / ").next().unwrap_or_default().to_owned();
    for r in 0..p.input_count() {
        let b = r % 2 == 1;
        let seen: Vec<String> = sim
            .views
            .iter()
            .filter(|v| v.counts[r] > 0)
            .map(|v| first_turn(&v.view))
            .collect();
        let shows = if b { "♥♣" } else { "♣♥" };
        assert!(seen.iter().all(|s| s == shows), "input {r}: {seen:?}");
    }
}

#[test]
fn shards_of_a_several_output_simulation_merge_to_the_unsplit_report() {
    let p = protocol(HALF_ADDER_BROKEN);
    let c = Compiled::new(&p).expect("compiles");
    let runs = 40_000;
    let whole = c.simulate(p.name(), &[], runs, 3, None).expect("runs");
    let parts = (1..=3)
        .map(|i| {
            let shard = Shard::new(i, 3).expect("a shard");
            c.simulate_shard(p.name(), &[], runs, 3, Some(shard), None)
        })
        .collect::<Result<Vec<_>, _>>()
        .expect("runs");
    assert_eq!(merge_reports(parts).expect("merges"), whole);
}
