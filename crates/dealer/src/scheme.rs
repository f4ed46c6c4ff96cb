//! The scheme: who holds which permutation, and the message path of every opening.
//!
//! Everything here is public knowledge shared by all players: the number of players `N`, the
//! deck size `n`, the helper pairs the last player hands out, and — for each kind of opening —
//! the chain of messages ([`Plan`]). Players and the audit both derive their behaviour from
//! [`Scheme::plan`], so the honest protocol is written once.
//!
//! # Notation
//!
//! | seed / notes            | code                                   |
//! |-------------------------|----------------------------------------|
//! | `A_j`                   | [`Slot::Deal`]`(j)`                     |
//! | `A = A_N ∘ … ∘ A_1`     | position `i` holds card `A(i)`         |
//! | `C3`, `G3` (outer half) | [`Slot::Outer`]`(k)` of helper pair `k`  |
//! | `D3`, `F3` (inner half) | [`Slot::Inner`]`(k)` of helper pair `k`  |
//!
//! A helper pair `k` splits the last player's permutation as `A_N = Outer(k) ∘ Inner(k)`; the
//! inner half goes to the *inner holder*, who applies it in the middle of the chain, and the
//! outer half to the *outer holder*, who applies it last and so learns the card.
//!
//! Part of the permutation-sharing dealer \[perm-sharing-dealer\]; see the [crate docs](crate).

use core::fmt;

use facedown_core::PartyId;
use serde::{Deserialize, Serialize};

use crate::error::DealerError;

/// Largest number of players supported.
pub const MAX_PLAYERS: usize = 64;
/// Largest deck supported (cards travel as `u16`; ranking is quadratic in `n`).
pub const MAX_CARDS: usize = 1024;

/// One of the permutations of the scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Slot {
    /// `A_j`, the deal share of player `j`.
    Deal(PartyId),
    /// The outer half of helper pair `k` (`C3`, `G3`, …), applied last by the outer holder.
    Outer(u16),
    /// The inner half of helper pair `k` (`D3`, `F3`, …), applied mid-chain by the inner holder.
    Inner(u16),
}

impl Slot {
    /// A fixed-width code for hashing: tag byte then a big-endian `u16`.
    pub fn code(self) -> [u8; 3] {
        let (tag, x) = match self {
            Slot::Deal(p) => (0u8, p.0),
            Slot::Outer(k) => (1, k),
            Slot::Inner(k) => (2, k),
        };
        let [hi, lo] = x.to_be_bytes();
        [tag, hi, lo]
    }
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Slot::Deal(p) => write!(f, "A{}", p.0),
            Slot::Outer(k) => write!(f, "outer half of helper pair {k}"),
            Slot::Inner(k) => write!(f, "inner half of helper pair {k}"),
        }
    }
}

/// Which half of a helper pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Half {
    /// Applied last, by the player who learns the card (`C3`, `G3`).
    Outer,
    /// Applied mid-chain (`D3`, `F3`).
    Inner,
}

/// A split `A_N = outer ∘ inner` handed out by the last player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HelperPair {
    /// Name of the outer half in the notes (`C3`, `G3`, `C5[2]` …).
    pub outer_name: String,
    /// Name of the inner half (`D3`, `F3`, `D5[2]` …).
    pub inner_name: String,
    /// Who receives the outer half — and therefore learns the card.
    pub outer_holder: PartyId,
    /// Who receives the inner half.
    pub inner_holder: PartyId,
    /// Which half is drawn uniformly at random (and committed to); the other is derived.
    pub drawn: Half,
}

/// Where a message goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Recipient {
    /// One player, over the private pairwise channel.
    Party(PartyId),
    /// Every other player (a broadcast; costs `N − 1` deliveries).
    All,
}

impl fmt::Display for Recipient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Recipient::Party(p) => write!(f, "{p}"),
            Recipient::All => f.write_str("everyone"),
        }
    }
}

