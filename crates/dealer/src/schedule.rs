//! Research schedules: which positions are opened, to whom, along which route and in which
//! phase, read from a small TOML file and checked against a scheme.
//!
//! ```toml
//! [[phase]]
//! name = "hands"
//! open = [
//!   { position = 0, to = 1 },                    # the scheme's first route to player 1
//!   { position = 1, to = 1, route = "F3/G3" },   # a chosen helper pair
//!   { position = 2, to = 3 },
//! ]
//!
//! [[phase]]
//! name = "flop"
//! public = [3, 4, 5]
//!
//! [[phase]]
//! name = "showdown"
//! showdown = [1]         # player 1's private positions so far, opened to everyone
//! ```
//!
//! Each phase runs as one parallel batch, in file order. A position may be opened more than
//! once: publicly after it went to one player (a showdown), or again to the same player. It
//! may not be opened privately to a second player — one face-down card cannot sit in two
//! hands — and that is a [`ScheduleError::SecondHand`] naming the position. Every error
//! carries the line of the file it is about.

use std::collections::BTreeMap;

use facedown_core::PartyId;
use rand::{CryptoRng, RngCore};
use serde::Deserialize;

use crate::driver::{Game, Table};
use crate::error::DealerError;
use crate::player::{Deviation, Learned};
use crate::scheme::{Route, Scheme};

/// Largest schedule file read (bytes).
pub const MAX_SCHEDULE_BYTES: u64 = 1 << 20;
/// Most openings a schedule may make (each is a chain of `N` signed messages).
pub const MAX_SCHEDULE_OPENINGS: usize = 1 << 14;

/// A schedule file that cannot be used, with the line (1-based) it is about.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// Not TOML, or not the shape of a schedule (an unknown key, a wrong type).
    #[error("line {line}: {message}")]
    Syntax {
        /// The line of the error (1 when the parser gives no position).
        line: usize,
        /// What the parser said.
        message: String,
    },
    /// A position outside the deck.
    #[error("line {line}: position {position} is outside the deck 0..{cards}")]
    Position {
        /// The line.
        line: usize,
        /// The position.
        position: usize,
        /// Deck size.
        cards: usize,
    },
    /// A player who is not at the table.
    #[error("line {line}: there is no player {player} among players 1..={players}")]
    Player {
        /// The line.
        line: usize,
        /// The player number written.
        player: u64,
        /// Number of players.
        players: usize,
    },
    /// The scheme has no private path to the player (player 2 in the published scheme).
    #[error("line {line}: position {position}: the scheme has no private opening path to player {player}")]
    NoPath {
        /// The line.
        line: usize,
        /// The position.
        position: usize,
        /// The player.
        player: u16,
    },
    /// A route that does not exist, or that delivers to someone else.
    #[error("line {line}: position {position}: {reason}")]
    Route {
        /// The line.
        line: usize,
        /// The position.
        position: usize,
        /// What is wrong with the route.
        reason: String,
    },
    /// A position opened privately to a second player.
    #[error("line {line}: position {position} already went privately to player {first}; it cannot also go privately to player {second}")]
    SecondHand {
        /// The line of the second opening.
        line: usize,
        /// The position.
        position: usize,
        /// Who received it first.
        first: u16,
        /// Who would receive it second.
        second: u16,
    },
    /// More openings than [`MAX_SCHEDULE_OPENINGS`].
    #[error("line {line}: more than {MAX_SCHEDULE_OPENINGS} openings")]
    TooLong {
        /// The line where the limit was passed.
        line: usize,
    },
}

/// One opening of a schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scheduled {
    /// The position opened.
    pub position: usize,
    /// The route.
    pub route: Route,
    /// Who learns the card (`None`: everyone).
    pub to: Option<PartyId>,
}

/// One phase: openings run in parallel as one batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchedulePhase {
    /// The phase's name (it names the batch in the cost table).
    pub name: String,
    /// Its openings.
    pub openings: Vec<Scheduled>,
}

/// A checked schedule: every position in the deck, every route delivering to its player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealSchedule {
    /// The phases, in order.
    pub phases: Vec<SchedulePhase>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    phase: Vec<toml::Spanned<PhaseFile>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PhaseFile {
    name: String,
    #[serde(default)]
    open: Vec<toml::Spanned<OpenFile>>,
    #[serde(default)]
    public: Vec<toml::Spanned<u64>>,
    #[serde(default)]
    showdown: Vec<toml::Spanned<u64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenFile {
    position: u64,
    to: u64,
    route: Option<String>,
}

/// The 1-based line of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()
        .get(..at.min(text.len()))
        .map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
        + 1
}

