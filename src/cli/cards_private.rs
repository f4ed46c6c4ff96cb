//! `facedown cards search-private`: the fewest cards with which a two-input function has a
//! correct, per-player perfectly secure protocol in the private model \[NMTIO22\] — one private
//! input permutation per player, then one public turn, no shuffle
//! ([`facedown::cards::search::private`]).

use std::time::Instant;

use anyhow::Context;
use facedown::cards::search::parse_function;
use facedown::cards::search::private::{smallest_private_protocol, PrivateSize};
use serde::Serialize;

use super::output::{ms, Doc};
use super::table::{Format, OutputArgs, Table};

/// Arguments of `facedown cards search-private`.
#[derive(Debug, clap::Args)]
pub struct PrivateSearchArgs {
    /// `and`, `or`, `xor`, `nand`, `nor`, `xnor`, or a truth table of four entries (`0001`).
    #[arg(long)]
    pub function: String,
    /// Most cards tried (2 to 4; sizes are tried from 2 up and the search stops at the first
    /// with a protocol).
    #[arg(long, default_value_t = 4)]
    pub max_cards: usize,
    /// Output format (the per-size table in CSV and Markdown).
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The JSON body of `cards search-private`.
#[derive(Serialize)]
struct PrivateReport {
    /// Every size tried, smallest first.
    sizes: Vec<PrivateSize>,
    /// The smallest number of cards with a protocol, if any up to the bound.
    smallest_cards: Option<usize>,
    /// The first protocol found at that size, as `.cards` text.
    protocol: Option<String>,
    /// Wall time of the search.
    wall_ms: f64,
}

/// Runs `facedown cards search-private`.
pub fn run(args: PrivateSearchArgs) -> anyhow::Result<()> {
    let function = parse_function(&args.function)?;
    let start = Instant::now();
    let found = smallest_private_protocol(&function, args.max_cards)
        .context("cannot search the private model")?;
    let report = PrivateReport {
        smallest_cards: found.protocol.as_ref().map(|p| p.cards()),
        protocol: found.protocol.as_ref().map(ToString::to_string),
        sizes: found.sizes,
        wall_ms: ms(start.elapsed()),
    };
    if args.output.json {
        return Doc::new("cards search-private")
            .parameters(serde_json::json!({
                "function": args.function,
                "max_cards": args.max_cards,
            }))
            .print(&report);
    }
    let mut t = Table::new(&["cards", "candidates", "found"]).right_aligned([0, 1, 2]);
    for s in &report.sizes {
        t.row(vec![
            s.cards.to_string(),
            s.candidates.to_string(),
            s.found.to_string(),
        ]);
    }
    t.print(args.output.format());
    if args.output.format() == Format::Text {
        match &report.protocol {
            Some(text) => print!("\nthe first protocol with the fewest cards:\n{text}"),
            None => println!("\nno protocol with at most {} cards", args.max_cards),
        }
        println!("searched in {:.1} ms", report.wall_ms);
    }
    Ok(())
}
