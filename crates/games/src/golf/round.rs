//! One round of Golf.

use facedown_core::PartyId;
use rand::seq::SliceRandom;
use rand::RngCore;
use serde::{Deserialize, Serialize};

use crate::cards::{is_permutation_of, pack, Card, Rank};
use crate::game::{Game, SetupError};
use crate::record::InapplicableField;

/// The grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// Three rows of three; three cards turned up by choice; triples in a line score 0.
    Nine,
    /// Two rows of three; the two middle cards turned up; a pair in a column scores 0.
    Six,
}

impl Layout {
    /// Cards in the grid.
    pub fn cards(self) -> usize {
        match self {
            Layout::Nine => 9,
            Layout::Six => 6,
        }
    }

    /// Rows of the grid.
    pub fn rows(self) -> usize {
        self.cards() / 3
    }

    /// The lines whose equal cards score 0: rows and columns of three (nine), columns of two
    /// (six).
    pub fn lines(self) -> Vec<Vec<usize>> {
        match self {
            Layout::Nine => {
                let mut lines: Vec<Vec<usize>> =
                    (0..3).map(|r| (3 * r..3 * r + 3).collect()).collect();
                lines.extend((0..3).map(|c| vec![c, c + 3, c + 6]));
                lines
            }
            Layout::Six => (0..3).map(|c| vec![c, c + 3]).collect(),
        }
    }

    /// Whether two positions share a line.
    pub fn share_line(self, a: usize, b: usize) -> bool {
        self.lines()
            .iter()
            .any(|l| l.contains(&a) && l.contains(&b))
    }
}

/// The rules of a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rules {
    /// Nine or six cards.
    pub layout: Layout,
    /// Players (2..=8).
    pub players: u8,
    /// 52-card decks shuffled together (the seed: two for four or more players).
    pub decks: u8,
    /// Jokers per deck.
    pub jokers: u8,
    /// After turning up, a player may move one of two equal face-up cards so that they share a
    /// row or column (nine-card game).
    pub pair_move: bool,
    /// Rounds in a game.
    pub rounds: u8,
}

impl Rules {
    /// The seed's game: two players, one deck, no Jokers, nine cards, nine rounds.
    pub fn nine(players: u8) -> Rules {
        Rules {
            layout: Layout::Nine,
            players,
            decks: if players >= 4 { 2 } else { 1 },
            jokers: 0,
            pair_move: true,
            rounds: 9,
        }
    }

    /// The six-card game.
    pub fn six(players: u8) -> Rules {
        Rules {
            layout: Layout::Six,
            pair_move: false,
            ..Rules::nine(players)
        }
    }

    /// The pack.
    pub fn pack(&self) -> Vec<Card> {
        pack(&Rank::STANDARD, self.decks, self.jokers * self.decks)
    }

    /// The first rule the layout ignores that is set anyway: the pair move, which follows the
    /// turning up of the nine-card game (the six-card game turns its two middle cards itself).
    pub fn inapplicable_field(&self) -> Option<InapplicableField> {
        (self.layout == Layout::Six && self.pair_move).then(|| InapplicableField {
            field: "pair_move",
            variant: "the six-card game".to_owned(),
            why: "a pair move follows the turning up of the nine-card game",
        })
    }

    fn validate(&self) -> Result<(), SetupError> {
        if let Some(field) = self.inapplicable_field() {
            return Err(SetupError(field.to_string()));
        }
        let need = usize::from(self.players) * self.layout.cards() + 1;
        if !(2..=8).contains(&self.players) {
            return Err(SetupError(format!("{} players (2..=8)", self.players)));
        }
        if !(1..=4).contains(&self.decks) {
            return Err(SetupError(format!("{} decks (1..=4)", self.decks)));
        }
        if self.jokers > 4 || self.rounds == 0 {
            return Err(SetupError(
                "at most 4 Jokers per deck, at least one round".into(),
            ));
        }
        if self.pack().len() <= need {
            return Err(SetupError(format!(
                "{} cards cannot deal {} grids and a discard",
                self.pack().len(),
                self.players
            )));
        }
        Ok(())
    }
}