/// The route to `to` named `name` (`"C3/D3"` or `"D3/C3"`, `"direct"` for the last player),
/// or the scheme's first route to him.
fn route_to(scheme: &Scheme, to: PartyId, name: Option<&str>) -> Result<Route, String> {
    let Some(name) = name else {
        return scheme
            .private_route(to)
            .map_err(|_| format!("no private path to player {}", to.0));
    };
    let route = if name == "direct" {
        Route::Direct
    } else {
        let k = scheme
            .pairs
            .iter()
            .position(|p| {
                name == format!("{}/{}", p.outer_name, p.inner_name)
                    || name == format!("{}/{}", p.inner_name, p.outer_name)
            })
            .ok_or_else(|| {
                let names: Vec<String> = scheme
                    .pairs
                    .iter()
                    .map(|p| format!("{}/{}", p.inner_name, p.outer_name))
                    .collect();
                format!(
                    "no route {name:?} in this scheme (routes: direct, {})",
                    names.join(", ")
                )
            })?;
        Route::Helper(k as u16)
    };
    let learner = match route {
        Route::Helper(k) => scheme.pairs[usize::from(k)].outer_holder,
        _ => scheme.last(),
    };
    if learner != to {
        return Err(format!(
            "route {name} delivers to player {}, not player {}",
            learner.0, to.0
        ));
    }
    Ok(route)
}

/// Checks openings one by one, remembering who holds each position privately.
struct Checker<'a> {
    scheme: &'a Scheme,
    text: &'a str,
    private: BTreeMap<usize, PartyId>,
    count: usize,
}

impl Checker<'_> {
    fn position(&self, line: usize, position: u64) -> Result<usize, ScheduleError> {
        usize::try_from(position)
            .ok()
            .filter(|&i| i < self.scheme.cards)
            .ok_or(ScheduleError::Position {
                line,
                position: usize::try_from(position).unwrap_or(usize::MAX),
                cards: self.scheme.cards,
            })
    }

    fn player(&self, line: usize, player: u64) -> Result<PartyId, ScheduleError> {
        u16::try_from(player)
            .ok()
            .filter(|&p| p >= 1 && usize::from(p) <= self.scheme.players)
            .map(PartyId)
            .ok_or(ScheduleError::Player {
                line,
                player,
                players: self.scheme.players,
            })
    }

    fn count(&mut self, line: usize) -> Result<(), ScheduleError> {
        self.count += 1;
        if self.count > MAX_SCHEDULE_OPENINGS {
            return Err(ScheduleError::TooLong { line });
        }
        Ok(())
    }

    fn private(&mut self, open: &toml::Spanned<OpenFile>) -> Result<Scheduled, ScheduleError> {
        let line = line_of(self.text, open.span().start);
        self.count(line)?;
        let o = open.get_ref();
        let position = self.position(line, o.position)?;
        let to = self.player(line, o.to)?;
        if o.route.is_none() && self.scheme.private_route(to).is_err() {
            return Err(ScheduleError::NoPath {
                line,
                position,
                player: to.0,
            });
        }
        let route = route_to(self.scheme, to, o.route.as_deref()).map_err(|reason| {
            ScheduleError::Route {
                line,
                position,
                reason,
            }
        })?;
        match self.private.insert(position, to) {
            Some(first) if first != to => Err(ScheduleError::SecondHand {
                line,
                position,
                first: first.0,
                second: to.0,
            }),
            _ => Ok(Scheduled {
                position,
                route,
                to: Some(to),
            }),
        }
    }

    fn public(&mut self, line: usize, position: usize) -> Result<Scheduled, ScheduleError> {
        self.count(line)?;
        Ok(Scheduled {
            position,
            route: Route::Public,
            to: None,
        })
    }

    fn phase(&mut self, p: &PhaseFile) -> Result<SchedulePhase, ScheduleError> {
        let mut openings = Vec::new();
        for open in &p.open {
            openings.push(self.private(open)?);
        }
        for i in &p.public {
            let line = line_of(self.text, i.span().start);
            let position = self.position(line, *i.get_ref())?;
            openings.push(self.public(line, position)?);
        }
        for who in &p.showdown {
            let line = line_of(self.text, who.span().start);
            let player = self.player(line, *who.get_ref())?;
            let held: Vec<usize> = self
                .private
                .iter()
                .filter(|(_, p)| **p == player)
                .map(|(i, _)| *i)
                .collect();
            for position in held {
                openings.push(self.public(line, position)?);
            }
        }
        Ok(SchedulePhase {
            name: p.name.clone(),
            openings,
        })
    }
}

impl DealSchedule {
    /// Reads a schedule file and checks it against `scheme`.
    pub fn from_toml(text: &str, scheme: &Scheme) -> Result<DealSchedule, ScheduleError> {
        let file: File = toml::from_str(text).map_err(|e| ScheduleError::Syntax {
            line: e.span().map_or(1, |s| line_of(text, s.start)),
            message: e.message().trim().to_owned(),
        })?;
        let mut checker = Checker {
            scheme,
            text,
            private: BTreeMap::new(),
            count: 0,
        };
        let phases = file
            .phase
            .iter()
            .map(|p| checker.phase(p.get_ref()))
            .collect::<Result<_, _>>()?;
        Ok(DealSchedule { phases })
    }

