//! `facedown party --game …` and `facedown play-local --game …`: a whole game of Ninety-Nine
//! among distrustful players, one process per player over TCP with Noise, every move announced
//! through the table and checked by every player ([`facedown::table_game`]).

use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::Context;
use facedown::table_game::{play_seat, play_seat_with, GameBackend, GameSpec, SeatReport};
use facedown_core::rng::Randomness;
use facedown_core::PartyId;
use facedown_games::ninety_nine::{Length, Variant};
use facedown_games::session::terminal::TerminalBot;
use facedown_games::session::Cheat;
use facedown_net::{Roster, StaticKeypair, TcpMesh, Timeouts};
use rand::rngs::OsRng;
use rand::RngCore;
use serde_json::{json, Value};

use super::children::{Children, Scratch};
use super::net::{read_pipe, write_setup, BackendArg, GameArgs, PartyArgs, PlayLocalArgs};
use super::output::{ms, CheckFailed, Doc, UsageError};
use super::table::Table;

/// The flags of a whole game (with `--game`).
#[derive(Debug, Default, clap::Args)]
pub struct SessionArgs {
    /// Play a whole game instead of a workload: `ninety-nine`, `golf` (nine rounds) or
    /// `devyatka` (one deal).
    #[arg(long, conflicts_with = "input")]
    pub game: Option<String>,
    /// The variant of Ninety-Nine (`facedown games rules ninety-nine`), or of Golf (`nine`,
    /// `six`), with `--game`.
    #[arg(long)]
    pub variant: Option<String>,
    /// Play this many deals instead of a game to 100 (Golf: rounds instead of nine), with
    /// `--game`.
    #[arg(long)]
    pub deals: Option<u32>,
    /// Make one player cheat once, with `--game`: PLAYER:KIND, KIND one of revoke, not-in-hand,
    /// false-bid, changed-bid, dummy (Golf: peek, not-his, discard-taken; Devyatka: false-pass,
    /// not-in-hand, not-playable).
    #[arg(long, value_name = "PLAYER:KIND")]
    pub cheat: Option<String>,
    /// Seat PLAYER is a person, with `--game`: his hand, the table and the legal moves are shown
    /// on standard error and his moves read from standard input (the other seats are bots).
    #[arg(long, value_name = "PLAYER")]
    pub interactive: Option<u16>,
    /// With `party --game … --backend ideal`: this process is the trusted table (the roster's
    /// last party), which deals and turns the cards and shows each player only his share.
    #[arg(long)]
    pub table: bool,
}

impl SessionArgs {
    /// Refuses the game flags when no `--game` is given (they do not apply to a workload).
    pub fn refuse_without_game(&self) -> anyhow::Result<()> {
        let stray = [
            ("--variant", self.variant.is_some()),
            ("--deals", self.deals.is_some()),
            ("--cheat", self.cheat.is_some()),
            ("--interactive", self.interactive.is_some()),
            ("--table", self.table),
        ];
        match stray.iter().find(|(_, given)| *given) {
            Some((flag, _)) => Err(usage(format!("{flag} applies to --game only"))),
            None => Ok(()),
        }
    }
}

fn usage(message: String) -> anyhow::Error {
    UsageError(message).into()
}

fn parse_cheat(s: &str) -> anyhow::Result<(PartyId, Cheat)> {
    let (who, kind) = s
        .split_once(':')
        .ok_or_else(|| usage(format!("--cheat takes PLAYER:KIND, not `{s}`")))?;
    let who: u16 = who
        .parse()
        .map_err(|_| usage(format!("--cheat: `{who}` is not a player number")))?;
    let kind = Cheat::from_name(kind).ok_or_else(|| {
        let names: Vec<&str> = Cheat::ALL.iter().map(|c| c.name()).collect();
        usage(format!(
            "--cheat: no cheat `{kind}` (one of {})",
            names.join(", ")
        ))
    })?;
    Ok((PartyId(who), kind))
}

