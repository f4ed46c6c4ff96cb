//! Parsing the private actions (the private model, [NMTIO22] and Ono–Manabe [OM21]):
//!
//! ```text
//! private   = "private" NAME ( "perm" PERM "|" PERM [ "by" NAME ]
//!                            | ( "cut" POS+ | "bisect" POS+ "|" POS+ | "shuffle" SHUFFLE ) [ "as" NAME ]
//!                            | "look" POS+ [ "as" NAME ]
//!                            | "reverse" ( POS+ "by" NAME | "random" POS+ [ "as" NAME ] ) )
//! ```
//!
//! `NAME` after `private` is the input whose holder acts. `as r` names the bit a draw or a look
//! gives him; `by r` chooses by a bit he knows (his input, by its name, or one he named).
//! Whether those names are right is checked with the whole protocol
//! ([`crate::protocol::PrivateBitError`]), which reports the action's line.

use std::collections::BTreeSet;

use super::{PResult, Parser, Tok};
use crate::model::{ActionKind, PrivateChoice, Shuffle};

/// What may follow `private NAME`.
const EXPECTED: &str = "`perm`, `cut`, `bisect`, `shuffle`, `look` or `reverse` (a private action)";

impl Parser {
    /// `NAME …` after `private`.
    pub(super) fn private_action(&mut self) -> PResult<ActionKind> {
        let (_, input) = self.word("the input whose holder acts privately")?;
        let verb = match &self.peek().tok {
            Tok::Word(w) => w.clone(),
            _ => return Err(self.unexpected(EXPECTED)),
        };
        match verb.as_str() {
            "perm" => {
                self.bump();
                self.private_perm(input)
            }
            "cut" | "bisect" => {
                let shuffle = self.shuffle()?;
                self.private_draw(input, shuffle)
            }
            "shuffle" => {
                self.bump();
                let shuffle = self.shuffle()?;
                self.private_draw(input, shuffle)
            }
            "look" => {
                self.bump();
                let mut positions = self.position_list()?;
                positions.sort_unstable();
                Ok(ActionKind::PrivateLook {
                    input,
                    positions,
                    bit: self.named_bit()?,
                })
            }
            "reverse" => {
                self.bump();
                self.private_reverse(input)
            }
            _ => Err(self.unexpected(EXPECTED)),
        }
    }

    /// `PERM | PERM [by NAME]` after `private NAME perm`.
    fn private_perm(&mut self, input: String) -> PResult<ActionKind> {
        let (_, zero) = self.perm()?;
        self.expect(&Tok::Pipe, "`|` and the permutation for the bit 1")?;
        let (_, one) = self.perm()?;
        let by = self.chooser(&input)?;
        Ok(ActionKind::PrivatePerm {
            input,
            perms: [zero, one],
            by,
        })
    }

    fn private_draw(&mut self, input: String, shuffle: Shuffle) -> PResult<ActionKind> {
        Ok(ActionKind::PrivateShuffle {
            input,
            shuffle,
            bit: self.named_bit()?,
        })
    }

    /// `POS+ by NAME` or `random POS+ [as NAME]` after `private NAME reverse`.
    fn private_reverse(&mut self, input: String) -> PResult<ActionKind> {
        let random = matches!(&self.peek().tok, Tok::Word(w) if w == "random");
        if random {
            self.bump();
        }
        let positions = self.position_list()?;
        let choice = if random {
            PrivateChoice::Random(self.named_bit()?)
        } else {
            if !self.at_keyword("by") {
                return Err(self.unexpected(
                    "`by` and the bit that chooses (or write `reverse random …` for a random reverse)",
                ));
            }
            PrivateChoice::By(self.chooser(&input)?)
        };
        Ok(ActionKind::PrivateReverse {
            input,
            positions,
            choice,
        })
    }

    /// `[by NAME]`: `None` when absent or when it names the holder's own input.
    fn chooser(&mut self, input: &str) -> PResult<Option<String>> {
        if !self.at_keyword("by") {
            return Ok(None);
        }
        self.bump();
        let (_, name) = self.word("the bit that chooses (the holder's input or a bit he named)")?;
        Ok((name != input).then_some(name))
    }

    /// `[as NAME]`.
    fn named_bit(&mut self) -> PResult<Option<String>> {
        if !self.at_keyword("as") {
            return Ok(None);
        }
        self.bump();
        let (_, name) = self.word("a name for the private bit")?;
        Ok(Some(name))
    }

    fn at_keyword(&self, keyword: &str) -> bool {
        matches!(&self.peek().tok, Tok::Word(w) if w == keyword)
    }

    /// One or more distinct positions, 0-indexed.
    fn position_list(&mut self) -> PResult<Vec<usize>> {
        let positions = self.positions(&mut BTreeSet::new())?;
        Ok(positions.into_iter().map(|(_, p)| p).collect())
    }
}
