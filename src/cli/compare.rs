//! `facedown compare`: every workload on every face-down table, side by side.
//!
//! Rows are workload × backend (`ideal`, `dealer`, `encrypted`). Each card protocol runs once
//! per input assignment and repetition, and every output is checked against the protocol's
//! function; each deal checks that the hands and public cards are distinct cards of the deck.
//! Times are means per run: wall clock ([`std::time::Instant`]) and process CPU time (the
//! `cpu-time` crate's `ProcessTime`, i.e. `CLOCK_PROCESS_CPUTIME_ID` on Unix). Messages, bytes
//! and rounds are means per run of the backend's own accounting ([`FaceDownTable::cost`], the
//! end-of-game audit included). `excess_bits` is the worst single party's excess leakage on an
//! information-theoretic backend: exactly zero on the ideal table by definition, computed
//! exactly on the dealer by enumerating every player's random choices
//! ([`facedown_dealer::table::enumerate_runs`]) for card protocols and with the leakage
//! harness's exact closed form for deals ([`dealer_deal_excess`]), `null` on the encrypted deck
//! (computational). With `--latency`, `wall_ms_at_latency` shows round-dominated costs: the
//! deals on the dealer and encrypted backends are played over the in-memory network with that
//! delay per message; other rows get `rounds × latency`, noted as an estimate.

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::time::Instant;

use anyhow::{bail, Context};
use cpu_time::ProcessTime;
use facedown_cards::library;
use facedown_cards::model::input_bits;
use facedown_cards::on_table::{run_on_table, RunError, RunOptions, TableRun};
use facedown_cards::Protocol;
use facedown_core::rng::trial_rng;
use facedown_core::table::{FaceDownTable, ShuffleSet};
use facedown_core::{Cost, IdealTable, PartyId, Symbol};
use facedown_dealer::table::DealerTable;
use facedown_poker::table::EncryptedTable;
use serde::Serialize;

/// Arguments of `facedown compare`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Print the rows as JSON.
    #[arg(long, conflicts_with_all = ["csv", "markdown"])]
    pub json: bool,
    /// Print the rows as CSV.
    #[arg(long, conflicts_with = "markdown")]
    pub csv: bool,
    /// Print the rows as a Markdown table.
    #[arg(long)]
    pub markdown: bool,
    /// Seed of the run (every table's randomness is derived from it, one stream per run).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// One-way delay of every message (`20ms`, `1s`, `0`): adds `wall_ms_at_latency`, the
    /// deals on the dealer and encrypted backends played over the in-memory network with that
    /// delay ([`facedown_net::play_in_memory`]); other rows get `rounds × latency`, marked as
    /// an estimate in the notes.
    #[arg(long, value_parser = parse_duration)]
    pub latency: Option<std::time::Duration>,
    /// Only the workloads whose name starts with this (e.g. `poker`).
    #[arg(long)]
    pub only: Option<String>,
}

/// Parses a duration: a non-negative number followed by `ns`, `us`, `ms` or `s` (`0` alone is
/// allowed).
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim();
    if t == "0" {
        return Ok(std::time::Duration::ZERO);
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(|| format!("`{s}`: give a unit (ns, us, ms or s), e.g. `20ms`"))?;
    let (num, unit) = t.split_at(split);
    let v: f64 = num
        .parse()
        .map_err(|_| format!("`{s}`: `{num}` is not a number"))?;
    let secs = match unit {
        "ns" => v * 1e-9,
        "us" | "µs" => v * 1e-6,
        "ms" => v * 1e-3,
        "s" => v,
        _ => return Err(format!("`{s}`: unknown unit `{unit}` (ns, us, ms or s)")),
    };
    std::time::Duration::try_from_secs_f64(secs).map_err(|e| format!("`{s}`: {e}"))
}

/// The backends, in table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// [`IdealTable`]: physical cards, trusted randomness.
    Ideal,
    /// [`DealerTable`]: the permutation-sharing dealer.
    Dealer,
    /// [`EncryptedTable`]: Barnett–Smart on ristretto255.
    Encrypted,
}

