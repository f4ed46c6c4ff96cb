//! The variants of Ninety-Nine and the rule switches each one sets.
//!
//! Both seed documents describe David Parlett's game, one his own page (with the classic
//! 37-card game and his variants) and one a digest of the revised 1990 rules (with the
//! four-, five- and two-hand games). Where they differ, both versions are here, as separate
//! variants.

use core::fmt;

use serde::{Deserialize, Serialize};

use crate::cards::{pack, Card, Rank, Suit};

/// The trump suit of a deal; `None` is no trumps.
pub type Trump = Option<Suit>;

/// A named set of rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// Three players, 36 cards, the revised rules of 1990: the first deal without trumps, then
    /// trumps by how many made their contract in the previous deal.
    Revised,
    /// Three players, 37 cards with a Joker; the 37th card turned up for trumps (a nine or the
    /// Joker: no trumps); a dealt Joker stands for the turned-up card. Nine deals.
    Classic,
    /// Junk Joker: as the revised rules, but the first deal is played with diamonds as trumps.
    JunkJoker,
    /// Ninety-Nine Declared: no trump is fixed in advance; a premium bidder names it in return
    /// for declaring or revealing, and premium offers come before the bids. Without a premium
    /// bidder the trump of the previous deal stays (no trumps in the first).
    Declared,
    /// Eighteen Ninety-Nine: the 18 cards left over from a 54-card pack (the twos to fives and
    /// two Jokers) are a face-down stack turned one per deal for trumps (a Joker: no trumps),
    /// for 18 deals.
    EighteenNinetyNine,
    /// Long Ninety-Nine: 48 cards (no nines), 16 each, 13 tricks; bids 10..13 share the codes of
    /// 0..3; all bids shown at the end; no trick points, a penalty of one per trick off.
    Long,
    /// Four players, 53 cards with a Joker, the 53rd turned up for trumps (Parlett's page).
    FourSolo,
    /// Four players, 52 cards, trumps by successes (all four: no trumps next), the revised rules.
    Four,
    /// Four players in two partnerships, all bid cards shown after bidding, no premiums.
    FourPartnership,
    /// Five players, the 60-card Five Hundred pack (elevens and twelves), 12 each; any number
    /// may declare, for ±50; nobody reveals.
    Five,
    /// Five players with a 52-card pack extended to 60 by a second seven and eight of each suit;
    /// of two equal cards the first played beats the second.
    FiveDuplicates,
    /// Two players and a dummy (the revised rules): the dummy's first three cards are its
    /// hidden bid; clubs are trumps in the first deal.
    TwoDummy,
    /// Two players and a dummy (Parlett's page): the dummy's top card is turned for trumps, its
    /// next three are its bid; the dummy is deemed to have failed when it took more tricks than
    /// it bid, to have succeeded when it took fewer, and to have succeeded and declared when
    /// it took exactly its bid.
    TwoDummyTurnUp,
    /// Two players without a dummy: 33 cards (seven to ace and a Joker), 16 each, the 33rd
    /// turned for trumps; bids 0..13 with the codes of 0..3 also meaning 10..13; no premiums; a
    /// growing bonus for consecutive successes.
    TwoOpen,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 14] = [
        Variant::Revised,
        Variant::Classic,
        Variant::JunkJoker,
        Variant::Declared,
        Variant::EighteenNinetyNine,
        Variant::Long,
        Variant::FourSolo,
        Variant::Four,
        Variant::FourPartnership,
        Variant::Five,
        Variant::FiveDuplicates,
        Variant::TwoDummy,
        Variant::TwoDummyTurnUp,
        Variant::TwoOpen,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Revised => "revised",
            Variant::Classic => "classic",
            Variant::JunkJoker => "junk-joker",
            Variant::Declared => "declared",
            Variant::EighteenNinetyNine => "eighteen-ninety-nine",
            Variant::Long => "long",
            Variant::FourSolo => "four-solo",
            Variant::Four => "four",
            Variant::FourPartnership => "four-partnership",
            Variant::Five => "five",
            Variant::FiveDuplicates => "five-duplicates",
            Variant::TwoDummy => "two-dummy",
            Variant::TwoDummyTurnUp => "two-dummy-turn-up",
            Variant::TwoOpen => "two-open",
        }
    }

    /// One line on what sets the variant apart.
    pub fn summary(self) -> &'static str {
        match self {
            Variant::Revised => {
                "3 players, 36 cards; no trumps first, then trumps by how many made their bids"
            }
            Variant::Classic => {
                "3 players, 37 cards with a Joker; the 37th card turned up for trumps; nine deals"
            }
            Variant::JunkJoker => "as revised, but diamonds are trumps in the first deal",
            Variant::Declared => "a premium bidder names trumps; premium offers before the bids",
            Variant::EighteenNinetyNine => {
                "18 deals, trumps turned from a stack of the twos to fives and two Jokers"
            }
            Variant::Long => {
                "48 cards without nines, 16 each, 13 tricks; bids 10..13; penalties for tricks off"
            }
            Variant::FourSolo => {
                "4 players, 53 cards with a Joker, one turned up; three diamonds bid 0 or 10"
            }
            Variant::Four => "4 players, 52 cards; trumps by successes (all four: no trumps)",
            Variant::FourPartnership => {
                "4 players in two partnerships; all bids shown after bidding; no premiums"
            }
            Variant::Five => {
                "5 players, the 60-card Five Hundred pack; any number may declare for ±50"
            }
            Variant::FiveDuplicates => {
                "5 players, 52 cards plus a second seven and eight of each suit"
            }
            Variant::TwoDummy => {
                "2 players and a dummy whose top three cards are its bid; clubs first"
            }
            Variant::TwoDummyTurnUp => "2 players and a dummy whose top card is turned for trumps",
            Variant::TwoOpen => {
                "2 players, 33 cards, 16 each; bids 0..13; a growing bonus for runs of successes"
            }
        }
    }

    /// The variant of a command-line name.
    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }

    /// The rule switches of the variant.
    pub fn rules(self) -> Rules {
        use Variant::*;
        let three = Rules {
            players: 3,
            seats: 3,
            hand: 12,
            ranks: Rank::SIX_TO_ACE.to_vec(),
            copies: Vec::new(),
            jokers: 0,
            turned_up: false,
            trump: TrumpRule::History {
                first: None,
                next: NextTrump::BySuccesses {
                    no_trump_from: None,
                },
            },
            reading: BidReading::Exact,
            premium: PremiumRule::Single { reveal: true },
            scoring: Scoring::Tricks {
                bonus: vec![0, 30, 20, 10],
            },
            partnership: false,
            open_bids: false,
            show_all_bids: false,
            dummy: None,
            premium_first: false,
            duplicates_first_wins: false,
        };
        match self {
            Revised => three,
            Classic => Rules {
                jokers: 1,
                turned_up: true,
                trump: TrumpRule::TurnedUp,
                ..three
            },
            JunkJoker => Rules {
                trump: TrumpRule::History {
                    first: Some(Suit::Diamonds),
                    next: NextTrump::BySuccesses {
                        no_trump_from: None,
                    },
                },
                ..three
            },
            Declared => Rules {
                trump: TrumpRule::Named,
                premium_first: true,
                ..three
            },
            EighteenNinetyNine => Rules {
                trump: TrumpRule::Stack,
                ..three
            },
            Long => Rules {
                hand: 16,
                ranks: vec![
                    Rank::Two,
                    Rank::Three,
                    Rank::Four,
                    Rank::Five,
                    Rank::Six,
                    Rank::Seven,
                    Rank::Eight,
                    Rank::Ten,
                    Rank::Jack,
                    Rank::Queen,
                    Rank::King,
                    Rank::Ace,
                ],
                trump: TrumpRule::History {
                    first: Some(Suit::Diamonds),
                    next: NextTrump::ByDeviation,
                },
                reading: BidReading::PlusTen,
                scoring: Scoring::Long {
                    bonus: vec![0, 30, 20, 10],
                },
                show_all_bids: true,
                ..three
            },
            FourSolo => Rules {
                players: 4,
                seats: 4,
                hand: 13,
                ranks: Rank::STANDARD.to_vec(),
                jokers: 1,
                turned_up: true,
                trump: TrumpRule::TurnedUp,
                reading: BidReading::ZeroOrTen,
                scoring: Scoring::Tricks {
                    bonus: vec![0, 30, 20, 10, 0],
                },
                ..three
            },
            Four => Rules {
                players: 4,
                seats: 4,
                hand: 13,
                ranks: Rank::STANDARD.to_vec(),
                trump: TrumpRule::History {
                    first: None,
                    next: NextTrump::BySuccesses {
                        no_trump_from: Some(4),
                    },
                },
                reading: BidReading::ZeroOrTen,
                scoring: Scoring::Tricks {
                    bonus: vec![0, 30, 20, 10, 0],
                },
                ..three
            },
            FourPartnership => Rules {
                premium: PremiumRule::None,
                scoring: Scoring::Partnership,
                partnership: true,
                open_bids: true,
                ..FourSolo.rules()
            },
            Five => Rules {
                players: 5,
                seats: 5,
                hand: 12,
                ranks: Rank::ALL.to_vec(),
                trump: TrumpRule::History {
                    first: None,
                    next: NextTrump::BySuccesses {
                        no_trump_from: Some(4),
                    },
                },
                premium: PremiumRule::AnyDeclare {
                    bonus: 50,
                    failure: DeclareFailure::Penalty,
                },
                scoring: Scoring::Tricks {
                    bonus: vec![0, 50, 40, 30, 20, 10],
                },
                ..three
            },
            FiveDuplicates => Rules {
                ranks: Rank::STANDARD.to_vec(),
                copies: vec![Rank::Seven, Rank::Eight],
                duplicates_first_wins: true,
                ..Five.rules()
            },
            TwoDummy => Rules {
                players: 2,
                dummy: Some(DummyRule::BidFromTop),
                trump: TrumpRule::History {
                    first: Some(Suit::Clubs),
                    next: NextTrump::BySuccesses {
                        no_trump_from: None,
                    },
                },
                premium: PremiumRule::AnyDeclare {
                    bonus: 30,
                    failure: DeclareFailure::ToOthers,
                },
                ..three
            },
            TwoDummyTurnUp => Rules {
                players: 2,
                dummy: Some(DummyRule::TrumpFromTop),
                trump: TrumpRule::FromDummy,
                premium: PremiumRule::AnyDeclare {
                    bonus: 30,
                    failure: DeclareFailure::ToOthers,
                },
                ..three
            },
            TwoOpen => Rules {
                players: 2,
                seats: 2,
                hand: 16,
                // Seven to ace.
                ranks: Rank::STANDARD[5..].to_vec(),
                jokers: 1,
                turned_up: true,
                trump: TrumpRule::TurnedUp,
                reading: BidReading::PlusTen,
                premium: PremiumRule::None,
                scoring: Scoring::Streak,
                ..three
            },
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the trump suit of a deal is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TrumpRule {
    /// The card after the hands is turned up: its suit, or no trumps for a nine or a Joker.
    TurnedUp,
    /// The dummy's top card is turned up: its suit, or no trumps for a nine.
    FromDummy,
    /// From the previous deal (`first` in the first deal).
    History {
        /// The trump of the first deal.
        first: Trump,
        /// How the previous deal fixes the next trump.
        next: NextTrump,
    },
    /// Named by the premium bidder; without one, the previous deal's trump stays.
    Named,
    /// Turned from a stack kept by the series (Eighteen Ninety-Nine).
    Stack,
}

impl TrumpRule {
    /// Whether a deal can be played without trumps (where the "all trumps" rule applies).
    pub fn may_lack_trumps(self) -> bool {
        match self {
            TrumpRule::History { first, next } => {
                first.is_none()
                    || matches!(
                        next,
                        NextTrump::BySuccesses {
                            no_trump_from: Some(_)
                        }
                    )
            }
            TrumpRule::TurnedUp | TrumpRule::FromDummy | TrumpRule::Named | TrumpRule::Stack => {
                true
            }
        }
    }
}

/// How a deal fixes the trump of the next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NextTrump {
    /// By how many made their contract: 3 → ♣, 2 → ♥, 1 → ♠, 0 → ♦ (and no trumps from
    /// `no_trump_from` successes on).
    BySuccesses {
        /// Successes from which the next deal has no trumps.
        no_trump_from: Option<usize>,
    },
    /// By the tricks by which all bids were missed in total: 0 → ♦, 1 → ♠, 2 → ♥, 3+ → ♣.
    ByDeviation,
}

/// What a bid's number means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BidReading {
    /// The number of tricks, exactly.
    Exact,
    /// Three diamonds (0) also means all ten tricks: either makes the bid.
    ZeroOrTen,
    /// Codes 0..3 also mean 10..13; at the end the bidder gets the reading that suits him.
    PlusTen,
}

