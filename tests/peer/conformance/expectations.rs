//! Every expectation of the Go implementation's own tests this tier runs, and the form in which
//! ours is asserted to meet it: the one place that says which expectations ours meets
//! strictly, which it meets only in a form that differs from Go's (each with the difference
//! leaf by leaf, what it is, and where it is documented) and which cannot run here, and why.
//!
//! A fix that makes ours meet a golden fails its test here ("it now meets its golden
//! strictly"): the entry then becomes `Strict`. A difference kept on purpose names the table
//! of deliberate differences (`docs/go-differences.md`) in `doc` once that table lists it.

/// One leaf where ours differs from the golden: a JSON pointer into the answer (`#order` for a
/// schema whose values are equal but whose keys are in another order) and our value there, as
/// JSON text (`None`: absent). The golden's value is the golden's, read at test time: the
/// goldens are never copied into the project.
pub struct Change {
    pub path: &'static str,
    pub ours: Option<&'static str>,
}

pub enum Form {
    /// Ours answers exactly what the golden holds, compared as the Go test compares.
    Strict,
    /// Ours answers the golden with exactly these leaves changed.
    Differs {
        changes: &'static [Change],
        /// What differs, in a sentence.
        what: &'static str,
        /// The table that documents the difference as deliberate, once it does; `None`: not
        /// (yet) documented, a difference to fix or to document.
        doc: Option<&'static str>,
    },
    /// Ours answers the golden with `count` differences: each of `changes`, and the rest at
    /// leaves whose JSON pointer ends with one of `leaves` (a schema whose descriptions all
    /// differ, say), their values not listed.
    DiffersInMany {
        leaves: &'static [&'static str],
        changes: &'static [Change],
        count: usize,
        what: &'static str,
        doc: Option<&'static str>,
    },
    /// Cannot run here, and why (printed for each such expectation).
    NotRun(&'static str),
}

pub struct Expectation {
    /// The Go test (`TestPrimitiveTypes`).
    pub test: &'static str,
    /// The expectation within it: its subtest or golden (`create(preview)`).
    pub name: &'static str,
    pub form: Form,
}

const fn strict(test: &'static str, name: &'static str) -> Expectation {
    Expectation { test, name, form: Form::Strict }
}

const fn not_run(test: &'static str, name: &'static str, reason: &'static str) -> Expectation {
    Expectation { test, name, form: Form::NotRun(reason) }
}

/// An expectation ours meets only with `changes`; `what` says what differs. Not yet in the
/// table of deliberate differences: when `docs/go-differences.md` lists it, its `doc` names
/// that table.
#[allow(dead_code)] // Every difference found so far is decided; the next one starts here.
const fn differs(
    test: &'static str,
    name: &'static str,
    changes: &'static [Change],
    what: &'static str,
) -> Expectation {
    Expectation { test, name, form: Form::Differs { changes, what, doc: None } }
}

/// An expectation ours meets with `changes` on purpose: a row of `docs/go-differences.md`.
const fn deliberate(
    test: &'static str,
    name: &'static str,
    changes: &'static [Change],
    what: &'static str,
) -> Expectation {
    Expectation { test, name, form: Form::Differs { changes, what, doc: Some(DOC) } }
}

/// The table of deliberate differences.
const DOC: &str = "docs/go-differences.md";

const fn change(path: &'static str, ours: Option<&'static str>) -> Change {
    Change { path, ours }
}

/// The module proxy refuses these providers at the versions the goldens name.
const REFUSED_RANDOM_330: &str = "hashicorp/random 3.3.0 is refused by the Go module proxy (tag v3.3.0 = 96bc479ca664)";
const REFUSED_B2: &str = "Backblaze/b2 0.8.9 is refused by the Go module proxy";
const REFUSED_BUNNYNET: &str = "BunnyWay/bunnynet 0.5.1 is refused by the Go module proxy";
const REFUSED_ALZ: &str = "Azure/alz 0.11.1 is refused by the Go module proxy";

