//! Arbitrary-precision numbers, cty's `number` type.
//!
//! go-cty keeps numbers as 512-bit binary floats. We keep them as exact decimals
//! ([`bigdecimal::BigDecimal`]), with a fast path for integers that fit `i64`, so that every
//! number a provider or a user can write (`0.1`, `2^70`, `1e-30`, `-1e400`) and every f64
//! survives a round trip unchanged. ±Infinity exist because cty has them.
//!
//! Architecture invariant: knows nothing about encodings; the codecs ask for the pieces they
//! need ([`Number::as_i64`], [`Number::exact_f64`], [`Number::to_plain_string`]).

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use bigdecimal::BigDecimal;
use bigdecimal::num_bigint::BigInt;
use bigdecimal::num_traits::{ToPrimitive, Zero};

/// Numbers whose plain decimal text (see [`Number::to_plain_string`]) would be longer than
/// this are refused, and so is longer input text, before parsing (parsing long digit strings
/// costs more than linear time). The bound covers every f64 (the smallest subnormal takes
/// about 1,080 characters) and numbers like `1e4000`, while keeping what one number can cost
/// bounded. Bounding the output rather than the exponent keeps the set of accepted numbers
/// closed: the text of any accepted number is itself accepted.
pub const MAX_NUMBER_TEXT_LEN: usize = 8192;

/// A cty number. Equality, hashing and ordering are by numeric value.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Number(Repr);

/// Invariant: each number has exactly one representation, so that derived equality is
/// numeric equality. `Int` holds every integer that fits `i64`; `Float` holds the bits of
/// every finite non-integer that is exactly an f64 (the common non-integers, kept without
/// allocating); `Decimal` holds everything else, normalized (no trailing zero digits).
#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    Int(i64),
    Float(u64),
    Decimal(Box<BigDecimal>),
    PositiveInfinity,
    NegativeInfinity,
}

/// Why text could not be read as a number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NumberError {
    /// The text is not a decimal number.
    #[error("invalid number {0:?}")]
    Invalid(String),
    /// The number's text, as given or in plain form, is longer than [`MAX_NUMBER_TEXT_LEN`].
    #[error("number {0} is outside the supported range")]
    OutOfRange(String),
}

impl Number {
    #[inline]
    pub fn from_i64(n: i64) -> Number {
        Number(Repr::Int(n))
    }

    pub fn from_u64(n: u64) -> Number {
        match i64::try_from(n) {
            Ok(n) => Number(Repr::Int(n)),
            Err(_) => Number::from_decimal_unchecked(BigDecimal::from(n)),
        }
    }

    pub fn positive_infinity() -> Number {
        Number(Repr::PositiveInfinity)
    }

    pub fn negative_infinity() -> Number {
        Number(Repr::NegativeInfinity)
    }

    /// The exact value of an f64; `None` for NaN, which cty has no number for.
    pub fn from_f64(f: f64) -> Option<Number> {
        if f.is_nan() {
            return None;
        }
        if f.is_infinite() {
            return Some(if f > 0.0 { Number::positive_infinity() } else { Number::negative_infinity() });
        }
        if f == f.trunc() && f.abs() < 9.2e18 {
            return Some(Number::from_i64(f as i64));
        }
        if f != f.trunc() {
            return Some(Number(Repr::Float(f.to_bits())));
        }
        Some(Number::from_decimal_unchecked(f64_to_decimal(f)))
    }

    /// Reads decimal text: an optional sign, digits with an optional fraction, and an optional
    /// exponent (`-12.5e3`). go-cty reads numbers with Go's `big.Float.Parse`; this accepts the
    /// decimal part of that syntax, which is what cty itself writes.
    pub fn parse(text: &str) -> Result<Number, NumberError> {
        if text.len() > MAX_NUMBER_TEXT_LEN {
            return Err(NumberError::OutOfRange(format!("of {} characters", text.len())));
        }
        if let Ok(n) = text.parse::<i64>() {
            return Ok(Number::from_i64(n));
        }
        // BigDecimal accepts a few forms Go would not (and the reverse); the common ground is
        // what matters, and this check keeps out the oddities such as empty digit runs.
        let valid = {
            let body = text.strip_prefix(['-', '+']).unwrap_or(text);
            let (mantissa, exponent) = match body.find(['e', 'E']) {
                Some(idx) => (&body[..idx], Some(&body[idx + 1..])),
                None => (body, None),
            };
            let (int_part, frac_part) = match mantissa.split_once('.') {
                Some((i, f)) => (i, Some(f)),
                None => (mantissa, None),
            };
            let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
            let exponent_ok = exponent.is_none_or(|e| {
                let e = e.strip_prefix(['-', '+']).unwrap_or(e);
                !e.is_empty() && digits(e)
            });
            (!int_part.is_empty() || frac_part.is_some_and(|f| !f.is_empty()))
                && digits(int_part)
                && frac_part.is_none_or(digits)
                && exponent_ok
        };
        if !valid {
            return Err(NumberError::Invalid(text.to_owned()));
        }
        // Exponents with many digits overflow BigDecimal's i64 scale; they are far out of
        // range anyway.
        let decimal = BigDecimal::from_str(text).map_err(|_| NumberError::OutOfRange(text.to_owned()))?;
        // The range is checked before anything expands the digits: `1e99999999` is cheap to
        // hold as digits and scale but not as an integer.
        let decimal = decimal.normalized();
        let (_, scale) = decimal.as_bigint_and_exponent();
        let n_digits = decimal.digits();
        // Sign, digits, and either leading "0." and zeros or trailing zeros.
        let plain_len =
            1 + if scale > 0 { n_digits.max(scale as u64 + 1) + 1 } else { n_digits + scale.unsigned_abs() };
        if plain_len > MAX_NUMBER_TEXT_LEN as u64 {
            return Err(NumberError::OutOfRange(text.to_owned()));
        }
        let number = Number::from_decimal_unchecked(decimal);
        Ok(number)
    }

