//! `facedown keygen`, `facedown party` and `facedown play-local`: players as separate
//! processes over TCP with Noise_KK (see the `facedown-net` crate), playing any workload — a
//! card protocol of the library, each input committed by its own player, or a deal — on
//! either backend ([`facedown::play`]).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::ValueEnum;
use facedown::play::{
    check_reports, merge_phases, play, player_rng, total_cost, Backend, GameSpec, PlayerReport,
};
use facedown::workload::{Outcome, Workload};
use facedown_core::PartyId;
use facedown_net::{Party, Roster, StaticKeypair, TcpMesh, Timeouts, WireFault};
use rand::rngs::OsRng;
use rand::RngCore;
use rand_chacha::ChaCha20Rng;
use serde_json::json;

use super::cards_text;
use super::children::{Children, Scratch};
use super::output::{ms, CheckFailed, Doc};
use super::table::{Format, Table};

/// Which protocol (command-line form).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// The permutation-sharing dealer (general scheme, N ≥ 3).
    Dealer,
    /// Barnett–Smart mental poker (N ≥ 2).
    Poker,
    /// The ideal table: a trusted table process, the roster's last party (whole games only).
    Ideal,
}

impl BackendArg {
    /// The name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            BackendArg::Dealer => "dealer",
            BackendArg::Poker => "poker",
            BackendArg::Ideal => "ideal",
        }
    }

    /// The table of a whole game (`--game`).
    pub fn game_backend(self) -> facedown::table_game::GameBackend {
        use facedown::table_game::GameBackend;
        match self {
            BackendArg::Dealer => GameBackend::Dealer,
            BackendArg::Poker => GameBackend::Poker,
            BackendArg::Ideal => GameBackend::Ideal,
        }
    }
}

/// A deliberate fault (hidden; for the fault tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
#[allow(clippy::enum_variant_names)] // the names say when, as the flag values do
pub enum FaultArg {
    /// Exit abruptly after the setup phase.
    ExitAfterSetup,
    /// Stop answering after the setup phase (sleep until killed).
    StallAfterSetup,
    /// Corrupt the first frame sent after the setup phase.
    CorruptAfterSetup,
    /// Replay the first frame sent after the setup phase.
    ReplayAfterSetup,
}

