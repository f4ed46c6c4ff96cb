//! The rules of the `(p, r)` game and its variants, positions and moves.

use core::fmt;

use serde::{Deserialize, Serialize};

/// Most players a position holds.
pub const MAX_PLAYERS: usize = 6;
/// Most hands a player has.
pub const MAX_HANDS: usize = 4;

/// What happens when an attack takes a hand to `r` fingers or more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Overflow {
    /// The official rule: exactly `r` dies; over `r`, subtract `r`.
    Rollover,
    /// Cutoff: `r` or more dies.
    Cutoff,
}

/// Which redistributions of one's own fingers are allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Splits {
    /// Transfers (between two live hands) and divisions (reviving a dead hand).
    All,
    /// Transfers only.
    TransfersOnly,
    /// Divisions only.
    DivisionsOnly,
    /// Halves: only an even total divided into two equal halves; with `odd`, an odd total
    /// divided as evenly as possible too.
    Halves {
        /// Whether odd totals may be divided as evenly as possible.
        odd: bool,
    },
    /// No splits at all.
    None,
}

/// The rules: `p` players with `h` hands each, rollover amount `r`, and the seed's variants as
/// switches. [`Rules::standard`] is the official game (2 players, 2 hands, rollover 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rules {
    /// Players `p` (2..=6).
    pub players: u8,
    /// Hands per player (1..=4; more than two is the "more hands" variant with single
    /// transfers and single divisions).
    pub hands: u8,
    /// The amount `r` at which a hand dies (1..=36).
    pub rollover: u8,
    /// Rollover or cutoff.
    pub overflow: Overflow,
    /// Which splits are allowed.
    pub splits: Splits,
    /// Suicide: a split may kill one of one's own hands (`12–03`).
    pub suicide: bool,
    /// Meta: hands whose total exceeds `r` may be combined, `r` subtracted, and the rest split
    /// (`34–11`, `44–12`; with suicide also `24–01`, `33–01`, `34–02`, `44–03`).
    pub meta: bool,
    /// Swaps (cherri): a player with two unequal live hands may swap them, losing his turn, at
    /// most this many times in a row without being attacked. `None`: no swaps.
    pub swaps: Option<u8>,
    /// Logan's clause: swapping only together with suicide, i.e. swapping a dead hand for a live
    /// one. With sorted hands this is a pass by a player with one dead hand (bounded like swaps
    /// when `swaps` is set).
    pub logan: bool,
    /// Misère: the first player to lose both hands wins.
    pub misere: bool,
    /// Sudden death: a player left with a single finger is out.
    pub sudden_death: bool,
    /// Zombie (3+ players): a knocked-out player keeps one finger on one hand for ever; he may
    /// attack, but not split or be attacked.
    pub zombie: bool,
    /// Integers: a player may flip one of his live hands, `v → r − v`, as his move.
    pub integers: bool,
    /// Attacking one's own other hand is allowed (moves AB and BA).
    pub self_attack: bool,
    /// Suns: every hand starts at `r − 1` (`[4444]`) instead of 1.
    pub suns: bool,
    /// With three or more players: an eliminated player keeps his place in the turn order and
    /// his turns pass ([`Move::Pass`]), instead of being skipped.
    pub out_players_pass: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules::standard()
    }
}

/// Rules that cannot be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid Chopsticks rules: {0}")]
pub struct RulesError(pub String);

impl Rules {
    /// The official game: two players, two hands, rollover 5, transfers and divisions.
    pub const fn standard() -> Rules {
        Rules {
            players: 2,
            hands: 2,
            rollover: 5,
            overflow: Overflow::Rollover,
            splits: Splits::All,
            suicide: false,
            meta: false,
            swaps: None,
            logan: false,
            misere: false,
            sudden_death: false,
            zombie: false,
            integers: false,
            self_attack: false,
            suns: false,
            out_players_pass: false,
        }
    }

    /// The `(p, r)` game with the official rules otherwise.
    pub const fn pr(players: u8, rollover: u8) -> Rules {
        let mut rules = Rules::standard();
        rules.players = players;
        rules.rollover = rollover;
        rules
    }

