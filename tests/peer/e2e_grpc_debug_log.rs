//! `PULUMI_TF_DEBUG_GRPC` through the real Pulumi CLI and the real random provider: every
//! call to the Terraform provider is logged as a JSON line with its duration, and no secret
//! reaches the file: not a sensitive attribute's value (random_password's `result`), not a
//! value the program marked secret (`fn::secret`), not a secret provider setting.
//!
//! Needs `scripts/test-tools.sh providers pulumi`.

use crate::common;

use common::Implementation;
use common::pulumi::Workspace;
use common::versions;

const SECRET_KEEPER: &str = "keeper-secret-4b1d7e";

#[test]
fn the_log_has_every_call_and_no_secret() -> anyhow::Result<()> {
    let provider = common::real_provider("random", versions::RANDOM)?;
    let mut ws = Workspace::new("grpc-log", Implementation::Ours)?;
    ws.copy_example("random")?;
    // A value the program marks secret, on a non-sensitive attribute.
    ws.edit_program(
        "      length: 12\n",
        &format!("      length: 12\n      keepers:\n        k:\n          fn::secret: {SECRET_KEEPER}\n"),
    )?;
    let log = ws.root().join("tf-grpc.jsonl");
    ws.set_env("PULUMI_TF_DEBUG_GRPC", &log.display().to_string());
    ws.package_add(&[provider.to_str().expect("a UTF-8 path")])?;
    ws.stack_init()?;
    ws.up()?;
    // An update, so UpgradeResourceState and a plan against stored secret state are logged.
    ws.edit_program("      length: 20\n", "      length: 21\n")?;
    ws.up()?;
    let outputs = ws.stack_outputs(true)?;
    let password = outputs["password"].as_str().unwrap_or_default().to_owned();
    assert_eq!(password.len(), 21, "{outputs:#}");

    let text = std::fs::read_to_string(&log)?;
    let entries: Vec<serde_json::Value> =
        text.lines().map(serde_json::from_str).collect::<Result<_, _>>().map_err(|e| anyhow::anyhow!("{e}: {text}"))?;
    let methods: std::collections::BTreeSet<&str> =
        entries.iter().map(|e| e["method"].as_str().unwrap_or_default()).collect();
    for expected in [
        "GetProviderSchema",
        "ValidateProviderConfig",
        "ConfigureProvider",
        "ValidateResourceConfig",
        "PlanResourceChange",
        "ApplyResourceChange",
        "UpgradeResourceState",
    ] {
        assert!(methods.contains(expected), "{expected} is not logged; the log has {methods:?}");
    }
    for entry in &entries {
        assert!(entry["duration_ns"].is_u64() && entry["timestamp"].is_string(), "{entry}");
        assert!(entry.get("response").is_some() || entry.get("error").is_some(), "{entry}");
    }
    // The log is useful: the password's plan is there, by type, with its visible inputs.
    let password_plan = entries
        .iter()
        .find(|e| e["method"] == "PlanResourceChange" && e["type_name"] == "random_password")
        .ok_or_else(|| anyhow::anyhow!("no plan of random_password in {text}"))?;
    assert_eq!(password_plan["request"]["config"]["length"], serde_json::json!(20), "{password_plan}");

    assert!(!text.contains(&password), "the sensitive password reached the log:\n{text}");
    assert!(!text.contains(SECRET_KEEPER), "a secret input reached the log:\n{text}");
    assert!(text.contains("<redacted>"), "nothing was redacted:\n{text}");
    ws.destroy()?;
    Ok(())
}
