//! The four-card restart-free Las Vegas committed AND (non-uniform closed shuffles, after
//! [KWH15]), and a Las Vegas protocol with restart.

use facedown::cards::analyze::{analyze, Runtime, Security};
use facedown::cards::library::find;
use facedown::cards::print::glyphs;

#[test]
fn restart_free_las_vegas_and_needs_eight_shuffles_in_expectation() {
    let a = analyze(
        &find("four-card-las-vegas-and")
            .expect("built in")
            .protocol(),
    )
    .expect("analyzes");
    assert!(a.correct, "{:?}", a.errors());
    assert!(a.committed);
    assert_eq!(a.security, Security::Perfect);
    assert_eq!(a.runtime, Runtime::LasVegas);
    assert_eq!(
        a.expected_shuffles
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("8")
    );
    assert!(a.expected_shuffles_per_input.iter().all(|e| e
        .as_ref()
        .map(ToString::to_string)
        .as_deref()
        == Some("8")));
    assert_eq!(a.max_shuffles, None, "unbounded");
    assert_eq!(a.min_shuffles, Some(4));
}

#[test]
fn every_round_ends_with_probability_one_third() {
    let a = analyze(
        &find("four-card-las-vegas-and")
            .expect("built in")
            .protocol(),
    )
    .expect("analyzes");
    let rounds: Vec<_> = a.branches.iter().filter(|b| b.node != "start").collect();
    assert_eq!(
        rounds.len(),
        4,
        "two observations in each of the two loop bodies"
    );
    for b in rounds {
        // In SC the round ends on ♣ (result 1 2), in SH on ♥ (result 2 4).
        let ends = (b.node == "SC" && glyphs(&b.observation) == "♣")
            || (b.node == "SH" && glyphs(&b.observation) == "♥");
        let want = if ends { "1/3" } else { "2/3" };
        assert!(
            b.probability
                .iter()
                .all(|p| p.as_ref().map(ToString::to_string).as_deref() == Some(want)),
            "{b:?}"
        );
    }
}

#[test]
fn restart_protocol_is_las_vegas_with_restart() {
    let a = analyze(&find("toy-restart-xor").expect("built in").protocol()).expect("analyzes");
    assert!(a.correct, "{:?}", a.errors());
    assert_eq!(a.runtime, Runtime::LasVegasRestart);
    assert_eq!(a.security, Security::Perfect);
    assert_eq!(
        a.expected_shuffles
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("3")
    );
    assert_eq!(a.max_shuffles, None);
}
