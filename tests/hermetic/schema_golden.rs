//! Golden files of the whole Pulumi package schema, made the way GetSchema makes it: the
//! provider is launched and described by `tfbridge::lifecycle::start_provider`, then
//! translated. Covers the fixture provider over protocol 5 and 6 (every type, nesting mode
//! and flag); tests/peer/schema_golden_real.rs does the same for the real random, null and local
//! providers.
//!
//! Each provider is named by a relative local path (`./terraform-provider-<name>`, resolved
//! against its own directory), so the parameter embedded in the schema is the same on every
//! machine. Refresh with `UPDATE_EXPECT=1 cargo test --test hermetic -- schema_golden::`.

use crate::common;

use common::schema::check;
use expect_test::expect_file;

#[tokio::test]
async fn fixture_over_protocol_5() -> anyhow::Result<()> {
    check(
        &common::fixture_provider_dir(5, None)?,
        "fixture",
        expect_file!["../golden/schema/fixture-v5.pulumi.json"],
        expect_file!["../golden/schema/fixture-v5.warnings.txt"],
    )
    .await
}

#[tokio::test]
async fn fixture_over_protocol_6() -> anyhow::Result<()> {
    check(
        &common::fixture_provider_dir(6, None)?,
        "fixture",
        expect_file!["../golden/schema/fixture-v6.pulumi.json"],
        expect_file!["../golden/schema/fixture-v6.warnings.txt"],
    )
    .await
}
