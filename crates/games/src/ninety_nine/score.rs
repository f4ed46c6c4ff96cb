//! Scoring a deal, and the trump it fixes for the next one.

use serde::Serialize;

use super::bid::{deviation, made};
use super::premium::Offer;
use super::variant::{DeclareFailure, DummyRule, NextTrump, PremiumRule, Rules, Scoring, Trump};
use crate::cards::Suit;

/// What the end of a deal leaves to score, per seat (the dummy included).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Tricks taken.
    pub tricks: Vec<u32>,
    /// Each seat's bid number.
    pub bids: Vec<u32>,
    /// Whether the seat made its bid and it is credited (shown by a claim, or public).
    pub credited: Vec<bool>,
    /// Premium bids: `(seat, Declare | Reveal)`.
    pub premiums: Vec<(usize, Offer)>,
    /// Consecutive successes of each seat before this deal (the two-hand game without dummy).
    pub streaks: Vec<u32>,
}

/// The score of each seat for one deal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DealScore {
    /// Points of each seat.
    pub points: Vec<i32>,
    /// Whether each seat succeeded (for the contract bonus and the next trump).
    pub success: Vec<bool>,
}

/// The premium of an offer under the single-premium rule.
fn premium_value(offer: Offer) -> i32 {
    match offer {
        Offer::Reveal => 60,
        _ => 30,
    }
}

/// Whether each seat succeeded: its bid made and credited; the turn-up dummy by its own rule.
fn successes(rules: &Rules, t: &Tally) -> Vec<bool> {
    let mut success = t.credited.clone();
    if let (Some(DummyRule::TrumpFromTop), Some(d)) = (rules.dummy, rules.dummy_seat()) {
        success[d] = t.tricks[d] <= t.bids[d];
    }
    success
}

/// Scores a deal.
pub fn score(rules: &Rules, t: &Tally) -> DealScore {
    let seats = t.tricks.len();
    let success = successes(rules, t);
    let n = success.iter().filter(|&&s| s).count();
    let tricks: Vec<i32> = t.tricks.iter().map(|&x| x as i32).collect();
    let mut points = vec![0i32; seats];
    match &rules.scoring {
        Scoring::Tricks { bonus } => {
            for s in 0..seats {
                points[s] = tricks[s] + if success[s] { bonus[n] } else { 0 };
            }
        }
        Scoring::Long { bonus } => {
            for s in 0..seats {
                points[s] = if success[s] {
                    bonus[n]
                } else {
                    -(deviation(t.bids[s], t.tricks[s], rules.reading) as i32)
                };
            }
        }
        Scoring::Partnership => partnership(rules, t, &success, &mut points),
        Scoring::Streak => {
            for s in 0..seats {
                let streak = if success[s] { t.streaks[s] + 1 } else { 0 };
                points[s] = tricks[s] + 10 * streak as i32;
            }
        }
    }
    premiums(rules, t, &success, &mut points);
    DealScore { points, success }
}

/// Partnerships (seats 0 & 2, 1 & 3): both partners score their side's points.
fn partnership(rules: &Rules, t: &Tally, success: &[bool], points: &mut [i32]) {
    for side in 0..2 {
        let (a, b) = (side, side + 2);
        let tricks = t.tricks[a] + t.tricks[b];
        let combined = [t.bids[a], t.bids[b]].iter().fold(vec![0u32], |acc, &bid| {
            let ways = super::bid::meanings(bid, rules.reading);
            acc.iter()
                .flat_map(|x| ways.iter().map(move |w| x + w))
                .collect()
        });
        let bonus = match (success[a], success[b]) {
            (true, true) => 30,
            (false, false) if combined.contains(&tricks) => 20,
            (true, false) | (false, true) => 10,
            _ => 0,
        };
        points[a] = tricks as i32 + bonus;
        points[b] = points[a];
    }
}

