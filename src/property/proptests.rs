//! Property test: any property value survives `Struct` encoding and decoding unchanged.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::structpb::{decode_struct, decode_value, encode_struct, encode_value};
use super::{Archive, Asset, AssetOrArchive, OutputValue, PropertyValue, ResourceId, ResourceReference, UnknownKind};

fn arb_text() -> impl Strategy<Value = String> {
    // Strings that happen to be unknown sentinels would read back as unknowns.
    ".{0,8}".prop_filter("not a sentinel", |s| UnknownKind::from_sentinel(s).is_none())
}

fn arb_asset() -> impl Strategy<Value = Asset> {
    (
        proptest::option::of(arb_text()),
        proptest::option::of(arb_text()),
        proptest::option::of(arb_text()),
        proptest::option::of(arb_text()),
    )
        .prop_map(|(hash, text, path, uri)| Asset { hash, text, path, uri })
}

fn arb_archive() -> impl Strategy<Value = Archive> {
    let leaf = (proptest::option::of(arb_text()), proptest::option::of(arb_text())).prop_map(|(hash, path)| Archive {
        hash,
        path,
        ..Default::default()
    });
    leaf.prop_recursive(2, 8, 3, |inner| {
        let member = prop_oneof![arb_asset().prop_map(AssetOrArchive::Asset), inner.prop_map(AssetOrArchive::Archive)];
        (proptest::option::of(arb_text()), prop::collection::btree_map(arb_text(), member, 0..3))
            .prop_map(|(hash, assets)| Archive { hash, assets: Some(assets), ..Default::default() })
    })
}

fn arb_property() -> impl Strategy<Value = PropertyValue> {
    let leaf = prop_oneof![
        Just(PropertyValue::Null),
        any::<bool>().prop_map(PropertyValue::Bool),
        any::<f64>().prop_filter("not NaN", |f| !f.is_nan()).prop_map(PropertyValue::Number),
        arb_text().prop_map(PropertyValue::String),
        prop::sample::select(UnknownKind::ALL.to_vec()).prop_map(PropertyValue::Unknown),
        prop::collection::vec(any::<u8>(), 0..8).prop_map(PropertyValue::Bytes),
        arb_asset().prop_map(PropertyValue::Asset),
        arb_archive().prop_map(PropertyValue::Archive),
        (
            arb_text(),
            proptest::option::of(prop_oneof![Just(ResourceId::Unknown), "[a-z0-9-]{1,8}".prop_map(ResourceId::Known),]),
            proptest::option::of(arb_text()),
            proptest::option::of(arb_text()),
            proptest::option::of(arb_text())
        )
            .prop_map(|(urn, id, name, r#type, package_version)| PropertyValue::ResourceReference(
                ResourceReference { urn, id, name, r#type, package_version }
            )),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(PropertyValue::Array),
            prop::collection::btree_map(".{0,6}", inner.clone(), 0..4).prop_map(PropertyValue::Object),
            inner.clone().prop_map(|v| PropertyValue::Secret(Box::new(v))),
            (proptest::option::of(inner), any::<bool>(), prop::collection::vec(arb_text(), 0..3)).prop_map(
                |(value, secret, dependencies)| PropertyValue::Output(OutputValue {
                    value: value.map(Box::new),
                    secret,
                    dependencies
                })
            ),
        ]
    })
}

proptest! {
    #[test]
    fn struct_round_trip_is_identity(value in arb_property()) {
        let back = decode_value(&encode_value(&value)).unwrap();
        prop_assert_eq!(back, value);
    }

    #[test]
    fn struct_maps_round_trip(props in prop::collection::btree_map(".{0,6}", arb_property(), 0..4)) {
        let props: BTreeMap<String, PropertyValue> = props;
        prop_assert_eq!(decode_struct(&encode_struct(&props)).unwrap(), props);
    }
}
