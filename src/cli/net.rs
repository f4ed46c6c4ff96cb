//! `facedown keygen`, `facedown party` and `facedown play-local`: players as separate
//! processes over TCP with Noise_KK (see the `facedown-net` crate).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::ValueEnum;
use facedown_core::rng::trial_rng;
use facedown_core::{Cost, PartyId};
use facedown_net::{
    merge_phases, play_with_rng, total_cost, Backend, GameSpec, Party, PlayerReport, Roster,
    StaticKeypair, TcpMesh, Timeouts, WireFault, Workload,
};
use rand::rngs::OsRng;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::json;

use super::cards_text;
use super::children::{Children, Scratch};

/// Which protocol (command-line form).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// The permutation-sharing dealer (general scheme, N ≥ 3).
    Dealer,
    /// Barnett–Smart mental poker (N ≥ 2).
    Poker,
}

impl From<BackendArg> for Backend {
    fn from(b: BackendArg) -> Backend {
        match b {
            BackendArg::Dealer => Backend::Dealer,
            BackendArg::Poker => Backend::Poker,
        }
    }
}

/// Which deal (command-line form).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum WorkloadArg {
    /// 37 cards, twelve to each of three players, one trump face up.
    NinetyNine,
    /// 52 cards, two to each player, five public cards.
    Poker52,
}

impl From<WorkloadArg> for Workload {
    fn from(w: WorkloadArg) -> Workload {
        match w {
            WorkloadArg::NinetyNine => Workload::NinetyNine,
            WorkloadArg::Poker52 => Workload::Poker52,
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
    /// The deal.
    #[arg(long, value_enum)]
    pub workload: WorkloadArg,
    /// Seed: player `id`'s randomness is ChaCha20 stream `id` of the seed (reproducible runs,
    /// not for real play). Without it, fresh randomness from the operating system.
    #[arg(long)]
    pub seed: Option<u64>,
    /// How long a player waits for any one message (and to connect) before giving up, in ms.
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

impl GameArgs {
    /// The game of `players` players in the roster session `roster_session`.
    fn spec(&self, players: usize, roster_session: [u8; 32]) -> GameSpec {
        GameSpec {
            backend: self.backend.into(),
            workload: self.workload.into(),
            players,
            roster_session,
            timeout: Duration::from_millis(self.timeout_ms),
        }
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
}

/// Runs `facedown keygen`.
pub fn keygen(args: KeygenArgs) -> anyhow::Result<()> {
    let kp = StaticKeypair::generate_with_rng(&mut OsRng);
    let public = hex::encode(kp.public);
    match &args.out {
        Some(path) => {
            kp.save(path)?;
            if args.json {
                let out = json!({"public_key": public, "file": path.display().to_string()});
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                println!("{public}");
            }
        }
        None => {
            if args.json {
                let out = json!({"public_key": public, "private_key": hex::encode(kp.private)});
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                print!("{}", kp.to_toml());
            }
        }
    }
    Ok(())
}

/// Runs `facedown party`: one player.
pub fn party(args: PartyArgs) -> anyhow::Result<()> {
    let roster = Roster::load(&args.roster)?;
    let key = StaticKeypair::load(&args.key)?;
    let me = PartyId(args.id);
    let spec = args.game.spec(roster.players(), roster.session);
    spec.validate()?;
    let timeouts = Timeouts {
        connect: spec.timeout,
        handshake: spec.timeout.min(Duration::from_secs(5)),
        write: spec.timeout,
    };
    let listener = TcpMesh::bind(&roster, me)?;
    let mut mesh = TcpMesh::connect(&roster, me, &key, listener, timeouts)
        .with_context(|| format!("player {}: connecting", me.0))?;
    let mut rng = match args.game.seed {
        Some(seed) => trial_rng(seed, u64::from(me.0)),
        None => ChaCha20Rng::from_entropy(),
    };
    let fault = args.fault;
    let mut hook = |phase: &str, mesh: &mut TcpMesh| {
        if phase != "setup" && phase != "keys" {
            return;
        }
        match fault {
            Some(FaultArg::ExitAfterSetup) => std::process::exit(3),
            Some(FaultArg::StallAfterSetup) => loop {
                std::thread::sleep(Duration::from_secs(3600));
            },
            Some(FaultArg::CorruptAfterSetup) => mesh.inject_fault(WireFault::Corrupt),
            Some(FaultArg::ReplayAfterSetup) => mesh.inject_fault(WireFault::Replay),
            None => {}
        }
    };
    let report = play_with_rng(&mut mesh, &spec, &mut rng, &mut hook)
        .with_context(|| format!("player {}", me.0))?;
    drop(mesh);
    if args.game.json {
        let mut value = serde_json::to_value(&report)?;
        if let Some(obj) = value.as_object_mut() {
            obj.insert("seed".into(), json!(args.game.seed));
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
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
        bail!("player {}: the audit failed", me.0);
    }
    Ok(())
}

fn print_view(r: &PlayerReport) {
    let me = usize::from(r.player).saturating_sub(1);
    let hand = r.hands.get(me).map(Vec::as_slice).unwrap_or(&[]);
    let audit = match (&r.audit.passed, &r.audit.first) {
        (true, _) => "audit passed".to_string(),
        (false, Some(f)) => format!("audit FAILED: {f}"),
        (false, None) => "audit FAILED".to_string(),
    };
    println!(
        "player {}: hand {} | public {} | {audit}",
        r.player,
        cards_text(hand),
        cards_text(&r.public)
    );
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

fn read_pipe<R: Read + Send + 'static>(pipe: Option<R>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_string(&mut s);
        }
        s
    })
}

fn write_setup(dir: &Path, players: usize) -> anyhow::Result<PathBuf> {
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
        });
    }
    let roster = Roster { session, parties };
    let path = dir.join("parties.toml");
    std::fs::write(&path, roster.to_toml())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// Runs `facedown play-local`: N player processes on 127.0.0.1.
