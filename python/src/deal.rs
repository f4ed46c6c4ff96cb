//! A deal of hands and public cards on the permutation-sharing dealer or with Barnett–Smart
//! mental poker, each seeded; the audit's verdict is part of the result (a caught cheater is a
//! result, not an exception).

use std::time::Instant;

use facedown_core::rng::seeded_rng;
use facedown_core::{Cost, PartyId};
use facedown_dealer::{play_with_rng, AuditReport, Deviation, Game, Phase, Scheme};
use facedown_poker::deal::{deal_with_rng, DealParams, DealReport};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde::Serialize;

use crate::errors::{raise, DealError};
use crate::to_python;

/// The audit as the CLI reports it: the verdict, the blamed player, the first finding in words
/// and every finding.
#[derive(Serialize)]
struct Audit<'a> {
    passed: bool,
    blame: Option<u16>,
    first: Option<String>,
    findings: &'a [facedown_dealer::audit::Finding],
}

impl<'a> Audit<'a> {
    fn of(r: &'a AuditReport) -> Audit<'a> {
        Audit {
            passed: r.passed,
            blame: r.blame.map(|p| p.0),
            first: r.first().map(ToString::to_string),
            findings: &r.findings,
        }
    }
}

/// A dealer deal, shaped as `facedown dealer deal --json`.
#[derive(Serialize)]
struct DealerDeal<'a> {
    backend: &'static str,
    seed: u64,
    scheme: &'static str,
    players: usize,
    cards: usize,
    hand: usize,
    public_cards: usize,
    hands: &'a [Vec<u16>],
    public: &'a [u16],
    cheat: Option<&'a str>,
    aborted: &'a [u32],
    audit: Audit<'a>,
    cost: Cost,
    phases: &'a [Phase],
    wall_ms: f64,
}

/// A poker deal, shaped as `facedown poker deal --json`.
#[derive(Serialize)]
struct PokerDeal<'a> {
    backend: &'static str,
    seed: u64,
    hand: usize,
    public_cards: usize,
    #[serde(flatten)]
    report: &'a DealReport,
    wall_ms: f64,
}

fn parse_cheat(text: &str, players: usize) -> PyResult<(PartyId, Deviation)> {
    let (who, kind) = text
        .split_once(':')
        .ok_or_else(|| PyValueError::new_err("cheat takes \"PLAYER:KIND\", e.g. \"2:value@0\""))?;
    let who: u16 = who
        .parse()
        .map_err(|_| PyValueError::new_err(format!("cheat: {who:?} is not a player number")))?;
    if who == 0 || usize::from(who) > players {
        return Err(PyValueError::new_err(format!(
            "cheat: there is no player {who} among players 1..={players}"
        )));
    }
    let deviation: Deviation = kind
        .parse()
        .map_err(|e| PyValueError::new_err(format!("cheat: {e}")))?;
    Ok((PartyId(who), deviation))
}

/// The scheme called `name` (`general`, or `published` for three players), and its name.
pub(crate) fn scheme(name: &str, players: usize, cards: usize) -> PyResult<(Scheme, &'static str)> {
    match name {
        "general" => Ok((
            Scheme::general(players, cards).map_err(raise::<DealError>)?,
            "general",
        )),
        "published" if players == 3 => Ok((
            Scheme::published(cards).map_err(raise::<DealError>)?,
            "published",
        )),
        "published" => Err(PyValueError::new_err(
            "the published scheme is for exactly three players",
        )),
        other => Err(PyValueError::new_err(format!(
            "scheme `{other}`: expected `general` or `published`"
        ))),
    }
}

#[allow(clippy::too_many_arguments)]
fn dealer_deal<'py>(
    py: Python<'py>,
    players: usize,
    cards: usize,
    hand: usize,
    public: usize,
    seed: u64,
    scheme_name: &str,
    cheat: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let (scheme, variant) = scheme(scheme_name, players, cards)?;
    let deviation = cheat.map(|c| parse_cheat(c, players)).transpose()?;
    let start = Instant::now();
    let game: Game = py
        .detach(|| play_with_rng(scheme, hand, public, deviation, &mut seeded_rng(seed)))
        .map_err(raise::<DealError>)?;
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    let out = DealerDeal {
        backend: "dealer",
        seed,
        scheme: variant,
        players,
        cards,
        hand,
        public_cards: public,
        hands: &game.hands,
        public: &game.public,
        cheat,
        aborted: &game.aborted,
        audit: Audit::of(&game.finished.audit),
        cost: game.total(),
        phases: &game.finished.phases,
        wall_ms,
    };
    to_python(py, &out)
}

fn poker_deal<'py>(py: Python<'py>, params: DealParams, seed: u64) -> PyResult<Bound<'py, PyAny>> {
    params.validate().map_err(raise::<DealError>)?;
    // The same game context as `facedown poker deal`, so a seed gives the same deal.
    let session = format!("facedown poker deal seed={seed}");
    let start = Instant::now();
    let report = py.detach(|| deal_with_rng(params, session.as_bytes(), &mut seeded_rng(seed)));
    let out = PokerDeal {
        backend: "poker",
        seed,
        hand: params.hand,
        public_cards: params.public,
        report: &report,
        wall_ms: start.elapsed().as_secs_f64() * 1e3,
    };
    to_python(py, &out)
}

/// Deals `hand` cards to each of `players` players and opens `public` cards from a deck of
/// `cards`, then audits: on the permutation-sharing dealer (`backend="dealer"`, N ≥ 3, with an
/// optional `cheat="PLAYER:KIND"` deviation and `scheme="general"|"published"`) or with
/// Barnett–Smart mental poker (`backend="poker"`, N ≥ 2).
#[pyfunction]
#[pyo3(signature = (
    players, *, cards=52, hand=2, public=0, seed=0, backend="dealer", scheme="general",
    cheat=None
))]
#[allow(clippy::too_many_arguments)]
fn deal<'py>(
    py: Python<'py>,
    players: usize,
    cards: usize,
    hand: usize,
    public: usize,
    seed: u64,
    backend: &str,
    scheme: &str,
    cheat: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    match backend {
        "dealer" => dealer_deal(py, players, cards, hand, public, seed, scheme, cheat),
        "poker" => {
            if cheat.is_some() || scheme != "general" {
                return Err(PyValueError::new_err(
                    "cheat and scheme apply to the dealer backend only",
                ));
            }
            let cards = u16::try_from(cards).map_err(|_| {
                PyValueError::new_err(format!("a deck of {cards} cards is too large"))
            })?;
            let params = DealParams {
                players,
                cards,
                hand,
                public,
            };
            poker_deal(py, params, seed)
        }
        other => Err(PyValueError::new_err(format!(
            "backend `{other}`: expected `dealer` or `poker`"
        ))),
    }
}

/// Adds the deal to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(deal, m)?)?;
    Ok(())
}