/// Which variant of the scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Variant {
    /// Exactly as published, three players: helper pairs `C3/D3` and `F3/G3`. Both deliver to
    /// player 1; there is no private path to player 2 (see the [notes](crate::notes)).
    Published,
    /// The generalisation to `N ≥ 3` players with a private path to every player.
    General,
}

/// How a card is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Route {
    /// Chain `1 → 2 → … → N`, then player `N` broadcasts `A(i)`.
    Public,
    /// Chain `1 → 2 → … → N`; player `N` keeps `A(i)`.
    Direct,
    /// Through helper pair `k`: the outer holder learns `A(i)`.
    Helper(u16),
}

/// An opening scheduled by the game: open the card at `position` along `route`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Operation {
    /// Identifier, unique within a deal.
    pub id: u32,
    /// The position `i` whose card `A(i)` is opened (0-indexed).
    pub position: u16,
    /// How it is opened.
    pub route: Route,
}

/// One message of an opening: `from` applies `apply` (left to right, each to the result of the
/// previous) to the value it holds and sends the result to `to`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hop {
    /// The sender.
    pub from: PartyId,
    /// The recipient.
    pub to: Recipient,
    /// The permutations the sender applies, first to last.
    pub apply: Vec<Slot>,
}

/// The message path of an opening and who learns the card at the end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// The messages, in order; hop 0 starts from the position `i`.
    pub hops: Vec<Hop>,
    /// Who learns the card.
    pub learner: Recipient,
    /// What the learner applies to the last value it receives (empty for a broadcast).
    pub finish: Vec<Slot>,
}

/// The public parameters of the scheme.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scheme {
    /// Published or general.
    pub variant: Variant,
    /// Number of players `N` (not to be confused with the deck size `n`).
    pub players: usize,
    /// Deck size `n`; cards and positions are `0..n`.
    pub cards: usize,
    /// The helper pairs of the last player.
    pub pairs: Vec<HelperPair>,
}

impl Scheme {
    /// The three-player scheme exactly as published: `C3 → 1`, `D3 = C3⁻¹ ∘ A3 → 2`,
    /// `F3 → 2`, `G3 = A3 ∘ F3⁻¹ → 1`.
    pub fn published(cards: usize) -> Result<Scheme, DealerError> {
        let s = Scheme {
            variant: Variant::Published,
            players: 3,
            cards,
            pairs: vec![
                HelperPair {
                    outer_name: "C3".into(),
                    inner_name: "D3".into(),
                    outer_holder: PartyId(1),
                    inner_holder: PartyId(2),
                    drawn: Half::Outer,
                },
                HelperPair {
                    outer_name: "G3".into(),
                    inner_name: "F3".into(),
                    outer_holder: PartyId(1),
                    inner_holder: PartyId(2),
                    drawn: Half::Inner,
                },
            ],
        };
        s.validate()?;
        Ok(s)
    }

    /// The generalisation to `N ≥ 3` players: for every target `p < N`, player `N` draws a
    /// fresh `C_N[p]`, gives it to `p` and `D_N[p] = C_N[p]⁻¹ ∘ A_N` to player `N − 1`
    /// (to player `N − 2` when `p = N − 1`). Player `N` reaches his own cards directly.
    pub fn general(players: usize, cards: usize) -> Result<Scheme, DealerError> {
        let n_last = u16::try_from(players)
            .map_err(|_| DealerError::Config(format!("{players} players is too many")))?;
        let pairs = (1..n_last)
            .map(|p| {
                let inner = if p == n_last - 1 {
                    n_last - 2
                } else {
                    n_last - 1
                };
                HelperPair {
                    outer_name: format!("C{n_last}[{p}]"),
                    inner_name: format!("D{n_last}[{p}]"),
                    outer_holder: PartyId(p),
                    inner_holder: PartyId(inner),
                    drawn: Half::Outer,
                }
            })
            .collect();
        let s = Scheme {
            variant: Variant::General,
            players,
            cards,
            pairs,
        };
        s.validate()?;
        Ok(s)
    }

