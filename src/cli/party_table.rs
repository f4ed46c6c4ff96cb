//! `facedown party --game … --backend ideal --table`: the trusted table of a game on the ideal
//! table, as a process of its own ([`facedown::ideal_net`]). The players are the roster's
//! other parties, each a `facedown party --game … --backend ideal`; `play-local --backend
//! ideal` starts them and this process on 127.0.0.1.

use std::time::Duration;

use anyhow::Context;
use facedown::ideal_net::{serve_table, table_party, TableReport};
use serde_json::json;

use super::game_session::{connect_seat, party_seat};
use super::net::{BackendArg, PartyArgs};
use super::output::{Doc, UsageError};

fn usage(message: String) -> anyhow::Error {
    UsageError(message).into()
}

/// Refuses a table that is not the ideal table's, is not the roster's last party, or is given
/// a player's flags.
fn check(args: &PartyArgs, roster_parties: usize) -> anyhow::Result<()> {
    if args.game.backend != BackendArg::Ideal {
        return Err(usage(format!(
            "--table is the ideal table's process, not the {}'s: give --backend ideal",
            args.game.backend.name()
        )));
    }
    let table = table_party(roster_parties);
    if args.id != table.0 {
        return Err(usage(format!(
            "the table is the roster's last party, {table}, not player {}",
            args.id
        )));
    }
    let s = &args.game.session;
    let stray = [
        ("--cheat", s.cheat.is_some()),
        ("--interactive", s.interactive.is_some()),
    ];
    match stray.iter().find(|(_, given)| *given) {
        Some((flag, _)) => Err(usage(format!("{flag} applies to players, not to --table"))),
        None => Ok(()),
    }
}

/// Runs `facedown party --table`: the table until every player has said goodbye.
pub fn serve(args: PartyArgs) -> anyhow::Result<()> {
    let (roster, me, seat) = party_seat(&args)?;
    check(&args, roster.players())?;
    let timeout = Duration::from_millis(args.game.timeout_ms);
    let mesh = connect_seat(&args, &roster, me, timeout)?;
    let report = serve_table(mesh, seat.randomness, timeout).context("the table")?;
    if args.game.json {
        let parameters = json!({
            "game": args.game.session.game,
            "backend": "ideal",
            "table": true,
            "timeout_ms": args.game.timeout_ms,
        });
        seat.record(Doc::new("party"), parameters).print(&report)?;
    } else {
        print_report(&report);
    }
    Ok(())
}

fn print_report(r: &TableReport) {
    println!(
        "the table of {} players: {} hands, {} operations applied, {} requests answered ({} \
         refused); sent {} messages, {} bytes",
        r.players,
        r.counts.hands,
        r.counts.applied,
        r.counts.answered,
        r.counts.refused,
        r.cost.messages,
        r.cost.bytes
    );
    if !r.left.is_empty() {
        println!("left without a goodbye: players {:?}", r.left);
    }
}
