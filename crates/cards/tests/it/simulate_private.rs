//! The compiled simulator in the private model \[NMTIO22\], \[OM21\]: each player's own view
//! (the public turns with what he drew and saw) is counted, and its frequencies agree with the
//! exact analyzer's distribution of that player's view on every library protocol with private
//! actions; the leak the analyzer names shows in the simulation too, and shards and thread
//! counts do not change the counts.

use crate::support::assert_frequency_near;
use std::collections::BTreeMap;

use facedown_cards::analyze::{explore_as, AnalysisOptions};
use facedown_cards::library::builtins;
use facedown_cards::print::render_view;
use facedown_cards::search::Shard;
use facedown_cards::simulate::{merge_reports, simulate, Compiled, PlayerViews, ViewCount};
use facedown_cards::Protocol;
use num_traits::ToPrimitive;

const RUNS: u64 = 20_000;

/// Player `player`'s exact view distribution, views rendered as the simulator renders them.
fn exact_views(p: &Protocol, player: usize) -> BTreeMap<String, Vec<f64>> {
    let ex = explore_as(p, &AnalysisOptions::default(), Some(player)).expect("explores");
    let dist = ex.view_distribution().expect("views").expect("acyclic");
    dist.into_iter()
        .map(|(v, probs)| {
            let probs = probs.iter().map(|q| q.to_f64().expect("a probability"));
            (render_view(&v), probs.collect())
        })
        .collect()
}

/// Every simulated view is one the analyzer has, at a frequency within five standard errors
/// of its exact probability.
fn agree(name: &str, who: &str, sim: &[ViewCount], exact: &BTreeMap<String, Vec<f64>>) {
    for vc in sim {
        let probs = exact
            .get(&vc.view)
            .unwrap_or_else(|| panic!("{name}: {who} saw {}, which is not exact", vc.view));
        for (i, (&count, &prob)) in vc.counts.iter().zip(probs).enumerate() {
            let what = format!("{name}: {who}'s view {} under input {i}", vc.view);
            assert_frequency_near(count, RUNS, prob, &what);
        }
    }
}

fn player<'r>(views: &'r [PlayerViews], name: &str) -> &'r [ViewCount] {
    let found = views.iter().find(|p| p.player == name);
    &found.unwrap_or_else(|| panic!("no views of {name}")).views
}

#[test]
fn each_players_simulated_views_follow_his_exact_view_distribution_in_every_private_protocol() {
    let private: Vec<_> = builtins()
        .iter()
        .filter(|b| b.simulable() && b.protocol().has_private_actions())
        .collect();
    assert!(private.len() >= 9, "the library's private-model protocols");
    for b in private {
        let p = b.protocol();
        let sim = simulate(&p, RUNS, 11).expect("simulates private actions");
        assert_eq!(sim.players.len(), p.inputs().len(), "{}", b.name);
        for (k, name) in p.inputs().iter().enumerate() {
            let exact = exact_views(&p, k);
            agree(b.name, name, player(&sim.players, name), &exact);
        }
    }
}

#[test]
fn a_single_private_cut_lets_its_holder_read_the_other_input_in_the_simulation_too() {
    // The analyzer: Alice's view has TV distance 1 between b = 0 and b = 1 when a = 0.
    let b = builtins()
        .iter()
        .find(|b| b.name == "five-card-trick-one-private-cut")
        .expect("built in");
    let sim = simulate(&b.protocol(), RUNS, 5).expect("simulates");
    let alice = player(&sim.players, "a");
    let seen_under = |input: usize| -> Vec<&str> {
        let seen = alice.iter().filter(|v| v.counts[input] > 0);
        seen.map(|v| v.view.as_str()).collect()
    };
    // Inputs 00 and 01: a = 0, b differs; no view of Alice's is seen under both.
    let (b0, b1) = (seen_under(0), seen_under(1));
    assert!(!b0.is_empty() && !b1.is_empty());
    assert!(b0.iter().all(|v| !b1.contains(v)), "{b0:?} / {b1:?}");
    // Bob learns nothing beyond the output: under 00 and 10 (b = 0, both outputs 0) his
    // views are the same ones.
    let bob = player(&sim.players, "b");
    for v in bob {
        assert_eq!(v.counts[0] > 0, v.counts[2] > 0, "Bob's view {}", v.view);
    }
}

#[test]
fn shards_of_a_private_simulation_merge_to_the_unsplit_players_views() {
    let b = builtins()
        .iter()
        .find(|b| b.name == "ono-manabe-and")
        .expect("built in");
    let p = b.protocol();
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
    assert!(!whole.players.is_empty());
    assert_eq!(merge_reports(parts).expect("merges"), whole);
}

#[test]
fn a_private_simulation_is_the_same_on_one_thread_and_on_two() {
    let b = builtins()
        .iter()
        .find(|b| b.name == "five-card-trick-private-cuts")
        .expect("built in");
    let p = b.protocol();
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        pool.install(|| simulate(&p, 50_000, 9).expect("simulates"))
    };
    assert_eq!(on(1), on(2));
}
