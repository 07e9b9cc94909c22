//! Property tests for the schema-driven translation: random Terraform schemas, random cty
//! values that conform to them as a provider would send them, and the Pulumi round trip
//! `from_cty` then `to_cty`; and `to_cty` on arbitrary Pulumi values, which must never panic.
//!
//! The round trip is the identity except where Pulumi has one value for what Terraform
//! tells apart. [`expected_value`] and [`expected_secrets`] apply exactly those cases to the
//! input and nothing else; each rule there says why. Not generated at all: refined unknowns
//! (Pulumi unknowns carry no refinements, so a refinement is always dropped), infinities
//! (Pulumi cannot carry them: `to_cty` rejects them with `NotFinite`), null elements of
//! nested-block collections (Terraform never sends them), and `dynamic` anywhere but as a
//! whole attribute's type or inside a set (Terraform has no sets of dynamic values).

use std::collections::BTreeSet;

use proptest::prelude::*;
use schema_gen::tf::{AttributeType, Block, BlockNesting, NestedBlock, NestedObject, ObjectNesting, ObjectType};
use schema_gen::translate::PropertyNames;

mod strategies;

use self::strategies::{arb_block, arb_block_value, arb_key, collection, object_block};
use super::values::{UnknownKeys, from_cty, to_cty};
use crate::cty::{Number, Path, Type, Value, View};
use crate::property::{
    Archive, Asset, OutputValue, PropertyMap, PropertyValue, ResourceId, ResourceReference, UnknownKind,
};

// ---------------------------------------------------------------------------------------
// What the round trip gives back.

/// Whether Pulumi's f64 holds `n` without loss, as `from_cty` decides it: then it comes back
/// as a Pulumi number, else as a string holding the exact decimal.
fn f64_holds(n: &Number) -> bool {
    let nearest = n.to_f64_lossy();
    nearest.is_finite()
        && (Number::from_f64(nearest).as_ref() == Some(n)
            || Number::parse(&format!("{nearest:e}")).is_ok_and(|shortest| shortest == *n))
}

/// A number after the round trip. Pulumi holds only an f64, and `to_cty` reads an f64 back
/// as the number a program most likely meant: a fraction as its shortest decimal (`0.1`, as
/// Terraform reads configuration), an integer as the f64's exact value (2^70 is exactly what
/// a program computing it holds). So a fraction that is an f64's exact binary value (an
/// SDKv2 float64) comes back as the shortest decimal, and an integer above 2^53 written as
/// the shortest decimal of an f64 (`1e300`) comes back as that f64's exact value. Numbers an
/// f64 does not hold come back exactly, through strings.
fn expected_number(n: &Number) -> Number {
    let nearest = n.to_f64_lossy();
    match () {
        _ if !f64_holds(n) => n.clone(),
        _ if nearest.fract() == 0.0 => Number::from_f64(nearest).unwrap(),
        _ => Number::parse(&format!("{nearest:e}")).unwrap(),
    }
}

fn expected_value(block: &Block, value: &Value) -> Value {
    let View::Object(attrs) = value.view() else { return value.clone() };
    Value::object(attrs.iter().map(|(name, v)| {
        let expected = match block.attributes.get(name.as_str()) {
            Some(attr) => match &attr.ty {
                AttributeType::Type(ty) => expected_typed(ty, v),
                AttributeType::Nested(nested) => expected_nested_object(nested, v),
            },
            None => expected_nested_block(&block.block_types[name.as_str()], v),
        };
        (name.clone(), expected)
    }))
}

fn expected_typed(ty: &Type, value: &Value) -> Value {
    let elem_ty = |ty: &Type| ty.element_type().cloned().unwrap_or(Type::Dynamic);
    match (ty, value.view()) {
        (Type::Dynamic, _) => expected_dynamic(value),
        (_, View::Number(n)) => Value::number(expected_number(n)),
        (_, View::List(_, elems)) => {
            let elem = elem_ty(ty);
            Value::list(elem.clone(), elems.iter().map(|e| expected_typed(&elem, e)).collect()).unwrap()
        }
        (_, View::Set(_, elems)) => {
            let elem = elem_ty(ty);
            Value::set(elem.clone(), elems.iter().map(|e| expected_typed(&elem, e)).collect()).unwrap()
        }
        (_, View::Map(_, entries)) => {
            let elem = elem_ty(ty);
            Value::map(elem.clone(), entries.iter().map(|(k, e)| (k.clone(), expected_typed(&elem, e)))).unwrap()
        }
        (Type::Object(ObjectType { attrs: types, .. }), View::Object(attrs)) => {
            Value::object(attrs.iter().map(|(k, e)| (k.clone(), expected_typed(&types[k.as_str()], e))))
        }
        (Type::Tuple(types), View::Tuple(elems)) => {
            Value::tuple(elems.iter().zip(types).map(|(e, t)| expected_typed(t, e)).collect())
        }
        _ => value.clone(),
    }
}

