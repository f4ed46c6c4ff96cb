//! The games of the facedown seed documents: rules engines, bots and exact solvers.
//!
//! Every game is a [`game::Game`]: a state built from its setup (the rules and the deal), the
//! moves legal for the player to move, what each player sees, and a replayable move log whose
//! [`game::audit`] names the first player who broke a rule. Moves name cards by identity, so
//! a table of distrustful players can check each one against what its author held.
//!
//! * [`cards`]: playing cards named by identity, in the two-character format (`QH`, `TD`);
//! * [`game`]: the game trait, the log, the rule audit, bots and a driver;
//! * [`chopsticks`]: the hand game as the `(p, r)` game with the seed's variants, its
//!   retrograde solution and its position counts;
//! * [`devyatka`]: Девятка (Codeforces 1769D2), its exact solver and the importance of the
//!   first move;
//! * [`ninety_nine`]: David Parlett's Ninety-Nine in the fourteen variants of the seeds, with a
//!   heuristic bot, and deals in series (a game to 100, a rubber) with their audit;
//! * [`golf`]: Golf with nine or six cards, one or more decks and Jokers, a greedy bot and the
//!   nine-round game;
//! * [`record`]: a saved log (any game), read strictly for the audit;
//! * [`claims`]: every numeric claim of the seeds, recomputed, with a verdict;
//! * [`session`]: whole games among distrustful players, one session per player over his view
//!   of a face-down table, with every move checked and the hand audited.
//!
//! This crate has no cryptography: its sessions run on any [`facedown_core::table::FaceDownTable`],
//! and the backends (the dealer, the encrypted deck) are given to them from outside.

pub mod cards;
pub mod chopsticks;
pub mod claims;
pub mod devyatka;
pub mod game;
pub mod golf;
pub mod ninety_nine;
pub mod record;
pub mod session;
