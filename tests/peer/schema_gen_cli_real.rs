//! The `schema-gen` binary with the real random provider (a peer-tier test): it prints
//! exactly the schema GetSchema serves (the goldens of tests/peer/schema_golden_real.rs), and
//! Parameterize's flags apply.

use crate::common;

use std::path::Path;

use common::schema::{run_schema_gen as run, schema_gen_stdout as stdout};
use common::versions;
use expect_test::expect;

#[test]
fn prints_the_same_schema_as_get_schema() -> anyhow::Result<()> {
    let random = common::real_provider("random", versions::RANDOM)?;
    let dir = random.parent().expect("a provider lives in a directory");
    // The golden was made with plugin version 1.0.0 and this relative path.
    let output = run(dir, &["--plugin-version", "1.0.0", "./terraform-provider-random"]);
    assert_eq!(stdout(&output), include_str!("../golden/schema/random-3.9.0.pulumi.json"));
    // Warnings go to stderr, never into the JSON.
    expect![""].assert_eq(&String::from_utf8_lossy(&output.stderr));
    Ok(())
}

#[test]
fn parameterize_flags_apply() -> anyhow::Result<()> {
    let random = common::real_provider("random", versions::RANDOM)?;
    let path = random.to_str().expect("a utf-8 path");
    let output = run(Path::new("/"), &[path, "--include", "random_pet,random_id", "--provider-name", "dice"]);
    let schema: serde_json::Value = serde_json::from_str(&stdout(&output))?;
    let resources: Vec<&str> = schema["resources"].as_object().expect("resources").keys().map(String::as_str).collect();
    assert_eq!((schema["name"].as_str(), resources), (Some("dice"), vec!["dice:index/id:Id", "dice:index/pet:Pet"]));
    Ok(())
}