impl Backend {
    /// Every backend.
    pub const ALL: [Backend; 3] = [Backend::Ideal, Backend::Dealer, Backend::Encrypted];

    /// The backend's name.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Ideal => "ideal",
            Backend::Dealer => "dealer",
            Backend::Encrypted => "encrypted",
        }
    }
}

/// What runs on the tables.
#[derive(Clone, Debug)]
pub enum Workload {
    /// A built-in card protocol, run for every input.
    Card {
        /// The built-in's name.
        name: &'static str,
        /// Runs per input on each backend (ideal, dealer, encrypted).
        reps: [u64; 3],
    },
    /// A deal: `players` hands of `hand` cards and `public` face-up cards from `cards`.
    Deal {
        /// Display name.
        name: &'static str,
        /// Players.
        players: usize,
        /// Deck size.
        cards: u16,
        /// Cards per hand.
        hand: usize,
        /// Public cards.
        public: usize,
        /// Runs on each backend (ideal, dealer, encrypted).
        reps: [u64; 3],
    },
}

impl Workload {
    /// The name in the table.
    pub fn name(&self) -> String {
        match self {
            Workload::Card { name, .. } => (*name).to_owned(),
            Workload::Deal {
                name,
                players,
                cards,
                hand,
                public,
                ..
            } => format!("{name} ({players}p, {cards} cards, {hand} each, {public} up)"),
        }
    }
}

/// The comparison's workloads: the secure ANDs, the Mizuki–Sone AND and XOR, the Las Vegas
/// AND (to show refusals), the Ninety-Nine deal and a poker deal.
pub fn workloads() -> Vec<Workload> {
    let cards = [
        "five-card-trick",
        "mks-four-card-and",
        "ms09-six-card-and",
        "ms09-four-card-xor",
        "four-card-las-vegas-and",
    ]
    .map(|name| Workload::Card {
        name,
        reps: [200, 50, 5],
    });
    let deals = [
        Workload::Deal {
            name: "ninety-nine",
            players: 3,
            cards: 37,
            hand: 12,
            public: 1,
            reps: [50, 10, 3],
        },
        Workload::Deal {
            name: "poker",
            players: 4,
            cards: 52,
            hand: 2,
            public: 5,
            reps: [50, 10, 3],
        },
    ];
    cards.into_iter().chain(deals).collect()
}

/// One row of the comparison.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The workload.
    pub workload: String,
    /// The backend.
    pub backend: String,
    /// Runs measured (0 when the backend refused the workload).
    pub runs: u64,
    /// Mean wall-clock time per run (ms).
    pub wall_ms: Option<f64>,
    /// Mean process CPU time per run (ms).
    pub cpu_ms: Option<f64>,
    /// Mean messages per run (point-to-point deliveries).
    pub messages: Option<f64>,
    /// Mean bytes per run.
    pub bytes: Option<f64>,
    /// Mean sequential rounds per run.
    pub rounds: Option<f64>,
    /// Fewest and most messages of a single run.
    pub messages_range: Option<(u64, u64)>,
    /// Fewest and most rounds of a single run.
    pub rounds_range: Option<(u64, u64)>,
    /// The backend's security model.
    pub security: String,
    /// Worst single-party excess leakage in bits (information-theoretic backends only).
    pub excess_bits: Option<f64>,
    /// The party with the worst excess leakage.
    pub excess_party: Option<u16>,
    /// With `--latency`: wall time (ms) of one deal played over the in-memory network with
    /// that one-way delay per message, or `rounds × latency` where no networked run exists
    /// (then a note says it is an estimate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall_ms_at_latency: Option<f64>,
    /// Where the backend cannot do something securely, or a figure is missing.
    pub notes: Vec<String>,
}

/// The result of one run.
struct RunStats {
    cost: Cost,
    weakened: Vec<String>,
}

