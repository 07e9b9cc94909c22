//! Bad input through the real Pulumi CLI: an invalid property, a wrong type, a missing
//! required property, a missing required config value and a failing create. Each case runs
//! with both implementations; the CLI's error text must carry what each one says (for the Go
//! implementation, what it says today; for ours, the resource and the property or cause), and
//! the stack stays usable: refresh and destroy work afterwards and leave nothing behind.
//!
//! Needs `scripts/test-tools.sh providers pulumi anchor`.

use crate::common;

use common::Implementation;
use common::pulumi::Workspace;
use common::versions;

/// One bad program: which example it starts from, how it is broken, and the text each
/// implementation's failed `pulumi up` must contain.
struct BadInput {
    example: &'static str,
    provider: (&'static str, &'static str),
    /// Breaks the program (or its config) before `pulumi up`.
    break_it: fn(&mut Workspace) -> anyhow::Result<()>,
    go_says: &'static [&'static str],
    ours_says: &'static [&'static str],
}

fn set_files_dir(ws: &mut Workspace) -> anyhow::Result<()> {
    let files = ws.root().join("files");
    std::fs::create_dir_all(&files)?;
    std::fs::write(files.join("input.txt"), "from before\n")?;
    ws.config_set("dir", files.to_str().expect("a UTF-8 path"))
}

const INVALID_PROPERTY: BadInput = BadInput {
    example: "random",
    provider: ("random", versions::RANDOM),
    break_it: |ws| ws.edit_program("      prefix: e2e\n", "      prefix: e2e\n      bogusProperty: 1\n"),
    // pulumi-yaml rejects it with the package schema, before any provider call.
    go_says: &["Property bogusProperty does not exist on 'random:index/pet:Pet'", "line 14"],
    ours_says: &["Property bogusProperty does not exist on 'random:index/pet:Pet'", "line 14"],
};

const WRONG_TYPE: BadInput = BadInput {
    example: "random",
    provider: ("random", versions::RANDOM),
    break_it: |ws| ws.edit_program("      length: 20\n", "      length: twenty\n"),
    // pulumi-yaml rejects it with the package schema, before any provider call.
    go_says: &["random:index/password:Password", "length: Cannot assign type 'string' to type 'number'"],
    ours_says: &["random:index/password:Password", "length: Cannot assign type 'string' to type 'number'"],
};

const PROVIDER_REJECTS_A_VALUE: BadInput = BadInput {
    example: "random",
    provider: ("random", versions::RANDOM),
    // Well-typed, so only the Terraform provider's own validation catches it.
    break_it: |ws| ws.edit_program("      length: 20\n", "      length: 0\n"),
    go_says: &[
        "random:index/password:Password resource 'password' has a problem: Invalid Attribute Value.",
        "Attribute length value must be at least 1, got: 0.",
        "Examine values at 'password.length'.",
    ],
    ours_says: &["password", "length", "must be at least 1, got: 0"],
};

const MISSING_REQUIRED_PROPERTY: BadInput = BadInput {
    example: "local",
    provider: ("local", versions::LOCAL),
    break_it: |ws| {
        set_files_dir(ws)?;
        ws.edit_program("      filename: ${dir}/greeting.txt\n", "")
    },
    // pulumi-yaml rejects it with the package schema, before any provider call.
    go_says: &["local:index/file:File", "filename: Missing required property 'filename'"],
    ours_says: &["local:index/file:File", "filename: Missing required property 'filename'"],
};

const MISSING_REQUIRED_CONFIG: BadInput = BadInput {
    example: "local",
    provider: ("local", versions::LOCAL),
    // The `dir` config value is never set.
    break_it: |_| Ok(()),
    go_says: &["Stack 'dev' is missing configuration value 'dir'"],
    ours_says: &["Stack 'dev' is missing configuration value 'dir'"],
};

const FAILING_CREATE: BadInput = BadInput {
    example: "local",
    provider: ("local", versions::LOCAL),
    break_it: |ws| {
        set_files_dir(ws)?;
        // The file's directory would have to be made under /dev/null, which is not a directory.
        ws.edit_program("      filename: ${dir}/greeting.txt\n", "      filename: /dev/null/greeting.txt\n")
    },
    go_says: &[
        "local:index:File (greetingFile)",
        "Create local file error",
        "open /dev/null/greeting.txt: not a directory",
    ],
    ours_says: &["greetingFile", "/dev/null/greeting.txt: not a directory"],
};

fn run(case: BadInput, implementation: Implementation) -> anyhow::Result<()> {
    let binary = common::real_provider(case.provider.0, case.provider.1)?;
    let mut ws = Workspace::new(case.example, implementation)?;
    ws.copy_example(case.example)?;
    ws.package_add(&[binary.to_str().expect("a UTF-8 path")])?;
    ws.stack_init()?;
    (case.break_it)(&mut ws)?;

    let failed = ws.up_fails()?;
    let text = failed.all_text();
    eprintln!("{}: {failed}", implementation.label());
    let expected = match implementation {
        Implementation::Go => case.go_says,
        Implementation::Ours => case.ours_says,
    };
    for needle in expected {
        assert!(text.contains(needle), "the error text lacks {needle:?}:\n{failed}");
    }

    // The state stays consistent: refresh and destroy work and leave nothing behind.
    ws.refresh()?;
    ws.destroy()?;
    assert_eq!(ws.managed_resources()?, Vec::<serde_json::Value>::new());
    Ok(())
}

common::for_both_implementations!(
    invalid_property => run(INVALID_PROPERTY),
    wrong_type => run(WRONG_TYPE),
    provider_rejects_a_value => run(PROVIDER_REJECTS_A_VALUE),
    missing_required_property => run(MISSING_REQUIRED_PROPERTY),
    missing_required_config => run(MISSING_REQUIRED_CONFIG),
    failing_create => run(FAILING_CREATE),
);