/// Who may bid a premium.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PremiumRule {
    /// No premiums.
    None,
    /// One premium bidder at most, chosen by priority: revealing beats declaring, then the
    /// earlier player from the dealer's left.
    Single {
        /// Whether revealing is allowed.
        reveal: bool,
    },
    /// Any number may declare (nobody reveals).
    AnyDeclare {
        /// The premium.
        bonus: i32,
        /// What a failed declaration costs.
        failure: DeclareFailure,
    },
}

/// What a failed declaration costs when several may declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeclareFailure {
    /// The declarer loses the premium.
    Penalty,
    /// Each other hand that is not itself a failed declarer gets the premium (two-hand games:
    /// one fails → the other two get it; both fail → only the dummy gets it, twice).
    ToOthers,
}

/// How a deal is scored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// One point per trick, and `bonus[n]` for making the contract when `n` hands made theirs.
    Tricks {
        /// Contract bonus by the number of successful hands.
        bonus: Vec<i32>,
    },
    /// Long Ninety-Nine: `bonus[n]` for a success, minus the tricks off for a failure, no trick
    /// points.
    Long {
        /// Contract bonus by the number of successful hands.
        bonus: Vec<i32>,
    },
    /// Partnerships: tricks of the side, plus 30 when both partners made their bids, 20 when
    /// the side made its combined bid but neither partner his own, 10 when one partner made his.
    Partnership,
    /// One point per trick, and for a success 10 times the length of the run of consecutive
    /// successes it extends.
    Streak,
}

