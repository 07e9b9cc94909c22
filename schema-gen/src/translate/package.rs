//! Package-level fields: description, attribution, repository, language sections and the
//! parameterization block, as the Go implementation fills them.
//!
//! Architecture invariant: only strings derived from the [`TranslateConfig`]; knows nothing
//! about resources or types.

use std::collections::BTreeMap;

use base64::Engine as _;

use super::{TranslateConfig, Warning};
use crate::pulumi::{
    BaseProviderSpec, CSharpLanguage, ConfigSpec, FunctionInputs, FunctionOutputs, FunctionSpec, GoLanguage,
    JavaLanguage, LanguageSpec, MetadataSpec, NodejsLanguage, ObjectTypeSpec, PackageSpec, ParameterizationSpec,
    PropertySpec, PyprojectSpec, PythonLanguage, ResourceSpec, TypeSpec,
};

/// The plugin every package is parameterized from.
pub const BASE_PROVIDER_NAME: &str = "terraform-provider";

const COMPATIBILITY: &str = "tfbridge20";
const MPL_URL: &str = "https://www.mozilla.org/en-US/MPL/2.0/";
/// Every module of a package is its own file: a token's module is the part before the
/// last `/`.
const MODULE_FORMAT: &str = "(.*)(?:/[^/]*)";

pub(super) fn package_spec(
    config: &TranslateConfig,
    config_spec: ConfigSpec,
    types: BTreeMap<String, ObjectTypeSpec>,
    provider: ResourceSpec,
    resources: BTreeMap<String, ResourceSpec>,
    functions: BTreeMap<String, FunctionSpec>,
    warnings: &mut Vec<Warning>,
) -> PackageSpec {
    let name = config.package_name;
    if let Err(reason) = check_package_name(name) {
        warnings.push(Warning::InvalidPackageName { name: name.to_owned(), reason });
    }
    let description = format!("A Pulumi provider dynamically bridged from {}.", config.terraform_name);

    // The Go implementation guesses the source repository from the registry namespace
    // (opentofu/registry#1337): github.com/<namespace>/terraform-provider-<type>.
    let (organization, repository, publisher) = match config.source_address {
        Some(address) => {
            let mut parts = address.rsplit('/');
            let provider_type = parts.next().unwrap_or_default();
            let namespace = parts.next().unwrap_or_default();
            (
                namespace.to_owned(),
                format!("https://github.com/{namespace}/terraform-provider-{provider_type}"),
                namespace.to_owned(),
            )
        }
        None => ("terraform-providers".to_owned(), String::new(), String::new()),
    };
    let attribution = format!(
        "This Pulumi package is based on the [`{name}` Terraform Provider](https://github.com/{organization}/terraform-provider-{name})."
    );
    let readme = readme(name, &organization, &repository);

    let major = match major_version(config.package_version) {
        Some(major) => major,
        None => {
            warnings.push(Warning::InvalidVersion { version: config.package_version.to_owned() });
            0
        }
    };
    let major_path = if major > 1 { format!("/v{major}") } else { String::new() };

    let language = LanguageSpec {
        csharp: CSharpLanguage {
            compatibility: COMPATIBILITY.to_owned(),
            lift_single_value_method_returns: true,
            respect_schema_version: true,
        },
        go: GoLanguage {
            import_base_path: format!("github.com/pulumi/pulumi-terraform-provider/sdks/go/{name}{major_path}/{name}"),
            root_package_name: name.to_owned(),
            lift_single_value_method_returns: true,
            generate_extra_input_types: true,
            respect_schema_version: true,
        },
        java: JavaLanguage {
            base_package: String::new(),
            build_files: String::new(),
            gradle_nexus_publish_plugin_version: String::new(),
            gradle_test: String::new(),
        },
        nodejs: NodejsLanguage {
            package_description: description.clone(),
            readme: readme.clone(),
            compatibility: COMPATIBILITY.to_owned(),
            disable_union_output_types: true,
            lift_single_value_method_returns: true,
            respect_schema_version: true,
        },
        python: PythonLanguage {
            readme,
            compatibility: COMPATIBILITY.to_owned(),
            respect_schema_version: true,
            pyproject: PyprojectSpec { enabled: true },
        },
    };

    PackageSpec {
        name: name.to_owned(),
        version: config.package_version.to_owned(),
        description,
        attribution,
        repository,
        publisher,
        meta: MetadataSpec { module_format: MODULE_FORMAT.to_owned() },
        language,
        config: config_spec,
        types,
        provider,
        resources,
        functions,
        parameterization: ParameterizationSpec {
            base_provider: BaseProviderSpec {
                name: BASE_PROVIDER_NAME.to_owned(),
                version: config.plugin_version.strip_prefix('v').unwrap_or(config.plugin_version).to_owned(),
            },
            parameter: base64::engine::general_purpose::STANDARD.encode(config.parameter_value),
        },
    }
}