/// Why a workload did not run on a backend.
enum Refusal {
    /// The backend cannot perform an operation (a typed refusal, not a failure).
    Unsupported(String),
}

fn owners(k: usize) -> Vec<PartyId> {
    PartyId::all(k).collect()
}

/// Runs a card protocol on `table`, checks the output, finishes the table.
fn card_run<T: FaceDownTable>(
    p: &Protocol,
    bits: &[bool],
    table: &mut T,
) -> anyhow::Result<Result<RunStats, Refusal>> {
    let k = p.inputs().len();
    let want = p
        .function()
        .eval(bits)
        .context("the protocol's function is not total")?;
    let run: TableRun = match run_on_table(p, bits, &owners(k), table, RunOptions::default()) {
        Ok(r) => r,
        Err(RunError::Unsupported { reason, what, .. }) => {
            return Ok(Err(Refusal::Unsupported(format!(
                "cannot {what}: {reason}"
            ))))
        }
        Err(e) => return Err(anyhow::Error::new(e)).context(format!("{} on {:?}", p.name(), bits)),
    };
    if run.outputs.is_empty() || run.outputs.iter().any(|&o| o != want) {
        bail!(
            "{} on input {bits:?} gave {:?}, expected {want}: backend {}",
            p.name(),
            run.outputs,
            table.capabilities().backend
        );
    }
    table.finish().context("the end-of-game audit failed")?;
    Ok(Ok(RunStats {
        cost: table.cost(),
        weakened: run.weakened,
    }))
}

/// The hands (player 1 first) and the public cards of a deal.
pub type Dealt = (Vec<Vec<Symbol>>, Vec<Symbol>);

/// A deal through the table trait: place the deck, shuffle `All`, open each hand to its
/// player, turn the public cards. Returns the hands and the public cards.
pub fn deal_on<T: FaceDownTable>(
    table: &mut T,
    cards: u16,
    hand: usize,
    public: usize,
) -> Result<Dealt, T::Error> {
    let deck: Vec<Symbol> = (0..cards).map(Symbol::Card).collect();
    table.place(&deck)?;
    table.shuffle(&ShuffleSet::All)?;
    let mut hands = Vec::new();
    for p in PartyId::all(table.parties()) {
        let positions: Vec<usize> = (p.index() * hand..(p.index() + 1) * hand).collect();
        hands.push(table.open_to(p, &positions)?);
    }
    let start = table.parties() * hand;
    let up: Vec<usize> = (start..start + public).collect();
    let shown = if up.is_empty() {
        Vec::new()
    } else {
        table.turn(&up)?
    };
    table.finish()?;
    Ok((hands, shown))
}

fn deal_run<T: FaceDownTable>(
    table: &mut T,
    cards: u16,
    hand: usize,
    public: usize,
) -> anyhow::Result<Result<RunStats, Refusal>> {
    let caps = table.capabilities();
    if let facedown_core::table::Support::Unsupported(reason) = &caps.full_shuffle {
        return Ok(Err(Refusal::Unsupported(format!("cannot deal: {reason}"))));
    }
    let (hands, shown) = deal_on(table, cards, hand, public)
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| format!("deal on the {} backend", caps.backend))?;
    let mut seen = BTreeSet::new();
    for c in hands.iter().flatten().chain(&shown) {
        let ok = matches!(c, Symbol::Card(k) if *k < cards);
        if !ok || !seen.insert(*c) {
            bail!(
                "the {} backend dealt {c} twice or outside the deck",
                caps.backend
            );
        }
    }
    if hands.iter().any(|h| h.len() != hand) || shown.len() != public {
        bail!("the {} backend dealt hands of the wrong size", caps.backend);
    }
    let mut weakened = Vec::new();
    if let facedown_core::table::Support::Weakened(r) = &caps.full_shuffle {
        weakened.push(format!("deal: {r}"));
    }
    Ok(Ok(RunStats {
        cost: table.cost(),
        weakened,
    }))
}

