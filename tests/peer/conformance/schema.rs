//! The schema goldens of `TestSchemaGeneration`, `TestSchemaGenerationFullDocs` and
//! `TestSchemaGenerationIndexDocOutDir` (`dynamic/provider_test.go`): GetSchema of an
//! unparameterized server, and Parameterize with a registry provider's name and version, then
//! GetSchema of the package it answers, compared byte for byte with the golden after Go's
//! `json.Indent` with four spaces. The registry is not reachable here: the provider is put in
//! the plugin cache (`PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR`, OpenTofu's layout), which both
//! implementations read first. Providers the module proxy refuses are not run.

use tfbridge_proto::pulumirpc;

use super::harness::{self, Record, Server, answer, golden_text};
use crate::common::{self, Implementation, versions};

const GENERATION: &str = "TestSchemaGeneration";

/// The goldens of providers this tier cannot build; each is reported as not run.
const REFUSED: &[&str] =
    &["hashicorp/random-3.3.0", "Backblaze/b2-0.8.9", "BunnyWay/bunnynet-0.5.1", "Azure/alz-0.11.1"];

pub async fn schema_generation(implementation: Implementation) {
    let mut record = Record::new(GENERATION, implementation);
    let mut server = Server::start(implementation, &[]).await;
    let schema = server
        .client
        .get_schema(pulumirpc::GetSchemaRequest::default())
        .await
        .map(|r| r.into_inner().schema)
        .unwrap_or_else(|status| format!("{{\"<error>\": {:?}}}", status.to_string()));
    record.expect_text("unparameterized", &golden_text(&format!("{GENERATION}/unparameterized.golden")), &schema);
    for name in REFUSED {
        record.not_run(name);
    }
    record.finish();
}

/// Parameterize with `args` (a registry name, a version, flags), which must answer `version`;
/// then the schema of the package it answered.
async fn parameterized_schema(server: &mut Server, args: &[&str], version: &str) -> Result<String, String> {
    let parameterized = server.parameterize(args).await.map_err(|status| status.to_string())?;
    if parameterized.version != version {
        return Err(format!("Parameterize answered version {:?}, not {version}", parameterized.version));
    }
    server
        .client
        .get_schema(pulumirpc::GetSchemaRequest {
            version: 0,
            subpackage_name: parameterized.name,
            subpackage_version: parameterized.version,
        })
        .await
        .map(|r| r.into_inner().schema)
        .map_err(|status| status.to_string())
}

pub async fn schema_generation_full_docs(implementation: Implementation) {
    const TEST: &str = "TestSchemaGenerationFullDocs";
    let mut record = Record::new(TEST, implementation);
    let version = versions::RANDOM_GOLDEN;
    let mut server = Server::start(implementation, &[]).await;
    let random = common::real_provider("random", version).expect("scripts/test-tools.sh random-golden");
    server.cache_provider("hashicorp/random", version, &random);
    let name = format!("hashicorp/random-{version}");
    match parameterized_schema(&mut server, &["hashicorp/random", version, "--fullDocs"], version).await {
        Ok(schema) => record.expect_text(&name, &golden_text(&format!("{TEST}/{name}.golden")), &schema),
        Err(error) => {
            let golden = serde_json::json!({"schema": "the golden"});
            record.expect(&name, &golden, &answer::<()>(Err(tonic::Status::unknown(error)), harness::empty_json));
        }
    }
    record.finish();
}

/// `--indexDocOutDir=<dir>` writes the package's index page, `<dir>/_index.md`, compared with
/// the golden byte for byte. The Go test names a directory relative to the test's working
/// directory; here it is an absolute one under a scratch directory, so nothing is written
/// into the checkout.
pub async fn schema_generation_index_doc_out_dir(implementation: Implementation) {
    const TEST: &str = "TestSchemaGenerationIndexDocOutDir";
    let mut record = Record::new(TEST, implementation);
    let version = versions::RANDOM_GOLDEN;
    let random = common::real_provider("random", version).expect("scripts/test-tools.sh random-golden");
    for (name, full_docs, dir) in
        [("with full docs", "true", "localdir"), ("index file only", "false", "indexfileonly")]
    {
        let mut server = Server::start(implementation, &[]).await;
        server.cache_provider("hashicorp/random", version, &random);
        let out = common::scratch_dir("conformance-index").join(dir);
        let args = [
            "hashicorp/random",
            version,
            &format!("--fullDocs={full_docs}"),
            &format!("--indexDocOutDir={}", out.display()),
        ];
        // `_index.md`'s text, null when none was written, or the error.
        let ours = match parameterized_schema(&mut server, &args, version).await {
            Ok(_) => serde_json::json!({"_index.md": std::fs::read_to_string(out.join("_index.md")).ok()}),
            Err(error) => serde_json::json!({"<error>": error}),
        };
        let golden = golden_text(&format!("{TEST}/{}.golden", name.replace(' ', "_")));
        record.expect(name, &serde_json::json!({"_index.md": golden}), &ours);
    }
    record.finish();
}
