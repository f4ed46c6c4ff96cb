//! The comparison: every workload on every face-down table, side by side — what
//! `facedown compare` prints, the `compare` bench times and the tests check.
//!
//! Rows are workload × backend (`ideal`, `dealer`, `encrypted`). The ideal table is
//! [`IdealTable`]; the dealer and the encrypted deck are one engine per player
//! ([`DealerEngine`], [`PokerEngine`]) seated by [`LocalDriver`] — the very players a networked
//! game runs, so every message, byte and round counted here is one a network would carry
//! ([`networked`] plays the same run over the in-memory network, and a test checks the costs
//! are equal). Each card protocol runs once per input assignment and repetition, and every
//! output is checked against the protocol's function; each deal checks that the hands and
//! public cards are distinct cards of the deck.
//!
//! Times are means per run: wall clock and process CPU time (`cpu-time`'s `ProcessTime`) of
//! the whole run, every player included; `cpu_ms_per_player` is the busiest player's own engine
//! CPU time (thread CPU time around its steps), what one player's machine would spend.
//! `excess_bits` is the worst single party's excess leakage on an information-theoretic
//! backend: zero on the ideal table by definition; on the dealer, computed exactly by
//! enumerating every player's choices for card protocols ([`dealer_excess`]) and with the
//! leakage harness's closed form for deals ([`dealer_deal_excess`]); `null` on the encrypted
//! deck (computational).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::{Duration, Instant};

use cpu_time::{ProcessTime, ThreadTime};
use facedown_cards::model::input_bits;
use facedown_core::engine::{Engine, Step};
use facedown_core::rng::{party_rng, trial_rng};
use facedown_core::table::{ideal_capabilities, FaceDownTable, TableError};
use facedown_core::{Capabilities, Cost, IdealTable, LocalDriver, PartyId, TableOp};
use facedown_dealer::DealerEngine;
use facedown_poker::PokerEngine;
use serde::Serialize;

pub mod games;
pub mod games_tcp;

use crate::play::{self, GameSpec, PlayerReport};
use crate::workload::{self, check_outcome, Outcome, Workload, WorkloadError, WorkloadRunError};

/// The context every comparison table agrees on (bound into each session id).
pub const CONTEXT: &[u8] = b"facedown compare";

/// The backends, in table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    /// [`IdealTable`]: physical cards, trusted randomness.
    Ideal,
    /// [`DealerEngine`]s: the permutation-sharing dealer, one engine per player.
    Dealer,
    /// [`PokerEngine`]s: Barnett–Smart on ristretto255, one engine per player.
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

    /// What the backend can do at a table of `parties`.
    pub fn capabilities(self, parties: usize) -> Capabilities {
        match self {
            Backend::Ideal => ideal_capabilities(),
            Backend::Dealer => play::capabilities(play::Backend::Dealer, parties),
            Backend::Encrypted => play::capabilities(play::Backend::Poker, parties),
        }
    }

    /// The networked backend that runs the same engines.
    pub fn networked(self) -> Option<play::Backend> {
        match self {
            Backend::Ideal => None,
            Backend::Dealer => Some(play::Backend::Dealer),
            Backend::Encrypted => Some(play::Backend::Poker),
        }
    }
}

/// One workload of the comparison: what, at how many players, how many runs per backend.
#[derive(Clone, Debug)]
pub struct Entry {
    /// What runs.
    pub workload: Workload,
    /// Players at the table.
    pub players: usize,
    /// Runs on each backend (ideal, dealer, encrypted); per input for card protocols.
    pub reps: [u64; 3],
}

impl Entry {
    /// The name in the table: the protocol's, or the deal's with its shape.
    pub fn name(&self) -> String {
        match &self.workload {
            Workload::Card { name, .. } => (*name).to_owned(),
            Workload::Deal(d) => format!(
                "{} ({}p, {} cards, {} each, {} up)",
                d.name, self.players, d.cards, d.hand, d.public
            ),
        }
    }

    /// The runs of one backend: `(trial, inputs)` for every repetition (of every input
    /// assignment of a card protocol).
    pub fn trials(&self, backend: Backend) -> Vec<(u64, Vec<bool>)> {
        let reps = self.reps[backend as usize];
        let k = self.workload.inputs();
        let assignments = if k == 0 { 1 } else { 1usize << k };
        (0..assignments)
            .flat_map(|input| {
                let bits = input_bits(input, k);
                (0..reps).map(move |r| (((input as u64) << 32) | r, bits.clone()))
            })
            .collect()
    }
}

