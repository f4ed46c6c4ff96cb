//! Unit tests of `src/compare.rs`, run from the integration binary:
//! the package builds no unit-test binaries.

use std::collections::BTreeSet;

use facedown::compare::*;

#[test]
fn notes_of_one_reason_are_grouped_by_line() {
    let notes: BTreeSet<String> = [
        "line 9: shuffle: r".to_owned(),
        "line 8: shuffle: r".to_owned(),
        "deal: q".to_owned(),
    ]
    .into();
    assert_eq!(
        group_notes(notes),
        ["weakened shuffles at lines 8, 9: r", "deal: q"]
    );
}
