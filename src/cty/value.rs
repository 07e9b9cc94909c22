//! The cty value: one type, [`Value`], with a private representation.
//!
//! A value is null, unknown (optionally with [`Refinements`]), or known. Known collections
//! keep their element type, so empty collections still know what they would hold; objects
//! and tuples derive their type from their parts. Sets are kept sorted and free of duplicate
//! wholly-known elements, so structural equality is set equality.
//!
//! Values are built through constructors that check what they must ([`Value::list`] checks
//! its elements against the element type) and read through accessors or the borrowed
//! [`View`], which is what code walking a value alongside a schema matches on.
//!
//! Architecture invariant: knows nothing about encodings, Pulumi or marks; secrets are kept
//! outside values, by path, by the code that translates to and from Pulumi.

use std::collections::BTreeMap;
use std::fmt;

use compact_str::CompactString;
use schema_gen::tf::Type;
use unicode_normalization::UnicodeNormalization;

use super::number::Number;
use super::path::{Error, ErrorKind, PathStep};

/// A cty value.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(Repr);

/// Text inside values: map keys, attribute names and strings. Text up to 24 bytes (nearly
/// every attribute name and many values) is held inline, without an allocation of its own.
pub type Str = CompactString;

/// Maps and objects keep their entries in a vector sorted by key, with unique keys: one
/// allocation per container instead of B-tree nodes, which matters when decoding states with
/// many small objects. Types are kept in a [`TypeBox`], so that the common primitive types
/// cost no allocation and a value stays small (48 bytes).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Repr {
    Null(TypeBox),
    Unknown(TypeBox, Option<Box<Refinements>>),
    Bool(bool),
    Number(Number),
    String(Str),
    List(TypeBox, Vec<Value>),
    Set(TypeBox, Vec<Value>),
    Map(TypeBox, Vec<(Str, Value)>),
    Object(Vec<(Str, Value)>),
    Tuple(Vec<Value>),
}

/// A type, with the primitive ones held inline. Built only by [`TypeBox::new`], so each type
/// has one representation and derived equality is type equality.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum TypeBox {
    Bool,
    Number,
    String,
    Dynamic,
    Other(Box<Type>),
}

static BOOL: Type = Type::Bool;
static NUMBER: Type = Type::Number;
static STRING: Type = Type::String;
static DYNAMIC: Type = Type::Dynamic;

impl TypeBox {
    #[inline]
    fn new(ty: Type) -> TypeBox {
        match ty {
            Type::Bool => TypeBox::Bool,
            Type::Number => TypeBox::Number,
            Type::String => TypeBox::String,
            Type::Dynamic => TypeBox::Dynamic,
            other => TypeBox::Other(Box::new(other)),
        }
    }

    #[inline]
    fn get(&self) -> &Type {
        match self {
            TypeBox::Bool => &BOOL,
            TypeBox::Number => &NUMBER,
            TypeBox::String => &STRING,
            TypeBox::Dynamic => &DYNAMIC,
            TypeBox::Other(ty) => ty,
        }
    }
}

/// Sorts entries by key; of entries with the same key, the last one wins.
fn sorted_entries(entries: impl IntoIterator<Item = (Str, Value)>) -> Vec<(Str, Value)> {
    let mut entries: Vec<(Str, Value)> = entries.into_iter().collect();
    if !entries.windows(2).all(|pair| pair[0].0 < pair[1].0) {
        // A stable sort keeps equal keys in input order, so keeping the last of each run
        // keeps the last one given.
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut deduped: Vec<(Str, Value)> = Vec::with_capacity(entries.len());
        for entry in entries {
            match deduped.last_mut() {
                Some(last) if last.0 == entry.0 => *last = entry,
                _ => deduped.push(entry),
            }
        }
        entries = deduped;
    }
    entries
}

fn find_entry<'a>(entries: &'a [(Str, Value)], key: &str) -> Option<&'a Value> {
    entries.binary_search_by(|(k, _)| k.as_str().cmp(key)).ok().map(|idx| &entries[idx].1)
}

