//! Golden tests of the whole translation: `terraform providers schema -json` files in
//! `tests/data/` go in, the Pulumi schema, the warnings and the naming decisions the
//! runtime reuses come out. Refresh with `UPDATE_EXPECT=1 cargo test -p schema-gen --test
//! translate`.
//!
//! Still to come (needs the tool builds in progress): goldens from real providers
//! (random 3.9.0, null, local, tfcoremock, time) built by `scripts/test-tools.sh`, a
//! comparison with the Go implementation's `GetSchema` output for the same binaries, and an
//! SDK generation check with the real Pulumi CLI (`pulumi package gen-sdk`).

use expect_test::{ExpectFile, expect_file};
use schema_gen::pulumi::PackageSpec;
use schema_gen::tf::{ProviderSchema, ProvidersSchemaFile};
use schema_gen::translate::{ProviderNames, TokenFilter, TranslateConfig, Warning, translate};

/// The single provider in a schema file, with its source address.
fn load(file: &str) -> (String, ProviderSchema) {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("reading {path}: {err}"));
    let parsed: ProvidersSchemaFile = serde_json::from_str(&text).unwrap_or_else(|err| panic!("parsing {path}: {err}"));
    let mut providers = parsed.provider_schemas.into_iter();
    let (address, schema) = providers.next().expect("the file holds one provider");
    assert!(providers.next().is_none(), "{path} must hold exactly one provider");
    (address, schema)
}

struct Case {
    file: &'static str,
    package_name: &'static str,
    version: &'static str,
    parameter: &'static str,
}

fn run(case: &Case, schema: &ProviderSchema, address: &str) -> (PackageSpec, Vec<Warning>) {
    let terraform_name = address.rsplit('/').next().unwrap_or(address);
    let config = TranslateConfig {
        schema,
        package_name: case.package_name,
        package_version: case.version,
        terraform_name,
        source_address: Some(address),
        parameter_value: case.parameter.as_bytes(),
        plugin_version: "v100.0.0",
        filter: TokenFilter { include: &[], exclude: &[] },
    };
    translate(&config)
}

#[track_caller]
fn check(case: Case, schema_golden: ExpectFile, warnings_golden: ExpectFile, names_golden: ExpectFile) {
    let (address, schema) = load(case.file);
    let (spec, warnings) = run(&case, &schema, &address);
    schema_golden.assert_eq(&format!("{}\n", spec.to_json_pretty()));
    let warnings: String = warnings.iter().map(|w| format!("{w}\n")).collect();
    warnings_golden.assert_eq(&warnings);
    names_golden.assert_eq(&render_names(&schema, case.package_name));
}

/// The naming decisions as the runtime sees them: tokens, property names with the
/// MaxItems=1 flag, the ID source.
fn render_names(schema: &ProviderSchema, package_name: &str) -> String {
    let (names, _) = ProviderNames::new(schema, package_name, &TokenFilter { include: &[], exclude: &[] });
    let mut out = format!("resource prefix: {}\n", names.resource_prefix());
    for (tf_name, token) in names.resources() {
        let props = names.resource_properties(tf_name, &schema.resources[tf_name].block);
        out.push_str(&format!("resource {tf_name} -> {token} (id: {:?}, autonamed: {})\n", props.id, props.autonamed));
        for name in props.names.iter() {
            let flag = if name.max_items_one { " [max_items_one]" } else { "" };
            out.push_str(&format!("  {} -> {}{flag}\n", name.tf_name, name.pulumi_name));
        }
    }
    for (tf_name, token) in names.data_sources() {
        out.push_str(&format!("data source {tf_name} -> {token}\n"));
    }
    for (tf_name, token) in names.functions() {
        out.push_str(&format!("function {tf_name} -> {token}\n"));
    }
    out
}

#[test]
fn example_provider_exercises_every_rule() {
    check(
        Case {
            file: "example.tf.json",
            package_name: "example",
            version: "2.1.0",
            parameter: r#"{"remote":{"url":"registry.opentofu.org/acme/example","version":"2.1.0"}}"#,
        },
        expect_file!["data/example.pulumi.json"],
        expect_file!["data/example.warnings.txt"],
        expect_file!["data/example.names.txt"],
    );
}

#[test]
fn translation_is_deterministic() {
    let case = Case {
        file: "example.tf.json",
        package_name: "example",
        version: "2.1.0",
        parameter: r#"{"remote":{"url":"registry.opentofu.org/acme/example","version":"2.1.0"}}"#,
    };
    let (address, schema) = load(case.file);
    let first = run(&case, &schema, &address).0.to_json();
    // A clone rebuilds every map, so hash-order or allocation differences would show.
    let second = run(&case, &schema.clone(), &address).0.to_json();
    assert_eq!(first.as_bytes(), second.as_bytes());
    assert!(first.len() > 1000, "the example schema translates to a real document");
}

