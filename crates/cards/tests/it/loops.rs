//! Loops whose arrivals disagree with the state recorded at their label: the analysis follows
//! every state a label is reached in, so a partly non-terminating protocol reports no bound on
//! its expected shuffles (`null`), as a loop that never ends always did (issue 20's loop bug:
//! it used to report `expected_shuffles = 1`).

use facedown_cards::analyze::{analyze, AnalysisError, Defect, Runtime};
use facedown_cards::parse::parse;

/// Input 0 reaches `label L` first and ends at once; input 1 jumps to `L` from the other
/// branch, where the card at position 2 is always ♣, so it loops forever without a shuffle.
const PARTLY_ENDLESS: &str = "\
protocol partly-endless-copy
inputs a
function copy
layout a ♣ ♥
shuffle {id, (3 4)}
turn 1 {
  ♣: { label L; turn 2 { ♥: result 1 2; ♣: goto L } }
  ♥: goto L
}
";

#[test]
fn a_loop_entered_in_another_state_that_never_ends_has_no_expected_shuffles() {
    let an = analyze(&parse(PARTLY_ENDLESS).expect("parses")).expect("analyzes");
    let one = num_rational::BigRational::from_integer(1.into());
    assert_eq!(an.expected_shuffles_per_input, vec![Some(one), None]);
    assert_eq!(an.expected_shuffles, None);
    let json = serde_json::to_value(&an).expect("serialises");
    assert!(json["expected_shuffles"].is_null(), "{json}");
    assert!(an
        .defects
        .iter()
        .any(|d| matches!(d, Defect::NeverTerminates { input } if input == "1")));
    assert!(an
        .defects
        .iter()
        .any(|d| matches!(d, Defect::LoopInconsistent { label, input, .. } if label == "L" && input == "1")));
    assert!(!an.correct);
    assert_eq!(an.runtime, Runtime::LasVegas);
}

/// The same shape where input 1's own state at `L` ends: the disagreement is still a defect,
/// but the expected number of shuffles is exact for both inputs.
const ENDS_FROM_BOTH_STATES: &str = "\
protocol both-end-copy
inputs a
function copy
layout a ♣ ♥
shuffle {id, (3 4)}
turn 1 {
  ♣: { label L; shuffle {id, (3 4)}; turn 4 { ♣: result 1 2; ♥: goto L } }
  ♥: goto L
}
";

#[test]
fn a_loop_entered_in_another_state_that_ends_is_followed_exactly() {
    let an = analyze(&parse(ENDS_FROM_BOTH_STATES).expect("parses")).expect("analyzes");
    // 1 shuffle before the label, then a geometric number of rounds of one shuffle, each
    // ending with probability 1/2: 1 + 2 = 3 for either input.
    let three = num_rational::BigRational::from_integer(3.into());
    assert_eq!(
        an.expected_shuffles_per_input,
        vec![Some(three.clone()), Some(three.clone())]
    );
    assert_eq!(an.expected_shuffles, Some(three));
    assert!(an
        .defects
        .iter()
        .any(|d| matches!(d, Defect::LoopInconsistent { label, .. } if label == "L")));
    assert!(!an
        .defects
        .iter()
        .any(|d| matches!(d, Defect::NeverTerminates { .. })));
}

#[test]
fn a_loop_whose_state_never_settles_is_a_typed_error() {
    // A biased swap of the helper pair each round: the chance that they lie ♣♥ goes
    // 1, 1/3, 5/9, 13/27, … and never repeats, so no two arrivals at `L` agree.
    let drifting = "\
protocol drift
inputs a
function copy
layout a ♣ ♥
label L
shuffle {id: 1/3, (3 4): 2/3}
goto L
";
    let err = analyze(&parse(drifting).expect("parses")).expect_err("never settles");
    assert_eq!(
        err,
        AnalysisError::TooManyLabelStates {
            label: "L".to_owned()
        }
    );
}