    /// Every opening, in phase order.
    pub fn openings(&self) -> impl Iterator<Item = &Scheduled> {
        self.phases.iter().flat_map(|p| p.openings.iter())
    }

    /// Plays the schedule with the in-memory driver (each phase one batch), then the audit.
    /// Player `cheat.0` deviates as `cheat.1`. Hands are what each player learned privately,
    /// in position order; the public cards are player 1's public openings in position order
    /// (a position opened publicly twice appears twice).
    pub fn play_with_rng<R: RngCore + CryptoRng + ?Sized>(
        &self,
        scheme: Scheme,
        cheat: Option<(PartyId, Deviation)>,
        rng: &mut R,
    ) -> Result<Game, DealerError> {
        let mut table = Table::setup_with_rng(scheme, cheat, rng)?;
        let mut aborted = Vec::new();
        let mut per_op = Vec::new();
        for phase in self.phases.iter().filter(|p| !p.openings.is_empty()) {
            let openings: Vec<(usize, Route)> = phase
                .openings
                .iter()
                .map(|o| (o.position, o.route))
                .collect();
            let batch = table.run(&phase.name, &openings)?;
            aborted.extend(batch.aborted);
            per_op.extend(batch.per_op);
        }
        let views = table.views();
        let sorted = |v: Vec<&Learned>| -> Vec<u16> {
            let mut v = v;
            v.sort_by_key(|l| (l.position, l.op));
            v.into_iter().map(|l| l.card).collect()
        };
        let hands = views
            .iter()
            .map(|v| sorted(v.learned.iter().filter(|l| !l.public).collect()))
            .collect();
        let public = views
            .first()
            .map(|v| sorted(v.learned.iter().filter(|l| l.public).collect()))
            .unwrap_or_default();
        Ok(Game {
            hands,
            public,
            finished: table.finish()?,
            aborted,
            per_op,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn published() -> Scheme {
        Scheme::published(8).expect("scheme")
    }

    #[test]
    fn a_showdown_opens_the_players_private_positions_publicly() {
        let text = "[[phase]]\nname = \"hands\"\nopen = [{ position = 0, to = 1 }, { position = 1, to = 1, route = \"F3/G3\" }, { position = 2, to = 3 }]\n\n[[phase]]\nname = \"showdown\"\nshowdown = [1]\n";
        let s = DealSchedule::from_toml(text, &published()).expect("schedule");
        assert_eq!(s.phases.len(), 2);
        assert_eq!(s.phases[0].openings[1].route, Route::Helper(1));
        let shown: Vec<usize> = s.phases[1].openings.iter().map(|o| o.position).collect();
        assert_eq!(shown, [0, 1]);
        assert!(s.phases[1]
            .openings
            .iter()
            .all(|o| o.route == Route::Public));
        let game = s
            .play_with_rng(published(), None, &mut facedown_core::rng::seeded_rng(5))
            .expect("game");
        assert!(game.finished.audit.passed, "{:?}", game.finished.audit);
        assert_eq!(game.hands[0].len(), 2);
        assert_eq!(
            game.public, game.hands[0],
            "the showdown shows player 1's hand"
        );
        assert_eq!(
            game.finished.phases.len(),
            4,
            "setup, hands, showdown, audit"
        );
    }

    #[test]
    fn errors_name_the_line_and_the_position() {
        let cases: [(&str, ScheduleError); 4] = [
            (
                "[[phase]]\nname = \"h\"\nopen = [{ position = 0, to = 1 },\n  { position = 0, to = 3 }]\n",
                ScheduleError::SecondHand { line: 4, position: 0, first: 1, second: 3 },
            ),
            (
                "[[phase]]\nname = \"h\"\nopen = [{ position = 3, to = 2 }]\n",
                ScheduleError::NoPath { line: 3, position: 3, player: 2 },
            ),
            (
                "[[phase]]\nname = \"h\"\n\npublic = [1, 99]\n",
                ScheduleError::Position { line: 4, position: 99, cards: 8 },
            ),
            (
                "[[phase]]\nname = \"h\"\nopen = [{ position = 3, to = 3, route = \"C3/D3\" }]\n",
                ScheduleError::Route {
                    line: 3,
                    position: 3,
                    reason: "route C3/D3 delivers to player 1, not player 3".into(),
                },
            ),
        ];
        for (text, want) in cases {
            assert_eq!(
                DealSchedule::from_toml(text, &published()),
                Err(want),
                "{text}"
            );
        }
        let bad = DealSchedule::from_toml("[[phase]]\nname = \"h\"\nflop = [1]\n", &published());
        assert!(
            matches!(bad, Err(ScheduleError::Syntax { line: 3, .. })),
            "{bad:?}"
        );
    }
}
