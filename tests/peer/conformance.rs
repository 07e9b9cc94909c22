//! The conformance tier: the Go implementation's own tests (pulumi-terraform-bridge v3.136.0,
//! `dynamic/provider_test.go`, `dynamic/conflicting_test.go`, `dynamic/log_replay_test.go`,
//! `dynamic/internal/shim/run/reattach_test.go`) made against our plugin from outside: the
//! same gRPC calls with the same arguments, on the same providers (the bridge's own test
//! providers and random from the module proxy, `scripts/test-tools.sh bridgetests
//! random-golden`), each answer compared with its golden as the Go test compares it (gRPC
//! answers as protojson with sorted keys, schemas byte for byte as `json.Indent` makes them).
//! The goldens are read at test time from `go-dynamic-tests/testdata` in the shared peers
//! folder ([`harness::goldens_dir`]), never copied here.
//!
//! One `#[test]` per Go test, one assertion per expectation: each expectation is asserted in
//! the form `conformance/expectations.rs` gives it (strictly; as a listed difference from
//! Go's answer; or not run, with the reason printed), and each test prints
//! `conformance: <Go test>: N of M expectations met strictly; K asserted as documented
//! differences; S not run (reason)`. [`summary`] prints the whole tier's count.

#[path = "conformance/expectations.rs"]
mod expectations;
#[path = "conformance/harness.rs"]
mod harness;
#[path = "conformance/pfprovider.rs"]
mod pfprovider;
#[path = "conformance/reattach.rs"]
mod reattach;
#[path = "conformance/replay.rs"]
mod replay;
#[path = "conformance/schema.rs"]
mod schema;
#[path = "conformance/sdk.rs"]
mod sdk;

use crate::common::Implementation;

/// One `#[test]` per Go test (or Go test file), on one implementation.
macro_rules! conformance_tests {
    ($implementation:expr; $($name:ident => $run:path),* $(,)?) => {$(
        #[tokio::test]
        async fn $name() {
            $run($implementation).await;
        }
    )*};
}

conformance_tests!(Implementation::Ours;
    primitive_types => pfprovider::primitive_types,
    dynamic_configure => pfprovider::dynamic_configure,
    dynamic_provider_function => pfprovider::dynamic_provider_function,
    dynamic_check_config => pfprovider::dynamic_check_config,
    schema_generation => schema::schema_generation,
    schema_generation_full_docs => schema::schema_generation_full_docs,
    schema_generation_index_doc_out_dir => schema::schema_generation_index_doc_out_dir,
    sdkv1_provider => sdk::sdkv1_provider,
    conflicts_with_name_prefix_only => sdk::conflicts_with_name_prefix_only,
    conflicts_with_both_user_specified => sdk::conflicts_with_both_user_specified,
    random_create => sdk::random_create,
    reattach => reattach::reattach,
    config_in_destroy => replay::config_in_destroy,
    log_replay_provider_with_program => replay::log_replay_provider_with_program,
);

/// The harness itself, against the Go implementation: through it, Go must meet every
/// expectation of these tests strictly (its schema goldens are left out: `--fullDocs` and
/// `--indexDocOutDir` clone the provider's repository from GitHub, and its unparameterized
/// schema carries its release's version where the golden has a development build's).
mod harness_on_go {
    use super::*;

    conformance_tests!(Implementation::Go;
        primitive_types => pfprovider::primitive_types,
        dynamic_configure => pfprovider::dynamic_configure,
        dynamic_provider_function => pfprovider::dynamic_provider_function,
        dynamic_check_config => pfprovider::dynamic_check_config,
        sdkv1_provider => sdk::sdkv1_provider,
        conflicts_with_name_prefix_only => sdk::conflicts_with_name_prefix_only,
        conflicts_with_both_user_specified => sdk::conflicts_with_both_user_specified,
        random_create => sdk::random_create,
        reattach => reattach::reattach,
        config_in_destroy => replay::config_in_destroy,
        log_replay_provider_with_program => replay::log_replay_provider_with_program,
    );
}

/// The whole tier's count, from the table of expectations (`conformance/expectations.rs`),
/// which the tests above hold ours to; the table has each expectation once, and each difference
/// names what differs.
#[test]
fn summary() {
    let table = expectations::EXPECTATIONS;
    let mut seen = std::collections::BTreeSet::new();
    for e in table {
        assert!(seen.insert((e.test, e.name)), "{}/{} is in expectations.rs twice", e.test, e.name);
    }
    let strict = table.iter().filter(|e| matches!(e.form, expectations::Form::Strict)).count();
    let documented = table
        .iter()
        .filter(|e| matches!(e.form, expectations::Form::Differs { .. } | expectations::Form::DiffersInMany { .. }))
        .count();
    let reasons: std::collections::BTreeSet<&str> = table
        .iter()
        .filter_map(|e| match e.form {
            expectations::Form::NotRun(reason) => Some(reason),
            _ => None,
        })
        .collect();
    let not_run = table.len() - strict - documented;
    for e in table {
        match e.form {
            expectations::Form::Differs { what, doc, changes } => {
                assert!(
                    !changes.is_empty() && !what.is_empty(),
                    "{}/{}: a difference names its changes",
                    e.test,
                    e.name
                );
                println!(
                    "conformance: {}/{}: differs from Go: {what} ({})",
                    e.test,
                    e.name,
                    doc.unwrap_or("not yet documented")
                );
            }
            expectations::Form::DiffersInMany { what, doc, count, .. } => {
                assert!(count > 0 && !what.is_empty(), "{}/{}: a difference names its changes", e.test, e.name);
                println!(
                    "conformance: {}/{}: differs from Go: {what} ({})",
                    e.test,
                    e.name,
                    doc.unwrap_or("not yet documented")
                );
            }
            expectations::Form::NotRun(reason) => println!("conformance: {}/{}: not run: {reason}", e.test, e.name),
            expectations::Form::Strict => {}
        }
    }
    let deliberate = table
        .iter()
        .filter(|e| match e.form {
            expectations::Form::Differs { doc, .. } | expectations::Form::DiffersInMany { doc, .. } => doc.is_some(),
            _ => false,
        })
        .count();
    println!(
        "conformance: {strict} of {} expectations met strictly; {documented} asserted as documented differences \
         ({deliberate} of them in the table of deliberate differences); {not_run} not run ({})",
        table.len(),
        reasons.into_iter().collect::<Vec<_>>().join("; "),
    );
}
