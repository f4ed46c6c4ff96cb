//! Inputs that are numbers modulo `n`: their moduli, the mixed-radix order of the input
//! assignments, and the function that may take them.
//!
//! An input laid out as `a{n}` ([`LayoutItem::Number`]) is a number `x ∈ Z_n` in the one-hot
//! encoding of Shinagawa et al. \[SMS+15\]: `n` cards, ♥ at position `x` (from 0, left to right),
//! ♣ elsewhere. Every other input is a bit (modulus 2). The assignments are numbered in mixed
//! radix, the first input most significant, so a protocol whose inputs are all bits keeps the
//! binary order (and the labels `00`, `01`, …) it always had; with a number among the inputs an
//! assignment reads `a=2,b=0`.
//!
//! The only function of numbers is `add-mod` ([`Function::AddMod`]): the sum of the inputs
//! modulo their common modulus, a number again. Its value in a [`Value`] is that number.

use super::ProtocolError;
use crate::model::{Function, LayoutItem, Value};

/// The most input assignments a protocol may have (the product of the moduli): as many as
/// [`super::MAX_INPUTS`] bits have.
pub const MAX_ASSIGNMENTS: usize = 1 << super::MAX_INPUTS;

/// The modulus of every input, in the order of `inputs`: `n` for an input laid out as `a{n}`,
/// 2 for a bit. An input laid out both ways, or with two moduli, is an error.
pub(super) fn moduli(
    inputs: &[String],
    layout: &[LayoutItem],
) -> Result<Vec<usize>, ProtocolError> {
    let mut seen: Vec<Option<(usize, bool)>> = vec![None; inputs.len()];
    for item in layout {
        let Some((name, _)) = item.input() else {
            continue;
        };
        let Some(j) = inputs.iter().position(|n| n == name) else {
            continue;
        };
        let here = match item {
            LayoutItem::Number { modulus, .. } if !(2..=super::MAX_CARDS).contains(modulus) => {
                return Err(ProtocolError::Modulus {
                    input: name.to_owned(),
                    modulus: *modulus,
                });
            }
            LayoutItem::Number { modulus, .. } => (*modulus, true),
            _ => (2, false),
        };
        match seen[j] {
            Some(before) if before != here => {
                return Err(ProtocolError::MixedEncoding(name.to_owned()));
            }
            _ => seen[j] = Some(here),
        }
    }
    let moduli: Vec<usize> = seen.into_iter().map(|m| m.map_or(2, |(n, _)| n)).collect();
    assignments(&moduli)?;
    Ok(moduli)
}

/// The number of input assignments, the product of the moduli, at most [`MAX_ASSIGNMENTS`].
pub(super) fn assignments(moduli: &[usize]) -> Result<usize, ProtocolError> {
    let product = moduli
        .iter()
        .try_fold(1usize, |acc, &m| acc.checked_mul(m))
        .filter(|&p| p <= MAX_ASSIGNMENTS);
    product.ok_or_else(|| ProtocolError::TooManyAssignments(moduli.to_vec()))
}

/// The input values of assignment `index` (mixed radix, first input most significant).
pub fn digits(index: usize, moduli: &[usize]) -> Vec<usize> {
    let mut rest = index;
    let mut out = vec![0; moduli.len()];
    for (d, &m) in out.iter_mut().zip(moduli).rev() {
        *d = rest % m;
        rest /= m;
    }
    out
}

/// The assignment of the input values `values` (each below its modulus), the inverse of
/// [`digits`].
pub fn index(values: &[usize], moduli: &[usize]) -> usize {
    values
        .iter()
        .zip(moduli)
        .fold(0, |index, (&v, &m)| index * m + v)
}

/// Whether some input is a number (a modulus other than 2, or laid out as `a{2}`).
pub(super) fn has_numbers(layout: &[LayoutItem]) -> bool {
    layout
        .iter()
        .any(|item| matches!(item, LayoutItem::Number { .. }))
}

/// The label of assignment `index` when some input is a number: `a=2,b=0`.
pub(super) fn label(index: usize, inputs: &[String], moduli: &[usize]) -> String {
    let items: Vec<String> = inputs
        .iter()
        .zip(digits(index, moduli))
        .map(|(name, d)| format!("{name}={d}"))
        .collect();
    items.join(",")
}

/// Checks that the function can take these inputs: `add-mod` needs one modulus shared by every
/// input; any other function takes bits only.
pub(super) fn check_function(
    function: &Function,
    inputs: &[String],
    moduli: &[usize],
    numbers: bool,
) -> Result<(), ProtocolError> {
    match function {
        Function::AddMod => match moduli.iter().find(|&&m| m != moduli[0]) {
            Some(_) => Err(ProtocolError::Function(format!(
                "`add-mod` adds numbers of one modulus; the inputs have moduli {moduli:?}"
            ))),
            None => Ok(()),
        },
        _ if numbers => {
            let (j, m) = moduli
                .iter()
                .enumerate()
                .find(|(_, &m)| m != 2)
                .map_or((0, 2), |(j, &m)| (j, m));
            Err(ProtocolError::Function(format!(
                "`{function}` is a function of bits, but input `{}` is a number modulo {m} \
                 (numbers take `add-mod`)",
                inputs[j]
            )))
        }
        _ => Ok(()),
    }
}

/// The value of `add-mod` on the input values `digits` (all of modulus `modulus`).
pub(super) fn add_mod(digits: &[usize], modulus: usize) -> Value {
    let sum = digits.iter().fold(0, |acc, &d| (acc + d) % modulus);
    // The modulus is at most MAX_CARDS, so the sum fits a Value.
    Value::try_from(sum).unwrap_or(Value::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_mixed_radix_with_the_first_input_most_significant() {
        assert_eq!(digits(5, &[3, 2]), vec![2, 1]);
        assert_eq!(digits(0, &[3, 3]), vec![0, 0]);
        assert_eq!(digits(7, &[3, 3]), vec![2, 1]);
        // Bits keep the binary order.
        assert_eq!(digits(2, &[2, 2]), vec![1, 0]);
        for i in 0..18 {
            assert_eq!(index(&digits(i, &[3, 2, 3]), &[3, 2, 3]), i);
        }
    }

    #[test]
    fn too_many_assignments_is_an_error_not_an_overflow() {
        assert!(assignments(&[256, 256]).is_ok());
        assert!(matches!(
            assignments(&[256, 257]),
            Err(ProtocolError::TooManyAssignments(_))
        ));
        assert!(matches!(
            assignments(&[usize::MAX, usize::MAX]),
            Err(ProtocolError::TooManyAssignments(_))
        ));
    }
}