/// The comparison's workloads: the secure ANDs, the Mizuki–Sone AND and XOR, the Las Vegas
/// AND, the Ninety-Nine deal and a poker deal.
pub fn entries() -> Result<Vec<Entry>, WorkloadError> {
    let mut out = Vec::new();
    for name in [
        "five-card-trick",
        "mks-four-card-and",
        "ms09-six-card-and",
        "ms09-four-card-xor",
        "four-card-las-vegas-and",
    ] {
        let workload = Workload::parse(name)?;
        let players = workload.min_players();
        out.push(Entry {
            workload,
            players,
            reps: [200, 50, 5],
        });
    }
    for (workload, players) in [(workload::NINETY_NINE, 3), (workload::POKER52, 4)] {
        out.push(Entry {
            workload: Workload::Deal(workload),
            players,
            reps: [50, 10, 3],
        });
    }
    Ok(out)
}

/// Why the comparison failed (a wrong output or a failed audit is a failure: the table is not
/// printed with a wrong row).
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A run failed.
    #[error("{workload} on the {backend} backend: {reason}")]
    Run {
        /// The workload.
        workload: String,
        /// The backend.
        backend: &'static str,
        /// What failed.
        reason: String,
    },
    /// A workload of the comparison does not exist.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
}

/// One row of the comparison: exact counts and measured times; the printer formats them.
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
    /// Mean process CPU time per run, every player included (ms).
    pub cpu_ms: Option<f64>,
    /// Mean CPU time of the busiest player's engine per run (ms).
    pub cpu_ms_per_player: Option<f64>,
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
    /// With a latency: the wall time (ms) of one run played over the in-memory network with
    /// that one-way delay per message, or `rounds × latency` where no networked run exists
    /// (then a note says it is an estimate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall_ms_at_latency: Option<f64>,
    /// A game's size and its cost per deal and per trick (game workloads only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<games::GameFigures>,
    /// Where the backend cannot do something securely, or a figure is missing.
    pub notes: Vec<String>,
}

/// What one run cost and did.
#[derive(Clone, Debug, PartialEq)]
pub struct RunStats {
    /// The table's accounting.
    pub cost: Cost,
    /// The outcome (checked against the ideal table).
    pub outcome: Outcome,
    /// The busiest player's engine CPU time.
    pub busiest: Duration,
}

/// An engine whose steps are timed on the thread's CPU clock (what one player spends).
struct Metered<E> {
    inner: E,
    spent: Rc<RefCell<Duration>>,
}

impl<E: Engine> Metered<E> {
    fn time<T>(&mut self, f: impl FnOnce(&mut E) -> T) -> T {
        let start = ThreadTime::try_now().ok();
        let out = f(&mut self.inner);
        if let Some(s) = start {
            *self.spent.borrow_mut() += s.elapsed();
        }
        out
    }
}

impl<E: Engine> Engine for Metered<E> {
    type Error = E::Error;
    fn capabilities(parties: usize) -> Capabilities {
        E::capabilities(parties)
    }
    fn me(&self) -> PartyId {
        self.inner.me()
    }
    fn parties(&self) -> usize {
        self.inner.parties()
    }
    fn start(&mut self, op: &TableOp) -> Result<Step, E::Error> {
        self.time(|e| e.start(op))
    }
    fn receive(&mut self, from: PartyId, payload: &[u8]) -> Result<Step, E::Error> {
        self.time(|e| e.receive(from, payload))
    }
    fn awaiting(&self) -> Vec<PartyId> {
        self.inner.awaiting()
    }
    fn echoes(&self, op: &TableOp) -> bool {
        self.inner.echoes(op)
    }
    fn is_broadcast(&self, payload: &[u8]) -> bool {
        self.inner.is_broadcast(payload)
    }
}

fn failed(entry: &Entry, backend: Backend, reason: impl ToString) -> CompareError {
    CompareError::Run {
        workload: entry.name(),
        backend: backend.name(),
        reason: reason.to_string(),
    }
}

/// Runs `workload` on `table` (every player seated) and checks the outcome.
fn run_checked<T: FaceDownTable>(
    entry: &Entry,
    backend: Backend,
    inputs: &[bool],
    table: &mut T,
) -> Result<RunStats, CompareError>
where
    T::Error: From<TableError>,
{
    let outcome = workload::run_seated(&entry.workload, inputs, table).map_err(|e| match e {
        WorkloadRunError::Workload(w) => CompareError::Workload(w),
        other => failed(entry, backend, other),
    })?;
    check_outcome(&entry.workload, inputs, &outcome).map_err(|e| failed(entry, backend, e))?;
    Ok(RunStats {
        cost: table.cost(),
        outcome,
        busiest: Duration::ZERO,
    })
}

