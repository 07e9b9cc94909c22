//! Table tests for the decisions after each provider call, in the compact value notation of
//! `crate::testutil`.

use expect_test::{Expect, expect};

use super::{
    ApplyOutcome, ApplyProblem, Audience, EarlierPlan, Message, PlanProblem, audience, check_apply, check_failures,
    check_plan, destroy_plan_problem, final_plan_violations, requires_replace, saved_plan_private,
};
use crate::cty::{self, Path, Value};
use crate::lifecycle::support::error::Reported;
use crate::property::{PropertyPath, PropertyPathStep};
use crate::testutil::{schema, show, val};
use crate::tfplugin::core_rpcs::Severity;

const SIMPLE: &str = r#"{"attributes":{
    "id":{"type":"string","computed":true},
    "name":{"type":"string","required":true},
    "size":{"type":"number","optional":true,"computed":true},
    "tags":{"type":["map","string"],"optional":true},
    "ids":{"type":["set","string"],"optional":true},
    "password":{"type":"string","optional":true,"write_only":true}}}"#;

fn root() -> Path {
    Path::root()
}

#[track_caller]
fn check_replace(prior: &str, planned: &str, requested: &[Path], expect: Expect) {
    let ty = schema(SIMPLE).implied_type();
    let replacement = requires_replace(&ty, &val(&ty, prior), &val(&ty, planned), requested);
    let show_paths = |paths: &[Path]| paths.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ");
    expect.assert_eq(&format!(
        "replace: [{}] nonexistent: [{}]",
        show_paths(&replacement.paths),
        show_paths(&replacement.nonexistent)
    ));
}

#[test]
fn requires_replace_keeps_only_paths_that_change() {
    let prior = r#"{"id":"i-1","name":"a","size":1,"tags":{"k":"v"},"ids":["x"]}"#;
    // A create replaces nothing, and Terraform does not even look at the paths.
    check_replace("null", prior, &[root().attr("name"), root().attr("nope")], expect!["replace: [] nonexistent: []"]);
    // Listed but unchanged: providers list what *could* force replacement.
    check_replace(prior, prior, &[root().attr("name"), root().attr("size")], expect!["replace: [] nonexistent: []"]);
    check_replace(
        prior,
        r#"{"id":"i-1","name":"b","size":1,"tags":{"k":"v"},"ids":["x"]}"#,
        &[root().attr("name"), root().attr("size"), root().attr("name")],
        expect!["replace: [.name] nonexistent: []"],
    );
    // Not known yet counts as a change.
    check_replace(
        prior,
        r#"{"id":"i-1","name":"a","size":"?","tags":{"k":"v"},"ids":["x"]}"#,
        &[root().attr("size")],
        expect!["replace: [.size] nonexistent: []"],
    );
}

