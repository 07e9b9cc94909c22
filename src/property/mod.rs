//! Pulumi property values and their `google.protobuf.Struct` encoding.
//!
//! [`PropertyValue`] is Pulumi's value model: JSON-like values (numbers are f64, as Pulumi has
//! them) plus the special values that travel as signature objects in a `Struct`: secrets,
//! unknowns (one of seven type-specific sentinels), resource references, assets, archives,
//! output values and byte strings. [`structpb`] converts between these and
//! `prost_types::Struct` / `prost_types::Value`, with errors that carry a [`PropertyPath`] in
//! Pulumi's syntax (`a.b[0]["k.x"]`).
//!
//! Which special values a call may carry (the engine's keep-unknowns, keep-secrets, ...
//! options) is the caller's concern: this module decodes whatever arrives and encodes
//! whatever it is given.
//!
//! Architecture invariant: knows nothing about Terraform or cty, and nothing about gRPC beyond
//! the protobuf `Struct` message.

pub mod structpb;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;

/// An object's properties, sorted by key (the order `Struct` fields have on the wire).
pub type PropertyMap = BTreeMap<String, PropertyValue>;

/// A Pulumi property value.
#[derive(Clone, Debug, PartialEq)]
pub enum PropertyValue {
    Null,
    Bool(bool),
    /// Every Pulumi number is an f64, integers included.
    Number(f64),
    String(String),
    Array(Vec<PropertyValue>),
    Object(PropertyMap),
    /// A value to be kept secret.
    Secret(Box<PropertyValue>),
    /// A value not known until the resource is created or updated ("computed").
    Unknown(UnknownKind),
    ResourceReference(ResourceReference),
    Asset(Asset),
    Archive(Archive),
    Output(OutputValue),
    /// Bytes that are not valid UTF-8.
    Bytes(Vec<u8>),
}

/// Which of the seven unknown sentinels a value was sent as. Pulumi treats them all as
/// "unknown"; the kind only hints at the type the value will have. [`UnknownKind::String`] is
/// the general-purpose one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnknownKind {
    Bool,
    Number,
    String,
    Array,
    Asset,
    Archive,
    Object,
}

impl UnknownKind {
    pub const ALL: [UnknownKind; 7] = [
        UnknownKind::Bool,
        UnknownKind::Number,
        UnknownKind::String,
        UnknownKind::Array,
        UnknownKind::Asset,
        UnknownKind::Archive,
        UnknownKind::Object,
    ];

    /// The sentinel string this unknown travels as.
    pub fn sentinel(self) -> &'static str {
        match self {
            UnknownKind::Bool => "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7",
            UnknownKind::Number => "3eeb2bf0-c639-47a8-9e75-3b44932eb421",
            UnknownKind::String => "04da6b54-80e4-46f7-96ec-b56ff0331ba9",
            UnknownKind::Array => "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2",
            UnknownKind::Asset => "030794c1-ac77-496b-92df-f27374a8bd58",
            UnknownKind::Archive => "e48ece36-62e2-4504-bad9-02848725956a",
            UnknownKind::Object => "dd056dcd-154b-4c76-9bd3-c8f88648b5ff",
        }
    }

    /// The kind whose sentinel is `text`, if it is one.
    pub fn from_sentinel(text: &str) -> Option<UnknownKind> {
        UnknownKind::ALL.into_iter().find(|kind| kind.sentinel() == text)
    }
}

/// A reference to a resource.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceReference {
    pub urn: String,
    /// The resource's ID: absent for component resources.
    pub id: Option<ResourceId>,
    pub name: Option<String>,
    pub r#type: Option<String>,
    pub package_version: Option<String>,
}

/// The ID in a resource reference.
#[derive(Clone, Debug, PartialEq)]
pub enum ResourceId {
    Known(String),
    /// Sent as `""` or as an unknown sentinel; encoded as `""`, as Pulumi does.
    Unknown,
}

/// An asset: a blob given by text, a local path or a URI. With the engine's
/// `ElideAssetContents` only the hash arrives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Asset {
    pub hash: Option<String>,
    pub text: Option<String>,
    pub path: Option<String>,
    pub uri: Option<String>,
}

/// An archive: a set of named assets and archives, a local path or a URI.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Archive {
    pub hash: Option<String>,
    pub assets: Option<BTreeMap<String, AssetOrArchive>>,
    pub path: Option<String>,
    pub uri: Option<String>,
}

/// A member of an archive.
#[derive(Clone, Debug, PartialEq)]
pub enum AssetOrArchive {
    Asset(Asset),
    Archive(Archive),
}

/// An output value, as sent to and from Construct and Call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OutputValue {
    /// `None` when the value is unknown.
    pub value: Option<Box<PropertyValue>>,
    pub secret: bool,
    /// URNs of the resources the value depends on.
    pub dependencies: Vec<String>,
}

/// One step of a [`PropertyPath`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PropertyPathStep {
    Key(String),
    Index(usize),
}

/// Where in a property value something is, written the way Pulumi writes property paths:
/// `a.b[0]["k.x"]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PropertyPath {
    pub steps: Vec<PropertyPathStep>,
}

impl fmt::Display for PropertyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (idx, step) in self.steps.iter().enumerate() {
            match step {
                PropertyPathStep::Index(index) => write!(f, "[{index}]")?,
                // Keys that the dotted form would make ambiguous are written in brackets.
                PropertyPathStep::Key(key) if key.is_empty() || key.contains(['.', '[', ']', '"']) => {
                    write!(f, "[\"{}\"]", key.replace('\\', "\\\\").replace('"', "\\\""))?
                }
                PropertyPathStep::Key(key) => {
                    if idx > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(key)?
                }
            }
        }
        Ok(())
    }
}

/// An error reading a property value: where, and what.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{kind}", if path.steps.is_empty() { String::new() } else { format!("{path}: ") })]
pub struct Error {
    pub path: PropertyPath,
    pub kind: ErrorKind,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error { path: PropertyPath::default(), kind }
    }

    /// Puts `step` in front of the path, as the error passes up through a container.
    pub(crate) fn within(mut self, step: PropertyPathStep) -> Error {
        self.path.steps.insert(0, step);
        self
    }
}

/// What went wrong reading a property value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An object carries the signature key with a value that is not a known signature.
    #[error("unrecognized signature {0:?}")]
    UnrecognizedSignature(String),
    /// The signature key's value is not a string.
    #[error("signature must be a string")]
    SignatureNotString,
    /// A special object lacks a field it must have.
    #[error("missing required field {0:?}")]
    MissingField(&'static str),
    /// A field of a special object has the wrong kind of value.
    #[error("must be {expected}")]
    FieldType { field: String, expected: &'static str },
    /// A byte string's value is not valid base64.
    #[error("byte string value is not valid base64")]
    InvalidBase64,
    /// Values nest deeper than [`crate::cty::MAX_DEPTH`] levels.
    #[error("value nests deeper than {0} levels")]
    TooDeep(usize),
}