/// A dynamic value after the round trip. Pulumi values are JSON with no types, so inside a
/// `dynamic` attribute: lists and sets come back as tuples, maps as objects, nulls and
/// unknowns as dynamic-typed nulls and unknowns, and numbers an f64 cannot hold as strings.
fn expected_dynamic(value: &Value) -> Value {
    match value.view() {
        View::Null(_) => Value::null(Type::Dynamic),
        View::Unknown(..) => Value::unknown(Type::Dynamic),
        View::Number(n) if f64_holds(n) => Value::number(expected_number(n)),
        View::Number(n) => Value::string(n.to_plain_string()),
        View::List(_, elems) | View::Set(_, elems) | View::Tuple(elems) => {
            Value::tuple(elems.iter().map(expected_dynamic).collect())
        }
        View::Map(_, entries) | View::Object(entries) => {
            Value::object(entries.iter().map(|(k, e)| (k.clone(), expected_dynamic(e))))
        }
        View::Bool(_) | View::String(_) => value.clone(),
    }
}

fn expected_nested_object(nested: &NestedObject, value: &Value) -> Value {
    let block = object_block(nested);
    let ty = block.implied_type();
    match value.view() {
        View::Object(_) => expected_value(&block, value),
        View::List(_, elems) => Value::list(ty, elems.iter().map(|e| expected_value(&block, e)).collect()).unwrap(),
        View::Set(_, elems) => Value::set(ty, elems.iter().map(|e| expected_value(&block, e)).collect()).unwrap(),
        View::Map(_, entries) => {
            Value::map(ty, entries.iter().map(|(k, e)| (k.clone(), expected_value(&block, e)))).unwrap()
        }
        _ => value.clone(),
    }
}

fn is_max_items_one(nested: &NestedBlock) -> bool {
    matches!(nested.nesting, BlockNesting::List | BlockNesting::Set) && nested.max_items == 1
}

fn expected_nested_block(nested: &NestedBlock, value: &Value) -> Value {
    let block = &nested.block;
    let element_ty = block.implied_type();
    let dynamic = element_ty.has_dynamic();
    let is_set = nested.nesting == BlockNesting::Set;
    let elements = |elems: &[Value]| -> Value {
        let elems: Vec<Value> = elems.iter().map(|e| expected_value(block, e)).collect();
        // A MaxItems=1 block is one object in Pulumi: an unknown element is an unknown
        // property, which can only come back as an unknown block list.
        if is_max_items_one(nested) && elems.len() == 1 && !elems[0].is_known() {
            return Value::unknown(nested.implied_type());
        }
        if dynamic { Value::tuple(elems) } else { collection(is_set, &element_ty, elems) }
    };
    match (nested.nesting, value.view()) {
        // Pulumi has no null block list, set or map: an absent property means "no blocks",
        // as Terraform itself never sends such a null.
        (BlockNesting::List | BlockNesting::Set, View::Null(_)) => elements(&[]),
        (BlockNesting::Map, View::Null(_)) if dynamic => Value::object(Vec::<(String, Value)>::new()),
        (BlockNesting::Map, View::Null(_)) => Value::map(element_ty, Vec::<(String, Value)>::new()).unwrap(),
        // Nor a null group: a group block is always present, with null attributes when unset.
        (BlockNesting::Group, View::Null(_)) => crate::cty::empty_block_value(block).unwrap(),
        (_, View::List(_, elems) | View::Set(_, elems) | View::Tuple(elems)) => elements(elems),
        (BlockNesting::Map, View::Map(_, entries) | View::Object(entries)) => {
            let entries = entries.iter().map(|(k, e)| (k.clone(), expected_value(block, e)));
            if dynamic { Value::object(entries) } else { Value::map(element_ty, entries).unwrap() }
        }
        (_, View::Object(_)) => expected_value(block, value),
        _ => value.clone(),
    }
}