/// Metered engines and their CPU clocks.
type Seated<E> = (Vec<Metered<E>>, Vec<Rc<RefCell<Duration>>>);

fn engines<E>(
    players: usize,
    make: impl Fn(PartyId) -> Result<E, String>,
) -> Result<Seated<E>, String> {
    let mut out = Vec::with_capacity(players);
    let mut clocks = Vec::with_capacity(players);
    for p in PartyId::all(players) {
        let spent = Rc::new(RefCell::new(Duration::ZERO));
        clocks.push(Rc::clone(&spent));
        out.push(Metered {
            inner: make(p)?,
            spent,
        });
    }
    Ok((out, clocks))
}

fn seated<E: Engine>(
    entry: &Entry,
    backend: Backend,
    inputs: &[bool],
    made: Result<Seated<E>, String>,
) -> Result<RunStats, CompareError> {
    let (engines, clocks) = made.map_err(|e| failed(entry, backend, e))?;
    let mut table = LocalDriver::new(engines).map_err(|e| failed(entry, backend, e))?;
    let mut stats = run_checked(entry, backend, inputs, &mut table)?;
    stats.busiest = clocks.iter().map(|c| *c.borrow()).max().unwrap_or_default();
    Ok(stats)
}

/// One run of `entry` on `backend`: trial `trial` of the run seeded with `seed`, with
/// `inputs` (player `p`'s engine draws from [`party_rng`]`(seed, trial, p)`).
pub fn run_once(
    entry: &Entry,
    backend: Backend,
    seed: u64,
    trial: u64,
    inputs: &[bool],
) -> Result<RunStats, CompareError> {
    let n = entry.players;
    match backend {
        Backend::Ideal => {
            let mut table = IdealTable::with_rng(n, trial_rng(seed, trial));
            run_checked(entry, backend, inputs, &mut table)
        }
        Backend::Dealer => seated(
            entry,
            backend,
            inputs,
            engines(n, |p| {
                DealerEngine::with_rng(p, n, CONTEXT, party_rng(seed, trial, p))
                    .map_err(|e| e.to_string())
            }),
        ),
        Backend::Encrypted => seated(
            entry,
            backend,
            inputs,
            engines(n, |p| {
                PokerEngine::with_rng(p, n, CONTEXT, party_rng(seed, trial, p))
                    .map_err(|e| e.to_string())
            }),
        ),
    }
}

/// The same run as [`run_once`], each player on its own thread over the in-memory network
/// (with an optional per-message latency): every player's report, and the wall time.
pub fn networked(
    entry: &Entry,
    backend: Backend,
    seed: u64,
    trial: u64,
    inputs: &[bool],
    latency: Option<Duration>,
) -> Result<(Vec<PlayerReport>, Duration), CompareError> {
    let Some(net) = backend.networked() else {
        return Err(failed(
            entry,
            backend,
            "the ideal table has no players to network",
        ));
    };
    let spec = GameSpec {
        backend: net,
        workload: entry.workload.clone(),
        players: entry.players,
        context: CONTEXT.to_vec(),
        timeout: Duration::from_secs(600),
    };
    let start = Instant::now();
    let reports = play::play_in_memory(
        &spec,
        inputs,
        latency.map(facedown_net::Latency::fixed),
        |p| party_rng(seed, trial, p),
    )
    .map_err(|e| failed(entry, backend, e))?;
    Ok((reports, start.elapsed()))
}

/// Running totals of one row.
#[derive(Default)]
struct Tally {
    runs: u64,
    total: Cost,
    busiest: Duration,
    messages: (u64, u64),
    rounds: (u64, u64),
    notes: BTreeSet<String>,
}

impl Tally {
    fn record(&mut self, s: &RunStats) {
        if self.runs == 0 {
            self.messages = (u64::MAX, 0);
            self.rounds = (u64::MAX, 0);
        }
        self.runs += 1;
        self.total += s.cost;
        self.busiest += s.busiest;
        self.messages = (
            self.messages.0.min(s.cost.messages),
            self.messages.1.max(s.cost.messages),
        );
        self.rounds = (
            self.rounds.0.min(s.cost.rounds),
            self.rounds.1.max(s.cost.rounds),
        );
        self.notes.extend(s.outcome.weakened().iter().cloned());
    }
}

fn empty_row(entry: &Entry, backend: Backend, notes: Vec<String>) -> Row {
    Row {
        notes,
        ..blank_row(&entry.name(), backend, entry.players)
    }
}