/// The game `args` describe, at a table of `players` with `context` bound into its sessions.
fn game_spec(
    game: &GameArgs,
    players: usize,
    context: Vec<u8>,
    randomness: Randomness,
) -> anyhow::Result<GameSpec> {
    let s = &game.session;
    match s.game.as_deref() {
        Some("ninety-nine") => {}
        other => {
            return Err(usage(format!(
                "no game `{}`: give ninety-nine, golf or devyatka",
                other.unwrap_or("")
            )))
        }
    }
    let name = s.variant.as_deref().unwrap_or("revised");
    let variant = Variant::from_name(name)
        .ok_or_else(|| usage(format!("no Ninety-Nine variant `{name}`")))?;
    if variant.rules().players != players {
        return Err(usage(format!(
            "{variant} is for {} players, not {players}",
            variant.rules().players
        )));
    }
    let cheat = s.cheat.as_deref().map(parse_cheat).transpose()?;
    if let Some((p, _)) = cheat {
        if p.0 == 0 || usize::from(p.0) > players {
            return Err(usage(format!("--cheat: there is no {p}")));
        }
    }
    if let Some(p) = s
        .interactive
        .filter(|&p| p == 0 || usize::from(p) > players)
    {
        return Err(usage(format!("--interactive: there is no player {p}")));
    }
    if s.interactive.is_some() && s.interactive == cheat.map(|(p, _)| p.0) {
        return Err(usage(
            "--interactive and --cheat name the same seat: a person plays his own moves".into(),
        ));
    }
    let spec = GameSpec {
        backend: game.backend.game_backend(),
        variant,
        length: s.deals.map_or(Length::game(variant), Length::Deals),
        randomness,
        cheat,
        context,
        timeout: Duration::from_millis(game.timeout_ms),
    };
    spec.check().map_err(usage)?;
    Ok(spec)
}

fn parameters(game: &GameArgs, spec: &GameSpec) -> Value {
    json!({
        "game": "ninety-nine",
        "variant": spec.variant.name(),
        "backend": spec.backend.name(),
        "length": spec.length,
        "cheat": game.session.cheat,
        "interactive": game.session.interactive,
        "timeout_ms": game.timeout_ms,
    })
}

/// Where one party's randomness in a game comes from.
#[derive(Clone, Copy, Debug)]
pub(super) struct SeatSeed {
    /// `--seed`: every player draws from his stream of it, so each can compute every other's
    /// secrets — for reproducible runs, not for real play. Or else the party's own secret
    /// key: `--seed-key`, or drawn from the operating system when neither flag is given.
    pub randomness: Randomness,
    /// Whether the key was drawn here (it is then printed, so that the party can replay).
    pub drawn: bool,
}

impl SeatSeed {
    fn of(game: &GameArgs) -> SeatSeed {
        match (game.seed, game.seed_key) {
            (Some(seed), _) => SeatSeed {
                randomness: Randomness::Seed(seed),
                drawn: false,
            },
            (None, key) => {
                let drawn = key.is_none();
                let key = key.unwrap_or_else(|| {
                    let mut key = [0u8; 32];
                    OsRng.fill_bytes(&mut key);
                    key
                });
                SeatSeed {
                    randomness: Randomness::Key(key),
                    drawn,
                }
            }
        }
    }

    /// `doc` with `parameters` and the seed, or with an own key the parameter `own_key`
    /// (`true`) and `drawn_seed`: the key drawn here in hex (secret: it replays this party's
    /// choices with `--seed-key`), `null` for a replayed one.
    pub fn record(&self, doc: Doc, mut parameters: Value) -> Doc {
        let key = match self.randomness {
            Randomness::Seed(seed) => return doc.parameters(parameters).seed(seed),
            Randomness::Key(key) => key,
        };
        parameters["own_key"] = json!(true);
        parameters["drawn_seed"] = json!(self.drawn.then(|| hex::encode(key)));
        doc.parameters(parameters)
    }

    /// The line a party prints about its randomness.
    pub fn say(&self, me: PartyId) -> String {
        match (self.randomness, self.drawn) {
            (Randomness::Seed(seed), _) => format!(
                "player {}: seed {seed} (every player can compute every other's secrets from \
                 it: not for real play)",
                me.0
            ),
            (Randomness::Key(key), true) => format!(
                "player {}: randomness from the operating system, seed key {} (secret: it \
                 replays this player's choices with --seed-key)",
                me.0,
                hex::encode(key)
            ),
            (Randomness::Key(_), false) => {
                format!("player {}: randomness from the replayed --seed-key", me.0)
            }
        }
    }
}

/// The roster, this player and his randomness for `party --game …` (`--fault` is for
/// workloads).
pub(super) fn party_seat(args: &PartyArgs) -> anyhow::Result<(Roster, PartyId, SeatSeed)> {
    let roster = Roster::load(&args.roster)?;
    if args.fault.is_some() {
        return Err(usage(
            "--fault applies to workloads, not to --game (use --cheat)".into(),
        ));
    }
    Ok((roster, PartyId(args.id), SeatSeed::of(&args.game)))
}