// ---------------------------------------------------------------------------------------
// Where secrets go.

/// A part of the value that can be marked secret, and where the mark is after the round
/// trip: `None` when it is lost, because the part is null (Pulumi leaves null attributes out,
/// and a null has nothing to wrap) or an empty MaxItems=1 block (which is a null in Pulumi).
/// A mark inside a set lands on the outermost set: set elements have no stable position.
/// A mark on the element of a MaxItems=1 block lands on the block: Pulumi has one value for
/// both. Parts inside `dynamic` values are not candidates: Pulumi turns their maps into
/// objects and their sets into tuples, so the paths change shape (what `expected_dynamic`
/// does to the value).
struct Part {
    path: Path,
    lands: Option<Path>,
    sensitive: bool,
}

#[derive(Default)]
struct Parts(Vec<Part>);

impl Parts {
    fn add(&mut self, path: &Path, value: &Value, set_root: Option<&Path>, lands: Option<&Path>, sensitive: bool) {
        let lands = (!value.is_null()).then(|| set_root.or(lands).unwrap_or(path).clone());
        self.0.push(Part { path: path.clone(), lands, sensitive });
    }

    fn block(&mut self, block: &Block, value: &Value, path: &Path, set_root: Option<&Path>) {
        let View::Object(attrs) = value.view() else { return };
        for (name, v) in attrs {
            let child = path.attr(name);
            if let Some(attr) = block.attributes.get(name.as_str()) {
                self.add(&child, v, set_root, None, attr.sensitive);
                match &attr.ty {
                    AttributeType::Type(ty) => self.typed(ty, v, &child, set_root),
                    AttributeType::Nested(nested) => self.nested_object(nested, v, &child, set_root),
                }
            } else {
                let nested = &block.block_types[name.as_str()];
                if is_max_items_one(nested) && v.elements().is_some_and(<[Value]>::is_empty) {
                    self.0.push(Part { path: child.clone(), lands: None, sensitive: false });
                } else {
                    self.add(&child, v, set_root, None, false);
                }
                self.nested_block(nested, v, &child, set_root);
            }
        }
    }

    fn typed(&mut self, ty: &Type, value: &Value, path: &Path, set_root: Option<&Path>) {
        match (ty, value.view()) {
            (Type::List(elem) | Type::Set(elem), View::List(_, elems) | View::Set(_, elems)) => {
                let inner_root = if matches!(ty, Type::Set(_)) { set_root.or(Some(path)) } else { set_root };
                for (idx, e) in elems.iter().enumerate() {
                    let child = path.index(idx as u64);
                    self.add(&child, e, inner_root, None, false);
                    self.typed(elem, e, &child, inner_root);
                }
            }
            (Type::Tuple(types), View::Tuple(elems)) => {
                for (idx, (e, t)) in elems.iter().zip(types).enumerate() {
                    let child = path.index(idx as u64);
                    self.add(&child, e, set_root, None, false);
                    self.typed(t, e, &child, set_root);
                }
            }
            (Type::Map(elem), View::Map(_, entries)) => {
                for (key, e) in entries {
                    let child = path.key(key);
                    self.add(&child, e, set_root, None, false);
                    self.typed(elem, e, &child, set_root);
                }
            }
            (Type::Object(object), View::Object(attrs)) => {
                for (name, e) in attrs {
                    let child = path.attr(name);
                    self.add(&child, e, set_root, None, false);
                    self.typed(&object.attrs[name.as_str()], e, &child, set_root);
                }
            }
            _ => {}
        }
    }

    fn nested_object(&mut self, nested: &NestedObject, value: &Value, path: &Path, set_root: Option<&Path>) {
        let block = object_block(nested);
        match value.view() {
            View::Object(_) => self.block(&block, value, path, set_root),
            View::List(_, elems) | View::Set(_, elems) => {
                let inner_root = if nested.nesting == ObjectNesting::Set { set_root.or(Some(path)) } else { set_root };
                for (idx, e) in elems.iter().enumerate() {
                    let child = path.index(idx as u64);
                    self.add(&child, e, inner_root, None, false);
                    self.block(&block, e, &child, inner_root);
                }
            }
            View::Map(_, entries) => {
                for (key, e) in entries {
                    let child = path.key(key);
                    self.add(&child, e, set_root, None, false);
                    self.block(&block, e, &child, set_root);
                }
            }
            _ => {}
        }
    }

