//! One deal of Ninety-Nine as a [`Game`]: bids, premiums, tricks, claims.

use facedown_core::PartyId;
use rand::seq::SliceRandom;
use rand::RngCore;
use serde::{Deserialize, Serialize};

use super::bid::{bid_value, made};
use super::premium::{Auction, Offer};
use super::score::{next_trump, score, Tally};
use super::trick::{holds_suit, played, winner, Trick};
use super::variant::{DummyRule, PremiumRule, Rules, Scoring, Trump, TrumpRule, Variant};
use crate::cards::{is_permutation_of, Card, Rank, Suit};
use crate::game::{Game, SetupError};
use crate::record::InapplicableField;

/// The setup of one deal: the variant, the dealer, what the previous deals fixed, and the
/// shuffled pack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// The rules.
    pub variant: Variant,
    /// The "all trumps" rule for deals without trumps: the highest card wins whatever its suit.
    #[serde(default)]
    pub all_trumps: bool,
    /// The dealer.
    pub dealer: PartyId,
    /// The trump fixed by earlier deals (history rules), the stack (Eighteen Ninety-Nine) or
    /// the previous deal (Declared, if nobody names one); `None` when the deal turns a card
    /// (anything else is refused: [`Setup::inapplicable_field`]).
    pub trump: Trump,
    /// Consecutive successes of each player before this deal (two-hand game without dummy;
    /// zeros, or empty, in every other variant).
    #[serde(default)]
    pub streaks: Vec<u32>,
    /// The pack in dealt order: hand 1, hand 2, …, then any card turned up.
    pub deck: Vec<Card>,
}

impl Setup {
    /// The first deal of a game, player 1 dealing.
    pub fn first_deal(variant: Variant, deck: Vec<Card>) -> Setup {
        let trump = match variant.rules().trump {
            TrumpRule::History { first, .. } => first,
            _ => None,
        };
        Setup {
            variant,
            all_trumps: false,
            dealer: PartyId(1),
            trump,
            streaks: vec![0; variant.rules().seats],
            deck,
        }
    }

    /// A first deal with a shuffled pack.
    pub fn shuffled(variant: Variant, rng: &mut dyn RngCore) -> Setup {
        let mut deck = variant.rules().pack();
        deck.shuffle(rng);
        Setup::first_deal(variant, deck)
    }

    /// The first field the variant's rules ignore that is set anyway: a `trump` where the deal
    /// turns its trump up, `streaks` outside the two-hand game that scores them, `all_trumps`
    /// where every deal has trumps.
    pub fn inapplicable_field(&self) -> Option<InapplicableField> {
        let rules = self.variant.rules();
        let field = |field, why| {
            Some(InapplicableField {
                field,
                variant: self.variant.name().to_owned(),
                why,
            })
        };
        let turns_trump = matches!(rules.trump, TrumpRule::TurnedUp | TrumpRule::FromDummy);
        if turns_trump && self.trump.is_some() {
            return field("trump", "the deal turns its trump up");
        }
        if rules.scoring != Scoring::Streak && self.streaks.iter().any(|&s| s != 0) {
            return field("streaks", "its scoring counts no streaks");
        }
        if self.all_trumps && !rules.trump.may_lack_trumps() {
            return field("all_trumps", "every deal has a trump suit");
        }
        None
    }
}

/// A move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Move {
    /// Lay these three cards aside, face down, as one's bid.
    Bid([Card; 3]),
    /// Offer (or not) to declare or reveal.
    Premium(Offer),
    /// Name the trump suit (the premium bidder of Ninety-Nine Declared).
    Trump(Suit),
    /// Play a card to the trick (from one's hand, or from the dummy one controls).
    Play(Card),
    /// Show one's bid cards to prove the bid was made.
    Claim,
    /// Keep one's bid cards hidden.
    Silent,
}

