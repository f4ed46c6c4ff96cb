//! The three pitfalls of a published probabilistic verifier (listed in the analyzer's module
//! docs, `facedown_cards::analyze`), each reproduced, and
//! the negative cases: insecure variants flagged, a wrong function flagged incorrect, a missing
//! branch reported with its line and column, loops checked.

use facedown::cards::analyze::{
    analyze, explore, is_bottom, AnalysisError, AnalysisOptions, Defect, Exact, Security, State,
};
use facedown::cards::parse::parse;
use facedown::cards::{Shuffle, Q};
use facedown::core::{Perm, Symbol};

fn q(s: &str) -> Q {
    s.parse().expect("a rational")
}

/// A state's probability.
fn x(s: &str) -> Exact {
    Exact::from_q(&q(s))
}

/// Pitfall 1: pooling all observations of a turn always passes, since each input's total is 1.
#[test]
fn pitfall_1_security_is_checked_per_observation_not_pooled() {
    // A committed COPY that turns one card of its input first: the observation is the input.
    let p = parse("protocol peek\ninputs a\nfunction copy\nlayout a 0\nturn 1\nresult 1 2\n")
        .expect("parses");
    let ex = explore(&p, &AnalysisOptions::default()).expect("explores");
    let pooled: Vec<Q> = (0..2)
        .map(|i| ex.turns.iter().map(|t| t.mass[i].to_q()).sum())
        .collect();
    assert_eq!(
        pooled,
        vec![q("1"), q("1")],
        "pooled, the inputs look alike"
    );
    let a = ex.summarize().expect("summarizes");
    assert!(a.correct);
    assert_eq!(a.security, Security::Insecure);
    assert!(
        a.errors().iter().any(|e| e.contains("line 5, col 1")),
        "{:?}",
        a.errors()
    );
}

/// Pitfall 2: a shuffle accumulates `p·F(π)` at `π(s)`; adding `F(π)` to `p` can give 3/2.
#[test]
fn pitfall_2_shuffle_accumulates_weight_times_mass() {
    let h = Symbol::Heart;
    let c = Symbol::Club;
    let st = State::from_rows([
        (vec![c, h, c, h], vec![x("1/2")]),
        (vec![h, c, h, c], vec![x("1/2")]),
    ])
    .expect("rows of one shape");
    let dist = Shuffle::Set {
        perms: vec![
            Perm::identity(4),
            Perm::parse_cycles(4, "(1 2)(3 4)").expect("valid"),
        ],
        weights: None,
    }
    .distribution(4)
    .expect("valid");
    let out = st.shuffle(&dist);
    assert_eq!(out.get(&[c, h, c, h]), Some(&[x("1/2")][..]));
    assert_eq!(out.get(&[h, c, h, c]), Some(&[x("1/2")][..]));
    assert_eq!(out.column_sums(1), vec![x("1")], "never 3/2");
    // And end to end: every state of the MS XOR keeps total mass 1 per input.
    let p = facedown::cards::library::find("ms09-four-card-xor")
        .expect("built in")
        .protocol();
    let opts = AnalysisOptions {
        record_tree: true,
        ..AnalysisOptions::default()
    };
    let ex = explore(&p, &opts).expect("explores");
    for v in &ex.tree.expect("recorded").vertices {
        for s in v.state.column_sums(4) {
            assert!(s == x("1") || s == x("0"), "column sum {s}");
        }
    }
}

