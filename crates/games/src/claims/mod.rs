//! The seeds' claims, each recomputed.
//!
//! Every claim is written as the seed states it (paraphrased), with the value the seed gives,
//! the value this crate computes, and a verdict that compares the two — never a number copied
//! from the seed as the answer. Where a claim depends on how a rule is read, the note says
//! which reading gives which number. `docs/games.md` prints this table; a test checks that the
//! page and the computation agree.

use serde::Serialize;

mod cards;
mod chopsticks;

pub use cards::{devyatka, golf, golf_stock_runs_out, ninety_nine, Proportion};
pub use chopsticks::chopsticks;

/// How the computation compares with the seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The computed value is the seed's.
    Agrees,
    /// The computed value differs from the seed's.
    Differs,
    /// The seed's value is what one reading of the rules gives, another reading another.
    Reading,
}

impl Verdict {
    /// `Agrees` when the two are equal, `Differs` otherwise.
    pub fn of<T: PartialEq>(seed: T, computed: T) -> Verdict {
        if seed == computed {
            Verdict::Agrees
        } else {
            Verdict::Differs
        }
    }

    /// The symbol in the table.
    pub fn mark(self) -> &'static str {
        match self {
            Verdict::Agrees => "agrees",
            Verdict::Differs => "differs",
            Verdict::Reading => "reading",
        }
    }
}

/// One claim of a seed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Claim {
    /// A short stable name.
    pub id: &'static str,
    /// Which seed (`000`, `002`, `003`).
    pub seed: &'static str,
    /// The game.
    pub game: &'static str,
    /// What the seed says.
    pub claim: String,
    /// The seed's value.
    pub seed_value: String,
    /// What this crate computes.
    pub computed: String,
    /// How they compare.
    pub verdict: Verdict,
    /// Why they differ, or which reading gives which number.
    pub note: String,
}

// Eight fields, each a plain value: a builder would hide nothing.
#[allow(clippy::too_many_arguments)]
pub(crate) fn claim(
    id: &'static str,
    seed: &'static str,
    game: &'static str,
    text: &str,
    seed_value: impl ToString,
    computed: impl ToString,
    verdict: Verdict,
    note: &str,
) -> Claim {
    Claim {
        id,
        seed,
        game,
        claim: text.to_string(),
        seed_value: seed_value.to_string(),
        computed: computed.to_string(),
        verdict,
        note: note.to_string(),
    }
}

pub(crate) fn join(items: &[String]) -> String {
    items.join(" ")
}

/// Every claim of every seed.
pub fn all() -> Vec<Claim> {
    let mut out = chopsticks();
    out.extend(ninety_nine());
    out.extend(devyatka());
    out.extend(golf());
    out
}

/// The claims as a Markdown table.
pub fn markdown(claims: &[Claim]) -> String {
    let mut out = String::from("| seed | game | claim | seed's value | computed | verdict | note |\n|---|---|---|---|---|---|---|\n");
    for c in claims {
        let cell = |s: &str| s.replace('|', "\\|");
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            c.seed,
            c.game,
            cell(&c.claim),
            cell(&c.seed_value),
            cell(&c.computed),
            c.verdict.mark(),
            cell(&c.note)
        ));
    }
    out
}