pub const EXPECTATIONS: &[Expectation] = &[
    // --- TestPrimitiveTypes (dynamic/testdata/TestPrimitiveTypes/*.golden, pfprovider) ---
    strict("TestPrimitiveTypes", "parameterize"),
    strict("TestPrimitiveTypes", "check"),
    // differs from Go: testdata/TestPrimitiveTypes/create(preview).golden: typed unknown sentinels
    deliberate(
        "TestPrimitiveTypes",
        "create(preview)",
        &[
            change(r#"/properties/attrBoolComputed"#, Some(r#""1c4a061d-8072-4f0a-a4cb-0ff528b18fe7""#)),
            change(r#"/properties/attrIntComputed"#, Some(r#""3eeb2bf0-c639-47a8-9e75-3b44932eb421""#)),
            change(r#"/properties/attrNumberComputed"#, Some(r#""3eeb2bf0-c639-47a8-9e75-3b44932eb421""#)),
        ],
        "unknown computed values: ours sends Pulumi's typed unknown sentinels (bool, number), Go the string sentinel for every type; the engine reads each as unknown",
    ),
    // differs from Go: testdata/TestPrimitiveTypes/create.golden: no __pulumi_raw_state_delta
    deliberate(
        "TestPrimitiveTypes",
        "create",
        &[change(r#"/properties/__pulumi_raw_state_delta"#, None)],
        "no __pulumi_raw_state_delta: Go records the null write-only attribute attrStringWriteOnly in it",
    ),
    strict("TestPrimitiveTypes", "diff(none)"),
    // differs from Go: testdata/TestPrimitiveTypes/diff(some).golden: a detailed diff besides
    deliberate(
        "TestPrimitiveTypes",
        "diff(some)",
        &[
            change(
                r#"/detailedDiff"#,
                Some(
                    r#"{"attrNumberRequired":{"kind":"DELETE"},"attrStringDefaultOverridden":{},"attrStringDefault":{},"attrStringRequired":{"kind":"UPDATE"}}"#,
                ),
            ),
            change(r#"/hasDetailedDiff"#, Some(r#"true"#)),
        ],
        "ours also answers a detailed diff (hasDetailedDiff, detailedDiff); Go answers only changes and diffs",
    ),
    // differs from Go: testdata/TestPrimitiveTypes/diff(all).golden: a detailed diff besides
    deliberate(
        "TestPrimitiveTypes",
        "diff(all)",
        &[
            change(
                r#"/detailedDiff"#,
                Some(
                    r#"{"attrStringDefaultOverridden":{},"attrBoolRequired":{"kind":"UPDATE"},"attrNumberRequired":{"kind":"UPDATE"},"attrIntRequired":{"kind":"UPDATE"},"attrStringDefault":{},"attrStringRequired":{"kind":"UPDATE"}}"#,
                ),
            ),
            change(r#"/hasDetailedDiff"#, Some(r#"true"#)),
        ],
        "ours also answers a detailed diff (hasDetailedDiff, detailedDiff); Go answers only changes and diffs",
    ),
    strict("TestPrimitiveTypes", "delete"),
    // differs from Go: testdata/TestPrimitiveTypes/update.golden: Terraform core's apply check fails the update
    deliberate(
        "TestPrimitiveTypes",
        "update",
        &[
            change(
                r#"/<error>"#,
                Some(
                    r#""Unknown: Provider produced inconsistent result after apply: When applying changes to urn:pulumi:test::test::pfprovider:index/primitive:Primitive::prim, provider \"pfprovider\" produced an unexpected new value: property attrBoolRequired (Terraform pfprovider_primitive.attr_bool_required): was cty.False, but now cty.True. This is a bug in the provider, which should be reported in the provider's own issue tracker.; Provider produced inconsistent result after apply: When applying changes to urn:pulumi:test::test::pfprovider:index/primitive:Primitive::prim, provider \"pfprovider\" produced an unexpected new value: property attrIntComputed (Terraform pfprovider_primitive.attr_int_computed): was null, but now cty.NumberIntVal(256). This is a bug in the provider, which should be reported in the provider's own issue tracker.; Provider produced inconsistent result after apply: When applying changes to urn:pulumi:test::test::pfprovider:index/primitive:Primitive::prim, provider \"pfprovider\" produced an unexpected new value: property attrStringComputed (Terraform pfprovider_primitive.attr_string_computed): was cty.StringVal(\"t\"), but now null. This is a bug in the provider, which should be reported in the provider's own issue tracker.""#,
                ),
            ),
            change(r#"/properties"#, None),
        ],
        "ours refuses the provider's new state as Terraform core does (\"Provider produced inconsistent result after apply\"): attrBoolRequired planned false, applied true; attrIntComputed planned null, applied 256; attrStringComputed planned \"t\", applied null. Go stores it",
    ),
    // differs from Go: testdata/TestPrimitiveTypes/read.golden: no __pulumi_raw_state_delta
    deliberate(
        "TestPrimitiveTypes",
        "read",
        &[change(r#"/properties/__pulumi_raw_state_delta"#, None)],
        "no __pulumi_raw_state_delta (Go records the null attributes in it)",
    ),
    // differs from Go: testdata/TestPrimitiveTypes/import.golden: no __pulumi_raw_state_delta
    deliberate(
        "TestPrimitiveTypes",
        "import",
        &[change(r#"/properties/__pulumi_raw_state_delta"#, None)],
        "no __pulumi_raw_state_delta (Go records the null attributes in it)",
    ),
    // --- TestDynamicConfigure, TestDynamicProviderFunction, TestDynamicCheckConfig (inline goldens) ---
    strict("TestDynamicConfigure", "parameterize"),
    // differs from Go: provider_test.go, TestDynamicConfigure's inline Configure golden: acceptSecrets
    deliberate(
        "TestDynamicConfigure",
        "configure",
        &[change(r#"/acceptSecrets"#, Some(r#"true"#))],
        "Configure answers acceptSecrets: true (Go: false)",
    ),
    strict("TestDynamicConfigure", "invoke"),
    strict("TestDynamicProviderFunction", "parameterize"),
    strict("TestDynamicProviderFunction", "invoke"),
    strict("TestDynamicCheckConfig", "parameterize"),
    strict("TestDynamicCheckConfig", "check-config"),
    strict("TestDynamicCheckConfig", "check-config (invalid)"),
    strict("TestDynamicCheckConfig", "json-encoded-nested-config"),
    // --- schema goldens ---
    // differs from Go: testdata/TestSchemaGeneration/unparameterized.golden: each implementation's own version
    deliberate(
        "TestSchemaGeneration",
        "unparameterized",
        &[change(r#"/version"#, Some(r#""100.0.0""#))],
        "the plugin's own version (Go's golden holds its development build's v0.0.0-dev)",
    ),
    not_run("TestSchemaGeneration", "hashicorp/random-3.3.0", REFUSED_RANDOM_330),
    not_run("TestSchemaGeneration", "Backblaze/b2-0.8.9", REFUSED_B2),
    not_run("TestSchemaGeneration", "BunnyWay/bunnynet-0.5.1", REFUSED_BUNNYNET),
    not_run("TestSchemaGeneration", "Azure/alz-0.11.1", REFUSED_ALZ),
    // differs from Go: testdata/TestSchemaGenerationFullDocs/hashicorp/random-3.6.3.golden: no registry docs
    Expectation {
        test: "TestSchemaGenerationFullDocs",
        name: "hashicorp/random-3.6.3",
        form: Form::DiffersInMany {
            leaves: &["/description"],
            changes: &[change("/parameterization/baseProvider/version", Some(r#""100.0.0""#))],
            count: 157,
            what: "--fullDocs is accepted and ignored: 145 descriptions lack the trailing newline the registry docs end them with, 11 resource descriptions lack the docs' Example Usage (a code chooser) and Import sections; and the base provider is our plugin's version",
            doc: Some(DOC),
        },
    },
    // differs from Go: testdata/TestSchemaGenerationIndexDocOutDir/with_full_docs.golden: no _index.md
    deliberate(
        "TestSchemaGenerationIndexDocOutDir",
        "with full docs",
        &[change(r#"/_index.md"#, Some(r#"null"#))],
        "--indexDocOutDir is accepted and ignored: no _index.md is written",
    ),
    // differs from Go: testdata/TestSchemaGenerationIndexDocOutDir/index_file_only.golden: no _index.md
    deliberate(
        "TestSchemaGenerationIndexDocOutDir",
        "index file only",
        &[change(r#"/_index.md"#, Some(r#"null"#))],
        "--indexDocOutDir is accepted and ignored: no _index.md is written",
    ),
    // --- SDK providers (goldens in testdata/ and inline) ---
    strict("TestSDKv1Provider", "parameterize"),
    strict("TestSDKv1Provider", "configure"),
    strict("TestSDKv1Provider", "delete"),
    strict("TestConflictsWithNamePrefixOnly", "parameterize"),
    strict("TestConflictsWithNamePrefixOnly", "check"),
    strict("TestConflictsWithNamePrefixOnly", "create"),
    strict("TestConflictsWithBothUserSpecified", "parameterize"),
    // differs from Go: conflicting_test.go, the two failure texts TestConflictsWithBothUserSpecified expects: Terraform's text, no path
    deliberate(
        "TestConflictsWithBothUserSpecified",
        "check",
        &[
            change(r#"/0"#, Some(r#""Conflicting configuration arguments: \"name\": conflicts with name_prefix""#)),
            change(r#"/1"#, Some(r#""Conflicting configuration arguments: \"name_prefix\": conflicts with name""#)),
        ],
        "ConflictsWith failures: ours has Terraform's summary with a colon and no path; Go's names the property path (\"Examine values at 'lg.name'\")",
    ),
    not_run("TestRandomCreate", "parameterize", REFUSED_RANDOM_330),
    strict("TestRandomCreate", "preview"),
    strict("TestRandomCreate", "up/3"),
    strict("TestRandomCreate", "up/8"),
    strict("TestRandomCreate", "up/12"),
    // --- dynamic/internal/shim/run/reattach_test.go ---
    strict("reattach_test.go", "TestNamedProviderReattach"),
    strict("reattach_test.go", "TestNamedProviderReattachProtocol5"),
    strict("reattach_test.go", "TestNamedProviderReattachNormalizesAddresses"),
    strict("reattach_test.go", "TestNamedProviderReattachInvalidEnv"),
    strict("reattach_test.go", "TestNamedProviderReattachMalformedSiblingKey"),
    strict("reattach_test.go", "TestReattachProviderRejectsUnsupportedEntries/unsupported network"),
    strict("reattach_test.go", "TestReattachProviderRejectsUnsupportedEntries/unsupported protocol"),
    strict("reattach_test.go", "TestReattachProviderRejectsUnsupportedEntries/empty protocol"),
    // --- dynamic/log_replay_test.go ---
    // differs from Go: testdata/TestConfigInDestroy/logs.json, the recorded requests: UpgradeResourceState, planned_private, provider_meta
    deliberate(
        "TestConfigInDestroy",
        "delete",
        &[change(
            r#"/mismatches"#,
            Some(
                r#"[{"call":"UpgradeResourceState#1","field":"(call)","logged":"(none left)","got":"{\"rawState\":{\"json\":\"eyJkZXNjcmlwdGlvbiI6IiIsImRpc3BsYXlfb3JkZXIiOjAsImRuc19yZXNvbHZlcl9pZCI6MCwiZWRpdF9kYXRlIjoiIiwiaWQiOiIxMiIsIm1hc3Rlcl9zZWN0aW9uX2lkIjowLCJuYW1lIjoiU2VjdGlvbiBOYW1lIiwicGVybWlzc2lvbnMiOiIiLCJzZWN0aW9uX2lkIjoxMiwic2hvd19zdXBlcm5ldF9vbmx5IjpmYWxzZSwic2hvd192bGFuX2luX3N1Ym5ldF9saXN0aW5nIjpmYWxzZSwic2hvd192cmZfaW5fc3VibmV0X2xpc3RpbmciOmZhbHNlLCJzdHJpY3RfbW9kZSI6dHJ1ZSwic3VibmV0X29yZGVyaW5nIjoiIn0=\"},\"typeName\":\"phpipam_section\"}"},{"call":"ApplyResourceChange#1","field":"planned_private","logged":"(unset)","got":"{\"plannedPrivate\":\"bnVsbA==\"}"},{"call":"ApplyResourceChange#1","field":"provider_meta","logged":"(unset)","got":"{\"providerMeta\":{\"msgpack\":\"wA==\"}}"}]"#,
            ),
        )],
        "ours upgrades the prior state first (UpgradeResourceState, as Terraform core does; not in Go's log), and destroy's ApplyResourceChange carries planned_private and a null provider_meta (Terraform's form; Go sends neither); its config is null, as Go's",
    ),
    // differs from Go: testdata/TestLogReplayProvider/grpc_log_random.json, the recorded requests: deferral_allowed
    deliberate(
        "TestLogReplayProviderWithProgram",
        "up",
        &[change(
            r#"/mismatches"#,
            Some(
                r#"[{"call":"ConfigureProvider#1","field":"client_capabilities.deferral_allowed","logged":"(unset)","got":"{\"deferralAllowed\":true}"},{"call":"ValidateResourceConfig#1","field":"client_capabilities.deferral_allowed","logged":"(unset)","got":"{\"deferralAllowed\":true}"},{"call":"PlanResourceChange#1","field":"client_capabilities.deferral_allowed","logged":"(unset)","got":"{\"deferralAllowed\":true}"},{"call":"ConfigureProvider#1","field":"client_capabilities.deferral_allowed","logged":"(unset)","got":"{\"deferralAllowed\":true}"},{"call":"ValidateResourceConfig#1","field":"client_capabilities.deferral_allowed","logged":"(unset)","got":"{\"deferralAllowed\":true}"},{"call":"PlanResourceChange#1","field":"client_capabilities.deferral_allowed","logged":"(unset)","got":"{\"deferralAllowed\":true}"}]"#,
            ),
        )],
        "ours offers deferral (client_capabilities.deferral_allowed: true) in ConfigureProvider, ValidateResourceConfig and PlanResourceChange; Go does not. The pet is the recorded one",
    ),
];

/// The expectation `name` of the Go test `test`; a test that checks one this table lacks fails.
pub fn expectation(test: &str, name: &str) -> &'static Expectation {
    EXPECTATIONS
        .iter()
        .find(|e| e.test == test && e.name == name)
        .unwrap_or_else(|| panic!("{test}/{name} is not in tests/peer/conformance/expectations.rs"))
}
