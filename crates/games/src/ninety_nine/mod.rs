//! Ninety-Nine, David Parlett's trick-taking game of exact bids (1967, revised 1990).
//!
//! Each player lays three of his cards aside, face down, as his *bid*: their suits count ♦ 0,
//! ♠ 1, ♥ 2, ♣ 3, and the sum is the number of tricks he undertakes to win, no more and no
//! fewer. He plays the other cards to tricks (follow suit if you can; the highest trump, else
//! the highest card of the suit led, wins). A player may bid a *premium*: *declare* (bid cards
//! face up from the start, +30 if made) or *reveal* (his whole hand face up too, +60); a failed
//! premium goes to each opponent instead. At the end, whoever made his bid *claims* by showing
//! his bid cards; whoever failed may keep them hidden. A deal scores a point per trick and a
//! contract bonus that is larger the fewer players made theirs; a game is 100.
//!
//! * [`variant`]: the fourteen variants of the seeds (three, four, five and two players, with and
//!   without dummy, the classic Joker game, Junk Joker, Declared, Eighteen Ninety-Nine, Long
//!   Ninety-Nine) as rule switches;
//! * [`bid`]: bid cards and what their numbers mean;
//! * [`premium`]: the premium auction and its priority rule;
//! * [`trick`]: following suit and the winner of a trick;
//! * [`state`]: one deal as a [`Game`](crate::game::Game) — [`NinetyNine`];
//! * [`score`]: the score of a deal and the trump it fixes for the next;
//! * [`series`]: deals in series (nine deals, a game to 100, a rubber) and their audit;
//! * [`bots`]: a heuristic player after the strategy notes of Parlett's page.

/// The rules in brief (this crate's words), for `facedown games rules ninety-nine`.
pub const RULES: &str = "\
Ninety-Nine (David Parlett), three players with the revised rules; other variants below.

Deal: 12 cards each from 36 (A K Q J T 9 8 7 6 in four suits); deal and lead pass to the left.
Bid: each player lays 3 cards aside face down; their suits count diamonds 0, spades 1,
  hearts 2, clubs 3, and the sum (0-9) is the exact number of tricks he must take with the
  other 9 cards.
Premiums: a player may declare (bid cards face up; +30 if made) or reveal (hand face up too;
  +60). Only one per deal: reveal beats declare, then the player nearest the dealer's left.
  A failed premium goes to each opponent.
Trumps: none in the first deal; then by how many made their bid in the previous deal:
  3 clubs, 2 hearts, 1 spades, 0 diamonds.
Play: follow suit if you can; the highest trump, else the highest card of the suit led, wins;
  the winner leads.
Claims: whoever made his bid shows his bid cards; the others may keep theirs hidden.
Score: 1 per trick; for a made bid 30 if alone, 20 each if two, 10 each if all three; premiums.
  A game is 100 (a bonus of 100 to whoever reaches it); a rubber is three games.
";

pub mod bid;
pub mod bots;
pub mod premium;
pub mod score;
pub mod series;
pub mod state;
pub mod trick;
pub mod variant;

pub use bots::HeuristicBot;
pub use premium::Offer;
pub use series::{audit_series, play_series, Length, SeriesLog, Standing};
pub use state::{Illegal, Move, NinetyNine, Outcome, Phase, Setup, View};
pub use variant::{Rules, Scoring, Trump, Variant};
