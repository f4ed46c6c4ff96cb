//! Deals in series: a fixed number of deals, a game to 100, a rubber of games.
//!
//! Each deal is its own [`Game`](crate::game::Game) with its own log; a deal's setup follows from the deals before
//! it (the deal passes to the left; trumps by the previous deal's successes, or from the
//! Eighteen Ninety-Nine stack; the run of successes of the two-hand game). [`audit_series`]
//! audits every deal's log, checks that each setup is the one the previous deals fix, and
//! recomputes the totals.

use facedown_core::PartyId;
use rand::seq::SliceRandom;
use rand::RngCore;
use serde::{Deserialize, Serialize};

use super::state::{NinetyNine, Outcome, Setup};
use super::variant::{Scoring, Trump, TrumpRule, Variant};
use crate::cards::{pack, Card, Rank};
use crate::game::{audit, play_out, Bot, Log, Offence, PlayError};
use crate::record::{refuse, InapplicableField, LogError};

/// How long a series lasts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Length {
    /// A fixed number of deals; the highest total wins.
    Deals(u32),
    /// Games to `target` points, `games` of them; a bonus of 100 to each hand that reaches the
    /// target (not in Long Ninety-Nine, where tied leaders play on).
    Games {
        /// Games in the rubber (1 for a single game).
        games: u32,
        /// Points that end a game.
        target: i32,
        /// Deals after which a game that nobody has won is closed as it stands, without the
        /// bonus (the seeds set no limit; without one, players who keep failing their bids in
        /// Long Ninety-Nine or their declarations with five players never finish).
        #[serde(default = "default_deal_limit")]
        limit: u32,
    },
}

/// The deal limit of a game to 100 unless one is given: [`Length::DEAL_LIMIT`].
fn default_deal_limit() -> u32 {
    Length::DEAL_LIMIT
}

impl Length {
    /// Deals after which an unfinished game to 100 is closed as it stands.
    pub const DEAL_LIMIT: u32 = 200;

    /// The most deals a series of this length can have.
    pub fn max_deals(self) -> usize {
        match self {
            Length::Deals(n) => n as usize,
            Length::Games { games, limit, .. } => games as usize * limit.max(1) as usize,
        }
    }

    /// The length the variant's rules give: nine deals (classic), eighteen (Eighteen
    /// Ninety-Nine), otherwise a rubber of as many games as players, each to 100.
    pub fn rubber(variant: Variant) -> Length {
        match variant {
            Variant::Classic => Length::Deals(9),
            Variant::EighteenNinetyNine => Length::Deals(18),
            _ => Length::Games {
                games: variant.rules().players.max(3) as u32,
                target: 100,
                limit: Length::DEAL_LIMIT,
            },
        }
    }

    /// One game to 100 (nine deals for the classic rules, eighteen for Eighteen Ninety-Nine).
    pub fn game(variant: Variant) -> Length {
        match Length::rubber(variant) {
            Length::Games { target, limit, .. } => Length::Games {
                games: 1,
                target,
                limit,
            },
            deals => deals,
        }
    }
}

/// The record of a series: every deal's log, and the trump stack of Eighteen Ninety-Nine.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SeriesLog {
    /// The variant.
    pub variant: Variant,
    /// The "all trumps" rule for deals without trumps.
    pub all_trumps: bool,
    /// The length.
    pub length: Length,
    /// The trump stack (Eighteen Ninety-Nine), top first.
    pub stack: Vec<Card>,
    /// The deals.
    pub deals: Vec<Log<NinetyNine>>,
}

impl SeriesLog {
    /// Refuses a series without deals, a trump stack outside Eighteen Ninety-Nine, and a field
    /// of a deal's setup that the variant ignores ([`Setup::inapplicable_field`]).
    pub fn check_fields(&self) -> Result<(), LogError> {
        if self.deals.is_empty() {
            return Err(LogError::NoDeals);
        }
        if self.variant.rules().trump != TrumpRule::Stack && !self.stack.is_empty() {
            return Err(LogError::Inapplicable {
                path: "stack".to_owned(),
                field: InapplicableField {
                    field: "stack",
                    variant: self.variant.name().to_owned(),
                    why: "its trumps are not turned from a stack",
                },
            });
        }
        self.deals.iter().enumerate().try_for_each(|(i, deal)| {
            refuse(
                &format!("deals[{i}].setup"),
                deal.setup.inapplicable_field(),
            )
        })
    }
}

/// The result of one game of a series.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameResult {
    /// Deals played in this game.
    pub deals: usize,
    /// Points of each seat, bonuses included.
    pub points: Vec<i32>,
    /// The winner; `None` for a tie at the top or a game won by the dummy (a draw between the
    /// live players).
    pub winner: Option<usize>,
    /// Whether the game was closed at the deal limit, nobody having reached the target.
    pub at_limit: bool,
}

