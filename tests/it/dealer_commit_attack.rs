//! `facedown dealer commit-attack` end to end: the post's multiplier equivocates and the
//! scheme's parameters refuse it, a missing range check accepts an out-of-range opening, and
//! the salt sweep counts the brute force's hashes exactly.

use serde_json::Value;

fn commit_attack(args: &[&str]) -> Value {
    crate::support::run_json(&[&["dealer", "commit-attack"][..], args, &["--json"]].concat())
}

#[test]
fn the_posts_multiplier_n_equivocates_and_n_factorial_refuses() {
    for seed in ["0", "1", "2"] {
        let v = commit_attack(&["--cards", "5", "--multiplier", "5", "--seed", seed]);
        let chosen = &v["rows"][0];
        assert_eq!(chosen["setting"], "chosen");
        let e = &chosen["equivocation"];
        assert_eq!(e["first"]["in_range"], true, "seed {seed}");
        assert_eq!(
            e["second"]["in_range"], true,
            "seed {seed}: a real permutation"
        );
        assert_ne!(e["first"]["permutation"], e["second"]["permutation"]);
        let (x1, x2): (i64, i64) = (
            e["first"]["rank"]
                .as_str()
                .expect("rank")
                .parse()
                .expect("int"),
            e["second"]["rank"]
                .as_str()
                .expect("rank")
                .parse()
                .expect("int"),
        );
        assert_eq!((x1 - x2).abs(), 5, "X and X ± M");
        let honest = &v["rows"][1];
        assert_eq!(honest["setting"], "honest");
        assert!(
            honest["equivocation"].is_null(),
            "n! and the range check bind"
        );
    }
}

#[test]
fn without_the_range_check_an_opening_out_of_range_is_accepted() {
    let v = commit_attack(&["--cards", "4", "--no-range-check"]);
    let e = &v["rows"][0]["equivocation"];
    assert_eq!(e["second"]["in_range"], false);
    assert!(
        e["second"]["permutation"].is_null(),
        "X + n! is no permutation"
    );
    assert!(v["rows"][1]["equivocation"].is_null());
}

#[test]
fn the_salt_sweep_tries_at_most_every_ordinal_under_every_salt() {
    let v = commit_attack(&["--cards", "3", "--salt-bits", "6", "--seed", "2"]);
    let rows = v["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 7, "0..=6 bits");
    for r in rows {
        let b = r["salt_bits"].as_u64().expect("bits");
        let tried = r["hashes"].as_u64().expect("hashes");
        assert!(
            tried > ((1 << b) - 1) * 6 && tried <= 6 << b,
            "{r}: the last salt"
        );
    }
    assert_eq!(v["honest_salt_bits"], 256);
    assert!(v["honest_log2_seconds"].as_f64().expect("log2") > 200.0);
}