impl core::fmt::Display for Move {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Move::Bid(cards) => write!(f, "bid {} {} {}", cards[0], cards[1], cards[2]),
            Move::Premium(Offer::Pass) => write!(f, "no premium"),
            Move::Premium(Offer::Declare) => write!(f, "declare"),
            Move::Premium(Offer::Reveal) => write!(f, "reveal"),
            Move::Trump(suit) => write!(f, "trumps {suit}"),
            Move::Play(card) => write!(f, "play {card}"),
            Move::Claim => write!(f, "claim (shows bid cards)"),
            Move::Silent => write!(f, "keeps bid cards hidden"),
        }
    }
}

/// The phase of a deal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Premium offers.
    Premium,
    /// The premium bidder names trumps.
    NameTrump,
    /// Laying bid cards aside.
    Bid,
    /// Tricks.
    Play,
    /// Claims of made bids.
    Claim,
    /// Over.
    Over,
}

/// Why a move is illegal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Illegal {
    /// A move of the wrong kind for the phase.
    #[error("made a move of the wrong kind in the {0:?} phase")]
    WrongPhase(Phase),
    /// A card that is not in the hand it must come from.
    #[error("played {0}, which is not in the hand he plays from")]
    NotInHand(Card),
    /// The same card twice among the bid cards.
    #[error("laid {0} aside twice")]
    RepeatedCard(Card),
    /// Not following suit while holding the suit led.
    #[error("revoked: played {card} to a {led} lead while holding {held}")]
    Revoke {
        /// The card played.
        card: Card,
        /// The suit led.
        led: Suit,
        /// A card of the suit led that he held.
        held: Card,
    },
    /// A premium offer the auction does not allow now.
    #[error("offered {0:?}, which is not allowed now")]
    Offer(Offer),
    /// A claim of a bid that was not made.
    #[error("claimed a made bid of {bid} with {tricks} tricks")]
    FalseClaim {
        /// The bid.
        bid: u32,
        /// Tricks taken.
        tricks: u32,
    },
}

/// What a player sees.
#[derive(Clone, Debug, Serialize)]
pub struct View {
    /// Who is looking.
    pub player: PartyId,
    /// The variant.
    pub variant: Variant,
    /// The dealer.
    pub dealer: PartyId,
    /// The phase.
    pub phase: Phase,
    /// His own cards.
    pub hand: Vec<Card>,
    /// His own bid cards.
    pub bid: Option<[Card; 3]>,
    /// The trump suit, once known (`Some(None)`: no trumps).
    pub trump: Option<Trump>,
    /// The turned-up card (what a Joker stands for), if any.
    pub turned: Option<Card>,
    /// Bid cards everybody can see, per seat.
    pub shown_bids: Vec<Option<[Card; 3]>>,
    /// Hands everybody can see (revealed hands, the dummy once turned), per seat.
    pub open_hands: Vec<Option<Vec<Card>>>,
    /// Cards left in each hand.
    pub hand_sizes: Vec<usize>,
    /// Premium offers so far, `(seat, offer)`.
    pub offers: Vec<(usize, Offer)>,
    /// Tricks played.
    pub tricks: Vec<Trick>,
    /// The trick in progress, `(seat, card)`.
    pub current: Vec<(usize, Card)>,
    /// Tricks won by each seat.
    pub won: Vec<u32>,
    /// The seat to play next (during play).
    pub to_play: Option<usize>,
    /// The dummy's seat, if any.
    pub dummy: Option<usize>,
}

/// The end of a deal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The trump suit of the deal.
    pub trump: Trump,
    /// Tricks of each seat.
    pub tricks: Vec<u32>,
    /// Bids shown by the end (claimed, declared, open, or the dummy's), per seat.
    pub shown_bids: Vec<Option<u32>>,
    /// Whether each seat succeeded.
    pub success: Vec<bool>,
    /// Premium bids, `(seat, offer)`.
    pub premiums: Vec<(usize, Offer)>,
    /// Points of each seat.
    pub points: Vec<i32>,
    /// The trump this deal fixes for the next one, under a history rule.
    pub next_trump: Option<Trump>,
}

