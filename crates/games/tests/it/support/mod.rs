//! Shared set-ups: bots for every seat, seeded games played out, the table's answers.

pub mod table;

use facedown_core::rng::seeded_rng;
use facedown_core::PartyId;
use facedown_games::game::{play_out, Bot, Game, Log, RandomBot};
use facedown_games::golf::{Golf, GreedyBot, Rules as GolfRules, Setup as GolfSetup};
use facedown_games::ninety_nine::{HeuristicBot, NinetyNine, Setup as NnSetup, Variant};

/// `n` random bots.
pub fn random_bots<G: Game>(n: usize) -> Vec<Box<dyn Bot<G>>> {
    (0..n)
        .map(|_| Box::new(RandomBot) as Box<dyn Bot<G>>)
        .collect()
}

/// Heuristic Ninety-Nine bots, with a random one at every seat whose bit of `mix` is set.
pub fn nn_bots(n: usize, mix: u8) -> Vec<Box<dyn Bot<NinetyNine>>> {
    (0..n)
        .map(|i| {
            if mix & 1 << i != 0 {
                Box::new(RandomBot) as Box<dyn Bot<NinetyNine>>
            } else {
                Box::new(HeuristicBot)
            }
        })
        .collect()
}

/// One deal of `variant` played by heuristic bots (random at the seats of `mix`).
pub fn nn_deal(variant: Variant, seed: u64, mix: u8) -> (Log<NinetyNine>, NinetyNine) {
    let mut rng = seeded_rng(seed);
    let setup = NnSetup::shuffled(variant, &mut rng);
    let mut bots = nn_bots(variant.rules().players, mix);
    play_out(setup, &mut bots, 1000, &mut rng).expect("a deal plays to the end")
}

/// One round of Golf played by greedy bots.
pub fn golf_round(rules: GolfRules, seed: u64) -> (Log<Golf>, Golf) {
    let mut rng = seeded_rng(seed);
    let setup = GolfSetup::shuffled(rules, PartyId(1), &mut rng);
    let mut bots: Vec<Box<dyn Bot<Golf>>> = (0..rules.players)
        .map(|_| Box::new(GreedyBot) as Box<dyn Bot<Golf>>)
        .collect();
    play_out(setup, &mut bots, 10_000, &mut rng).expect("a round plays to the end")
}
