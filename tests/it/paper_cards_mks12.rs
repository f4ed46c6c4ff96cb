//! [MKS12] Mizuki–Kumamoto–Sone: "The five-card trick can be done with four cards".

use facedown::cards::analyze::{analyze, explore, AnalysisOptions, Runtime, Security};
use facedown::cards::library::find;
use facedown::cards::print::render_view;
use facedown::cards::Q;

fn q(s: &str) -> Q {
    s.parse().expect("a rational")
}

#[test]
fn four_card_and_is_correct_perfect_finite_with_two_shuffles() {
    let a = analyze(&find("mks-four-card-and").expect("built in").protocol()).expect("analyzes");
    assert!(a.correct, "{:?}", a.errors());
    assert_eq!(a.security, Security::Perfect);
    assert_eq!(a.runtime, Runtime::Finite);
    assert_eq!(
        a.expected_shuffles
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("2")
    );
    assert_eq!(a.max_shuffles, Some(2));
    assert_eq!(a.cards, 4);
}

#[test]
fn matching_cards_mean_and_one_each_view_has_probability_one_half() {
    let p = find("mks-four-card-and").expect("built in").protocol();
    let ex = explore(&p, &AnalysisOptions::default()).expect("explores");
    let dist = ex.view_distribution().expect("views").expect("acyclic");
    assert_eq!(dist.len(), 4);
    for (view, probs) in &dist {
        let cards: Vec<String> = view
            .iter()
            .map(|o| render_view(std::slice::from_ref(o)))
            .collect();
        assert_eq!(cards.len(), 2, "two turns per run");
        let matching = cards[0] == cards[1];
        for (i, p) in probs.iter().enumerate() {
            let want = if (ex.outputs[i] == 1) == matching {
                q("1/2")
            } else {
                q("0")
            };
            assert_eq!(
                p,
                &want,
                "view {} input {}",
                render_view(view),
                ex.inputs[i]
            );
        }
    }
}

#[test]
fn without_the_first_shuffle_01_and_10_are_distinguishable() {
    let a = analyze(
        &find("mks-without-first-shuffle")
            .expect("built in")
            .protocol(),
    )
    .expect("analyzes");
    assert!(a.correct);
    assert_eq!(a.security, Security::Insecure);
    let w = a.tv_worst.as_ref().expect("a witness");
    assert_eq!(w.inputs, ["01".to_owned(), "10".to_owned()]);
    assert_eq!(
        a.tv_distance.as_ref().map(ToString::to_string).as_deref(),
        Some("1"),
        "they never share a view"
    );
    assert!(a.leak_beyond_output_bits.expect("acyclic") > 0.0);
}

#[test]
fn de_morgan_or_variant_is_also_perfect() {
    let a = analyze(&find("mks-four-card-or").expect("built in").protocol()).expect("analyzes");
    assert!(a.correct, "{:?}", a.errors());
    assert_eq!(a.security, Security::Perfect);
    assert_eq!(
        a.expected_shuffles
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("2")
    );
}
