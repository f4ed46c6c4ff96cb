//! Девятка for two to four players: the same pack and the same rule of play, dealt 36 / N each.
//!
//! The seed's problem is for Alice and Bob ([`super::Devyatka`], with its exact solver); the
//! card game itself is played around a table by more. Players move in turn from `first`,
//! clockwise: each puts down a card the rule allows ([`super::playable_on`]) or, holding none,
//! passes; one who can move must. The first to empty his hand wins, and the others' cards left
//! are counted. Two players dealt the same hands play exactly the game of [`super::Devyatka`].
//! Nobody is ever stuck: every card not on the table is in a hand, and some card next to the
//! table's runs (or a nine) always remains, so at most `N − 1` passes come in a row.

use facedown_core::PartyId;
use rand::seq::SliceRandom;
use rand::RngCore;
use serde::{Deserialize, Serialize};

use super::{card_index, card_of, pack, playable_on, Illegal, Move, CARDS};
use crate::cards::Card;
use crate::game::{Game, SetupError};

/// The setup of one deal: each player's hand and who moves first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MultiSetup {
    /// The hands, player 1 first: 36 / N cards each, the whole pack between them.
    pub hands: Vec<Vec<Card>>,
    /// Who moves first.
    pub first: PartyId,
}

impl MultiSetup {
    /// The deal of `deck` (the pack in some order) in hands of 36 / `players`, in order.
    pub fn dealt(players: usize, first: PartyId, deck: &[Card]) -> MultiSetup {
        let hand = CARDS / players.max(1);
        MultiSetup {
            hands: deck.chunks(hand).map(<[Card]>::to_vec).collect(),
            first,
        }
    }

    /// A uniformly random deal.
    pub fn shuffled(players: usize, first: PartyId, rng: &mut dyn RngCore) -> MultiSetup {
        let mut deck = pack();
        deck.shuffle(rng);
        MultiSetup::dealt(players, first, &deck)
    }
}

/// A deal in progress.
#[derive(Clone, Debug)]
pub struct MultiDevyatka {
    setup: MultiSetup,
    hands: Vec<u64>,
    table: u64,
    mover: usize,
    plies: u32,
}

/// What a player sees: his hand, the table, and how many cards each player holds.
#[derive(Clone, Debug, Serialize)]
pub struct MultiView {
    /// Who is looking.
    pub player: PartyId,
    /// His cards.
    pub hand: Vec<Card>,
    /// The cards on the table.
    pub table: Vec<Card>,
    /// Cards in each player's hand.
    pub holds: Vec<usize>,
    /// Who is to move.
    pub to_move: Option<PartyId>,
}

/// The end of a deal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MultiOutcome {
    /// The first to empty his hand.
    pub winner: PartyId,
    /// Cards left in each hand (0 for the winner).
    pub holds: Vec<u32>,
    /// Moves made, passes included.
    pub plies: u32,
}

fn cards_of(mask: u64) -> Vec<Card> {
    (0..CARDS as u8)
        .filter(|&i| mask & 1 << i != 0)
        .map(card_of)
        .collect()
}

impl MultiDevyatka {
    fn playable_cards(&self) -> Vec<u8> {
        let hand = self.hands[self.mover] & !self.table;
        (0..CARDS as u8)
            .filter(|&i| hand & 1 << i != 0 && playable_on(self.table, i))
            .collect()
    }

    fn holds(&self, seat: usize) -> u32 {
        (self.hands[seat] & !self.table).count_ones()
    }

    fn over(&self) -> bool {
        (0..self.hands.len()).any(|s| self.holds(s) == 0)
    }

    /// The cards on the table, as a mask over card indices.
    pub fn table_mask(&self) -> u64 {
        self.table
    }

    /// The cards that may go down now, whoever holds them, as a mask over card indices.
    pub fn playable_mask(&self) -> u64 {
        (0..CARDS as u8)
            .filter(|&i| self.table & 1 << i == 0 && playable_on(self.table, i))
            .fold(0, |m, i| m | 1 << i)
    }
}

impl Game for MultiDevyatka {
    type Setup = MultiSetup;
    type Move = Move;
    type View = MultiView;
    type Outcome = MultiOutcome;
    type Illegal = Illegal;

    const NAME: &'static str = "devyatka-table";

    fn start(setup: &MultiSetup) -> Result<Self, SetupError> {
        let players = setup.hands.len();
        if !(2..=4).contains(&players) {
            return Err(SetupError(format!("{players} players (2..=4)")));
        }
        if setup.first.0 == 0 || setup.first.index() >= players {
            return Err(SetupError(format!("no {} at this table", setup.first)));
        }
        let mut hands = vec![0u64; players];
        for (s, hand) in setup.hands.iter().enumerate() {
            if hand.len() != CARDS / players {
                return Err(SetupError(format!(
                    "player {} holds {} cards, not {}",
                    s + 1,
                    hand.len(),
                    CARDS / players
                )));
            }
            for &card in hand {
                let i = card_index(card)
                    .ok_or_else(|| SetupError(format!("{card} is not a card of the pack")))?;
                if hands.iter().any(|m| m & 1 << i != 0) {
                    return Err(SetupError(format!("{card} is dealt twice")));
                }
                hands[s] |= 1 << i;
            }
        }
        Ok(MultiDevyatka {
            setup: setup.clone(),
            hands,
            table: 0,
            mover: setup.first.index(),
            plies: 0,
        })
    }

