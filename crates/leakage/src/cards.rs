//! Card protocols on the ideal table as [`RecordedProtocol`]s: the cross-check with the exact
//! analyzer of [`facedown_cards`].
//!
//! The single party is the observer of the table. A run is an input assignment `x` (uniform)
//! and the complete view `v` (every turned card), with probability `P(v | x) / k` taken from the
//! analyzer's exact view distribution ([`Exploration::view_distribution`]). The target is the
//! input; the ideal view is the output `f(x)` — what an ideal functionality reveals. So the
//! harness's `I(T; V)` is the analyzer's `mutual_information_bits` and its excess leakage
//! `I(X; V | f(X))` is the analyzer's `leak_beyond_output_bits` (for non-committed protocols):
//! zero for the five-card trick \[dB89\], positive for its biased-cut variant.

use std::fmt;

use facedown_cards::analyze::{explore, AnalysisOptions, Exploration, ViewDistribution};
use facedown_cards::Protocol;
use num_traits::{ToPrimitive, Zero};
use rand::Rng;
use rand_chacha::ChaCha20Rng;

use crate::error::LeakageError;
use crate::harness::{Coalition, RecordedProtocol, Q};

/// A card protocol's exact views, ready for the harness.
#[derive(Clone, Debug)]
pub struct CardRuns {
    name: String,
    outputs: Vec<u32>,
    dist: Vec<Vec<Q>>,
}

/// The only target of a card protocol: the input assignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Input;

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("input")
    }
}

impl CardRuns {
    /// Explores `protocol` exactly. Fails for looping protocols (no finite view distribution).
    pub fn new(protocol: &Protocol) -> Result<CardRuns, LeakageError> {
        let ex: Exploration = explore(protocol, &AnalysisOptions::default())
            .map_err(|e| LeakageError::Cards(e.to_string()))?;
        let dist: ViewDistribution = ex
            .view_distribution()
            .map_err(|e| LeakageError::Cards(e.to_string()))?
            .ok_or_else(|| LeakageError::Cards("the protocol loops: no finite view set".into()))?;
        Ok(CardRuns {
            name: ex.name.clone(),
            outputs: ex.outputs.clone(),
            dist: dist.into_values().collect(),
        })
    }

    /// The protocol's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn inputs(&self) -> usize {
        self.outputs.len()
    }
}

impl RecordedProtocol for CardRuns {
    /// `(input, view index)`.
    type Run = (usize, usize);
    type Target = Input;

    fn parties(&self) -> usize {
        1
    }

    fn targets(&self, _: &Coalition) -> Vec<Input> {
        vec![Input]
    }

    fn for_each_run(&self, f: &mut dyn FnMut(&(usize, usize), &Q)) -> Result<(), LeakageError> {
        let k = Q::from_integer(self.inputs().into());
        for (v, probs) in self.dist.iter().enumerate() {
            for (x, p) in probs.iter().enumerate() {
                if !p.is_zero() {
                    f(&(x, v), &(p / &k));
                }
            }
        }
        Ok(())
    }

    fn sample_run(&self, rng: &mut ChaCha20Rng) -> (usize, usize) {
        let x = rng.gen_range(0..self.inputs().max(1));
        let u: f64 = rng.gen();
        let mut acc = 0.0;
        for (v, probs) in self.dist.iter().enumerate() {
            acc += probs.get(x).and_then(|p| p.to_f64()).unwrap_or(0.0);
            if u < acc {
                return (x, v);
            }
        }
        (x, self.dist.len().saturating_sub(1))
    }

    fn view(&self, run: &(usize, usize), _: &Coalition) -> Vec<u32> {
        vec![run.1 as u32]
    }

    fn ideal_view(&self, run: &(usize, usize), _: &Coalition) -> Vec<u32> {
        vec![self.outputs.get(run.0).copied().unwrap_or(0)]
    }

    fn target(&self, run: &(usize, usize), _: &Input) -> Vec<u32> {
        vec![run.0 as u32]
    }
}

/// The worst single party's excess leakage of a card protocol played on the permutation-sharing
/// dealer ([`dealer_excess`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DealerExcess {
    /// Bits the party's dealer view reveals about the inputs beyond his ideal view.
    pub bits: f64,
    /// Whether the excess is exactly zero for **every** party (checked in integers).
    pub exactly_zero: bool,
    /// The party with the largest excess (the first one on ties).
    pub party: facedown_core::PartyId,
}

/// The excess leakage of `protocol` on the dealer's layer model (one
/// [`facedown_dealer::engine::DealerEngine`] per player): inputs uniform, input `i` placed by
/// party `i + 1` (at least two parties), and **every** combination of every player's random
/// choices enumerated ([`crate::enumerate::enumerate_runs`], at most `max_runs` per input, with
/// the engines' seed `seed` for the rest). A party's ideal view is his own input bits, every
/// turned card and the outputs; his dealer view adds everything his engine saw
/// ([`facedown_dealer::engine::ViewEvent`]). The result is the largest excess over the parties,
/// from the exact joint distribution ([`crate::excess::excess_leakage`]). A protocol that can
/// loop (a `goto` or a `restart`) has no finite set of runs and is refused.
pub fn dealer_excess(
    protocol: &Protocol,
    seed: u64,
    max_runs: usize,
) -> Result<DealerExcess, LeakageError> {
    use crate::enumerate::{enumerate_runs, weights};
    use crate::excess::excess_leakage;
    use facedown_cards::model::input_bits;
    use facedown_cards::on_table::{can_loop, run_on_table, RunOptions};
    use facedown_core::PartyId;

    if can_loop(protocol) {
        return Err(LeakageError::Cards(format!(
            "{} can loop (goto or restart): its runs cannot be enumerated",
            protocol.name()
        )));
    }
    let k = protocol.inputs().len();
    let parties = k.max(2);
    let owners: Vec<PartyId> = PartyId::all(k).collect();
    let mut all = Vec::new();
    for input in 0..protocol.input_count() {
        let bits = input_bits(input, k);
        let runs = enumerate_runs(parties, seed, max_runs, |t| {
            run_on_table(protocol, &bits, &owners, t, RunOptions::default())
        })
        .map_err(|e| LeakageError::Cards(format!("{} on the dealer: {e}", protocol.name())))?;
        all.extend(runs.into_iter().map(|r| (input, r)));
    }
    let runs: Vec<_> = all.iter().map(|(_, r)| r.clone()).collect();
    let w = weights(&runs);
    let mut worst: Option<DealerExcess> = None;
    let mut all_zero = true;
    for party in PartyId::all(parties) {
        let samples: Vec<_> = all
            .iter()
            .zip(&w)
            .map(|((input, r), weight)| {
                let bits = input_bits(*input, k);
                let own: Vec<bool> = (0..k)
                    .filter(|&i| owners[i] == party)
                    .map(|i| bits[i])
                    .collect();
                let seen: Vec<_> = r
                    .outcome
                    .view
                    .iter()
                    .map(|s| (s.positions.clone(), s.symbols.clone()))
                    .collect();
                (
                    weight.clone(),
                    *input,
                    (own, seen, r.outcome.outputs.clone()),
                    r.views[party.index()].clone(),
                )
            })
            .collect();
        let e = excess_leakage(&samples);
        all_zero &= e.exactly_zero;
        if worst.is_none_or(|w| e.bits > w.bits) {
            worst = Some(DealerExcess {
                bits: e.bits.max(0.0),
                exactly_zero: false,
                party,
            });
        }
    }
    let mut worst = worst.ok_or_else(|| LeakageError::Cards("no party".into()))?;
    worst.exactly_zero = all_zero;
    Ok(worst)
}
