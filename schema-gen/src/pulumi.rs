//! The Pulumi package schema, as this crate emits it.
//!
//! These types are the serializable boundary between the translation and whoever ships the
//! schema (the provider's `GetSchema`, the CLI): [`PackageSpec`] and the specs it holds
//! ([`ResourceSpec`], [`FunctionSpec`], [`ObjectTypeSpec`], [`PropertySpec`], [`TypeSpec`]).
//! Field order follows the Go structs of `pkg/codegen/schema`, and every map is a `BTreeMap`,
//! so the JSON is deterministic and reads in the same order as schemas from the Go
//! implementation. Only the keys the translation can produce exist here; this is not a
//! general reader of Pulumi schemas.
//!
//! Architecture invariant: this module knows nothing about Terraform; it is plain data plus
//! its JSON form.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;

/// A whole Pulumi package schema.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageSpec {
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub version: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub attribution: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub repository: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub publisher: String,
    pub meta: MetadataSpec,
    pub language: LanguageSpec,
    /// Always written, even when empty, as the Go implementation does.
    pub config: ConfigSpec,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub types: BTreeMap<String, ObjectTypeSpec>,
    pub provider: ResourceSpec,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub resources: BTreeMap<String, ResourceSpec>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub functions: BTreeMap<String, FunctionSpec>,
    pub parameterization: ParameterizationSpec,
}

impl PackageSpec {
    /// Compact JSON, as `GetSchema` returns it. The same spec always gives the same bytes.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a PackageSpec holds only strings, maps and booleans")
    }

    /// Indented JSON, for golden files and humans.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a PackageSpec holds only strings, maps and booleans")
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetadataSpec {
    pub module_format: String,
}

