//! Claims: what a protocol's author says it achieves, in the analyzer's vocabulary, and the
//! check of a claim against an [`Analysis`].
//!
//! A claim is a list of items, each stating one verdict of the analyzer:
//!
//! | item | holds when the analysis says |
//! |---|---|
//! | `correct` / `incorrect` | [`Analysis::correct`] is true / false |
//! | `committed` / `non-committed` / `mixed` | [`Analysis::endings`]: every reachable ending is a committed `result` / none is / some are and some are not |
//! | `perfect`, `input-possibilistic`, `output-possibilistic`, `insecure` | [`Analysis::security`] is exactly this level (the strongest that holds) |
//! | `finite`, `las-vegas`, `las-vegas-restart` | [`Analysis::runtime`] is this class |
//! | `expected-shuffles=R` | the exact expected number of shuffles is the rational `R` (`8`, `15/2`) |
//! | `max-shuffles=N` / `max-shuffles=unbounded` | the most shuffles of a run is `N` / has no bound |
//!
//! In a `.cards` file the items follow the keyword on one `claim` line
//! (`claim correct perfect finite expected-shuffles=1 max-shuffles=1`); on the command line
//! (`facedown cards check --expect correct,perfect`) they are separated by commas. Both read
//! items with [`ClaimItem::from_str`], so the two spellings cannot drift apart.

use std::fmt;
use std::str::FromStr;

use num_traits::Signed;

use crate::analyze::{Analysis, Endings, Runtime, Security};
use crate::model::Q;

/// A bound on the number of shuffles of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShuffleBound {
    /// At most this many.
    At(u64),
    /// No bound (a Las Vegas protocol).
    Unbounded,
}

impl fmt::Display for ShuffleBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShuffleBound::At(n) => write!(f, "{n}"),
            ShuffleBound::Unbounded => f.write_str("unbounded"),
        }
    }
}

/// One stated verdict (see the [module docs](self)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimItem {
    /// `correct` (true) or `incorrect` (false).
    Correct(bool),
    /// `committed`, `non-committed` or `mixed`.
    Endings(Endings),
    /// The security level.
    Security(Security),
    /// The runtime class.
    Runtime(Runtime),
    /// `expected-shuffles=R`.
    ExpectedShuffles(Q),
    /// `max-shuffles=N` or `max-shuffles=unbounded`.
    MaxShuffles(ShuffleBound),
}

/// Why a claim item does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClaimError {
    /// A word that is no claim item.
    #[error("`{item}` is not a claim item (expected {}){}", ClaimItem::WORDS.join(", "), did_you_mean(*.suggestion))]
    Unknown {
        /// The word.
        item: String,
        /// The closest item, when one is close.
        suggestion: Option<&'static str>,
    },
    /// A value that does not read.
    #[error("`{item}`: {reason}")]
    Value {
        /// The item.
        item: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// The same verdict stated twice.
    #[error("the claim states {what} twice")]
    Twice {
        /// Which verdict.
        what: &'static str,
    },
    /// A claim with no item.
    #[error("a claim states at least one item")]
    Empty,
}

fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |s| format!("; did you mean `{s}`?"))
}

impl ClaimItem {
    /// Every word a claim item starts with.
    pub const WORDS: [&'static str; 14] = [
        "correct",
        "incorrect",
        "committed",
        "non-committed",
        "mixed",
        "perfect",
        "input-possibilistic",
        "output-possibilistic",
        "insecure",
        "finite",
        "las-vegas",
        "las-vegas-restart",
        "expected-shuffles=",
        "max-shuffles=",
    ];

    /// Which verdict the item states (`security`, `runtime`, …).
    pub fn what(&self) -> &'static str {
        match self {
            ClaimItem::Correct(_) => "correctness",
            ClaimItem::Endings(_) => "endings",
            ClaimItem::Security(_) => "security",
            ClaimItem::Runtime(_) => "runtime",
            ClaimItem::ExpectedShuffles(_) => "expected shuffles",
            ClaimItem::MaxShuffles(_) => "most shuffles",
        }
    }
}

impl FromStr for ClaimItem {
    type Err = ClaimError;

    fn from_str(s: &str) -> Result<ClaimItem, ClaimError> {
        let value_err = |reason| ClaimError::Value {
            item: s.to_owned(),
            reason,
        };
        if let Some(v) = s.strip_prefix("expected-shuffles=") {
            let q = crate::parse::rational(v).ok_or(value_err(
                "expected a non-negative rational such as `8` or `15/2`",
            ))?;
            if q.is_negative() {
                return Err(value_err("a number of shuffles is not negative"));
            }
            return Ok(ClaimItem::ExpectedShuffles(q));
        }
        if let Some(v) = s.strip_prefix("max-shuffles=") {
            if v == "unbounded" {
                return Ok(ClaimItem::MaxShuffles(ShuffleBound::Unbounded));
            }
            let n = v
                .parse()
                .map_err(|_| value_err("expected a whole number or `unbounded`"))?;
            return Ok(ClaimItem::MaxShuffles(ShuffleBound::At(n)));
        }
        if let Some(level) = Security::ALL.into_iter().find(|l| l.as_str() == s) {
            return Ok(ClaimItem::Security(level));
        }
        if let Some(r) = Runtime::ALL.into_iter().find(|r| r.as_str() == s) {
            return Ok(ClaimItem::Runtime(r));
        }
        if let Some(e) = Endings::ALL.into_iter().find(|e| e.as_str() == s) {
            return Ok(ClaimItem::Endings(e));
        }
        match s {
            "correct" => Ok(ClaimItem::Correct(true)),
            "incorrect" => Ok(ClaimItem::Correct(false)),
            _ => Err(ClaimError::Unknown {
                item: s.to_owned(),
                suggestion: crate::suggest::closest(s, ClaimItem::WORDS),
            }),
        }
    }
}

