//! The simulator on every deck: multiset decks (Crépeau–Kilian's colours \[CK93\]) and standard
//! decks \[KSK19\] run as the interpreter's sampled runs ([`General`]), whose reports agree with
//! the exact analyzer, merge from shards and do not depend on the thread count; and on a
//! two-colour deck the sampled runs give the compiled program's report, number for number.

use crate::support::assert_frequency_near;
use std::collections::{BTreeMap, HashSet};

use facedown_cards::analyze::{explore, AnalysisOptions};
use facedown_cards::library::builtins;
use facedown_cards::model::{Action, ActionKind, Span};
use facedown_cards::print::render_view;
use facedown_cards::search::Shard;
use facedown_cards::simulate::{merge_reports, General, SimulationReport, Simulator};
use facedown_cards::Protocol;
use num_traits::ToPrimitive;

const RUNS: u64 = 20_000;

/// Where the `result`s are written: the analyzer adds the basis of a result outside the two
/// colours to its complete views (what opening it would show), the simulator counts turns.
fn result_spans(actions: &[Action], out: &mut HashSet<Span>) {
    for a in actions {
        match &a.kind {
            ActionKind::Result(_) | ActionKind::ResultNumber(_) => {
                out.insert(a.span);
            }
            ActionKind::Turn {
                branches: Some(bs), ..
            } => bs.iter().for_each(|b| result_spans(&b.body, out)),
            _ => {}
        }
    }
}

/// The exact distribution of the turns alone (bases of results summed out), rendered.
fn exact_turn_views(p: &Protocol) -> BTreeMap<String, Vec<f64>> {
    let ex = explore(p, &AnalysisOptions::default()).expect("explores");
    let dist = ex.view_distribution().expect("views").expect("acyclic");
    let mut results = HashSet::new();
    result_spans(p.body(), &mut results);
    let mut out: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (view, probs) in dist {
        let turns: Vec<_> = view
            .into_iter()
            .filter(|o| !results.contains(&o.span))
            .collect();
        let slot = out
            .entry(render_view(&turns))
            .or_insert_with(|| vec![0.0; probs.len()]);
        for (a, q) in slot.iter_mut().zip(&probs) {
            *a += q.to_f64().expect("a probability");
        }
    }
    out
}

/// Every simulated view is one the analyzer has, within five standard errors of its exact
/// probability under every input.
fn views_agree_with_the_analyzer(p: &Protocol, sim: &SimulationReport) {
    let dist = exact_turn_views(p);
    for vc in &sim.views {
        let exact = dist
            .get(&vc.view)
            .unwrap_or_else(|| panic!("{}: view {} is not exact", p.name(), vc.view));
        for (i, (count, &prob)) in vc.counts.iter().zip(exact).enumerate() {
            let what = format!("{}: view {} input {i}", p.name(), vc.view);
            assert_frequency_near(*count, sim.runs_per_input, prob, &what);
        }
    }
}

/// The library's protocols the compiled program cannot hold (other decks, bit inputs).
fn other_decks() -> Vec<Protocol> {
    builtins()
        .iter()
        .filter(|b| !b.simulable() && !b.protocol().has_numbers())
        .map(|b| b.protocol())
        .collect()
}

#[test]
fn multiset_and_standard_deck_protocols_simulate_as_the_analyzer_judges_them_ck93_ksk19() {
    let protocols = other_decks();
    assert!(protocols.len() >= 3, "the library's multiset protocols");
    for p in protocols {
        let sim = Simulator::new(&p).expect("any deck simulates");
        assert!(!sim.is_compiled(), "{}", p.name());
        let report = sim
            .simulate_shard(&[], (RUNS, 13), None, None)
            .expect("runs");
        views_agree_with_the_analyzer(&p, &report);
        let correct = facedown_cards::analyze::analyze(&p)
            .expect("analyses")
            .correct;
        let right = report.correct_runs(&p, None);
        if correct {
            assert!(right.iter().all(|&r| r == RUNS), "{}: {right:?}", p.name());
        }
    }
}

#[test]
fn sampled_runs_give_the_compiled_report_on_every_two_colour_protocol() {
    for b in builtins().iter().filter(|b| b.simulable()) {
        let p = b.protocol();
        let compiled = Simulator::new(&p).expect("compiles");
        assert!(compiled.is_compiled(), "{}", b.name);
        let mut fast = compiled
            .simulate_shard(&[], (3000, 21), None, None)
            .expect("runs");
        let general = General::new(&p).expect("bits");
        let slow = general
            .simulate_shard(&[], (3000, 21), None, None)
            .expect("runs");
        // The sampled runs count the public view only.
        fast.players.clear();
        assert_eq!(slow, fast, "{}", b.name);
    }
}

fn multiset_protocol() -> Protocol {
    let b = builtins()
        .iter()
        .find(|b| b.name == "ms09-xor-four-colours")
        .expect("built in");
    b.protocol()
}

#[test]
fn shards_of_a_multiset_simulation_merge_to_the_unsplit_report() {
    let p = multiset_protocol();
    let g = General::new(&p).expect("bits");
    let runs = 40_000;
    let whole = g.simulate_shard(&[], (runs, 5), None, None).expect("runs");
    let parts = (1..=3)
        .map(|i| {
            let shard = Shard::new(i, 3).expect("a shard");
            g.simulate_shard(&[], (runs, 5), Some(shard), None)
        })
        .collect::<Result<Vec<_>, _>>()
        .expect("runs");
    assert_eq!(merge_reports(parts).expect("merges"), whole);
}

#[test]
fn a_multiset_simulation_is_the_same_on_one_thread_and_on_two() {
    let p = multiset_protocol();
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        pool.install(|| facedown_cards::simulate::simulate(&p, 50_000, 9).expect("simulates"))
    };
    assert_eq!(on(1), on(2));
}
