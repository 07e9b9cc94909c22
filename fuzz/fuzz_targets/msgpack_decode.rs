//! Decodes arbitrary bytes as msgpack of a chosen type. It must never panic, and whatever
//! decodes and re-encodes must decode to the same value again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfbridge::cty::msgpack;

mod types;

fuzz_target!(|data: &[u8]| {
    let Some((ty, bytes)) = types::pick(data) else { return };
    let Ok(value) = msgpack::decode(bytes, &ty) else { return };
    // Re-encoding can fail where go-cty's decoder itself yields a value of another type (an
    // empty map read as an object type gives the empty object).
    let Ok(encoded) = msgpack::encode(&value, &ty) else { return };
    let again = msgpack::decode(&encoded, &ty).expect("our own encoding decodes");
    assert!(again.raw_equals(&value), "round trip changed {value} into {again}");
    assert_eq!(msgpack::encode(&again, &ty).unwrap(), encoded, "encoding is deterministic");
});
