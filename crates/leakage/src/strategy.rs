//! Cheating strategies with a goal, measured against the honest baseline.
//!
//! The last player `N` computes every public card before anyone else. Two strategies use it:
//!
//! * **chosen river** ([`chosen_river`]): he announces a card `c` of his choice as the last
//!   public card instead of `A(i)`. Everyone takes the announcement; the audit finds it at the
//!   end. Measured: how often the river is `c` (against the honest rate, exactly `1/n`), how
//!   often the forgery is **visible during play** (some honest player sees one card at two
//!   positions among his hand and the public cards before the audit), and who the audit names.
//! * **selective abort with re-deals** ([`selective_abort`]): the public cards of a batch reach
//!   him together; if they are *bad* for him he withholds his first announcement, the deal is
//!   aborted (and blamed on him) and what follows is the table's [`Redeal`] rule, up to
//!   `redeals` times: a fresh deal, the aborter losing the hand, or the same committed deal
//!   again. Measured: how often the goal is reached in the deal that completes, against the
//!   same goal in honest single deals.
//!
//! The goal of the selective abort is a **pairing flop**: some card among the first `flop`
//! public cards has the rank of a card in his hand, where the rank of card `c` is `c / 4`
//! (four suits numbered consecutively, as in a 52-card deck of 13 ranks).
//!
//! Either strategy can be run at any value message of any player ([`Strategy::run`] with
//! `at`; [`crate::position::sweep`] runs every one): the chosen river forges that message's
//! value to `c`, and the abort withholds from that message on unless the cards the cheater has
//! seen by then ([`crate::position::known_before`]) already pair.
//!
//! Every game is played by the real driver with signed messages and the audit; trial `t`
//! (attempt `r` of it) uses stream `t · (redeals + 1) + r` of the seed (`r = 0` for every
//! attempt under [`Redeal::Resume`]).
//!
//! The scheme played is the permutation-sharing dealer \[perm-sharing-dealer\].

use facedown_cards::search::{MergeError, Shard, Trials};
use facedown_core::rng::trial_rng;
use facedown_core::PartyId;
use facedown_dealer::{Body, Deviation, Recipient};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::dealer::{play_schedule, Played, Schedule};
use crate::error::LeakageError;
use crate::harness::{add_up_shards, wilson};
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

/// The river of `g`: its last public opening (in the order run) of a position no one holds
/// privately, so never a hand shown at a showdown; as (operation, card).
fn river_of(schedule: &Schedule, g: &Played) -> Option<(u32, u16)> {
    g.finished.views[0]
        .learned
        .iter()
        .filter(|l| {
            l.public
                && !schedule
                    .openings
                    .iter()
                    .any(|o| o.learner.is_some() && o.position == usize::from(l.position))
        })
        .max_by_key(|l| l.op)
        .map(|l| (l.op, l.card))
}

/// The index, among `p`'s value messages, of his announcement of the river.
fn river_announcement(schedule: &Schedule, g: &Played, p: PartyId) -> Option<usize> {
    let (op, _) = river_of(schedule, g)?;
    value_sends(g, p).position(|e| {
        e.to == Recipient::All && matches!(e.body, Body::Value { op: o, .. } if o == op)
    })
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

#[derive(Clone, Default)]
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

/// What happens to a deal the cheater aborts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Redeal {
    /// The table deals again: every player draws fresh permutations, helpers and salts. (A
    /// re-deal in which the last player keeps his helpers deals the same way as far as the
    /// cards go — the others' fresh permutations make the deal uniform — and leaks across
    /// deals as `dealer session --reuse-helpers` measures.)
    Again,
    /// The aborter is excluded and loses the hand: his goal is not reached.
    Forfeit,
    /// The table holds everyone to his commitments: the re-deal replays the same committed
    /// permutations, so it is the same deal.
    Resume,
}