#[test]
fn requires_replace_inside_collections() {
    let prior = r#"{"id":"i-1","name":"a","tags":{"k":"v"},"ids":["x"]}"#;
    // A map key that appears or disappears changes.
    check_replace(
        prior,
        r#"{"id":"i-1","name":"a","tags":{"k":"v","n":"w"},"ids":["x"]}"#,
        &[root().attr("tags").key("n"), root().attr("tags").key("k")],
        expect![[r#"replace: [.tags["n"]] nonexistent: []"#]],
    );
    // Set elements have no address: the path stops at the set, which changed.
    check_replace(
        prior,
        r#"{"id":"i-1","name":"a","tags":{"k":"v"},"ids":["y"]}"#,
        &[root().attr("ids").index(0)],
        expect!["replace: [.ids[0]] nonexistent: []"],
    );
    // A path the type does not have is the provider's bug.
    check_replace(
        prior,
        prior,
        &[root().attr("no_such_attribute"), root().attr("name").attr("deeper")],
        expect!["replace: [] nonexistent: [.no_such_attribute .name.deeper]"],
    );
}

#[track_caller]
fn check_planned(prior: &str, config: &str, planned: &str, replace: &[Path], legacy: bool, expect: Expect) {
    let block = schema(SIMPLE);
    let ty = block.implied_type();
    let verdict = check_plan(&block, &val(&ty, prior), &val(&ty, config), &val(&ty, planned), replace, legacy);
    let mut lines: Vec<String> = verdict
        .problems
        .iter()
        .map(|problem| match problem {
            PlanProblem::WriteOnlyPlanned(name) => format!("write-only planned: {name}"),
            PlanProblem::Invalid(violation) => format!("invalid: {violation}"),
            PlanProblem::ReplaceNonexistent(path) => format!("replace nonexistent: {path}"),
        })
        .collect();
    lines.extend(verdict.tolerated.iter().map(|violation| format!("tolerated: {violation}")));
    lines.extend(verdict.replace_paths.iter().map(|path| format!("replace: {path}")));
    expect.assert_eq(&lines.join("\n"));
}

#[test]
fn plans_may_fill_in_only_what_the_configuration_leaves_open() {
    let prior = r#"{"id":"i-1","name":"a","size":1}"#;
    check_planned(prior, r#"{"name":"b"}"#, r#"{"id":"i-1","name":"b","size":1}"#, &[], false, expect![""]);
    check_planned(
        prior,
        r#"{"name":"b"}"#,
        r#"{"id":"i-1","name":"c","size":1}"#,
        &[root().attr("name")],
        false,
        expect![[r#"
            invalid: .name: planned value cty.StringVal("c") does not match config value cty.StringVal("b") nor prior value cty.StringVal("a")
            replace: .name"#]],
    );
    // The legacy SDK type system gets away with it: Terraform only logs it.
    check_planned(
        prior,
        r#"{"name":"b"}"#,
        r#"{"id":"i-1","name":"c","size":1}"#,
        &[],
        true,
        expect![[
            r#"tolerated: .name: planned value cty.StringVal("c") does not match config value cty.StringVal("b") nor prior value cty.StringVal("a")"#
        ]],
    );
}

#[test]
fn plans_hold_no_write_only_values_and_replace_only_real_paths() {
    let prior = r#"{"id":"i-1","name":"a"}"#;
    check_planned(
        prior,
        r#"{"name":"a","password":"hunter2"}"#,
        r#"{"id":"i-1","name":"a","password":"hunter2"}"#,
        &[root().attr("no_such_attribute")],
        true,
        expect![[r#"
            write-only planned: password
            replace nonexistent: .no_such_attribute"#]],
    );
}

#[track_caller]
fn check_apply_result(planned: &str, new_state: &str, outcomes: &[ApplyOutcome], expect: Expect) {
    let block = schema(SIMPLE);
    let ty = block.implied_type();
    let mut lines = Vec::new();
    for outcome in outcomes {
        let verdict = check_apply(&block, &val(&ty, planned), val(&ty, new_state), *outcome);
        lines.push(format!("{}: state {}", outcome_name(outcome), show(&verdict.new_state)));
        lines.extend(verdict.problems.iter().map(|problem| match problem {
            ApplyProblem::NullAfterApply => "  null after apply".to_owned(),
            ApplyProblem::NonNullAfterDelete => "  non-null after delete".to_owned(),
            ApplyProblem::UnknownAfterApply(path) => format!("  unknown after apply: {path}"),
            ApplyProblem::WriteOnlyReturned(name) => format!("  write-only returned: {name}"),
            ApplyProblem::Inconsistent(violation) => format!("  inconsistent: {violation}"),
            ApplyProblem::Interrupted => "  interrupted".to_owned(),
        }));
        lines.extend(verdict.tolerated.iter().map(|violation| format!("  tolerated: {violation}")));
    }
    expect.assert_eq(&lines.join("\n"));
}

fn outcome_name(outcome: &ApplyOutcome) -> &'static str {
    match *outcome {
        OK => "ok",
        FAILED => "failed",
        INTERRUPTED => "interrupted",
        LEGACY => "legacy",
        INTERRUPTED_FAILED => "interrupted, failed",
        _ => "other",
    }
}

const OK: ApplyOutcome = ApplyOutcome { provider_errors: false, interrupted: false, legacy_type_system: false };
const FAILED: ApplyOutcome = ApplyOutcome { provider_errors: true, interrupted: false, legacy_type_system: false };
const INTERRUPTED: ApplyOutcome = ApplyOutcome { provider_errors: false, interrupted: true, legacy_type_system: false };
const LEGACY: ApplyOutcome = ApplyOutcome { provider_errors: false, interrupted: false, legacy_type_system: true };
const INTERRUPTED_FAILED: ApplyOutcome =
    ApplyOutcome { provider_errors: true, interrupted: true, legacy_type_system: false };

#[test]
fn an_interrupted_apply_that_finished_is_a_success() {
    // The stop came as the provider finished: a create that answers its object without an
    // error is saved whole (Terraform does not taint it); one that answers an error is the
    // interruption's failure.
    check_apply_result(
        r#"{"id":"?","name":"a"}"#,
        r#"{"id":"i-1","name":"a"}"#,
        &[INTERRUPTED, INTERRUPTED_FAILED],
        expect![[r#"
            interrupted: state {"id":"i-1","ids":null,"name":"a","password":null,"size":null,"tags":null}
            interrupted, failed: state {"id":"i-1","ids":null,"name":"a","password":null,"size":null,"tags":null}
              interrupted"#]],
    );
    // A delete that finished answers null; one that answers the object did not.
    check_apply_result("null", "null", &[INTERRUPTED], expect!["interrupted: state null"]);
    check_apply_result(
        "null",
        r#"{"id":"i-1","name":"a"}"#,
        &[INTERRUPTED],
        expect![[r#"
            interrupted: state {"id":"i-1","ids":null,"name":"a","password":null,"size":null,"tags":null}
              interrupted"#]],
    );
}

#[test]
fn apply_fills_in_what_the_plan_left_unknown() {
    check_apply_result(
        r#"{"id":"?","name":"a"}"#,
        r#"{"id":"i-1","name":"a"}"#,
        &[OK],
        expect![[r#"ok: state {"id":"i-1","ids":null,"name":"a","password":null,"size":null,"tags":null}"#]],
    );
}

#[test]
fn apply_must_keep_known_planned_values_unless_legacy() {
    // The legacy SDK is tolerated; a provider that reported errors may return what it has,
    // with no consistency check.
    check_apply_result(
        r#"{"id":"?","name":"a"}"#,
        r#"{"id":"i-1","name":"b"}"#,
        &[OK, LEGACY, FAILED],
        expect![[r#"
            ok: state {"id":"i-1","ids":null,"name":"b","password":null,"size":null,"tags":null}
              inconsistent: .name: was cty.StringVal("a"), but now cty.StringVal("b")
            legacy: state {"id":"i-1","ids":null,"name":"b","password":null,"size":null,"tags":null}
              tolerated: .name: was cty.StringVal("a"), but now cty.StringVal("b")
            failed: state {"id":"i-1","ids":null,"name":"b","password":null,"size":null,"tags":null}"#]],
    );
}

#[test]
fn apply_leaves_no_unknowns_and_no_write_only_values() {
    // Unknowns are saved as null, and the consistency check is skipped (it would only
    // repeat them).
    check_apply_result(
        r#"{"id":"?","name":"a","size":"?"}"#,
        r#"{"id":"i-1","name":"b","size":"?"}"#,
        &[OK],
        expect![[r#"
            ok: state {"id":"i-1","ids":null,"name":"b","password":null,"size":null,"tags":null}
              unknown after apply: .size"#]],
    );
    check_apply_result(
        r#"{"id":"?","name":"a"}"#,
        r#"{"id":"i-1","name":"a","password":"hunter2"}"#,
        &[OK],
        expect![[r#"
            ok: state {"id":"i-1","ids":null,"name":"a","password":"hunter2","size":null,"tags":null}
              write-only returned: password
              inconsistent: .password: was null, but now cty.StringVal("hunter2")"#]],
    );
}

#[test]
fn apply_null_results() {
    // A create that returns nothing, and says nothing about why; with an error, or after an
    // interruption, no object is the expected answer.
    check_apply_result(
        r#"{"id":"?","name":"a"}"#,
        "null",
        &[OK, FAILED, INTERRUPTED],
        expect![[r#"
        ok: state null
          null after apply
        failed: state null
        interrupted: state null
          interrupted"#]],
    );
    // A delete plans null and must get null (an error excuses what remains).
    check_apply_result("null", "null", &[OK], expect!["ok: state null"]);
    check_apply_result(
        "null",
        r#"{"id":"i-1","name":"a"}"#,
        &[OK, FAILED],
        expect![[r#"
        ok: state {"id":"i-1","ids":null,"name":"a","password":null,"size":null,"tags":null}
          non-null after delete
        failed: state {"id":"i-1","ids":null,"name":"a","password":null,"size":null,"tags":null}"#]],
    );
}

#[track_caller]
fn check_final_plan(earlier: [&str; 3], prior: &str, config: &str, planned: &str, expect: Expect) {
    let block = schema(SIMPLE);
    let ty = block.implied_type();
    let [earlier_prior, earlier_config, earlier_planned] = earlier;
    let earlier = EarlierPlan {
        prior: val(&ty, earlier_prior),
        config: val(&ty, earlier_config),
        planned: val(&ty, earlier_planned),
        private: Vec::new(),
    };
    let violations = final_plan_violations(&block, &earlier, &val(&ty, prior), &val(&ty, config), &val(&ty, planned));
    expect.assert_eq(&violations.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"));
}

#[test]
fn final_plan_may_only_fill_in_unknowns() {
    let prior = r#"{"id":"i-1","name":"a","size":1}"#;
    let config = r#"{"name":"b"}"#;
    let earlier = [prior, config, r#"{"id":"i-1","name":"b","size":"?"}"#];
    check_final_plan(earlier, prior, config, r#"{"id":"i-1","name":"b","size":2}"#, expect![""]);
    check_final_plan(
        earlier,
        prior,
        config,
        r#"{"id":"i-2","name":"b","size":2}"#,
        expect![[r#".id: was cty.StringVal("i-1"), but now cty.StringVal("i-2")"#]],
    );
}

#[test]
fn final_plan_of_another_request_is_not_compared() {
    let prior = r#"{"id":"i-1","name":"a","size":1}"#;
    let earlier = [prior, r#"{"name":"b"}"#, r#"{"id":"i-1","name":"b","size":1}"#];
    // Another configuration (the engine skipped Diff, or Update filled in a timeout).
    check_final_plan(earlier, prior, r#"{"name":"c"}"#, r#"{"id":"i-1","name":"c","size":1}"#, expect![""]);
    // Another prior state.
    check_final_plan(
        earlier,
        r#"{"id":"i-1","name":"a","size":5}"#,
        r#"{"name":"b"}"#,
        r#"{"id":"i-1","name":"b","size":5}"#,
        expect![""],
    );
    // The same configuration with unknowns since known is the same request.
    let earlier = [prior, r#"{"name":"?"}"#, r#"{"id":"i-1","name":"?","size":1}"#];
    check_final_plan(
        earlier,
        prior,
        r#"{"name":"b"}"#,
        r#"{"id":"i-1","name":"b","size":7}"#,
        expect![
            "\
            .size: was cty.NumberIntVal(1), but now cty.NumberIntVal(7)"
        ],
    );
}

#[test]
fn destroy_plans_must_plan_null() {
    let ty = schema(SIMPLE).implied_type();
    let null = Value::null(ty.clone());
    let object = val(&ty, r#"{"id":"i-1","name":"a"}"#);
    let garbage = cty::msgpack::decode(&[0xc1], &ty).expect_err("0xc1 is never valid msgpack");
    let cases: [(&str, Result<&Value, &cty::Error>); 3] =
        [("null", Ok(&null)), ("object", Ok(&object)), ("undecodable", Err(&garbage))];
    let rendered: Vec<String> =
        cases.into_iter().map(|(name, planned)| format!("{name}: {:?}", destroy_plan_problem(planned))).collect();
    expect![[r#"
        null: None
        object: Some(NotNull)
        undecodable: Some(Invalid("an object is required"))"#]]
    .assert_eq(&rendered.join("\n"));
}

fn reported(severity: Severity, property: &[&str], summary: &str, detail: &str) -> Reported {
    Reported {
        severity,
        summary: summary.to_owned(),
        detail: detail.to_owned(),
        property: (!property.is_empty()).then(|| PropertyPath {
            steps: property.iter().map(|key| PropertyPathStep::Key((*key).to_owned())).collect(),
        }),
    }
}

#[test]
fn diagnostics_become_check_failures_on_their_property() {
    let errors = [
        reported(Severity::Error, &["name"], "Invalid value.", "must be lowercase"),
        reported(Severity::Error, &[], "Conflicting configuration arguments", ""),
        reported(Severity::Error, &["rules", "port"], "Missing required argument", "  "),
        reported(Severity::Error, &["region"], "Missing required argument", "region is required"),
    ];
    let show_failures = |left_out: &[String]| {
        check_failures(&errors, left_out)
            .iter()
            .map(|f| format!("{:?}: {}", f.property, f.reason))
            .collect::<Vec<_>>()
            .join("\n")
    };
    expect![[r#"
        "name": Invalid value: must be lowercase
        "": Conflicting configuration arguments
        "rules.port": Missing required argument
        "region": Missing required argument: region is required"#]]
    .assert_eq(&show_failures(&[]));
    // CheckConfig leaves missing required settings to Configure.
    expect![[r#"
        "name": Invalid value: must be lowercase
        "": Conflicting configuration arguments
        "rules.port": Missing required argument"#]]
    .assert_eq(&show_failures(&["region".to_owned()]));
}

#[track_caller]
fn check_saved_private(earlier: Option<[&str; 2]>, prior: &str, config: &str, expect: Expect) {
    let block = schema(SIMPLE);
    let ty = block.implied_type();
    let earlier = earlier.map(|[prior, config]| EarlierPlan {
        prior: val(&ty, prior),
        config: val(&ty, config),
        planned: val(&ty, "null"),
        private: b"saved".to_vec(),
    });
    let sent = saved_plan_private(&block, earlier.as_ref(), &val(&ty, prior), &val(&ty, config));
    expect.assert_eq(&String::from_utf8_lossy(sent));
}

#[test]
fn the_saved_plans_private_bytes_go_back_only_with_the_same_request() {
    let prior = r#"{"id":"i-1","name":"a"}"#;
    let config = r#"{"name":"b"}"#;
    // Diff planned this very update: its bytes go back.
    check_saved_private(Some([prior, config]), prior, config, expect!["saved"]);
    // A value unknown at Diff and known now is still the same request.
    check_saved_private(Some([prior, r#"{"name":"?"}"#]), prior, config, expect!["saved"]);
    // No Diff before (a create, or an engine that skipped it): nothing.
    check_saved_private(None, prior, config, expect![""]);
    // A create has no saved plan, even if one was cached for the URN.
    check_saved_private(Some(["null", config]), "null", config, expect![""]);
    // Diff planned another configuration or prior state: its bytes are not this plan's.
    check_saved_private(Some([prior, r#"{"name":"c"}"#]), prior, config, expect![""]);
    check_saved_private(Some([r#"{"id":"i-1","name":"z"}"#, config]), prior, config, expect![""]);
}

#[test]
fn each_message_goes_where_terraform_sends_it() {
    // (message, where Terraform core sends it, and where in Terraform that is decided)
    let table = [
        // internal/terraform/node_resource_abstract_instance.go, plan(): the provider's
        // diagnostics are appended to the plan's, which the UI prints.
        (Message::ProviderWarning, Audience::User),
        // The same plan(): a deferred change is recorded in the plan and rendered by the UI
        // ("... was deferred").
        (Message::Deferred, Audience::User),
        // The same plan(): for `LegacyTypeSystem` providers, `log.Printf("[WARN] Provider %q
        // produced an invalid plan for %s, but we are tolerating it because it is using the
        // legacy plugin SDK. ...")` instead of the "Provider produced invalid plan" error.
        (Message::LegacyInvalidPlan, Audience::Log),
        // apply(): `log.Printf("[WARN] Provider %q produced an unexpected new value for %s,
        // but we are tolerating it because it is using the legacy plugin SDK. ...")` instead
        // of "Provider produced inconsistent result after apply".
        (Message::LegacyUnexpectedNewValue, Audience::Log),
    ];
    for (message, expected) in table {
        assert_eq!(audience(message), expected, "{message:?}");
    }
}