    /// The switches [`Rules::apply`] knows, for help texts.
    pub const SWITCHES: &'static [&'static str] = &[
        "cutoff",
        "misere",
        "suicide",
        "meta",
        "swaps=N",
        "logan",
        "sudden-death",
        "zombie",
        "integers",
        "self-attack",
        "suns",
        "transfers-only",
        "divisions-only",
        "halves",
        "halves-odd",
        "no-splits",
        "hands=N",
        "out-pass",
    ];

    /// Turns on a variant by name (see [`Rules::SWITCHES`]); `swaps=N` and `hands=N` take a
    /// number.
    pub fn apply(&mut self, switch: &str) -> Result<(), RulesError> {
        let number = |text: &str| {
            text.parse::<u8>()
                .map_err(|_| RulesError(format!("`{switch}`: `{text}` is not a number")))
        };
        match switch.split_once('=') {
            Some(("swaps", n)) => self.swaps = Some(number(n)?),
            Some(("hands", n)) => self.hands = number(n)?,
            Some(_) => return Err(RulesError(format!("unknown switch `{switch}`"))),
            None => match switch {
                "cutoff" => self.overflow = Overflow::Cutoff,
                "misere" => self.misere = true,
                "suicide" => self.suicide = true,
                "meta" => self.meta = true,
                "swaps" => self.swaps = Some(3),
                "logan" => self.logan = true,
                "sudden-death" => self.sudden_death = true,
                "zombie" => self.zombie = true,
                "integers" => self.integers = true,
                "self-attack" => self.self_attack = true,
                "suns" => self.suns = true,
                "transfers-only" => self.splits = Splits::TransfersOnly,
                "divisions-only" => self.splits = Splits::DivisionsOnly,
                "halves" => self.splits = Splits::Halves { odd: false },
                "halves-odd" => self.splits = Splits::Halves { odd: true },
                "no-splits" => self.splits = Splits::None,
                "out-pass" => self.out_players_pass = true,
                _ => {
                    return Err(RulesError(format!(
                        "unknown switch `{switch}` (known: {})",
                        Rules::SWITCHES.join(", ")
                    )))
                }
            },
        }
        self.validate()
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), RulesError> {
        let bad = |why: String| Err(RulesError(why));
        if !(2..=MAX_PLAYERS as u8).contains(&self.players) {
            return bad(format!("{} players (2..={MAX_PLAYERS})", self.players));
        }
        if !(1..=MAX_HANDS as u8).contains(&self.hands) {
            return bad(format!("{} hands (1..={MAX_HANDS})", self.hands));
        }
        if !(1..=36).contains(&self.rollover) {
            return bad(format!("rollover {} (1..=36)", self.rollover));
        }
        Ok(())
    }

    /// The bound on consecutive swaps (and Logan passes), when there is one: positions then
    /// carry a counter per player.
    pub(crate) fn pass_bound(&self) -> Option<u8> {
        self.swaps
    }

    /// The start position: every hand at 1 (at `r − 1` with suns), the first player to move.
    pub fn start(&self) -> Position {
        let value = if self.suns {
            self.rollover.saturating_sub(1)
        } else {
            1 % self.rollover
        };
        let mut pos = Position::empty(self.players, self.hands);
        for player in 0..usize::from(self.players) {
            for hand in 0..usize::from(self.hands) {
                pos.fingers[player][hand] = value;
            }
        }
        pos
    }

    /// The state of the game at `pos`.
    pub fn status(&self, pos: &Position) -> Status {
        let players = usize::from(self.players);
        if self.misere {
            if let Some(out) = (0..players).find(|&i| pos.eliminated(i)) {
                return Status::Won(out);
            }
            return Status::Ongoing;
        }
        let mut standing = (0..players).filter(|&i| !pos.eliminated(i) && !pos.is_zombie(i));
        match (standing.next(), standing.next()) {
            (Some(_), Some(_)) => Status::Ongoing,
            (Some(winner), None) => Status::Won(winner),
            _ => Status::NoWinner,
        }
    }

    /// Every legal move at `pos` with the position it leads to (none once the game is over).
    /// Moves that lead to the same position from the same hands are listed once.
    pub fn moves(&self, pos: &Position) -> Vec<(Move, Position)> {
        let mut out: Vec<(Move, Position)> = Vec::new();
        self.for_each_move(pos, |mv, next, _| {
            if !out.iter().any(|(m, _)| *m == mv) {
                out.push((mv, next));
            }
        });
        out
    }

    /// Calls `f(move, next position, shift)` for every legal move (possibly repeating a move
    /// when two hands hold the same value); `shift` is how many seats the turn moved on.
    pub fn for_each_move(&self, pos: &Position, mut f: impl FnMut(Move, Position, u8)) {
        if self.status(pos) != Status::Ongoing {
            return;
        }
        let h = usize::from(self.hands);
        let me = &pos.fingers[0][..h];
        let zombie = pos.is_zombie(0);
        if pos.eliminated(0) {
            self.finish(Move::Pass, *pos, &mut f);
            return;
        }
        for (i, &a) in me.iter().enumerate() {
            if a == 0 {
                continue;
            }
            for seat in 0..usize::from(self.players) {
                if !self.attackable(pos, seat) {
                    continue;
                }
                for (j, &t) in pos.fingers[seat][..h].iter().enumerate() {
                    if t == 0 || (seat == 0 && (j == i || !self.self_attack)) {
                        continue;
                    }
                    let mut next = *pos;
                    next.fingers[seat][j] = self.hit(t, a);
                    if seat != 0 {
                        next.swaps[seat] = 0;
                    }
                    next.swaps[0] = 0;
                    let mv = Move::Attack {
                        from: a,
                        seat: seat as u8,
                        to: t,
                    };
                    self.finish(mv, next, &mut f);
                }
            }
        }
        if zombie {
            return;
        }
        self.for_each_split(pos, &mut f);
        let live: Vec<u8> = me.iter().copied().filter(|&v| v > 0).collect();
        let swap = self.swaps.is_some() && live.len() >= 2 && live.iter().any(|&v| v != live[0]);
        let logan = self.logan && !live.is_empty() && live.len() < h;
        let within = self.swaps.is_none_or(|bound| pos.swaps[0] < bound);
        if (swap || logan) && within {
            let mut next = *pos;
            if self.swaps.is_some() {
                next.swaps[0] += 1;
            }
            self.finish(Move::Swap, next, &mut f);
        }
        if self.integers {
            for &v in me {
                if v > 0 && 2 * v != self.rollover {
                    let mut next = *pos;
                    if let Some(slot) = next.fingers[0][..h].iter_mut().find(|x| **x == v) {
                        *slot = self.rollover - v;
                    }
                    next.swaps[0] = 0;
                    self.finish(Move::Flip { value: v }, next, &mut f);
                }
            }
        }
    }

    /// Whether hands of `seat` may be attacked by the mover (seat 0 only by himself).
    fn attackable(&self, pos: &Position, seat: usize) -> bool {
        if seat == 0 {
            return self.self_attack;
        }
        !pos.eliminated(seat) && !pos.is_zombie(seat)
    }

    /// A hand of `t` fingers struck by a hand of `a`.
    pub fn hit(&self, t: u8, a: u8) -> u8 {
        let sum = t + a;
        let r = self.rollover;
        match self.overflow {
            _ if sum == r => 0,
            Overflow::Rollover if sum > r => sum - r,
            Overflow::Cutoff if sum > r => 0,
            _ => sum,
        }
    }

    fn for_each_split(&self, pos: &Position, f: &mut impl FnMut(Move, Position, u8)) {
        let h = usize::from(self.hands);
        let r = self.rollover;
        let me = pos.fingers[0];
        for i in 0..h {
            for j in i + 1..h {
                let (x, y) = (me[i], me[j]);
                let s = x + y;
                for x2 in 0..r.min(s + 1) {
                    let y2 = s - x2;
                    if y2 >= r || x2 > y2 {
                        continue;
                    }
                    if self.split_allowed(x, y, x2, y2) {
                        self.emit_split(pos, (i, j), (x2, y2), f);
                    }
                }
                if self.meta && s > r {
                    let rest = s - r;
                    for x2 in 0..=rest / 2 {
                        let y2 = rest - x2;
                        if x2 > 0 || self.suicide {
                            self.emit_split(pos, (i, j), (x2, y2), f);
                        }
                    }
                }
            }
        }
    }

    /// Whether a split of hands `x, y` into `x2 ≤ y2` (same total) is allowed.
    fn split_allowed(&self, x: u8, y: u8, x2: u8, y2: u8) -> bool {
        let (lo, hi) = (x.min(y), x.max(y));
        if (lo, hi) == (x2, y2) {
            return false;
        }
        let before_live = lo > 0;
        let after_live = x2 > 0;
        match (before_live, after_live) {
            (true, false) => self.suicide,
            (false, false) => false,
            (before_live, true) => match self.splits {
                Splits::All => true,
                Splits::TransfersOnly => before_live,
                Splits::DivisionsOnly => !before_live,
                Splits::Halves { odd } => {
                    let s = x2 + y2;
                    y2 - x2 == 0 || (odd && s % 2 == 1 && y2 - x2 == 1)
                }
                Splits::None => false,
            },
        }
    }

    fn emit_split(
        &self,
        pos: &Position,
        (i, j): (usize, usize),
        (x2, y2): (u8, u8),
        f: &mut impl FnMut(Move, Position, u8),
    ) {
        let h = usize::from(self.hands);
        let mut next = *pos;
        next.fingers[0][i] = x2;
        next.fingers[0][j] = y2;
        next.swaps[0] = 0;
        next.fingers[0][..h].sort_unstable();
        let mut hands = [0; MAX_HANDS];
        hands[..h].copy_from_slice(&next.fingers[0][..h]);
        self.finish(Move::Split { hands }, next, f);
    }

    /// Applies eliminations, sorts hands and passes the turn.
    fn finish(&self, mv: Move, mut next: Position, f: &mut impl FnMut(Move, Position, u8)) {
        let players = usize::from(self.players);
        let h = usize::from(self.hands);
        for p in 0..players {
            next.fingers[p][..h].sort_unstable();
            let total: u32 = next.fingers[p][..h].iter().map(|&v| u32::from(v)).sum();
            if self.sudden_death && total == 1 && !next.is_zombie(p) {
                next.fingers[p] = [0; MAX_HANDS];
            }
            if self.zombie && !next.is_zombie(p) && next.eliminated(p) && !self.misere {
                next.zombies |= 1 << p;
                next.fingers[p][h - 1] = 1;
            }
        }
        let shift = if self.status(&next) != Status::Ongoing || self.out_players_pass {
            1
        } else {
            (1..players).find(|&k| !next.eliminated(k)).unwrap_or(1)
        };
        f(mv, next.rotated(shift), shift as u8);
    }

    /// Parses a position code: each player's hands as digits (base `r`, `a` = 10, …), mover
    /// first, e.g. `1312`. Hands may be written in any order; they are sorted.
    pub fn parse_position(&self, code: &str) -> Result<Position, RulesError> {
        let h = usize::from(self.hands);
        let players = usize::from(self.players);
        let digits: Vec<u32> = code
            .trim()
            .chars()
            .filter(|c| !matches!(c, '[' | ']' | ' '))
            .map(|c| c.to_digit(36).ok_or(c))
            .collect::<Result<_, char>>()
            .map_err(|c| RulesError(format!("`{c}` is not a digit in position `{code}`")))?;
        if digits.len() != h * players {
            return Err(RulesError(format!(
                "position `{code}` has {} digits, {players} players × {h} hands need {}",
                digits.len(),
                h * players
            )));
        }
        let mut pos = Position::empty(self.players, self.hands);
        for (k, &d) in digits.iter().enumerate() {
            if d >= u32::from(self.rollover) {
                return Err(RulesError(format!(
                    "hand value {d} in `{code}` is not below the rollover {}",
                    self.rollover
                )));
            }
            pos.fingers[k / h][k % h] = d as u8;
        }
        for p in 0..players {
            pos.fingers[p][..h].sort_unstable();
        }
        Ok(pos)
    }
}