/// One deal in progress.
#[derive(Clone, Debug)]
pub struct NinetyNine {
    setup: Setup,
    rules: Rules,
    hands: Vec<Vec<Card>>,
    bids: Vec<Option<[Card; 3]>>,
    /// The turned-up card: trump indicator and what a Joker stands for.
    turned: Option<Card>,
    trump: Option<Trump>,
    phase: Phase,
    auction: Auction,
    premiums: Vec<(usize, Offer)>,
    /// Index into the speaking order of the bid or claim phase.
    next: usize,
    tricks: Vec<Trick>,
    current: Vec<(usize, Card)>,
    leader: usize,
    /// The live player who plays the dummy's cards (two-hand game with dummy).
    controller: usize,
    won: Vec<u32>,
    claims: Vec<Option<bool>>,
}

impl NinetyNine {
    /// The rules in force.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Seats of the players from the dealer's left, the dealer last.
    fn order(&self) -> Vec<usize> {
        let p = self.rules.players;
        let d = self.setup.dealer.index();
        (1..=p).map(|i| (d + i) % p).collect()
    }

    /// Seats that must say whether they claim: those whose bid is still hidden.
    fn claimants(&self) -> Vec<usize> {
        self.order()
            .into_iter()
            .filter(|&s| !self.bid_public(s))
            .collect()
    }

    fn bid_public(&self, seat: usize) -> bool {
        self.rules.open_bids
            || self.rules.show_all_bids
            || self.rules.dummy_seat() == Some(seat)
            || self.premiums.iter().any(|&(s, _)| s == seat)
    }

    /// The seat that plays next, during play.
    fn seat_to_play(&self) -> Option<usize> {
        (self.phase == Phase::Play).then(|| self.trick_order()[self.current.len()])
    }

    fn trick_order(&self) -> Vec<usize> {
        match self.rules.dummy_seat() {
            None => (0..self.rules.seats)
                .map(|i| (self.leader + i) % self.rules.seats)
                .collect(),
            Some(dummy) => {
                let other = 1 - self.controller;
                if self.leader == dummy {
                    vec![dummy, other, self.controller]
                } else {
                    vec![self.controller, other, dummy]
                }
            }
        }
    }

    /// The bid number of a seat.
    fn bid_of(&self, seat: usize) -> u32 {
        let stand_in = self.turned.and_then(Card::suit);
        self.bids[seat].map_or(0, |b| bid_value(&b, stand_in))
    }

    fn made(&self, seat: usize) -> bool {
        made(self.bid_of(seat), self.won[seat], self.rules.reading)
    }

    /// Moves on from a finished phase.
    fn advance(&mut self) {
        loop {
            let next = match self.phase {
                Phase::Premium if self.auction.to_speak().is_some() => return,
                Phase::Premium => {
                    self.premiums = self.auction.premiums();
                    if !self.rules.premium_first {
                        Phase::Play
                    } else if self.premiums.is_empty() {
                        self.trump = Some(self.setup.trump);
                        Phase::Bid
                    } else {
                        Phase::NameTrump
                    }
                }
                Phase::NameTrump if self.trump.is_none() => return,
                Phase::NameTrump => Phase::Bid,
                Phase::Bid if self.next < self.rules.players => return,
                Phase::Bid if self.rules.premium_first => Phase::Play,
                Phase::Bid => match self.rules.premium {
                    PremiumRule::None => Phase::Play,
                    _ => Phase::Premium,
                },
                Phase::Play if self.tricks.len() < self.rules.tricks() => return,
                Phase::Play => {
                    self.next = 0;
                    Phase::Claim
                }
                Phase::Claim if self.next < self.claimants().len() => return,
                Phase::Claim | Phase::Over => Phase::Over,
            };
            if next == Phase::Over {
                self.phase = Phase::Over;
                return;
            }
            self.phase = next;
        }
    }

