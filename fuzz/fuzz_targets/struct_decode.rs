//! Decodes arbitrary bytes as a protobuf `Struct` with prost, then as Pulumi properties. It
//! must never panic, and whatever decodes must survive encoding and decoding unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use prost::Message;
use tfbridge::property::structpb;

fuzz_target!(|data: &[u8]| {
    let Ok(message) = prost_types::Struct::decode(data) else { return };
    let Ok(props) = structpb::decode_struct(&message) else { return };
    let again = structpb::decode_struct(&structpb::encode_struct(&props)).expect("our own encoding decodes");
    // NaN is the one value that is not equal to itself; compare the encodings instead.
    assert_eq!(
        structpb::encode_struct(&again).encode_to_vec(),
        structpb::encode_struct(&props).encode_to_vec(),
        "round trip changed the properties"
    );
});
