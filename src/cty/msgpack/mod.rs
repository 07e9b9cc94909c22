//! The msgpack encoding of cty values, byte-compatible with go-cty's `cty/msgpack`: the
//! encoding of Terraform's `DynamicValue.msgpack`.
//!
//! Encoding is type-directed: [`encode`] writes `value` as the schema type `ty` asks, so a
//! value in a `dynamic` slot gets its `[type JSON, value]` wrapper, and [`decode`] reads
//! bytes as `ty`. The rules, in short: null is `nil`; unknown is the extension `d4 00 00`, or
//! ext type 12 with an integer-keyed map when it has refinements; numbers are the most compact
//! int when integral in `i64`, a float64 when exactly one and not integral, and decimal text
//! otherwise; object attributes are written in sorted order.
//!
//! Bad input gives an [`Error`](crate::cty::Error) with the path where reading stopped, never a panic. Nesting is
//! bounded by [`MAX_DEPTH`](crate::cty::MAX_DEPTH), no allocation is sized from a length prefix beyond what the
//! remaining input could hold, and trailing bytes after the value are an error (go-cty
//! ignores them; no real peer sends them).
//!
//! Architecture invariant: knows nothing about the protocols that carry these bytes.

mod decode;
mod encode;

pub use decode::decode;
pub use encode::encode;

#[cfg(test)]
mod tests;

/// The extension type of a refined unknown value.
const REFINED_UNKNOWN_EXT: i8 = 12;

/// A refinement description larger than this is refused: go-cty does the same, since it is
/// unreasonable and might be an attempt to make the reader allocate large amounts of memory.
const MAX_REFINEMENT_LEN: usize = 1024;

/// Refinement map keys (go-cty `cty/msgpack/unknown.go`).
const KEY_NULLNESS: i64 = 1;
const KEY_STRING_PREFIX: i64 = 2;
const KEY_NUMBER_LOWER: i64 = 3;
const KEY_NUMBER_UPPER: i64 = 4;
const KEY_LENGTH_LOWER: i64 = 5;
const KEY_LENGTH_UPPER: i64 = 6;
