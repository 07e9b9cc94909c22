//! Every RPC of the protocol-neutral client against real providers: a random_pet's whole
//! life (validate, configure, plan, apply, read, upgrade, plan destroy, apply destroy), an
//! import, and provider functions over protocol 5 (local) and 6 (framework6test). Values
//! are built and rendered with the tests' own small msgpack helper.

use crate::common;

use common::msgpack::{Msg, encode, render};
use common::real_provider;
use common::versions;
use expect_test::expect;
use tfbridge::tfplugin::core_rpcs::{
    ApplyResourceChangeRequest, DynamicValue, PlanResourceChangeRequest, RawState, ReadResourceRequest,
    UpgradeResourceStateRequest,
};
use tfbridge::tfplugin::{LaunchConfig, ProviderClient, Support, launch};

async fn launch_real(name: &str, version: &str) -> anyhow::Result<ProviderClient> {
    let mut config = LaunchConfig::terraform_defaults(real_provider(name, version)?);
    config.auto_mtls = true;
    Ok(launch(&config).await?)
}

fn show(value: &DynamicValue) -> String {
    match value {
        DynamicValue::Msgpack(bytes) => render(bytes),
        DynamicValue::Json(bytes) => format!("json {}", String::from_utf8_lossy(bytes)),
    }
}

/// Replaces the random pet name so snapshots are stable, after checking its shape.
fn stable(text: &str, pet_name: &str) -> String {
    text.replace(pet_name, "<pet>")
}

