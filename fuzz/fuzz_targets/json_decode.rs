//! Decodes arbitrary bytes as cty JSON of a chosen type. It must never panic, and whatever
//! decodes and re-encodes must decode to the same value again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfbridge::cty::json;

mod types;

fuzz_target!(|data: &[u8]| {
    let Some((ty, bytes)) = types::pick(data) else { return };
    let Ok(value) = json::decode(bytes, &ty) else { return };
    let Ok(encoded) = json::encode(&value, &ty) else { return };
    let again = json::decode(encoded.as_bytes(), &ty).expect("our own encoding decodes");
    assert!(again.raw_equals(&value), "round trip changed {value} into {again}");
});