    fn setup(&self) -> &MultiSetup {
        &self.setup
    }

    fn players(&self) -> usize {
        self.hands.len()
    }

    fn to_move(&self) -> Option<PartyId> {
        (!self.over()).then(|| PartyId::from_index(self.mover))
    }

    fn legal_moves(&self) -> Vec<Move> {
        if self.over() {
            return Vec::new();
        }
        let cards = self.playable_cards();
        if cards.is_empty() {
            return vec![Move::Pass];
        }
        cards.into_iter().map(|i| Move::Play(card_of(i))).collect()
    }

    fn play(&mut self, mv: &Move) -> Result<(), Illegal> {
        if self.over() {
            return Err(Illegal::GameOver);
        }
        match *mv {
            Move::Pass => {
                if let Some(&i) = self.playable_cards().first() {
                    return Err(Illegal::PassWithMove(card_of(i)));
                }
            }
            Move::Play(card) => {
                let hand = self.hands[self.mover] & !self.table;
                let i = card_index(card)
                    .filter(|&i| hand & 1 << i != 0)
                    .ok_or(Illegal::NotInHand(card))?;
                if !playable_on(self.table, i) {
                    return Err(Illegal::NotPlayable(card));
                }
                self.table |= 1 << i;
            }
        }
        self.plies += 1;
        if !self.over() {
            self.mover = (self.mover + 1) % self.hands.len();
        }
        Ok(())
    }

    fn view(&self, player: PartyId) -> MultiView {
        let mine = self.hands.get(player.index()).copied().unwrap_or(0);
        MultiView {
            player,
            hand: cards_of(mine & !self.table),
            table: cards_of(self.table),
            holds: (0..self.hands.len())
                .map(|s| self.holds(s) as usize)
                .collect(),
            to_move: self.to_move(),
        }
    }

    fn outcome(&self) -> Option<MultiOutcome> {
        self.over().then(|| MultiOutcome {
            winner: PartyId::from_index(self.mover),
            holds: (0..self.hands.len()).map(|s| self.holds(s)).collect(),
            plies: self.plies,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devyatka::{Deal, Devyatka, Player, Setup};
    use crate::game::{play_out, Bot, RandomBot};

    #[test]
    fn two_players_play_exactly_the_game_of_alice_and_bob() {
        for seed in 0..20u64 {
            let mut rng = facedown_core::rng::trial_rng(seed, 0);
            let deal = Deal::random(&mut rng);
            let mut two = Devyatka::start(&Setup::new(&deal, Player::Bob)).expect("a deal");
            let hands = vec![deal.hand(Player::Alice), deal.hand(Player::Bob)];
            let mut many = MultiDevyatka::start(&MultiSetup {
                hands,
                first: PartyId(2),
            })
            .expect("a deal");
            while let Some(p) = two.to_move() {
                assert_eq!(many.to_move(), Some(p));
                let legal = two.legal_moves();
                assert_eq!(many.legal_moves(), legal);
                let mv = legal[(seed as usize + legal.len() / 2) % legal.len()];
                two.play(&mv).expect("legal");
                many.play(&mv).expect("legal");
            }
            let (a, b) = (two.outcome().expect("over"), many.outcome().expect("over"));
            assert_eq!(b.winner, a.winner.id());
            assert_eq!(b.holds.iter().sum::<u32>(), a.loser_holds);
        }
    }

    #[test]
    fn three_and_four_players_always_reach_an_end() {
        for players in [3, 4] {
            let mut rng = facedown_core::rng::trial_rng(players as u64, 0);
            let setup = MultiSetup::shuffled(players, PartyId(1), &mut rng);
            let mut bots: Vec<Box<dyn Bot<MultiDevyatka>>> =
                (0..players).map(|_| Box::new(RandomBot) as _).collect();
            let (_, game) = play_out(setup, &mut bots, 500, &mut rng).expect("ends");
            let outcome = game.outcome().expect("over");
            assert_eq!(outcome.holds[outcome.winner.index()], 0);
            assert!(outcome.holds.iter().filter(|&&h| h > 0).count() == players - 1);
        }
    }

    #[test]
    fn a_deal_that_is_not_the_pack_is_refused() {
        let deck = pack();
        let mut setup = MultiSetup::dealt(3, PartyId(1), &deck);
        setup.hands[1][0] = setup.hands[0][0];
        assert!(MultiDevyatka::start(&setup).is_err());
        let five = MultiSetup::dealt(5, PartyId(1), &deck);
        assert!(MultiDevyatka::start(&five).is_err());
    }
}