/// hashicorp/random 3.3.0, its Terraform schema reconstructed from the public golden of the
/// Go implementation (`dynamic/testdata/TestSchemaGeneration/hashicorp/random-3.3.0.golden`
/// in pulumi/pulumi-terraform-bridge): snake-cased property names, flags from
/// `requiredInputs`/`required`/`inputProperties`, `secret` as sensitive, `id` computed.
#[test]
fn random_provider_schema() {
    check(
        random_case(),
        expect_file!["data/random-3.3.0.pulumi.json"],
        expect_file!["data/random-3.3.0.warnings.txt"],
        expect_file!["data/random-3.3.0.names.txt"],
    );
}

fn random_case() -> Case {
    Case {
        file: "random-3.3.0.tf.json",
        package_name: "random",
        version: "3.3.0",
        parameter: r#"{"remote":{"url":"registry.opentofu.org/hashicorp/random","version":"3.3.0"}}"#,
    }
}

/// Tokens, property names, types, required lists, secrets, deprecations and descriptions
/// (with their per-language name spans) must equal the Go implementation's. `random-3.3.0.go-facts.txt` was extracted from the Go golden (same
/// rendering as [`facts`]); it is not refreshed by `UPDATE_EXPECT`.
#[test]
fn random_provider_matches_go_facts() {
    let case = random_case();
    let (address, schema) = load(case.file);
    let (spec, _) = run(&case, &schema, &address);
    let ours = facts(&serde_json::to_value(&spec).unwrap());
    let go = include_str!("data/random-3.3.0.go-facts.txt");
    assert_eq!(ours, go, "our schema's facts differ from the Go implementation's golden");
}

/// A line-per-fact rendering of the parts of a schema that decide the generated SDKs.
fn facts(spec: &serde_json::Value) -> String {
    fn type_of(p: &serde_json::Value) -> String {
        if let Some(reference) = p.get("$ref") {
            return reference.as_str().unwrap_or_default().to_owned();
        }
        match p["type"].as_str().unwrap_or_default() {
            "array" => format!("array<{}>", type_of(&p["items"])),
            "object" if p.get("additionalProperties").is_some() => {
                format!("map<{}>", type_of(&p["additionalProperties"]))
            }
            other => other.to_owned(),
        }
    }
    let names = |v: &serde_json::Value| -> String {
        v.as_array().map(|a| a.iter().filter_map(|s| s.as_str()).collect::<Vec<_>>().join(",")).unwrap_or_default()
    };
    let mut lines = vec![
        format!("name {} version {}", spec["name"].as_str().unwrap(), spec["version"].as_str().unwrap()),
        format!("parameter {}", spec["parameterization"]["parameter"].as_str().unwrap()),
    ];
    let empty = serde_json::Map::new();
    for (token, resource) in spec["resources"].as_object().unwrap_or(&empty) {
        lines.push(format!("resource {token}"));
        for section in ["properties", "inputProperties"] {
            for (name, p) in resource[section].as_object().unwrap_or(&empty) {
                let secret = if p["secret"] == true { " secret" } else { "" };
                let deprecated =
                    p["deprecationMessage"].as_str().map(|m| format!(" deprecated={m}")).unwrap_or_default();
                lines.push(format!("  {section} {name}: {}{secret}{deprecated}", type_of(p)));
                if let Some(description) = p["description"].as_str() {
                    lines.push(format!("    description {}", serde_json::to_string(description).unwrap()));
                }
            }
        }
        lines.push(format!("  required {}", names(&resource["required"])));
        lines.push(format!("  requiredInputs {}", names(&resource["requiredInputs"])));
        let state: Vec<&str> =
            resource["stateInputs"]["properties"].as_object().unwrap_or(&empty).keys().map(String::as_str).collect();
        lines.push(format!("  stateInputs {}", state.join(",")));
    }
    for token in spec["functions"].as_object().unwrap_or(&empty).keys() {
        lines.push(format!("function {token}"));
    }
    for token in spec.get("types").and_then(|t| t.as_object()).unwrap_or(&empty).keys() {
        lines.push(format!("type {token}"));
    }
    lines.join("\n") + "\n"
}

