//! Девятка ("Nine"), the game of Codeforces problem 1769D2.
//!
//! A 36-card pack (six to ace in four suits) is dealt 18 and 18 to Alice and Bob. They move in
//! turn; a move puts one card on the table: any nine; a six, seven or eight when the card one
//! higher of its suit is on the table; a ten to ace when the card one lower of its suit is. A
//! player who cannot move passes; one who can must. The first to empty his hand wins.
//!
//! The problem asks for the *result* under optimal play — who wins and how many cards the loser
//! still holds, which the winner wants large and the loser small — written here as a signed
//! number ([`Solver`]), and for deals with distinct *importances of the first move*, the
//! absolute difference between the results with Alice and with Bob moving first
//! ([`importance`]).
//!
//! * [`solver`]: the exact solver (a memo over the 25⁴ · 2 positions);
//! * [`importance`]: deals with distinct importances in the problem's output format, the checker
//!   of such an output (the problem's judge, in effect), and a local search for large and for
//!   specific importances.

/// The rules in brief (this crate's words), for `facedown games rules devyatka`.
pub const RULES: &str = "\
Devyatka (Codeforces 1769D2), two players.

Deal: 36 cards (6 7 8 9 T J Q K A in clubs, diamonds, spades, hearts), 18 each.
Move: put one card on the table: any nine; a 6, 7 or 8 when the card one higher of its suit is
  down; a T, J, Q, K or A when the card one lower of its suit is down. A player who cannot move
  passes; one who can must move. The first to empty his hand wins.
Result: who wins and how many cards the loser holds; signed +k (Alice wins, Bob holds k) or -k
  (Bob wins, Alice holds k). Alice maximises it, Bob minimises it.
Importance of the first move: |result with Alice first - result with Bob first|.
";

pub mod importance;
pub mod multi;
pub mod solver;

pub use importance::{check_output, distinct_importances, CheckError, Checked, Found};
pub use multi::MultiDevyatka;
pub use solver::Solver;

use facedown_core::PartyId;
use rand::seq::SliceRandom;
use rand::RngCore;
use serde::{Deserialize, Serialize};

use crate::cards::{cards_text, parse_cards, Card, Rank, Suit};
use crate::game::{Game, SetupError};

/// Cards in the pack.
pub const CARDS: usize = 36;
/// Ranks per suit.
pub const RANKS: u8 = 9;
/// Rank index of the nine (six = 0, …, ace = 8).
pub const NINE: u8 = 3;

/// The two players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Player {
    /// Alice, player 1.
    Alice,
    /// Bob, player 2.
    Bob,
}

impl Player {
    /// The opponent.
    pub fn other(self) -> Player {
        match self {
            Player::Alice => Player::Bob,
            Player::Bob => Player::Alice,
        }
    }

    /// `+1` for Alice, `−1` for Bob: the sign of a result won by this player.
    pub fn sign(self) -> i8 {
        match self {
            Player::Alice => 1,
            Player::Bob => -1,
        }
    }

    /// The player's id (Alice is player 1).
    pub fn id(self) -> PartyId {
        PartyId(self as u16 + 1)
    }

    fn from_id(id: PartyId) -> Option<Player> {
        match id.0 {
            1 => Some(Player::Alice),
            2 => Some(Player::Bob),
            _ => None,
        }
    }
}

/// The index (0..36) of a Devyatka card: `9 · suit + rank`, six = 0.
pub fn card_index(card: Card) -> Option<u8> {
    let rank = card.rank()?;
    let suit = card.suit()?;
    let r = Rank::SIX_TO_ACE.iter().position(|&x| x == rank)? as u8;
    (card.copy == 0).then_some(suit.index() as u8 * RANKS + r)
}

/// The card of an index.
pub fn card_of(index: u8) -> Card {
    let suit = Suit::ALL[usize::from(index / RANKS) % 4];
    Card::new(Rank::SIX_TO_ACE[usize::from(index % RANKS)], suit)
}

/// Whether card `i` may go down on a table holding the cards of the mask `table`: a nine
/// always, any other card when its neighbour towards the nine is down.
pub fn playable_on(table: u64, i: u8) -> bool {
    let rank = i % RANKS;
    match rank.cmp(&NINE) {
        core::cmp::Ordering::Equal => true,
        core::cmp::Ordering::Less => table & 1 << (i + 1) != 0,
        core::cmp::Ordering::Greater => table & 1 << (i - 1) != 0,
    }
}

/// The 36-card pack.
pub fn pack() -> Vec<Card> {
    (0..CARDS as u8).map(card_of).collect()
}

/// A deal: which 18 cards Alice holds (Bob holds the other 18).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Deal {
    alice: u64,
}

