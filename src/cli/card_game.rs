//! `facedown party --game golf|devyatka` and `facedown play-local --game golf|devyatka`: a
//! whole game of Golf or a deal of Девятка among distrustful players, one process per player
//! over TCP with Noise ([`facedown::table_golf_devyatka`]). The flags and the processes are
//! those of Ninety-Nine ([`super::game_session`]); `--variant six` plays the six-card Golf and
//! `--deals N` plays N rounds of Golf instead of nine.

use std::time::{Duration, Instant};

use anyhow::Context;
use facedown::table_game::GameBackend;
use facedown::table_golf_devyatka::{play_seat, CardCheat, CardGame, CardGameSpec, CardSeatReport};
use facedown_core::rng::Randomness;
use facedown_core::PartyId;
use facedown_games::golf::Rules;
use rand::rngs::OsRng;
use rand::RngCore;
use serde_json::{json, Value};

use super::children::Scratch;
use super::net::{GameArgs, PartyArgs, PlayLocalArgs};
use super::output::{ms, CheckFailed, Doc, UsageError};
use super::table::Table;

fn usage(message: String) -> anyhow::Error {
    UsageError(message).into()
}

/// Whether `game` asks for Golf or Девятка (the games of this module).
pub fn is_card_game(game: &GameArgs) -> bool {
    matches!(game.session.game.as_deref(), Some("golf" | "devyatka"))
}

fn card_game(game: &GameArgs, players: usize) -> anyhow::Result<CardGame> {
    let s = &game.session;
    if s.game.as_deref() == Some("devyatka") {
        if let Some(flag) = [
            ("--variant", s.variant.is_some()),
            ("--deals", s.deals.is_some()),
        ]
        .iter()
        .find_map(|(f, given)| given.then_some(f))
        {
            return Err(usage(format!(
                "{flag} does not apply to devyatka (one deal)"
            )));
        }
        return Ok(CardGame::Devyatka);
    }
    let n = u8::try_from(players)
        .ok()
        .filter(|n| (2..=8).contains(n))
        .ok_or_else(|| usage(format!("Golf is for 2 to 8 players, not {players}")))?;
    let mut rules = match s.variant.as_deref() {
        None | Some("nine") => Rules::nine(n),
        Some("six") => Rules::six(n),
        Some(other) => return Err(usage(format!("no Golf variant `{other}` (nine or six)"))),
    };
    if let Some(d) = s.deals {
        rules.rounds = u8::try_from(d)
            .ok()
            .filter(|&r| r > 0)
            .ok_or_else(|| usage(format!("--deals {d}: Golf plays 1 to 255 rounds")))?;
    }
    Ok(CardGame::Golf(rules))
}

fn parse_cheat(game: CardGame, s: &str, players: usize) -> anyhow::Result<(PartyId, CardCheat)> {
    let (who, kind) = s
        .split_once(':')
        .ok_or_else(|| usage(format!("--cheat takes PLAYER:KIND, not `{s}`")))?;
    let who: u16 = who
        .parse()
        .ok()
        .filter(|&p| p >= 1 && usize::from(p) <= players)
        .ok_or_else(|| usage(format!("--cheat: there is no player `{who}`")))?;
    let cheat = CardCheat::of(game, kind).ok_or_else(|| {
        let names = CardCheat::names(game).join(", ");
        usage(format!(
            "--cheat: {} has no cheat `{kind}` (one of {names})",
            game.name()
        ))
    })?;
    Ok((PartyId(who), cheat))
}

fn spec(
    game: &GameArgs,
    players: usize,
    context: Vec<u8>,
    randomness: Randomness,
) -> anyhow::Result<CardGameSpec> {
    let which = card_game(game, players)?;
    let cheat = game
        .session
        .cheat
        .as_deref()
        .map(|c| parse_cheat(which, c, players))
        .transpose()?;
    let spec = CardGameSpec {
        backend: game.backend.game_backend(),
        game: which,
        players,
        randomness,
        cheat,
        context,
        timeout: Duration::from_millis(game.timeout_ms),
    };
    spec.check().map_err(usage)?;
    Ok(spec)
}

fn parameters(game: &GameArgs, spec: &CardGameSpec) -> Value {
    json!({
        "game": spec.game.name(),
        "rules": spec.game,
        "backend": spec.backend.name(),
        "cheat": game.session.cheat,
        "timeout_ms": game.timeout_ms,
    })
}