/// Totals of a series.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Standing {
    /// Each game.
    pub games: Vec<GameResult>,
    /// Total points of each seat.
    pub totals: Vec<i32>,
    /// Games won by each seat.
    pub games_won: Vec<u32>,
    /// The overall winner (highest total), `None` on a tie or a dummy on top.
    pub winner: Option<usize>,
    /// Eighteen Ninety-Nine: game points of each seat (see [`game_points`]).
    pub game_points: Option<Vec<u32>>,
}

/// What a series keeps from deal to deal.
#[derive(Clone, Debug)]
pub(crate) struct Progress {
    variant: Variant,
    length: Length,
    deals: usize,
    in_game: usize,
    game_points: Vec<i32>,
    previous: Option<Outcome>,
    streaks: Vec<u32>,
    games: Vec<GameResult>,
}

impl Progress {
    pub(crate) fn new(variant: Variant, length: Length) -> Progress {
        let seats = variant.rules().seats;
        Progress {
            variant,
            length,
            deals: 0,
            in_game: 0,
            game_points: vec![0; seats],
            previous: None,
            streaks: vec![0; seats],
            games: Vec::new(),
        }
    }

    pub(crate) fn over(&self) -> bool {
        match self.length {
            Length::Deals(n) => self.deals >= n as usize,
            Length::Games { games, .. } => self.games.len() >= games as usize,
        }
    }

    /// The setup the rules fix for the next deal (with `deck`).
    pub(crate) fn next_setup(&self, all_trumps: bool, stack: &[Card], deck: Vec<Card>) -> Setup {
        let rules = self.variant.rules();
        let trump: Trump = match rules.trump {
            TrumpRule::History { first, .. } => match (&self.previous, self.in_game) {
                (Some(prev), n) if n > 0 => prev.next_trump.flatten(),
                _ => first,
            },
            TrumpRule::Named => match (&self.previous, self.in_game) {
                (Some(prev), n) if n > 0 => prev.trump,
                _ => None,
            },
            TrumpRule::Stack => stack.get(self.deals).copied().and_then(|c| c.suit()),
            TrumpRule::TurnedUp | TrumpRule::FromDummy => None,
        };
        // Only the game that scores streaks carries them from deal to deal.
        let streaks = if rules.scoring == Scoring::Streak {
            self.streaks.clone()
        } else {
            vec![0; self.streaks.len()]
        };
        Setup {
            variant: self.variant,
            all_trumps,
            dealer: PartyId::from_index(self.deals % rules.players),
            trump,
            streaks,
            deck,
        }
    }

    /// Adds a finished deal.
    pub(crate) fn record(&mut self, outcome: &Outcome) {
        for (s, p) in outcome.points.iter().enumerate() {
            self.game_points[s] += p;
        }
        for (s, &ok) in outcome.success.iter().enumerate() {
            self.streaks[s] = if ok { self.streaks[s] + 1 } else { 0 };
        }
        self.deals += 1;
        self.in_game += 1;
        self.previous = Some(outcome.clone());
        if let Length::Games { target, limit, .. } = self.length {
            let top = self.game_points.iter().copied().max().unwrap_or(0);
            let long = self.variant == Variant::Long;
            let tied = self.game_points.iter().filter(|&&p| p == top).count() > 1;
            if top >= target && !(long && tied) {
                let mut points = self.game_points.clone();
                if !long {
                    for p in points.iter_mut().filter(|p| **p >= target) {
                        *p += 100;
                    }
                }
                self.close_game(points, false);
            } else if self.in_game >= limit.max(1) as usize {
                let points = self.game_points.clone();
                self.close_game(points, true);
            }
        }
    }

    fn close_game(&mut self, points: Vec<i32>, at_limit: bool) {
        let winner = top_seat(&points, self.variant);
        self.games.push(GameResult {
            deals: self.in_game,
            points,
            winner,
            at_limit,
        });
        self.in_game = 0;
        self.game_points = vec![0; self.game_points.len()];
    }

    pub(crate) fn standing(mut self) -> Standing {
        if matches!(self.length, Length::Deals(_)) && self.in_game > 0 {
            let points = self.game_points.clone();
            self.close_game(points, false);
        }
        let seats = self.variant.rules().seats;
        let mut totals = vec![0; seats];
        let mut games_won = vec![0; seats];
        for g in &self.games {
            for (total, p) in totals.iter_mut().zip(&g.points) {
                *total += p;
            }
            if let Some(w) = g.winner {
                games_won[w] += 1;
            }
        }
        let game_points =
            (self.variant == Variant::EighteenNinetyNine).then(|| game_points(&totals));
        Standing {
            winner: top_seat(&totals, self.variant),
            games: self.games,
            totals,
            games_won,
            game_points,
        }
    }
}

/// The seat with the most points, `None` on a tie or when it is the dummy.
fn top_seat(points: &[i32], variant: Variant) -> Option<usize> {
    let top = points.iter().copied().max()?;
    let mut at_top = (0..points.len()).filter(|&s| points[s] == top);
    let first = at_top.next()?;
    let dummy = variant.rules().dummy_seat();
    (at_top.next().is_none() && Some(first) != dummy).then_some(first)
}