    /// Why `seat` may not play `card` now, if he may not.
    fn play_error(&self, seat: usize, card: Card) -> Option<Illegal> {
        let hand = &self.hands[seat];
        if !hand.contains(&card) {
            return Some(Illegal::NotInHand(card));
        }
        let &(_, lead) = self.current.first()?;
        let led = played(lead, self.turned).suit?;
        if played(card, self.turned).suit == Some(led) {
            return None;
        }
        holds_suit(hand, led, self.turned).map(|held| Illegal::Revoke { card, led, held })
    }

    fn play_card(&mut self, seat: usize, card: Card) -> Result<(), Illegal> {
        if let Some(why) = self.play_error(seat, card) {
            return Err(why);
        }
        self.hands[seat].retain(|&c| c != card);
        self.current.push((seat, card));
        if self.current.len() == self.trick_order().len() {
            self.close_trick();
        }
        Ok(())
    }

    fn close_trick(&mut self) {
        let trump = self.trump.flatten();
        let w = winner(&self.current, trump, self.turned, self.setup.all_trumps);
        self.won[w] += 1;
        self.tricks.push(Trick {
            cards: std::mem::take(&mut self.current),
            winner: w,
        });
        self.leader = w;
        if self.rules.dummy_seat() != Some(w) {
            self.controller = w;
        }
    }

    fn tally(&self) -> Tally {
        let seats = self.rules.seats;
        let credited = (0..seats)
            .map(|s| self.made(s) && (self.bid_public(s) || self.claims[s] == Some(true)))
            .collect();
        Tally {
            tricks: self.won.clone(),
            bids: (0..seats).map(|s| self.bid_of(s)).collect(),
            credited,
            premiums: self.premiums.clone(),
            streaks: self.setup.streaks.clone(),
        }
    }

    fn all_bid_choices(hand: &[Card]) -> Vec<[Card; 3]> {
        let mut out = Vec::new();
        for i in 0..hand.len() {
            for j in i + 1..hand.len() {
                for k in j + 1..hand.len() {
                    out.push([hand[i], hand[j], hand[k]]);
                }
            }
        }
        out
    }
}

/// Lays out a deck: the hands, the turned-up card, the dummy's bid.
fn layout(rules: &Rules, deck: &[Card]) -> (Vec<Vec<Card>>, Option<Card>, Option<[Card; 3]>) {
    let h = rules.hand;
    let mut hands: Vec<Vec<Card>> = deck
        .chunks(h)
        .take(rules.seats)
        .map(<[Card]>::to_vec)
        .collect();
    let mut turned = rules.turned_up.then(|| deck[rules.seats * h]);
    let mut dummy_bid = None;
    if let (Some(rule), Some(d)) = (rules.dummy, rules.dummy_seat()) {
        let from = match rule {
            DummyRule::BidFromTop => 0,
            DummyRule::TrumpFromTop => {
                turned = Some(hands[d][0]);
                1
            }
        };
        let bid: Vec<Card> = hands[d].drain(from..from + 3).collect();
        dummy_bid = Some([bid[0], bid[1], bid[2]]);
    }
    (hands, turned, dummy_bid)
}

/// The trump a turned-up card makes: its suit, or no trumps for a nine or a Joker.
fn trump_of(card: Card) -> Trump {
    match card.rank() {
        Some(Rank::Nine) | None => None,
        Some(_) => card.suit(),
    }
}

impl Game for NinetyNine {
    type Setup = Setup;
    type Move = Move;
    type View = View;
    type Outcome = Outcome;
    type Illegal = Illegal;

    const NAME: &'static str = "ninety-nine";

