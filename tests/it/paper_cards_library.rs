//! Every built-in protocol gives the verdict its source claims, through the analyzer; every
//! negative example is flagged.

use facedown::cards::analyze::analyze;
use facedown::cards::library::builtins;

#[test]
fn every_builtin_gives_its_stated_claim() {
    for b in builtins() {
        let a = analyze(&b.protocol()).unwrap_or_else(|e| panic!("{}: {e}", b.name));
        let c = &b.claim;
        assert_eq!(a.correct, c.correct, "{}: correct {:?}", b.name, a.errors);
        assert_eq!(a.security.as_str(), c.security, "{}", b.name);
        assert_eq!(a.runtime.as_str(), c.runtime, "{}", b.name);
        assert_eq!(
            a.expected_shuffles.as_deref(),
            Some(c.expected_shuffles),
            "{}",
            b.name
        );
        assert_eq!(a.max_shuffles, c.max_shuffles.map(u64::from), "{}", b.name);
        if c.security == "perfect" && c.correct {
            assert!(a.errors.is_empty(), "{}: {:?}", b.name, a.errors);
            assert_eq!(a.tv_distance.as_deref(), Some("0"), "{}", b.name);
        }
    }
}

#[test]
fn negative_examples_are_flagged() {
    let negatives: Vec<_> = builtins()
        .iter()
        .filter(|b| b.claim.negative_example)
        .collect();
    assert!(!negatives.is_empty());
    for b in negatives {
        let a = analyze(&b.protocol()).expect("analyzes");
        assert_ne!(a.security.as_str(), "perfect", "{}", b.name);
        assert!(!a.errors.is_empty(), "{}: the leak is explained", b.name);
        let tv = a.tv_distance_exact.expect("acyclic");
        assert!(
            tv > facedown::cards::Q::from_integer(0.into()),
            "{}",
            b.name
        );
    }
}
