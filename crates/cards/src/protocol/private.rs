//! Compiling the private actions: who acts, which bit chooses, which bits are named.
//!
//! A private action's holder is a declared input's player. What he draws or sees may be named
//! (`as r`); a later private action of the same holder may be chosen by it (`by r`), or by his
//! input (`by a`, the default for `private a perm`). Names are checked here, in the order the
//! actions are written: a bit is named once, by one holder, before it is used.

use facedown_core::Perm;

use super::{Compiler, Op, ProtocolError};
use crate::model::{reversal, PrivateChoice, Shuffle, Span};

/// A private bit named by `as`: its index among the protocol's private bits, in the order
/// the actions are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PrivateBit(pub usize);

/// The bit that chooses a private permutation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chooser {
    /// The holder's input bit.
    Input,
    /// A bit he drew or saw.
    Bit(PrivateBit),
}

/// Why a private action's bit is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrivateBitError {
    /// `as r` where `r` already names an input or a bit.
    #[error("`{0}` already names an input or a private bit")]
    Taken(String),
    /// `by r` where no earlier action names `r`.
    #[error("`by {0}`: no earlier private action names a bit `{0}` (write `as {0}` there)")]
    Unknown(String),
    /// `by r` where `r` is another player's bit or input.
    #[error("`by {0}`: `{0}` is known to another player, not to this one")]
    NotHis(String),
    /// `as r` on a draw of other than two permutations.
    #[error("`as {name}` names a bit, but the draw has {perms} permutations, not 2")]
    NotBinary {
        /// The name.
        name: String,
        /// The permutations of the draw.
        perms: usize,
    },
    /// `as x` on a look at other than two cards.
    #[error("`as {name}` names the bit of a commitment, but the look shows {cards} cards, not 2")]
    NotACommitment {
        /// The name.
        name: String,
        /// The cards looked at.
        cards: usize,
    },
}