/// Two hands that are not a deal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
pub enum DealError {
    /// A card text is not a card of the pack.
    #[error("`{0}` is not a card of the 36-card pack")]
    NotACard(String),
    /// A hand does not hold 18 cards.
    #[error("{player:?} holds {count} cards, not 18")]
    HandSize {
        /// Whose hand.
        player: Player,
        /// How many cards it holds.
        count: usize,
    },
    /// A card is dealt twice.
    #[error("{0} is dealt twice")]
    Duplicate(Card),
}

impl Deal {
    /// The deal from Alice's and Bob's hands.
    pub fn from_hands(alice: &[Card], bob: &[Card]) -> Result<Deal, DealError> {
        let mut masks = [0u64; 2];
        for (player, hand) in [(Player::Alice, alice), (Player::Bob, bob)] {
            if hand.len() != CARDS / 2 {
                return Err(DealError::HandSize {
                    player,
                    count: hand.len(),
                });
            }
            for &card in hand {
                let i = card_index(card).ok_or_else(|| DealError::NotACard(card.to_string()))?;
                if (masks[0] | masks[1]) & 1 << i != 0 {
                    return Err(DealError::Duplicate(card));
                }
                masks[player as usize] |= 1 << i;
            }
        }
        Ok(Deal { alice: masks[0] })
    }

    /// Parses the problem's format: Alice's line, then Bob's line, 18 cards each.
    pub fn parse(alice: &str, bob: &str) -> Result<Deal, DealError> {
        let a = parse_cards(alice).map_err(|e| DealError::NotACard(e.0))?;
        let b = parse_cards(bob).map_err(|e| DealError::NotACard(e.0))?;
        Deal::from_hands(&a, &b)
    }

    /// A uniformly random deal.
    pub fn random(rng: &mut dyn RngCore) -> Deal {
        let mut order: Vec<u8> = (0..CARDS as u8).collect();
        order.shuffle(rng);
        Deal {
            alice: order[..CARDS / 2].iter().fold(0, |m, &i| m | 1 << i),
        }
    }

    /// Alice's cards as a bit mask over card indices.
    pub fn alice_mask(&self) -> u64 {
        self.alice
    }

    /// The deal whose Alice holds the cards of `mask` (which must have 18 of the 36 bits).
    pub fn from_mask(mask: u64) -> Option<Deal> {
        let valid = mask >> CARDS == 0 && mask.count_ones() as usize == CARDS / 2;
        valid.then_some(Deal { alice: mask })
    }

    /// The hand of `player`, in pack order.
    pub fn hand(&self, player: Player) -> Vec<Card> {
        let mask = match player {
            Player::Alice => self.alice,
            Player::Bob => !self.alice & ((1 << CARDS) - 1),
        };
        (0..CARDS as u8)
            .filter(|&i| mask & 1 << i != 0)
            .map(card_of)
            .collect()
    }

    /// The two lines of the problem's output format.
    pub fn to_lines(&self) -> [String; 2] {
        [
            cards_text(&self.hand(Player::Alice)),
            cards_text(&self.hand(Player::Bob)),
        ]
    }

    /// The same deal with the hands exchanged.
    pub fn swapped(&self) -> Deal {
        Deal {
            alice: !self.alice & ((1 << CARDS) - 1),
        }
    }
}

impl core::fmt::Debug for Deal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let [a, b] = self.to_lines();
        write!(f, "Deal {{ alice: {a}; bob: {b} }}")
    }
}

/// The setup of one game: the two hands and who moves first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// Alice's 18 cards.
    pub alice: Vec<Card>,
    /// Bob's 18 cards.
    pub bob: Vec<Card>,
    /// Who moves first.
    pub first: Player,
}

impl Setup {
    /// The setup of `deal` with `first` moving first.
    pub fn new(deal: &Deal, first: Player) -> Setup {
        Setup {
            alice: deal.hand(Player::Alice),
            bob: deal.hand(Player::Bob),
            first,
        }
    }
}

/// A move: put a card down, or pass (only when no card can go down).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Move {
    /// Put this card on the table.
    Play(Card),
    /// Pass.
    Pass,
}

impl core::fmt::Display for Move {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Move::Play(card) => write!(f, "play {card}"),
            Move::Pass => write!(f, "pass"),
        }
    }
}

/// Why a move is illegal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Illegal {
    /// The card is not in the player's hand.
    #[error("played {0}, which is not in his hand")]
    NotInHand(Card),
    /// The card cannot go down now.
    #[error("played {0}, which cannot go down: it is not a nine and its neighbour towards the nine is not on the table")]
    NotPlayable(Card),
    /// He passed while he could put a card down.
    #[error("passed while able to play {0}")]
    PassWithMove(Card),
    /// The game is over.
    #[error("moved after the game was over")]
    GameOver,
}