pub fn play_local(args: PlayLocalArgs) -> anyhow::Result<()> {
    let spec = args.game.spec(args.players, [0; 32]);
    spec.validate()?;
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
    let dir = Scratch::new("play-local")?;
    let roster = write_setup(dir.path(), args.players)?;
    let exe = std::env::current_exe().context("cannot find the facedown executable")?;
    let start = Instant::now();
    let mut children = Children::default();
    let mut pipes = Vec::with_capacity(args.players);
    for j in 1..=args.players {
        let mut cmd = Command::new(&exe);
        cmd.arg("party")
            .arg("--roster")
            .arg(&roster)
            .arg("--id")
            .arg(j.to_string())
            .arg("--key")
            .arg(dir.path().join(format!("player{j}.key")))
            .arg("--backend")
            .arg(Backend::from(args.game.backend).name())
            .arg("--workload")
            .arg(Workload::from(args.game.workload).name())
            .arg("--timeout-ms")
            .arg(args.game.timeout_ms.to_string())
            .arg("--json")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(seed) = args.game.seed {
            cmd.arg("--seed").arg(seed.to_string());
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
    // Once a player has failed, the others must abort within their timeout: whoever is
    // still running a timeout (plus a second) later is stuck and gets killed.
    let grace = Duration::from_millis(args.game.timeout_ms) + Duration::from_secs(1);
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
    for (j, (out, err)) in pipes.into_iter().enumerate() {
        let out = out.join().unwrap_or_default();
        let err = err.join().unwrap_or_default();
        let exit = status[j]
            .map(|s| s.to_string())
            .unwrap_or_else(|| "killed (still running after the others had stopped)".into());
        match serde_json::from_str::<PlayerReport>(&out) {
            Ok(r) if status[j].is_some_and(|s| s.success()) => reports.push(r),
            _ => errors.push(json!({
                "player": j + 1,
                "exit": exit,
                "error": err.trim().lines().last().unwrap_or("").to_owned(),
            })),
        }
    }
    let costs: Vec<Cost> = reports.iter().map(|r| r.cost).collect();
    let cost = total_cost(&costs);
    let phases = merge_phases(&reports);
    let (frames, wire_bytes) = reports.iter().fold((0, 0), |(f, b), r| {
        (f + r.wire.frames_sent, b + r.wire.wire_bytes_sent)
    });
    let consistent = errors.is_empty() && check_consistency(&reports).is_ok();
    let problem = if errors.is_empty() {
        check_consistency(&reports).err()
    } else {
        None
    };
    if args.game.json {
        let out = json!({
            "backend": Backend::from(args.game.backend).name(),
            "workload": Workload::from(args.game.workload).name(),
            "players": args.players,
            "seed": args.game.seed,
            "views": reports,
            "errors": errors,
            "consistent": consistent,
            "cost": cost,
            "phases": phases.iter().map(|p| json!({"name": p.name, "cost": p.cost})).collect::<Vec<_>>(),
            "wire": {"frames": frames, "bytes": wire_bytes},
            "wall_time_ms": wall.as_secs_f64() * 1e3,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!(
            "{} players as {} processes on 127.0.0.1, {} backend, {} workload, seed {}",
            args.players,
            args.players,
            Backend::from(args.game.backend).name(),
            Workload::from(args.game.workload).name(),
            args.game
                .seed
                .map_or("none (fresh randomness)".into(), |s| s.to_string())
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
            println!("views consistent: hands disjoint and as dealt, same public cards, every audit passed");
        }
        println!("cost (messages = deliveries a player sent, bytes = protocol encoding; rounds = longest causal chain):");
        for p in &phases {
            println!(
                "  {:<42} {:>6} messages {:>9} bytes {:>3} rounds",
                p.name, p.cost.messages, p.cost.bytes, p.cost.rounds
            );
        }
        println!(
            "  {:<42} {:>6} messages {:>9} bytes {:>3} rounds",
            "total", cost.messages, cost.bytes, cost.rounds
        );
        println!("  on the wire (Noise frames, headers, tags, handshakes): {frames} frames, {wire_bytes} bytes");
        println!(
            "wall time: {:.1} ms (process start to last exit)",
            wall.as_secs_f64() * 1e3
        );
    }
    if !errors.is_empty() {
        bail!("{} of {} players failed", errors.len(), args.players);
    }
    if let Some(p) = problem {
        bail!("the players' views are inconsistent: {p}");
    }
    Ok(())
}

/// Every audit passed, everyone saw the same public cards, the hands are disjoint, of the
/// right size, and (dealer) what the audit opened.
fn check_consistency(reports: &[PlayerReport]) -> Result<(), String> {
    let Some(first) = reports.first() else {
        return Err("no player reported".into());
    };
    let (_, hand, public) = first.workload.shape();
    let mut seen = std::collections::BTreeSet::new();
    for r in reports {
        if !r.audit.passed {
            return Err(format!("player {}'s audit failed", r.player));
        }
        if r.public != first.public || r.public.len() != public {
            return Err(format!("player {} saw other public cards", r.player));
        }
        if r.deal != first.deal {
            return Err(format!("player {} audited another deal", r.player));
        }
        let me = usize::from(r.player).saturating_sub(1);
        let mine = r.hands.get(me).cloned().unwrap_or_default();
        if mine.len() != hand {
            return Err(format!("player {} holds {} cards", r.player, mine.len()));
        }
        if let Some(deal) = &r.deal {
            if deal.get(me * hand..(me + 1) * hand) != Some(mine.as_slice()) {
                return Err(format!("player {}'s hand is not what was dealt", r.player));
            }
        }
        for c in mine.iter().chain(&r.public) {
            if usize::from(*c) >= r.cards {
                return Err(format!("player {} holds card {c}", r.player));
            }
        }
        for c in &mine {
            if !seen.insert(*c) {
                return Err(format!("card {c} is in two hands"));
            }
        }
    }
    if first.public.iter().any(|c| seen.contains(c)) {
        return Err("a public card is also in a hand".into());
    }
    Ok(())
}