/// Pitfall 3: ⊥ needs inputs with *different* outputs on one sequence.
#[test]
fn pitfall_3_bottom_only_for_different_outputs() {
    let or = [false, true, true, true];
    assert!(!is_bottom(&[q("0"), q("1/2"), q("1/2"), q("0")], &or));
    assert!(is_bottom(&[q("1/2"), q("0"), q("0"), q("1/2")], &or));
    // Under OR, the bisection cut makes 01 and 10 share ♥♣♣♥ — both output 1: not ⊥.
    let shared = "protocol or-shared\ninputs a b\nfunction or\nlayout a b\nshuffle {id, (1 3)(2 4)}\nturn 1 2 3 4\n";
    let a = analyze(&parse(shared).expect("parses")).expect("analyzes");
    assert_eq!(a.bottom_sequences, 0);
    assert!(a.correct, "{:?}", a.errors());
    // Swapping within both commitments makes 00 and 11 share rows: ⊥, and then incorrect.
    let bottom = "protocol or-bottom\ninputs a b\nfunction or\nlayout a b\nshuffle {id, (1 2)(3 4)}\nturn 1 2 3 4\n";
    let a = analyze(&parse(bottom).expect("parses")).expect("analyzes");
    assert!(a.bottom_sequences > 0);
    assert!(!a.correct);
}

#[test]
fn wrong_function_is_flagged_incorrect() {
    let text = facedown::cards::library::find("five-card-trick")
        .expect("built in")
        .source
        .replace("function and", "function or");
    let a = analyze(&parse(&text).expect("parses")).expect("analyzes");
    assert!(!a.correct);
    assert!(a
        .defects
        .iter()
        .any(|d| matches!(d, Defect::ViewDoesNotDetermineOutput { .. })));
    // Committed: the MS AND read as XOR decodes wrongly.
    let text = facedown::cards::library::find("ms09-six-card-and")
        .expect("built in")
        .source
        .replace("function and", "function xor");
    let a = analyze(&parse(&text).expect("parses")).expect("analyzes");
    assert!(!a.correct);
    assert!(a
        .defects
        .iter()
        .any(|d| matches!(d, Defect::WrongResult { .. })));
}

#[test]
fn missing_branch_names_line_and_column() {
    let text = "protocol half\ninputs a b\nfunction and\nlayout a b\nshuffle {id, (1 3)(2 4)}\nturn 2 {\n  ♥: turn 1\n}\n";
    let a = analyze(&parse(text).expect("parses")).expect("analyzes");
    assert!(!a.correct);
    let errors = a.errors();
    let e = errors
        .iter()
        .find(|e| e.contains("no branch"))
        .expect("missing branch reported");
    assert!(e.contains("line 6, col 1") && e.contains('♣'), "{e}");
}

#[test]
fn inconsistent_loop_is_flagged() {
    let text = "protocol bad-loop\ninputs a\nfunction copy\nlayout a 0\nlabel L\nshuffle {id, (3 4)}\nturn 3 {\n  ♣: result 1 2\n  ♥: { perm (1 2); goto L }\n}\n";
    let a = analyze(&parse(text).expect("parses")).expect("analyzes");
    assert!(!a.correct);
    assert!(a
        .defects
        .iter()
        .any(|d| matches!(d, Defect::LoopInconsistent { label, .. } if label == "L")));
}

#[test]
fn a_loop_that_never_ends_is_flagged() {
    let text = "protocol forever\ninputs a\nfunction copy\nlayout a 0\nlabel L\nshuffle {id, (3 4)}\nturn 3 {\n  ♣: { perm (3 4); goto L }\n  ♥: goto L\n}\n";
    let a = analyze(&parse(text).expect("parses")).expect("analyzes");
    assert!(!a.correct);
    assert_eq!(a.expected_shuffles, None);
    assert!(a
        .defects
        .iter()
        .any(|d| matches!(d, Defect::NeverTerminates { .. })));
}

#[test]
fn limits_are_typed_errors_not_panics() {
    let p = facedown::cards::library::find("five-card-trick")
        .expect("built in")
        .protocol();
    let opts = AnalysisOptions {
        max_sequences: 3,
        ..AnalysisOptions::default()
    };
    assert!(matches!(
        facedown::cards::analyze::analyze_with(&p, &opts),
        Err(AnalysisError::TooManySequences { .. })
    ));
}