/// The setup of a round: rules, who plays first, the shuffled pack (grids in order, then the
/// first discard, then the stock from the top).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// The rules.
    pub rules: Rules,
    /// Who turns up and plays first.
    pub first: PartyId,
    /// The pack in dealt order.
    pub deck: Vec<Card>,
}

impl Setup {
    /// A round with a shuffled pack.
    pub fn shuffled(rules: Rules, first: PartyId, rng: &mut dyn RngCore) -> Setup {
        let mut deck = rules.pack();
        deck.shuffle(rng);
        Setup { rules, first, deck }
    }
}

/// A move. Grid positions count row by row from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Move {
    /// Turn up these three grid cards (nine-card game).
    TurnUp([u8; 3]),
    /// Move the face-up card at `from` to `to` (the card there takes its place), so that it
    /// shares a line with an equal face-up card.
    Arrange {
        /// Where the card is.
        from: u8,
        /// Where it goes.
        to: u8,
    },
    /// Leave the grid as it is.
    Keep,
    /// Take the top card of the stock (seen by the taker alone).
    DrawStock,
    /// Take the top card of the discard pile.
    TakeDiscard,
    /// Put the card in hand at this grid position; the card there goes to the discard pile.
    Replace(u8),
    /// Discard the card drawn from the stock.
    Discard,
}

impl core::fmt::Display for Move {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Move::TurnUp([a, b, c]) => write!(f, "turn up {a} {b} {c}"),
            Move::Arrange { from, to } => write!(f, "move {from} to {to}"),
            Move::Keep => write!(f, "keep the grid"),
            Move::DrawStock => write!(f, "draw from the stock"),
            Move::TakeDiscard => write!(f, "take the discard"),
            Move::Replace(p) => write!(f, "replace {p}"),
            Move::Discard => write!(f, "discard it"),
        }
    }
}

/// Why a move is illegal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Illegal {
    /// Not a move of this moment of the round.
    #[error("made a move of the wrong kind ({0})")]
    WrongStep(&'static str),
    /// A grid position that does not exist or is repeated.
    #[error("named grid position {0}, which is not a distinct position of his grid")]
    Position(u8),
    /// Turning up a card that is already face up.
    #[error("turned up position {0}, which is already face up")]
    AlreadyUp(u8),
    /// An arrangement that does not bring two equal face-up cards into one line.
    #[error("moved position {from} to {to}, which does not line up two equal face-up cards")]
    Arrangement {
        /// From.
        from: u8,
        /// To.
        to: u8,
    },
    /// Discarding a card taken from the discard pile.
    #[error("discarded the card he took from the discard pile (it must replace a grid card)")]
    DiscardFromPile,
    /// Drawing from an empty pile.
    #[error("drew from an empty pile")]
    EmptyPile,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    card: Card,
    up: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Step {
    TurnUp,
    Arrange,
    Draw,
    Place,
    Over,
}

/// A round in progress.
#[derive(Clone, Debug)]
pub struct Golf {
    setup: Setup,
    grids: Vec<Vec<Slot>>,
    stock: Vec<Card>,
    discard: Vec<Card>,
    step: Step,
    /// Index of the player to move.
    turn: usize,
    /// Players who have done their turn-up and arrangement.
    ready: usize,
    /// The card in hand, and whether it came from the stock.
    holding: Option<(Card, bool)>,
    /// The player who first had every card face up, and how many final turns are left.
    out: Option<(usize, usize)>,
    turns: u32,
}

/// What a player sees.
#[derive(Clone, Debug, Serialize)]
pub struct View {
    /// Who is looking.
    pub player: PartyId,
    /// The rules.
    pub rules: Rules,
    /// The layout.
    pub layout: Layout,
    /// Every grid, seat by seat: face-up cards, `None` for face-down ones (unknown to all).
    pub grids: Vec<Vec<Option<Card>>>,
    /// The discard pile, top last.
    pub discard: Vec<Card>,
    /// Cards left in the stock.
    pub stock: usize,
    /// The card in the mover's hand, if this player may see it.
    pub holding: Option<Card>,
    /// Whether the card in hand came from the stock.
    pub from_stock: bool,
    /// Whose turn it is.
    pub to_move: Option<PartyId>,
    /// The player who went out, if any.
    pub out: Option<PartyId>,
}

/// The end of a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// Score of each player (lower is better).
    pub scores: Vec<i32>,
    /// Every grid, face up.
    pub grids: Vec<Vec<Card>>,
    /// Who went out first, if anyone (the stock may run out first).
    pub out: Option<PartyId>,
    /// Turns played.
    pub turns: u32,
}

