//! Every built-in protocol gives the verdict its source claims, through the analyzer; every
//! negative example is flagged.

use facedown::cards::analyze::{analyze, Defect, Security};
use facedown::cards::claim::ShuffleBound;
use facedown::cards::library::builtins;

#[test]
fn every_builtin_gives_its_stated_claim() {
    for b in builtins() {
        let a = analyze(&b.protocol()).unwrap_or_else(|e| panic!("{}: {e}", b.name));
        let c = b.claim();
        assert!(c.is_complete(), "{}: {c}", b.name);
        assert_eq!(
            Some(a.correct),
            c.correct,
            "{}: correct {:?}",
            b.name,
            a.errors()
        );
        assert_eq!(Some(a.endings), c.endings, "{}", b.name);
        assert_eq!(Some(a.security), c.security, "{}", b.name);
        assert_eq!(Some(a.runtime), c.runtime, "{}", b.name);
        assert_eq!(a.expected_shuffles, c.expected_shuffles, "{}", b.name);
        let max = a
            .max_shuffles
            .map_or(ShuffleBound::Unbounded, ShuffleBound::At);
        assert_eq!(Some(max), c.max_shuffles, "{}", b.name);
        assert!(c.check(&a).is_empty(), "{}", b.name);
        if c.security == Some(Security::Perfect) && c.correct == Some(true) {
            assert!(a.errors().is_empty(), "{}: {:?}", b.name, a.errors());
            assert_eq!(
                a.tv_distance.as_ref().map(ToString::to_string).as_deref(),
                Some("0"),
                "{}",
                b.name
            );
        }
    }
}

#[test]
fn negative_examples_are_flagged() {
    let negatives: Vec<_> = builtins().iter().filter(|b| b.negative_example).collect();
    assert!(!negatives.is_empty());
    for b in negatives {
        let a = analyze(&b.protocol()).expect("analyzes");
        assert!(
            !a.errors().is_empty(),
            "{}: the defect is explained",
            b.name
        );
        if a.security == Security::Perfect {
            // A broken output, not a leak (the half adder whose sum is wrong).
            assert!(!a.correct, "{}", b.name);
            continue;
        }
        // A mixed protocol's committed ending may leak where the distance between inputs of
        // the same outputs is 0; the defect names that view instead. In the private model a
        // player may learn from what he alone drew or saw while the public view is perfect (the
        // five-card trick cut by Alice alone): the defect names that player.
        let named_leak = a.defects.iter().any(|d| {
            matches!(
                d,
                Defect::CommittedEndingReveals { .. } | Defect::PlayerLeak { .. }
            )
        });
        let tv = a.tv_distance.expect("acyclic");
        assert!(
            named_leak || tv > facedown::cards::Q::from_integer(0.into()),
            "{}",
            b.name
        );
    }
}