/// Whether the game goes on at a position, and who won.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The player at seat 0 is to move.
    Ongoing,
    /// Over: the player at this seat (counted from the position's mover) won.
    Won(usize),
    /// Over with nobody left (rollover 1: every hand is dead from the start).
    NoWinner,
}

/// A position: every player's hands (sorted), in turn order starting with the player to move,
/// plus the swap counters and zombies of the variants that need them.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// Players.
    pub players: u8,
    /// Hands per player.
    pub hands: u8,
    /// `fingers[k]` are the hands of the `k`-th player from the mover, ascending.
    pub fingers: [[u8; MAX_HANDS]; MAX_PLAYERS],
    /// Consecutive swaps (or Logan passes) of each player.
    pub swaps: [u8; MAX_PLAYERS],
    /// Bit `k`: the `k`-th player is a zombie.
    pub zombies: u8,
}

impl Position {
    fn empty(players: u8, hands: u8) -> Position {
        Position {
            players,
            hands,
            fingers: [[0; MAX_HANDS]; MAX_PLAYERS],
            swaps: [0; MAX_PLAYERS],
            zombies: 0,
        }
    }

    /// The hands of the `k`-th player from the mover.
    pub fn hands_of(&self, k: usize) -> &[u8] {
        &self.fingers[k][..usize::from(self.hands)]
    }