/// A game in progress.
#[derive(Clone, Debug)]
pub struct Devyatka {
    setup: Setup,
    deal: Deal,
    table: u64,
    mover: Player,
    plies: u32,
}

/// What a player sees: his hand, the table, and how many cards his opponent holds.
#[derive(Clone, Debug, Serialize)]
pub struct View {
    /// Who is looking.
    pub player: Player,
    /// His cards.
    pub hand: Vec<Card>,
    /// The cards on the table.
    pub table: Vec<Card>,
    /// Cards in his opponent's hand.
    pub opponent_holds: usize,
    /// Who is to move.
    pub to_move: Player,
}

/// The end of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The winner.
    pub winner: Player,
    /// Cards left in the loser's hand.
    pub loser_holds: u32,
    /// `+k` when Alice won with Bob holding `k`, `−k` when Bob won with Alice holding `k`.
    pub result: i8,
    /// Moves made, passes included.
    pub plies: u32,
}

impl Devyatka {
    fn hand_mask(&self, player: Player) -> u64 {
        let mask = match player {
            Player::Alice => self.deal.alice,
            Player::Bob => !self.deal.alice & ((1 << CARDS) - 1),
        };
        mask & !self.table
    }

    /// Whether card `i` may go down on the current table.
    fn playable(&self, i: u8) -> bool {
        playable_on(self.table, i)
    }

    fn playable_cards(&self) -> Vec<u8> {
        let hand = self.hand_mask(self.mover);
        (0..CARDS as u8)
            .filter(|&i| hand & 1 << i != 0 && self.playable(i))
            .collect()
    }

    fn over(&self) -> bool {
        self.hand_mask(Player::Alice) == 0 || self.hand_mask(Player::Bob) == 0
    }

    /// The deal.
    pub fn deal(&self) -> Deal {
        self.deal
    }

    /// The signed result of optimal play from here on (the result itself once the game is
    /// over).
    pub fn value(&self, solver: &mut Solver) -> i8 {
        match self.outcome() {
            Some(o) => o.result,
            None => solver.value_at(&self.deal, self.table, self.mover),
        }
    }

    /// The cards optimal for the player to move (by the exact solver); empty when he must
    /// pass.
    pub fn best_cards(&self, solver: &mut Solver) -> Vec<Card> {
        solver
            .best_cards(&self.deal, self.table, self.mover)
            .into_iter()
            .map(card_of)
            .collect()
    }
}

impl Game for Devyatka {
    type Setup = Setup;
    type Move = Move;
    type View = View;
    type Outcome = Outcome;
    type Illegal = Illegal;

    const NAME: &'static str = "devyatka";

    fn start(setup: &Setup) -> Result<Self, SetupError> {
        let deal =
            Deal::from_hands(&setup.alice, &setup.bob).map_err(|e| SetupError(e.to_string()))?;
        Ok(Devyatka {
            setup: setup.clone(),
            deal,
            table: 0,
            mover: setup.first,
            plies: 0,
        })
    }

    fn setup(&self) -> &Setup {
        &self.setup
    }

    fn players(&self) -> usize {
        2
    }

    fn to_move(&self) -> Option<PartyId> {
        (!self.over()).then(|| self.mover.id())
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
                let i = card_index(card)
                    .filter(|&i| self.hand_mask(self.mover) & 1 << i != 0)
                    .ok_or(Illegal::NotInHand(card))?;
                if !self.playable(i) {
                    return Err(Illegal::NotPlayable(card));
                }
                self.table |= 1 << i;
            }
        }
        self.plies += 1;
        if !self.over() {
            self.mover = self.mover.other();
        }
        Ok(())
    }

    fn view(&self, player: PartyId) -> View {
        let me = Player::from_id(player).unwrap_or(Player::Alice);
        let cards = |mask: u64| -> Vec<Card> {
            (0..CARDS as u8)
                .filter(|&i| mask & 1 << i != 0)
                .map(card_of)
                .collect()
        };
        View {
            player: me,
            hand: cards(self.hand_mask(me)),
            table: cards(self.table),
            opponent_holds: self.hand_mask(me.other()).count_ones() as usize,
            to_move: self.mover,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if !self.over() {
            return None;
        }
        let winner = self.mover;
        let loser_holds = self.hand_mask(winner.other()).count_ones();
        Some(Outcome {
            winner,
            loser_holds,
            result: winner.sign() * loser_holds as i8,
            plies: self.plies,
        })
    }
}
