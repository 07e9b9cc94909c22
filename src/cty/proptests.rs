//! Property tests: random types, random values conforming to them, and the codecs' round
//! trips. msgpack must carry every value (nulls, unknowns, refinements, dynamic slots); JSON
//! must carry every wholly-known value without infinities.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::{Number, NumberBound, Refinements, Type, Value, json, msgpack};

fn arb_type() -> impl Strategy<Value = Type> {
    let leaf = prop_oneof![
        3 => Just(Type::Bool),
        3 => Just(Type::Number),
        3 => Just(Type::String),
        1 => Just(Type::Dynamic),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(Type::list),
            inner.clone().prop_map(Type::set),
            inner.clone().prop_map(Type::map),
            prop::collection::btree_map("[a-z_]{1,6}", inner.clone(), 0..4).prop_map(Type::object),
            prop::collection::vec(inner, 0..3).prop_map(Type::Tuple),
        ]
    })
}

fn arb_number(allow_infinity: bool) -> impl Strategy<Value = Number> {
    let infinities = if allow_infinity { 1 } else { 0 };
    prop_oneof![
        4 => any::<i64>().prop_map(Number::from_i64),
        2 => any::<u64>().prop_map(Number::from_u64),
        3 => any::<f64>().prop_filter_map("finite", |f| f.is_finite().then(|| Number::from_f64(f)).flatten()),
        3 => (any::<i128>(), -60i32..60).prop_map(|(digits, exp)| Number::parse(&format!("{digits}e{exp}")).unwrap()),
        infinities => prop_oneof![Just(Number::positive_infinity()), Just(Number::negative_infinity())],
    ]
}

fn arb_refinements(ty: &Type) -> BoxedStrategy<Refinements> {
    let bound = || {
        proptest::option::of(
            (arb_number(true), any::<bool>()).prop_map(|(value, inclusive)| NumberBound { value, inclusive }),
        )
    };
    // What each type can be refined by; any of them may also be refined as not null, but an
    // unknown of unknown type cannot be refined at all.
    let by_type = match ty {
        Type::String => proptest::option::of(".{0,300}")
            .prop_map(|string_prefix| Refinements { string_prefix, ..Default::default() })
            .boxed(),
        Type::Number => (bound(), bound())
            .prop_map(|(number_lower, number_upper)| Refinements { number_lower, number_upper, ..Default::default() })
            .boxed(),
        Type::List(_) | Type::Set(_) | Type::Map(_) => (0u64..5, proptest::option::of(0u64..u64::MAX))
            .prop_map(|(length_lower, length_upper)| Refinements { length_lower, length_upper, ..Default::default() })
            .boxed(),
        Type::Dynamic => return Just(Refinements::default()).boxed(),
        _ => Just(Refinements::default()).boxed(),
    };
    (any::<bool>(), by_type).prop_map(|(not_null, refinements)| Refinements { not_null, ..refinements }).boxed()
}

#[derive(Clone, Copy)]
struct Allow {
    unknowns: bool,
    infinity: bool,
}

fn arb_value(ty: &Type, allow: Allow) -> BoxedStrategy<Value> {
    let known = arb_known(ty, allow);
    let null = Just(Value::null(ty.clone()));
    if allow.unknowns {
        let unknown_ty = ty.clone();
        let unknown = arb_refinements(ty).prop_map(move |r| Value::unknown_refined(unknown_ty.clone(), r).unwrap());
        prop_oneof![6 => known, 1 => null, 1 => unknown].boxed()
    } else {
        prop_oneof![6 => known, 1 => null].boxed()
    }
}

fn arb_known(ty: &Type, allow: Allow) -> BoxedStrategy<Value> {
    match ty {
        Type::Bool => any::<bool>().prop_map(Value::bool).boxed(),
        Type::Number => arb_number(allow.infinity).prop_map(Value::number).boxed(),
        Type::String => ".{0,12}".prop_map(Value::string).boxed(),
        Type::Dynamic => {
            // A value of some concrete type, which travels with its type.
            arb_type()
                .prop_filter("concrete", |ty| *ty != Type::Dynamic)
                .prop_flat_map(move |ty| arb_value(&ty, allow))
                .boxed()
        }
        Type::List(elem_ty) | Type::Set(elem_ty) => {
            let is_list = matches!(ty, Type::List(_));
            let elem_ty = (**elem_ty).clone();
            prop::collection::vec(arb_value(&elem_ty, allow), 0..4)
                .prop_map(move |elems| {
                    if is_list { Value::list(elem_ty.clone(), elems) } else { Value::set(elem_ty.clone(), elems) }
                        .unwrap()
                })
                .boxed()
        }
        Type::Map(elem_ty) => {
            let elem_ty = (**elem_ty).clone();
            prop::collection::btree_map(".{0,5}", arb_value(&elem_ty, allow), 0..4)
                .prop_map(move |elems| Value::map(elem_ty.clone(), elems).unwrap())
                .boxed()
        }
        Type::Object(object_ty) => {
            let names: Vec<String> = object_ty.attrs.keys().cloned().collect();
            let attrs: Vec<BoxedStrategy<Value>> = object_ty.attrs.values().map(|t| arb_value(t, allow)).collect();
            attrs
                .prop_map(move |values| Value::object(names.iter().cloned().zip(values).collect::<BTreeMap<_, _>>()))
                .boxed()
        }
        Type::Tuple(elem_tys) => {
            let elems: Vec<BoxedStrategy<Value>> = elem_tys.iter().map(|t| arb_value(t, allow)).collect();
            elems.prop_map(Value::tuple).boxed()
        }
    }
}

fn typed_values(allow: Allow) -> impl Strategy<Value = (Type, Value)> {
    arb_type().prop_flat_map(move |ty| (Just(ty.clone()), arb_value(&ty, allow)))
}

proptest! {
    #[test]
    fn msgpack_round_trip_is_identity((ty, value) in typed_values(Allow { unknowns: true, infinity: true })) {
        prop_assert!(value.conforms_to(&ty).is_ok());
        let bytes = msgpack::encode(&value, &ty).unwrap();
        let back = msgpack::decode(&bytes, &ty).unwrap();
        prop_assert!(back.raw_equals(&value), "{} came back as {}", value, back);
        prop_assert_eq!(msgpack::encode(&back, &ty).unwrap(), bytes);
    }

    #[test]
    fn json_round_trip_is_identity((ty, value) in typed_values(Allow { unknowns: false, infinity: false })) {
        let text = json::encode(&value, &ty).unwrap();
        let back = json::decode(text.as_bytes(), &ty).unwrap();
        prop_assert!(back.raw_equals(&value), "{} came back from {} as {}", value, text, back);
    }
}