/// Points of a card: A 1, 2–10 face value, J and Q 10, K 0, Joker −2.
pub fn card_points(card: Card) -> i32 {
    match card.rank() {
        None => -2,
        Some(Rank::Ace) => 1,
        Some(Rank::King) => 0,
        Some(Rank::Jack | Rank::Queen | Rank::Eleven | Rank::Twelve) => 10,
        Some(r) => r as i32 + 2,
    }
}

/// Same rank for the scoring lines (Jokers match Jokers).
fn same_rank(a: Card, b: Card) -> bool {
    a.rank() == b.rank()
}

/// The score of a grid (`None` for a card still unknown, which counts `unknown` points and
/// matches nothing).
pub fn score_grid(layout: Layout, grid: &[Option<Card>], unknown: f64) -> f64 {
    let mut zero = vec![false; grid.len()];
    for line in layout.lines() {
        let cards: Option<Vec<Card>> = line.iter().map(|&i| grid[i]).collect();
        if let Some(cards) = cards {
            if cards.iter().all(|&c| same_rank(c, cards[0])) {
                for &i in &line {
                    zero[i] = true;
                }
            }
        }
    }
    grid.iter()
        .zip(zero)
        .map(|(slot, z)| match (slot, z) {
            (_, true) => 0.0,
            (Some(c), false) => f64::from(card_points(*c)),
            (None, false) => unknown,
        })
        .sum()
}

impl Golf {
    fn rules(&self) -> &Rules {
        &self.setup.rules
    }

    fn cards(&self) -> usize {
        self.rules().layout.cards()
    }

    fn position(&self, p: u8) -> Result<usize, Illegal> {
        let i = usize::from(p);
        (i < self.cards()).then_some(i).ok_or(Illegal::Position(p))
    }

    fn players(&self) -> usize {
        usize::from(self.rules().players)
    }

    /// Legal arrangements of the mover's grid.
    fn arrangements(&self) -> Vec<Move> {
        let layout = self.rules().layout;
        let grid = &self.grids[self.turn];
        let n = grid.len();
        let mut out = Vec::new();
        for from in 0..n {
            for to in 0..n {
                if from != to && self.arrangement_ok(grid, from, to, layout) {
                    out.push(Move::Arrange {
                        from: from as u8,
                        to: to as u8,
                    });
                }
            }
        }
        out
    }

    /// Whether moving the face-up card at `from` to `to` lines it up with an equal face-up
    /// card it is not already lined up with.
    fn arrangement_ok(&self, grid: &[Slot], from: usize, to: usize, layout: Layout) -> bool {
        let equal = |q: usize| q != from && grid[q].up && same_rank(grid[q].card, grid[from].card);
        if from == to || !grid[from].up {
            return false;
        }
        if (0..grid.len()).any(|q| equal(q) && layout.share_line(q, from)) {
            return false;
        }
        (0..grid.len()).any(|q| q != to && equal(q) && layout.share_line(q, to))
    }

    fn end_turn(&mut self) {
        self.turns += 1;
        self.holding = None;
        let all_up = self.grids[self.turn].iter().all(|s| s.up);
        match &mut self.out {
            None if all_up => self.out = Some((self.turn, self.players() - 1)),
            Some((_, left)) => *left = left.saturating_sub(1),
            None => {}
        }
        let finished = matches!(self.out, Some((_, 0))) || self.stock.is_empty();
        if finished {
            self.step = Step::Over;
            return;
        }
        self.turn = (self.turn + 1) % self.players();
        self.step = Step::Draw;
    }

    fn after_setup_move(&mut self) {
        self.ready += 1;
        let first = self.setup.first.index();
        if self.ready == self.players() {
            self.turn = first;
            self.step = Step::Draw;
        } else {
            self.turn = (first + self.ready) % self.players();
            self.step = self.first_setup_step();
        }
    }