/// Runs `facedown party --game golf|devyatka`: one player.
pub fn party(args: PartyArgs) -> anyhow::Result<()> {
    let (roster, me, seat) = super::game_session::party_seat(&args)?;
    let players = super::game_session::game_players(&args.game, &roster);
    let spec = spec(
        &args.game,
        players,
        roster.session.to_vec(),
        seat.randomness,
    )?;
    let mut mesh = super::game_session::connect_seat(&args, &roster, me, spec.timeout)?;
    let report = play_seat(&mut mesh, &spec).with_context(|| format!("player {}", me.0))?;
    drop(mesh);
    if args.game.json {
        seat.record(Doc::new("party"), parameters(&args.game, &spec))
            .print(&report)?;
    } else {
        println!("{}", seat.say(me));
        print_seat(&report);
    }
    match report.game.verdict().offender {
        Some(p) => Err(CheckFailed(format!("player {}: {p} cheated", me.0)).into()),
        None => Ok(()),
    }
}

fn print_seat(r: &CardSeatReport) {
    let v = r.game.verdict();
    let verdict = match (&v.offender, &v.reason) {
        (Some(p), why) => format!("{p} BLAMED: {}", why.as_deref().unwrap_or("")),
        _ => "every move checked, every round audited, nobody blamed".to_owned(),
    };
    println!("player {}: {verdict}", r.player);
}

/// Runs `facedown play-local --game golf|devyatka`: one process per player on 127.0.0.1.
pub fn play_local(args: PlayLocalArgs) -> anyhow::Result<()> {
    super::game_session::refuse_local_flags(&args)?;
    let seed_drawn = args.game.seed.is_none();
    let seed = args.game.seed.unwrap_or_else(|| OsRng.next_u64() >> 11);
    let spec = spec(&args.game, args.players, Vec::new(), Randomness::Seed(seed))?;
    let dir = Scratch::new("play-local-card-game")?;
    let start = Instant::now();
    let (children, pipes) = super::game_session::spawn_players(&args, seed, &dir)?;
    let ideal = spec.backend == GameBackend::Ideal;
    let super::game_session::Printed {
        views,
        errors,
        table,
    } = super::game_session::gather(children, pipes, start, ideal)?;
    let wall = start.elapsed();
    let tally = super::game_session::Tally::of(&views, &table);
    let first = views.first();
    let deals = first
        .and_then(|v| v["game"]["rounds"].as_array())
        .map_or(1, Vec::len);
    let moves: usize = match first.and_then(|v| v["game"]["rounds"].as_array()) {
        Some(rs) => rs
            .iter()
            .filter_map(|r| r["said"].as_array())
            .map(Vec::len)
            .sum(),
        None => first
            .and_then(|v| v["game"]["said"].as_array())
            .map_or(0, Vec::len),
    };
    let body = json!({
        "game": spec.game.name(),
        "backend": spec.backend.name(),
        "guarantees": spec.guarantees(),
        "players": args.players,
        "seed": seed,
        "seed_drawn": seed_drawn,
        "views": views,
        "errors": errors,
        "table": table,
        "agreed": tally.agreed,
        "offender": tally.offender,
        "deals": deals,
        "moves": moves,
        "cost": tally.cost,
        "wall_ms": ms(wall),
    });
    if args.game.json {
        Doc::new("play-local")
            .parameters(parameters(&args.game, &spec))
            .seed(seed)
            .print(&body)?;
    } else {
        print_table(&args, &body, &views);
    }
    tally.status(&errors)
}

fn print_table(args: &PlayLocalArgs, body: &Value, views: &[Value]) {
    println!(
        "{} players as {} processes on 127.0.0.1, {} backend, {}, seed {}: {} deals, {} moves",
        args.players,
        args.players + usize::from(!body["table"].is_null()),
        body["backend"].as_str().unwrap_or(""),
        body["game"].as_str().unwrap_or(""),
        body["seed"],
        body["deals"],
        body["moves"],
    );
    let mut t = Table::new(&[
        "player", "verdict", "messages", "bytes", "rounds", "wall ms",
    ])
    .right_aligned([2, 3, 4, 5]);
    for v in views {
        let verdict = &v["game"]["verdict"];
        t.row(vec![
            v["player"].to_string(),
            match verdict["offender"].as_u64() {
                Some(p) => format!(
                    "player {p} BLAMED: {}",
                    verdict["reason"].as_str().unwrap_or("")
                ),
                None => "nobody blamed".to_owned(),
            },
            v["cost"]["messages"].to_string(),
            v["cost"]["bytes"].to_string(),
            v["cost"]["rounds"].to_string(),
            format!("{:.0}", v["wall_ms"].as_f64().unwrap_or(0.0)),
        ]);
    }
    t.print(args.format());
}