impl fmt::Display for ClaimItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClaimItem::Correct(true) => f.write_str("correct"),
            ClaimItem::Correct(false) => f.write_str("incorrect"),
            ClaimItem::Endings(e) => f.write_str(e.as_str()),
            ClaimItem::Security(s) => f.write_str(s.as_str()),
            ClaimItem::Runtime(r) => f.write_str(r.as_str()),
            ClaimItem::ExpectedShuffles(q) => write!(f, "expected-shuffles={q}"),
            ClaimItem::MaxShuffles(b) => write!(f, "max-shuffles={b}"),
        }
    }
}

/// What a protocol is claimed to achieve: each verdict stated at most once, `None` where the
/// claim is silent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Claim {
    /// Whether it is correct.
    pub correct: Option<bool>,
    /// Which kinds of ending are reached.
    pub endings: Option<Endings>,
    /// The strongest security level that holds.
    pub security: Option<Security>,
    /// The runtime class.
    pub runtime: Option<Runtime>,
    /// The exact expected number of shuffles.
    pub expected_shuffles: Option<Q>,
    /// The most shuffles of any run.
    pub max_shuffles: Option<ShuffleBound>,
}

/// A claimed verdict that the analysis does not confirm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// What was claimed.
    pub claimed: ClaimItem,
    /// What the analysis found, in the claim's spelling (`insecure`, `expected-shuffles=3`,
    /// `expected-shuffles=none` when the protocol may not terminate).
    pub found: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: claimed {}, found {}",
            self.claimed.what(),
            self.claimed,
            self.found
        )
    }
}

impl Claim {
    /// The claim made of these items; each verdict may be stated once.
    pub fn from_items(items: impl IntoIterator<Item = ClaimItem>) -> Result<Claim, ClaimError> {
        let mut claim = Claim::default();
        for item in items {
            claim.add(item)?;
        }
        Ok(claim)
    }

    /// Adds one item; an error when the claim already states that verdict.
    pub fn add(&mut self, item: ClaimItem) -> Result<(), ClaimError> {
        let what = item.what();
        let free = match item {
            ClaimItem::Correct(b) => self.correct.replace(b).is_none(),
            ClaimItem::Endings(e) => self.endings.replace(e).is_none(),
            ClaimItem::Security(s) => self.security.replace(s).is_none(),
            ClaimItem::Runtime(r) => self.runtime.replace(r).is_none(),
            ClaimItem::ExpectedShuffles(q) => self.expected_shuffles.replace(q).is_none(),
            ClaimItem::MaxShuffles(b) => self.max_shuffles.replace(b).is_none(),
        };
        if free {
            Ok(())
        } else {
            Err(ClaimError::Twice { what })
        }
    }

    /// The items, in the canonical order (correctness, endings, security, runtime, expected
    /// shuffles, most shuffles).
    pub fn items(&self) -> Vec<ClaimItem> {
        let mut out = Vec::new();
        out.extend(self.correct.map(ClaimItem::Correct));
        out.extend(self.endings.map(ClaimItem::Endings));
        out.extend(self.security.map(ClaimItem::Security));
        out.extend(self.runtime.map(ClaimItem::Runtime));
        out.extend(
            self.expected_shuffles
                .clone()
                .map(ClaimItem::ExpectedShuffles),
        );
        out.extend(self.max_shuffles.map(ClaimItem::MaxShuffles));
        out
    }

    /// Whether the claim states nothing.
    pub fn is_empty(&self) -> bool {
        self.items().is_empty()
    }

    /// Whether the claim states every verdict (as the library's claims do).
    pub fn is_complete(&self) -> bool {
        self.items().len() == 6
    }

    /// This claim with every item of `other` that it does not state itself.
    pub fn or(&self, other: &Claim) -> Claim {
        Claim {
            correct: self.correct.or(other.correct),
            endings: self.endings.or(other.endings),
            security: self.security.or(other.security),
            runtime: self.runtime.or(other.runtime),
            expected_shuffles: self
                .expected_shuffles
                .clone()
                .or_else(|| other.expected_shuffles.clone()),
            max_shuffles: self.max_shuffles.or(other.max_shuffles),
        }
    }

