//! Cheating strategies with a goal, measured against the honest baseline.
//!
//! The last player `N` computes every public card before anyone else. Two strategies use it:
//!
//! * **chosen river** ([`chosen_river`]): he announces a card `c` of his choice as the last
//!   public card instead of `A(i)`. Everyone takes the announcement; the audit finds it at the
//!   end. Measured: how often the river is `c` (against the honest rate, exactly `1/n`), how
//!   often the forgery is **visible during play** (the announced card is also in some honest
//!   player's hand or among the other public cards, so that player sees a duplicate before the
//!   audit), and who the audit names.
//! * **selective abort with re-deals** ([`selective_abort`]): the public cards of a batch reach
//!   him together; if they are *bad* for him he withholds his first announcement, the deal is
//!   aborted (and blamed on him) and dealt again, up to `redeals` times. Measured: how often the
//!   goal is reached in the deal that completes, against the same goal in honest single deals.
//!
//! The goal of the selective abort is a **pairing flop**: some card among the first `flop`
//! public cards has the rank of a card in his hand, where the rank of card `c` is `c / 4`
//! (four suits numbered consecutively, as in a 52-card deck of 13 ranks).
//!
//! Every game is played by the real driver with signed messages and the audit; trial `t`
//! (attempt `r` of it) uses stream `t · (redeals + 1) + r` of the seed.
//!
//! The scheme played is the permutation-sharing dealer \[perm-sharing-dealer\].

use facedown_core::rng::trial_rng;
use facedown_core::PartyId;
use facedown_dealer::{Body, Deviation, Recipient};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::dealer::{play_schedule, Played, Schedule};
use crate::error::LeakageError;
use crate::harness::wilson;
use crate::montecarlo::Z;

/// A strategy measured against the honest baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StrategyRow {
    /// The strategy and its goal, in words.
    pub strategy: String,
    /// The cheater.
    pub player: u16,
    /// Trials.
    pub trials: u64,
    /// Trials in which the goal was reached with the strategy.
    pub success: u64,
    /// Wilson interval of the success rate.
    pub success_interval: (f64, f64),
    /// Trials in which the goal was reached in the honest game with the same seed.
    pub baseline: u64,
    /// Wilson interval of the baseline rate.
    pub baseline_interval: (f64, f64),
    /// The exact honest probability of the goal, where it has a closed form (`"1/52"`).
    pub baseline_exact: Option<String>,
    /// Trials in which an honest player sees a duplicate card before the audit.
    pub visible_during_play: u64,
    /// Aborted deals (summed over trials).
    pub aborts: u64,
    /// Games whose audit failed (summed over every deal played).
    pub detected: u64,
    /// Of those, the audit named the cheater.
    pub named: u64,
    /// Games in which the audit named someone else (must be 0).
    pub framed: u64,
}

fn value_sends(g: &Played, p: PartyId) -> impl Iterator<Item = &facedown_dealer::Envelope> {
    g.finished.views[p.index()]
        .sent
        .iter()
        .filter(|e| matches!(e.body, Body::Value { .. }))
}

/// The index, among `p`'s value messages, of his announcement of the last public card.
fn last_announcement(g: &Played, p: PartyId) -> Option<usize> {
    let all: Vec<_> = value_sends(g, p).collect();
    all.iter().rposition(|e| e.to == Recipient::All)
}

/// The index of `p`'s first announcement among his value messages.
fn first_announcement(g: &Played, p: PartyId) -> Option<usize> {
    value_sends(g, p).position(|e| e.to == Recipient::All)
}

/// Each player's private cards.
fn hands(g: &Played) -> Vec<Vec<u16>> {
    g.finished
        .views
        .iter()
        .map(|v| {
            v.learned
                .iter()
                .filter(|l| !l.public)
                .map(|l| l.card)
                .collect()
        })
        .collect()
}

/// Audit outcome of one game: (detected, named the cheater, framed someone).
fn audit_of(g: &Played, cheater: PartyId) -> (u64, u64, u64) {
    let a = &g.finished.audit;
    let detected = u64::from(!a.passed);
    let named = u64::from(a.blame == Some(cheater));
    let framed = u64::from(a.blame.is_some_and(|b| b != cheater));
    (detected, named, framed)
}

#[derive(Default)]
struct Tally {
    success: u64,
    baseline: u64,
    visible: u64,
    aborts: u64,
    detected: u64,
    named: u64,
    framed: u64,
}

impl Tally {
    fn merge(self, o: Tally) -> Tally {
        Tally {
            success: self.success + o.success,
            baseline: self.baseline + o.baseline,
            visible: self.visible + o.visible,
            aborts: self.aborts + o.aborts,
            detected: self.detected + o.detected,
            named: self.named + o.named,
            framed: self.framed + o.framed,
        }
    }

