//! The protocol search in the private model \[NMTIO22\]: the fewest cards with which two players
//! who each hold one private bit compute a two-input function, by one private input permutation
//! each and one public turn, with no shuffle at all.
//!
//! # What is searched
//!
//! A candidate lays a two-colour row of `n` cards (every row with both colours), lets the
//! holder of the first input apply `σ_a` and then the holder of the second apply `τ_b`, and turns
//! the cards at a non-empty set of positions; the output is read from what was seen
//! (non-committed). Every candidate is built as a [`Protocol`] and judged by the exact analyzer
//! ([`crate::analyze`]), so a protocol the search reports is correct and perfectly secure per
//! player exactly as `facedown cards analyze` says.
//!
//! Two reductions keep the space small without losing a protocol: `σ_0 = id`, because the row can
//! be laid out as `σ_0` leaves it (then `σ_1` becomes `σ_1 σ_0⁻¹`); and `τ_0 = id`, because
//! turning `T` after `τ_0` is turning `τ_0⁻¹(T)` before it, with the observation's symbols in
//! another but fixed order. So `n` cards cost `(2ⁿ − 2) · n!² · (2ⁿ − 1)` analyses.
//!
//! # What it reproduces
//!
//! For AND, no candidate with 2 cards exists (the permutations of two cards form a group of
//! order 2, so the left card is `c ⊕ f(a) ⊕ g(b)`, never `a ∧ b`), and 3 cards suffice: the
//! smallest size is `n + 1 = 3` for `n = 2` inputs, the number of \[NMTIO22\], one card below the
//! four every public-model AND needs.

use facedown_core::{Perm, Symbol};

use crate::analyze::{analyze, AnalysisError, Security};
use crate::model::{Action, ActionKind, Function};
use crate::protocol::{Protocol, ProtocolError, ProtocolParts};

/// One size tried by [`smallest_private_protocol`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PrivateSize {
    /// Cards.
    pub cards: usize,
    /// Candidates analysed.
    pub candidates: u64,
    /// Candidates that are correct and perfectly secure per player.
    pub found: u64,
}

/// What [`smallest_private_protocol`] found.
#[derive(Clone, Debug)]
pub struct PrivateSearch {
    /// Every size tried, smallest first; the last is the first with a protocol (or the bound).
    pub sizes: Vec<PrivateSize>,
    /// The first protocol found at the smallest size, if any size up to the bound has one.
    pub protocol: Option<Protocol>,
}

/// Why the private search could not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrivateSearchError {
    /// The function does not take exactly two inputs.
    #[error("the private search takes a function of two inputs, not {0}")]
    Inputs(usize),
    /// More cards than the search enumerates.
    #[error("at most {MAX_PRIVATE_CARDS} cards, not {0}")]
    TooManyCards(usize),
    /// A candidate was no protocol (a bug of the enumeration).
    #[error("a candidate is no protocol: {0}")]
    Protocol(#[from] ProtocolError),
    /// The analyzer hit a limit.
    #[error("analysis: {0}")]
    Analysis(#[from] AnalysisError),
}

/// The most cards [`smallest_private_protocol`] tries (4 cards are about 120 000 analyses).
pub const MAX_PRIVATE_CARDS: usize = 4;

/// The smallest number of cards, from 2 up to `max_cards`, with which `function` (two inputs)
/// has a correct, per-player perfectly secure protocol of the searched shape (module docs).
pub fn smallest_private_protocol(
    function: &Function,
    max_cards: usize,
) -> Result<PrivateSearch, PrivateSearchError> {
    let inputs = match function {
        Function::Table(t) => t.len().trailing_zeros() as usize,
        Function::Copy => 1,
        Function::Named(_) | Function::Several(_) | Function::AddMod => 2,
    };
    if inputs != 2 {
        return Err(PrivateSearchError::Inputs(inputs));
    }
    if max_cards > MAX_PRIVATE_CARDS {
        return Err(PrivateSearchError::TooManyCards(max_cards));
    }
    let mut sizes = Vec::new();
    for n in 2..=max_cards {
        let (size, first) = search_size(function, n)?;
        sizes.push(size);
        if first.is_some() {
            return Ok(PrivateSearch {
                sizes,
                protocol: first,
            });
        }
    }
    Ok(PrivateSearch {
        sizes,
        protocol: None,
    })
}

fn search_size(
    function: &Function,
    n: usize,
) -> Result<(PrivateSize, Option<Protocol>), PrivateSearchError> {
    let perms: Vec<Perm> = Perm::all(n).collect();
    let mut size = PrivateSize {
        cards: n,
        candidates: 0,
        found: 0,
    };
    let mut first = None;
    for row in 1..(1u32 << n) - 1 {
        let layout: Vec<Symbol> = (0..n)
            .map(|j| {
                if row >> j & 1 == 1 {
                    Symbol::Heart
                } else {
                    Symbol::Club
                }
            })
            .collect();
        for sigma in &perms {
            for tau in &perms {
                for turned in 1..1u32 << n {
                    let positions: Vec<usize> = (0..n).filter(|j| turned >> j & 1 == 1).collect();
                    let p = candidate(function, &layout, sigma, tau, positions)?;
                    size.candidates += 1;
                    let an = analyze(&p)?;
                    if an.correct && an.security == Security::Perfect {
                        size.found += 1;
                        first.get_or_insert(p);
                    }
                }
            }
        }
    }
    Ok((size, first))
}

fn candidate(
    function: &Function,
    layout: &[Symbol],
    sigma: &Perm,
    tau: &Perm,
    positions: Vec<usize>,
) -> Result<Protocol, ProtocolError> {
    let id = Perm::identity(layout.len());
    let private = |input: &str, one: &Perm| {
        Action::new(ActionKind::PrivatePerm {
            input: input.to_owned(),
            perms: [id.clone(), one.clone()],
            by: None,
        })
    };
    Protocol::new(ProtocolParts {
        name: "private-search".to_owned(),
        inputs: vec!["a".to_owned(), "b".to_owned()],
        function: function.clone(),
        layout: layout
            .iter()
            .map(|&s| crate::model::LayoutItem::Card(s))
            .collect(),
        body: vec![
            private("a", sigma),
            private("b", tau),
            Action::new(ActionKind::Turn {
                positions,
                branches: None,
            }),
        ],
        claim: None,
    })
}