impl Redeal {
    /// Every model, in the order the tables print them.
    pub const ALL: [Redeal; 3] = [Redeal::Again, Redeal::Forfeit, Redeal::Resume];

    /// Its name in the CLI and the tables.
    pub fn name(self) -> &'static str {
        match self {
            Redeal::Again => "again",
            Redeal::Forfeit => "forfeit",
            Redeal::Resume => "resume",
        }
    }

    /// What the model means, in words.
    pub fn models(self) -> &'static str {
        match self {
            Redeal::Again => "dealt again with fresh permutations",
            Redeal::Forfeit => "the aborter loses the hand",
            Redeal::Resume => "the same committed permutations are dealt again",
        }
    }
}

/// A strategy with a goal, run at a chosen message or at the one it is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Forge the value of one message to `card`; the goal is a river (last public card) of
    /// `card`. Built for the last player's announcement of the river.
    ChosenRiver {
        /// The card wanted.
        card: u16,
    },
    /// Abort (withhold from one message on) unless a public card among the first `flop` that
    /// the cheater has seen pairs a card of his hand he has seen; the goal is a pairing flop.
    /// Built for the last player's first announcement.
    SelectiveAbort {
        /// Public cards that make the flop.
        flop: usize,
        /// Re-deals after an abort.
        redeals: u64,
        /// What an abort leads to.
        redeal: Redeal,
    },
}

impl Strategy {
    /// Runs the strategy over `trials` seeded trials (a count, or one shard's [`Trials`]),
    /// deviating at `at` (a player and the index of his value message), or where the strategy
    /// is built to deviate.
    pub fn run(
        &self,
        schedule: &Schedule,
        at: Option<(PartyId, usize)>,
        trials: impl Into<Trials>,
        seed: u64,
        tick: &(dyn Fn() + Sync),
    ) -> Result<StrategyRow, LeakageError> {
        match *self {
            Strategy::ChosenRiver { card } => chosen_river(schedule, card, at, trials, seed, tick),
            Strategy::SelectiveAbort {
                flop,
                redeals,
                redeal,
            } => {
                let abort = Abort {
                    flop,
                    redeals,
                    redeal,
                };
                selective_abort(schedule, &abort, at, trials, seed, tick)
            }
        }
    }
}

/// The deviation point `at`, checked against the honest game: the player and his message.
fn message_at(
    g: &Played,
    at: (PartyId, usize),
    what: &str,
) -> Result<(PartyId, usize), LeakageError> {
    let (p, nth) = at;
    if p.0 == 0 || p.index() >= g.finished.views.len() || value_sends(g, p).nth(nth).is_none() {
        return Err(LeakageError::Schedule(format!(
            "{what}: player {} sends no value message {nth}",
            p.0
        )));
    }
    Ok(at)
}

/// Whether some player other than `cheater` sees one card at two positions among his hand
/// and the public cards before the audit.
fn duplicate_seen(g: &Played, cheater: PartyId) -> bool {
    g.finished
        .views
        .iter()
        .filter(|v| v.party != cheater)
        .any(|v| {
            let mut seen: Vec<(u16, u16)> =
                v.learned.iter().map(|l| (l.card, l.position)).collect();
            seen.sort_unstable();
            seen.dedup();
            seen.windows(2).any(|w| w[0].0 == w[1].0)
        })
}

