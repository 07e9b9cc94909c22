// Shared by the cty fuzz targets: the first input byte picks the type the rest is read as.
// The types cover every kind, nesting and dynamic slots, so that each decoder path is reached.

use schema_gen::tf::Type;

const SPECS: &[&str] = &[
    r#""dynamic""#,
    r#""string""#,
    r#""number""#,
    r#""bool""#,
    r#"["list","string"]"#,
    r#"["set","number"]"#,
    r#"["map","bool"]"#,
    r#"["tuple",["string","number","dynamic"]]"#,
    r#"["list","dynamic"]"#,
    r#"["object",{"a":"string","b":["list",["object",{"x":"number","y":["map","string"]}]],"c":["set","string"],"d":"dynamic"}]"#,
    r#"["map",["list",["set","bool"]]]"#,
    r#"["object",{}]"#,
];

pub fn pick(data: &[u8]) -> Option<(Type, &[u8])> {
    let (first, rest) = data.split_first()?;
    let spec = SPECS[*first as usize % SPECS.len()];
    Some((Type::from_json_bytes(spec.as_bytes()).expect("fixed type specs are valid"), rest))
}
