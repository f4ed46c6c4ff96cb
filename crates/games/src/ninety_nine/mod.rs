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
