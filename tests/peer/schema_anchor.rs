//! Our package schemas against the Go implementation's, live: both plugins are started and
//! driven over gRPC the way the Pulumi engine drives them (Handshake, Parameterize with the
//! local provider path, GetSchema for the package it answered), for the real random, null
//! and local providers. After normalizing only the fields listed in [`normalize`] (each
//! with the reason it legitimately differs), the two schemas must be equal, down to the
//! order of keys. The parameter value each embeds parameterizes the other implementation to
//! the same package, so SDKs generated with either work with both.
//!
//! The Go binary is built by `scripts/test-tools.sh anchor`, the providers by
//! `scripts/test-tools.sh providers`.

use crate::common;

use common::versions;
use std::path::{Path, PathBuf};

use common::Implementation;
use common::plugin::Plugin;
use serde_json::Value;
use tfbridge_proto::pulumirpc;
use tfbridge_proto::pulumirpc::parameterize_request::{Parameters, ParametersArgs, ParametersValue};

/// Handshake, Parameterize, GetSchema: the engine's sequence for `pulumi package add` (with
/// arguments) or for a program using a generated SDK (with its parameter value). Returns the
/// schema as JSON.
async fn schema_through_plugin(executable: &Path, parameters: Parameters, work_dir: &Path) -> anyhow::Result<Value> {
    // A PULUMI_HOME of its own: the provider cache of a registry provider lives there.
    // An empty Terraform CLI configuration, so that no machine-wide one applies to ours.
    let cli_config = work_dir.join("empty.tfrc");
    std::fs::write(&cli_config, "")?;
    let env = [("PULUMI_HOME", work_dir.as_os_str()), ("TF_CLI_CONFIG_FILE", cli_config.as_os_str())];
    let plugin = Plugin::start_with_env(executable, &["127.0.0.1:9"], &env);
    let mut client = plugin.client().await;
    let dir = work_dir.to_str().expect("a utf-8 directory").to_owned();
    let handshake = client
        .handshake(pulumirpc::ProviderHandshakeRequest {
            engine_address: "127.0.0.1:9".to_owned(),
            root_directory: Some(dir.clone()),
            program_directory: Some(dir),
            ..Default::default()
        })
        .await;
    // The engine carries on without a handshake when a plugin does not implement it, as the
    // Go implementation 3.136.0 does not.
    match handshake {
        Ok(_) => {}
        Err(status) if status.code() == tonic::Code::Unimplemented => {}
        Err(status) => anyhow::bail!("Handshake with {}: {status}", executable.display()),
    }
    let parameterized =
        client.parameterize(pulumirpc::ParameterizeRequest { parameters: Some(parameters) }).await?.into_inner();
    let schema = client
        .get_schema(pulumirpc::GetSchemaRequest {
            version: 0,
            subpackage_name: parameterized.name,
            subpackage_version: parameterized.version,
        })
        .await?
        .into_inner()
        .schema;
    Ok(serde_json::from_str(&schema)?)
}

/// Makes the fields that legitimately differ between the two implementations equal, in
/// place. Each rule says why the difference is intended; anything else must be identical.
fn normalize(schema: &mut Value) {
    // The base provider is the plugin that serves the package: 3.136.0 is the Go
    // implementation's release, ours has its own version. SDKs carry it only to download
    // the plugin.
    schema["parameterization"]["baseProvider"]["version"] = Value::from("<plugin version>");

    // Deprecation: the Go implementation reads only the `deprecated` flag and writes the fixed
    // text "Deprecated"; we write the provider's `deprecation_message` when it sends one, as
    // plain text (docs/schema-mapping.md §5, §7; `check_deprecation_texts` pins both). The
    // flag itself must agree.
    visit_objects(schema, &mut |object| {
        if let Some(message) = object.get_mut("deprecationMessage") {
            *message = Value::from("<deprecated>");
        }
    });

    // Descriptions the Go implementation leaves empty without --fullDocs: a resource's and a
    // data source's own description, and the descriptions of data-source arguments and
    // results (docs/schema-mapping.md §7). We fill them from the Terraform schema, so they
    // are removed on both sides here. Provider functions keep theirs: Go writes them too.
    if let Some(resources) = schema.get_mut("resources").and_then(Value::as_object_mut) {
        for resource in resources.values_mut() {
            remove_key(resource, "description");
        }
    }
    if let Some(functions) = schema.get_mut("functions").and_then(Value::as_object_mut) {
        for (token, function) in functions.iter_mut() {
            let is_data_source =
                !token.starts_with("pulumi:providers:") && function.get("multiArgumentInputs").is_none();
            if !is_data_source {
                continue;
            }
            remove_key(function, "description");
            for side in ["inputs", "outputs"] {
                if let Some(properties) = function[side].get_mut("properties").and_then(Value::as_object_mut) {
                    for property in properties.values_mut() {
                        remove_key(property, "description");
                    }
                }
            }
        }
    }
}