/// How the dummy of a two-hand game is dealt and judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DummyRule {
    /// Its first three cards are its bid; it succeeds when it takes exactly its bid.
    BidFromTop,
    /// Its top card is turned for trumps and stays in its hand; the next three are its bid;
    /// more tricks than bid fails, fewer succeeds, exactly succeeds and counts as a successful
    /// declaration.
    TrumpFromTop,
}

/// The rule switches of a variant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rules {
    /// People at the table.
    pub players: usize,
    /// Hands dealt (the dummy is a seat that is not a player).
    pub seats: usize,
    /// Cards per hand.
    pub hand: usize,
    /// The ranks of the pack, in every suit.
    pub ranks: Vec<Rank>,
    /// Ranks that have a second copy in every suit.
    pub copies: Vec<Rank>,
    /// Jokers in the pack.
    pub jokers: u8,
    /// Whether the card after the hands is turned up.
    pub turned_up: bool,
    /// How trumps are found.
    pub trump: TrumpRule,
    /// What a bid number means.
    pub reading: BidReading,
    /// Who may bid premiums.
    pub premium: PremiumRule,
    /// How a deal is scored.
    pub scoring: Scoring,
    /// Seats 1 & 3 and 2 & 4 are partners.
    pub partnership: bool,
    /// All bid cards are turned face up once everybody has bid.
    pub open_bids: bool,
    /// All bid cards are shown at the end, made or not.
    pub show_all_bids: bool,
    /// The dummy's rules, for a two-hand game with a dummy.
    pub dummy: Option<DummyRule>,
    /// Premium offers (and the naming of trumps) come before the bids.
    pub premium_first: bool,
    /// Of two cards with the same face, the first played wins.
    pub duplicates_first_wins: bool,
}

impl Rules {
    /// The pack, in a fixed order.
    pub fn pack(&self) -> Vec<Card> {
        let mut cards = pack(&self.ranks, 1, self.jokers);
        for suit in Suit::ALL {
            for &rank in &self.copies {
                cards.push(Card::new(rank, suit).with_copy(1));
            }
        }
        cards
    }

    /// Cards each hand plays (the hand less the three bid cards).
    pub fn tricks(&self) -> usize {
        self.hand - 3
    }

    /// The seat of the dummy, if any.
    pub fn dummy_seat(&self) -> Option<usize> {
        self.dummy.map(|_| self.players)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pack_deals_exactly() {
        for v in Variant::ALL {
            let r = v.rules();
            let turned = usize::from(r.turned_up);
            let extra = if v == Variant::EighteenNinetyNine {
                0
            } else {
                turned
            };
            assert_eq!(
                r.pack().len(),
                r.seats * r.hand + extra,
                "{v}: pack of {} for {} hands of {}",
                r.pack().len(),
                r.seats,
                r.hand
            );
            assert_eq!(Variant::from_name(v.name()), Some(v));
        }
    }
}
