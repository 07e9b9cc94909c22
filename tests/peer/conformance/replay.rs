//! The log-replay tests (`dynamic/log_replay_test.go`): a Terraform provider that answers from
//! a gRPC log the Go implementation recorded and checks that each request is the recorded
//! one (`tests/go-providers/replay`, `scripts/test-tools.sh replay`), driven through our
//! plugin. `TestConfigInDestroy` deletes a phpipam section without configuring the provider
//! (the destroy's ApplyResourceChange must carry no config); `TestLogReplayProviderWithProgram`
//! runs `pulumi up` of the Go test's YAML program (a random pet of length 3) with the real
//! Pulumi CLI. Each expectation is the Go test's assertion together with the replaying
//! provider's: the answer, and the requests that were not the recorded ones (none).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;

use super::harness::{self, Record, Server, answer, goldens_dir, props};
use crate::common::pulumi::Workspace;
use crate::common::{self, Implementation};

/// The replaying provider under the name `terraform-provider-<name>` (a local provider's
/// package is named after its file), in a scratch directory with the file its mismatches go to.
fn replaying_provider(name: &str) -> (PathBuf, PathBuf) {
    let binary = common::real_provider("replay", "current").expect("scripts/test-tools.sh replay");
    let dir = common::scratch_dir("conformance-replay");
    let path = dir.join(format!("terraform-provider-{name}"));
    if std::fs::hard_link(&binary, &path).is_err() {
        std::fs::copy(&binary, &path).expect("copy the replaying provider");
    }
    (path, dir.join("mismatches.jsonl"))
}

/// The requests the replaying provider found not to be the recorded ones, in the order made.
fn mismatches(file: &Path) -> Json {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    Json::Array(text.lines().map(|line| serde_json::from_str(line).expect("a mismatch is JSON")).collect())
}

fn replay_env(log: &str, mismatches: &Path) -> Vec<(&'static str, OsString)> {
    vec![
        ("REPLAY_LOG", goldens_dir().join(log).into_os_string()),
        ("REPLAY_MISMATCHES", mismatches.as_os_str().to_owned()),
    ]
}

pub async fn config_in_destroy(implementation: Implementation) {
    const TEST: &str = "TestConfigInDestroy";
    let mut record = Record::new(TEST, implementation);
    let (provider, mismatch_file) = replaying_provider("phpipam");
    let mut server = Server::start(implementation, &replay_env("TestConfigInDestroy/logs.json", &mismatch_file)).await;
    let parameterized = server.parameterize(&[provider.to_str().expect("utf-8")]).await;
    assert!(parameterized.is_ok(), "Parameterize with the replaying provider: {parameterized:?}");
    let deleted = server
        .client
        .delete(pulumirpc::DeleteRequest {
            id: "12".to_owned(),
            urn: "urn:pulumi:prod::space-ipam::phpipam:index/section:Section::section".to_owned(),
            name: "section".to_owned(),
            r#type: "phpipam:index/section:Section".to_owned(),
            old_inputs: props(json!({"name": "Section Name"})),
            properties: props(json!({
                "__meta": "{\"private_state\":\"bnVsbA==\"}",
                "description": "",
                "displayOrder": 0,
                "dnsResolverId": 0,
                "editDate": "",
                "masterSectionId": 0,
                "name": "Section Name",
                "permissions": "",
                "phpipamSectionId": "12",
                "sectionId": 12,
                "showSupernetOnly": false,
                "showVlanInSubnetListing": false,
                "showVrfInSubnetListing": false,
                "strictMode": true,
                "subnetOrdering": "",
            })),
            ..Default::default()
        })
        .await
        .map(|_| ());
    let ours = json!({"delete": answer(deleted, harness::empty_json), "mismatches": mismatches(&mismatch_file)});
    record.expect("delete", &json!({"delete": {}, "mismatches": []}), &ours);
    record.finish();
}

pub async fn log_replay_provider_with_program(implementation: Implementation) {
    const TEST: &str = "TestLogReplayProviderWithProgram";
    let mut record = Record::new(TEST, implementation);
    let (provider, mismatch_file) = replaying_provider("random");
    let mut workspace = Workspace::new("conformance-replay", implementation).expect("a Pulumi workspace");
    for (key, value) in replay_env("TestLogReplayProvider/grpc_log_random.json", &mismatch_file) {
        workspace.set_env(key, value.to_str().expect("utf-8"));
    }
    let program = "name: proj\nruntime: yaml\nresources:\n  randomPet:\n    type: random:Pet\n    properties:\n        length: 3\noutputs:\n  petName: ${randomPet.id}\n";
    std::fs::write(workspace.project_dir().join("Pulumi.yaml"), program).expect("write Pulumi.yaml");
    workspace.package_add(&[provider.to_str().expect("utf-8")]).expect("pulumi package add");
    workspace.stack_init().expect("pulumi stack init");
    let up = workspace.pulumi(&["up", "--yes", "--non-interactive"]).expect("pulumi up runs");
    let pet = if up.success() {
        workspace.stack_outputs(false).expect("the stack's outputs")["petName"].clone()
    } else {
        json!({"<error>": "pulumi up failed"})
    };
    let ours = json!({"petName": pet, "mismatches": mismatches(&mismatch_file)});
    record.expect("up", &json!({"petName": "curiously-diverse-newt", "mismatches": []}), &ours);
    record.finish();
}
