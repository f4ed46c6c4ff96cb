//! The game trait, the move log and the rule audit.
//!
//! Every game of this crate is a [`Game`]: a state built from a [`Game::Setup`] (the rules and
//! the deal — all the hidden information there is), a player to move, the moves legal for him,
//! what each player sees ([`Game::view`]) and, once finished, an outcome. A move's legality is
//! decided from the full state alone, so a [`Log`] — the setup and the moves with their authors —
//! can be replayed by anyone who learns the setup at the end of the game, and [`audit`] names
//! the **first** player whose move broke a rule. That is the check a table of distrustful players
//! runs after a hand, when every card has been opened: a revoke, a card that was not in the
//! player's hand, a pass while able to play, a false claim of a made bid.
//!
//! Bots ([`Bot`]) see only their player's view and the legal moves, never the full state.

use core::fmt;

use facedown_core::PartyId;
use rand::seq::SliceRandom;
use rand::RngCore;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// A turn-based game with hidden information.
pub trait Game: Clone + fmt::Debug + Sized {
    /// The rules and the deal: everything fixed before the first move.
    type Setup: Clone + fmt::Debug + Serialize + DeserializeOwned;
    /// A move. Moves name cards by identity.
    type Move: Clone + fmt::Debug + PartialEq + Serialize + DeserializeOwned;
    /// What one player sees.
    type View: Clone + fmt::Debug + Serialize;
    /// The result of a finished game.
    type Outcome: Clone + fmt::Debug + Serialize;
    /// Why a move is illegal.
    type Illegal: std::error::Error + Clone + PartialEq + Serialize;

    /// The game's name in logs and on the command line.
    const NAME: &'static str;

    /// The state before the first move, or why the setup is unusable.
    fn start(setup: &Self::Setup) -> Result<Self, SetupError>;

    /// The setup this game started from.
    fn setup(&self) -> &Self::Setup;

    /// Number of players (people making moves; a dummy hand is not one).
    fn players(&self) -> usize;

    /// The player who must move now, `None` once the game is over.
    fn to_move(&self) -> Option<PartyId>;

    /// Every move the player to move may make (empty once the game is over).
    fn legal_moves(&self) -> Vec<Self::Move>;

    /// Plays `mv` for the player to move. An illegal move is refused and leaves the state as it
    /// was.
    fn play(&mut self, mv: &Self::Move) -> Result<(), Self::Illegal>;

    /// What `player` sees now.
    fn view(&self, player: PartyId) -> Self::View;

    /// The outcome, once the game is over.
    fn outcome(&self) -> Option<Self::Outcome>;

    /// Whether `mv` is legal now, without playing it.
    fn check(&self, mv: &Self::Move) -> Result<(), Self::Illegal> {
        self.clone().play(mv)
    }
}

/// A setup that cannot start a game: wrong number of players, a deck that is not the pack, …
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("invalid setup: {0}")]
pub struct SetupError(pub String);

/// One move of a log and the player who made it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry<M> {
    /// Who made the move.
    pub by: PartyId,
    /// The move.
    #[serde(rename = "move")]
    pub mv: M,
}

/// The state a replay reached and the first offence, if any.
pub type Replayed<G> = (G, Option<Offence<<G as Game>::Illegal>>);

/// A replayable record of a game: its setup and every move with its author.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Log<G: Game> {
    /// [`Game::NAME`].
    pub game: String,
    /// The rules and the deal.
    pub setup: G::Setup,
    /// The moves in order.
    pub moves: Vec<Entry<G::Move>>,
}

impl<G: Game> Log<G> {
    /// An empty log of a game started from `setup`.
    pub fn new(setup: G::Setup) -> Self {
        Log {
            game: G::NAME.to_string(),
            setup,
            moves: Vec::new(),
        }
    }

    /// Replays the log up to the first rule break: the state reached, and the offence if any.
    pub fn replay(&self) -> Result<Replayed<G>, SetupError> {
        let mut game = G::start(&self.setup)?;
        for (index, entry) in self.moves.iter().enumerate() {
            let expected = game.to_move();
            if expected != Some(entry.by) {
                let fault = Fault::OutOfTurn { expected };
                return Ok((game, Some(Offence::new(index, entry.by, fault))));
            }
            if let Err(why) = game.play(&entry.mv) {
                let fault = Fault::Illegal(why);
                return Ok((game, Some(Offence::new(index, entry.by, fault))));
            }
        }
        Ok((game, None))
    }
}

/// What the first offender did.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault<I> {
    /// He moved when it was not his turn (`expected` is whose it was; `None` after the end).
    OutOfTurn {
        /// Who was to move.
        expected: Option<PartyId>,
    },
    /// His move broke a rule.
    Illegal(I),
    /// The log ends while it is his turn: he never made his move.
    Stalled,
}

/// The first rule break of a log: where, who, and what.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Offence<I> {
    /// Index of the move in the log (the log's length for [`Fault::Stalled`]).
    pub index: usize,
    /// The offender.
    pub by: PartyId,
    /// What he did.
    pub fault: Fault<I>,
}

impl<I> Offence<I> {
    fn new(index: usize, by: PartyId, fault: Fault<I>) -> Self {
        Offence { index, by, fault }
    }
}

