//! The table process's answers, read by the suites that drive it.

use facedown_core::PartyId;
use facedown_games::session::ideal_table::{Answer, Refusal, Reply};

/// Every answer in `answers` as the player it goes to and his refusal; an answer that shows him
/// something fails the test.
pub fn refusals(answers: &[Answer]) -> Vec<(PartyId, Refusal)> {
    answers
        .iter()
        .map(|a| match &a.reply {
            Reply::Refused(r) => (a.to, r.clone()),
            Reply::Shown(seen) => panic!("{} was shown {seen:?}", a.to),
        })
        .collect()
}
