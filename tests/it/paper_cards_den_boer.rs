//! [dB89] den Boer's five-card trick: AND of two bits with five cards and one random cut.

use facedown::cards::analyze::{analyze, explore, AnalysisOptions, Runtime, Security};
use facedown::cards::library::find;
use facedown::cards::print::render_view;
use facedown::cards::Q;

fn q(s: &str) -> Q {
    s.parse().expect("a rational")
}

#[test]
fn five_card_trick_is_correct_perfect_finite_with_one_shuffle() {
    let p = find("five-card-trick").expect("built in").protocol();
    let a = analyze(&p).expect("analyzes");
    assert!(a.correct, "{:?}", a.errors());
    assert_eq!(a.security, Security::Perfect);
    assert_eq!(a.runtime, Runtime::Finite);
    assert_eq!(
        a.expected_shuffles
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("1")
    );
    assert_eq!((a.min_shuffles, a.max_shuffles), (Some(1), Some(1)));
    assert!(!a.committed, "the output is read from the row");
    assert!(a.errors().is_empty());
}

#[test]
fn each_of_the_ten_rows_has_probability_one_fifth_given_its_output() {
    let p = find("five-card-trick").expect("built in").protocol();
    let ex = explore(&p, &AnalysisOptions::default()).expect("explores");
    let dist = ex.view_distribution().expect("views").expect("acyclic");
    assert_eq!(dist.len(), 10, "ten distinct rows");
    let fifth = q("1/5");
    for (view, probs) in &dist {
        let row = render_view(view);
        // Output 1 exactly when the three ♥ are cyclically consecutive.
        let doubled: String = row.repeat(2);
        let consecutive = doubled.contains("♥♥♥");
        for (i, p) in probs.iter().enumerate() {
            let same_output = (ex.outputs[i] == 1) == consecutive;
            let want = if same_output { fifth.clone() } else { q("0") };
            assert_eq!(p, &want, "row {row}, input {}", ex.inputs[i]);
        }
    }
}

#[test]
fn without_the_cut_the_inputs_show() {
    let a =
        analyze(&find("five-card-trick-no-cut").expect("built in").protocol()).expect("analyzes");
    assert!(a.correct);
    assert_eq!(a.security, Security::Insecure);
    assert_eq!(
        a.tv_distance.as_ref().map(ToString::to_string).as_deref(),
        Some("1")
    );
    assert!(!a.errors().is_empty());
}

#[test]
fn de_morgan_or_variant_is_also_perfect() {
    let a = analyze(&find("five-card-trick-or").expect("built in").protocol()).expect("analyzes");
    assert!(a.correct, "{:?}", a.errors());
    assert_eq!(a.function.to_string(), "or");
    assert_eq!(a.security, Security::Perfect);
}
