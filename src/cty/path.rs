//! Paths into a value, and the one error type of the value layer, which carries a path.
//!
//! A [`Path`] is a list of [`PathStep`]s rendered the way Terraform renders them in
//! diagnostics: `.tags["Name"]`, `.block[0].x`. Every codec and conformance error is an
//! [`Error`]: one flat path plus an [`ErrorKind`] saying what went wrong there.
//!
//! Architecture invariant: knows nothing about encodings beyond naming their failures.

use std::fmt;

use schema_gen::tf::{Type, TypeSpecError};

/// One step into a value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathStep {
    /// An object attribute, rendered `.name`.
    Attr(String),
    /// A map element, rendered `["key"]`.
    Key(String),
    /// A list, tuple or set element by position, rendered `[0]`. For sets the position is
    /// the element's place in the set's (sorted) iteration order.
    Index(u64),
}

/// A path from the root of a value to one of its parts. The empty path is the root.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Path {
    pub steps: Vec<PathStep>,
}

impl Path {
    pub fn root() -> Path {
        Path::default()
    }

    pub fn is_root(&self) -> bool {
        self.steps.is_empty()
    }

    /// This path extended by one step.
    pub fn child(&self, step: PathStep) -> Path {
        let mut steps = Vec::with_capacity(self.steps.len() + 1);
        steps.extend_from_slice(&self.steps);
        steps.push(step);
        Path { steps }
    }

    pub fn attr(&self, name: &str) -> Path {
        self.child(PathStep::Attr(name.to_owned()))
    }

    pub fn key(&self, key: &str) -> Path {
        self.child(PathStep::Key(key.to_owned()))
    }

    pub fn index(&self, index: u64) -> Path {
        self.child(PathStep::Index(index))
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for step in &self.steps {
            match step {
                PathStep::Attr(name) => write!(f, ".{name}")?,
                // Keys are quoted as JSON strings so that quotes and control characters inside
                // them stay readable and unambiguous.
                PathStep::Key(key) => write!(f, "[{}]", serde_json::Value::from(key.as_str()))?,
                PathStep::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// An error of the value layer: where it happened and what happened.
///
/// Paths are flat: when an error passes up through a container, the container's step is put
/// in front of the path rather than wrapping the error again (go-cty's `PathError` does the
/// same).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub path: Path,
    pub kind: ErrorKind,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error { path: Path::root(), kind }
    }

    pub(crate) fn at(path: Path, kind: ErrorKind) -> Error {
        Error { path, kind }
    }

    /// Puts `step` in front of the path. Errors are rare, so the quadratic cost of
    /// prepending while unwinding a deep value does not matter.
    pub(crate) fn within(mut self, step: PathStep) -> Error {
        self.path.steps.insert(0, step);
        self
    }
}

impl ErrorKind {
    /// A [`ErrorKind::TypeMismatch`] in Terraform's friendly type names, or in JSON type specs
    /// when the friendly names would read the same (`list of object` for two different
    /// object types).
    pub(crate) fn type_mismatch(expected: &Type, found: &Type) -> ErrorKind {
        let (expected_text, found_text) = (expected.to_string(), found.to_string());
        if expected_text == found_text {
            ErrorKind::TypeMismatch { expected: expected.to_json_string(), found: found.to_json_string() }
        } else {
            ErrorKind::TypeMismatch { expected: expected_text, found: found_text }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_root() { write!(f, "{}", self.kind) } else { write!(f, "{}: {}", self.path, self.kind) }
    }
}

impl std::error::Error for Error {}

/// What went wrong, at the error's path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended in the middle of a value.
    #[error("unexpected end of input")]
    UnexpectedEnd,
    /// Bytes were left over after the top-level value.
    #[error("{0} unexpected bytes after the value")]
    TrailingBytes(usize),
    /// The input holds a different kind of value than the type asks for; the text says what
    /// was required, in go-cty's words (e.g. "a list is required").
    #[error("{required} is required")]
    Required { required: &'static str },
    /// A value does not have the type the context asks for.
    #[error("{expected} is required, found {found}")]
    TypeMismatch { expected: String, found: String },
    /// An object carries an attribute its type does not have.
    #[error("unsupported attribute {0:?}")]
    UnsupportedAttribute(String),
    /// An object lacks an attribute its type has.
    #[error("attribute {0:?} is required")]
    MissingAttribute(String),
    /// An encoded object has the wrong number of attributes.
    #[error("an object with {expected} attributes is required ({given} given)")]
    ObjectAttributeCount { expected: usize, given: usize },
    /// A tuple has the wrong number of elements.
    #[error("a tuple of length {expected} is required")]
    TupleLength { expected: usize, given: usize },
    /// A map key or object key is not a string.
    #[error("all keys must be strings")]
    NonStringKey,
    /// A number could not be read.
    #[error("invalid number {0:?}")]
    InvalidNumber(String),
    /// A number is outside the range this implementation keeps exactly: its text would be
    /// longer than [`crate::cty::MAX_NUMBER_TEXT_LEN`]. go-cty would accept it, but no real
    /// provider sends one and the bound keeps hostile input from costing unbounded memory.
    #[error("number {0} is outside the supported range")]
    NumberOutOfRange(String),
    /// Infinity has no JSON encoding.
    #[error("infinity cannot be encoded as JSON")]
    InfinityInJson,
    /// An unknown value was given to an encoding that cannot carry it.
    #[error("value is not known")]
    UnknownValue,
    /// An msgpack extension that is not an unknown value.
    #[error("unsupported msgpack extension type {0}")]
    UnsupportedExtension(i8),
    /// The description of a refined unknown is malformed or does not fit the type.
    #[error("invalid unknown value refinement: {0}")]
    InvalidRefinement(&'static str),
    /// The description of a refined unknown is larger than 1 KiB, which go-cty also refuses.
    #[error("unknown value refinement is too large ({0} bytes)")]
    RefinementTooLarge(usize),
    /// A dynamic value wrapper is malformed.
    #[error("dynamic value array must have exactly two elements")]
    DynamicWrapper,
    /// The type half of a dynamic value is not a valid type spec.
    #[error("{0}")]
    TypeSpec(TypeSpecError),
    /// Values nest deeper than [`crate::cty::MAX_DEPTH`] levels.
    #[error("value nests deeper than {0} levels")]
    TooDeep(usize),
    /// The input is not well-formed in its encoding; the text names the problem.
    #[error("malformed input: {0}")]
    Malformed(String),
    /// A set element or map value does not fit the collection's element type.
    #[error("collection elements must all have type {0}")]
    InconsistentElements(String),
}
