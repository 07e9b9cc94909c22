//! Strategies: random Terraform schemas, and random cty values that conform to them as a
//! provider would send them.

use std::collections::BTreeMap;

use proptest::prelude::*;
use schema_gen::tf::{Attribute, AttributeType, Block, BlockNesting, NestedBlock, NestedObject, ObjectNesting};

use crate::cty::{Number, Type, Value};

// ---------------------------------------------------------------------------------------
// Schemas.

/// Terraform names: lower snake case, short enough to collide now and then after pluralizing
/// and camel-casing, which is what the naming rules must survive.
pub(super) fn arb_name() -> impl Strategy<Value = String> {
    "[a-z]{1,4}(_[a-z]{1,3})?"
}

/// A type of a plain attribute. `dynamic` only at the top of an attribute (see the module doc).
pub(super) fn arb_attribute_type(allow_dynamic: bool) -> BoxedStrategy<Type> {
    let leaf = prop_oneof![Just(Type::Bool), Just(Type::Number), Just(Type::String)];
    let nested = leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(Type::list),
            inner.clone().prop_map(Type::set),
            inner.clone().prop_map(Type::map),
            prop::collection::btree_map(arb_name(), inner.clone(), 0..3).prop_map(Type::object),
            prop::collection::vec(inner, 1..3).prop_map(Type::Tuple),
        ]
    });
    if allow_dynamic { prop_oneof![6 => nested, 1 => Just(Type::Dynamic)].boxed() } else { nested.boxed() }
}

pub(super) fn attribute(ty: AttributeType, sensitive: bool) -> Attribute {
    let mut attr = Attribute::new(Type::Bool);
    attr.ty = ty;
    attr.optional = true;
    attr.sensitive = sensitive;
    attr
}

pub(super) fn arb_sensitive() -> impl Strategy<Value = bool> {
    prop::bool::weighted(0.2)
}

/// Attributes of a block or nested object; nested attribute objects down to `depth`.
pub(super) fn arb_attributes(depth: u32, in_set: bool) -> BoxedStrategy<BTreeMap<String, Attribute>> {
    let plain = (arb_attribute_type(!in_set), arb_sensitive())
        .prop_map(|(ty, sensitive)| attribute(AttributeType::Type(ty), sensitive));
    let field = if depth == 0 {
        plain.boxed()
    } else {
        let nested = (
            prop_oneof![
                Just(ObjectNesting::Single),
                Just(ObjectNesting::List),
                Just(ObjectNesting::Set),
                Just(ObjectNesting::Map)
            ],
            arb_sensitive(),
        )
            .prop_flat_map(move |(nesting, sensitive)| {
                arb_attributes(depth - 1, in_set || nesting == ObjectNesting::Set).prop_map(move |attributes| {
                    let object = NestedObject { attributes, nesting, min_items: 0, max_items: 0 };
                    attribute(AttributeType::Nested(object), sensitive)
                })
            });
        prop_oneof![4 => plain, 1 => nested].boxed()
    };
    prop::collection::btree_map(arb_name(), field, 0..4).boxed()
}

pub(super) fn arb_block(depth: u32, in_set: bool) -> BoxedStrategy<Block> {
    let attributes = arb_attributes(depth.min(1), in_set);
    if depth == 0 {
        return attributes.prop_map(|attributes| Block { attributes, ..Block::default() }).boxed();
    }
    let nesting = prop_oneof![
        Just((BlockNesting::Single, 0)),
        Just((BlockNesting::Group, 0)),
        Just((BlockNesting::List, 0)),
        Just((BlockNesting::List, 1)),
        Just((BlockNesting::Set, 0)),
        Just((BlockNesting::Set, 1)),
        Just((BlockNesting::Map, 0)),
    ];
    let nested = nesting.prop_flat_map(move |(nesting, max_items)| {
        arb_block(depth - 1, in_set || nesting == BlockNesting::Set).prop_map(move |block| NestedBlock {
            nesting,
            block,
            min_items: 0,
            max_items,
        })
    });
    (attributes, prop::collection::btree_map(arb_name(), nested, 0..3))
        .prop_map(|(attributes, mut block_types)| {
            // Attributes and blocks share one namespace in Terraform.
            block_types.retain(|name, _| !attributes.contains_key(name));
            Block { attributes, block_types, ..Block::default() }
        })
        .boxed()
}

// ---------------------------------------------------------------------------------------
// Values conforming to a schema.

pub(super) fn arb_number() -> BoxedStrategy<Number> {
    prop_oneof![
        any::<i64>().prop_map(Number::from_i64),
        any::<u64>().prop_map(Number::from_u64),
        // The shortest decimal of an f64, as Terraform reads `0.1` from configuration.
        any::<f64>().prop_filter_map("finite", |f| f.is_finite().then(|| Number::parse(&format!("{f:e}")).unwrap())),
        // The exact binary value of an f64, as an SDKv2 provider's float64 arrives.
        any::<f64>().prop_filter_map("finite", Number::from_f64),
        // Decimals no f64 holds: these come back through Pulumi as exact strings.
        (any::<i128>(), -40i32..40).prop_map(|(digits, exp)| Number::parse(&format!("{digits}e{exp}")).unwrap()),
    ]
    .boxed()
}

pub(super) fn arb_key() -> impl Strategy<Value = String> {
    "[a-zA-Z_.\"é]{0,4}"
}

/// A value of `ty`: known, null or unknown.
pub(super) fn arb_value(ty: &Type) -> BoxedStrategy<Value> {
    let null = Just(Value::null(ty.clone()));
    let unknown = Just(Value::unknown(ty.clone()));
    prop_oneof![6 => arb_known(ty), 1 => null, 1 => unknown].boxed()
}