/// Runs one workload on one backend `trials` times (for card protocols: `trials` per input).
fn measure(workload: &Workload, backend: Backend, seed: u64) -> anyhow::Result<Row> {
    let mut runs = 0u64;
    let mut total = Cost::ZERO;
    let mut msg_range = (u64::MAX, 0u64);
    let mut round_range = (u64::MAX, 0u64);
    let mut notes: BTreeSet<String> = BTreeSet::new();
    let mut refused = None;
    let b = backend as usize;
    let wall = Instant::now();
    let cpu = ProcessTime::now();
    let mut record = |s: RunStats, runs: &mut u64| {
        *runs += 1;
        total += s.cost;
        msg_range = (
            msg_range.0.min(s.cost.messages),
            msg_range.1.max(s.cost.messages),
        );
        round_range = (
            round_range.0.min(s.cost.rounds),
            round_range.1.max(s.cost.rounds),
        );
        notes.extend(s.weakened);
    };
    let security;
    match workload {
        Workload::Card { name, reps } => {
            let p = library::find(name)
                .with_context(|| format!("no built-in `{name}`"))?
                .protocol();
            let k = p.inputs().len();
            let parties = k.max(2);
            security = security_of(backend, parties)?;
            'outer: for input in 0..p.input_count() {
                let bits = input_bits(input, k);
                for r in 0..reps[b] {
                    let trial = (input as u64) << 32 | r;
                    let rng = trial_rng(seed, trial);
                    let out = match backend {
                        Backend::Ideal => {
                            card_run(&p, &bits, &mut IdealTable::with_rng(parties, rng))?
                        }
                        Backend::Dealer => {
                            card_run(&p, &bits, &mut DealerTable::with_rng(parties, rng))?
                        }
                        Backend::Encrypted => card_run(&p, &bits, &mut encrypted(parties, rng)?)?,
                    };
                    match out {
                        Ok(s) => record(s, &mut runs),
                        Err(Refusal::Unsupported(why)) => {
                            refused = Some(why);
                            break 'outer;
                        }
                    }
                }
            }
        }
        Workload::Deal {
            players,
            cards,
            hand,
            public,
            reps,
            ..
        } => {
            security = security_of(backend, *players)?;
            for r in 0..reps[b] {
                let rng = trial_rng(seed, r);
                let out = match backend {
                    Backend::Ideal => deal_run(
                        &mut IdealTable::with_rng(*players, rng),
                        *cards,
                        *hand,
                        *public,
                    )?,
                    Backend::Dealer => deal_run(
                        &mut DealerTable::with_rng(*players, rng),
                        *cards,
                        *hand,
                        *public,
                    )?,
                    Backend::Encrypted => {
                        deal_run(&mut encrypted(*players, rng)?, *cards, *hand, *public)?
                    }
                };
                match out {
                    Ok(s) => record(s, &mut runs),
                    Err(Refusal::Unsupported(why)) => {
                        refused = Some(why);
                        break;
                    }
                }
            }
        }
    }
    let wall_ms = wall.elapsed().as_secs_f64() * 1e3;
    let cpu_ms = cpu.elapsed().as_secs_f64() * 1e3;
    let mut notes = group_notes(notes);
    if let Some(why) = refused {
        notes.insert(0, format!("unsupported: {why}"));
        return Ok(Row {
            workload: workload.name(),
            backend: backend.name().to_owned(),
            runs: 0,
            wall_ms: None,
            cpu_ms: None,
            messages: None,
            bytes: None,
            rounds: None,
            messages_range: None,
            rounds_range: None,
            security,
            excess_bits: None,
            excess_party: None,
            wall_ms_at_latency: None,
            notes,
        });
    }
    let per = |x: f64| x / runs.max(1) as f64;
    let (excess_bits, excess_party) = match (backend, workload) {
        (Backend::Ideal, _) => (Some(0.0), None),
        (Backend::Dealer, Workload::Card { name, .. }) => {
            let (bits, party) = dealer_excess(name, seed)?;
            (Some(bits), Some(party))
        }
        (
            Backend::Dealer,
            Workload::Deal {
                players,
                cards,
                hand,
                public,
                ..
            },
        ) => {
            let (bits, party) = dealer_deal_excess(*players, usize::from(*cards), *hand, *public)?;
            (Some(bits), Some(party))
        }
        (Backend::Encrypted, _) => (None, None),
    };
    Ok(Row {
        workload: workload.name(),
        backend: backend.name().to_owned(),
        runs,
        wall_ms: Some(per(wall_ms)),
        cpu_ms: Some(per(cpu_ms)),
        messages: Some(per(total.messages as f64)),
        bytes: Some(per(total.bytes as f64)),
        rounds: Some(per(total.rounds as f64)),
        messages_range: Some(msg_range),
        rounds_range: Some(round_range),
        security,
        excess_bits,
        excess_party,
        wall_ms_at_latency: None,
        notes,
    })
}

