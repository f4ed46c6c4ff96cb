//! The analyzer's small-integer fast path gives exactly the big-rational analysis: on every
//! library protocol, on the shipped multiset and private protocols, on the state trees, and on
//! random protocols — and the library is analysed without falling back.

use facedown_cards::analyze::{analyze_with, explore, Analysis, AnalysisOptions, Arithmetic};
use facedown_cards::library::{builtins, load};
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

/// The two paths agree on every number; `Ok(path)` is the path the small run took.
fn agree(p: &Protocol) -> Result<Option<Arithmetic>, String> {
    match both(p) {
        (Ok(small), Ok(big)) => {
            if big.arithmetic != Arithmetic::Big {
                return Err("the big run did not use big rationals".into());
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