    fn first_setup_step(&self) -> Step {
        match self.rules().layout {
            Layout::Nine => Step::TurnUp,
            Layout::Six => Step::Draw,
        }
    }
}

impl Game for Golf {
    type Setup = Setup;
    type Move = Move;
    type View = View;
    type Outcome = Outcome;
    type Illegal = Illegal;

    const NAME: &'static str = "golf";

    fn start(setup: &Setup) -> Result<Self, SetupError> {
        let rules = setup.rules;
        rules.validate()?;
        if !is_permutation_of(&setup.deck, &rules.pack()) {
            return Err(SetupError("the deck is not the pack of these rules".into()));
        }
        let players = usize::from(rules.players);
        if setup.first.0 == 0 || setup.first.index() >= players {
            return Err(SetupError(format!("no {} at this table", setup.first)));
        }
        let n = rules.layout.cards();
        let mut grids: Vec<Vec<Slot>> = setup
            .deck
            .chunks(n)
            .take(players)
            .map(|c| c.iter().map(|&card| Slot { card, up: false }).collect())
            .collect();
        if rules.layout == Layout::Six {
            for grid in &mut grids {
                grid[1].up = true;
                grid[4].up = true;
            }
        }
        let discard = vec![setup.deck[players * n]];
        let mut stock: Vec<Card> = setup.deck[players * n + 1..].to_vec();
        stock.reverse();
        let mut game = Golf {
            setup: setup.clone(),
            grids,
            stock,
            discard,
            step: Step::TurnUp,
            turn: setup.first.index(),
            ready: 0,
            holding: None,
            out: None,
            turns: 0,
        };
        game.step = game.first_setup_step();
        if game.step == Step::Draw {
            game.ready = players;
        }
        Ok(game)
    }

    fn setup(&self) -> &Setup {
        &self.setup
    }

    fn players(&self) -> usize {
        usize::from(self.rules().players)
    }

    fn to_move(&self) -> Option<PartyId> {
        (self.step != Step::Over).then(|| PartyId::from_index(self.turn))
    }

    fn legal_moves(&self) -> Vec<Move> {
        let n = self.cards() as u8;
        match self.step {
            Step::TurnUp => {
                let mut out = Vec::new();
                for a in 0..n {
                    for b in a + 1..n {
                        for c in b + 1..n {
                            out.push(Move::TurnUp([a, b, c]));
                        }
                    }
                }
                out
            }
            Step::Arrange => {
                let mut out = vec![Move::Keep];
                out.extend(self.arrangements());
                out
            }
            Step::Draw => {
                let mut out = Vec::new();
                if !self.stock.is_empty() {
                    out.push(Move::DrawStock);
                }
                if !self.discard.is_empty() {
                    out.push(Move::TakeDiscard);
                }
                out
            }
            Step::Place => {
                let mut out: Vec<Move> = (0..n).map(Move::Replace).collect();
                if matches!(self.holding, Some((_, true))) {
                    out.push(Move::Discard);
                }
                out
            }
            Step::Over => Vec::new(),
        }
    }

