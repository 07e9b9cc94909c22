//! cty values: the Terraform value model, and its msgpack and JSON encodings.
//!
//! Modelled on go-cty. [`Value`] is one type with a private representation: null, unknown
//! (with optional [`Refinements`]) or known, over the cty [`Type`] of `schema_gen::tf`.
//! [`Number`] is an exact decimal. [`Path`] says where in a value something is, and [`Error`]
//! is the single error type of this layer: a path plus an [`ErrorKind`].
//!
//! The codecs are type-directed, as go-cty's are: [`msgpack::encode`] / [`msgpack::decode`]
//! (Terraform's `DynamicValue.msgpack`) and [`json::encode`] / [`json::decode`]
//! (`DynamicValue.json` and `RawState.json`). Walking a value (`walk`): every part with its
//! path, the value at a path, unknowns.
//!
//! Every decoder bounds nesting at [`MAX_DEPTH`] levels.
//!
//! Architecture invariant: knows nothing about Pulumi or gRPC. Marks such as "secret" are not
//! part of a value; callers keep them beside it, by path.

mod block;
pub mod json;
pub mod msgpack;
mod number;
mod path;
mod text;
mod value;
mod walk;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

pub use block::empty_block_value;
pub use number::{MAX_NUMBER_TEXT_LEN, Number, NumberError};
pub use path::{Error, ErrorKind, Path, PathStep};
pub use text::go_lossy_utf8;
// The type model lives in schema-gen, which reads it from provider schemas and must not depend
// on this crate; it is re-exported here because values and types are used together.
pub use schema_gen::tf::{ObjectType, Type};
pub use value::{NumberBound, Refinements, Str, Value, View};
pub use walk::{path_exists_in_type, unknown_paths, unknowns_to_null, value_at, with_attribute};

/// Values nesting deeper than this many levels of containers are refused by every decoder
/// and encoder. Real Terraform schemas nest a few levels; the bound keeps recursion on hostile
/// input far from the stack's limit.
pub const MAX_DEPTH: usize = 256;

/// The value under `key` in a map's or object's entries (which are sorted by key).
pub fn entry<'a>(entries: &'a [(Str, Value)], key: &str) -> Option<&'a Value> {
    entries.binary_search_by(|(k, _)| k.as_str().cmp(key)).ok().map(|idx| &entries[idx].1)
}
