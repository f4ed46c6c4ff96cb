//! The `--input` of `cards simulate` and `cards trace`: input bits (`1,0`, `10`) or, for a
//! protocol with number inputs, each input's value by name (`x=2,y=1`).

use anyhow::{bail, Context};

use facedown::cards::Protocol;

use super::cards::parse_bits;

/// The values of every input (first input first; a bit is 0 or 1) that `text` gives.
pub(crate) fn parse_values(p: &Protocol, text: &str) -> anyhow::Result<Vec<usize>> {
    if !text.contains('=') {
        if p.has_numbers() {
            bail!(
                "the protocol has number inputs: give each input's value by name, as in `{}`",
                example(p)
            );
        }
        let bits = parse_bits(text, p.inputs().len())?;
        return Ok(bits.into_iter().map(usize::from).collect());
    }
    let mut values: Vec<Option<usize>> = vec![None; p.inputs().len()];
    for item in text.split(',').map(str::trim) {
        let (name, value) = item
            .split_once('=')
            .with_context(|| format!("`{item}` is not `name=value` (as in `{}`)", example(p)))?;
        let j = p
            .inputs()
            .iter()
            .position(|n| n == name.trim())
            .with_context(|| format!("the protocol has no input `{}`", name.trim()))?;
        let modulus = p.moduli()[j];
        let value: usize = value
            .trim()
            .parse()
            .ok()
            .filter(|&v| v < modulus)
            .with_context(|| format!("`{item}`: input `{name}` takes 0 to {}", modulus - 1))?;
        if values[j].replace(value).is_some() {
            bail!("input `{name}` is given twice");
        }
    }
    values
        .into_iter()
        .zip(p.inputs())
        .map(|(v, name)| v.with_context(|| format!("no value for input `{name}`")))
        .collect()
}

/// `x=0,y=0`: every input at 0, the form `--input` takes.
fn example(p: &Protocol) -> String {
    let items: Vec<String> = p.inputs().iter().map(|n| format!("{n}=0")).collect();
    items.join(",")
}