impl<I: fmt::Display> fmt::Display for Offence<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.fault {
            Fault::OutOfTurn {
                expected: Some(who),
            } => write!(
                f,
                "move {}: {} moved out of turn ({who} was to move)",
                self.index, self.by
            ),
            Fault::OutOfTurn { expected: None } => {
                write!(f, "move {}: {} moved after the end", self.index, self.by)
            }
            Fault::Illegal(why) => write!(f, "move {}: {} {why}", self.index, self.by),
            Fault::Stalled => write!(f, "the log ends while {} is to move", self.by),
        }
    }
}

/// The verdict of the rule audit on a finished log.
#[derive(Clone, Debug, Serialize)]
#[serde(bound = "")]
pub struct Audit<G: Game> {
    /// Moves replayed.
    pub moves: usize,
    /// The first rule break, or the player who stalled an unfinished game.
    pub offence: Option<Offence<G::Illegal>>,
    /// The outcome, when the whole log was legal and the game is over.
    pub outcome: Option<G::Outcome>,
}

impl<G: Game> Audit<G> {
    /// True when every move was legal and the game is over.
    pub fn passed(&self) -> bool {
        self.offence.is_none() && self.outcome.is_some()
    }

    /// The player the audit blames, if any.
    pub fn offender(&self) -> Option<PartyId> {
        self.offence.as_ref().map(|o| o.by)
    }
}

/// Replays a finished log and names the first player who broke a rule: one who moved out of
/// turn, made an illegal move, or (when the log stops before the end) whose move is missing.
pub fn audit<G: Game>(log: &Log<G>) -> Result<Audit<G>, SetupError> {
    if log.game != G::NAME {
        return Err(SetupError(format!(
            "the log is of `{}`, not `{}`",
            log.game,
            G::NAME
        )));
    }
    let (game, offence) = log.replay()?;
    let offence = offence.or_else(|| {
        game.to_move()
            .map(|by| Offence::new(log.moves.len(), by, Fault::Stalled))
    });
    let outcome = if offence.is_none() {
        game.outcome()
    } else {
        None
    };
    Ok(Audit {
        moves: log.moves.len(),
        offence,
        outcome,
    })
}

/// A player that chooses moves from its own view.
pub trait Bot<G: Game> {
    /// The bot's name (for logs and the command line).
    fn name(&self) -> &str;

    /// A move among `legal` (never empty), chosen from what the player sees.
    fn choose(&mut self, view: &G::View, legal: &[G::Move], rng: &mut dyn RngCore) -> G::Move;

    /// A cheat this bot's player decides on during the game (the classroom's cheat button),
    /// handed over once: a session asks before each of the player's moves and tries it at its
    /// first chance. Honest bots never cheat.
    fn cheat(&mut self) -> Option<crate::session::Cheat> {
        None
    }

    /// The same for a game whose cheats are asked for by name (Golf's
    /// [`GolfCheat`](crate::session::golf::GolfCheat), Девятка's
    /// [`DevyatkaCheat`](crate::session::devyatka::DevyatkaCheat)), so that one bot can sit at
    /// either: a name the game does not know is ignored.
    fn cheat_named(&mut self) -> Option<&'static str> {
        None
    }
}

/// Chooses uniformly among the legal moves.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomBot;

impl<G: Game> Bot<G> for RandomBot {
    fn name(&self) -> &str {
        "random"
    }

    fn choose(&mut self, _view: &G::View, legal: &[G::Move], rng: &mut dyn RngCore) -> G::Move {
        // `legal` is never empty (the driver only asks a player who has a move).
        legal
            .choose(rng)
            .cloned()
            .unwrap_or_else(|| legal[0].clone())
    }
}

/// Why a driven game could not be played to the end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// The setup is unusable.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// Fewer bots than players.
    #[error("{players} players need {players} bots, got {bots}")]
    Bots {
        /// Players of the game.
        players: usize,
        /// Bots given.
        bots: usize,
    },
    /// A bot chose a move outside the legal moves.
    #[error("the bot of {player} chose an illegal move: {reason}")]
    BotMove {
        /// The player.
        player: PartyId,
        /// Why the move is illegal.
        reason: String,
    },
    /// The player to move has no legal move (a defect of the rules engine).
    #[error("{0} is to move but has no legal move")]
    NoMove(PartyId),
    /// The game did not end within the move limit.
    #[error("the game did not end within {0} moves")]
    TooLong(usize),
}

/// Plays a game from `setup` to the end, `bots[i]` moving for player `i + 1`, and returns its
/// log. At most `max_moves` moves are made.
pub fn play_out<G: Game>(
    setup: G::Setup,
    bots: &mut [Box<dyn Bot<G> + '_>],
    max_moves: usize,
    rng: &mut dyn RngCore,
) -> Result<(Log<G>, G), PlayError> {
    let mut game = G::start(&setup)?;
    if bots.len() < game.players() {
        return Err(PlayError::Bots {
            players: game.players(),
            bots: bots.len(),
        });
    }
    let mut log = Log::new(setup);
    while let Some(player) = game.to_move() {
        if log.moves.len() >= max_moves {
            return Err(PlayError::TooLong(max_moves));
        }
        let legal = game.legal_moves();
        if legal.is_empty() {
            return Err(PlayError::NoMove(player));
        }
        let view = game.view(player);
        let mv = bots[player.index()].choose(&view, &legal, rng);
        game.play(&mv).map_err(|why| PlayError::BotMove {
            player,
            reason: why.to_string(),
        })?;
        log.moves.push(Entry { by: player, mv });
    }
    Ok((log, game))
}