/// The players of a game at `roster`: every party, but the last on the ideal table (the table
/// itself).
pub(super) fn game_players(game: &GameArgs, roster: &Roster) -> usize {
    match game.backend {
        BackendArg::Ideal => roster.players().saturating_sub(1),
        _ => roster.players(),
    }
}

/// This player's connections to every other player of the roster, over TCP with Noise.
pub(super) fn connect_seat(
    args: &PartyArgs,
    roster: &Roster,
    me: PartyId,
    timeout: Duration,
) -> anyhow::Result<TcpMesh> {
    let key = StaticKeypair::load(&args.key)?;
    let timeouts = Timeouts {
        connect: timeout,
        handshake: timeout.min(Duration::from_secs(5)),
        write: timeout,
    };
    let listener = TcpMesh::bind(roster, me)?;
    TcpMesh::connect(roster, me, &key, listener, timeouts)
        .with_context(|| format!("player {}: connecting", me.0))
}

/// Runs `facedown party --game …`: one player of a whole game.
pub fn party(args: PartyArgs) -> anyhow::Result<()> {
    if args.game.session.table {
        return super::party_table::serve(args);
    }
    if super::card_game::is_card_game(&args.game) {
        return super::card_game::party(args);
    }
    let (roster, me, seat) = party_seat(&args)?;
    let players = game_players(&args.game, &roster);
    let spec = game_spec(
        &args.game,
        players,
        roster.session.to_vec(),
        seat.randomness,
    )?;
    let mut mesh = connect_seat(&args, &roster, me, spec.timeout)?;
    let report = if args.game.session.interactive == Some(me.0) {
        let bot = TerminalBot::new(std::io::stdin().lock(), std::io::stderr());
        play_seat_with(&mut mesh, &spec, Box::new(bot))
    } else {
        play_seat(&mut mesh, &spec)
    }
    .with_context(|| format!("player {}", me.0))?;
    drop(mesh);
    if args.game.json {
        seat.record(Doc::new("party"), parameters(&args.game, &spec))
            .print(&report)?;
    } else {
        println!("{}", seat.say(me));
        print_seat(&report);
    }
    match report.game.verdict.offender {
        Some(p) => Err(CheckFailed(format!("player {}: {p} cheated", me.0)).into()),
        None => Ok(()),
    }
}

fn print_seat(r: &SeatReport) {
    let v = &r.game.verdict;
    let verdict = match (&v.offender, &v.reason) {
        (Some(p), Some(why)) => format!("{p} BLAMED: {why}"),
        (Some(p), None) => format!("{p} BLAMED"),
        _ => "every move checked, every hand audited, nobody blamed".to_owned(),
    };
    let totals = r.game.standing.as_ref().map(|s| format!("{:?}", s.totals));
    println!(
        "player {}: {} hands | totals {} | {verdict}",
        r.player,
        r.game.hands.len(),
        totals.unwrap_or_else(|| "(no standing)".into())
    );
}

pub(super) fn spawn_players(
    args: &PlayLocalArgs,
    seed: u64,
    dir: &Scratch,
) -> anyhow::Result<(Children, Vec<ChildPipes>)> {
    let ideal = args.game.backend == BackendArg::Ideal;
    let roster = write_setup(dir.path(), args.players + usize::from(ideal))?;
    let exe = std::env::current_exe().context("cannot find the facedown executable")?;
    let mut children = Children::default();
    let mut pipes = Vec::new();
    let s = &args.game.session;
    for j in 1..=args.players + usize::from(ideal) {
        let mut cmd =
            super::net::party_command(&exe, &roster, dir.path(), j, args.game.backend.name());
        cmd.arg("--game")
            .arg(s.game.as_deref().unwrap_or_default())
            .arg("--timeout-ms")
            .arg(args.game.timeout_ms.to_string())
            .arg("--seed")
            .arg(seed.to_string())
            .arg("--json")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if j > args.players {
            cmd.arg("--table");
            let child = children.spawn(cmd, "the table")?;
            pipes.push((
                read_pipe(child.stdout.take()),
                read_pipe(child.stderr.take()),
            ));
            continue;
        }
        for (flag, value) in [
            ("--variant", s.variant.clone()),
            ("--deals", s.deals.map(|d| d.to_string())),
            ("--cheat", s.cheat.clone()),
            ("--interactive", s.interactive.map(|p| p.to_string())),
        ] {
            if let Some(v) = value {
                cmd.arg(flag).arg(v);
            }
        }
        let person = s.interactive == Some(j as u16);
        if person {
            // The person's seat shows the table on this terminal.
            cmd.stderr(Stdio::inherit());
        }
        let child = children.spawn(cmd, &format!("player {j}"))?;
        if person {
            forward_stdin(child.stdin.take());
        }
        pipes.push((
            read_pipe(child.stdout.take()),
            read_pipe(child.stderr.take()),
        ));
    }
    Ok((children, pipes))
}

