//! Whole games among distrustful players, played on a face-down table.
//!
//! A session is **one player's** state machine over his own view of a [`FaceDownTable`](facedown_core::table::FaceDownTable): the
//! ideal table ([`ideal::IdealHub`], one view per player), or a backend's engine for this
//! player alone (the dealer, the encrypted deck) driven over a channel. It holds only what that
//! player was shown. The game's cards are table positions:
//!
//! | the game | the table |
//! |---|---|
//! | a deal | the pack placed, shuffled, each hand opened to its owner only |
//! | playing a card | its owner names one of his positions ([`announce`]); it is turned for all |
//! | bid cards laid aside | the owner names three positions; they stay face down |
//! | a claim | the bid positions named at the bid are turned (no others) |
//! | a premium, the dummy | the positions the rules show are turned for everyone |
//! | the end of a hand | every position still face down is turned: the rule audit |
//!
//! Every move is announced through the table, so every player hears the same one. Each honest
//! player checks it **at once** against what is public: it is the announcer's turn, the
//! position he names is his, the bid cards he opens are the ones he laid aside — and the rules
//! engine replays the whole public record on a completion of the unseen cards that respects
//! every void shown so far ([`ninety_nine`]), so a revoke is caught as soon as a card he held
//! appears. At the end of each hand the rule audit opens every card and replays the log with
//! [`crate::game::audit`], which names the first offender. Only public information decides
//! whether a hand stops, so every player, the cheater included, stops at the same step.
//!
//! On a table whose capabilities offer the legal-play check ([`ninety_nine::proves_legal_play`]:
//! the encrypted deck's zero-knowledge proof, the ideal table's own check), a player who does
//! not follow suit proves at once that he holds none of the suit led, and a revoke is caught in
//! the trick it is made; on the dealer, which cannot, the completion check and the end audit
//! decide.

pub mod announce;
pub mod devyatka;
pub mod golf;
pub mod ideal;
pub mod ideal_table;
pub mod ninety_nine;
pub mod row;
pub mod terminal;

use facedown_core::PartyId;
use serde::{Deserialize, Serialize};

use crate::game::{Bot, Game};

/// One player of a game's session: who he is, who chooses his moves, and the one cheat he
/// tries (`C`, the game's kinds of cheat), if any. Each game's module names its own
/// (`ninety_nine::Seat`, `golf::Seat`, `devyatka::Seat`).
pub struct Seat<'b, G: Game, C> {
    /// This player.
    pub me: PartyId,
    /// Who chooses his moves.
    pub bot: Box<dyn Bot<G> + 'b>,
    /// The cheat he tries, once, if any.
    pub cheat: Option<C>,
    /// Whether he has tried it.
    pub cheated: bool,
}

impl<G: Game, C: Copy> Seat<'_, G, C> {
    /// The cheat to try at this move, if any. A cheat the bot `asked` for during the game
    /// (the classroom's cheat button) replaces the planned one and may be tried even after it.
    pub fn cheat_to_try(&mut self, asked: Option<C>) -> Option<C> {
        if let Some(kind) = asked {
            (self.cheat, self.cheated) = (Some(kind), false);
        }
        self.cheat.filter(|_| !self.cheated)
    }
}

/// A way to cheat that a test or the command line makes one player try, once, at the first
/// opportunity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cheat {
    /// Not following suit while holding the suit led.
    Revoke,
    /// Naming a position that is not in his hand.
    NotInHand,
    /// Claiming a made bid that was not made.
    FalseBid,
    /// Opening other cards at a claim than the ones laid aside as the bid.
    ChangedBid,
    /// Playing the dummy's cards against the rules (a revoke from the face-up dummy).
    Dummy,
}

impl Cheat {
    /// Every kind, in the order of the command line's help.
    pub const ALL: [Cheat; 5] = [
        Cheat::Revoke,
        Cheat::NotInHand,
        Cheat::FalseBid,
        Cheat::ChangedBid,
        Cheat::Dummy,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Cheat::Revoke => "revoke",
            Cheat::NotInHand => "not-in-hand",
            Cheat::FalseBid => "false-bid",
            Cheat::ChangedBid => "changed-bid",
            Cheat::Dummy => "dummy",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<Cheat> {
        Cheat::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Who, if anyone, a hand's checks blame, and why.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// The player blamed.
    pub offender: Option<PartyId>,
    /// What he did.
    pub reason: Option<String>,
    /// Whether it was caught during play (otherwise by the end-of-hand audit).
    pub at_play_time: bool,
}

impl Verdict {
    /// Nobody blamed.
    pub fn clean(&self) -> bool {
        self.offender.is_none()
    }
}

/// Why a session could not go on (a cheat caught is not an error: it is a [`Verdict`]).
#[derive(Debug, thiserror::Error)]
pub enum SessionError<E: std::error::Error + 'static> {
    /// The table failed; its error names whom the backend blames.
    #[error(transparent)]
    Table(E),
    /// The rules or the deal are unusable.
    #[error(transparent)]
    Setup(#[from] crate::game::SetupError),
    /// The table showed something no honest table shows (a card that is not in the pack,
    /// one card at two positions, an opening that differs from what this player was shown).
    #[error("the table is inconsistent: {0}")]
    Inconsistent(String),
    /// The player's own bot gave no move (a defect of the bot).
    #[error("{0} has no move to make")]
    NoMove(PartyId),
}

impl<E: std::error::Error + 'static> From<announce::AnnounceError<E>> for SessionError<E> {
    fn from(e: announce::AnnounceError<E>) -> Self {
        match e {
            announce::AnnounceError::Table(e) => SessionError::Table(e),
            other => SessionError::Inconsistent(other.to_string()),
        }
    }
}