    /// Checks that the parameters make sense (a scheme read from a file is checked too).
    pub fn validate(&self) -> Result<(), DealerError> {
        if !(3..=MAX_PLAYERS).contains(&self.players) {
            return Err(DealerError::Config(format!(
                "the scheme needs 3..={MAX_PLAYERS} players, not {}",
                self.players
            )));
        }
        if !(2..=MAX_CARDS).contains(&self.cards) {
            return Err(DealerError::Config(format!(
                "the deck must have 2..={MAX_CARDS} cards, not {}",
                self.cards
            )));
        }
        if self.variant == Variant::Published && self.players != 3 {
            return Err(DealerError::Config(
                "the published scheme is for exactly three players".into(),
            ));
        }
        if self.pairs.len() > MAX_PLAYERS * 2 {
            return Err(DealerError::Config("too many helper pairs".into()));
        }
        let last = self.last();
        for (k, pair) in self.pairs.iter().enumerate() {
            let ok = |p: PartyId| p.0 >= 1 && p < last;
            if !ok(pair.outer_holder) || !ok(pair.inner_holder) {
                return Err(DealerError::Config(format!(
                    "helper pair {k}: holders must be players 1..{}",
                    last.0
                )));
            }
            if pair.outer_holder == pair.inner_holder {
                return Err(DealerError::Config(format!(
                    "helper pair {k}: one player would hold both halves, i.e. A{}",
                    last.0
                )));
            }
        }
        Ok(())
    }

    /// The last player, `N`.
    pub fn last(&self) -> PartyId {
        PartyId::from_index(self.players.saturating_sub(1))
    }

    /// The helper pair `k`.
    pub fn pair(&self, k: u16) -> Option<&HelperPair> {
        self.pairs.get(usize::from(k))
    }

    /// The slots player `party` draws at random and commits to.
    pub fn committed_slots(&self, party: PartyId) -> Vec<Slot> {
        let mut slots = vec![Slot::Deal(party)];
        if party == self.last() {
            for (k, pair) in self.pairs.iter().enumerate() {
                let k = k as u16;
                slots.push(match pair.drawn {
                    Half::Outer => Slot::Outer(k),
                    Half::Inner => Slot::Inner(k),
                });
            }
        }
        slots
    }

    /// The route of a private opening to `p`, if the scheme has one.
    ///
    /// In the published scheme, player 1 is reached through `C3/D3` (the first pair) and
    /// player 3 directly; player 2 has no path.
    pub fn private_route(&self, p: PartyId) -> Result<Route, DealerError> {
        if p == self.last() {
            return Ok(Route::Direct);
        }
        self.pairs
            .iter()
            .position(|pair| pair.outer_holder == p)
            .map(|k| Route::Helper(k as u16))
            .ok_or(DealerError::NoPrivatePath(p))
    }

