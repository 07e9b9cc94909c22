//! The real peer: Terraform itself launches the fixture, reads its schema, and plans and
//! applies against it, failing each misbehaviour with the check Terraform core makes. A
//! peer-tier test (`--features peer-tests`): it needs the Terraform CLI that
//! `scripts/test-tools.sh terraform` builds.

#[path = "../fixture/goplugin_client.rs"]
#[allow(dead_code)] // tests/fixture/ uses the rest of the go-plugin client.
mod goplugin_client;
mod terraform;
mod terraform_apply;
mod terraform_failure_paths;
mod terraform_misbehave;
#[path = "../../../common/versions.rs"]
mod versions;