/// Arguments of `facedown keygen`.
#[derive(Debug, clap::Args)]
pub struct KeygenArgs {
    /// Write the key pair to FILE (mode 0600) and print only the public key; without it the
    /// whole key pair is printed.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// What `facedown party` and `facedown play-local` share: the game and its randomness.
#[derive(Debug, clap::Args)]
pub struct GameArgs {
    /// The protocol.
    #[arg(long, value_enum)]
    pub backend: BackendArg,
    /// What is played: a card protocol of the library (`facedown cards list`; input `k` is
    /// committed by player `k + 1`), `ninety-nine` or `poker52`.
    #[arg(long, required_unless_present = "game", conflicts_with = "game")]
    pub workload: Option<String>,
    /// A whole game among the players instead of a workload (see `docs/games.md`).
    #[command(flatten)]
    pub session: super::game_session::SessionArgs,
    /// Input bits of a card protocol, comma-separated (`1,0`): for `play-local` every input,
    /// first first; for `party` the bits of the inputs this player owns.
    #[arg(long, value_delimiter = ',', value_parser = parse_bit)]
    pub input: Vec<bool>,
    /// Seed: player `id`'s randomness is ChaCha20 stream `id` of the seed (reproducible runs,
    /// not for real play). Without it, `play-local` draws a seed from the operating system and
    /// prints it; `party` draws a 256-bit key from the operating system, prints it and records
    /// it (`drawn_seed`; `--seed-key` replays it).
    #[arg(long, conflicts_with = "seed_key")]
    pub seed: Option<u64>,
    /// Replay a `party`'s drawn 256-bit seed (64 hex digits, from its `drawn_seed`).
    #[arg(long, value_name = "HEX", value_parser = parse_seed_key)]
    pub seed_key: Option<[u8; 32]>,
    /// How long a player waits for any one message (and to connect) before giving up, in ms.
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Parses 64 hex digits into a 256-bit seed.
fn parse_seed_key(s: &str) -> Result<[u8; 32], String> {
    let bytes = hex::decode(s.trim()).map_err(|e| format!("`{s}`: {e}"))?;
    bytes
        .try_into()
        .map_err(|b: Vec<u8>| format!("a seed key is 32 bytes (64 hex digits), not {}", b.len()))
}

/// A `party`'s randomness: stream `id` of the seed, of the replayed key, or of a key freshly
/// drawn from the operating system (returned, so that it is printed and recorded).
fn party_randomness(game: &GameArgs, me: PartyId) -> (ChaCha20Rng, Option<[u8; 32]>) {
    if let Some(seed) = game.seed {
        return (player_rng(seed, me), None);
    }
    let (key, drawn) = match game.seed_key {
        Some(key) => (key, None),
        None => {
            let mut key = [0u8; 32];
            OsRng.fill_bytes(&mut key);
            (key, Some(key))
        }
    };
    (facedown_core::rng::key_stream(&key, u64::from(me.0)), drawn)
}

/// Parses an input bit: `0`, `1`, `false` or `true`.
fn parse_bit(s: &str) -> Result<bool, String> {
    match s.trim() {
        "0" | "false" => Ok(false),
        "1" | "true" => Ok(true),
        other => Err(format!("`{other}` is not an input bit (0 or 1)")),
    }
}

impl GameArgs {
    /// The game of `players` players in the roster session `roster_session`.
    fn spec(&self, players: usize, roster_session: [u8; 32]) -> anyhow::Result<GameSpec> {
        let workload = Workload::parse(self.workload.as_deref().unwrap_or_default())?;
        if players < workload.min_players() {
            bail!(
                "{} needs at least {} players, not {players}",
                workload.name(),
                workload.min_players()
            );
        }
        let backend =
            match self.backend {
                BackendArg::Dealer => Backend::Dealer,
                BackendArg::Poker => Backend::Poker,
                BackendArg::Ideal => return Err(super::output::UsageError(
                    "--backend ideal plays whole games (--game); a workload runs on the dealer \
                     or the encrypted deck"
                        .into(),
                )
                .into()),
            };
        if let Workload::Card { name, protocol } = &workload {
            if protocol.has_private_actions() {
                bail!("{name} has private operations, which no networked table performs yet (the analyzer and the tracer take it: `facedown cards analyze {name}`)");
            }
            if protocol.has_numbers() {
                bail!("{name} has number inputs (`x{{n}}`), and the tables commit bits (the analyzer and the simulator take it: `facedown cards simulate {name} --runs 1000`)");
            }
            if let Some(input) = protocol.one_card_input() {
                bail!("{name} lays input `{input}` on one card (`{input}[1]`), and the tables deal a deck of known cards, which that would change (the analyzer and the simulator take it: `facedown cards simulate {name} --runs 1000`)");
            }
        }
        if let Workload::Deal(d) = &workload {
            facedown_core::table::deal_opening(players, usize::from(d.cards), d.hand, d.public)?;
            if backend == Backend::Dealer && players < 3 {
                bail!("the dealer's deal needs at least 3 players, not {players}");
            }
        }
        Ok(GameSpec {
            backend,
            workload,
            players,
            context: roster_session.to_vec(),
            timeout: Duration::from_millis(self.timeout_ms),
        })
    }
}

/// Arguments of `facedown party`.
#[derive(Debug, clap::Args)]
pub struct PartyArgs {
    /// The roster (`parties.toml`: session, and id, address, public key of every player).
    #[arg(long, value_name = "FILE")]
    pub roster: PathBuf,
    /// This player's number in the roster.
    #[arg(long)]
    pub id: u16,
    /// This player's key file (from `facedown keygen --out`).
    #[arg(long, value_name = "FILE")]
    pub key: PathBuf,
    /// The game.
    #[command(flatten)]
    pub game: GameArgs,
    /// Misbehave on purpose (for the fault tests).
    #[arg(long, value_enum, hide = true)]
    pub fault: Option<FaultArg>,
}

/// Arguments of `facedown play-local`.
#[derive(Debug, clap::Args)]
pub struct PlayLocalArgs {
    /// Number of players (one process each).
    #[arg(long)]
    pub players: usize,
    /// The game (passed on to every player).
    #[command(flatten)]
    pub game: GameArgs,
    /// Make one player misbehave: PLAYER:FAULT (for the fault tests).
    #[arg(long, value_name = "PLAYER:FAULT", hide = true)]
    pub fault: Option<String>,
    /// Print the cost table as CSV.
    #[arg(long, conflicts_with_all = ["markdown", "json"])]
    pub csv: bool,
    /// Print the cost table as Markdown.
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
}

impl PlayLocalArgs {
    /// The cost table's format.
    pub fn format(&self) -> Format {
        Format::from_flags(self.csv, self.markdown)
    }
}

/// Runs `facedown keygen`.
pub fn keygen(args: KeygenArgs) -> anyhow::Result<()> {
    let kp = StaticKeypair::generate_with_rng(&mut OsRng);
    let public = hex::encode(kp.public);
    let signing = hex::encode(kp.signing_public());
    match &args.out {
        Some(path) => {
            kp.save(path)?;
            if args.json {
                Doc::new("keygen")
                    .parameters(json!({ "out": path.display().to_string() }))
                    .print(&json!({"public_key": public, "signing_key": signing,
                        "file": path.display().to_string()}))?;
            } else {
                // The player's two roster lines.
                println!("public_key = \"{public}\"\nsigning_key = \"{signing}\"");
            }
        }
        None => {
            if args.json {
                Doc::new("keygen")
                    .parameters(json!({ "out": null }))
                    .print(&json!({"public_key": public, "signing_key": signing,
                        "private_key": hex::encode(kp.private)}))?;
            } else {
                print!("{}", kp.to_toml());
            }
        }
    }
    Ok(())
}

/// Runs `facedown party`: one player.
pub fn party(args: PartyArgs) -> anyhow::Result<()> {
    if args.game.session.game.is_some() {
        return super::game_session::party(args);
    }
    args.game.session.refuse_without_game()?;
    let roster = Roster::load(&args.roster)?;
    let key = StaticKeypair::load(&args.key)?;
    let me = PartyId(args.id);
    let spec = args.game.spec(roster.players(), roster.session)?;
    let own = &args.game.input;
    let owned = spec.workload.owned_by(me).len();
    if own.len() != owned {
        bail!(
            "player {} owns {owned} input(s) of {}; --input gives {}",
            me.0,
            spec.workload.name(),
            own.len()
        );
    }
    let timeouts = Timeouts {
        connect: spec.timeout,
        handshake: spec.timeout.min(Duration::from_secs(5)),
        write: spec.timeout,
    };
    let listener = TcpMesh::bind(&roster, me)?;
    let mut mesh = TcpMesh::connect(&roster, me, &key, listener, timeouts)
        .with_context(|| format!("player {}: connecting", me.0))?;
    let (rng, drawn) = party_randomness(&args.game, me);
    let fault = args.fault;
    let mut after_setup = |mesh: &mut &mut TcpMesh| match fault {
        Some(FaultArg::ExitAfterSetup) => std::process::exit(1),
        Some(FaultArg::StallAfterSetup) => loop {
            std::thread::sleep(Duration::from_secs(3600));
        },
        Some(FaultArg::CorruptAfterSetup) => mesh.inject_fault(WireFault::Corrupt),
        Some(FaultArg::ReplayAfterSetup) => mesh.inject_fault(WireFault::Replay),
        None => {}
    };
    let report = match play(&mut mesh, &spec, own, rng, &mut after_setup) {
        Ok(report) => report,
        Err(e) => {
            if args.game.json {
                party_doc(&args, spec.workload.name()).print(&failure_json(&e))?;
            }
            return Err(anyhow::Error::new(e).context(format!("player {}", me.0)));
        }
    };
    drop(mesh);
    let drawn_seed = drawn.or(args.game.seed_key).map(hex::encode);
    if args.game.json {
        let mut body = serde_json::to_value(&report)?;
        body["seed"] = json!(args.game.seed);
        body["drawn_seed"] = json!(drawn_seed);
        body["claims"] = json!([]);
        party_doc(&args, spec.workload.name()).print(&body)?;
    } else {
        match (args.game.seed, &drawn_seed) {
            (Some(seed), _) => println!("player {}: seed {seed}", me.0),
            (None, Some(key)) => println!(
                "player {}: randomness from the operating system, seed key {key} (secret: it \
                 replays this player's choices with --seed-key)",
                me.0
            ),
            (None, None) => {}
        }
        print_view(&report);
        println!(
            "  sent: {} messages, {} bytes; rounds seen: {}; on the wire: {} frames, {} bytes",
            report.cost.messages,
            report.cost.bytes,
            report.cost.rounds,
            report.wire.frames_sent,
            report.wire.wire_bytes_sent
        );
    }
    if !report.audit.passed {
        return Err(CheckFailed(format!("player {}: the audit failed", me.0)).into());
    }
    Ok(())
}

fn party_doc(args: &PartyArgs, workload: &str) -> Doc {
    let doc = Doc::new("party").parameters(json!({
        "roster": args.roster.display().to_string(),
        "id": args.id,
        "backend": args.game.backend.name(),
        "workload": workload,
        "timeout_ms": args.game.timeout_ms,
    }));
    match args.game.seed {
        Some(seed) => doc.seed(seed),
        None => doc,
    }
}

/// A failed player's document: its error, whom it blames (its own verdict) and the
/// accusations of the aborts it received (claims, never verdicts).
fn failure_json(e: &facedown_net::NetError) -> serde_json::Value {
    json!({
        "error": e.to_string(),
        "blamed": e.blamed().map(|p| p.0),
        "claims": claims_json(&e.claims()),
    })
}

fn claims_json(claims: &[(PartyId, PartyId)]) -> serde_json::Value {
    claims
        .iter()
        .map(|(by, accused)| json!({"by": by.0, "accuses": accused.0}))
        .collect()
}

fn print_view(r: &PlayerReport) {
    let me = usize::from(r.player).saturating_sub(1);
    let audit = match (&r.audit.passed, &r.audit.first) {
        (true, _) => "checks passed".to_string(),
        (false, Some(f)) => format!("checks FAILED: {f}"),
        (false, None) => "checks FAILED".to_string(),
    };
    match &r.outcome {
        Outcome::Deal { hands, public, .. } => {
            let hand = hands.get(me).cloned().flatten().unwrap_or_default();
            println!(
                "player {}: hand {} | public {} | {audit}",
                r.player,
                cards_text(&hand),
                cards_text(public)
            );
        }
        Outcome::Card { outputs, .. } => {
            let bits = |b: &[bool]| {
                b.iter()
                    .map(|&x| if x { "1" } else { "0" })
                    .collect::<Vec<_>>()
                    .join(",")
            };
            println!(
                "player {}: own input {} | output {} | {audit}",
                r.player,
                if r.inputs.is_empty() {
                    "(none)".to_owned()
                } else {
                    bits(&r.inputs)
                },
                bits(outputs)
            );
        }
    }
    for w in r.outcome.weakened() {
        println!("  weakened: {w}");
    }
}

fn free_ports(n: usize) -> anyhow::Result<Vec<u16>> {
    // Bind all at once so the ports differ; the children bind them again right after.
    let listeners = (0..n)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<Vec<_>, _>>()
        .context("cannot find free ports on 127.0.0.1")?;
    listeners
        .iter()
        .map(|l| Ok(l.local_addr()?.port()))
        .collect()
}

pub(super) fn read_pipe<R: Read + Send + 'static>(
    pipe: Option<R>,
) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_string(&mut s);
        }
        s
    })
}