    fn from_decimal_unchecked(decimal: BigDecimal) -> Number {
        let decimal = decimal.normalized();
        if decimal.is_integer() {
            if let Some(n) = decimal.to_i64() {
                return Number(Repr::Int(n));
            }
        } else if let Some(f) = decimal_exact_f64(&decimal) {
            return Number(Repr::Float(f.to_bits()));
        }
        Number(Repr::Decimal(Box::new(decimal)))
    }

    /// The value as an `i64`, when it is an integer in range.
    #[inline]
    pub fn as_i64(&self) -> Option<i64> {
        match &self.0 {
            Repr::Int(n) => Some(*n),
            _ => None,
        }
    }

    /// The value as a `u64`, when it is a non-negative integer in range.
    pub fn as_u64(&self) -> Option<u64> {
        match &self.0 {
            Repr::Int(n) => u64::try_from(*n).ok(),
            Repr::Decimal(d) if d.is_integer() => d.to_u64(),
            _ => None,
        }
    }

    #[inline]
    pub fn is_infinite(&self) -> bool {
        matches!(self.0, Repr::PositiveInfinity | Repr::NegativeInfinity)
    }

    pub fn is_integer(&self) -> bool {
        match &self.0 {
            Repr::Int(_) => true,
            Repr::Decimal(d) => d.is_integer(),
            _ => false,
        }
    }

    /// The f64 equal to this number, if there is one and the number is not an integer: this is
    /// exactly the case in which go-cty's msgpack encoder writes a float64.
    #[inline]
    pub fn exact_f64(&self) -> Option<f64> {
        match self.0 {
            Repr::Float(bits) => Some(f64::from_bits(bits)),
            _ => None,
        }
    }

    /// The nearest f64 (the only number Pulumi has).
    pub fn to_f64_lossy(&self) -> f64 {
        match &self.0 {
            Repr::Int(n) => *n as f64,
            Repr::Float(bits) => f64::from_bits(*bits),
            Repr::Decimal(d) => d.to_plain_string().parse().unwrap_or(f64::NAN),
            Repr::PositiveInfinity => f64::INFINITY,
            Repr::NegativeInfinity => f64::NEG_INFINITY,
        }
    }

    /// Plain decimal text without an exponent, as go-cty's `Text('f', -1)` writes it;
    /// infinities are `+Inf` and `-Inf`.
    pub fn to_plain_string(&self) -> String {
        match &self.0 {
            Repr::Int(n) => n.to_string(),
            Repr::Float(bits) => f64_to_decimal(f64::from_bits(*bits)).to_plain_string(),
            Repr::Decimal(d) => d.to_plain_string(),
            Repr::PositiveInfinity => "+Inf".to_owned(),
            Repr::NegativeInfinity => "-Inf".to_owned(),
        }
    }

    fn to_big_decimal(&self) -> Option<BigDecimal> {
        match &self.0 {
            Repr::Int(n) => Some(BigDecimal::from(*n)),
            Repr::Float(bits) => Some(f64_to_decimal(f64::from_bits(*bits))),
            Repr::Decimal(d) => Some((**d).clone()),
            _ => None,
        }
    }
}

