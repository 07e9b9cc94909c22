//! Actions are additions only: a provider whose every resource is also an action (as in
//! tfcoremock) translates to the same package as without actions, plus one function per
//! action and its nested types. Everything the Go implementation emits (it has no actions)
//! therefore stays byte-identical.

use schema_gen::pulumi::PackageSpec;
use schema_gen::tf::{ProviderSchema, ProvidersSchemaFile};
use schema_gen::translate::{TokenFilter, TranslateConfig, translate};

fn load(file: &str) -> ProviderSchema {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("reading {path}: {err}"));
    let parsed: ProvidersSchemaFile = serde_json::from_str(&text).unwrap_or_else(|err| panic!("parsing {path}: {err}"));
    parsed.provider_schemas.into_values().next().expect("one provider")
}

fn package(schema: &ProviderSchema) -> serde_json::Value {
    let spec: PackageSpec = translate(&TranslateConfig {
        schema,
        package_name: "pkg",
        package_version: "1.0.0",
        terraform_name: "pkg",
        source_address: None,
        parameter_value: b"{}",
        plugin_version: "100.0.0",
        filter: TokenFilter { include: &[], exclude: &[] },
    })
    .0;
    serde_json::from_str(&spec.to_json()).expect("JSON")
}

/// tfcoremock's rule: an action per resource, its schema without `id`, computed made optional.
fn with_actions(mut schema: ProviderSchema) -> ProviderSchema {
    for (name, resource) in &schema.resources {
        let mut action = resource.clone();
        action.block.attributes.remove("id");
        for attribute in action.block.attributes.values_mut() {
            if attribute.computed {
                attribute.computed = false;
                attribute.optional = true;
            }
        }
        schema.actions.insert(name.clone(), action);
    }
    schema
}

#[test]
fn actions_only_add_functions_and_their_types() {
    for file in ["b2-0.8.9.tf.json", "random-3.3.0.tf.json", "example.tf.json"] {
        let plain = load(file);
        let without = package(&plain);
        let mut with = package(&with_actions(plain.clone()));
        let added: Vec<String> = with["functions"]
            .as_object()
            .expect("functions")
            .keys()
            .filter(|token| token.contains(":index/invoke"))
            .cloned()
            .collect();
        // One function per action, but for an action with its own `urn` (skipped, with a warning).
        assert!(!added.is_empty() && added.len() <= plain.resources.len(), "{file}: {added:?}");
        for token in &added {
            let function = &with["functions"][token];
            // An empty result object, not none: Pulumi's Go code generator cannot compile a
            // function without one.
            assert_eq!(function["outputs"], serde_json::json!({"type": "object"}), "{file} {token}: an empty result");
            let required = function["inputs"]["required"].as_array().expect("required");
            assert!(required.contains(&serde_json::json!("urn")), "{file} {token}: urn is required");
            assert_eq!(function["inputs"]["properties"]["urn"]["type"], "string");
        }
        for token in &added {
            with["functions"].as_object_mut().expect("functions").remove(token);
        }
        // The actions' own nested types are named after their functions (`Invoke...`).
        if let Some(types) = with.get_mut("types").and_then(serde_json::Value::as_object_mut) {
            types.retain(|token, _| !token.contains("/invoke") && !token.contains("/Invoke"));
        }
        let mut differences = Vec::new();
        for section in ["types", "functions", "resources", "provider", "config"] {
            let (a, b) = (&with[section], &without[section]);
            match (a.as_object(), b.as_object()) {
                (Some(a), Some(b)) if section != "provider" && section != "config" => {
                    for key in a.keys().chain(b.keys()) {
                        if a.get(key) != b.get(key) {
                            differences.push(format!("{section} {key}"));
                        }
                    }
                }
                _ if a != b => differences.push(section.to_owned()),
                _ => {}
            }
        }
        differences.dedup();
        assert!(
            differences.is_empty(),
            "{file}: actions changed more than their own functions and types: {differences:?}"
        );
        assert_eq!(with, without);
    }
}
