//! The headline report printed by `facedown` with no arguments.

use super::output::Doc;
use super::table::OutputArgs;
use super::{cards, compare};

/// Prints the headline report: the protocol table, then the comparison of every workload on
/// every face-down table (seed 0, the default runs). `--json` prints both as one document
/// (`protocols` and `comparison`); `--markdown` both tables as Markdown; `--csv` both tables
/// as CSV, separated by an empty line.
pub fn run(output: OutputArgs) -> anyhow::Result<()> {
    let protocols = cards::headline_rows()?;
    let args = compare::Args::headline();
    if output.json {
        let rows = compare::rows(&args)?;
        return Doc::new("report")
            .seed(args.seed)
            .parameters(serde_json::json!({ "comparison": compare::parameters(&args) }))
            .print(&serde_json::json!({
                "protocols": protocols,
                "comparison": compare::body(&rows, &args),
            }));
    }
    let format = output.format();
    cards::print_headline(&protocols, format);
    println!();
    let rows = compare::rows(&args)?;
    let args = compare::Args { output, ..args };
    compare::print(&rows, &args)
}