    /// The message path of an opening along `route`.
    pub fn plan(&self, route: Route) -> Result<Plan, DealerError> {
        let n_players = self.players;
        let chain = |upto: usize| -> Vec<Hop> {
            (1..upto)
                .map(|j| Hop {
                    from: PartyId::from_index(j - 1),
                    to: Recipient::Party(PartyId::from_index(j)),
                    apply: vec![Slot::Deal(PartyId::from_index(j - 1))],
                })
                .collect()
        };
        let last = self.last();
        match route {
            Route::Public => {
                let mut hops = chain(n_players);
                hops.push(Hop {
                    from: last,
                    to: Recipient::All,
                    apply: vec![Slot::Deal(last)],
                });
                Ok(Plan {
                    hops,
                    learner: Recipient::All,
                    finish: vec![],
                })
            }
            Route::Direct => Ok(Plan {
                hops: chain(n_players),
                learner: Recipient::Party(last),
                finish: vec![Slot::Deal(last)],
            }),
            Route::Helper(k) => {
                let pair = self
                    .pair(k)
                    .ok_or_else(|| DealerError::Config(format!("no helper pair {k}")))?;
                let penultimate = PartyId::from_index(n_players - 2);
                // Chain 1 → … → N−1: player N−1 then holds A_{N−2} ∘ … ∘ A_1(i).
                let mut hops = chain(n_players - 1);
                if pair.inner_holder == penultimate {
                    hops.push(Hop {
                        from: penultimate,
                        to: Recipient::Party(pair.outer_holder),
                        apply: vec![Slot::Deal(penultimate), Slot::Inner(k)],
                    });
                } else {
                    hops.push(Hop {
                        from: penultimate,
                        to: Recipient::Party(pair.inner_holder),
                        apply: vec![Slot::Deal(penultimate)],
                    });
                    hops.push(Hop {
                        from: pair.inner_holder,
                        to: Recipient::Party(pair.outer_holder),
                        apply: vec![Slot::Inner(k)],
                    });
                }
                Ok(Plan {
                    hops,
                    learner: Recipient::Party(pair.outer_holder),
                    finish: vec![Slot::Outer(k)],
                })
            }
        }
    }
}

impl Plan {
    /// Point-to-point deliveries (a broadcast counts `N − 1`).
    pub fn messages(&self, players: usize) -> u64 {
        self.hops
            .iter()
            .map(|h| match h.to {
                Recipient::Party(_) => 1,
                Recipient::All => players as u64 - 1,
            })
            .sum()
    }

    /// Sequential rounds: every hop waits for the previous one.
    pub fn rounds(&self) -> u64 {
        self.hops.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_scheme_reaches_every_player_privately() {
        for n_players in 3..=8 {
            let s = Scheme::general(n_players, 52).expect("valid");
            for p in PartyId::all(n_players) {
                let plan = s.plan(s.private_route(p).expect("path")).expect("plan");
                assert_eq!(plan.learner, Recipient::Party(p));
                // The learner never holds both halves of A_N, nor is it player N unless direct.
                assert!(plan.hops.iter().all(|h| h.to != Recipient::All));
            }
        }
    }

    #[test]
    fn published_scheme_has_no_private_path_to_player_2() {
        let s = Scheme::published(37).expect("valid");
        assert_eq!(s.private_route(PartyId(1)), Ok(Route::Helper(0)));
        assert_eq!(s.private_route(PartyId(3)), Ok(Route::Direct));
        assert_eq!(
            s.private_route(PartyId(2)),
            Err(DealerError::NoPrivatePath(PartyId(2)))
        );
    }

    #[test]
    fn message_and_round_counts_per_card() {
        for n in 3..=8u64 {
            let s = Scheme::general(n as usize, 52).expect("valid");
            let public = s.plan(Route::Public).expect("plan");
            assert_eq!(
                (public.messages(n as usize), public.rounds()),
                (2 * (n - 1), n)
            );
            let direct = s.plan(Route::Direct).expect("plan");
            assert_eq!(
                (direct.messages(n as usize), direct.rounds()),
                (n - 1, n - 1)
            );
            for p in 1..n {
                let plan = s
                    .plan(s.private_route(PartyId(p as u16)).expect("path"))
                    .expect("plan");
                let expect = if p == n - 1 { n } else { n - 1 };
                assert_eq!((plan.messages(n as usize), plan.rounds()), (expect, expect));
            }
        }
    }

    #[test]
    fn bad_parameters_are_rejected() {
        assert!(Scheme::general(2, 52).is_err());
        assert!(Scheme::general(3, 1).is_err());
        assert!(Scheme::general(3, MAX_CARDS + 1).is_err());
        let mut s = Scheme::general(4, 10).expect("valid");
        s.pairs[0].inner_holder = s.pairs[0].outer_holder;
        assert!(s.validate().is_err());
        s.pairs[0].inner_holder = PartyId(4);
        assert!(s.validate().is_err());
    }
}
