//! The analyzer's numbers: exact rationals kept as a pair of machine integers while they fit,
//! and as big rationals from the first operation that would overflow.
//!
//! Every probability of a library protocol has a small numerator and denominator, but
//! `BigRational` allocates and reduces by a big-integer gcd on every operation. [`Exact`] holds
//! a `Ratio<i64>` and does each operation with num-rational's checked arithmetic; when that
//! reports an overflow, the operands are widened and the operation is redone in `BigRational`,
//! and the value stays big from then on. Both forms are exact and in lowest terms, so every
//! result is the same rational whichever form computed it — the choice changes the time, never
//! a number. (Floats derived from them agree too: both forms round to `f64` the same way.)
//!
//! Everything the analysis computes is an [`Exact`]: the states of the walk, the masses of its
//! leaves and turns, the linear system of the expected number of shuffles, the view
//! distribution and the leak measures. Only the [`Analysis`](super::Analysis) it returns holds
//! big rationals.
//!
//! Which path an analysis took is recorded per thread (`Tracker`): it is
//! [`Arithmetic::Small`] when no operation overflowed and [`Arithmetic::Big`] when one did, or
//! when the caller asked for big rationals throughout (to compare the two paths).

use std::borrow::Cow;
use std::cell::Cell;
use std::cmp::Ordering;
use std::fmt;

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::Ratio;
use num_traits::{CheckedAdd, CheckedDiv, CheckedSub, One, Signed, ToPrimitive, Zero};
use serde::{Deserialize, Serialize};

use crate::model::Q;

/// Which arithmetic the analyzer's states used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arithmetic {
    /// Machine integers with overflow checks (the fast path), falling back to big rationals
    /// on the first overflow. As an outcome: no operation overflowed.
    #[default]
    Small,
    /// Big rationals throughout. As an outcome: some operation overflowed (or big rationals
    /// were asked for).
    Big,
}

impl fmt::Display for Arithmetic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Arithmetic::Small => "small",
            Arithmetic::Big => "big",
        })
    }
}

thread_local! {
    static FORCE_BIG: Cell<bool> = const { Cell::new(false) };
    static OVERFLOWED: Cell<bool> = const { Cell::new(false) };
}

/// Sets the arithmetic of the analysis running on this thread, and reports which one it used.
/// Dropping it restores the previous setting, so nested analyses do not disturb each other.
pub(crate) struct Tracker {
    force_big: bool,
    overflowed: bool,
}

impl Tracker {
    /// Starts tracking, with big rationals throughout if `arithmetic` is [`Arithmetic::Big`].
    pub(crate) fn start(arithmetic: Arithmetic) -> Tracker {
        Tracker {
            force_big: FORCE_BIG.with(|c| c.replace(arithmetic == Arithmetic::Big)),
            overflowed: OVERFLOWED.with(|c| c.replace(false)),
        }
    }

    /// The arithmetic used since [`start`](Tracker::start).
    pub(crate) fn used(&self) -> Arithmetic {
        if FORCE_BIG.with(Cell::get) || OVERFLOWED.with(Cell::get) {
            Arithmetic::Big
        } else {
            Arithmetic::Small
        }
    }
}

impl Drop for Tracker {
    fn drop(&mut self) {
        FORCE_BIG.with(|c| c.set(self.force_big));
        let inner = OVERFLOWED.with(|c| c.replace(self.overflowed));
        OVERFLOWED.with(|c| c.set(self.overflowed || inner));
    }
}

/// An exact rational, small while it fits in `i64 / i64`.
#[derive(Clone, Debug)]
pub enum Exact {
    /// Numerator and denominator fit in `i64` (lowest terms, positive denominator, numerator
    /// above `i64::MIN`).
    Small(Ratio<i64>),
    /// Anything else (lowest terms, positive denominator), boxed so that a small value stays
    /// three words.
    Big(Box<Q>),
}

impl Exact {
    /// From a big rational: small when it fits and big rationals were not asked for.
    pub fn from_q(q: &Q) -> Exact {
        let small = || {
            let n = q.numer().to_i64()?;
            Some(Ratio::new_raw(n, q.denom().to_i64()?))
        };
        match small().and_then(Exact::small) {
            Some(x) => x,
            None => Exact::Big(Box::new(q.clone())),
        }
    }

