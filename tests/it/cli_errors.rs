//! Unit tests of the error line the binary prints (`cli::output::one_line`), run from the integration binary:
//! the package builds no unit-test binaries.

use facedown::cli::output::*;

/// An error that writes its cause into its message and also returns it as `source()`.
#[derive(Debug)]
struct Outer(std::fmt::Error);

impl std::fmt::Display for Outer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad.cards: {}", self.0)
    }
}

impl std::error::Error for Outer {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

#[test]
fn a_cause_already_in_the_message_is_printed_once() {
    let err = anyhow::Error::new(Outer(std::fmt::Error)).context("cannot analyze");
    assert_eq!(
        one_line(&err),
        "cannot analyze: bad.cards: an error occurred when formatting an argument"
    );
}
