//! The games the room offers — Ninety-Nine, Golf and Девятка — each one [`Offer`]: how a new
//! game's body becomes its table, how its players are seated (the CLI's own game, the student's
//! seat the page's), how the page's move is read, and what its result says beyond the
//! verdicts. A backend is one more value of [`GameBackend`]: whatever the game's spec accepts
//! the room plays, and what it refuses the room refuses with the spec's reason.

use std::ops::RangeInclusive;
use std::sync::Arc;
use std::time::Duration;

use facedown::core::rng::Randomness;
use facedown::core::PartyId;
use facedown::games::game::Bot;
use facedown::games::golf::Rules;
use facedown::games::ninety_nine::{HeuristicBot, Length, NinetyNine, Variant};
use facedown::games::session::Cheat;
use facedown::games::{devyatka, golf};
use facedown::table_game::{play_threads_with, GameBackend, GameError, GameSpec};
use facedown::table_golf_devyatka::{self as card, CardBot, CardGame, CardGameSpec};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::desk::{Asked, Desk, Logged, Seat};
use crate::cli::serve::http::Refusal;

/// Most deals of a Ninety-Nine game in the room.
pub const MAX_DEALS: u32 = 8;
/// Players at a table of Golf or Девятка.
pub const CARD_PLAYERS: RangeInclusive<usize> = 2..=4;
/// Players at a table of Golf or Девятка unless the body says otherwise.
const DEFAULT_PLAYERS: usize = 3;
/// The game names, in the chooser's order.
pub const GAMES: [&str; 3] = ["ninety-nine", "golf", "devyatka"];

/// What a new game is: `POST /api/game/new`'s body. `variant`, `deals` and `players` apply to
/// some games only.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    game: String,
    backend: String,
    #[serde(default)]
    seed: u64,
    variant: Option<String>,
    deals: Option<u32>,
    players: Option<usize>,
}

/// One game the room offers, with one table's parameters.
pub trait Offer: Send + Sync {
    /// The game's name in a body.
    fn name(&self) -> &'static str;
    /// The table it is played on.
    fn backend(&self) -> GameBackend;
    /// The seed every player's randomness derives from.
    fn seed(&self) -> u64;
    /// Players at the table.
    fn players(&self) -> usize;
    /// The parameters of the game's documents.
    fn parameters(&self) -> Value;
    /// The names of the game's cheats.
    fn cheat_names(&self) -> Vec<&'static str>;
    /// Whether `spec` can be played, or why not (the game's own check).
    fn check(&self) -> Result<(), String>;
    /// Where in `asked.legal` the page's move `mv` is.
    fn legal_index(&self, mv: Value, asked: &Asked) -> Result<usize, Refusal>;
    /// Plays the whole game at `desk`, every wait at most `timeout`: each player's report.
    fn play(&self, desk: &Arc<Desk>, timeout: Duration) -> Vec<Result<Value, GameError>>;
    /// What the first player's report says of the game beyond the verdicts.
    fn tally(&self, first: &Value) -> Value;
}

/// The game a new game's `body` asks for, checked.
pub fn offer(body: &str) -> Result<Box<dyn Offer>, Refusal> {
    let new: NewGame = json_body(body)?;
    let backend = GameBackend::ALL
        .into_iter()
        .find(|b| b.name() == new.backend)
        .ok_or_else(|| {
            let names: Vec<&str> = GameBackend::ALL.iter().map(|b| b.name()).collect();
            Refusal::bad(format!(
                "no backend `{}`: one of {}",
                new.backend,
                names.join(", ")
            ))
        })?;
    let offer: Box<dyn Offer> = match new.game.as_str() {
        "ninety-nine" => Box::new(NinetyNineTable::of(&new, backend)?),
        "golf" | "devyatka" => Box::new(CardTable::of(&new, backend)?),
        other => {
            return Err(Refusal::bad(format!(
                "no game `{other}`: one of {}",
                GAMES.join(", ")
            )))
        }
    };
    offer.check().map_err(|m| Refusal::new(422, m))?;
    Ok(offer)
}