/// Eighteen Ninety-Nine's game points, as this crate reads the (translated) rule: the winner
/// scores one per hundred points he made, the second one fewer than his hundreds, the third
/// nothing.
pub fn game_points(totals: &[i32]) -> Vec<u32> {
    let mut order: Vec<usize> = (0..totals.len()).collect();
    order.sort_by_key(|&s| core::cmp::Reverse(totals[s]));
    let mut gp = vec![0; totals.len()];
    let hundreds = |s: usize| (totals[s].max(0) / 100) as u32;
    if let Some(&w) = order.first() {
        gp[w] = hundreds(w);
    }
    if let Some(&second) = order.get(1) {
        gp[second] = hundreds(second).saturating_sub(1);
    }
    gp
}

/// The Eighteen Ninety-Nine trump stack: the twos to fives of a 54-card pack and its two Jokers.
pub fn trump_stack(rng: &mut dyn RngCore) -> Vec<Card> {
    let mut stack = pack(&[Rank::Two, Rank::Three, Rank::Four, Rank::Five], 1, 2);
    stack.shuffle(rng);
    stack
}

/// Plays a whole series with `bots` (one per player), shuffling each deal with `rng`.
pub fn play_series(
    variant: Variant,
    all_trumps: bool,
    length: Length,
    bots: &mut [Box<dyn Bot<NinetyNine> + '_>],
    rng: &mut dyn RngCore,
) -> Result<(SeriesLog, Standing), PlayError> {
    let stack = if variant == Variant::EighteenNinetyNine {
        trump_stack(rng)
    } else {
        Vec::new()
    };
    let mut progress = Progress::new(variant, length);
    let mut deals = Vec::new();
    while !progress.over() && deals.len() < length.max_deals() {
        let mut deck = variant.rules().pack();
        deck.shuffle(rng);
        let setup = progress.next_setup(all_trumps, &stack, deck);
        let (log, game) = play_out(setup, bots, 1000, rng)?;
        let outcome = crate::game::Game::outcome(&game).ok_or(PlayError::TooLong(1000))?;
        progress.record(&outcome);
        deals.push(log);
    }
    let log = SeriesLog {
        variant,
        all_trumps,
        length,
        stack,
        deals,
    };
    Ok((log, progress.standing()))
}

/// What the audit of a series found.
#[derive(Clone, Debug, Serialize)]
pub struct SeriesAudit {
    /// Deals audited.
    pub deals: usize,
    /// The first rule break: which deal, and the offence.
    pub offence: Option<(usize, Offence<super::state::Illegal>)>,
    /// A deal whose setup is not the one the series fixes (dealer, trump, streaks), or that
    /// cannot start; with the reason.
    pub bad_setup: Option<(usize, String)>,
    /// The standing, when every deal passed.
    pub standing: Option<Standing>,
}

impl SeriesAudit {
    /// Whether the whole series passed.
    pub fn passed(&self) -> bool {
        self.offence.is_none() && self.bad_setup.is_none() && self.standing.is_some()
    }
}

/// Audits a series: every deal's log, the chaining of setups, and the totals. A series the
/// audit cannot vouch for — no deals, or a field its variant ignores — is refused
/// ([`SeriesLog::check_fields`]).
pub fn audit_series(log: &SeriesLog) -> Result<SeriesAudit, LogError> {
    log.check_fields()?;
    let mut progress = Progress::new(log.variant, log.length);
    let fail = |deal: usize,
                offence: Option<Offence<super::state::Illegal>>,
                bad: Option<String>| SeriesAudit {
        deals: deal + 1,
        offence: offence.map(|o| (deal, o)),
        bad_setup: bad.map(|b| (deal, b)),
        standing: None,
    };
    for (i, deal) in log.deals.iter().enumerate() {
        if progress.over() {
            let why = "a deal after the end of the series".into();
            return Ok(fail(i, None, Some(why)));
        }
        let expected = progress.next_setup(log.all_trumps, &log.stack, deal.setup.deck.clone());
        if expected != deal.setup {
            let why = format!(
                "the setup should be dealer {}, trump {:?}, streaks {:?}",
                expected.dealer, expected.trump, expected.streaks
            );
            return Ok(fail(i, None, Some(why)));
        }
        let verdict = match audit(deal) {
            Ok(v) => v,
            Err(e) => return Ok(fail(i, None, Some(e.to_string()))),
        };
        match (verdict.offence, verdict.outcome) {
            (None, Some(outcome)) => progress.record(&outcome),
            (Some(o), _) => return Ok(fail(i, Some(o), None)),
            (None, None) => return Ok(fail(i, None, Some("the deal is unfinished".into()))),
        }
    }
    if !progress.over() {
        // Every deal was audited; the one that fails is the first missing one.
        return Ok(SeriesAudit {
            deals: log.deals.len(),
            offence: None,
            bad_setup: Some((log.deals.len(), "the series ends before its length".into())),
            standing: None,
        });
    }
    Ok(SeriesAudit {
        deals: log.deals.len(),
        offence: None,
        bad_setup: None,
        standing: Some(progress.standing()),
    })
}
