//! Decodes arbitrary bytes as a protobuf `Struct`, then translates its properties to cty
//! against a fixed schema that has every kind of attribute and nested block. It must never
//! panic; what it accepts must conform to the schema and come back through `from_cty`, and
//! what it refuses must name the property.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use prost::Message;
use schema_gen::tf::Block;
use schema_gen::translate::PropertyNames;
use tfbridge::convert::values::{UnknownKeys, from_cty, to_cty};
use tfbridge::property::structpb;

const SCHEMA: &str = r#"{
  "attributes": {
    "id": {"type": "string", "computed": true},
    "name": {"type": "string", "required": true},
    "port_count": {"type": "number", "optional": true},
    "enabled": {"type": "bool", "optional": true},
    "tags": {"type": ["map", "string"], "optional": true},
    "cidr_blocks": {"type": ["list", "string"], "optional": true},
    "labels": {"type": ["set", "string"], "optional": true},
    "pair": {"type": ["tuple", ["string", "number"]], "optional": true},
    "password": {"type": "string", "optional": true, "sensitive": true},
    "settings": {"type": ["object", {"max_size": "number", "enabled": "bool", "names": ["list", "string"]}], "optional": true},
    "extra": {"type": "dynamic", "optional": true},
    "endpoints": {"nested_type": {"nesting_mode": "list", "attributes": {"url_path": {"type": "string", "optional": true}}}, "optional": true},
    "by_zone": {"nested_type": {"nesting_mode": "map", "attributes": {"weight": {"type": "number", "optional": true}}}, "optional": true},
    "origin": {"nested_type": {"nesting_mode": "single", "attributes": {"host": {"type": "string", "optional": true}}}, "optional": true}
  },
  "block_types": {
    "encryption": {"nesting_mode": "list", "max_items": 1, "block": {"attributes": {"key_arn": {"type": "string", "optional": true}}}},
    "rule": {"nesting_mode": "list", "block": {
      "attributes": {"from_port": {"type": "number", "required": true}, "protocols": {"type": ["set", "string"], "optional": true}},
      "block_types": {"target": {"nesting_mode": "set", "block": {"attributes": {"arn": {"type": "string", "optional": true}}}}}
    }},
    "grp": {"nesting_mode": "group", "block": {"attributes": {"x": {"type": "string", "optional": true}}}},
    "one": {"nesting_mode": "single", "block": {"attributes": {"y": {"type": "number", "optional": true}}}},
    "by_name": {"nesting_mode": "map", "block": {"attributes": {"z": {"type": "bool", "optional": true}}}},
    "dyn": {"nesting_mode": "list", "block": {"attributes": {"v": {"type": "dynamic", "optional": true}}}}
  }
}"#;

static SCHEMA_BLOCK: LazyLock<(Block, PropertyNames)> = LazyLock::new(|| {
    let block: Block = serde_json::from_str(SCHEMA).expect("the fixed schema is valid");
    let names = PropertyNames::of_block(&block);
    (block, names)
});

fuzz_target!(|data: &[u8]| {
    let Ok(message) = prost_types::Struct::decode(data) else { return };
    let Ok(props) = structpb::decode_struct(&message) else { return };
    let (block, names) = &*SCHEMA_BLOCK;
    for unknown_keys in [UnknownKeys::Reject, UnknownKeys::Ignore] {
        match to_cty(block, names, &props, unknown_keys) {
            Ok((value, secrets)) => {
                if let Err(err) = value.conforms_to(&block.implied_type()) {
                    panic!("{value} does not conform: {err}");
                }
                if let Err(err) = from_cty(block, names, &value, &secrets) {
                    panic!("from_cty refused what to_cty made of {props:?}: {err}");
                }
            }
            Err(err) => assert!(!err.path.steps.is_empty(), "error without a path: {err}"),
        }
    }
});