    /// Whether the `k`-th player has no live hand (and is not a zombie).
    pub fn eliminated(&self, k: usize) -> bool {
        !self.is_zombie(k) && self.hands_of(k).iter().all(|&v| v == 0)
    }

    /// Whether the `k`-th player is a zombie.
    pub fn is_zombie(&self, k: usize) -> bool {
        self.zombies & (1 << k) != 0
    }

    /// The same position seen from the player `k` seats on.
    pub fn rotated(&self, k: usize) -> Position {
        let n = usize::from(self.players);
        let mut out = *self;
        out.zombies = 0;
        for i in 0..n {
            let from = (i + k) % n;
            out.fingers[i] = self.fingers[from];
            out.swaps[i] = self.swaps[from];
            if self.is_zombie(from) {
                out.zombies |= 1 << i;
            }
        }
        out
    }

    /// The position code, e.g. `1312`.
    pub fn code(&self) -> String {
        let mut s = String::new();
        for k in 0..usize::from(self.players) {
            for &v in self.hands_of(k) {
                s.push(char::from_digit(u32::from(v), 36).unwrap_or('?'));
            }
        }
        s
    }
}

impl Serialize for Position {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.code())?;
        let players = usize::from(self.players);
        if self.zombies != 0 || self.swaps[..players].iter().any(|&s| s > 0) {
            write!(f, " (")?;
            for k in 0..players {
                if k > 0 {
                    write!(f, " ")?;
                }
                let z = if self.is_zombie(k) { "z" } else { "" };
                write!(f, "{z}{}", self.swaps[k])?;
            }
            write!(f, ")")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A move, named by finger values (hands are unordered).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Move {
    /// Strike the hand holding `to` fingers of the player `seat` seats on (0: one's own other
    /// hand) with one's hand holding `from`.
    Attack {
        /// Fingers of the striking hand.
        from: u8,
        /// Seat of the struck player, counted from the mover.
        seat: u8,
        /// Fingers of the struck hand.
        to: u8,
    },
    /// Redistribute one's fingers into these hands (ascending; unused slots 0).
    Split {
        /// The new hands.
        hands: [u8; MAX_HANDS],
    },
    /// Swap two unequal live hands (cherri), or a dead hand for a live one (Logan's clause).
    Swap,
    /// Flip the hand holding `value` to `r − value` (integers).
    Flip {
        /// Fingers of the flipped hand.
        value: u8,
    },
    /// The turn of an eliminated player who keeps his place in the turn order.
    Pass,
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Move::Attack { from, seat, to } => write!(f, "attack {from}→{to} (seat {seat})"),
            Move::Split { hands } => {
                let digits: String = hands
                    .iter()
                    .filter_map(|&v| char::from_digit(u32::from(v), 36))
                    .collect();
                write!(f, "split to {digits}")
            }
            Move::Swap => write!(f, "swap"),
            Move::Flip { value } => write!(f, "flip {value}"),
            Move::Pass => write!(f, "pass (out)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(rules: &Rules, code: &str) -> Vec<String> {
        let pos = rules.parse_position(code).expect("valid");
        let mut out: Vec<String> = rules.moves(&pos).iter().map(|(_, p)| p.code()).collect();
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn the_start_has_one_move_then_two() {
        let rules = Rules::standard();
        assert_eq!(codes(&rules, "1111"), ["1211"]);
        assert_eq!(codes(&rules, "1211"), ["1212", "1312"]);
    }

    #[test]
    fn rollover_and_cutoff() {
        let mut rules = Rules::standard();
        assert_eq!(rules.hit(2, 3), 0);
        assert_eq!(rules.hit(4, 4), 3);
        assert_eq!(rules.hit(1, 2), 3);
        rules.overflow = Overflow::Cutoff;
        assert_eq!(rules.hit(4, 4), 0);
    }

    #[test]
    fn switches_turn_variants_on_and_unknown_ones_are_refused() {
        let mut rules = Rules::standard();
        rules.apply("cutoff").expect("known");
        rules.apply("swaps=2").expect("known");
        assert_eq!((rules.overflow, rules.swaps), (Overflow::Cutoff, Some(2)));
        assert!(rules.apply("swaps=x").is_err());
        assert!(rules.apply("hands=9").is_err());
        assert!(rules.apply("teleport").is_err());
    }

    #[test]
    fn position_codes_parse_sorted_and_reject_bad_digits() {
        let rules = Rules::standard();
        assert_eq!(rules.parse_position("1032").expect("valid").code(), "0123");
        assert!(rules.parse_position("15").is_err());
        assert!(rules.parse_position("1115").is_err());
        assert!(rules.parse_position("11x1").is_err());
    }
}