/// A row of `workload` on `backend` at a table of `players` with no figure yet.
fn blank_row(workload: &str, backend: Backend, players: usize) -> Row {
    Row {
        workload: workload.to_owned(),
        backend: backend.name().to_owned(),
        runs: 0,
        wall_ms: None,
        cpu_ms: None,
        cpu_ms_per_player: None,
        messages: None,
        bytes: None,
        rounds: None,
        messages_range: None,
        rounds_range: None,
        security: backend.capabilities(players).security.label().to_owned(),
        excess_bits: None,
        excess_party: None,
        wall_ms_at_latency: None,
        game: None,
        notes: Vec::new(),
    }
}

/// Runs `entry` on `backend` for every trial and returns its row.
pub fn measure(entry: &Entry, backend: Backend, seed: u64) -> Result<Row, CompareError> {
    let mut tally = Tally::default();
    let wall = Instant::now();
    let cpu = ProcessTime::now();
    for (trial, inputs) in entry.trials(backend) {
        match run_once(entry, backend, seed, trial, &inputs) {
            Ok(s) => tally.record(&s),
            Err(CompareError::Workload(WorkloadError::Unfit(why))) => {
                return Ok(empty_row(
                    entry,
                    backend,
                    vec![format!("unsupported: {why}")],
                ))
            }
            Err(e) => return Err(e),
        }
    }
    let (wall_ms, cpu_ms) = (
        wall.elapsed().as_secs_f64() * 1e3,
        cpu.elapsed().as_secs_f64() * 1e3,
    );
    let per = |x: f64| x / tally.runs.max(1) as f64;
    let mut row = empty_row(
        entry,
        backend,
        group_notes(std::mem::take(&mut tally.notes)),
    );
    row.runs = tally.runs;
    row.wall_ms = Some(per(wall_ms));
    row.cpu_ms = Some(per(cpu_ms));
    if backend != Backend::Ideal {
        row.cpu_ms_per_player = Some(per(tally.busiest.as_secs_f64() * 1e3));
    }
    row.messages = Some(per(tally.total.messages as f64));
    row.bytes = Some(per(tally.total.bytes as f64));
    row.rounds = Some(per(tally.total.rounds as f64));
    row.messages_range = Some(tally.messages);
    row.rounds_range = Some(tally.rounds);
    excess(entry, backend, seed, &mut row);
    Ok(row)
}

/// Fills `excess_bits` and `excess_party` (or notes why not).
fn excess(entry: &Entry, backend: Backend, seed: u64, row: &mut Row) {
    let computed = match (backend, &entry.workload) {
        (Backend::Ideal, _) => Ok((0.0, None)),
        (Backend::Encrypted, _) => return,
        (Backend::Dealer, Workload::Card { name, .. }) => {
            dealer_excess(name, seed).map(|(b, p)| (b, Some(p)))
        }
        (Backend::Dealer, Workload::Deal(d)) => {
            dealer_deal_excess(entry.players, usize::from(d.cards), d.hand, d.public)
                .map(|(b, p)| (b, Some(p)))
        }
    };
    match computed {
        Ok((bits, party)) => {
            row.excess_bits = Some(bits);
            row.excess_party = party;
        }
        Err(why) => row.notes.push(format!("excess_bits: not computed: {why}")),
    }
}