    /// The integer `n`.
    pub fn from_integer(n: u64) -> Exact {
        match i64::try_from(n)
            .ok()
            .and_then(|n| Exact::small(Ratio::from_integer(n)))
        {
            Some(x) => x,
            None => Exact::Big(Box::new(Q::from_integer(BigInt::from(n)))),
        }
    }

    /// `r` as a small value, unless big rationals were asked for or its numerator is
    /// `i64::MIN` (whose negation, and gcd with 0, overflow).
    fn small(r: Ratio<i64>) -> Option<Exact> {
        (*r.numer() != i64::MIN && !FORCE_BIG.with(Cell::get)).then_some(Exact::Small(r))
    }

    /// As a big rational.
    pub fn to_q(&self) -> Q {
        match self {
            Exact::Small(r) => widen(r),
            Exact::Big(q) => (**q).clone(),
        }
    }

    /// As a big rational, borrowed when it is one.
    fn as_q(&self) -> Cow<'_, Q> {
        match self {
            Exact::Small(r) => Cow::Owned(widen(r)),
            Exact::Big(q) => Cow::Borrowed(&**q),
        }
    }

    /// The nearest `f64`, rounded as [`Q`]'s `to_f64` rounds (NaN if it does not fit), so that
    /// both forms of a value give the same float.
    pub fn to_f64(&self) -> f64 {
        match self {
            Exact::Small(r) => r.to_f64(),
            Exact::Big(q) => q.to_f64(),
        }
        .unwrap_or(f64::NAN)
    }

    /// `|self|`.
    pub fn abs(&self) -> Exact {
        match self {
            Exact::Small(r) => Exact::Small(r.abs()),
            Exact::Big(q) => Exact::Big(Box::new(q.abs())),
        }
    }

    /// `self / other` (`other` non-zero).
    pub fn div(&self, other: &Exact) -> Exact {
        self.combine(other, |a, b| a.checked_div(b), |a, b| a / b)
    }

    fn combine(
        &self,
        other: &Exact,
        small: impl Fn(&Ratio<i64>, &Ratio<i64>) -> Option<Ratio<i64>>,
        big: impl Fn(&Q, &Q) -> Q,
    ) -> Exact {
        if let (Exact::Small(a), Exact::Small(b)) = (self, other) {
            if let Some(x) = small(a, b).and_then(Exact::small) {
                return x;
            }
            OVERFLOWED.with(|c| c.set(true));
        }
        Exact::Big(Box::new(big(&self.as_q(), &other.as_q())))
    }
}

fn widen(r: &Ratio<i64>) -> Q {
    Q::new_raw(BigInt::from(*r.numer()), BigInt::from(*r.denom()))
}

impl fmt::Display for Exact {
    /// As `BigRational` writes it: `n/d`, or `n` when the denominator is 1.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exact::Small(r) => r.fmt(f),
            Exact::Big(q) => q.fmt(f),
        }
    }
}

impl PartialEq for Exact {
    fn eq(&self, other: &Exact) -> bool {
        match (self, other) {
            (Exact::Small(a), Exact::Small(b)) => a == b,
            _ => self.as_q() == other.as_q(),
        }
    }
}

impl Eq for Exact {}