/// The worst single-party excess leakage of a deal on the dealer (general scheme), in bits,
/// and who it is: the leakage harness's exact closed form
/// ([`facedown_leakage::collusion::closed_form_measure`], valid for any deck size and checked
/// against enumeration in its tests) over every single-player coalition and every target
/// (other hands, undealt cards, whole deal).
pub fn dealer_deal_excess(
    players: usize,
    cards: usize,
    hand: usize,
    public: usize,
) -> anyhow::Result<(f64, u16)> {
    use facedown_leakage::{collusion::closed_form_measure, Coalition, DealerTarget, Schedule};
    let scheme = facedown_dealer::scheme::Scheme::general(players, cards)
        .context("cannot build the dealer scheme")?;
    let schedule = Schedule::new(&scheme, hand, public).context("cannot build the schedule")?;
    let mut worst = (-1.0f64, 1u16);
    for p in PartyId::all(players) {
        let c = Coalition::new([p]);
        for t in DealerTarget::for_coalition(&schedule, &c) {
            let m = closed_form_measure(&schedule, &c, &t);
            if m.excess_bits > worst.0 {
                worst = (m.excess_bits, p.0);
            }
        }
    }
    Ok((worst.0.max(0.0), worst.1))
}

/// Fills `wall_ms_at_latency`: the deals on the dealer and encrypted backends are played once
/// over the in-memory network with a one-way delay of `latency` per message; every other row
/// gets `rounds × latency`, noted as an estimate.
fn add_latency(
    row: &mut Row,
    workload: &Workload,
    backend: Backend,
    latency: std::time::Duration,
    seed: u64,
) -> anyhow::Result<()> {
    let net = match (workload, backend) {
        (Workload::Deal { name, players, .. }, Backend::Dealer | Backend::Encrypted) => {
            let w = match *name {
                "ninety-nine" => Some(facedown_net::Workload::NinetyNine),
                "poker" => Some(facedown_net::Workload::Poker52),
                _ => None,
            };
            let b = if backend == Backend::Dealer {
                facedown_net::Backend::Dealer
            } else {
                facedown_net::Backend::Poker
            };
            w.map(|w| (w, b, *players))
        }
        _ => None,
    };
    let ms = latency.as_secs_f64() * 1e3;
    match net {
        Some((w, b, players)) => {
            let spec = facedown_net::GameSpec {
                backend: b,
                workload: w,
                players,
                roster_session: [0; 32],
                timeout: std::time::Duration::from_secs(600),
            };
            let start = Instant::now();
            facedown_net::play_in_memory(&spec, Some(facedown_net::Latency::fixed(latency)), seed)
                .with_context(|| format!("playing {} over the in-memory network", row.workload))?;
            row.wall_ms_at_latency = Some(start.elapsed().as_secs_f64() * 1e3);
            row.notes.push(format!(
                "wall_ms_at_latency: one run over the in-memory network, {ms} ms per message"
            ));
        }
        None => {
            if let Some(r) = row.rounds {
                row.wall_ms_at_latency = Some(r * ms);
                row.notes.push(format!(
                    "wall_ms_at_latency: estimate, rounds × {ms} ms (no networked run of this row)"
                ));
            }
        }
    }
    Ok(())
}