/// The worst single party's excess leakage of a card protocol on the dealer, in bits, and who
/// it is: inputs uniform, every combination of every player's random choices enumerated
/// ([`facedown_leakage::cards::dealer_excess`]); the party's ideal view is his own inputs,
/// every turn and the output; his dealer view adds everything his engine saw.
pub fn dealer_excess(name: &str, seed: u64) -> Result<(f64, u16), String> {
    let p = facedown_cards::library::find(name)
        .ok_or_else(|| format!("no built-in `{name}`"))?
        .protocol();
    let e = facedown_leakage::cards::dealer_excess(&p, seed, 1 << 16).map_err(|e| e.to_string())?;
    Ok((e.bits, e.party.0))
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
) -> Result<(f64, u16), String> {
    use facedown_leakage::{collusion::closed_form_measure, Coalition, DealerTarget, Schedule};
    let scheme = facedown_dealer::scheme::Scheme::general(players, cards)
        .map_err(|e| format!("cannot build the dealer scheme: {e}"))?;
    let schedule = Schedule::new(&scheme, hand, public)
        .map_err(|e| format!("cannot build the schedule: {e}"))?;
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

/// Fills `wall_ms_at_latency`: the dealer's and the encrypted deck's rows are played once (the
/// first trial) over the in-memory network with a one-way delay of `latency` per message; the
/// ideal rows get `rounds × latency`, noted as an estimate.
pub fn add_latency(
    row: &mut Row,
    entry: &Entry,
    backend: Backend,
    latency: Duration,
    seed: u64,
) -> Result<(), CompareError> {
    let ms = latency.as_secs_f64() * 1e3;
    if row.runs == 0 {
        return Ok(());
    }
    if backend == Backend::Ideal {
        row.wall_ms_at_latency = row.rounds.map(|r| r * ms);
        row.notes.push(format!(
            "wall_ms_at_latency: estimate, rounds × {ms} ms (no networked run of this row)"
        ));
        return Ok(());
    }
    let (trial, inputs) = entry.trials(backend).swap_remove(0);
    let (_, wall) = networked(entry, backend, seed, trial, &inputs, Some(latency))?;
    row.wall_ms_at_latency = Some(wall.as_secs_f64() * 1e3);
    row.notes.push(format!(
        "wall_ms_at_latency: one run over the in-memory network, {ms} ms per message"
    ));
    Ok(())
}

/// What [`rows`] computes.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Seed of the run (every table's randomness is derived from it).
    pub seed: u64,
    /// One-way delay per message for `wall_ms_at_latency`.
    pub latency: Option<Duration>,
    /// Only the workloads whose name starts with this.
    pub only: Option<String>,
    /// Runs of every workload on every backend (per input assignment), instead of
    /// [`entries`]' defaults (games: games played, instead of one).
    pub runs: Option<u64>,
    /// Which games to play after the other workloads.
    pub games: games::GameSet,
    /// Where the games are played: the in-memory network, or processes over TCP.
    pub network: games::Network,
}

/// One cell of the comparison's matrix: a workload on a backend.
enum Cell {
    Run(Entry, Backend),
    Game(games::GameEntry, Backend),
}

impl Cell {
    fn name(&self) -> String {
        match self {
            Cell::Run(e, b) => format!("{} on {}", e.name(), b.name()),
            Cell::Game(g, b) => format!("{} on {}", g.name, b.name()),
        }
    }

    fn measure(&self, opts: &Options) -> Result<Row, CompareError> {
        match self {
            Cell::Run(entry, backend) => {
                let mut row = measure(entry, *backend, opts.seed)?;
                if let Some(l) = opts.latency {
                    add_latency(&mut row, entry, *backend, l, opts.seed)?;
                }
                Ok(row)
            }
            Cell::Game(entry, backend) => {
                games::measure(entry, *backend, opts.seed, opts.latency, opts.network)
            }
        }
    }
}

/// The name of every workload `games` adds to [`entries`], in table order.
pub fn workload_names(games: games::GameSet) -> Result<Vec<String>, WorkloadError> {
    let runs = entries()?.into_iter().map(|e| e.name());
    Ok(runs
        .chain(games::game_entries(games).into_iter().map(|g| g.name))
        .collect())
}

/// Every row of the comparison, in workload then backend order; `progress` is called before
/// each row.
pub fn rows(
    opts: &Options,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Vec<Row>, CompareError> {
    let wanted = |name: &str| {
        opts.only
            .as_ref()
            .is_none_or(|o| name.starts_with(o.as_str()))
    };
    let runs = entries()?
        .into_iter()
        .filter(|e| wanted(&e.name()))
        .map(|mut e| {
            if let Some(r) = opts.runs {
                e.reps = [r; 3];
            }
            e
        })
        .flat_map(|e| Backend::ALL.map(|b| Cell::Run(e.clone(), b)));
    let games = games::game_entries(opts.games)
        .into_iter()
        .filter(|g| wanted(&g.name))
        .map(|mut g| {
            g.reps = opts.runs.unwrap_or(g.reps);
            g
        })
        .flat_map(|g| Backend::ALL.map(|b| Cell::Game(g.clone(), b)));
    let matrix: Vec<Cell> = runs.chain(games).collect();
    let mut out = Vec::with_capacity(matrix.len());
    for (k, cell) in matrix.iter().enumerate() {
        progress(k, matrix.len(), &cell.name());
        out.push(cell.measure(opts)?);
    }
    Ok(out)
}

/// Merges the runner's per-line notes (`line 8: shuffle: reason`) that share a reason:
/// `shuffles at lines 8, 9: reason`.
#[doc(hidden)]
pub fn group_notes(notes: BTreeSet<String>) -> Vec<String> {
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