    fn nested_block(&mut self, nested: &NestedBlock, value: &Value, path: &Path, set_root: Option<&Path>) {
        match value.view() {
            View::List(_, elems) | View::Set(_, elems) | View::Tuple(elems) => {
                let inner_root = if nested.nesting == BlockNesting::Set { set_root.or(Some(path)) } else { set_root };
                let lands = is_max_items_one(nested).then_some(path);
                for (idx, e) in elems.iter().enumerate() {
                    let child = path.index(idx as u64);
                    self.add(&child, e, inner_root, lands, false);
                    self.block(&nested.block, e, &child, inner_root);
                }
            }
            View::Map(_, entries) | View::Object(entries) if nested.nesting == BlockNesting::Map => {
                for (key, e) in entries {
                    let child = path.key(key);
                    self.add(&child, e, set_root, None, false);
                    self.block(&nested.block, e, &child, set_root);
                }
            }
            View::Object(_) => self.block(&nested.block, value, path, set_root),
            _ => {}
        }
    }
}

fn parts(block: &Block, value: &Value) -> Parts {
    let mut parts = Parts::default();
    parts.block(block, value, &Path::root(), None);
    parts
}

/// The secret paths `to_cty` gives back: where each input mark lands, and where the mark
/// of each present sensitive attribute lands.
fn expected_secrets(parts: &Parts, marked: &[Path]) -> BTreeSet<Path> {
    let marked: BTreeSet<&Path> = marked.iter().collect();
    parts
        .0
        .iter()
        .filter(|part| part.sensitive || marked.contains(&part.path))
        .filter_map(|part| part.lands.clone())
        .collect()
}

fn arb_case() -> impl Strategy<Value = (Block, Value, Vec<Path>)> {
    arb_block(2, false)
        .prop_flat_map(|block| {
            let value = arb_block_value(&block);
            (Just(block), value)
        })
        .prop_flat_map(|(block, value)| {
            let candidates: Vec<Path> = parts(&block, &value).0.into_iter().map(|part| part.path).collect();
            let most = candidates.len().min(3);
            (Just(block), Just(value), prop::sample::subsequence(candidates, 0..=most))
        })
}

// ---------------------------------------------------------------------------------------
// Arbitrary Pulumi values, with keys the schema knows most of the time.

/// Every Pulumi name in the schema, at any depth, so that random objects reach deep.
fn pulumi_names(block: &Block, out: &mut BTreeSet<String>) {
    let names = PropertyNames::of_block(block);
    let tf_names = block.attributes.keys().chain(block.block_types.keys());
    out.extend(tf_names.filter_map(|tf| names.by_tf_name(tf)).map(|name| name.pulumi_name.clone()));
    for attr in block.attributes.values() {
        match &attr.ty {
            AttributeType::Type(ty) => type_names(ty, out),
            AttributeType::Nested(nested) => pulumi_names(&object_block(nested), out),
        }
    }
    for nested in block.block_types.values() {
        pulumi_names(&nested.block, out);
    }
}

fn type_names(ty: &Type, out: &mut BTreeSet<String>) {
    match ty {
        Type::List(elem) | Type::Set(elem) | Type::Map(elem) => type_names(elem, out),
        Type::Tuple(elems) => elems.iter().for_each(|elem| type_names(elem, out)),
        Type::Object(object) => {
            let names = PropertyNames::of_object_type(object);
            out.extend(object.attrs.keys().filter_map(|tf| names.by_tf_name(tf)).map(|n| n.pulumi_name.clone()));
            object.attrs.values().for_each(|attr| type_names(attr, out));
        }
        _ => {}
    }
}