pub(super) fn write_setup(dir: &Path, players: usize) -> anyhow::Result<PathBuf> {
    let ports = free_ports(players)?;
    let mut session = [0u8; 32];
    OsRng.fill_bytes(&mut session);
    let mut parties = Vec::with_capacity(players);
    for (j, port) in ports.iter().enumerate() {
        let kp = StaticKeypair::generate_with_rng(&mut OsRng);
        kp.save(&dir.join(format!("player{}.key", j + 1)))?;
        parties.push(Party {
            id: PartyId::from_index(j),
            address: format!("127.0.0.1:{port}").parse()?,
            public_key: kp.public,
            signing_key: kp.signing_public(),
        });
    }
    let roster = Roster { session, parties };
    let path = dir.join("parties.toml");
    std::fs::write(&path, roster.to_toml())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// The command that starts player `j` of a local game: `facedown party` with its roster,
/// its key (in `dir`) and the backend; the caller adds what is played.
pub(super) fn party_command(
    exe: &std::path::Path,
    roster: &std::path::Path,
    dir: &std::path::Path,
    j: usize,
    backend: &str,
) -> Command {
    let mut cmd = Command::new(exe);
    cmd.arg("party")
        .arg("--roster")
        .arg(roster)
        .arg("--id")
        .arg(j.to_string())
        .arg("--key")
        .arg(dir.join(format!("player{j}.key")))
        .arg("--backend")
        .arg(backend);
    cmd
}

/// Runs `facedown play-local`: N player processes on 127.0.0.1.
pub fn play_local(args: PlayLocalArgs) -> anyhow::Result<()> {
    if args.game.session.game.is_some() {
        return super::game_session::play_local(args);
    }
    args.game.session.refuse_without_game()?;
    let spec = args.game.spec(args.players, [0; 32])?;
    let inputs = args.game.input.clone();
    if inputs.len() != spec.workload.inputs() {
        bail!(
            "{} takes {} input bits (--input), got {}",
            spec.workload.name(),
            spec.workload.inputs(),
            inputs.len()
        );
    }
    let fault = match &args.fault {
        Some(s) => {
            let (who, kind) = s.split_once(':').context("--fault takes PLAYER:FAULT")?;
            let who: u16 = who.parse().context("--fault: player number")?;
            let kind =
                FaultArg::from_str(kind, true).map_err(|e| anyhow::anyhow!("--fault: {e}"))?;
            Some((who, kind))
        }
        None => None,
    };
    // One rule for the seed: given, or drawn here and printed and recorded; every player then
    // draws from its own stream of it (a replayed `--seed-key` is passed on instead).
    let seed_drawn = args.game.seed.is_none() && args.game.seed_key.is_none();
    let seed = match (args.game.seed, args.game.seed_key) {
        (_, Some(_)) => None,
        (Some(s), None) => Some(s),
        // 53 bits, so that every JSON reader (JavaScript's numbers too) keeps it exactly.
        (None, None) => Some(OsRng.next_u64() >> 11),
    };
    let dir = Scratch::new("play-local")?;
    let roster = write_setup(dir.path(), args.players)?;
    let exe = std::env::current_exe().context("cannot find the facedown executable")?;
    let start = Instant::now();
    let mut children = Children::default();
    let mut pipes = Vec::with_capacity(args.players);
    for j in 1..=args.players {
        let mut cmd = party_command(&exe, &roster, dir.path(), j, args.game.backend.name());
        cmd.arg("--workload")
            .arg(spec.workload.name())
            .arg("--timeout-ms")
            .arg(args.game.timeout_ms.to_string())
            .arg("--json")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(seed) = seed {
            cmd.arg("--seed").arg(seed.to_string());
        }
        if let Some(key) = args.game.seed_key {
            cmd.arg("--seed-key").arg(hex::encode(key));
        }
        // Each player is told only the inputs it owns.
        let own: Vec<&str> = spec
            .workload
            .owned_by(PartyId::from_index(j - 1))
            .iter()
            .map(|&k| if inputs[k] { "1" } else { "0" })
            .collect();
        if !own.is_empty() {
            cmd.arg("--input").arg(own.join(","));
        }
        if let Some((who, kind)) = fault {
            if usize::from(who) == j {
                let name = kind
                    .to_possible_value()
                    .map(|v| v.get_name().to_owned())
                    .unwrap_or_default();
                cmd.arg("--fault").arg(name);
            }
        }
        let child = children.spawn(cmd, &format!("player {j}"))?;
        pipes.push((
            read_pipe(child.stdout.take()),
            read_pipe(child.stderr.take()),
        ));
    }
    // Every player gives up within its own timeouts; this is the backstop.
    let deadline =
        start + Duration::from_millis(args.game.timeout_ms) * 4 + Duration::from_secs(30);
    // Once a player has failed, the others must abort within a timeout and its grace period
    // (`facedown_net::NetDriver`): whoever is still running two timeouts (plus a second)
    // later is stuck and gets killed.
    let grace = Duration::from_millis(args.game.timeout_ms) * 2 + Duration::from_secs(1);
    let mut first_failure: Option<Instant> = None;
    let mut status: Vec<Option<std::process::ExitStatus>> = vec![None; args.players];
    while status.iter().any(Option::is_none) {
        for (j, c) in children.0.iter_mut().enumerate() {
            if status[j].is_none() {
                status[j] = c.try_wait().context("waiting for a player")?;
                if status[j].is_some_and(|s| !s.success()) && first_failure.is_none() {
                    first_failure = Some(Instant::now());
                }
            }
        }
        let now = Instant::now();
        if now > deadline || first_failure.is_some_and(|t| now > t + grace) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(children); // kills whoever is left, and reaps everyone
    let wall = start.elapsed();
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    let mut claims = Vec::new();
    for (j, (out, err)) in pipes.into_iter().enumerate() {
        let out = out.join().unwrap_or_default();
        let err = err.join().unwrap_or_default();
        let exit = status[j]
            .map(|s| s.to_string())
            .unwrap_or_else(|| "killed (still running after the others had stopped)".into());
        match serde_json::from_str::<PlayerReport>(&out) {
            Ok(r) if status[j].is_some_and(|s| s.success()) => reports.push(r),
            _ => {
                // A failed player's own document says whom it blames and what it was told.
                let doc = serde_json::from_str::<serde_json::Value>(&out).unwrap_or_default();
                let mine = doc["claims"].as_array().cloned().unwrap_or_default();
                claims.extend(mine.iter().cloned());
                errors.push(json!({
                    "player": j + 1,
                    "exit": exit,
                    "error": err.trim().lines().last().unwrap_or("").to_owned(),
                    "blamed": doc["blamed"],
                    "claims": mine,
                }));
            }
        }
    }
    let cost = total_cost(&reports);
    let phases = merge_phases(&reports);
    let (frames, wire_bytes) = reports.iter().fold((0, 0), |(f, b), r| {
        (f + r.wire.frames_sent, b + r.wire.wire_bytes_sent)
    });
    let problem = if errors.is_empty() {
        check_reports(&spec.workload, &inputs, &reports).err()
    } else {
        None
    };
    let consistent = errors.is_empty() && problem.is_none();
    let backend = args.game.backend.name();
    if args.game.json {
        let mut doc = Doc::new("play-local").parameters(json!({
            "players": args.players,
            "backend": backend,
            "workload": spec.workload.name(),
            "input": inputs,
            "timeout_ms": args.game.timeout_ms,
            "seed_key": args.game.seed_key.map(hex::encode),
        }));
        if let Some(seed) = seed {
            doc = doc.seed(seed);
        }
        doc.print(&json!({
            "backend": backend,
            "workload": spec.workload.name(),
            "players": args.players,
            "seed": seed,
            "seed_drawn": seed_drawn,
            "inputs": inputs,
            "expected": spec.workload.expected(&inputs),
            "expected_outputs": spec.workload.expected_outputs(&inputs),
            "views": reports,
            "errors": errors,
            "claims": claims,
            "consistent": consistent,
            "cost": cost,
            "phases": phases.iter().map(|p| json!({"name": p.name, "cost": p.cost})).collect::<Vec<_>>(),
            "wire": {"frames": frames, "bytes": wire_bytes},
            "wall_ms": ms(wall),
        }))?;
    } else {
        let seed_text = match (seed, seed_drawn) {
            (Some(s), true) => format!("seed {s} (drawn; --seed {s} replays it)"),
            (Some(s), false) => format!("seed {s}"),
            (None, _) => "a replayed seed key".to_owned(),
        };
        println!(
            "{} players as {} processes on 127.0.0.1, {backend} backend, {} workload, {seed_text}",
            args.players,
            args.players,
            spec.workload.name(),
        );
        for r in &reports {
            print_view(r);
        }
        for e in &errors {
            println!(
                "player {} failed ({}): {}",
                e["player"],
                e["exit"].as_str().unwrap_or(""),
                e["error"].as_str().unwrap_or("")
            );
        }
        if let Some(p) = &problem {
            println!("INCONSISTENT views: {p}");
        } else if errors.is_empty() {
            match spec.workload.expected_outputs(&inputs) {
                Some(out) => println!(
                    "views consistent: every player read output {}, the ideal table's, every check passed",
                    out.iter().map(|&b| u8::from(b).to_string()).collect::<Vec<_>>().join(" ")
                ),
                None => println!(
                    "views consistent: hands disjoint and as dealt, same public cards, every audit passed"
                ),
            }
        }
        println!();
        println!("cost (messages = deliveries a player sent, bytes = protocol encoding; rounds = longest causal chain):");
        let mut t = Table::new(&["phase", "messages", "bytes", "rounds"]).right_aligned([1, 2, 3]);
        for (name, c) in phases
            .iter()
            .map(|p| (p.name.to_string(), p.cost))
            .chain([("total".to_owned(), cost)])
        {
            t.row(vec![
                name,
                c.messages.to_string(),
                c.bytes.to_string(),
                c.rounds.to_string(),
            ]);
        }
        t.print(args.format());
        println!();
        println!("on the wire (Noise frames, headers, tags, handshakes): {frames} frames, {wire_bytes} bytes");
        println!("wall time: {:.1} ms (process start to last exit)", ms(wall));
    }
    if !errors.is_empty() {
        let why = format!("{} of {} players failed", errors.len(), args.players);
        // A player whose audit failed exits 3: the run is a failed check, not an error.
        if status.iter().any(|s| s.and_then(|s| s.code()) == Some(3)) {
            return Err(CheckFailed(format!("{why}: an audit failed")).into());
        }
        bail!("{why}");
    }
    if let Some(p) = problem {
        bail!("the players' views are inconsistent: {p}");
    }
    Ok(())
}