    fn start(setup: &Setup) -> Result<Self, SetupError> {
        if let Some(field) = setup.inapplicable_field() {
            return Err(SetupError(field.to_string()));
        }
        let rules = setup.variant.rules();
        if !is_permutation_of(&setup.deck, &rules.pack()) {
            return Err(SetupError(format!(
                "the deck is not the {}-card pack of {}",
                rules.pack().len(),
                setup.variant
            )));
        }
        if setup.dealer.index() >= rules.players || setup.dealer.0 == 0 {
            return Err(SetupError(format!("no {} at this table", setup.dealer)));
        }
        if setup.streaks.len() != rules.seats && rules.scoring == Scoring::Streak {
            return Err(SetupError("one streak per player is needed".into()));
        }
        let (hands, turned, dummy_bid) = layout(&rules, &setup.deck);
        let trump = match rules.trump {
            TrumpRule::TurnedUp | TrumpRule::FromDummy => turned.map(trump_of),
            TrumpRule::History { .. } | TrumpRule::Stack => Some(setup.trump),
            TrumpRule::Named => None,
        };
        let seats = rules.seats;
        let mut bids = vec![None; seats];
        if let Some(d) = rules.dummy_seat() {
            bids[d] = dummy_bid;
        }
        let first = (setup.dealer.index() + 1) % rules.players;
        let order: Vec<usize> = (1..=rules.players)
            .map(|i| (setup.dealer.index() + i) % rules.players)
            .collect();
        let auction = match rules.premium {
            PremiumRule::AnyDeclare { .. } => Auction::many(order),
            PremiumRule::Single { reveal } => Auction::single(order, reveal),
            PremiumRule::None => Auction::single(Vec::new(), false),
        };
        let phase = if rules.premium_first {
            Phase::Premium
        } else {
            Phase::Bid
        };
        let mut game = NinetyNine {
            setup: setup.clone(),
            hands,
            bids,
            turned,
            trump,
            phase,
            auction,
            premiums: Vec::new(),
            next: 0,
            tricks: Vec::new(),
            current: Vec::new(),
            leader: first,
            controller: first,
            won: vec![0; seats],
            claims: vec![None; seats],
            rules,
        };
        game.advance();
        Ok(game)
    }

    fn setup(&self) -> &Setup {
        &self.setup
    }

    fn players(&self) -> usize {
        self.rules.players
    }

    fn to_move(&self) -> Option<PartyId> {
        let seat = match self.phase {
            Phase::Premium => self.auction.to_speak(),
            Phase::NameTrump => self.premiums.first().map(|&(s, _)| s),
            Phase::Bid => self.order().get(self.next).copied(),
            Phase::Play => self.seat_to_play().map(|s| {
                if Some(s) == self.rules.dummy_seat() {
                    self.controller
                } else {
                    s
                }
            }),
            Phase::Claim => self.claimants().get(self.next).copied(),
            Phase::Over => None,
        };
        seat.map(PartyId::from_index)
    }

    fn legal_moves(&self) -> Vec<Move> {
        match self.phase {
            Phase::Premium => self
                .auction
                .legal()
                .into_iter()
                .map(Move::Premium)
                .collect(),
            Phase::NameTrump => Suit::ALL.into_iter().map(Move::Trump).collect(),
            Phase::Bid => {
                let seat = self.order()[self.next];
                Self::all_bid_choices(&self.hands[seat])
                    .into_iter()
                    .map(Move::Bid)
                    .collect()
            }
            Phase::Play => {
                let Some(seat) = self.seat_to_play() else {
                    return Vec::new();
                };
                self.hands[seat]
                    .iter()
                    .filter(|&&card| self.play_error(seat, card).is_none())
                    .map(|&card| Move::Play(card))
                    .collect()
            }
            Phase::Claim => {
                let seat = self.claimants()[self.next];
                if self.made(seat) {
                    vec![Move::Claim, Move::Silent]
                } else {
                    vec![Move::Silent]
                }
            }
            Phase::Over => Vec::new(),
        }
    }