pub(super) fn arb_known(ty: &Type) -> BoxedStrategy<Value> {
    match ty {
        Type::Bool => any::<bool>().prop_map(Value::bool).boxed(),
        Type::Number => arb_number().prop_map(Value::number).boxed(),
        Type::String => ".{0,6}".prop_map(Value::string).boxed(),
        Type::List(elem) | Type::Set(elem) => {
            let is_set = matches!(ty, Type::Set(_));
            let elem = (**elem).clone();
            prop::collection::vec(arb_value(&elem), 0..3)
                .prop_map(move |elems| collection(is_set, &elem, elems))
                .boxed()
        }
        Type::Map(elem) => {
            let elem = (**elem).clone();
            prop::collection::btree_map(arb_key(), arb_value(&elem), 0..3)
                .prop_map(move |entries| Value::map(elem.clone(), entries).unwrap())
                .boxed()
        }
        Type::Object(object) => {
            let names: Vec<String> = object.attrs.keys().cloned().collect();
            let values: Vec<BoxedStrategy<Value>> = object.attrs.values().map(arb_value).collect();
            values.prop_map(move |values| Value::object(names.iter().cloned().zip(values))).boxed()
        }
        Type::Tuple(elems) => {
            let values: Vec<BoxedStrategy<Value>> = elems.iter().map(arb_value).collect();
            values.prop_map(Value::tuple).boxed()
        }
        // Some concrete type, which the value carries with it.
        Type::Dynamic => arb_attribute_type(false).prop_flat_map(|ty| arb_value(&ty)).boxed(),
    }
}

pub(super) fn collection(is_set: bool, elem: &Type, elems: Vec<Value>) -> Value {
    if is_set { Value::set(elem.clone(), elems) } else { Value::list(elem.clone(), elems) }.unwrap()
}

pub(super) fn arb_attribute_value(attr: &Attribute) -> BoxedStrategy<Value> {
    match &attr.ty {
        AttributeType::Type(ty) => arb_value(ty),
        AttributeType::Nested(nested) => arb_nested_object_value(nested),
    }
}

pub(super) fn object_block(nested: &NestedObject) -> Block {
    Block { attributes: nested.attributes.clone(), ..Block::default() }
}

pub(super) fn arb_nested_object_value(nested: &NestedObject) -> BoxedStrategy<Value> {
    let block = object_block(nested);
    let element_ty = block.implied_type();
    let object = arb_block_value(&block);
    let element = prop_oneof![
        6 => object.clone(),
        1 => Just(Value::null(element_ty.clone())),
        1 => Just(Value::unknown(element_ty.clone())),
    ];
    let known = match nested.nesting {
        ObjectNesting::Single => object,
        ObjectNesting::List | ObjectNesting::Set => {
            let is_set = nested.nesting == ObjectNesting::Set;
            prop::collection::vec(element, 0..3).prop_map(move |elems| collection(is_set, &element_ty, elems)).boxed()
        }
        ObjectNesting::Map => prop::collection::btree_map(arb_key(), element, 0..3)
            .prop_map(move |entries| Value::map(element_ty.clone(), entries).unwrap())
            .boxed(),
    };
    let ty = nested.implied_type();
    prop_oneof![6 => known, 1 => Just(Value::null(ty.clone())), 1 => Just(Value::unknown(ty))].boxed()
}

pub(super) fn arb_nested_block_value(nested: &NestedBlock) -> BoxedStrategy<Value> {
    let element_ty = nested.block.implied_type();
    let dynamic = element_ty.has_dynamic();
    // Terraform sends block elements as objects, or unknown while a `dynamic` block's
    // `for_each` is unknown; never null.
    let element = prop_oneof![
        6 => arb_block_value(&nested.block),
        1 => Just(Value::unknown(element_ty.clone())),
    ];
    let ty = nested.implied_type();
    let known =
        match nested.nesting {
            BlockNesting::Single | BlockNesting::Group => arb_block_value(&nested.block),
            BlockNesting::List | BlockNesting::Set => {
                let is_set = nested.nesting == BlockNesting::Set;
                let max = if nested.max_items == 1 { 2 } else { 3 };
                prop::collection::vec(element, 0..max)
                    .prop_map(
                        move |elems| if dynamic { Value::tuple(elems) } else { collection(is_set, &element_ty, elems) },
                    )
                    .boxed()
            }
            BlockNesting::Map => prop::collection::btree_map(arb_key(), element, 0..3)
                .prop_map(move |entries| {
                    if dynamic { Value::object(entries) } else { Value::map(element_ty.clone(), entries).unwrap() }
                })
                .boxed(),
        };
    // Terraform never sends a null list, set, map or group block; they are generated anyway
    // to pin down what the translation makes of them (see `expected_value`).
    prop_oneof![8 => known, 1 => Just(Value::null(ty.clone())), 1 => Just(Value::unknown(ty))].boxed()
}

pub(super) fn arb_block_value(block: &Block) -> BoxedStrategy<Value> {
    let mut names = Vec::new();
    let mut values = Vec::new();
    for (name, attr) in &block.attributes {
        names.push(name.clone());
        values.push(arb_attribute_value(attr));
    }
    for (name, nested) in &block.block_types {
        names.push(name.clone());
        values.push(arb_nested_block_value(nested));
    }
    values.prop_map(move |values| Value::object(names.iter().cloned().zip(values))).boxed()
}