/// The schema of the plugin itself, before Parameterize names a provider (`pulumi package
/// get-schema terraform-provider`): the base package's presentation, an empty configuration
/// and provider, and the `terraformConfig` method every parameterized provider has. The
/// fields are the Go implementation's (its `TestSchemaGeneration/unparameterized` golden),
/// but for `version`, which is each build's own.
pub fn base_package_schema(plugin_version: &str) -> serde_json::Value {
    let (token, function) = terraform_config_method(BASE_PROVIDER_NAME);
    let function = serde_json::to_value(function).expect("a FunctionSpec holds only strings, maps and booleans");
    serde_json::json!({
        "name": BASE_PROVIDER_NAME,
        "displayName": "Any Terraform Provider",
        "version": plugin_version,
        "description": "Use any Terraform provider with Pulumi",
        "keywords": ["category/utility"],
        "license": "Apache-2.0",
        "repository": "https://github.com/pulumi/pulumi-terraform-provider",
        "logoUrl": "https://raw.githubusercontent.com/pulumi/pulumi-terraform-provider/main/assets/logo.png",
        "meta": {"moduleFormat": MODULE_FORMAT},
        "config": {},
        "provider": {},
        "functions": {token: function},
    })
}

/// The README the Node.js and Python packages carry. Go picks a longer text when the
/// repository URL mentions `pulumi`.
fn readme(name: &str, organization: &str, repository: &str) -> String {
    let upstream = format!("https://github.com/{organization}/terraform-provider-{name}");
    if repository.contains("pulumi") {
        format!(
            "> This provider is a derived work of the [Terraform Provider]({upstream})\n\
             > distributed under [MPL 2.0]({MPL_URL}). If you encounter a bug or missing feature,\n\
             > first check the [`pulumi-{name}` repo]({repository}/issues); however, if that doesn't turn up anything,\n\
             > please consult the source [`terraform-provider-{name}` repo]({upstream}/issues)."
        )
    } else {
        format!(
            "> This provider is a derived work of the [Terraform Provider]({upstream})\n\
             > distributed under [MPL 2.0]({MPL_URL}). If you encounter a bug or missing feature,\n\
             > please consult the source [`terraform-provider-{name}` repo]({upstream}/issues)."
        )
    }
}

/// The major version, read tolerantly as Go's `semver.ParseTolerant` does (a leading `v`
/// and missing minor or patch are accepted).
fn major_version(version: &str) -> Option<u64> {
    let version = version.trim().strip_prefix('v').unwrap_or(version.trim());
    let core = version.split(['-', '+']).next().unwrap_or_default();
    let mut parts = core.split('.');
    let major = parts.next()?.parse().ok()?;
    if parts.any(|p| p.parse::<u64>().is_err()) {
        return None;
    }
    Some(major)
}

/// Pulumi's package name rule: `^[a-zA-Z][-a-zA-Z0-9_]*$`, and not `pulumi` or `input`.
fn check_package_name(name: &str) -> Result<(), &'static str> {
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err("it must start with a letter");
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err("it may hold only letters, digits, `-` and `_`");
    }
    if name == "pulumi" || name == "input" {
        return Err("the name is reserved");
    }
    Ok(())
}

/// `pulumi:providers:<pkg>/terraformConfig`: returns the provider's configuration with
/// Terraform names, for the Terraform-module provider.
pub(super) fn terraform_config_method(package: &str) -> (String, FunctionSpec) {
    let token = format!("pulumi:providers:{package}/terraformConfig");
    let inputs = FunctionInputs {
        properties: BTreeMap::from([(
            "__self__".to_owned(),
            PropertySpec {
                ty: TypeSpec { ty: "ref".into(), ..TypeSpec::reference("#/provider") },
                ..PropertySpec::default()
            },
        )]),
        ty: token.clone(),
        required: vec!["__self__".to_owned()],
        ..FunctionInputs::default()
    };
    let outputs = ObjectTypeSpec {
        properties: BTreeMap::from([(
            "result".to_owned(),
            PropertySpec { ty: TypeSpec::map(TypeSpec::any()), ..PropertySpec::default() },
        )]),
        ty: "object".to_owned(),
        required: vec!["result".to_owned()],
        ..ObjectTypeSpec::default()
    };
    let spec = FunctionSpec {
        description: "This function returns a Terraform config object with terraform-namecased keys,to be used with \
                      the Terraform Module Provider."
            .to_owned(),
        inputs: Some(inputs),
        outputs: Some(FunctionOutputs::ReturnObject(outputs)),
        ..FunctionSpec::default()
    };
    (token, spec)
}