fn remove_key(value: &mut Value, key: &str) {
    if let Some(object) = value.as_object_mut() {
        object.shift_remove(key);
    }
}

fn visit_objects(value: &mut Value, visit: &mut dyn FnMut(&mut serde_json::Map<String, Value>)) {
    match value {
        Value::Object(object) => {
            visit(object);
            for child in object.values_mut() {
                visit_objects(child, visit);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| visit_objects(item, visit)),
        _ => {}
    }
}

/// Every JSON path where the two values differ, one line each, for a readable failure.
fn differences(go: &Value, ours: &Value, path: &str, out: &mut Vec<String>) {
    match (go, ours) {
        (Value::Object(go), Value::Object(ours)) => {
            for (key, go_value) in go {
                match ours.get(key) {
                    Some(our_value) => differences(go_value, our_value, &format!("{path}/{key}"), out),
                    None => out.push(format!("{path}/{key}: only in Go: {go_value}")),
                }
            }
            for (key, our_value) in ours {
                if !go.contains_key(key) {
                    out.push(format!("{path}/{key}: only in ours: {our_value}"));
                }
            }
        }
        (Value::Array(go_items), Value::Array(our_items)) if go_items.len() == our_items.len() => {
            for (index, (go_item, our_item)) in go_items.iter().zip(our_items).enumerate() {
                differences(go_item, our_item, &format!("{path}[{index}]"), out);
            }
        }
        _ if go != ours => out.push(format!("{path}: Go {go} ours {ours}")),
        _ => {}
    }
}

async fn compare(name: &str, version: &str) -> anyhow::Result<()> {
    let label = format!("{name} {version}");
    let numbered = compare_provider(&label, &common::real_provider(name, version)?).await?;
    assert_eq!(numbered, Vec::<String>::new(), "{label}: no two objects share a type name");
    Ok(())
}

/// Parameterizes both implementations with the local provider at `provider` and compares.
/// Returns our numbered types that Go lacks (see [`collapse_numbered_types`]).
async fn compare_provider(label: &str, provider: &Path) -> anyhow::Result<Vec<String>> {
    let args = vec![provider.to_str().expect("a utf-8 path").to_owned()];
    compare_args(label, args, &common::scratch_dir("anchor")).await
}

/// Parameterizes both implementations with `args` in `work_dir` (also their PULUMI_HOME)
/// and compares. Returns our numbered types that Go lacks.
async fn compare_args(label: &str, args: Vec<String>, work_dir: &Path) -> anyhow::Result<Vec<String>> {
    let anchor = Implementation::Go.plugin_binary()?;
    let by_args = || Parameters::Args(ParametersArgs { args: args.clone() });
    let go = schema_through_plugin(&anchor, by_args(), work_dir).await?;
    let ours = schema_through_plugin(&common::our_plugin(), by_args(), work_dir).await?;
    Ok(assert_same(label, go, ours))
}

/// Two different objects with one type name (docs/schema-mapping.md §4): Go gives every
/// user of the name the type of the last object it declared; we give that object the name and
/// number the others (`…2`). Folding each of our numbered types that Go lacks back onto its
/// unnumbered name (removing it, pointing its `$ref`s at the name) must give Go's schema
/// exactly: that is where Go is right, and it shows that our unnumbered type is the one
/// Go's describes. Returns the folded tokens, sorted.
fn collapse_numbered_types(go: &Value, ours: &mut Value) -> Vec<String> {
    let go_types = go["types"].as_object().cloned().unwrap_or_default();
    let Some(our_types) = ours["types"].as_object() else { return Vec::new() };
    let mut folds = std::collections::BTreeMap::new();
    for token in our_types.keys().filter(|token| !go_types.contains_key(*token)) {
        let Some((module, name)) = token.rsplit_once(':') else { continue };
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let Some(module) = module.strip_suffix(name) else { continue };
        let base_token = format!("{module}{base}:{base}");
        if base.len() < name.len() && go_types.contains_key(&base_token) && our_types.contains_key(&base_token) {
            folds.insert(token.clone(), base_token);
        }
    }
    if let Some(types) = ours["types"].as_object_mut() {
        types.retain(|token, _| !folds.contains_key(token));
    }
    visit_objects(ours, &mut |object| {
        if let Some(Value::String(reference)) = object.get_mut("$ref")
            && let Some(base) = reference.strip_prefix("#/types/").and_then(|token| folds.get(token))
        {
            *reference = format!("#/types/{base}");
        }
    });
    folds.into_keys().collect()
}

/// Our additions the Go implementation lacks (docs/schema-mapping.md §9 and §11): ephemeral
/// resources as functions `<pkg>:index/open<Name>:open<Name>`, whose results are all secret,
/// and actions as functions `<pkg>:index/invoke<Name>:invoke<Name>`. Removes
/// them (and the object types only they use) from ours, after checking that each has that
/// shape, so that the rest must equal Go's exactly.
fn without_ephemeral_functions(go: &Value, ours: &mut Value) {
    let go_functions = go["functions"].as_object().cloned().unwrap_or_default();
    let Some(functions) = ours.get_mut("functions").and_then(Value::as_object_mut) else { return };
    let added: Vec<String> = functions.keys().filter(|token| !go_functions.contains_key(*token)).cloned().collect();
    for token in &added {
        let member = token.rsplit(':').next().unwrap_or_default();
        assert!(
            (member.starts_with("open") || member.starts_with("invoke"))
                && token.ends_with(&format!("index/{member}:{member}")),
            "our schema has a function the Go implementation lacks that is neither an ephemeral resource nor an action: {token}"
        );
        let spec = functions.shift_remove(token).unwrap_or_default();
        for (name, property) in spec["outputs"]["properties"].as_object().cloned().unwrap_or_default() {
            assert_eq!(property["secret"], Value::Bool(true), "{token}: result {name} is not secret");
        }
    }
    let go_types = go["types"].as_object().cloned().unwrap_or_default();
    if let Some(types) = ours.get_mut("types").and_then(Value::as_object_mut) {
        types.retain(|token, _| go_types.contains_key(token));
    }
}

/// Fails with every difference unless the two schemas are equal after
/// [`collapse_numbered_types`] and [`normalize`]; returns the folded types.
fn assert_same(label: &str, mut go: Value, mut ours: Value) -> Vec<String> {
    // Guard against comparing two empty answers.
    let members =
        ours["resources"].as_object().map_or(0, |r| r.len()) + ours["functions"].as_object().map_or(0, |f| f.len());
    assert!(members > 1, "{label}: our schema has no resources or functions: {ours:#}");
    let numbered = collapse_numbered_types(&go, &mut ours);
    without_ephemeral_functions(&go, &mut ours);
    check_deprecation_texts(label, &mut go, &mut ours);
    normalize(&mut go);
    normalize(&mut ours);
    let mut found = Vec::new();
    differences(&go, &ours, "", &mut found);
    assert!(found.is_empty(), "{label}: {} differences from the Go implementation:\n{}", found.len(), found.join("\n"));
    // Equal values with keys in the same order: re-serialized (which also undoes Go's
    // `\u003c`-style escapes), the texts are identical.
    assert_eq!(go.to_string(), ours.to_string(), "{label}: the same keys in a different order");
    numbered
}

/// The one difference `normalize` allows in deprecation messages, and no other: Go's are all
/// its fixed `Deprecated`, and ours are plain text, never the `<span pulumi-lang-…>` markup of
/// doc comments (SDKs print the message at run time).
fn check_deprecation_texts(label: &str, go: &mut Value, ours: &mut Value) {
    fn texts(schema: &mut Value) -> Vec<String> {
        let mut found = Vec::new();
        visit_objects(schema, &mut |object| {
            if let Some(Value::String(message)) = object.get("deprecationMessage") {
                found.push(message.clone());
            }
        });
        found
    }
    let go_texts = texts(go);
    assert!(go_texts.iter().all(|text| text == "Deprecated"), "{label}: Go's deprecation messages: {go_texts:?}");
    let marked: Vec<String> = texts(ours).into_iter().filter(|text| text.contains("pulumi-lang-")).collect();
    assert!(marked.is_empty(), "{label}: our deprecation messages hold doc markup: {marked:?}");
}

/// The Parameterize request a generated SDK sends: its package name and version and the
/// decoded `parameterization.parameter` of the schema it was generated from.
fn by_value(schema: &Value) -> Parameters {
    use base64::Engine as _;
    let parameter = schema["parameterization"]["parameter"].as_str().expect("a parameter");
    let value = base64::engine::general_purpose::STANDARD.decode(parameter).expect("standard base64");
    Parameters::Value(ParametersValue {
        name: schema["name"].as_str().expect("a name").to_owned(),
        version: schema["version"].as_str().expect("a version").to_owned(),
        value,
    })
}

/// An SDK generated with either implementation works with both: the parameter value in one's
/// schema parameterizes the other to the same package. Checked both ways, for a local binary
/// and a registry address.
#[tokio::test]
async fn parameter_values_work_across_implementations() -> anyhow::Result<()> {
    let anchor = Implementation::Go.plugin_binary()?;
    let ours = &common::our_plugin();
    let random = common::real_provider("random", versions::RANDOM)?;
    let cases = [
        (
            &format!("random {} as a local binary", versions::RANDOM),
            vec![random.to_str().expect("a utf-8 path").to_owned()],
            common::scratch_dir("anchor-value"),
        ),
        (
            &format!("random {} by registry address", versions::RANDOM),
            vec!["hashicorp/random".to_owned(), versions::RANDOM.to_owned()],
            registry_work_dir(&random)?,
        ),
    ];
    for (label, args, work_dir) in cases {
        let go_by_args =
            schema_through_plugin(&anchor, Parameters::Args(ParametersArgs { args: args.clone() }), &work_dir).await?;
        let ours_by_go_value = schema_through_plugin(ours, by_value(&go_by_args), &work_dir).await?;
        let numbered = assert_same(&format!("{label}, ours with Go's parameter value"), go_by_args, ours_by_go_value);
        assert_eq!(numbered, Vec::<String>::new());

        let ours_by_args = schema_through_plugin(ours, Parameters::Args(ParametersArgs { args }), &work_dir).await?;
        let go_by_our_value = schema_through_plugin(&anchor, by_value(&ours_by_args), &work_dir).await?;
        let numbered = assert_same(&format!("{label}, Go with our parameter value"), go_by_our_value, ours_by_args);
        assert_eq!(numbered, Vec::<String>::new());
    }
    Ok(())
}

/// A work directory (also PULUMI_HOME) whose provider cache holds random 3.9.0 (OpenTofu's
/// `dynamic_tf_plugins` layout, which both implementations use), so that the registry
/// address `hashicorp/random 3.9.0` needs no network.
fn registry_work_dir(random: &Path) -> anyhow::Result<PathBuf> {
    let work_dir = common::scratch_dir("anchor-registry");
    let cached = work_dir
        .join(format!("dynamic_tf_plugins/registry.opentofu.org/hashicorp/random/{}/linux_amd64", versions::RANDOM));
    std::fs::create_dir_all(&cached)?;
    std::os::unix::fs::symlink(random, cached.join(format!("terraform-provider-random_v{}", versions::RANDOM)))?;
    Ok(work_dir)
}

// The three providers the issue names.

#[tokio::test]
async fn random_matches_the_go_implementation() -> anyhow::Result<()> {
    compare("random", versions::RANDOM).await
}

#[tokio::test]
async fn null_matches_the_go_implementation() -> anyhow::Result<()> {
    compare("null", versions::NULL).await
}

#[tokio::test]
async fn local_matches_the_go_implementation() -> anyhow::Result<()> {
    compare("local", versions::LOCAL).await
}

/// A registry address: the package fields then come from the address (version, repository,
/// publisher, Go import path, the `remote` parameter). Both implementations find random 3.9.0
/// in the provider cache under PULUMI_HOME, so nothing is downloaded.
#[tokio::test]
async fn random_by_registry_address_matches_the_go_implementation() -> anyhow::Result<()> {
    let work_dir = registry_work_dir(&common::real_provider("random", versions::RANDOM)?)?;
    let args = vec!["hashicorp/random".to_owned(), versions::RANDOM.to_owned()];
    let numbered = compare_args(&format!("random {} by registry address", versions::RANDOM), args, &work_dir).await?;
    assert_eq!(numbered, Vec::<String>::new());
    Ok(())
}

// The fixture provider: every Terraform type, nesting mode and flag, over both protocols.

/// The fixture's schema as `schema-gen --terraform-schema` prints it, without the
/// attributes the Go implementation cannot translate: it panics on `tuple` types (ptp#7;
/// we type them `pulumi.json#/Any`, docs/schema-mapping.md §7). Returns the file to serve.
fn fixture_schema_without_tuples(protocol: u8) -> anyhow::Result<PathBuf> {
    let dir = common::fixture_provider_dir(protocol, None)?;
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_schema-gen"))
        .arg("--terraform-schema")
        .arg(dir.join("terraform-provider-fixture"))
        .output()?;
    anyhow::ensure!(output.status.success(), "schema-gen failed: {}", String::from_utf8_lossy(&output.stderr));
    let mut file: Value = serde_json::from_slice(&output.stdout)?;
    let mut removed = 0;
    visit_objects(&mut file, &mut |object| {
        if let Some(Value::Object(attributes)) = object.get_mut("attributes") {
            let before = attributes.len();
            attributes.retain(|_, attribute| !attribute["type"].to_string().contains("\"tuple\""));
            removed += before - attributes.len();
        }
    });
    // The fixture has one tuple attribute; if that changes, this workaround needs a look.
    assert_eq!(removed, 1, "tuple attributes removed from the fixture schema");
    let path = dir.join("schema-without-tuples.json");
    std::fs::write(&path, serde_json::to_vec(&file)?)?;
    Ok(path)
}

/// Our numbered types for the fixture's two objects-one-name cases (issue 12 item 6): inside
/// `fixture_artifacts`, the single `artifact_store` (and its `encryption_key`) beside the list
/// `artifact_stores`; across `fixture_bridge` and `fixture_bridge_output`, `bridge`'s
/// `outputs[].network_output`. Go's types describe the others, which keep the names.
const FIXTURE_NUMBERED_TYPES: [&str; 3] = [
    "fixture:index/ArtifactsArtifactStore2:ArtifactsArtifactStore2",
    "fixture:index/ArtifactsArtifactStoreEncryptionKey2:ArtifactsArtifactStoreEncryptionKey2",
    "fixture:index/BridgeOutputNetworkOutput2:BridgeOutputNetworkOutput2",
];

#[tokio::test]
async fn fixture_over_protocol_5_matches_the_go_implementation() -> anyhow::Result<()> {
    let dir = common::fixture_provider_dir(5, Some(&fixture_schema_without_tuples(5)?))?;
    let numbered = compare_provider("fixture over protocol 5", &dir.join("terraform-provider-fixture")).await?;
    assert_eq!(numbered, FIXTURE_NUMBERED_TYPES);
    Ok(())
}

#[tokio::test]
async fn fixture_over_protocol_6_matches_the_go_implementation() -> anyhow::Result<()> {
    let dir = common::fixture_provider_dir(6, Some(&fixture_schema_without_tuples(6)?))?;
    let numbered = compare_provider("fixture over protocol 6", &dir.join("terraform-provider-fixture")).await?;
    assert_eq!(numbered, FIXTURE_NUMBERED_TYPES);
    Ok(())
}

// The other providers scripts/test-tools.sh builds: these have nested blocks, nested
// attributes, MaxItems=1 flattening (SDKv2) and protocol 6 (framework6test), which the three
// above lack.

#[tokio::test]
async fn tls_matches_the_go_implementation() -> anyhow::Result<()> {
    compare("tls", versions::TLS).await
}

#[tokio::test]
async fn http_matches_the_go_implementation() -> anyhow::Result<()> {
    compare("http", versions::HTTP).await
}

#[tokio::test]
async fn time_matches_the_go_implementation() -> anyhow::Result<()> {
    compare("time", versions::TIME).await
}

#[tokio::test]
async fn sdkv2test_matches_the_go_implementation() -> anyhow::Result<()> {
    compare("sdkv2test", "current").await
}

#[tokio::test]
async fn framework6test_matches_the_go_implementation() -> anyhow::Result<()> {
    compare("framework6test", "current").await
}

/// tfcoremock (protocol 6.10) has a list resource for every resource type, which the Go
/// implementation does not read: our schema adds `listInputs` to those resources, and
/// nothing else differs.
#[tokio::test]
async fn tfcoremock_matches_the_go_implementation_plus_list_inputs() -> anyhow::Result<()> {
    let provider = common::real_provider("tfcoremock", versions::TFCOREMOCK)?;
    let args = vec![provider.to_str().expect("a utf-8 path").to_owned()];
    let work_dir = common::scratch_dir("anchor");
    let go = schema_through_plugin(
        &Implementation::Go.plugin_binary()?,
        Parameters::Args(ParametersArgs { args: args.clone() }),
        &work_dir,
    )
    .await?;
    let mut ours =
        schema_through_plugin(&common::our_plugin(), Parameters::Args(ParametersArgs { args }), &work_dir).await?;
    let mut listed = Vec::new();
    for (token, resource) in ours["resources"].as_object_mut().expect("resources").iter_mut() {
        let inputs = resource.as_object_mut().and_then(|r| r.shift_remove("listInputs"));
        if let Some(inputs) = inputs {
            // tfcoremock's list configuration is `{id: optional string}`, and `id` is kept.
            assert_eq!(
                inputs,
                serde_json::json!({"properties": {"id": {"type": "string"}}, "type": "object"}),
                "{token}"
            );
            listed.push(token.clone());
        }
    }
    assert!(listed.contains(&"tfcoremock:index/simpleResource:SimpleResource".to_owned()), "{listed:?}");
    assert!(listed.contains(&"tfcoremock:index/complexResource:ComplexResource".to_owned()), "{listed:?}");
    assert!(go["resources"].as_object().expect("resources").values().all(|r| r.get("listInputs").is_none()));
    let numbered = assert_same("tfcoremock", go, ours);
    assert_eq!(numbered, Vec::<String>::new());
    Ok(())
}

/// Parameterize's flags: the filtered token sets, the renamed package and the parameter
/// value that records them (its JSON bytes included) must match too.
#[tokio::test]
async fn flags_match_the_go_implementation() -> anyhow::Result<()> {
    let random = common::real_provider("random", versions::RANDOM)?;
    let path = random.to_str().expect("a utf-8 path");
    let cases: [&[&str]; 4] = [
        &[path, "--include", "random_pet,random_id", "--provider-name", "dice"],
        &[path, "--exclude=random_password", "--exclude", "random_string"],
        &["--provider-name", "dice", "--", path],
        &[path, "--include", "random_pet", "--include", "random_uuid"],
    ];
    for args in cases {
        let args: Vec<String> = args.iter().map(|arg| arg.to_string()).collect();
        let label = format!("random {} with {:?}", versions::RANDOM, &args[1..]);
        let numbered = compare_args(&label, args, &common::scratch_dir("anchor-flags")).await?;
        assert_eq!(numbered, Vec::<String>::new());
    }
    Ok(())
}