    /// The claimed verdicts that `analysis` does not confirm (empty when the claim holds).
    pub fn check(&self, analysis: &Analysis) -> Vec<Mismatch> {
        self.items()
            .into_iter()
            .filter_map(|item| {
                let found = found(&item, analysis);
                (found != item).then(|| Mismatch {
                    claimed: item,
                    found: found_text(&found),
                })
            })
            .collect()
    }
}

/// What the analysis says about the verdict `item` states, as an item (`expected-shuffles`
/// without a value becomes an impossible item, see [`found_text`]).
fn found(item: &ClaimItem, a: &Analysis) -> ClaimItem {
    match item {
        ClaimItem::Correct(_) => ClaimItem::Correct(a.correct),
        ClaimItem::Endings(_) => ClaimItem::Endings(a.endings),
        ClaimItem::Security(_) => ClaimItem::Security(a.security),
        ClaimItem::Runtime(_) => ClaimItem::Runtime(a.runtime),
        ClaimItem::ExpectedShuffles(_) => match &a.expected_shuffles {
            Some(q) => ClaimItem::ExpectedShuffles(q.clone()),
            None => ClaimItem::ExpectedShuffles(-Q::from_integer(1.into())),
        },
        ClaimItem::MaxShuffles(_) => ClaimItem::MaxShuffles(match a.max_shuffles {
            Some(n) => ShuffleBound::At(n),
            None => ShuffleBound::Unbounded,
        }),
    }
}

fn found_text(found: &ClaimItem) -> String {
    match found {
        ClaimItem::ExpectedShuffles(q) if q.is_negative() => {
            "expected-shuffles=none (the protocol may not terminate)".to_owned()
        }
        other => other.to_string(),
    }
}

impl fmt::Display for Claim {
    /// The items separated by spaces, as on a `claim` line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, item) in self.items().iter().enumerate() {
            if k > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{item}")?;
        }
        Ok(())
    }
}

impl FromStr for Claim {
    type Err = ClaimError;

    /// Items separated by commas or spaces (`correct,perfect` or `correct perfect`).
    fn from_str(s: &str) -> Result<Claim, ClaimError> {
        let items = s
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .map(ClaimItem::from_str)
            .collect::<Result<Vec<_>, _>>()?;
        if items.is_empty() {
            return Err(ClaimError::Empty);
        }
        Claim::from_items(items)
    }
}

/// The outcome of checking a protocol: its own claim and the caller's expectations against
/// its analysis (what `facedown cards check` and `facedown cards analyze --expect` decide).
#[derive(Clone, Debug)]
pub struct Check {
    /// The protocol's `claim` line, if it has one.
    pub claim: Option<Claim>,
    /// What the caller expects besides (`--expect`).
    pub expect: Option<Claim>,
    /// The analysis checked against.
    pub analysis: Analysis,
    /// Every claimed or expected verdict the analysis does not confirm.
    pub mismatches: Vec<Mismatch>,
}

impl Check {
    /// Whether every claimed and expected verdict holds.
    pub fn holds(&self) -> bool {
        self.mismatches.is_empty()
    }
}

/// Checks `analysis` against the protocol's `claim` and the caller's `expect`. When neither
/// states correctness, correctness is expected: a check never passes an incorrect protocol
/// unless someone said `incorrect`.
pub fn check(analysis: Analysis, claim: Option<&Claim>, expect: Option<&Claim>) -> Check {
    let mut mismatches = Vec::new();
    for c in claim.iter().chain(expect.iter()) {
        for m in c.check(&analysis) {
            if !mismatches.contains(&m) {
                mismatches.push(m);
            }
        }
    }
    let silent = |c: Option<&Claim>| c.is_none_or(|c| c.correct.is_none());
    if silent(claim) && silent(expect) {
        let correct = Claim {
            correct: Some(true),
            ..Claim::default()
        };
        mismatches.extend(correct.check(&analysis));
    }
    Check {
        claim: claim.cloned(),
        expect: expect.cloned(),
        analysis,
        mismatches,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_print_as_they_read() {
        let text = "correct non-committed input-possibilistic las-vegas-restart \
                    expected-shuffles=15/2 max-shuffles=unbounded";
        let claim: Claim = text.parse().expect("reads");
        assert!(claim.is_complete());
        assert_eq!(claim.to_string(), text);
        let commas: Claim = "incorrect,max-shuffles=3".parse().expect("reads");
        assert_eq!(commas.correct, Some(false));
        assert_eq!(commas.max_shuffles, Some(ShuffleBound::At(3)));
    }

    #[test]
    fn bad_items_are_typed_errors_with_a_suggestion() {
        assert_eq!(
            "perfct".parse::<Claim>(),
            Err(ClaimError::Unknown {
                item: "perfct".to_owned(),
                suggestion: Some("perfect")
            })
        );
        assert!(matches!(
            "perfect insecure".parse::<Claim>(),
            Err(ClaimError::Twice { .. })
        ));
        assert!(matches!(
            "expected-shuffles=-1".parse::<Claim>(),
            Err(ClaimError::Value { .. })
        ));
        assert!(matches!(
            "max-shuffles=many".parse::<Claim>(),
            Err(ClaimError::Value { .. })
        ));
        assert_eq!(" , ".parse::<Claim>(), Err(ClaimError::Empty));
    }
}