fn arb_property(keys: Vec<String>) -> impl Strategy<Value = PropertyValue> {
    let leaf = prop_oneof![
        Just(PropertyValue::Null),
        any::<bool>().prop_map(PropertyValue::Bool),
        any::<f64>().prop_map(PropertyValue::Number),
        prop_oneof![Just(1e300), Just(0.1), Just(-0.0), Just(9007199254740993.0)].prop_map(PropertyValue::Number),
        prop_oneof![".{0,4}", "-?[0-9]{1,30}(\\.[0-9]{0,20})?(e-?[0-9]{1,4})?", Just("true".to_owned())]
            .prop_map(PropertyValue::String),
        prop::sample::select(UnknownKind::ALL.to_vec()).prop_map(PropertyValue::Unknown),
        Just(PropertyValue::Bytes(vec![1, 2])),
        Just(PropertyValue::Asset(Asset { text: Some("x".into()), ..Asset::default() })),
        Just(PropertyValue::Archive(Archive::default())),
        (".{0,4}", proptest::option::of(prop_oneof![Just(ResourceId::Unknown), ".{0,3}".prop_map(ResourceId::Known)]))
            .prop_map(|(urn, id)| PropertyValue::ResourceReference(ResourceReference {
                urn,
                id,
                name: None,
                r#type: None,
                package_version: None,
            })),
        any::<bool>().prop_map(|secret| PropertyValue::Output(OutputValue {
            value: None,
            secret,
            dependencies: vec![]
        })),
    ];
    let key = prop_oneof![4 => prop::sample::select(keys), 1 => arb_key()];
    leaf.prop_recursive(4, 32, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(PropertyValue::Array),
            prop::collection::btree_map(key.clone(), inner.clone(), 0..4).prop_map(PropertyValue::Object),
            inner.clone().prop_map(|v| PropertyValue::Secret(Box::new(v))),
            (inner, any::<bool>()).prop_map(|(v, secret)| PropertyValue::Output(OutputValue {
                value: Some(Box::new(v)),
                secret,
                dependencies: vec![],
            })),
        ]
    })
}

fn arb_schema_and_properties() -> impl Strategy<Value = (Block, PropertyMap, bool)> {
    arb_block(2, false).prop_flat_map(|block| {
        let mut names = BTreeSet::from(["x".to_owned()]);
        pulumi_names(&block, &mut names);
        let keys: Vec<String> = names.into_iter().collect();
        let key = prop_oneof![4 => prop::sample::select(keys.clone()), 1 => arb_key()];
        let props = prop::collection::btree_map(key, arb_property(keys), 0..6);
        (Just(block), props, any::<bool>())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `from_cty` then `to_cty` gives back the value and its secrets, up to the differences
    /// `expected_value` and `expected_secrets` spell out.
    #[test]
    fn cty_to_pulumi_and_back((block, value, marked) in arb_case()) {
        prop_assert!(value.conforms_to(&block.implied_type()).is_ok(), "generator: {value} does not conform");
        let names = PropertyNames::of_block(&block);
        let props = from_cty(&block, &names, &value, &marked)
            .map_err(|err| TestCaseError::fail(format!("from_cty failed: {err}")))?;
        let (back, secrets) = to_cty(&block, &names, &props, UnknownKeys::Reject)
            .map_err(|err| TestCaseError::fail(format!("to_cty failed: {err}; properties {props:?}")))?;
        prop_assert_eq!(&back, &expected_value(&block, &value), "properties: {:?}", props);
        let secrets: BTreeSet<Path> = secrets.into_iter().collect();
        prop_assert_eq!(secrets, expected_secrets(&parts(&block, &value), &marked), "properties: {:?}", props);
    }

    /// `to_cty` never panics on any Pulumi value; what it accepts conforms to the schema, and
    /// what it refuses names the property.
    #[test]
    fn to_cty_accepts_or_names_the_property((block, props, reject) in arb_schema_and_properties()) {
        let names = PropertyNames::of_block(&block);
        let unknown_keys = if reject { UnknownKeys::Reject } else { UnknownKeys::Ignore };
        match to_cty(&block, &names, &props, unknown_keys) {
            Ok((value, _)) => {
                let conforms = value.conforms_to(&block.implied_type());
                prop_assert!(conforms.is_ok(), "{} does not conform: {:?}", value, conforms);
            }
            Err(err) => {
                prop_assert!(!err.path.steps.is_empty(), "error without a path: {}", err);
                prop_assert!(err.to_string().starts_with(&err.path.to_string()), "{}", err);
            }
        }
    }
}