/// The per-language sections of the package, in the (sorted) order Go writes them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LanguageSpec {
    pub csharp: CSharpLanguage,
    pub go: GoLanguage,
    pub java: JavaLanguage,
    pub nodejs: NodejsLanguage,
    pub python: PythonLanguage,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CSharpLanguage {
    pub compatibility: String,
    pub lift_single_value_method_returns: bool,
    pub respect_schema_version: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GoLanguage {
    pub import_base_path: String,
    pub root_package_name: String,
    pub lift_single_value_method_returns: bool,
    pub generate_extra_input_types: bool,
    pub respect_schema_version: bool,
}

/// Java's section: the Go implementation writes these four keys, all empty.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JavaLanguage {
    pub base_package: String,
    pub build_files: String,
    pub gradle_nexus_publish_plugin_version: String,
    pub gradle_test: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodejsLanguage {
    pub package_description: String,
    pub readme: String,
    pub compatibility: String,
    pub disable_union_output_types: bool,
    pub lift_single_value_method_returns: bool,
    pub respect_schema_version: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PythonLanguage {
    pub readme: String,
    pub compatibility: String,
    pub respect_schema_version: bool,
    pub pyproject: PyprojectSpec,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PyprojectSpec {
    pub enabled: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ConfigSpec {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub variables: BTreeMap<String, PropertySpec>,
    /// The names of required configuration variables (`defaults` in the metaschema).
    #[serde(rename = "defaults", skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParameterizationSpec {
    pub base_provider: BaseProviderSpec,
    /// Standard base64 (padded) of the parameter value bytes.
    pub parameter: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BaseProviderSpec {
    pub name: String,
    pub version: String,
}

/// A type reference: a primitive, an array, a map, or a `$ref` to a named type.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TypeSpec {
    /// `string`, `number`, `array`, ... Borrowed for the fixed names, so that the tens of
    /// thousands of properties of a big provider do not each allocate their type name.
    #[serde(rename = "type", skip_serializing_if = "str::is_empty")]
    pub ty: Cow<'static, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Box<TypeSpec>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_properties: Option<Box<TypeSpec>>,
    #[serde(rename = "$ref", skip_serializing_if = "String::is_empty")]
    pub reference: String,
}

impl TypeSpec {
    pub fn primitive(ty: &'static str) -> TypeSpec {
        TypeSpec { ty: Cow::Borrowed(ty), ..TypeSpec::default() }
    }

    pub fn array(items: TypeSpec) -> TypeSpec {
        TypeSpec { ty: Cow::Borrowed("array"), items: Some(Box::new(items)), ..TypeSpec::default() }
    }

    pub fn map(values: TypeSpec) -> TypeSpec {
        TypeSpec { ty: Cow::Borrowed("object"), additional_properties: Some(Box::new(values)), ..TypeSpec::default() }
    }

    pub fn reference(target: impl Into<String>) -> TypeSpec {
        TypeSpec { reference: target.into(), ..TypeSpec::default() }
    }

    /// `pulumi.json#/Any`: a value of any shape.
    pub fn any() -> TypeSpec {
        TypeSpec::reference("pulumi.json#/Any")
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PropertySpec {
    #[serde(flatten)]
    pub ty: TypeSpec,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub deprecation_message: String,
    #[serde(skip_serializing_if = "is_false")]
    pub secret: bool,
}

/// An object type: a named type in `types`, a state-inputs object, or function inputs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectTypeSpec {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, PropertySpec>,
    #[serde(rename = "type")]
    pub ty: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<ObjectLanguage>,
}

/// Per-language overrides of an object type. The Go implementation records which fields
/// are required when the type is used as an input or as an output, when that differs
/// from `required`; the Node.js generator reads it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ObjectLanguage {
    pub nodejs: NodejsObjectLanguage,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodejsObjectLanguage {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required_inputs: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required_outputs: Option<Vec<String>>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceSpec {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, PropertySpec>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub input_properties: BTreeMap<String, PropertySpec>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub required_inputs: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_inputs: Option<ObjectTypeSpec>,
    /// What `List` takes (`pulumi do <token> list`): present only for resources with a
    /// Terraform list resource of the same type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_inputs: Option<ObjectTypeSpec>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub deprecation_message: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub methods: BTreeMap<String, String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionSpec {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inputs: Option<FunctionInputs>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub multi_argument_inputs: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outputs: Option<FunctionOutputs>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub deprecation_message: String,
}

/// Function inputs. Data sources and provider functions use a plain object; the provider's
/// `terraformConfig` method has a `__self__` reference whose type spec is written as
/// `{"type":"ref","$ref":"#/provider"}`, which [`TypeSpec`] can say as well.
pub type FunctionInputs = ObjectTypeSpec;

/// What a function returns.
#[derive(Clone, Debug, PartialEq)]
pub enum FunctionOutputs {
    /// Data sources: an object type, written in struct order.
    Object(ObjectTypeSpec),
    /// Provider functions and methods: a return type. Go writes these through a generic
    /// map, so every key is sorted; we do the same to read alike.
    ReturnObject(ObjectTypeSpec),
    ReturnType(TypeSpec),
}

impl Serialize for FunctionOutputs {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            FunctionOutputs::Object(object) => object.serialize(serializer),
            FunctionOutputs::ReturnObject(object) => {
                sorted_json(serde_json::to_value(object).map_err(serde::ser::Error::custom)?).serialize(serializer)
            }
            FunctionOutputs::ReturnType(ty) => {
                sorted_json(serde_json::to_value(ty).map_err(serde::ser::Error::custom)?).serialize(serializer)
            }
        }
    }
}

/// Rebuilds every JSON object with its keys in sorted order. Needed because the workspace
/// enables serde_json's `preserve_order`, under which maps keep insertion order.
fn sorted_json(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => {
            let sorted: BTreeMap<String, serde_json::Value> =
                map.into_iter().map(|(k, v)| (k, sorted_json(v))).collect();
            serde_json::Value::Object(sorted.into_iter().collect())
        }
        serde_json::Value::Array(items) => serde_json::Value::Array(items.into_iter().map(sorted_json).collect()),
        other => other,
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}