impl PartialOrd for Exact {
    fn partial_cmp(&self, other: &Exact) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Exact {
    fn cmp(&self, other: &Exact) -> Ordering {
        match (self, other) {
            (Exact::Small(a), Exact::Small(b)) => a.cmp(b),
            _ => self.as_q().cmp(&other.as_q()),
        }
    }
}

/// `impl Op for Exact` by value and by reference, through [`Exact::combine`] with the checked
/// small operation and the big one.
macro_rules! exact_op {
    ($op:ident, $method:ident, $small:expr) => {
        impl std::ops::$op<&Exact> for &Exact {
            type Output = Exact;
            fn $method(self, other: &Exact) -> Exact {
                self.combine(other, $small, |a, b| std::ops::$op::$method(a, b))
            }
        }

        impl std::ops::$op for Exact {
            type Output = Exact;
            fn $method(self, other: Exact) -> Exact {
                std::ops::$op::$method(&self, &other)
            }
        }
    };
}

exact_op!(Add, add, checked_sum);
exact_op!(Sub, sub, |a, b| a.checked_sub(b));
exact_op!(Mul, mul, checked_product);

/// `a + b` in lowest terms, `None` on overflow: num-rational's checked sum, except that two
/// terms with the same denominator (the common case when masses of one walk are added up) are
/// added without its four divisions, and reduced only when the sum has a common factor with
/// the denominator. The result is the same rational in the same lowest terms.
fn checked_sum(a: &Ratio<i64>, b: &Ratio<i64>) -> Option<Ratio<i64>> {
    let d = *a.denom();
    if d != *b.denom() {
        return a.checked_add(b);
    }
    let n = a.numer().checked_add(b.numer())?;
    // Denominators are positive, so the gcd is too (`gcd(0, d) = d` gives 0/1).
    let g = n.gcd(&d);
    Some(if g == 1 {
        Ratio::new_raw(n, d)
    } else {
        Ratio::new_raw(n / g, d / g)
    })
}

/// `a · b` in lowest terms, `None` on overflow: num-rational's checked product without its
/// final reduction. Each factor is in lowest terms, so once the numerator of each is divided by
/// its gcd with the other's denominator the product is in lowest terms already (and its
/// denominator positive); only a zero product needs writing as 0/1. The multiplications that
/// can overflow are num-rational's own, so the product overflows exactly when it does.
fn checked_product(a: &Ratio<i64>, b: &Ratio<i64>) -> Option<Ratio<i64>> {
    let (an, ad, bn, bd) = (*a.numer(), *a.denom(), *b.numer(), *b.denom());
    let gcd_ad = an.gcd(&bd);
    let gcd_bc = ad.gcd(&bn);
    let numer = (an / gcd_ad).checked_mul(bn / gcd_bc)?;
    let denom = (ad / gcd_bc).checked_mul(bd / gcd_ad)?;
    Some(if numer == 0 {
        Ratio::zero()
    } else {
        Ratio::new_raw(numer, denom)
    })
}

impl std::iter::Sum for Exact {
    fn sum<I: Iterator<Item = Exact>>(iter: I) -> Exact {
        iter.fold(Exact::zero(), |acc, x| &acc + &x)
    }
}

impl Zero for Exact {
    fn zero() -> Exact {
        Exact::small(Ratio::zero()).unwrap_or_else(|| Exact::Big(Box::new(Q::zero())))
    }
    fn is_zero(&self) -> bool {
        match self {
            Exact::Small(r) => r.is_zero(),
            Exact::Big(q) => q.is_zero(),
        }
    }
}

impl One for Exact {
    fn one() -> Exact {
        Exact::small(Ratio::one()).unwrap_or_else(|| Exact::Big(Box::new(Q::one())))
    }
    fn is_one(&self) -> bool {
        match self {
            Exact::Small(r) => r.is_one(),
            Exact::Big(q) => q.is_one(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_traits::CheckedMul;
    use proptest::prelude::*;

    fn q(n: i64, d: i64) -> Q {
        Q::new(BigInt::from(n), BigInt::from(d))
    }

    proptest! {
        /// The shortcut for equal denominators gives num-rational's sum in the same lowest
        /// terms, and overflows exactly when it does, near `i64::MAX` too.
        #[test]
        fn the_equal_denominator_sum_is_num_rationals(
            a in any::<i64>(),
            b in any::<i64>(),
            c in any::<i64>(),
            d in 1i64..=i64::MAX,
            e in prop_oneof![Just(0i64), 1i64..1_000],
        ) {
            let x = Ratio::new(a, d);
            for y in [Ratio::new(b, d), Ratio::new(c, *x.denom()), Ratio::new(c, d.saturating_add(e))] {
                prop_assert_eq!(checked_sum(&x, &y), x.checked_add(&y));
            }
        }
    }

    proptest! {
        /// The product without the final reduction is num-rational's, in the same lowest
        /// terms, and overflows exactly when it does, near `i64::MAX` too.
        #[test]
        fn the_product_is_num_rationals(
            a in any::<i64>(),
            b in any::<i64>(),
            d in 1i64..=i64::MAX,
            e in prop_oneof![1i64..1_000, 1i64..=i64::MAX],
            small in -1_000i64..1_000,
        ) {
            let (a, b) = (a.max(-i64::MAX), b.max(-i64::MAX));
            let x = Ratio::new(a, d);
            for y in [Ratio::new(b, e), Ratio::new(small, e), Ratio::new(small, d), Ratio::zero()] {
                prop_assert_eq!(checked_product(&x, &y), x.checked_mul(&y));
                prop_assert_eq!(checked_product(&y, &x), y.checked_mul(&x));
            }
        }
    }

    #[test]
    fn an_overflow_falls_back_to_the_same_big_rational() {
        let _t = Tracker::start(Arithmetic::Small);
        let big = Exact::from_q(&q(i64::MAX, 3));
        assert!(matches!(big, Exact::Small(_)));
        let sum = &big + &big;
        assert!(matches!(sum, Exact::Big(_)), "2·(2^63 − 1)/3 does not fit");
        assert_eq!(sum.to_q(), q(i64::MAX, 3) * q(2, 1));
        let prod = &Exact::from_q(&q(1, 1 << 40)) * &Exact::from_q(&q(3, 1 << 40));
        assert_eq!(prod.to_q(), q(1, 1 << 40) * q(3, 1 << 40));
        assert_eq!(
            Exact::from_q(&q(2, 3)).div(&Exact::from_q(&q(4, 9))),
            Exact::from_q(&q(3, 2))
        );
    }

    #[test]
    fn the_tracker_reports_an_overflow_and_a_forced_big_path() {
        let t = Tracker::start(Arithmetic::Small);
        let x = Exact::from_q(&q(1, 3)) + Exact::from_q(&q(1, 6));
        assert_eq!(x, Exact::from_q(&q(1, 2)));
        assert_eq!(t.used(), Arithmetic::Small);
        let _ = &Exact::from_q(&q(i64::MAX, 1)) * &Exact::from_q(&q(2, 1));
        assert_eq!(t.used(), Arithmetic::Big);
        drop(t);
        let forced = Tracker::start(Arithmetic::Big);
        assert!(matches!(Exact::one(), Exact::Big(_)));
        assert_eq!(forced.used(), Arithmetic::Big);
    }

    #[test]
    fn subtraction_absolute_values_and_floats_agree_with_big_rationals() {
        let _t = Tracker::start(Arithmetic::Small);
        let (a, b) = (q(1, 3), q(3, 4));
        let (x, y) = (Exact::from_q(&a), Exact::from_q(&b));
        assert_eq!((&x - &y).to_q(), &a - &b);
        assert_eq!((&x - &y).abs().to_q(), &b - &a);
        let sum: Exact = [x.clone(), y.clone()].into_iter().sum();
        assert_eq!(sum.to_q(), &a + &b);
        for r in [q(1, 3), q(-2, 7), q(i64::MAX, 3), q(1, i64::MAX)] {
            assert_eq!(Exact::from_q(&r).to_f64(), r.to_f64().expect("fits"), "{r}");
        }
        assert_eq!(
            Exact::from_integer(u64::MAX).to_q(),
            Q::from_integer(u64::MAX.into())
        );
        // −2^63 fits in i64 but stays big: negating it would overflow.
        let min = Exact::from_q(&q(i64::MIN, 1));
        assert!(matches!(min, Exact::Big(_)));
        assert_eq!(min.abs().to_q(), -q(i64::MIN, 1));
        let to_min = &Exact::from_q(&q(-i64::MAX, 1)) - &Exact::one();
        assert!(
            matches!(to_min, Exact::Big(_)),
            "the result −2^63 is kept big"
        );
    }

    #[test]
    fn small_and_big_forms_of_a_value_are_equal_and_print_alike() {
        let small = Exact::Small(Ratio::new(3, 4));
        let big = Exact::Big(Box::new(q(3, 4)));
        assert_eq!(small, big);
        assert_eq!(small.to_string(), big.to_string());
        assert_eq!(Exact::Small(Ratio::from_integer(5)).to_string(), "5");
        assert!(Exact::Small(Ratio::new(1, 2)) < Exact::Big(Box::new(q(2, 3))));
    }
}