/// Hostile or odd schemas give warnings and a valid schema, never a panic: blocks nested
/// 200 deep, a name that is only the prefix plus `_`, a name with characters tokens cannot
/// hold.
#[test]
fn odd_schemas_give_warnings_not_panics() {
    use schema_gen::tf::{Attribute, Block, BlockNesting, NestedBlock, Schema, Type};
    let mut block =
        Block { attributes: [("leaf".to_owned(), Attribute::new(Type::String))].into(), ..Block::default() };
    for _ in 0..200 {
        let nested = NestedBlock { nesting: BlockNesting::List, block, min_items: 0, max_items: 0 };
        block = Block { block_types: [("level".to_owned(), nested)].into(), ..Block::default() };
    }
    let mut schema = ProviderSchema::default();
    schema.resources.insert("odd_deep".to_owned(), Schema { version: 0, block });
    schema.resources.insert("odd_".to_owned(), Schema::default());
    schema.resources.insert("odd_dots.and.more".to_owned(), Schema::default());
    let config = TranslateConfig {
        schema: &schema,
        package_name: "odd",
        package_version: "not-semver",
        terraform_name: "odd",
        source_address: None,
        parameter_value: br#"{"local":{"path":"./terraform-provider-odd"}}"#,
        plugin_version: "100.0.0",
        filter: TokenFilter { include: &[], exclude: &[] },
    };
    let (spec, warnings) = translate(&config);
    let warnings: String = warnings.iter().map(|w| format!("{w}\n")).collect();
    let json: serde_json::Value = serde_json::from_str(&spec.to_json()).expect("valid JSON");
    let tokens: Vec<&String> = json["resources"].as_object().unwrap().keys().collect();
    let deepest_types = json["types"].as_object().unwrap().len();
    expect_test::expect![[r#"
        odd_: nothing is left of the name after removing the prefix; using `Odd`
        odd_dots.and.more: the name holds characters a Pulumi token cannot; using `Dotsandmore`
        resource odd_deep: level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level.level: nested too deeply; typed as pulumi.json#/Any
        the package version "not-semver" is not a semantic version
    "#]]
    .assert_eq(&warnings);
    assert_eq!(tokens, ["odd:index/deep:Deep", "odd:index/dotsandmore:Dotsandmore", "odd:index/odd:Odd"]);
    assert_eq!(deepest_types, 48, "one named type per level up to the depth bound");
    assert_eq!(json["repository"], serde_json::Value::Null, "a local binary has no repository");
}

/// Backblaze/b2 0.8.9 (an SDKv2 provider: optional+computed `id`s, MaxItems=1 blocks,
/// computed lists of objects, data sources), its Terraform schema reconstructed from the
/// public golden of the Go implementation
/// (`dynamic/testdata/TestSchemaGeneration/Backblaze/b2-0.8.9.golden`).
#[test]
fn b2_provider_schema() {
    check(
        b2_case(),
        expect_file!["data/b2-0.8.9.pulumi.json"],
        expect_file!["data/b2-0.8.9.warnings.txt"],
        expect_file!["data/b2-0.8.9.names.txt"],
    );
}

fn b2_case() -> Case {
    Case {
        file: "b2-0.8.9.tf.json",
        package_name: "b2",
        version: "0.8.9",
        parameter: r#"{"remote":{"url":"registry.opentofu.org/backblaze/b2","version":"0.8.9"}}"#,
    }
}

/// The whole b2 schema must equal the Go implementation's golden as JSON values, every
/// leaf of it. See [`assert_matches_go_golden`].
#[test]
fn b2_provider_matches_go_golden() {
    assert_matches_go_golden(b2_case(), include_str!("data/b2-0.8.9.go-schema-facts.txt"));
}

/// BunnyWay/bunnynet 0.5.1 (a Plugin Framework provider: computed-only ids, nested
/// attributes that are optional and computed, provider functions are absent), reconstructed
/// like b2.
#[test]
fn bunnynet_provider_matches_go_golden() {
    let case = Case {
        file: "bunnynet-0.5.1.tf.json",
        package_name: "bunnynet",
        version: "0.5.1",
        parameter: r#"{"remote":{"url":"registry.opentofu.org/bunnyway/bunnynet","version":"0.5.1"}}"#,
    };
    assert_matches_go_golden(case, include_str!("data/bunnynet-0.5.1.go-schema-facts.txt"));
}

/// `go_facts` lists the Go golden's leaves as sorted `path = value` lines (the base
/// provider's version replaced by `<plugin>`), as written by
/// `data/reconstruct_from_golden.py`; these files are not refreshed by `UPDATE_EXPECT`.
#[track_caller]
fn assert_matches_go_golden(case: Case, go_facts: &str) {
    let (address, schema) = load(case.file);
    let (spec, _) = run(&case, &schema, &address);
    let mut json = serde_json::to_value(&spec).unwrap();
    json["parameterization"]["baseProvider"]["version"] = "<plugin>".into();
    let mut lines = Vec::new();
    leaves(&json, String::new(), &mut lines);
    lines.sort();
    let ours = lines.join("\n") + "\n";
    if ours != go_facts {
        let missing: Vec<&str> = go_facts.lines().filter(|l| !ours.lines().any(|o| o == *l)).take(20).collect();
        let extra: Vec<&str> = ours.lines().filter(|l| !go_facts.lines().any(|o| o == *l)).take(20).collect();
        panic!(
            "{} differs from the Go golden\nonly in Go:\n{}\nonly ours:\n{}",
            case.file,
            missing.join("\n"),
            extra.join("\n")
        );
    }
}

/// Every leaf of a JSON value as `path = value`, object keys with `/` written `~1`.
fn leaves(value: &serde_json::Value, path: String, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) if map.is_empty() => out.push(format!("{path} = {{}}")),
        serde_json::Value::Object(map) => {
            for (key, child) in map {
                leaves(child, format!("{path}/{}", key.replace('/', "~1")), out);
            }
        }
        serde_json::Value::Array(items) if items.is_empty() => out.push(format!("{path} = []")),
        serde_json::Value::Array(items) => {
            for (idx, child) in items.iter().enumerate() {
                leaves(child, format!("{path}/{idx}"), out);
            }
        }
        leaf => out.push(format!("{path} = {leaf}")),
    }
}