/// The exact decimal value of a finite f64: an odd integer mantissa times a power of two,
/// where a negative power 2^-k is written exactly as 5^k / 10^k.
fn f64_to_decimal(f: f64) -> BigDecimal {
    let bits = f.to_bits();
    let negative = bits >> 63 == 1;
    let biased_exponent = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mut mantissa, mut exponent) =
        if biased_exponent == 0 { (fraction, -1074) } else { (fraction | (1u64 << 52), biased_exponent - 1075) };
    while mantissa != 0 && mantissa & 1 == 0 && exponent < 0 {
        mantissa >>= 1;
        exponent += 1;
    }
    let magnitude = BigInt::from(mantissa);
    let decimal = if exponent >= 0 {
        BigDecimal::new(magnitude << exponent, 0)
    } else {
        let scale = -exponent;
        BigDecimal::new(magnitude * BigInt::from(5u8).pow(scale as u32), scale)
    };
    if negative { -decimal } else { decimal }
}

/// The f64 equal to a normalized non-integer decimal, if there is one.
fn decimal_exact_f64(d: &BigDecimal) -> Option<f64> {
    let (digits, scale) = d.as_bigint_and_exponent();
    // A non-integer is an f64 only if it is an integer over a power of two: the decimal
    // digits must be divisible by 5^scale.
    if scale <= 0 || scale > 1074 {
        return None;
    }
    let five_to_scale = BigInt::from(5u8).pow(scale as u32);
    if !(&digits % &five_to_scale).is_zero() {
        return None;
    }
    let mantissa = (digits / five_to_scale).to_i64()?;
    if mantissa.unsigned_abs() > 1 << 53 {
        return None;
    }
    // Two multiplications keep 2^-scale from underflowing before the mantissa is applied.
    let half = scale / 2;
    let f = mantissa as f64 * 2f64.powi(-(half as i32)) * 2f64.powi(-((scale - half) as i32));
    (f64_to_decimal(f) == *d).then_some(f)
}

impl Ord for Number {
    fn cmp(&self, other: &Number) -> Ordering {
        use Repr::*;
        match (&self.0, &other.0) {
            (Int(a), Int(b)) => a.cmp(b),
            // Both finite and neither is -0.0 (an integer), so the total order is the numeric one.
            (Float(a), Float(b)) => f64::from_bits(*a).total_cmp(&f64::from_bits(*b)),
            (NegativeInfinity, NegativeInfinity) | (PositiveInfinity, PositiveInfinity) => Ordering::Equal,
            (NegativeInfinity, _) | (_, PositiveInfinity) => Ordering::Less,
            (PositiveInfinity, _) | (_, NegativeInfinity) => Ordering::Greater,
            _ => self.to_big_decimal().cmp(&other.to_big_decimal()),
        }
    }
}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Number) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_plain_string())
    }
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_plain_string())
    }
}

impl From<i64> for Number {
    fn from(n: i64) -> Number {
        Number::from_i64(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_round_trips_through_text() {
        let table = [
            ("0.1", "0.1"),
            ("1180591620717411303424", "1180591620717411303424"),
            ("1e-30", "0.000000000000000000000000000001"),
            ("-1e400", &format!("-1{}", "0".repeat(400))),
            ("12.50", "12.5"),
            ("-0", "0"),
            ("9223372036854775808", "9223372036854775808"),
        ];
        for (input, plain) in table {
            let n = Number::parse(input).unwrap();
            assert_eq!(n.to_plain_string(), plain, "{input}");
            assert_eq!(Number::parse(&n.to_plain_string()).unwrap(), n, "{input}");
        }
    }

    /// Found by fuzzing: a number accepted from short text must also be accepted from its
    /// long plain text.
    #[test]
    fn accepted_numbers_accept_their_plain_text() {
        for input in ["3030E4095", "1e8190", "-1e-8188", "5e-324"] {
            let n = Number::parse(input).unwrap();
            assert_eq!(Number::parse(&n.to_plain_string()).unwrap(), n, "{input}");
        }
        assert!(Number::parse("1e8191").is_err());
    }

    #[test]
    fn bad_text() {
        for input in ["", "-", ".", "1e", "e5", "0x10", "1.2.3", "Inf", "1e99999999999999999999", "1e9000", "1e-9000"] {
            assert!(Number::parse(input).is_err(), "{input:?} was accepted");
        }
    }

    #[test]
    fn f64_exactness() {
        for f in [0.5, -1.25, 0.1, 1e-300, 5e-324, f64::MAX, 123456.789] {
            let n = Number::from_f64(f).unwrap();
            assert_eq!(n.to_f64_lossy(), f);
            if f.fract() != 0.0 {
                assert_eq!(n.exact_f64(), Some(f), "{f}");
            }
        }
        assert_eq!(Number::parse("0.1").unwrap().exact_f64(), None);
        assert_eq!(Number::from_i64(3).exact_f64(), None);
        assert!(Number::parse("1.5").unwrap() < Number::from_i64(2));
        assert!(Number::negative_infinity() < Number::parse("-1e400").unwrap());
    }
}
