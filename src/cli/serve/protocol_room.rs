//! The protocol room's JSON endpoints: the library, and analysis, trace, state tree and
//! simulation of a library protocol or of a `.cards` text sent as the request body.
//!
//! Each answer is the document the CLI prints with `--json` for the same command
//! (`cards analyze`, `cards trace`, `cards tree`, `cards simulate`), so the page is a thin view
//! over the library and a script can use either.

use facedown::cards::analyze::{explore, AnalysisOptions};
use facedown::cards::library::{builtins, find, suggest};
use facedown::cards::parse::{parse, ParseError};
use facedown::cards::print::render_view;
use facedown::cards::{trace, tree, Protocol};
use serde_json::{json, Value};

use super::http::{Call, Refusal};
use crate::cli::cards::{analyze_document, chosen_inputs, parse_bits, simulation};
use crate::cli::output::Doc;

/// Most runs per input of one simulation.
pub const MAX_RUNS: u64 = 1_000_000;

/// `GET /api/protocols`: the library, as `cards list --json` names it.
pub fn protocols() -> Result<Value, Refusal> {
    let entries: Vec<Value> = builtins()
        .iter()
        .map(|b| {
            let p = b.protocol();
            json!({
                "name": b.name,
                "cards": p.cards(),
                "function": p.function().to_string(),
                "outputs": p.function().summary(),
                "citation": b.citation,
                "summary": b.summary,
                "negative_example": b.negative_example,
            })
        })
        .collect();
    document(Doc::new("cards list"), &json!({ "protocols": entries }))
}

/// `GET /api/source?protocol=NAME`: a library protocol's `.cards` text.
pub fn source(call: &Call) -> Result<Value, Refusal> {
    let name = required(call, "protocol")?;
    let b = find(name).ok_or_else(|| unknown(name))?;
    Ok(json!({ "name": b.name, "source": b.source }))
}

/// `POST /api/analyze`: the exact analysis and the file's claim checked.
pub fn analyze(call: &Call) -> Result<Value, Refusal> {
    let (name, p) = protocol_of(call)?;
    let (doc, ..) = analyze_document(&name, &p, None).map_err(failed)?;
    Ok(doc)
}

/// `POST /api/trace?input=1,0&seed=S`: one run, step by step, with the hidden row.
pub fn trace(call: &Call) -> Result<Value, Refusal> {
    let (name, p) = protocol_of(call)?;
    let input = required(call, "input")?;
    let bits = parse_bits(input, p.inputs().len()).map_err(|e| Refusal::bad(e.to_string()))?;
    let seed = call.int_param("seed", 0, 0..=u64::MAX)?;
    let t = trace::trace(&p, &bits, seed).map_err(|e| Refusal::new(422, e.to_string()))?;
    document(
        Doc::new("cards trace")
            .seed(seed)
            .parameters(json!({ "protocol": name, "input": input })),
        &t,
    )
}

/// `POST /api/tree`: the KWH state tree, vertices with exact probabilities and edges.
pub fn tree(call: &Call) -> Result<Value, Refusal> {
    let (name, p) = protocol_of(call)?;
    let t = tree::to_json(&p).map_err(|e| Refusal::new(422, e.to_string()))?;
    document(
        Doc::new("cards tree").parameters(json!({ "protocol": name })),
        &t,
    )
}

/// `POST /api/simulate?runs=R&seed=S[&input=…]`: `runs` runs per input, and beside the
/// empirical views the exact distribution (`exact_views`, `null` for a looping protocol).
pub fn simulate(call: &Call) -> Result<Value, Refusal> {
    let (name, p) = protocol_of(call)?;
    let runs = call.int_param("runs", 10_000, 1..=MAX_RUNS)?;
    let seed = call.int_param("seed", 0, 0..=u64::MAX)?;
    let input = call.param("input");
    let chosen = chosen_inputs(&p, input).map_err(|e| Refusal::bad(e.to_string()))?;
    let sim = simulation(&p, &chosen, runs, seed, None).map_err(failed)?;
    let mut doc = document(
        Doc::new("cards simulate")
            .seed(seed)
            .parameters(json!({ "protocol": name, "runs": runs, "input": input })),
        &sim,
    )?;
    doc["exact_views"] = exact_views(&p)?;
    Ok(doc)
}

/// Every complete view with its exact probability per input (as a fraction and rounded).
fn exact_views(p: &Protocol) -> Result<Value, Refusal> {
    let ex =
        explore(p, &AnalysisOptions::default()).map_err(|e| Refusal::new(422, e.to_string()))?;
    let Some(dist) = ex
        .view_distribution()
        .map_err(|e| Refusal::new(422, e.to_string()))?
    else {
        return Ok(Value::Null);
    };
    let views: Vec<Value> = dist
        .iter()
        .map(|(view, probs)| {
            json!({
                "view": render_view(view),
                "exact": probs.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "probability": probs.iter().map(ratio).collect::<Vec<_>>(),
            })
        })
        .collect();
    Ok(Value::Array(views))
}

fn ratio(q: &facedown::cards::Q) -> f64 {
    use num_traits::ToPrimitive;
    q.to_f64().unwrap_or(f64::NAN)
}

/// The protocol a call is about: the body's `.cards` text, or else the library protocol named
/// by `?protocol=`.
fn protocol_of(call: &Call) -> Result<(String, Protocol), Refusal> {
    if !call.body.trim().is_empty() {
        let p = parse(&call.body).map_err(|e| parse_refusal(&call.body, &e))?;
        return Ok((p.name().to_owned(), p));
    }
    let name = required(call, "protocol")?;
    let b = find(name).ok_or_else(|| unknown(name))?;
    Ok((b.name.to_owned(), b.protocol()))
}

/// 422 with where the parse failed: line, column and the line's text, for the page to mark.
fn parse_refusal(text: &str, e: &ParseError) -> Refusal {
    let line_text = text.lines().nth(e.line.saturating_sub(1)).unwrap_or("");
    Refusal {
        status: 422,
        error: json!({
            "message": e.kind.to_string(),
            "line": e.line,
            "col": e.col,
            "source_line": line_text,
        }),
    }
}

fn unknown(name: &str) -> Refusal {
    let hint = suggest(name).map_or_else(String::new, |s| format!(" (did you mean `{s}`?)"));
    Refusal::new(404, format!("no library protocol `{name}`{hint}"))
}

fn required<'a>(call: &'a Call, name: &str) -> Result<&'a str, Refusal> {
    call.param(name)
        .ok_or_else(|| Refusal::bad(format!("the parameter `{name}` is required")))
}

fn failed(e: anyhow::Error) -> Refusal {
    Refusal::new(422, format!("{e:#}"))
}

fn document(doc: Doc, body: &impl serde::Serialize) -> Result<Value, Refusal> {
    doc.build(body)
        .map_err(|e| Refusal::new(500, format!("cannot write the answer: {e}")))
}