    fn row(
        self,
        strategy: String,
        player: PartyId,
        trials: u64,
        exact: Option<String>,
    ) -> StrategyRow {
        StrategyRow {
            strategy,
            player: player.0,
            trials,
            success: self.success,
            success_interval: wilson(self.success, trials, Z),
            baseline: self.baseline,
            baseline_interval: wilson(self.baseline, trials, Z),
            baseline_exact: exact,
            visible_during_play: self.visible,
            aborts: self.aborts,
            detected: self.detected,
            named: self.named,
            framed: self.framed,
        }
    }
}

/// The last player announces `card` as the last public card, over `trials` seeded games.
pub fn chosen_river(
    schedule: &Schedule,
    card: u16,
    trials: u64,
    seed: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<StrategyRow, LeakageError> {
    let scheme = &schedule.scheme;
    if schedule.public == 0 || usize::from(card) >= scheme.cards {
        return Err(LeakageError::Schedule(format!(
            "a chosen river needs a public card and a card of 0..{}",
            scheme.cards
        )));
    }
    let last = scheme.last();
    let tally = (0..trials)
        .into_par_iter()
        .map(|t| {
            let honest = play_schedule(schedule, None, &mut trial_rng(seed, t))?;
            let nth = last_announcement(&honest, last).ok_or_else(|| {
                LeakageError::Schedule("the last player announces nothing".into())
            })?;
            let dev = Deviation::ForgeValue { nth, value: card };
            let g = play_schedule(schedule, Some((last, dev)), &mut trial_rng(seed, t))?;
            tick();
            let river = |g: &Played| g.public.last().copied();
            // Visible: an honest player holds the announced card, or it is among the other
            // public cards.
            let hs = hands(&g);
            let others_public = &g.public[..g.public.len().saturating_sub(1)];
            let seen_twice = hs
                .iter()
                .enumerate()
                .any(|(p, h)| p != last.index() && h.contains(&card))
                || others_public.contains(&card);
            let (detected, named, framed) = audit_of(&g, last);
            Ok::<_, LeakageError>(Tally {
                success: u64::from(river(&g) == Some(card)),
                baseline: u64::from(river(&honest) == Some(card)),
                visible: u64::from(seen_twice && river(&honest) != Some(card)),
                detected,
                named,
                framed,
                ..Tally::default()
            })
        })
        .try_reduce(Tally::default, |a, b| Ok(a.merge(b)))?;
    Ok(tally.row(
        format!("chosen river: the last player announces card {card} as the last public card"),
        last,
        trials,
        Some(format!("1/{}", scheme.cards)),
    ))
}

/// Whether the first `flop` public cards pair a card of `hand` by rank (`c / 4`).
pub fn pairs_the_flop(hand: &[u16], public: &[u16], flop: usize) -> bool {
    public
        .iter()
        .take(flop)
        .any(|c| hand.iter().any(|h| h / 4 == c / 4))
}

/// The last player aborts whenever the first `flop` public cards do not pair his hand, and the
/// deal is dealt again, up to `redeals` times; over `trials` seeded trials.
pub fn selective_abort(
    schedule: &Schedule,
    flop: usize,
    redeals: u64,
    trials: u64,
    seed: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<StrategyRow, LeakageError> {
    let last = schedule.scheme.last();
    if schedule.public < flop || flop == 0 || schedule.hand_positions(last).is_empty() {
        return Err(LeakageError::Schedule(format!(
            "a selective abort on the flop needs {flop} ≥ 1 public cards and a hand for player {}",
            last.0
        )));
    }
    let attempts = redeals + 1;
    let tally = (0..trials)
        .into_par_iter()
        .map(|t| {
            let mut tally = Tally::default();
            for r in 0..attempts {
                let stream = t.saturating_mul(attempts).saturating_add(r);
                let honest = play_schedule(schedule, None, &mut trial_rng(seed, stream))?;
                let good = pairs_the_flop(&hands(&honest)[last.index()], &honest.public, flop);
                if r == 0 {
                    tally.baseline = u64::from(good);
                }
                if good || r + 1 == attempts {
                    tally.success = u64::from(good);
                    break;
                }
                let nth = first_announcement(&honest, last).ok_or_else(|| {
                    LeakageError::Schedule("the last player announces nothing".into())
                })?;
                let dev = Deviation::Withhold { nth };
                let g = play_schedule(schedule, Some((last, dev)), &mut trial_rng(seed, stream))?;
                let (detected, named, framed) = audit_of(&g, last);
                tally.aborts += u64::from(!g.aborted.is_empty());
                tally.detected += detected;
                tally.named += named;
                tally.framed += framed;
            }
            tick();
            Ok::<_, LeakageError>(tally)
        })
        .try_reduce(Tally::default, |a, b| Ok(a.merge(b)))?;
    Ok(tally.row(
        format!(
            "selective abort: the last player aborts when the first {flop} public cards do not pair his hand (rank = card / 4), up to {redeals} re-deal(s)"
        ),
        last,
        trials,
        None,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flop_pairs_a_hand_by_rank() {
        assert!(pairs_the_flop(&[0, 9], &[11, 3, 40], 3));
        assert!(!pairs_the_flop(&[0, 9], &[12, 40, 2], 2));
    }
}