/// Merges the runner's per-line notes (`line 8: shuffle: reason`) that share a reason:
/// `shuffles at lines 8, 9: reason`.
fn group_notes(notes: BTreeSet<String>) -> Vec<String> {
    let mut by_reason: std::collections::BTreeMap<String, Vec<u64>> = Default::default();
    let mut other = Vec::new();
    for n in notes {
        let parsed = n.strip_prefix("line ").and_then(|rest| {
            let (line, reason) = rest.split_once(": shuffle: ")?;
            Some((line.parse::<u64>().ok()?, reason.to_owned()))
        });
        match parsed {
            Some((line, reason)) => by_reason.entry(reason).or_default().push(line),
            None => other.push(n),
        }
    }
    let mut out: Vec<String> = by_reason
        .into_iter()
        .map(|(reason, mut lines)| {
            lines.sort_unstable();
            let list: Vec<String> = lines.iter().map(u64::to_string).collect();
            let what = if lines.len() == 1 {
                "shuffle at line"
            } else {
                "shuffles at lines"
            };
            format!("weakened {what} {}: {reason}", list.join(", "))
        })
        .collect();
    out.extend(other);
    out
}

fn encrypted(
    parties: usize,
    rng: rand_chacha::ChaCha20Rng,
) -> anyhow::Result<EncryptedTable<rand_chacha::ChaCha20Rng>> {
    EncryptedTable::setup_with_rng(parties, merlin_transcript(), rng)
        .context("cannot set up the encrypted table")
}

fn merlin_transcript() -> facedown_poker::table::Transcript {
    facedown_poker::table::Transcript::new(b"facedown compare")
}

fn security_of(backend: Backend, parties: usize) -> anyhow::Result<String> {
    let rng = trial_rng(0, 0);
    Ok(match backend {
        Backend::Ideal => IdealTable::with_rng(parties, rng).capabilities(),
        Backend::Dealer => DealerTable::with_rng(parties, rng).capabilities(),
        Backend::Encrypted => {
            return Ok(facedown_core::table::SecurityModel::MaliciousUpToNMinus1
                .label()
                .to_owned())
        }
    }
    .security
    .label()
    .to_owned())
}

/// The worst single party's excess leakage of a card protocol on the dealer, in bits, and who
/// it is: inputs uniform, every combination of every player's random choices enumerated; the
/// party's ideal view is his own inputs, every turn and the output; his dealer view adds his
/// own layers and every value he received ([`ViewEvent`]).
pub fn dealer_excess(name: &str, seed: u64) -> anyhow::Result<(f64, u16)> {
    let p = library::find(name)
        .with_context(|| format!("no built-in `{name}`"))?
        .protocol();
    let e = facedown::leakage::cards::dealer_excess(&p, seed, 1 << 16)
        .with_context(|| format!("enumerating {name} on the dealer"))?;
    Ok((e.bits, e.party.0))
}

