//! Every combination of every player's random choices on the dealer's layer model, with its
//! exact probability and every player's view.
//!
//! The players are real [`DealerEngine`]s at a [`LocalDriver`] table; only their choices of
//! group elements are scripted ([`Script`]), one odometer step per run, so the enumeration
//! measures the code a networked player runs. Keys, salts and nonces come from the same seed in
//! every run (they do not depend on the choices), so two runs differ exactly in the choices.

use std::sync::{Arc, Mutex};

use facedown_core::rng::party_rng;
use facedown_core::{DriveError, LocalDriver, PartyId};
use facedown_dealer::engine::{DealerEngine, EngineError, Script, ViewEvent};
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::One;
use rand_chacha::ChaCha20Rng;

/// The dealer's layer model as a table of one engine per player.
pub type DealerTable = LocalDriver<DealerEngine<ChaCha20Rng>>;

/// One run of [`enumerate_runs`]: its probability `numerator / denominator`, its result and
/// every player's view.
#[derive(Clone, Debug)]
pub struct Enumerated<T> {
    /// The product of the chosen elements' weights.
    pub numerator: BigUint,
    /// The product of the total weights at every choice.
    pub denominator: BigUint,
    /// What the run returned.
    pub outcome: T,
    /// Every player's [`ViewEvent`]s, player 1 first.
    pub views: Vec<Vec<ViewEvent>>,
}

/// Why [`enumerate_runs`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum EnumerateError<E: std::error::Error + 'static> {
    /// The table could not be set up.
    #[error(transparent)]
    Setup(#[from] DriveError<EngineError>),
    /// A run failed.
    #[error(transparent)]
    Run(E),
    /// More runs than the limit.
    #[error("more than {0} combinations of random choices")]
    TooMany(usize),
}

fn table(
    parties: usize,
    seed: u64,
    script: &Arc<Mutex<Script>>,
) -> Result<DealerTable, DriveError<EngineError>> {
    let engines = PartyId::all(parties)
        .map(|p| {
            DealerEngine::with_rng(p, parties, b"facedown leakage", party_rng(seed, 0, p))
                .map(|e| e.scripted(Arc::clone(script)))
                .map_err(|source| DriveError::Engine { party: p, source })
        })
        .collect::<Result<Vec<_>, _>>()?;
    LocalDriver::new(engines)
}

/// Runs `run` once for every combination of the players' random choices (each player's group
/// element at every shuffle, the drawer's element of a weighted one), each on a fresh table of
/// `parties` engines seeded from `seed`. Deals (`All`) are not enumerated.
pub fn enumerate_runs<T, E: std::error::Error + 'static>(
    parties: usize,
    seed: u64,
    max_runs: usize,
    mut run: impl FnMut(&mut DealerTable) -> Result<T, E>,
) -> Result<Vec<Enumerated<T>>, EnumerateError<E>> {
    let mut out = Vec::new();
    let mut forced: Vec<usize> = Vec::new();
    loop {
        if out.len() >= max_runs {
            return Err(EnumerateError::TooMany(max_runs));
        }
        let script = Arc::new(Mutex::new(Script::new(forced.clone())));
        let mut t = table(parties, seed, &script)?;
        let outcome = run(&mut t).map_err(EnumerateError::Run)?;
        let drawn = script
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drawn()
            .to_vec();
        let (numerator, denominator) = drawn
            .iter()
            .fold((BigUint::one(), BigUint::one()), |(n, d), x| {
                (n * BigUint::from(x.weight), d * BigUint::from(x.total))
            });
        out.push(Enumerated {
            numerator,
            denominator,
            outcome,
            views: t.engines().map(|e| e.view().to_vec()).collect(),
        });
        // Odometer: advance the last choice that has a next element.
        match drawn.iter().rposition(|x| x.choice + 1 < x.arity) {
            Some(k) => {
                forced = drawn[..k].iter().map(|x| x.choice).collect();
                forced.push(drawn[k].choice + 1);
            }
            None => return Ok(out),
        }
    }
}

/// Integer sample weights of the runs, proportional to their probabilities.
pub fn weights<T>(runs: &[Enumerated<T>]) -> Vec<BigUint> {
    let lcm = runs
        .iter()
        .fold(BigUint::one(), |acc, r| acc.lcm(&r.denominator));
    runs.iter()
        .map(|r| &lcm / &r.denominator * &r.numerator)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use facedown_core::table::{FaceDownTable, ShuffleSet};
    use facedown_core::{Perm, Symbol};

    #[test]
    fn enumeration_covers_every_choice_with_total_probability_one() {
        let swap = Perm::parse_cycles(2, "(1 2)").expect("valid");
        let group = vec![Perm::identity(2), swap.clone()];
        let runs = enumerate_runs(3, 0, 100, |t| {
            t.place(&[Symbol::Club, Symbol::Heart])?;
            t.shuffle(&ShuffleSet::Uniform(group.clone()))?;
            t.turn(&[0])
        })
        .expect("small");
        assert_eq!(runs.len(), 8);
        let w = weights(&runs);
        assert!(w.iter().all(|x| *x == BigUint::one()));
        // The turned card is uniform: a public coin, nothing hidden to leak.
        let clubs = runs.iter().filter(|r| r.outcome == [Symbol::Club]).count();
        assert_eq!(clubs, 4);
        // A weighted shuffle: one drawer, probabilities 1/4 and 3/4.
        let runs = enumerate_runs(2, 0, 100, |t| {
            t.place(&[Symbol::Club, Symbol::Heart])?;
            t.shuffle(&ShuffleSet::Weighted(vec![
                (Perm::identity(2), 1),
                (swap.clone(), 3),
            ]))?;
            t.turn(&[0])
        })
        .expect("small");
        assert_eq!(runs.len(), 2);
        assert_eq!(weights(&runs), [BigUint::from(1u32), BigUint::from(3u32)]);
        assert_eq!(runs[1].outcome, [Symbol::Heart]);
    }
}