/// What is known about an unknown value (cty's "refinements"). The default is "nothing".
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Refinements {
    /// The value will not be null.
    pub not_null: bool,
    /// A string value will start with this (strings only).
    pub string_prefix: Option<String>,
    /// A number will be at least (or above) this (numbers only).
    pub number_lower: Option<NumberBound>,
    /// A number will be at most (or below) this (numbers only).
    pub number_upper: Option<NumberBound>,
    /// A collection will have at least this many elements (lists, sets and maps only).
    pub length_lower: u64,
    /// A collection will have at most this many elements (lists, sets and maps only).
    pub length_upper: Option<u64>,
}

/// One end of the range of an unknown number.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NumberBound {
    pub value: Number,
    pub inclusive: bool,
}

impl Refinements {
    /// Whether nothing at all is known.
    pub fn is_empty(&self) -> bool {
        *self == Refinements::default()
    }

    /// Checks that every refinement fits `ty`, as go-cty's decoder does.
    fn check_fits(&self, ty: &Type) -> Result<(), ErrorKind> {
        let invalid = |reason| Err(ErrorKind::InvalidRefinement(reason));
        if matches!(ty, Type::Dynamic) && !self.is_empty() {
            return invalid("a value of unknown type cannot be refined");
        }
        if self.string_prefix.is_some() && *ty != Type::String {
            return invalid("a string prefix refinement is only valid for strings");
        }
        if (self.number_lower.is_some() || self.number_upper.is_some()) && *ty != Type::Number {
            return invalid("number bounds are only valid for numbers");
        }
        let is_collection = matches!(ty, Type::List(_) | Type::Set(_) | Type::Map(_));
        if (self.length_lower != 0 || self.length_upper.is_some()) && !is_collection {
            return invalid("length bounds are only valid for collections");
        }
        Ok(())
    }
}

/// String prefixes longer than this are cut, to at most `MAX_PREFIX_LEN - 1` bytes.
const MAX_PREFIX_LEN: usize = 256;

