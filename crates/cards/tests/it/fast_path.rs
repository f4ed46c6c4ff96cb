//! The analyzer's small-integer fast path gives exactly the big-rational analysis: on every
//! library protocol, on the shipped multiset and private protocols, on the state trees, on
//! random protocols, and on a protocol whose masses overflow `i64` — and the library is
//! analysed without falling back.
//!
//! "Exactly" is checked at three levels: the whole [`Analysis`] (every field, floats included,
//! and its JSON), the exploration it was summarised from (every leaf's and every turn's
//! per-input masses, the view distribution, the expected shuffles), and the representation
//! (the small run's masses are machine integers, the big run's big rationals, so the two runs
//! did compute differently).

use facedown_cards::analyze::{
    analyze_with, explore, Analysis, AnalysisOptions, Arithmetic, Exact, Exploration,
};
use facedown_cards::library::{builtins, load};
use facedown_cards::parse::parse;
use facedown_cards::Protocol;
use proptest::prelude::*;

fn with(arithmetic: Arithmetic) -> AnalysisOptions {
    AnalysisOptions {
        arithmetic,
        ..AnalysisOptions::default()
    }
}

/// Both analyses, or both errors (as text).
fn both(p: &Protocol) -> (Result<Analysis, String>, Result<Analysis, String>) {
    let run = |a| analyze_with(p, &with(a)).map_err(|e| e.to_string());
    (run(Arithmetic::Small), run(Arithmetic::Big))
}

/// The analysis's JSON without the one field that names the path.
fn json_without_path(a: &Analysis) -> serde_json::Value {
    let mut v = serde_json::to_value(a).expect("an analysis serialises");
    let path = v.as_object_mut().and_then(|o| o.remove("arithmetic"));
    assert!(path.is_some(), "the JSON names the path");
    v
}

/// Every per-input mass the exploration recorded, leaves first, then turns (prior, mass).
fn masses(ex: &Exploration) -> Vec<&Exact> {
    let leaves = ex.leaves.iter().flat_map(|l| l.mass.iter());
    let turns = ex
        .turns
        .iter()
        .flat_map(|t| t.prior.iter().chain(t.mass.iter()));
    leaves.chain(turns).collect()
}

/// The two explorations agree on every number they carry, and each holds its own kind of
/// number (small on a small run that did not fall back, big throughout on a big run).
fn explorations_agree(p: &Protocol) -> Result<(), String> {
    let run = |a| explore(p, &with(a)).map_err(|e| e.to_string());
    let (small, big) = match (run(Arithmetic::Small), run(Arithmetic::Big)) {
        (Ok(s), Ok(b)) => (s, b),
        (Err(a), Err(b)) if a == b => return Ok(()),
        (a, b) => {
            return Err(format!(
                "{}: explorations {:?} != {:?}",
                p.name(),
                a.err(),
                b.err()
            ))
        }
    };
    let name = p.name();
    let views = |ex: &Exploration| {
        let view = |l: &facedown_cards::analyze::Leaf| ex.views.get(l.view);
        ex.leaves.iter().map(view).collect::<Vec<_>>()
    };
    let turns = |ex: &Exploration| {
        let key = |t: &facedown_cards::analyze::TurnRecord| (t.node, t.span, t.observation.clone());
        ex.turns.iter().map(key).collect::<Vec<_>>()
    };
    if views(&small) != views(&big) || turns(&small) != turns(&big) {
        return Err(format!("{name}: the two walks took different paths"));
    }
    if masses(&small) != masses(&big) {
        return Err(format!("{name}: the walks' masses differ"));
    }
    let dist = |ex: &Exploration| ex.view_distribution().map_err(|e| e.to_string());
    if dist(&small)? != dist(&big)? || small.expected_shuffles() != big.expected_shuffles() {
        return Err(format!(
            "{name}: view distributions or expected shuffles differ"
        ));
    }
    if masses(&big).iter().any(|x| matches!(x, Exact::Small(_))) {
        return Err(format!("{name}: the big run kept a small mass"));
    }
    if small.arithmetic == Arithmetic::Small
        && masses(&small).iter().any(|x| matches!(x, Exact::Big(_)))
    {
        return Err(format!(
            "{name}: the small run has a big mass but did not say so"
        ));
    }
    Ok(())
}

