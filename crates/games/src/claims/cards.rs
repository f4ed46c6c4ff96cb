//! The computable claims of seeds 000 and 002: Ninety-Nine, Devyatka, Golf.

use facedown_core::rng::trial_rng;
use facedown_core::PartyId;
use serde::Serialize;

use super::{claim, Claim, Verdict};
use crate::devyatka::importance::nines_to_alice;
use crate::devyatka::{Deal, Found, Solver};
use crate::game::{play_out, Bot, Game};
use crate::golf::{score_grid, Golf, GreedyBot, Layout, Rules as GolfRules, Setup as GolfSetup};
use crate::ninety_nine::bid::encodings;
use crate::ninety_nine::score::max_deal_score;
use crate::ninety_nine::Variant;

/// The computable rules facts of Ninety-Nine (seeds 000 and 002).
pub fn ninety_nine() -> Vec<Claim> {
    let g = "ninety-nine";
    let three = Variant::Revised.rules();
    let max3 = max_deal_score(&three);
    let enc = encodings();
    let threes = enc.ways[3].join(" ");
    let bids: Vec<usize> = (0..10).filter(|&b| !enc.ways[b].is_empty()).collect();
    // Bid cards of the three ways of bidding three: how often each suit appears.
    let count = |sym: char| {
        enc.ways[3]
            .iter()
            .map(|w| w.chars().filter(|&c| c == sym).count())
            .sum::<usize>()
    };
    let (d, s, h, c) = (count('♦'), count('♠'), count('♥'), count('♣'));
    let exact = Variant::ALL.iter().all(|v| {
        let r = v.rules();
        let turned = usize::from(r.turned_up && *v != Variant::EighteenNinetyNine);
        r.pack().len() == r.seats * r.hand + turned
    });
    let packs: Vec<String> = [
        Variant::Revised,
        Variant::Classic,
        Variant::FourSolo,
        Variant::Five,
        Variant::Long,
        Variant::TwoOpen,
    ]
    .iter()
    .map(|v| {
        let r = v.rules();
        format!(
            "{v}: {} = {}×{}{}",
            r.pack().len(),
            r.seats,
            r.hand,
            if r.turned_up { " + 1" } else { "" }
        )
    })
    .collect();
    let others: Vec<String> = [
        Variant::Four,
        Variant::Five,
        Variant::Long,
        Variant::TwoDummy,
    ]
    .iter()
    .map(|v| format!("{v}: {}", max_deal_score(&v.rules())))
    .collect();
    vec![
        claim(
            "max-deal",
            "000/002",
            g,
            "the most one deal can score is 99 (9 tricks, the only success +30, revealed +60), so a game is 100",
            99,
            format!("{max3} (other variants: {})", others.join(", ")),
            Verdict::of(99, max3),
            "maximum over every split of the tricks, every bid and claim, every premium",
        ),
        claim(
            "bid-range",
            "000/002",
            g,
            "three bid cards encode every bid from 0 to 9",
            "0..9",
            format!("{}..{} ({} values)", bids.first().unwrap_or(&0), bids.last().unwrap_or(&0), bids.len()),
            Verdict::of(10, bids.len()),
            "",
        ),
        claim(
            "bid-three",
            "000",
            g,
            "a bid of three can be written ♦♦♣, ♦♠♥ or ♠♠♠, so diamonds and spades are laid aside more often than hearts and clubs",
            "3 ways; ♦, ♠ more often",
            format!("{} ways ({threes}); ♦ {d}, ♠ {s}, ♥ {h}, ♣ {c} cards", enc.ways[3].len()),
            Verdict::of(true, enc.ways[3].len() == 3 && d.min(s) > h.max(c)),
            "counting bid cards over the three ways, each equally likely",
        ),
        claim(
            "packs",
            "000/002",
            g,
            "the packs deal exactly: 36 = 3×12, 37 with the turned-up card, 53 for four, 60 for five, 48 for Long, 33 for two",
            "exact",
            packs.join("; "),
            Verdict::of(true, exact),
            "every variant's pack against its seats × hand (+ the turned-up card)",
        ),
    ]
}