/// Copies this process's standard input to the person's seat: his moves. When it ends, or
/// when `play-local` does, the seat's input closes and its bot plays on.
fn forward_stdin(pipe: Option<std::process::ChildStdin>) {
    if let Some(mut pipe) = pipe {
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut pipe);
        });
    }
}

pub(super) type ChildPipes = (
    std::thread::JoinHandle<String>,
    std::thread::JoinHandle<String>,
);

/// What the processes of a local game printed: each player's JSON view, the last line of the
/// error of each that printed none, and the table process's report (on the ideal table).
pub(super) struct Printed {
    pub views: Vec<Value>,
    pub errors: Vec<Value>,
    pub table: Value,
}

/// Waits (at most an hour from `start`) for every process of a local game — the players, then
/// the table process when `table` — and reads what each printed.
pub(super) fn gather(
    mut children: Children,
    pipes: Vec<ChildPipes>,
    start: Instant,
    table: bool,
) -> anyhow::Result<Printed> {
    let deadline = start + Duration::from_secs(3600);
    let mut status = vec![None; pipes.len()];
    while status.iter().any(Option::is_none) && Instant::now() < deadline {
        for (j, c) in children.0.iter_mut().enumerate() {
            if status[j].is_none() {
                status[j] = c.try_wait().context("waiting for a player")?;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(children);
    let players = pipes.len() - usize::from(table);
    let mut printed = Printed {
        views: Vec::new(),
        errors: Vec::new(),
        table: Value::Null,
    };
    for (j, (out, err)) in pipes.into_iter().enumerate() {
        let (out, err) = (
            out.join().unwrap_or_default(),
            err.join().unwrap_or_default(),
        );
        let who = if j < players {
            json!(j + 1)
        } else {
            json!("table")
        };
        match serde_json::from_str::<Value>(&out) {
            Ok(v) if j < players => printed.views.push(v),
            Ok(v) => printed.table = v,
            Err(_) => printed.errors.push(json!({
                "player": who,
                "error": err.trim().lines().last().unwrap_or("").to_owned(),
            })),
        }
    }
    Ok(printed)
}

/// Refuses the flags of `play-local --game` that do not apply: `--fault` (for workloads) and
/// `--table` (for `party`: `play-local` starts the table itself).
pub(super) fn refuse_local_flags(args: &PlayLocalArgs) -> anyhow::Result<()> {
    if args.fault.is_some() {
        return Err(usage(
            "--fault applies to workloads, not to --game (use --cheat)".into(),
        ));
    }
    if args.game.session.table {
        return Err(usage(
            "--table applies to party: play-local --backend ideal starts the table process itself"
                .into(),
        ));
    }
    Ok(())
}

/// Runs `facedown play-local --game …`: one process per player on 127.0.0.1.
pub fn play_local(args: PlayLocalArgs) -> anyhow::Result<()> {
    if super::card_game::is_card_game(&args.game) {
        return super::card_game::play_local(args);
    }
    refuse_local_flags(&args)?;
    let seed_drawn = args.game.seed.is_none();
    let seed = args.game.seed.unwrap_or_else(|| OsRng.next_u64() >> 11);
    let spec = game_spec(&args.game, args.players, Vec::new(), Randomness::Seed(seed))?;
    let dir = Scratch::new("play-local-game")?;
    let start = Instant::now();
    let (children, pipes) = spawn_players(&args, seed, &dir)?;
    let ideal = spec.backend == GameBackend::Ideal;
    let Printed {
        views,
        errors,
        table,
    } = gather(children, pipes, start, ideal)?;
    let wall = start.elapsed();
    let tally = Tally::of(&views, &table);
    let hands = views
        .first()
        .and_then(|v| v["game"]["hands"].as_array())
        .map_or(0, Vec::len);
    let tricks: u64 = views
        .first()
        .and_then(|v| v["game"]["hands"].as_array())
        .map_or(0, |h| h.iter().filter_map(|x| x["tricks"].as_u64()).sum());
    let body = json!({
        "game": "ninety-nine",
        "variant": spec.variant.name(),
        "backend": spec.backend.name(),
        "players": args.players,
        "seed": seed,
        "seed_drawn": seed_drawn,
        "views": views,
        "errors": errors,
        "table": table,
        "agreed": tally.agreed,
        "offender": tally.offender,
        "hands": hands,
        "tricks": tricks,
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

/// What the players' views of one game say together: their verdicts and their summed cost.
pub(super) struct Tally {
    offenders: Vec<Value>,
    /// Whether every player blames the same player (or nobody).
    pub agreed: bool,
    /// The player the first view blames (`null` for nobody).
    pub offender: Value,
    /// Messages and bytes summed over the players; rounds, the most any player saw.
    pub cost: Value,
}

impl Tally {
    /// The tally of `views` (each a player's JSON document) and of the table process's report
    /// (`null` but on the ideal table), whose cost counts with the players'.
    pub(super) fn of(views: &[Value], table: &Value) -> Tally {
        let offenders: Vec<Value> = views
            .iter()
            .map(|v| v["game"]["verdict"]["offender"].clone())
            .collect();
        let all = || views.iter().chain(Some(table));
        let sum = |key: &str| -> u64 { all().filter_map(|v| v["cost"][key].as_u64()).sum() };
        let rounds = all()
            .filter_map(|v| v["cost"]["rounds"].as_u64())
            .max()
            .unwrap_or(0);
        Tally {
            agreed: offenders.windows(2).all(|w| w[0] == w[1]),
            offender: offenders.first().cloned().unwrap_or(Value::Null),
            offenders,
            cost: json!({"messages": sum("messages"), "bytes": sum("bytes"), "rounds": rounds}),
        }
    }

    /// The command's outcome: an error when a player failed or the verdicts differ, a failed
    /// check (exit 3) when someone was named.
    pub(super) fn status(&self, errors: &[Value]) -> anyhow::Result<()> {
        if !errors.is_empty() {
            anyhow::bail!(
                "{} of {} players failed",
                errors.len(),
                self.offenders.len() + errors.len()
            );
        }
        if !self.agreed {
            anyhow::bail!("the players' verdicts differ: {:?}", self.offenders);
        }
        if !self.offender.is_null() {
            let offender = &self.offender;
            return Err(CheckFailed(format!("player {offender} cheated and was named")).into());
        }
        Ok(())
    }
}

fn print_table(args: &PlayLocalArgs, body: &Value, views: &[Value]) {
    println!(
        "{} players as {} processes on 127.0.0.1, {} backend, Ninety-Nine {}, seed {}: {} hands, {} tricks",
        args.players,
        args.players + usize::from(!body["table"].is_null()),
        body["backend"].as_str().unwrap_or(""),
        body["variant"].as_str().unwrap_or(""),
        body["seed"],
        body["hands"],
        body["tricks"]
    );
    for v in views {
        let verdict = &v["game"]["verdict"];
        println!(
            "player {}: {}",
            v["player"],
            match verdict["offender"].as_u64() {
                Some(p) => format!(
                    "player {p} BLAMED: {}",
                    verdict["reason"].as_str().unwrap_or("")
                ),
                None => "nobody blamed".to_owned(),
            }
        );
    }
    let mut t = Table::new(&["player", "messages", "bytes", "rounds", "wall ms"])
        .right_aligned([1, 2, 3, 4]);
    for v in views {
        t.row(vec![
            v["player"].to_string(),
            v["cost"]["messages"].to_string(),
            v["cost"]["bytes"].to_string(),
            v["cost"]["rounds"].to_string(),
            format!("{:.0}", v["wall_ms"].as_f64().unwrap_or(0.0)),
        ]);
    }
    let table = &body["table"];
    if !table.is_null() {
        t.row(vec![
            "table".into(),
            table["cost"]["messages"].to_string(),
            table["cost"]["bytes"].to_string(),
            table["cost"]["rounds"].to_string(),
            format!("{:.0}", table["wall_ms"].as_f64().unwrap_or(0.0)),
        ]);
    }
    t.row(vec![
        "total".into(),
        body["cost"]["messages"].to_string(),
        body["cost"]["bytes"].to_string(),
        body["cost"]["rounds"].to_string(),
        format!("{:.0}", body["wall_ms"].as_f64().unwrap_or(0.0)),
    ]);
    t.print(args.format());
}