    fn play(&mut self, mv: &Move) -> Result<(), Illegal> {
        match (self.step, *mv) {
            (Step::TurnUp, Move::TurnUp(positions)) => {
                let mut idx = [0usize; 3];
                for (k, &p) in positions.iter().enumerate() {
                    idx[k] = self.position(p)?;
                    if positions[..k].contains(&p) {
                        return Err(Illegal::Position(p));
                    }
                    if self.grids[self.turn][idx[k]].up {
                        return Err(Illegal::AlreadyUp(p));
                    }
                }
                for i in idx {
                    self.grids[self.turn][i].up = true;
                }
                if self.rules().pair_move && !self.arrangements().is_empty() {
                    self.step = Step::Arrange;
                } else {
                    self.after_setup_move();
                }
            }
            (Step::Arrange, Move::Keep) => self.after_setup_move(),
            (Step::Arrange, Move::Arrange { from, to }) => {
                let (f, t) = (self.position(from)?, self.position(to)?);
                let layout = self.rules().layout;
                if !self.arrangement_ok(&self.grids[self.turn], f, t, layout) {
                    return Err(Illegal::Arrangement { from, to });
                }
                self.grids[self.turn].swap(f, t);
                self.after_setup_move();
            }
            (Step::Draw, Move::DrawStock) => {
                let card = self.stock.pop().ok_or(Illegal::EmptyPile)?;
                self.holding = Some((card, true));
                self.step = Step::Place;
            }
            (Step::Draw, Move::TakeDiscard) => {
                let card = self.discard.pop().ok_or(Illegal::EmptyPile)?;
                self.holding = Some((card, false));
                self.step = Step::Place;
            }
            (Step::Place, Move::Replace(p)) => {
                let i = self.position(p)?;
                let (card, _) = self.holding.ok_or(Illegal::WrongStep("nothing in hand"))?;
                let old = std::mem::replace(&mut self.grids[self.turn][i], Slot { card, up: true });
                self.discard.push(old.card);
                self.end_turn();
            }
            (Step::Place, Move::Discard) => match self.holding {
                Some((card, true)) => {
                    self.discard.push(card);
                    self.end_turn();
                }
                _ => return Err(Illegal::DiscardFromPile),
            },
            (step, _) => {
                return Err(Illegal::WrongStep(match step {
                    Step::TurnUp => "cards must be turned up first",
                    Step::Arrange => "only an arrangement or keep is allowed now",
                    Step::Draw => "a card must be drawn first",
                    Step::Place => "the card in hand must be placed or discarded",
                    Step::Over => "the round is over",
                }))
            }
        }
        Ok(())
    }

    fn view(&self, player: PartyId) -> View {
        let over = self.step == Step::Over;
        let grids = self
            .grids
            .iter()
            .map(|g| g.iter().map(|s| (s.up || over).then_some(s.card)).collect())
            .collect();
        let holding = self.holding.and_then(|(card, from_stock)| {
            (!from_stock || player.index() == self.turn).then_some(card)
        });
        View {
            player,
            rules: *self.rules(),
            layout: self.rules().layout,
            grids,
            discard: self.discard.clone(),
            stock: self.stock.len(),
            holding,
            from_stock: matches!(self.holding, Some((_, true))),
            to_move: self.to_move(),
            out: self.out.map(|(p, _)| PartyId::from_index(p)),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.step != Step::Over {
            return None;
        }
        let layout = self.rules().layout;
        let grids: Vec<Vec<Card>> = self
            .grids
            .iter()
            .map(|g| g.iter().map(|s| s.card).collect())
            .collect();
        let scores = grids
            .iter()
            .map(|g| {
                let all: Vec<Option<Card>> = g.iter().copied().map(Some).collect();
                score_grid(layout, &all, 0.0) as i32
            })
            .collect();
        Some(Outcome {
            scores,
            grids,
            out: self.out.map(|(p, _)| PartyId::from_index(p)),
            turns: self.turns,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(text: &str) -> Vec<Option<Card>> {
        crate::cards::parse_cards(text)
            .expect("cards")
            .into_iter()
            .map(Some)
            .collect()
    }

    #[test]
    fn a_triple_in_a_row_or_column_scores_nothing() {
        let row = cards("4C 4D 4H AS KS 3C AD 6H KH");
        assert_eq!(score_grid(Layout::Nine, &row, 0.0), 11.0);
        let column = cards("4C AS KS 4D 3C AD 4H 6H KH");
        assert_eq!(score_grid(Layout::Nine, &column, 0.0), 11.0);
        let none = cards("4C 4D 5H AS KS 3C AD 6H KH");
        assert_eq!(score_grid(Layout::Nine, &none, 0.0), 24.0);
    }

    #[test]
    fn a_pair_in_a_column_of_the_six_card_grid_scores_nothing() {
        let grid = cards("QC 2D 7H QS 3C 8H");
        assert_eq!(score_grid(Layout::Six, &grid, 0.0), 20.0);
    }

    #[test]
    fn card_points_follow_the_seed() {
        let p = |t: &str| card_points(t.parse().expect("card"));
        assert_eq!(
            [p("AS"), p("7D"), p("TC"), p("JH"), p("QS"), p("KD")],
            [1, 7, 10, 10, 10, 0]
        );
        assert_eq!(card_points(Card::joker(0)), -2);
    }
}