/// The computable claims of the Devyatka statement (seed 002).
pub fn devyatka() -> Vec<Claim> {
    let g = "devyatka";
    let importance = |a: i8, b: i8| (i32::from(a) - i32::from(b)).unsigned_abs();
    let nines = Found::solve(&mut Solver::new(), nines_to_alice());
    let mut solver = Solver::new();
    let mut rng = trial_rng(1769, 0);
    let zeros = (0..20)
        .map(|_| {
            let deal = Deal::random(&mut rng);
            let mask = deal.alice_mask();
            let nines: u64 = (0..4).map(|s| 1u64 << (s * 9 + 3)).sum();
            let bob_nines = (!mask & nines) & ((1 << 36) - 1);
            let alice_extra = mask & !nines;
            let fixed = swap_in_nines(mask, bob_nines, alice_extra);
            Found::solve(&mut solver, Deal::from_mask(fixed).unwrap_or(deal)).importance
        })
        .filter(|&i| i == 0)
        .count();
    vec![
        claim(
            "importance-examples",
            "002",
            g,
            "Bob wins with 6 and with 2 cards left to Alice: importance 4; Alice wins with 5 left to Bob, Bob with 3 left to Alice: importance 8",
            "4, 8",
            format!("{}, {}", importance(-6, -2), importance(5, -3)),
            Verdict::of((4, 8), (importance(-6, -2), importance(5, -3))),
            "results signed: +k Alice wins with Bob holding k, −k Bob wins",
        ),
        claim(
            "nines-to-alice",
            "002",
            g,
            "a deal with every nine in Alice's hand has importance 0 (Bob moving first must pass)",
            0,
            format!("{} for the first such deal; 0 for {zeros} of 20 random such deals", nines.importance),
            Verdict::of((0, 20), (nines.importance, zeros)),
            "",
        ),
    ]
}

/// Moves every nine into Alice's hand, giving Bob as many of her other cards.
fn swap_in_nines(mut mask: u64, mut bob_nines: u64, mut alice_extra: u64) -> u64 {
    while bob_nines != 0 && alice_extra != 0 {
        let n = bob_nines & bob_nines.wrapping_neg();
        let a = alice_extra & alice_extra.wrapping_neg();
        mask = mask ^ n ^ a;
        bob_nines &= bob_nines - 1;
        alice_extra &= alice_extra - 1;
    }
    mask
}

/// A Monte-Carlo proportion with its 95 % Wilson interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Proportion {
    /// Successes.
    pub hits: u64,
    /// Trials.
    pub trials: u64,
    /// Lower end of the interval.
    pub low: f64,
    /// Upper end of the interval.
    pub high: f64,
}

impl Proportion {
    /// `hits` of `trials`, with the Wilson score interval at z = 1.96.
    pub fn new(hits: u64, trials: u64) -> Proportion {
        let n = trials.max(1) as f64;
        let p = hits as f64 / n;
        let z = 1.96f64;
        let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
        let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
        Proportion {
            hits,
            trials,
            low: (centre - half).max(0.0),
            high: (centre + half).min(1.0),
        }
    }
}

/// How often the stock runs out before any player has every card face up, over `rounds` seeded
/// rounds of greedy bots.
pub fn golf_stock_runs_out(rules: GolfRules, rounds: u64, seed: u64) -> Proportion {
    let mut hits = 0;
    for i in 0..rounds {
        let mut rng = trial_rng(seed, i);
        let setup = GolfSetup::shuffled(rules, PartyId(1), &mut rng);
        let mut bots: Vec<Box<dyn Bot<Golf>>> = (0..rules.players)
            .map(|_| Box::new(GreedyBot) as Box<dyn Bot<Golf>>)
            .collect();
        if let Ok((_, game)) = play_out(setup, &mut bots, 10_000, &mut rng) {
            if game.outcome().is_some_and(|o| o.out.is_none()) {
                hits += 1;
            }
        }
    }
    Proportion::new(hits, rounds)
}

/// The claims of the Golf rules (seed 002).
pub fn golf() -> Vec<Claim> {
    let g = "golf";
    let grid: Vec<_> = ["AS", "KD", "3C", "4C", "4D", "4H", "AD", "6H", "KH"]
        .iter()
        .map(|t| t.parse().ok())
        .collect();
    let with = score_grid(Layout::Nine, &grid, 0.0) as i32;
    let without: i32 = grid
        .iter()
        .flatten()
        .map(|&c| crate::golf::card_points(c))
        .sum();
    let three = golf_stock_runs_out(GolfRules::nine(3), 400, 2002);
    vec![
        claim(
            "golf-example",
            "002",
            g,
            "the example grid scores 1+0+3+1+6+0+0 = 11, the three fours a triple worth 0 instead of 12",
            "11 (12 without the triple)",
            format!("{with} ({} more without the triple rule)", without - with),
            Verdict::of((11, 12), (with, without - with)),
            "a grid with the example's cards: A K 3 / 4 4 4 / A 6 K",
        ),
        claim(
            "golf-three-players",
            "002",
            g,
            "with three players and one deck the stock inevitably runs out before anyone has turned every card",
            "always",
            format!(
                "{} of {} rounds of greedy bots ({:.0}–{:.0} %)",
                three.hits,
                three.trials,
                100.0 * three.low,
                100.0 * three.high
            ),
            Verdict::of(three.trials, three.hits),
            "not inevitable: a player who replaces a face-down card every turn has all nine face up after six turns, using at most 18 of the 24 stock cards",
        ),
    ]
}