/// `GET /api/game/offers`: each game with its players, deals, variants, cheats, and each
/// backend with whether it hosts the game (and why not), for the page's chooser.
pub fn offers() -> Value {
    let games: Vec<Value> = GAMES
        .iter()
        .map(|&game| {
            let backends: Vec<Value> = GameBackend::ALL
                .iter()
                .map(|b| {
                    let body = format!(r#"{{"game": "{game}", "backend": "{}"}}"#, b.name());
                    let refused = offer(&body).err().map(|r| r.error["message"].clone());
                    json!({ "name": b.name(), "refused": refused })
                })
                .collect();
            let cheats = offer(&format!(r#"{{"game": "{game}", "backend": "ideal"}}"#))
                .map(|o| o.cheat_names())
                .unwrap_or_default();
            json!({
                "name": game,
                "cheats": cheats,
                "backends": backends,
                "players": match game {
                    "ninety-nine" => json!(null),
                    _ => json!({ "min": CARD_PLAYERS.start(), "max": CARD_PLAYERS.end(), "default": DEFAULT_PLAYERS }),
                },
                "deals": match game {
                    "ninety-nine" => json!({ "min": 1, "max": MAX_DEALS, "default": 1 }),
                    "golf" => json!({ "min": 1, "max": Rules::nine(2).rounds, "default": Rules::nine(2).rounds }),
                    _ => json!(null),
                },
                "variants": match game {
                    "ninety-nine" => Variant::ALL.iter().map(|v| v.name()).collect::<Vec<_>>(),
                    _ => Vec::new(),
                },
            })
        })
        .collect();
    json!({ "games": games })
}

pub fn json_body<T: DeserializeOwned>(body: &str) -> Result<T, Refusal> {
    serde_json::from_str(body)
        .map_err(|e| Refusal::bad(format!("the body is not the JSON this call takes: {e}")))
}

fn not_for(field: &str, game: &str, why: &str) -> Refusal {
    Refusal::bad(format!("`{field}` does not apply to {game} ({why})"))
}

/// Where among the legal moves asked the page's `mv` is, read as the game's move `M`.
fn index_of<M: DeserializeOwned + Serialize + std::fmt::Display>(
    mv: Value,
    asked: &Asked,
) -> Result<usize, Refusal> {
    let mv: M = serde_json::from_value(mv)
        .map_err(|e| Refusal::bad(format!("the body is not the JSON this call takes: {e}")))?;
    let value = serde_json::to_value(&mv).unwrap_or(Value::Null);
    asked.legal.iter().position(|l| *l == value).ok_or_else(|| {
        const SHOWN: usize = 12;
        let mut listed: Vec<&str> = asked
            .legal_text
            .iter()
            .take(SHOWN)
            .map(String::as_str)
            .collect();
        if asked.legal_text.len() > SHOWN {
            listed.push("…");
        }
        Refusal::new(
            422,
            format!(
                "{mv} is not a legal move now; the legal moves are {}",
                listed.join(", ")
            ),
        )
    })
}

fn reports<R: Serialize>(played: Vec<Result<R, GameError>>) -> Vec<Result<Value, GameError>> {
    played
        .into_iter()
        .map(|r| r.map(|report| serde_json::to_value(report).unwrap_or(Value::Null)))
        .collect()
}

/// What `play-local --game … --json` says of a game, from every player's report: each view,
/// the errors, whether the verdicts agree, the offender, the summed cost, and the game's own
/// tally.
pub fn summary(offer: &dyn Offer, reports: &[Result<Value, GameError>]) -> Value {
    let views: Vec<&Value> = reports.iter().filter_map(|r| r.as_ref().ok()).collect();
    let errors: Vec<Value> = reports
        .iter()
        .enumerate()
        .filter_map(|(j, r)| {
            r.as_ref()
                .err()
                .map(|e| json!({ "player": j + 1, "error": e }))
        })
        .collect();
    let offenders: Vec<&Value> = views
        .iter()
        .map(|v| &v["game"]["verdict"]["offender"])
        .collect();
    let sum = |field: &str| -> u64 { views.iter().filter_map(|v| v["cost"][field].as_u64()).sum() };
    let mut body = json!({
        "views": views,
        "errors": errors,
        "agreed": offenders.windows(2).all(|w| w[0] == w[1]),
        "offender": offenders.first().copied().cloned().unwrap_or(Value::Null),
        "cost": {
            "messages": sum("messages"),
            "bytes": sum("bytes"),
            "rounds": views.iter().filter_map(|v| v["cost"]["rounds"].as_u64()).max().unwrap_or(0),
        },
    });
    if let (Some(first), Value::Object(fields)) = (views.first(), &mut body) {
        if let Value::Object(tally) = offer.tally(first) {
            fields.extend(tally);
        }
    }
    body
}

/// A table of Ninety-Nine: `play-local --game ninety-nine --variant V --deals D --seed S`
/// without a cheat (the room's cheats are pressed during play).
struct NinetyNineTable {
    variant: Variant,
    backend: GameBackend,
    seed: u64,
    deals: u32,
}

impl NinetyNineTable {
    fn of(new: &NewGame, backend: GameBackend) -> Result<Self, Refusal> {
        let name = new.variant.as_deref().unwrap_or("revised");
        let variant = Variant::from_name(name)
            .ok_or_else(|| Refusal::bad(format!("no Ninety-Nine variant `{name}`")))?;
        if new.players.is_some() {
            return Err(not_for(
                "players",
                "ninety-nine",
                "its variant seats the table",
            ));
        }
        let deals = new.deals.unwrap_or(1);
        if !(1..=MAX_DEALS).contains(&deals) {
            return Err(Refusal::bad(format!(
                "`deals` must be between 1 and {MAX_DEALS}, got {deals}"
            )));
        }
        Ok(NinetyNineTable {
            variant,
            backend,
            seed: new.seed,
            deals,
        })
    }

    fn spec(&self, timeout: Duration) -> GameSpec {
        GameSpec {
            backend: self.backend,
            variant: self.variant,
            length: Length::Deals(self.deals),
            randomness: Randomness::Seed(self.seed),
            cheat: None,
            context: Vec::new(),
            timeout,
        }
    }
}

impl Offer for NinetyNineTable {
    fn name(&self) -> &'static str {
        "ninety-nine"
    }

    fn backend(&self) -> GameBackend {
        self.backend
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    fn players(&self) -> usize {
        self.variant.rules().players
    }

    fn parameters(&self) -> Value {
        json!({
            "game": self.name(), "variant": self.variant.name(), "backend": self.backend.name(),
            "deals": self.deals,
        })
    }

    fn cheat_names(&self) -> Vec<&'static str> {
        Cheat::ALL.iter().map(|c| c.name()).collect()
    }

    fn check(&self) -> Result<(), String> {
        self.spec(Duration::ZERO).check()
    }

    fn legal_index(&self, mv: Value, asked: &Asked) -> Result<usize, Refusal> {
        index_of::<facedown::games::ninety_nine::Move>(mv, asked)
    }

    fn play(&self, desk: &Arc<Desk>, timeout: Duration) -> Vec<Result<Value, GameError>> {
        let at = Arc::clone(desk);
        let bots = move |me: PartyId| -> Box<dyn Bot<NinetyNine> + Send> {
            Box::new(Seat::at(me, &at, Box::new(HeuristicBot)))
        };
        reports(play_threads_with(
            &self.spec(timeout),
            &bots,
            Logged::at(desk),
        ))
    }

    fn tally(&self, first: &Value) -> Value {
        let hands = first["game"]["hands"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        json!({
            "hands": hands.len(),
            "tricks": hands.iter().filter_map(|h| h["tricks"].as_u64()).sum::<u64>(),
        })
    }
}

/// A table of Golf or Девятка: `play-local --game golf|devyatka --players N [--deals R]
/// --seed S` without a cheat.
struct CardTable {
    spec: CardGameSpec,
    seed: u64,
}

impl CardTable {
    fn of(new: &NewGame, backend: GameBackend) -> Result<Self, Refusal> {
        let players = new.players.unwrap_or(DEFAULT_PLAYERS);
        if !CARD_PLAYERS.contains(&players) {
            return Err(Refusal::bad(format!(
                "`players` must be between {} and {}, got {players}",
                CARD_PLAYERS.start(),
                CARD_PLAYERS.end()
            )));
        }
        let game = match new.game.as_str() {
            "golf" => CardGame::Golf(golf_rules(new, players)?),
            _ => {
                if new.variant.is_some() {
                    return Err(not_for("variant", "devyatka", "it has one"));
                }
                if new.deals.is_some_and(|d| d != 1) {
                    return Err(not_for("deals", "devyatka", "a game is one deal"));
                }
                CardGame::Devyatka
            }
        };
        Ok(CardTable {
            spec: CardGameSpec {
                backend,
                game,
                players,
                randomness: Randomness::Seed(new.seed),
                cheat: None,
                context: Vec::new(),
                timeout: Duration::ZERO,
            },
            seed: new.seed,
        })
    }
}

/// The nine-card game for `players`, of `deals` rounds (nine unless told).
fn golf_rules(new: &NewGame, players: usize) -> Result<Rules, Refusal> {
    if new.variant.as_deref().is_some_and(|v| v != "nine") {
        return Err(Refusal::bad(
            "the room plays the nine-card Golf only (`variant` nine)",
        ));
    }
    let mut rules = Rules::nine(players as u8);
    let rounds = new.deals.unwrap_or(u32::from(rules.rounds));
    if !(1..=u32::from(rules.rounds)).contains(&rounds) {
        return Err(Refusal::bad(format!(
            "`deals` (Golf's rounds) must be between 1 and {}, got {rounds}",
            rules.rounds
        )));
    }
    rules.rounds = rounds as u8;
    Ok(rules)
}

impl Offer for CardTable {
    fn name(&self) -> &'static str {
        self.spec.game.name()
    }

    fn backend(&self) -> GameBackend {
        self.spec.backend
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    fn players(&self) -> usize {
        self.spec.players
    }

    fn parameters(&self) -> Value {
        json!({
            "game": self.name(), "rules": self.spec.game, "backend": self.spec.backend.name(),
            "players": self.spec.players,
        })
    }

    fn cheat_names(&self) -> Vec<&'static str> {
        card::CardCheat::names(self.spec.game)
    }

    fn check(&self) -> Result<(), String> {
        self.spec.check()
    }

    fn legal_index(&self, mv: Value, asked: &Asked) -> Result<usize, Refusal> {
        match self.spec.game {
            CardGame::Golf(_) => index_of::<golf::Move>(mv, asked),
            CardGame::Devyatka => index_of::<devyatka::Move>(mv, asked),
        }
    }

    fn play(&self, desk: &Arc<Desk>, timeout: Duration) -> Vec<Result<Value, GameError>> {
        let (at, game) = (Arc::clone(desk), self.spec.game);
        let bots = move |me: PartyId| match CardBot::default_for(game) {
            CardBot::Golf(bot) => CardBot::Golf(Box::new(Seat::at(me, &at, bot))),
            CardBot::Devyatka(bot) => CardBot::Devyatka(Box::new(Seat::at(me, &at, bot))),
        };
        let spec = CardGameSpec {
            timeout,
            ..self.spec.clone()
        };
        reports(card::play_threads_with(&spec, &bots, Logged::at(desk)))
    }

    fn tally(&self, first: &Value) -> Value {
        let game = &first["game"];
        match self.spec.game {
            CardGame::Golf(_) => {
                let rounds = game["rounds"].as_array().map_or(&[][..], Vec::as_slice);
                json!({
                    "rounds": rounds.len(),
                    "scores": rounds.iter().map(|r| r["outcome"]["scores"].clone()).collect::<Vec<_>>(),
                    "totals": game["result"]["totals"],
                    "winner": game["result"]["winner"],
                })
            }
            CardGame::Devyatka => json!({
                "moves": game["said"].as_array().map_or(0, Vec::len),
                "winner": game["outcome"]["winner"],
                "holds": game["outcome"]["holds"],
            }),
        }
    }
}