/// The cheater forges the value of one message to `card` — by default the last player's
/// announcement of the last public card — over `trials` seeded games (a count, or one shard's
/// [`Trials`]: game `t` is the unsplit run's game `t`).
pub fn chosen_river(
    schedule: &Schedule,
    card: u16,
    at: Option<(PartyId, usize)>,
    trials: impl Into<Trials>,
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
    let share: Trials = trials.into();
    let tally = share
        .par_iter()
        .map(|t| {
            let honest = play_schedule(schedule, None, &mut trial_rng(seed, t))?;
            let (cheater, nth) = match at {
                Some(at) => message_at(&honest, at, "a chosen river")?,
                None => (
                    last,
                    river_announcement(schedule, &honest, last).ok_or_else(|| {
                        LeakageError::Schedule("the last player announces nothing".into())
                    })?,
                ),
            };
            let dev = Deviation::ForgeValue { nth, value: card };
            let g = play_schedule(schedule, Some((cheater, dev)), &mut trial_rng(seed, t))?;
            tick();
            let river = |g: &Played| river_of(schedule, g).map(|(_, c)| c);
            let (detected, named, framed) = audit_of(&g, cheater);
            Ok::<_, LeakageError>(Tally {
                success: u64::from(river(&g) == Some(card)),
                baseline: u64::from(river(&honest) == Some(card)),
                visible: u64::from(duplicate_seen(&g, cheater)),
                detected,
                named,
                framed,
                ..Tally::default()
            })
        })
        .try_reduce(Tally::default, |a, b| Ok(a.merge(b)))?;
    let player = at.map_or(last, |(p, _)| p);
    Ok(tally.row(
        format!("chosen river: player {} forges a value to card {card}, wanting it as the last public card", player.0),
        player,
        share.len(),
        Some(format!("1/{}", scheme.cards)),
    ))
}

/// The first `flop` public openings of `g` in the order they were run, as (position, card):
/// the flop, and never a hand shown at a showdown after it.
fn flop_of(g: &Played, flop: usize) -> Vec<(u16, u16)> {
    let mut public: Vec<_> = g.finished.views[0]
        .learned
        .iter()
        .filter(|l| l.public)
        .map(|l| (l.op, l.position, l.card))
        .collect();
    public.sort_unstable();
    public
        .into_iter()
        .take(flop)
        .map(|(_, i, c)| (i, c))
        .collect()
}

/// Whether the first `flop` public cards pair a card of `hand` by rank (`c / 4`).
pub fn pairs_the_flop(hand: &[u16], public: &[u16], flop: usize) -> bool {
    public
        .iter()
        .take(flop)
        .any(|c| hand.iter().any(|h| h / 4 == c / 4))
}

/// A selective abort on the flop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Abort {
    /// Public cards that make the flop.
    pub flop: usize,
    /// Re-deals after an abort.
    pub redeals: u64,
    /// What an abort leads to.
    pub redeal: Redeal,
}

/// Whether `p` has seen, before his message `nth`, a flop card that pairs a card of his hand.
fn seen_a_pair(schedule: &Schedule, g: &Played, p: PartyId, nth: usize, flop: usize) -> bool {
    let public: Vec<u16> = flop_of(g, flop).iter().map(|&(i, _)| i).collect();
    let Some(m) = crate::position::messages_of(schedule, g, p)
        .into_iter()
        .nth(nth)
    else {
        return false;
    };
    let known = crate::position::known_before(schedule, g, p, &m);
    let hand: Vec<u16> = known.iter().filter(|l| !l.public).map(|l| l.card).collect();
    let seen: Vec<u16> = known
        .iter()
        .filter(|l| l.public && public.contains(&l.position))
        .map(|l| l.card)
        .collect();
    pairs_the_flop(&hand, &seen, flop)
}

