//! The fixture provider's resource behaviour through the protocol-neutral client, over
//! protocol 5 and 6: provider configuration, validation, state upgrade, a resource's whole
//! life, import, data source reads and functions, the file-backed store, and every
//! `fixture_misbehave` misbehaviour as the raw answer a bridge would see.
//!
//! Needs the fixture binary: `cargo build -p terraform-provider-fixture`.

use crate::common;

use common::fixture::{Val, launch_fixture, s, show};
use expect_test::{Expect, expect};
use tfbridge::tfplugin::ProviderClient;
use tfbridge::tfplugin::core_rpcs::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, DeferredReason, Diagnostic, DynamicValue,
    PlanResourceChangeRequest, PlanResourceChangeResponse, RawState, ReadDataSourceRequest, ReadResourceRequest,
    UpgradeResourceStateRequest,
};

fn diagnostics(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|d| {
            let at = d.attribute.as_ref().map(|path| path.to_string()).unwrap_or_default();
            format!("{:?} {:?} at {at:?}: {}", d.severity, d.summary, d.detail)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn provider_config(max_retries: Val) -> DynamicValue {
    Val::Object(vec![
        ("default_tags", Val::Nil),
        ("endpoint", s("https://example.invalid")),
        ("features", Val::Nil),
        ("max_retries", max_retries),
        ("region", Val::Nil),
        ("token", Val::Nil),
    ])
    .dynamic()
}

fn flags(id: Val, name: &str, created_at: Val, region: Val) -> DynamicValue {
    Val::Object(vec![
        ("created_at", created_at),
        ("id", id),
        ("name", s(name)),
        ("old_name", Val::Nil),
        ("password", Val::Nil),
        ("password_wo", Val::Nil),
        ("password_wo_version", Val::Nil),
        ("region", region),
        ("sensitive_tags", Val::Nil),
    ])
    .dynamic()
}

async fn plan(
    client: &ProviderClient,
    type_name: &str,
    prior: &DynamicValue,
    proposed: &DynamicValue,
    config: &DynamicValue,
) -> anyhow::Result<PlanResourceChangeResponse> {
    Ok(client
        .plan_resource_change(&PlanResourceChangeRequest {
            type_name: type_name.to_owned(),
            prior_state: prior.clone(),
            proposed_new_state: proposed.clone(),
            config: config.clone(),
            prior_private: Vec::new(),
            provider_meta: None,
            planned_private: Vec::new(),
            prior_identity: None,
        })
        .await?)
}

async fn apply(
    client: &ProviderClient,
    type_name: &str,
    prior: &DynamicValue,
    planned: &PlanResourceChangeResponse,
    config: &DynamicValue,
) -> anyhow::Result<ApplyResourceChangeResponse> {
    Ok(client
        .apply_resource_change(&ApplyResourceChangeRequest {
            type_name: type_name.to_owned(),
            prior_state: prior.clone(),
            planned_state: planned.planned_state.clone(),
            config: config.clone(),
            planned_private: planned.planned_private.clone(),
            provider_meta: None,
            planned_identity: None,
        })
        .await?)
}

async fn read(client: &ProviderClient, type_name: &str, state: &DynamicValue) -> anyhow::Result<String> {
    let response = client
        .read_resource(&ReadResourceRequest {
            type_name: type_name.to_owned(),
            current_state: state.clone(),
            private: b"kept".to_vec(),
            provider_meta: None,
            current_identity: None,
        })
        .await?;
    assert_eq!(response.private, b"kept");
    Ok(format!("{} {}", show(&response.new_state), diagnostics(&response.diagnostics)))
}

async fn lifecycle(protocol: &str) -> anyhow::Result<()> {
    let client = launch_fixture(protocol, &[]).await?;

    // Provider configuration: a null required argument is an error at its path; an unknown
    // one is accepted.
    let validated = client.validate_provider_config(&provider_config(Val::Nil)).await?;
    expect![[r#"Error "Missing required argument" at ".max_retries": The argument "max_retries" is required, but no definition was found."#]]
        .assert_eq(&diagnostics(&validated.diagnostics));
    assert!(client.validate_provider_config(&provider_config(Val::Int(3))).await?.diagnostics.is_empty());
    assert!(client.configure_provider("1.11.4", &provider_config(Val::Unknown)).await?.is_empty());

    // Resource validation with attribute paths.
    let bad = flags(Val::Nil, "bad", Val::Nil, Val::Nil);
    expect![[r#"Error "Invalid name" at ".name": The name "bad" is reserved by the fixture provider."#]]
        .assert_eq(&diagnostics(&client.validate_resource_config("fixture_flags", &bad).await?));
    let types_config = Val::Object(vec![
        ("bool_value", Val::Nil),
        ("dynamic_value", Val::Nil),
        ("id", Val::Nil),
        ("list_of_objects", Val::Nil),
        ("list_value", Val::Array(vec![s("ok"), s("bad")])),
        ("map_of_lists", Val::Nil),
        ("map_value", Val::Nil),
        ("number_value", Val::Int(5000)),
        ("object_value", Val::Nil),
        ("set_of_sets", Val::Nil),
        ("set_value", Val::Nil),
        ("string_value", Val::Nil),
        ("tuple_value", Val::Nil),
    ])
    .dynamic();
    expect![[r#"
        Error "Value out of range" at ".number_value": number_value must be between 0 and 1000, got 5000.
        Error "Invalid list element" at ".list_value[1]": "bad" is not allowed."#]]
    .assert_eq(&diagnostics(&client.validate_resource_config("fixture_types", &types_config).await?));

    // State upgrade: fixture_versioned renamed legacy_value to value at version 3.
    let upgraded = client
        .upgrade_resource_state(&UpgradeResourceStateRequest {
            type_name: "fixture_versioned".to_owned(),
            version: 1,
            raw_state: RawState::Json(br#"{"id":"v-1","legacy_value":"old"}"#.to_vec()),
        })
        .await?;
    assert!(upgraded.diagnostics.is_empty(), "{:?}", upgraded.diagnostics);
    expect![[r#"{id: "v-1", value: "old"}"#]].assert_eq(&show(&upgraded.upgraded_state));
    let flatmap = client
        .upgrade_resource_state(&UpgradeResourceStateRequest {
            type_name: "fixture_computed_id".to_owned(),
            version: 0,
            raw_state: RawState::Flatmap([("id".to_owned(), "c-1".to_owned())].into_iter().collect()),
        })
        .await?;
    expect![[r#"{id: "c-1", value: null}"#]].assert_eq(&show(&flatmap.upgraded_state));

    // Create: id and computed attributes unknown in the plan, filled in by apply.
    let config = flags(Val::Nil, "first", Val::Nil, Val::Nil);
    let planned = plan(&client, "fixture_flags", &DynamicValue::null(), &config, &config).await?;
    assert!(planned.diagnostics.is_empty() && planned.requires_replace.is_empty() && !planned.legacy_type_system);
    expect![[r#"{created_at: (unknown), id: (unknown), name: "first", old_name: null, password: null, password_wo: null, password_wo_version: null, region: (unknown), sensitive_tags: null}"#]]
        .assert_eq(&show(&planned.planned_state));
    assert_eq!(planned.planned_private, b"fixture-private:fixture_flags");
    let created = apply(&client, "fixture_flags", &DynamicValue::null(), &planned, &config).await?;
    assert!(created.diagnostics.is_empty(), "{:?}", created.diagnostics);
    assert_eq!(created.private, b"fixture-private:fixture_flags");
    expect![[r#"{created_at: "computed-created_at", id: "flags-1", name: "first", old_name: null, password: null, password_wo: null, password_wo_version: null, region: "computed-region", sensitive_tags: null}"#]]
        .assert_eq(&show(&created.new_state));
    assert_eq!(read(&client, "fixture_flags", &created.new_state).await?, format!("{} ", show(&created.new_state)));

    // Update of the force-new `name`: prior computed values kept, replacement required.
    let renamed = flags(Val::Nil, "second", Val::Nil, Val::Nil);
    let proposed = flags(s("flags-1"), "second", s("computed-created_at"), s("computed-region"));
    let update = plan(&client, "fixture_flags", &created.new_state, &proposed, &renamed).await?;
    assert_eq!(update.requires_replace.iter().map(ToString::to_string).collect::<Vec<_>>(), [".name"]);
    assert_eq!(update.planned_state, proposed);

    // Destroy: null planned, null new state.
    let destroy =
        plan(&client, "fixture_flags", &created.new_state, &DynamicValue::null(), &DynamicValue::null()).await?;
    assert_eq!(show(&destroy.planned_state), "null");
    let deleted = apply(&client, "fixture_flags", &created.new_state, &destroy, &DynamicValue::null()).await?;
    assert_eq!(show(&deleted.new_state), "null");

    // Import: a state with just the id; `multi:` imports two objects.
    let imported = client.import_resource_state("fixture_computed_id", "abc").await?;
    let states: Vec<String> = imported.imported_resources.iter().map(|r| show(&r.state)).collect();
    assert_eq!(states, [r#"{id: "abc", value: null}"#]);
    let multi = client.import_resource_state("fixture_computed_id", "multi:x").await?;
    let states: Vec<String> = multi.imported_resources.iter().map(|r| show(&r.state)).collect();
    assert_eq!(states, [r#"{id: "x-1", value: null}"#, r#"{id: "x-2", value: null}"#]);

    // Data source.
    let lookup = |name: &str| {
        Val::Object(vec![
            ("filter", Val::Array(vec![])),
            ("id", Val::Nil),
            ("name", s(name)),
            ("tags", Val::Nil),
            ("value", Val::Nil),
        ])
        .dynamic()
    };
    expect![[r#"Error "Invalid name" at ".name": The name "bad" is reserved by the fixture provider."#]]
        .assert_eq(&diagnostics(&client.validate_data_resource_config("fixture_lookup", &lookup("bad")).await?));
    let data = client
        .read_data_source(&ReadDataSourceRequest {
            type_name: "fixture_lookup".to_owned(),
            config: lookup("n"),
            provider_meta: None,
        })
        .await?;
    expect![[r#"{filter: [], id: "n", name: "n", tags: {filters: "0", name: "n"}, value: "value-of-n"}"#]]
        .assert_eq(&show(&data.state));

    // Functions.
    let functions = client.get_functions().await?.supported().expect("GetFunctions is served");
    assert_eq!(functions.functions.keys().collect::<Vec<_>>(), ["echo", "join"]);
    let joined = client
        .call_function("join", &[s("-").dynamic(), s("a").dynamic(), s("b").dynamic()])
        .await?
        .supported()
        .expect("CallFunction is served");
    assert_eq!((show(&joined.result), joined.error), (r#""a-b""#.to_owned(), None));
    let failed = client
        .call_function("join", &[s("-").dynamic(), s("a").dynamic(), s("bad").dynamic()])
        .await?
        .supported()
        .expect("CallFunction is served");
    let error = failed.error.expect("a function error");
    assert_eq!((error.text.as_str(), error.argument), ("a part must not be \"bad\"", Some(2)));

    client.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn lifecycle_over_protocol_5() -> anyhow::Result<()> {
    lifecycle("5").await
}

#[tokio::test]
async fn lifecycle_over_protocol_6() -> anyhow::Result<()> {
    lifecycle("6").await
}

fn misbehave_config(misbehave: &str) -> DynamicValue {
    Val::Object(vec![
        ("computed_value", Val::Nil),
        ("id", Val::Nil),
        ("items", Val::Array(vec![s("a")])),
        ("misbehave", s(misbehave)),
        ("replace_key", Val::Nil),
        ("secret_wo", s("s")),
        ("value", s("v")),
    ])
    .dynamic()
}

/// Plans and applies a `fixture_misbehave` create and renders both raw answers.
async fn plan_and_apply_misbehave(client: &ProviderClient, misbehave: &str) -> anyhow::Result<String> {
    let config = misbehave_config(misbehave);
    let planned = plan(client, "fixture_misbehave", &DynamicValue::null(), &config, &config).await?;
    let mut text = format!(
        "plan: {} replace {:?} legacy {} deferred {:?} {}",
        show(&planned.planned_state),
        planned.requires_replace.iter().map(ToString::to_string).collect::<Vec<_>>(),
        planned.legacy_type_system,
        planned.deferred,
        diagnostics(&planned.diagnostics)
    );
    let applied = apply(client, "fixture_misbehave", &DynamicValue::null(), &planned, &config).await?;
    text.push_str(&format!(
        "\napply: {} legacy {} {}",
        show(&applied.new_state),
        applied.legacy_type_system,
        diagnostics(&applied.diagnostics)
    ));
    Ok(text.lines().map(str::trim_end).collect::<Vec<_>>().join("\n"))
}

async fn check_misbehaviour(protocol: &str, misbehave: &str, expect: Expect) -> anyhow::Result<()> {
    let client = launch_fixture(protocol, &[]).await?;
    expect.assert_eq(&plan_and_apply_misbehave(&client, misbehave).await?);
    client.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn misbehave_plan_differs_from_config() -> anyhow::Result<()> {
    check_misbehaviour("6", "plan_differs_from_config", expect![[r#"
        plan: {computed_value: (unknown), id: (unknown), items: ["a"], misbehave: "plan_differs_from_config", replace_key: null, secret_wo: null, value: "v-planned"} replace [] legacy false deferred None
        apply: {computed_value: "computed-computed_value", id: "misbehave-1", items: ["a"], misbehave: "plan_differs_from_config", replace_key: null, secret_wo: null, value: "v-planned"} legacy false"#]]).await
}

#[tokio::test]
async fn misbehave_legacy_type_system_with_plan_differs_over_protocol_5() -> anyhow::Result<()> {
    check_misbehaviour("5", "legacy_type_system,plan_differs_from_config", expect![[r#"
        plan: {computed_value: (unknown), id: (unknown), items: ["a"], misbehave: "legacy_type_system,plan_differs_from_config", replace_key: null, secret_wo: null, value: "v-planned"} replace [] legacy true deferred None
        apply: {computed_value: "computed-computed_value", id: "misbehave-1", items: ["a"], misbehave: "legacy_type_system,plan_differs_from_config", replace_key: null, secret_wo: null, value: "v-planned"} legacy true"#]]).await
}

#[tokio::test]
async fn misbehave_apply_changes_known_value() -> anyhow::Result<()> {
    check_misbehaviour("6", "apply_changes_known_value", expect![[r#"
        plan: {computed_value: (unknown), id: (unknown), items: ["a"], misbehave: "apply_changes_known_value", replace_key: null, secret_wo: null, value: "v"} replace [] legacy false deferred None
        apply: {computed_value: "computed-computed_value", id: "misbehave-1", items: ["a"], misbehave: "apply_changes_known_value", replace_key: null, secret_wo: null, value: "v-applied"} legacy false"#]]).await
}

#[tokio::test]
async fn misbehave_unknown_after_apply() -> anyhow::Result<()> {
    check_misbehaviour("6", "unknown_after_apply", expect![[r#"
        plan: {computed_value: (unknown), id: (unknown), items: ["a"], misbehave: "unknown_after_apply", replace_key: null, secret_wo: null, value: "v"} replace [] legacy false deferred None
        apply: {computed_value: (unknown), id: "misbehave-1", items: ["a"], misbehave: "unknown_after_apply", replace_key: null, secret_wo: null, value: "v"} legacy false"#]]).await
}

#[tokio::test]
async fn misbehave_null_after_apply() -> anyhow::Result<()> {
    check_misbehaviour("6", "null_after_apply", expect![[r#"
        plan: {computed_value: (unknown), id: (unknown), items: ["a"], misbehave: "null_after_apply", replace_key: null, secret_wo: null, value: "v"} replace [] legacy false deferred None
        apply: null legacy false"#]]).await
}

#[tokio::test]
async fn misbehave_set_elements_uncorrelated() -> anyhow::Result<()> {
    check_misbehaviour("6", "set_elements_uncorrelated", expect![[r#"
        plan: {computed_value: (unknown), id: (unknown), items: ["a"], misbehave: "set_elements_uncorrelated", replace_key: null, secret_wo: null, value: "v"} replace [] legacy false deferred None
        apply: {computed_value: "computed-computed_value", id: "misbehave-1", items: ["a-uncorrelated"], misbehave: "set_elements_uncorrelated", replace_key: null, secret_wo: null, value: "v"} legacy false"#]]).await
}

#[tokio::test]
async fn misbehave_error_with_partial_state_over_protocol_5() -> anyhow::Result<()> {
    check_misbehaviour("5", "error_with_partial_state", expect![[r#"
        plan: {computed_value: (unknown), id: (unknown), items: ["a"], misbehave: "error_with_partial_state", replace_key: null, secret_wo: null, value: "v"} replace [] legacy false deferred None
        apply: {computed_value: "computed-computed_value", id: "misbehave-1", items: ["a"], misbehave: "error_with_partial_state", replace_key: null, secret_wo: null, value: "v"} legacy false Error "Partial failure" at "": The fixture created the object but failed to finish configuring it."#]]).await
}

#[tokio::test]
async fn misbehave_requires_replace_nonexistent() -> anyhow::Result<()> {
    check_misbehaviour("6", "requires_replace_nonexistent", expect![[r#"
        plan: {computed_value: (unknown), id: (unknown), items: ["a"], misbehave: "requires_replace_nonexistent", replace_key: null, secret_wo: null, value: "v"} replace [".no_such_attribute"] legacy false deferred None
        apply: {computed_value: "computed-computed_value", id: "misbehave-1", items: ["a"], misbehave: "requires_replace_nonexistent", replace_key: null, secret_wo: null, value: "v"} legacy false"#]]).await
}

#[tokio::test]
async fn misbehave_write_only_in_plan() -> anyhow::Result<()> {
    check_misbehaviour("6", "write_only_in_plan", expect![[r#"
        plan: {computed_value: (unknown), id: (unknown), items: ["a"], misbehave: "write_only_in_plan", replace_key: null, secret_wo: "leaked", value: "v"} replace [] legacy false deferred None
        apply: {computed_value: "computed-computed_value", id: "misbehave-1", items: ["a"], misbehave: "write_only_in_plan", replace_key: null, secret_wo: null, value: "v"} legacy false"#]]).await
}

#[tokio::test]
async fn misbehave_deferred() -> anyhow::Result<()> {
    let client = launch_fixture("6", &[]).await?;
    let config = misbehave_config("deferred");
    let planned = plan(&client, "fixture_misbehave", &DynamicValue::null(), &config, &config).await?;
    assert_eq!(planned.deferred, Some(DeferredReason::ResourceConfigUnknown));
    assert_eq!(planned.planned_state, config);
    client.shutdown().await;
    Ok(())
}

#[tokio::test]
async fn misbehave_panic_in_apply() -> anyhow::Result<()> {
    let client = launch_fixture("6", &[]).await?;
    let config = misbehave_config("panic_in_apply");
    let planned = plan(&client, "fixture_misbehave", &DynamicValue::null(), &config, &config).await?;
    let pid = client.pid().expect("a launched provider has a pid");
    let err = match apply(&client, "fixture_misbehave", &DynamicValue::null(), &planned, &config).await {
        Ok(response) => anyhow::bail!("apply should have died, answered {response:?}"),
        Err(err) => err,
    };
    assert!(err.to_string().contains("ApplyResourceChange"), "{err:#}");
    assert!(common::wait_until_dead(pid, std::time::Duration::from_secs(10)), "the fixture should have exited");
    Ok(())
}

#[tokio::test]
async fn misbehave_slow_apply_ends_at_stop_provider() -> anyhow::Result<()> {
    for protocol in ["5", "6"] {
        let client = launch_fixture(protocol, &[]).await?;
        let config = misbehave_config("slow_apply");
        let planned = plan(&client, "fixture_misbehave", &DynamicValue::null(), &config, &config).await?;
        let started = std::time::Instant::now();
        let null = DynamicValue::null();
        let (applied, stopped) = tokio::join!(apply(&client, "fixture_misbehave", &null, &planned, &config), async {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            client.stop_provider().await
        });
        assert_eq!(stopped?, None);
        let applied = applied?;
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "protocol {protocol}");
        assert_eq!(show(&applied.new_state), "null");
        expect![[r#"Error "Apply interrupted" at "": The provider was stopped before the apply finished."#]]
            .assert_eq(&diagnostics(&applied.diagnostics));
        client.shutdown().await;
    }
    Ok(())
}

#[tokio::test]
async fn store_dir_simulates_out_of_band_changes() -> anyhow::Result<()> {
    let dir = common::scratch_dir("fixture-store");
    let store = dir.to_str().expect("a UTF-8 temp dir").to_owned();
    let client = launch_fixture("6", &[("FIXTURE_STORE_DIR", &store)]).await?;
    let config = Val::Object(vec![("id", Val::Nil), ("value", s("v"))]).dynamic();
    let planned = plan(&client, "fixture_computed_id", &DynamicValue::null(), &config, &config).await?;
    let created = apply(&client, "fixture_computed_id", &DynamicValue::null(), &planned, &config).await?;
    let file = dir.join("fixture_computed_id/computed_id-1.json");
    let stored: serde_json::Value = serde_json::from_slice(&std::fs::read(&file)?)?;
    assert_eq!(stored, serde_json::json!({"id": "computed_id-1", "value": "v"}));

    std::fs::write(&file, r#"{"id": "computed_id-1", "value": "changed"}"#)?;
    assert_eq!(
        read(&client, "fixture_computed_id", &created.new_state).await?,
        r#"{id: "computed_id-1", value: "changed"} "#
    );
    let imported = client.import_resource_state("fixture_computed_id", "computed_id-1").await?;
    assert_eq!(show(&imported.imported_resources[0].state), r#"{id: "computed_id-1", value: "changed"}"#);

    std::fs::remove_file(&file)?;
    assert_eq!(read(&client, "fixture_computed_id", &created.new_state).await?, "null ");
    client.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