/// A borrowed view of a value, for matching.
#[derive(Clone, Copy, Debug)]
pub enum View<'a> {
    Null(&'a Type),
    Unknown(&'a Type, Option<&'a Refinements>),
    Bool(bool),
    Number(&'a Number),
    String(&'a str),
    List(&'a Type, &'a [Value]),
    Set(&'a Type, &'a [Value]),
    /// Entries sorted by key.
    Map(&'a Type, &'a [(Str, Value)]),
    /// Attributes sorted by name.
    Object(&'a [(Str, Value)]),
    Tuple(&'a [Value]),
}

/// Strings are NFC-normalized on entry, as go-cty's `StringVal` does, so that equal text is
/// equal bytes. ASCII is always normalized, which keeps the common case cheap.
pub(crate) fn normalize_string(text: String) -> String {
    if text.is_ascii() || unicode_normalization::is_nfc(&text) { text } else { text.nfc().collect() }
}

/// [`normalize_string`] for borrowed text, into inline storage when it is short.
#[inline]
pub(crate) fn normalize_str(text: &str) -> Str {
    if text.is_ascii() || unicode_normalization::is_nfc(text) { Str::new(text) } else { text.nfc().collect() }
}

impl Value {
    pub fn null(ty: Type) -> Value {
        Value(Repr::Null(TypeBox::new(ty)))
    }

    /// An unknown value with nothing known about it. `Value::unknown(Type::Dynamic)` is
    /// cty's `DynamicVal`: not even the type is known.
    pub fn unknown(ty: Type) -> Value {
        Value(Repr::Unknown(TypeBox::new(ty), None))
    }

    /// An unknown value refined by `refinements`, which must fit the type.
    ///
    /// Refinements are put in canonical form, so that equal knowledge is equal data and
    /// survives encoding unchanged: a string prefix is NFC-normalized and cut to at most 255
    /// bytes at a character boundary (go-cty's encoder cuts prefixes longer than 256 bytes
    /// that way); an empty prefix, a lower bound of -Infinity, an upper bound of +Infinity
    /// and a length bound of `i64::MAX` say nothing and are dropped.
    pub fn unknown_refined(ty: Type, mut refinements: Refinements) -> Result<Value, Error> {
        refinements.check_fits(&ty).map_err(Error::new)?;
        refinements.string_prefix = refinements.string_prefix.map(|prefix| {
            let mut prefix = normalize_string(prefix);
            if prefix.len() > MAX_PREFIX_LEN {
                let mut cut = MAX_PREFIX_LEN - 1;
                while !prefix.is_char_boundary(cut) {
                    cut -= 1;
                }
                prefix.truncate(cut);
            }
            prefix
        });
        refinements.string_prefix = refinements.string_prefix.filter(|prefix| !prefix.is_empty());
        refinements.number_lower = refinements.number_lower.filter(|b| b.value != Number::negative_infinity());
        refinements.number_upper = refinements.number_upper.filter(|b| b.value != Number::positive_infinity());
        refinements.length_upper = refinements.length_upper.filter(|n| *n < i64::MAX as u64);
        if refinements.is_empty() {
            return Ok(Value::unknown(ty));
        }
        Ok(Value(Repr::Unknown(TypeBox::new(ty), Some(Box::new(refinements)))))
    }

    #[inline]
    pub fn bool(b: bool) -> Value {
        Value(Repr::Bool(b))
    }

    #[inline]
    pub fn number(n: Number) -> Value {
        Value(Repr::Number(n))
    }

    #[inline]
    pub fn int(n: i64) -> Value {
        Value(Repr::Number(Number::from_i64(n)))
    }

    pub fn string(text: impl Into<String>) -> Value {
        Value(Repr::String(Str::from(normalize_string(text.into()))))
    }

    /// A list; every element must conform to `elem_ty`.
    pub fn list(elem_ty: Type, elems: Vec<Value>) -> Result<Value, Error> {
        check_elements(&elem_ty, elems.iter())?;
        Ok(Value(Repr::List(TypeBox::new(elem_ty), elems)))
    }

    /// A set; every element must conform to `elem_ty`. Duplicate wholly-known elements are
    /// merged. Elements that are not wholly known are all kept: two unknowns are not known to
    /// be the same value.
    pub fn set(elem_ty: Type, elems: Vec<Value>) -> Result<Value, Error> {
        check_elements(&elem_ty, elems.iter())?;
        Ok(Value::set_unchecked(elem_ty, elems))
    }

    /// A map; every element must conform to `elem_ty`. Keys are strings, so they are
    /// NFC-normalized too; should two keys normalize to the same text, the later one wins.
    pub fn map<K: AsRef<str>>(elem_ty: Type, elems: impl IntoIterator<Item = (K, Value)>) -> Result<Value, Error> {
        let elems = sorted_entries(elems.into_iter().map(|(key, elem)| (normalize_str(key.as_ref()), elem)));
        for (key, elem) in &elems {
            elem.conforms_to(&elem_ty).map_err(|err| err.within(PathStep::Key(key.to_string())))?;
        }
        Ok(Value(Repr::Map(TypeBox::new(elem_ty), elems)))
    }

    /// An object; its type is made of its attributes' types. Of attributes given twice, the
    /// last one wins.
    pub fn object<K: Into<Str>>(attrs: impl IntoIterator<Item = (K, Value)>) -> Value {
        Value(Repr::Object(sorted_entries(attrs.into_iter().map(|(k, v)| (k.into(), v)))))
    }

    pub fn empty_object() -> Value {
        Value(Repr::Object(Vec::new()))
    }

    pub fn tuple(elems: Vec<Value>) -> Value {
        Value(Repr::Tuple(elems))
    }

    /// For decoders that checked each element against `elem_ty` as they read it.
    #[inline]
    pub(crate) fn list_unchecked(elem_ty: Type, elems: Vec<Value>) -> Value {
        Value(Repr::List(TypeBox::new(elem_ty), elems))
    }

    pub(crate) fn set_unchecked(elem_ty: Type, mut elems: Vec<Value>) -> Value {
        elems.sort_unstable();
        elems.dedup_by(|later, earlier| later == earlier && later.is_wholly_known());
        Value(Repr::Set(TypeBox::new(elem_ty), elems))
    }

    /// For decoders that checked each attribute against its type and put them in order.
    #[inline]
    pub(crate) fn object_unchecked(attrs: Vec<(Str, Value)>) -> Value {
        debug_assert!(attrs.windows(2).all(|pair| pair[0].0 < pair[1].0));
        Value(Repr::Object(attrs))
    }

    /// For decoders that checked each element and normalized each key; the entries may come
    /// in any order.
    pub(crate) fn map_unchecked(elem_ty: Type, elems: Vec<(Str, Value)>) -> Value {
        Value(Repr::Map(TypeBox::new(elem_ty), sorted_entries(elems)))
    }

    /// For decoders that read a string which must not be normalized again.
    #[inline]
    pub(crate) fn string_normalized(text: Str) -> Value {
        Value(Repr::String(text))
    }

    #[inline]
    pub fn view(&self) -> View<'_> {
        match &self.0 {
            Repr::Null(ty) => View::Null(ty.get()),
            Repr::Unknown(ty, refinements) => View::Unknown(ty.get(), refinements.as_deref()),
            Repr::Bool(b) => View::Bool(*b),
            Repr::Number(n) => View::Number(n),
            Repr::String(s) => View::String(s),
            Repr::List(ty, elems) => View::List(ty.get(), elems),
            Repr::Set(ty, elems) => View::Set(ty.get(), elems),
            Repr::Map(ty, elems) => View::Map(ty.get(), elems),
            Repr::Object(attrs) => View::Object(attrs),
            Repr::Tuple(elems) => View::Tuple(elems),
        }
    }

    /// The value's type. For a value in a dynamic slot this is its concrete type; for
    /// `DynamicVal` it is `Type::Dynamic`.
    pub fn ty(&self) -> Type {
        match &self.0 {
            Repr::Null(ty) | Repr::Unknown(ty, _) => ty.get().clone(),
            Repr::Bool(_) => Type::Bool,
            Repr::Number(_) => Type::Number,
            Repr::String(_) => Type::String,
            Repr::List(ty, _) => Type::list(ty.get().clone()),
            Repr::Set(ty, _) => Type::set(ty.get().clone()),
            Repr::Map(ty, _) => Type::map(ty.get().clone()),
            Repr::Object(attrs) => Type::object(attrs.iter().map(|(k, v)| (k.clone(), v.ty()))),
            Repr::Tuple(elems) => Type::Tuple(elems.iter().map(Value::ty).collect()),
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self.0, Repr::Null(_))
    }

    /// Whether the value itself is known (its parts may still be unknown).
    pub fn is_known(&self) -> bool {
        !matches!(self.0, Repr::Unknown(..))
    }

    /// Whether the value and all of its parts are known.
    pub fn is_wholly_known(&self) -> bool {
        match &self.0 {
            Repr::Unknown(..) => false,
            Repr::List(_, elems) | Repr::Set(_, elems) | Repr::Tuple(elems) => elems.iter().all(Value::is_wholly_known),
            Repr::Map(_, elems) | Repr::Object(elems) => elems.iter().all(|(_, v)| v.is_wholly_known()),
            _ => true,
        }
    }

    /// The refinements of an unknown value, if it has any.
    pub fn refinements(&self) -> Option<&Refinements> {
        match &self.0 {
            Repr::Unknown(_, refinements) => refinements.as_deref(),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.0 {
            Repr::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_number(&self) -> Option<&Number> {
        match &self.0 {
            Repr::Number(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Repr::String(s) => Some(s),
            _ => None,
        }
    }

    /// An attribute of a known object.
    pub fn get_attr(&self, name: &str) -> Option<&Value> {
        find_entry(self.attributes()?, name)
    }

    /// An element of a known map.
    pub fn get_map_entry(&self, key: &str) -> Option<&Value> {
        find_entry(self.map_entries()?, key)
    }

    /// The attributes of a known object, sorted by name.
    pub fn attributes(&self) -> Option<&[(Str, Value)]> {
        match &self.0 {
            Repr::Object(attrs) => Some(attrs),
            _ => None,
        }
    }

    /// The elements of a known list, set or tuple, in order (sets: sorted).
    pub fn elements(&self) -> Option<&[Value]> {
        match &self.0 {
            Repr::List(_, elems) | Repr::Set(_, elems) | Repr::Tuple(elems) => Some(elems),
            _ => None,
        }
    }

    /// The entries of a known map, sorted by key.
    pub fn map_entries(&self) -> Option<&[(Str, Value)]> {
        match &self.0 {
            Repr::Map(_, elems) => Some(elems),
            _ => None,
        }
    }

    /// The element type of a list, set or map (known, null or unknown).
    pub fn element_type(&self) -> Option<&Type> {
        match &self.0 {
            Repr::List(ty, _) | Repr::Set(ty, _) | Repr::Map(ty, _) => Some(ty.get()),
            Repr::Null(ty) | Repr::Unknown(ty, _) => ty.get().element_type(),
            _ => None,
        }
    }

    /// Exact equality, refinements included (go-cty's `RawEquals`).
    pub fn raw_equals(&self, other: &Value) -> bool {
        self == other
    }

    /// Equality that ignores what is known about unknown values: two unknowns of the same
    /// type are equal whatever their refinements.
    pub fn equals_ignoring_refinements(&self, other: &Value) -> bool {
        match (&self.0, &other.0) {
            (Repr::Unknown(a, _), Repr::Unknown(b, _)) => a == b,
            (Repr::List(ta, a), Repr::List(tb, b)) | (Repr::Set(ta, a), Repr::Set(tb, b)) => {
                ta == tb && slices_equal_unrefined(a, b)
            }
            (Repr::Tuple(a), Repr::Tuple(b)) => slices_equal_unrefined(a, b),
            (Repr::Map(ta, a), Repr::Map(tb, b)) => ta == tb && maps_equal_unrefined(a, b),
            (Repr::Object(a), Repr::Object(b)) => maps_equal_unrefined(a, b),
            _ => self == other,
        }
    }

    /// Checks that the value can stand where `ty` is expected: `Dynamic` accepts anything,
    /// otherwise kinds must match all the way down (objects with exactly the attributes of
    /// the type). The error's path says where the first mismatch is.
    pub fn conforms_to(&self, ty: &Type) -> Result<(), Error> {
        let mismatch = || Err(Error::new(ErrorKind::type_mismatch(ty, &self.ty())));
        match (&self.0, ty) {
            (_, Type::Dynamic) => Ok(()),
            (Repr::Null(own) | Repr::Unknown(own, _), _) => {
                if type_conforms(own.get(), ty) {
                    Ok(())
                } else {
                    mismatch()
                }
            }
            (Repr::Bool(_), Type::Bool) | (Repr::Number(_), Type::Number) | (Repr::String(_), Type::String) => Ok(()),
            (Repr::List(_, elems), Type::List(elem_ty)) | (Repr::Set(_, elems), Type::Set(elem_ty)) => {
                check_elements(elem_ty, elems.iter())
            }
            (Repr::Map(_, elems), Type::Map(elem_ty)) => {
                for (key, elem) in elems {
                    elem.conforms_to(elem_ty).map_err(|err| err.within(PathStep::Key(key.to_string())))?;
                }
                Ok(())
            }
            (Repr::Tuple(elems), Type::Tuple(elem_tys)) => {
                if elems.len() != elem_tys.len() {
                    return Err(Error::new(ErrorKind::TupleLength { expected: elem_tys.len(), given: elems.len() }));
                }
                for (idx, (elem, elem_ty)) in elems.iter().zip(elem_tys).enumerate() {
                    elem.conforms_to(elem_ty).map_err(|err| err.within(PathStep::Index(idx as u64)))?;
                }
                Ok(())
            }
            (Repr::Object(attrs), Type::Object(object_ty)) => {
                check_attribute_names(attrs, &object_ty.attrs)?;
                for ((name, attr), attr_ty) in attrs.iter().zip(object_ty.attrs.values()) {
                    attr.conforms_to(attr_ty).map_err(|err| err.within(PathStep::Attr(name.to_string())))?;
                }
                Ok(())
            }
            _ => mismatch(),
        }
    }
}

/// Whether a type written on a null or unknown value can stand where `expected` is wanted.
fn type_conforms(own: &Type, expected: &Type) -> bool {
    match (own, expected) {
        (_, Type::Dynamic) => true,
        (Type::List(a), Type::List(b)) | (Type::Set(a), Type::Set(b)) | (Type::Map(a), Type::Map(b)) => {
            type_conforms(a, b)
        }
        (Type::Tuple(a), Type::Tuple(b)) => a.len() == b.len() && a.iter().zip(b).all(|(a, b)| type_conforms(a, b)),
        (Type::Object(a), Type::Object(b)) => {
            a.attrs.len() == b.attrs.len()
                && a.attrs.iter().all(|(name, a)| b.attrs.get(name).is_some_and(|b| type_conforms(a, b)))
        }
        _ => own == expected,
    }
}

fn check_elements<'a>(elem_ty: &Type, elems: impl Iterator<Item = &'a Value>) -> Result<(), Error> {
    for (idx, elem) in elems.enumerate() {
        elem.conforms_to(elem_ty).map_err(|err| err.within(PathStep::Index(idx as u64)))?;
    }
    Ok(())
}

fn slices_equal_unrefined(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.equals_ignoring_refinements(b))
}

/// Checks that an object's attributes are exactly those of its type. Both are sorted by
/// name, so on success they pair up one to one.
pub(crate) fn check_attribute_names(attrs: &[(Str, Value)], attr_tys: &BTreeMap<String, Type>) -> Result<(), Error> {
    if attrs.len() == attr_tys.len()
        && attrs.iter().zip(attr_tys.keys()).all(|((name, _), ty_name)| name.as_str() == ty_name.as_str())
    {
        return Ok(());
    }
    if let Some((extra, _)) = attrs.iter().find(|(name, _)| !attr_tys.contains_key(name.as_str())) {
        return Err(Error::new(ErrorKind::UnsupportedAttribute(extra.to_string())));
    }
    let missing = attr_tys.keys().find(|name| find_entry(attrs, name).is_none());
    Err(Error::new(ErrorKind::MissingAttribute(missing.cloned().unwrap_or_default())))
}

fn maps_equal_unrefined(a: &[(Str, Value)], b: &[(Str, Value)]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((ka, a), (kb, b))| ka == kb && a.equals_ignoring_refinements(b))
}

impl fmt::Display for Value {
    /// A compact rendering for tests and messages: `{a = "x", b = [1, 2]}`, `(unknown string)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn seq(f: &mut fmt::Formatter<'_>, open: &str, elems: &[Value], close: &str) -> fmt::Result {
            f.write_str(open)?;
            for (idx, elem) in elems.iter().enumerate() {
                if idx > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{elem}")?;
            }
            f.write_str(close)
        }
        match &self.0 {
            Repr::Null(ty) => write!(f, "null({})", ty.get()),
            Repr::Unknown(ty, None) => write!(f, "(unknown {})", ty.get()),
            Repr::Unknown(ty, Some(refinements)) => write!(f, "(unknown {} {refinements:?})", ty.get()),
            Repr::Bool(b) => write!(f, "{b}"),
            Repr::Number(n) => write!(f, "{n}"),
            Repr::String(s) => write!(f, "{s:?}"),
            Repr::List(_, elems) => seq(f, "[", elems, "]"),
            Repr::Set(_, elems) => seq(f, "set[", elems, "]"),
            Repr::Tuple(elems) => seq(f, "tuple[", elems, "]"),
            Repr::Map(_, elems) | Repr::Object(elems) => {
                f.write_str(if matches!(self.0, Repr::Map(..)) { "map{" } else { "{" })?;
                for (idx, (key, elem)) in elems.iter().enumerate() {
                    if idx > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{key} = {elem}")?;
                }
                f.write_str("}")
            }
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