/// The two paths agree on every number; `Ok(path)` is the path the small run took.
fn agree(p: &Protocol) -> Result<Option<Arithmetic>, String> {
    explorations_agree(p)?;
    match both(p) {
        (Ok(small), Ok(big)) => {
            if big.arithmetic != Arithmetic::Big {
                return Err("the big run did not use big rationals".into());
            }
            if json_without_path(&small) != json_without_path(&big) {
                return Err(format!("{}: the JSON differs", p.name()));
            }
            let same = Analysis {
                arithmetic: small.arithmetic,
                ..big
            };
            if small != same {
                return Err(format!("{}: {small:?}\n!=\n{same:?}", p.name()));
            }
            Ok(Some(small.arithmetic))
        }
        (Err(a), Err(b)) if a == b => Ok(None),
        (a, b) => Err(format!("{}: {a:?} != {b:?}", p.name())),
    }
}

#[test]
fn every_library_protocol_analyses_alike_on_both_paths_and_stays_small() {
    for b in builtins() {
        let path = agree(&b.protocol()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(path, Some(Arithmetic::Small), "{} fell back", b.name);
    }
}

#[test]
fn the_shipped_multiset_and_private_protocols_analyse_alike() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/protocols");
    let mut checked = 0;
    for sub in ["multiset", "private"] {
        let entries = std::fs::read_dir(format!("{dir}/{sub}")).expect("a protocol directory");
        for entry in entries {
            let path = entry.expect("an entry").path();
            let p = load(path.to_str().expect("a UTF-8 path")).expect("a valid protocol");
            agree(&p).unwrap_or_else(|e| panic!("{e}"));
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} protocols found");
}

/// Three biased swaps of the two helper cards, each turned: their weights have prime
/// denominators near `2^31`, so the view ♣ ♣ ♣ has probability near `2^-93` and the small path
/// must fall back mid-walk.
const OVERFLOWING: &str = "protocol overflowing
inputs a
function copy
layout a ♣ ♥
shuffle {id: 1/2147483647, (3 4): 2147483646/2147483647}
turn 3
shuffle {id: 1/2147483629, (3 4): 2147483628/2147483629}
turn 3
shuffle {id: 1/2147483587, (3 4): 2147483586/2147483587}
turn 3
";

#[test]
fn a_protocol_whose_masses_overflow_falls_back_and_analyses_alike() {
    let p = parse(OVERFLOWING).expect("parses");
    let path = agree(&p).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        path,
        Some(Arithmetic::Big),
        "the small path should have overflowed"
    );
    let ex = explore(&p, &with(Arithmetic::Small)).expect("explores");
    assert!(
        masses(&ex).iter().any(|x| matches!(x, Exact::Big(_))),
        "some mass no longer fits in i64"
    );
}

#[test]
fn the_state_trees_are_equal_on_both_paths() {
    for b in builtins() {
        let p = b.protocol();
        let tree = |arithmetic| {
            let opts = AnalysisOptions {
                record_tree: true,
                ..with(arithmetic)
            };
            let ex = explore(&p, &opts).expect("explores");
            assert_eq!(ex.arithmetic, arithmetic, "{}", b.name);
            ex.tree.expect("recorded")
        };
        let (small, big) = (tree(Arithmetic::Small), tree(Arithmetic::Big));
        assert!(!small.vertices.is_empty());
        assert_eq!(small, big, "{}", b.name);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_protocols_analyse_alike_on_both_paths(seed in any::<u64>()) {
        let p = crate::format::random_protocol(seed);
        prop_assert!(agree(&p).is_ok(), "{:?}\n{}", agree(&p), p);
    }
}