/// Every row of the comparison, in workload then backend order.
pub fn rows(
    seed: u64,
    latency: Option<std::time::Duration>,
    only: Option<&str>,
) -> anyhow::Result<Vec<Row>> {
    let matrix: Vec<(Workload, Backend)> = workloads()
        .into_iter()
        .filter(|w| only.map_or(true, |o| w.name().starts_with(o)))
        .flat_map(|w| Backend::ALL.map(|b| (w.clone(), b)))
        .collect();
    let bar = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(matrix.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Some(bar)
    } else {
        None
    };
    let mut out = Vec::with_capacity(matrix.len());
    for (w, b) in &matrix {
        if let Some(bar) = &bar {
            bar.set_message(format!("{} on {}", w.name(), b.name()));
        }
        let mut row = measure(w, *b, seed)?;
        if let Some(l) = latency {
            add_latency(&mut row, w, *b, l, seed)?;
        }
        out.push(row);
        if let Some(bar) = &bar {
            bar.inc(1);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(out)
}

fn fmt_opt(x: Option<f64>, digits: usize) -> String {
    x.map_or_else(|| "—".to_owned(), |v| format!("{v:.digits$}"))
}

fn fmt_bits(x: Option<f64>) -> String {
    match x {
        None => "null".to_owned(),
        Some(0.0) => "0".to_owned(),
        Some(v) => format!("{v:.4}"),
    }
}

const HEADER: [&str; 10] = [
    "workload",
    "backend",
    "runs",
    "wall_ms",
    "cpu_ms",
    "messages",
    "bytes",
    "rounds",
    "security",
    "excess_bits",
];

fn header(latency: bool) -> Vec<&'static str> {
    let mut h = HEADER.to_vec();
    if latency {
        h.push("wall_ms_at_latency");
    }
    h
}

fn cells(r: &Row, latency: bool) -> Vec<String> {
    let mut c = vec![
        r.workload.clone(),
        r.backend.clone(),
        r.runs.to_string(),
        fmt_opt(r.wall_ms, 3),
        fmt_opt(r.cpu_ms, 3),
        fmt_opt(r.messages, 1),
        fmt_opt(r.bytes, 0),
        fmt_opt(r.rounds, 1),
        r.security.clone(),
        fmt_bits(r.excess_bits),
    ];
    if latency {
        c.push(fmt_opt(r.wall_ms_at_latency, 3));
    }
    c
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// Prints the rows as text, CSV, Markdown or JSON.
pub fn print(rows: &[Row], args: &Args) -> anyhow::Result<()> {
    if args.json {
        let mut out = serde_json::json!({ "seed": args.seed, "rows": rows });
        if let Some(l) = args.latency {
            out["latency_ms"] = serde_json::json!(l.as_secs_f64() * 1e3);
        }
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    let lat = args.latency.is_some();
    let head = header(lat);
    if args.csv {
        println!("{},notes", head.join(","));
        for r in rows {
            let c: Vec<String> = cells(r, lat).iter().map(|s| csv_field(s)).collect();
            println!("{},{}", c.join(","), csv_field(&r.notes.join("; ")));
        }
        return Ok(());
    }
    if args.markdown {
        println!("| {} | notes |", head.join(" | "));
        println!("|{}---|", "---|".repeat(head.len()));
        for r in rows {
            println!(
                "| {} | {} |",
                cells(r, lat).join(" | "),
                r.notes.join("; ").replace('|', "\\|")
            );
        }
        return Ok(());
    }
    println!(
        "Face-down tables compared (seed {}): means per run; times include setup and audit",
        args.seed
    );
    println!();
    let all: Vec<Vec<String>> = rows.iter().map(|r| cells(r, lat)).collect();
    let widths: Vec<usize> = (0..head.len())
        .map(|i| {
            all.iter()
                .map(|c| c[i].chars().count())
                .chain([head[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |c: &[String]| {
        c.iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (s, w))| {
                let pad = w - s.chars().count();
                if i < 2 || i == 8 {
                    format!("{s}{}", " ".repeat(pad))
                } else {
                    format!("{}{s}", " ".repeat(pad))
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    let names: Vec<String> = head.iter().map(|h| (*h).to_owned()).collect();
    println!("{}", line(&names));
    for (r, c) in rows.iter().zip(&all) {
        println!("{}", line(c));
        for n in &r.notes {
            println!("    note: {n}");
        }
    }
    Ok(())
}

/// Runs `facedown compare`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let rows = rows(args.seed, args.latency, args.only.as_deref())?;
    print(&rows, &args)
}

/// The comparison as printed after the protocol table by `facedown` with no arguments.
pub fn headline() -> anyhow::Result<()> {
    println!();
    run(Args {
        json: false,
        csv: false,
        markdown: false,
        seed: 0,
        latency: None,
        only: None,
    })
}