#[tokio::test]
async fn random_pet_lifecycle_over_protocol_5() -> anyhow::Result<()> {
    let client = launch_real("random", versions::RANDOM).await?;
    assert!(
        client
            .validate_provider_config(&DynamicValue::Msgpack(encode(&Msg::Object(vec![]))))
            .await?
            .diagnostics
            .is_empty()
    );
    assert!(client.configure_provider("1.9.0", &DynamicValue::Msgpack(encode(&Msg::Object(vec![])))).await?.is_empty());

    let config = DynamicValue::Msgpack(encode(&Msg::Object(vec![
        ("id", Msg::Nil),
        ("keepers", Msg::Nil),
        ("length", Msg::Int(3)),
        ("prefix", Msg::Nil),
        ("separator", Msg::Nil),
    ])));
    assert!(client.validate_resource_config("random_pet", &config).await?.is_empty());

    let plan = client
        .plan_resource_change(&PlanResourceChangeRequest {
            type_name: "random_pet".to_owned(),
            prior_state: DynamicValue::null(),
            proposed_new_state: config.clone(),
            config: config.clone(),
            prior_private: Vec::new(),
            provider_meta: None,
            planned_private: Vec::new(),
            prior_identity: None,
        })
        .await?;
    assert!(plan.diagnostics.is_empty(), "{:?}", plan.diagnostics);
    assert!(!plan.legacy_type_system);
    assert_eq!(plan.deferred, None);
    expect![[r#"{id: (unknown), keepers: null, length: 3, prefix: null, separator: "-"}"#]]
        .assert_eq(&show(&plan.planned_state));

    let applied = client
        .apply_resource_change(&ApplyResourceChangeRequest {
            type_name: "random_pet".to_owned(),
            prior_state: DynamicValue::null(),
            planned_state: plan.planned_state.clone(),
            config: config.clone(),
            planned_private: plan.planned_private.clone(),
            provider_meta: None,
            planned_identity: None,
        })
        .await?;
    assert!(applied.diagnostics.is_empty(), "{:?}", applied.diagnostics);
    let new_state = show(&applied.new_state);
    let pet_name = new_state.split('"').nth(1).unwrap_or_default().to_owned();
    assert_eq!(pet_name.split('-').count(), 3, "a three-word pet name: {new_state}");
    expect![[r#"{id: "<pet>", keepers: null, length: 3, prefix: null, separator: "-"}"#]]
        .assert_eq(&stable(&new_state, &pet_name));

    let read = client
        .read_resource(&ReadResourceRequest {
            type_name: "random_pet".to_owned(),
            current_state: applied.new_state.clone(),
            private: applied.private.clone(),
            provider_meta: None,
            current_identity: None,
        })
        .await?;
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
    assert_eq!(show(&read.new_state), new_state);

    // Terraform upgrades every stored state, even at the current version.
    let raw_state = format!(r#"{{"id":"{pet_name}","keepers":null,"length":3,"prefix":null,"separator":"-"}}"#);
    let upgraded = client
        .upgrade_resource_state(&UpgradeResourceStateRequest {
            type_name: "random_pet".to_owned(),
            version: 0,
            raw_state: RawState::Json(raw_state.into_bytes()),
        })
        .await?;
    assert!(upgraded.diagnostics.is_empty(), "{:?}", upgraded.diagnostics);
    assert_eq!(show(&upgraded.upgraded_state), new_state);

    // Changing `length` forces a new pet: the plan names the path.
    let longer = DynamicValue::Msgpack(encode(&Msg::Object(vec![
        ("id", Msg::Nil),
        ("keepers", Msg::Nil),
        ("length", Msg::Int(4)),
        ("prefix", Msg::Nil),
        ("separator", Msg::Nil),
    ])));
    let proposed = DynamicValue::Msgpack(encode(&Msg::Object(vec![
        ("id", Msg::Str(Box::leak(pet_name.clone().into_boxed_str()))),
        ("keepers", Msg::Nil),
        ("length", Msg::Int(4)),
        ("prefix", Msg::Nil),
        ("separator", Msg::Str("-")),
    ])));
    let replace = client
        .plan_resource_change(&PlanResourceChangeRequest {
            type_name: "random_pet".to_owned(),
            prior_state: applied.new_state.clone(),
            proposed_new_state: proposed,
            config: longer,
            prior_private: applied.private.clone(),
            provider_meta: None,
            planned_private: Vec::new(),
            prior_identity: None,
        })
        .await?;
    let paths: Vec<String> = replace.requires_replace.iter().map(ToString::to_string).collect();
    assert_eq!(paths, [".length"]);

    // Destroy: random declares plan_destroy, so Terraform plans it, then applies null.
    let destroy_plan = client
        .plan_resource_change(&PlanResourceChangeRequest {
            type_name: "random_pet".to_owned(),
            prior_state: applied.new_state.clone(),
            proposed_new_state: DynamicValue::null(),
            config: DynamicValue::null(),
            prior_private: applied.private.clone(),
            provider_meta: None,
            planned_private: Vec::new(),
            prior_identity: None,
        })
        .await?;
    assert_eq!(show(&destroy_plan.planned_state), "null");
    let destroyed = client
        .apply_resource_change(&ApplyResourceChangeRequest {
            type_name: "random_pet".to_owned(),
            prior_state: applied.new_state.clone(),
            planned_state: DynamicValue::null(),
            config: DynamicValue::null(),
            planned_private: destroy_plan.planned_private,
            provider_meta: None,
            planned_identity: None,
        })
        .await?;
    assert!(destroyed.diagnostics.is_empty(), "{:?}", destroyed.diagnostics);
    assert_eq!(show(&destroyed.new_state), "null");

    assert_eq!(client.stop_provider().await?, None);
    client.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn import_random_id() -> anyhow::Result<()> {
    let client = launch_real("random", versions::RANDOM).await?;
    let imported = client.import_resource_state("random_id", "p-9hUg").await?;
    assert!(imported.diagnostics.is_empty(), "{:?}", imported.diagnostics);
    let rendered: Vec<String> =
        imported.imported_resources.iter().map(|r| format!("{} {}", r.type_name, show(&r.state))).collect();
    expect![[r#"random_id {b64_std: "p+9hUg==", b64_url: "p-9hUg", byte_length: 4, dec: "2817483090", hex: "a7ef6152", id: "p-9hUg", keepers: null, prefix: null}"#]]
        .assert_eq(&rendered.join("\n"));
    client.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn validation_problems_come_back_as_diagnostics_with_paths() -> anyhow::Result<()> {
    let client = launch_real("tls", versions::TLS).await?;
    let mut attributes: Vec<(&'static str, Msg)> = [
        "ecdsa_curve",
        "id",
        "private_key_openssh",
        "private_key_pem",
        "private_key_pem_pkcs8",
        "public_key_fingerprint_md5",
        "public_key_fingerprint_sha256",
        "public_key_openssh",
        "public_key_pem",
        "rsa_bits",
    ]
    .into_iter()
    .map(|name| (name, Msg::Nil))
    .collect();
    attributes.insert(0, ("algorithm", Msg::Str("ROT13")));
    let config = DynamicValue::Msgpack(encode(&Msg::Object(attributes)));
    let diagnostics = client.validate_resource_config("tls_private_key", &config).await?;
    let rendered: Vec<String> = diagnostics
        .iter()
        .map(|d| format!("{:?} {:?} at {}", d.severity, d.summary, d.attribute.clone().unwrap_or_default()))
        .collect();
    expect![[r#"Error "Invalid Attribute Value Match" at .algorithm"#]].assert_eq(&rendered.join("\n"));
    client.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn provider_functions_over_protocol_5_and_6() -> anyhow::Result<()> {
    let local = launch_real("local", versions::LOCAL).await?;
    let dir = std::env::temp_dir();
    let argument = DynamicValue::Msgpack({
        let mut out = Vec::new();
        rmp::encode::write_str(&mut out, dir.to_str().unwrap_or("/tmp"))?;
        out
    });
    let Support::Supported(answer) = local.call_function("direxists", &[argument]).await? else {
        anyhow::bail!("local {} has functions", versions::LOCAL)
    };
    assert_eq!((show(&answer.result), answer.error), ("true".to_owned(), None));
    let Support::Supported(answer) = local.call_function("no_such_function", &[]).await? else {
        anyhow::bail!("local {} has functions", versions::LOCAL)
    };
    let error = answer.error.expect("an unknown function is an error");
    assert!(error.text.contains("no_such_function"), "{error:?}");
    local.shutdown().await;

    let framework6 = launch_real("framework6test", "current").await?;
    let Support::Supported(answer) =
        framework6.call_function("upper", &[DynamicValue::Msgpack(encode(&Msg::Str("shout")))]).await?
    else {
        anyhow::bail!("framework6test has functions")
    };
    assert_eq!((show(&answer.result), answer.error), (r#""SHOUT""#.to_owned(), None));
    assert_eq!(framework6.stop_provider().await?, None);
    framework6.shutdown().await;

    // An old provider without functions: CallFunction is unsupported, not an error.
    let null = launch_real("null", versions::NULL).await?;
    assert_eq!(null.call_function("anything", &[]).await?, Support::Unsupported);
    null.shutdown().await;
    Ok(())
}

/// The client is shared across tasks (Send + Sync) and calls run concurrently.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_from_many_tasks() -> anyhow::Result<()> {
    let client = std::sync::Arc::new(launch_real("random", versions::RANDOM).await?);
    let mut tasks = tokio::task::JoinSet::new();
    for length in 1..=32 {
        let client = client.clone();
        tasks.spawn(async move {
            let config = DynamicValue::Msgpack(encode(&Msg::Object(vec![
                ("id", Msg::Nil),
                ("keepers", Msg::Nil),
                ("length", Msg::Int(length)),
                ("prefix", Msg::Nil),
                ("separator", Msg::Nil),
            ])));
            let plan = client
                .plan_resource_change(&PlanResourceChangeRequest {
                    type_name: "random_pet".to_owned(),
                    prior_state: DynamicValue::null(),
                    proposed_new_state: config.clone(),
                    config,
                    prior_private: Vec::new(),
                    provider_meta: None,
                    planned_private: Vec::new(),
                    prior_identity: None,
                })
                .await?;
            anyhow::Ok((length, show(&plan.planned_state)))
        });
    }
    let mut n_plans = 0;
    while let Some(joined) = tasks.join_next().await {
        let (length, planned) = joined??;
        assert!(planned.contains(&format!("length: {length},")), "{planned}");
        n_plans += 1;
    }
    assert_eq!(n_plans, 32);
    let client = std::sync::Arc::into_inner(client).expect("every task is done");
    client.shutdown().await;
    Ok(())
}

/// An SDKv2 provider plans with the legacy type system flag set, which tells callers to
/// tolerate its invariant violations as Terraform does.
#[tokio::test]
async fn sdkv2_plans_say_legacy_type_system() -> anyhow::Result<()> {
    let client = launch_real("sdkv2test", "current").await?;
    let state_dir = common::scratch_dir("sdkv2-state");
    let provider_config = DynamicValue::Msgpack(encode(&Msg::Object(vec![(
        "dir",
        Msg::Str(Box::leak(state_dir.display().to_string().into_boxed_str())),
    )])));
    let diagnostics = client.configure_provider("1.9.0", &provider_config).await?;
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let config = DynamicValue::Msgpack(encode(&Msg::Object(vec![
        ("description", Msg::Nil),
        ("endpoint", Msg::Array(vec![])),
        ("fingerprint", Msg::Nil),
        ("id", Msg::Nil),
        ("labels", Msg::Nil),
        ("name", Msg::Str("first")),
        ("rule", Msg::Array(vec![])),
        ("secret", Msg::Nil),
        ("settings", Msg::Array(vec![])),
        ("tags", Msg::Nil),
        ("timeouts", Msg::Nil),
    ])));
    let plan = client
        .plan_resource_change(&PlanResourceChangeRequest {
            type_name: "sdkv2test_thing".to_owned(),
            prior_state: DynamicValue::null(),
            proposed_new_state: config.clone(),
            config,
            prior_private: Vec::new(),
            provider_meta: None,
            planned_private: Vec::new(),
            prior_identity: None,
        })
        .await?;
    assert!(plan.diagnostics.is_empty(), "{:?}", plan.diagnostics);
    assert!(plan.legacy_type_system);
    expect![[r#"{description: (unknown), endpoint: [], fingerprint: (unknown), id: (unknown), labels: null, name: "first", rule: [], secret: null, settings: [], tags: null, timeouts: null}"#]].assert_eq(&show(&plan.planned_state));
    client.shutdown().await;
    Ok(())
}