fn premiums(rules: &Rules, t: &Tally, success: &[bool], points: &mut [i32]) {
    let seats = points.len();
    match rules.premium {
        PremiumRule::None => {}
        PremiumRule::Single { .. } => {
            for &(seat, offer) in &t.premiums {
                let p = premium_value(offer);
                let long = matches!(rules.scoring, Scoring::Long { .. });
                if success[seat] {
                    points[seat] += p;
                } else if long {
                    points[seat] -= p;
                } else {
                    for (s, pts) in points.iter_mut().enumerate() {
                        if s != seat {
                            *pts += p;
                        }
                    }
                }
            }
        }
        PremiumRule::AnyDeclare { bonus, failure } => {
            let failed: Vec<usize> = t
                .premiums
                .iter()
                .filter(|&&(s, _)| !success[s])
                .map(|&(s, _)| s)
                .collect();
            for &(seat, _) in &t.premiums {
                if success[seat] {
                    points[seat] += bonus;
                    continue;
                }
                match failure {
                    DeclareFailure::Penalty => points[seat] -= bonus,
                    DeclareFailure::ToOthers => {
                        for s in (0..seats).filter(|s| !failed.contains(s)) {
                            points[s] += bonus;
                        }
                    }
                }
            }
            if let (Some(DummyRule::TrumpFromTop), Some(d)) = (rules.dummy, rules.dummy_seat()) {
                if t.tricks[d] == t.bids[d] {
                    points[d] += bonus;
                }
            }
        }
    }
}

/// The trump of the next deal under a history rule, from this deal's successes and tricks.
pub fn next_trump(next: NextTrump, rules: &Rules, t: &Tally, success: &[bool]) -> Trump {
    let by_count = |n: usize| {
        Some(match n {
            0 => Suit::Diamonds,
            1 => Suit::Spades,
            2 => Suit::Hearts,
            _ => Suit::Clubs,
        })
    };
    match next {
        NextTrump::BySuccesses { no_trump_from } => {
            let n = success.iter().filter(|&&s| s).count();
            match no_trump_from {
                Some(k) if n >= k => None,
                _ => by_count(n),
            }
        }
        NextTrump::ByDeviation => {
            let total: u32 = (0..t.tricks.len())
                .map(|s| deviation(t.bids[s], t.tricks[s], rules.reading))
                .sum();
            by_count(total as usize)
        }
    }
}

/// The most one seat can score in one deal of `rules` (by trying every split of the tricks,
/// every bid and claim, and every premium).
pub fn max_deal_score(rules: &Rules) -> i32 {
    let seats = rules.seats;
    let tricks = rules.tricks() as u32;
    let mut best = i32::MIN;
    let mut split = vec![0u32; seats];
    for_each_split(tricks, &mut split, 0, &mut |split| {
        for made_mask in 0u32..1 << seats {
            let bids: Vec<u32> = (0..seats)
                .map(|s| {
                    let t = split[s];
                    let code = if t > 9 { t - 10 } else { t };
                    if made_mask & 1 << s != 0 {
                        code
                    } else {
                        (code + 1) % 10
                    }
                })
                .collect();
            let credited: Vec<bool> = (0..seats)
                .map(|s| made(bids[s], split[s], rules.reading))
                .collect();
            for premiums in premium_choices(rules, seats) {
                let t = Tally {
                    tricks: split.to_vec(),
                    bids: bids.clone(),
                    credited: credited.clone(),
                    premiums,
                    streaks: vec![0; seats],
                };
                let top = score(rules, &t).points.into_iter().max().unwrap_or(0);
                best = best.max(top);
            }
        }
    });
    best
}

fn for_each_split(left: u32, split: &mut Vec<u32>, seat: usize, f: &mut dyn FnMut(&[u32])) {
    if seat + 1 == split.len() {
        split[seat] = left;
        f(split);
        return;
    }
    for x in 0..=left {
        split[seat] = x;
        for_each_split(left - x, split, seat + 1, f);
    }
}

fn premium_choices(rules: &Rules, seats: usize) -> Vec<Vec<(usize, Offer)>> {
    let mut out = vec![Vec::new()];
    match rules.premium {
        PremiumRule::None => {}
        PremiumRule::Single { reveal } => {
            for s in 0..rules.players {
                out.push(vec![(s, Offer::Declare)]);
                if reveal {
                    out.push(vec![(s, Offer::Reveal)]);
                }
            }
        }
        PremiumRule::AnyDeclare { .. } => {
            for mask in 1u32..1 << rules.players.min(seats) {
                out.push(
                    (0..rules.players)
                        .filter(|s| mask & 1 << s != 0)
                        .map(|s| (s, Offer::Declare))
                        .collect(),
                );
            }
        }
    }
    out
}