    fn play(&mut self, mv: &Move) -> Result<(), Illegal> {
        match (self.phase, *mv) {
            (Phase::Bid, Move::Bid(cards)) => {
                let seat = self.order()[self.next];
                let hand = &self.hands[seat];
                for (i, c) in cards.iter().enumerate() {
                    if !hand.contains(c) {
                        return Err(Illegal::NotInHand(*c));
                    }
                    if cards[..i].contains(c) {
                        return Err(Illegal::RepeatedCard(*c));
                    }
                }
                self.hands[seat].retain(|c| !cards.contains(c));
                self.bids[seat] = Some(cards);
                self.next += 1;
            }
            (Phase::Premium, Move::Premium(offer)) => {
                self.auction.offer(offer).map_err(Illegal::Offer)?;
            }
            (Phase::NameTrump, Move::Trump(suit)) => self.trump = Some(Some(suit)),
            (Phase::Play, Move::Play(card)) => {
                let seat = self.seat_to_play().ok_or(Illegal::WrongPhase(self.phase))?;
                self.play_card(seat, card)?;
            }
            (Phase::Claim, Move::Claim | Move::Silent) => {
                let seat = self.claimants()[self.next];
                if *mv == Move::Claim && !self.made(seat) {
                    return Err(Illegal::FalseClaim {
                        bid: self.bid_of(seat),
                        tricks: self.won[seat],
                    });
                }
                self.claims[seat] = Some(*mv == Move::Claim);
                self.next += 1;
            }
            (phase, _) => return Err(Illegal::WrongPhase(phase)),
        }
        self.advance();
        Ok(())
    }

    fn view(&self, player: PartyId) -> View {
        let me = player.index();
        let seats = self.rules.seats;
        let playing = matches!(self.phase, Phase::Play | Phase::Claim | Phase::Over);
        let over = self.phase == Phase::Over;
        let shown_bids = (0..seats)
            .map(|s| {
                let public = self.premiums.iter().any(|&(p, _)| p == s)
                    || (self.rules.open_bids && playing)
                    || (over && self.bid_public(s))
                    || self.claims[s] == Some(true);
                if public {
                    self.bids[s]
                } else {
                    None
                }
            })
            .collect();
        let open_hands = (0..seats)
            .map(|s| {
                let revealed = self
                    .premiums
                    .iter()
                    .any(|&(p, o)| p == s && o == Offer::Reveal);
                let dummy = self.rules.dummy_seat() == Some(s);
                ((revealed || dummy) && playing).then(|| self.hands[s].clone())
            })
            .collect();
        View {
            player,
            variant: self.setup.variant,
            dealer: self.setup.dealer,
            phase: self.phase,
            hand: self.hands.get(me).cloned().unwrap_or_default(),
            bid: self.bids.get(me).copied().flatten(),
            trump: self.trump,
            turned: self.turned,
            shown_bids,
            open_hands,
            hand_sizes: self.hands.iter().map(Vec::len).collect(),
            offers: self.auction.history.clone(),
            tricks: self.tricks.clone(),
            current: self.current.clone(),
            won: self.won.clone(),
            to_play: self.seat_to_play(),
            dummy: self.rules.dummy_seat(),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.phase != Phase::Over {
            return None;
        }
        let tally = self.tally();
        let scored = score(&self.rules, &tally);
        let next = match self.rules.trump {
            TrumpRule::History { next, .. } => {
                Some(next_trump(next, &self.rules, &tally, &scored.success))
            }
            TrumpRule::Named => Some(self.trump.flatten()),
            _ => None,
        };
        let shown_bids = (0..self.rules.seats)
            .map(|s| (self.bid_public(s) || self.claims[s] == Some(true)).then(|| self.bid_of(s)))
            .collect();
        Some(Outcome {
            trump: self.trump.flatten(),
            tricks: self.won.clone(),
            shown_bids,
            success: scored.success,
            premiums: self.premiums.clone(),
            points: scored.points,
            next_trump: next,
        })
    }
}