impl Compiler<'_> {
    /// `private a perm P0 | P1 [by r]`.
    pub(super) fn private_perm(
        &mut self,
        input: &str,
        perms: &[Perm; 2],
        by: Option<&str>,
        span: Span,
    ) -> Result<Op, ProtocolError> {
        let holder = self.holder(input, span)?;
        for p in perms {
            self.perm_size(p, span)?;
        }
        Ok(Op::PrivatePerm {
            input: holder,
            perms: perms.clone(),
            by: self.chooser(holder, by, span)?,
        })
    }

    /// `private a shuffle S [as r]` (and `private a cut …`, `private a bisect …`).
    pub(super) fn private_draw(
        &mut self,
        input: &str,
        shuffle: &Shuffle,
        bit: Option<&str>,
        span: Span,
    ) -> Result<Op, ProtocolError> {
        let holder = self.holder(input, span)?;
        self.private_shuffle(holder, shuffle, bit, span)
    }

    /// `private a look P… [as x]`.
    pub(super) fn private_look(
        &mut self,
        input: &str,
        positions: &[usize],
        bit: Option<&str>,
        span: Span,
    ) -> Result<Op, ProtocolError> {
        let holder = self.holder(input, span)?;
        self.positions(positions, span)?;
        if positions.windows(2).any(|w| w[1] < w[0]) {
            return Err(ProtocolError::TurnOrder { span });
        }
        if let Some(name) = bit.filter(|_| positions.len() != 2) {
            let e = PrivateBitError::NotACommitment {
                name: name.to_owned(),
                cards: positions.len(),
            };
            return Err(self.bit_error(holder, span, e));
        }
        let bit = bit.map(|n| self.name_bit(holder, n, span)).transpose()?;
        Ok(Op::PrivateLook {
            input: holder,
            positions: positions.to_vec(),
            bit,
        })
    }

    /// `private a reverse P… by r` or `private a reverse random P… [as r]`.
    pub(super) fn private_reverse(
        &mut self,
        input: &str,
        positions: &[usize],
        choice: &PrivateChoice,
        span: Span,
    ) -> Result<Op, ProtocolError> {
        let holder = self.holder(input, span)?;
        self.positions(positions, span)?;
        let reversed = reversal(self.cards, positions)
            .map_err(|source| ProtocolError::Shuffle { span, source })?;
        let perms = [Perm::identity(self.cards), reversed];
        match choice {
            PrivateChoice::By(by) => Ok(Op::PrivatePerm {
                input: holder,
                by: self.chooser(holder, by.as_deref(), span)?,
                perms,
            }),
            PrivateChoice::Random(bit) => {
                let draw = Shuffle::Set {
                    perms: perms.to_vec(),
                    weights: None,
                };
                self.private_shuffle(holder, &draw, bit.as_deref(), span)
            }
        }
    }

    fn private_shuffle(
        &mut self,
        holder: usize,
        shuffle: &Shuffle,
        bit: Option<&str>,
        span: Span,
    ) -> Result<Op, ProtocolError> {
        let shuffle = self.shuffle(shuffle, span)?;
        if let Some(name) = bit.filter(|_| shuffle.len() != 2) {
            return Err(self.bit_error(
                holder,
                span,
                PrivateBitError::NotBinary {
                    name: name.to_owned(),
                    perms: shuffle.len(),
                },
            ));
        }
        let bit = bit.map(|n| self.name_bit(holder, n, span)).transpose()?;
        Ok(Op::PrivateShuffle {
            input: holder,
            shuffle,
            bit,
        })
    }

    /// The index of the input whose holder acts.
    fn holder(&self, input: &str, span: Span) -> Result<usize, ProtocolError> {
        self.inputs.iter().position(|n| n == input).ok_or_else(|| {
            ProtocolError::UndeclaredPrivateInput {
                span,
                input: input.to_owned(),
            }
        })
    }

    fn perm_size(&self, p: &Perm, span: Span) -> Result<(), ProtocolError> {
        if p.len() == self.cards {
            return Ok(());
        }
        Err(ProtocolError::PermSize {
            span,
            got: p.len(),
            cards: self.cards,
        })
    }

    /// What `by NAME` refers to (`None`: the holder's input).
    fn chooser(
        &self,
        holder: usize,
        by: Option<&str>,
        span: Span,
    ) -> Result<Chooser, ProtocolError> {
        let Some(name) = by else {
            return Ok(Chooser::Input);
        };
        if let Some(input) = self.inputs.iter().position(|n| n == name) {
            return if input == holder {
                Ok(Chooser::Input)
            } else {
                Err(self.bit_error(holder, span, PrivateBitError::NotHis(name.to_owned())))
            };
        }
        match self
            .program
            .private_bits
            .iter()
            .position(|(n, _)| n == name)
        {
            Some(b) if self.program.private_bits[b].1 == holder => Ok(Chooser::Bit(PrivateBit(b))),
            Some(_) => Err(self.bit_error(holder, span, PrivateBitError::NotHis(name.to_owned()))),
            None => Err(self.bit_error(holder, span, PrivateBitError::Unknown(name.to_owned()))),
        }
    }

    /// Names a new private bit of `holder`.
    fn name_bit(
        &mut self,
        holder: usize,
        name: &str,
        span: Span,
    ) -> Result<PrivateBit, ProtocolError> {
        let taken = self.inputs.iter().any(|n| n == name)
            || self.program.private_bits.iter().any(|(n, _)| n == name);
        if taken {
            return Err(self.bit_error(holder, span, PrivateBitError::Taken(name.to_owned())));
        }
        self.program.private_bits.push((name.to_owned(), holder));
        Ok(PrivateBit(self.program.private_bits.len() - 1))
    }

    fn bit_error(&self, holder: usize, span: Span, source: PrivateBitError) -> ProtocolError {
        ProtocolError::PrivateBit {
            span,
            holder: self.inputs[holder].clone(),
            source,
        }
    }
}