/// The cheater — by default the last player, at his first announcement — aborts unless he has
/// seen a flop card that pairs his hand, and the abort leads to `abort.redeal`, up to
/// `abort.redeals` times; over `trials` seeded trials (a count, or one shard's [`Trials`]).
pub fn selective_abort(
    schedule: &Schedule,
    abort: &Abort,
    at: Option<(PartyId, usize)>,
    trials: impl Into<Trials>,
    seed: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<StrategyRow, LeakageError> {
    let Abort {
        flop,
        redeals,
        redeal,
    } = *abort;
    let cheater = at.map_or(schedule.scheme.last(), |(p, _)| p);
    if schedule.public < flop || flop == 0 || schedule.hand_positions(cheater).is_empty() {
        return Err(LeakageError::Schedule(format!(
            "a selective abort on the flop needs {flop} ≥ 1 public cards and a hand for player {}",
            cheater.0
        )));
    }
    let attempts = redeals + 1;
    let share: Trials = trials.into();
    let tally = share
        .par_iter()
        .map(|t| {
            let mut tally = Tally::default();
            for r in 0..attempts {
                let stream = match redeal {
                    Redeal::Resume => t.saturating_mul(attempts),
                    Redeal::Again | Redeal::Forfeit => t.saturating_mul(attempts).saturating_add(r),
                };
                let honest = play_schedule(schedule, None, &mut trial_rng(seed, stream))?;
                let board: Vec<u16> = flop_of(&honest, flop).iter().map(|&(_, c)| c).collect();
                let good = pairs_the_flop(&hands(&honest)[cheater.index()], &board, flop);
                if r == 0 {
                    tally.baseline = u64::from(good);
                }
                let nth = match at {
                    Some(at) => message_at(&honest, at, "a selective abort")?.1,
                    None => first_announcement(&honest, cheater).ok_or_else(|| {
                        LeakageError::Schedule("the last player announces nothing".into())
                    })?,
                };
                if seen_a_pair(schedule, &honest, cheater, nth, flop) || r + 1 == attempts {
                    tally.success = u64::from(good);
                    break;
                }
                let dev = Deviation::Withhold { nth };
                let g =
                    play_schedule(schedule, Some((cheater, dev)), &mut trial_rng(seed, stream))?;
                let (detected, named, framed) = audit_of(&g, cheater);
                tally.aborts += u64::from(!g.aborted.is_empty());
                tally.detected += detected;
                tally.named += named;
                tally.framed += framed;
                if redeal == Redeal::Forfeit {
                    break;
                }
            }
            tick();
            Ok::<_, LeakageError>(tally)
        })
        .try_reduce(Tally::default, |a, b| Ok(a.merge(b)))?;
    Ok(tally.row(
        format!(
            "selective abort: player {} aborts unless a card he has seen among the first {flop} public cards pairs his hand (rank = card / 4); an abort is {}, up to {redeals} time(s)",
            cheater.0,
            redeal.models()
        ),
        cheater,
        share.len(),
        None,
    ))
}

/// Adds up the rows of the shards `1/K … K/K` of one strategy run of `trials` trials (each
/// shard's rows in the unsplit run's order) into the unsplit run's rows, the intervals computed
/// from the summed counts. Refuses rows of other strategies or players, or whose trials are not
/// their shard's share.
pub fn merge_rows(
    parts: Vec<(Shard, Vec<StrategyRow>)>,
    trials: u64,
) -> Result<Vec<StrategyRow>, MergeError> {
    let (first, sums) = add_up_shards(
        parts,
        trials,
        (Tally::default(), |r: &StrategyRow| r.trials),
        |sum, row, one| {
            if (&row.strategy, row.player, &row.baseline_exact)
                != (&one.strategy, one.player, &one.baseline_exact)
            {
                return Err(format!("a row of another strategy: {}", row.strategy));
            }
            let add = |a: u64, b: u64| {
                a.checked_add(b)
                    .ok_or_else(|| "its counts overflow the sums".to_owned())
            };
            *sum = Tally {
                success: add(sum.success, row.success)?,
                baseline: add(sum.baseline, row.baseline)?,
                visible: add(sum.visible, row.visible_during_play)?,
                aborts: add(sum.aborts, row.aborts)?,
                detected: add(sum.detected, row.detected)?,
                named: add(sum.named, row.named)?,
                framed: add(sum.framed, row.framed)?,
            };
            Ok(())
        },
    )?;
    Ok(first
        .into_iter()
        .zip(sums)
        .map(|(one, sum)| {
            sum.row(
                one.strategy,
                PartyId(one.player),
                trials,
                one.baseline_exact,
            )
        })
        .collect())
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
