//! Resource identity (protocol 5.9/6.9): the decisions Terraform core makes about the
//! identities providers return and about stored identities, and the bridge's rule for
//! `pulumi import` by identity, as pure functions with table tests.
//!
//! - [`identity_version`]: whether a stored identity needs UpgradeResourceIdentity.
//! - [`check_identity`]: Terraform's `validateIdentityKnown`/`validateIdentity` on an
//!   identity a provider returned.
//! - [`import_key`]: whether an import ID is an ID string or an identity written as JSON,
//!   and the identity value it stands for.
//!
//! Architecture invariant: pure; the calls and their wording of problems are in `calls`.

use schema_gen::naming::property_name;
use schema_gen::tf::{IdentitySchema, Type};

use crate::cty::{self, Value};

/// What a stored identity's schema version asks for, against the provider's current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdentityVersion {
    /// Same version: used as it is, no call (Terraform makes none).
    Current,
    /// Older: UpgradeResourceIdentity first.
    Upgrade,
    /// Newer than the provider knows: Terraform refuses to load it.
    TooNew,
}

pub fn identity_version(stored: i64, current: i64) -> IdentityVersion {
    match stored.cmp(&current) {
        std::cmp::Ordering::Equal => IdentityVersion::Current,
        std::cmp::Ordering::Less => IdentityVersion::Upgrade,
        std::cmp::Ordering::Greater => IdentityVersion::TooNew,
    }
}

/// What is wrong with an identity a provider returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdentityProblem {
    /// Terraform: "Provider produced an identity that doesn't match the schema".
    Mismatch(String),
    /// Terraform: "Provider produced invalid identity" (unknown values).
    Unknown(Vec<cty::Path>),
}

impl IdentityProblem {
    /// Terraform's words for this problem with the identity `provider` returned from `rpc`
    /// for `urn`: the summary, and the detail.
    pub fn words(&self, provider: &str, urn: &str, rpc: impl std::fmt::Display) -> (&'static str, String) {
        match self {
            IdentityProblem::Unknown(_) => (
                "Provider produced invalid identity",
                format!("Provider {provider:?} returned an identity with unknown values for {urn} ({rpc})"),
            ),
            IdentityProblem::Mismatch(err) => (
                "Provider produced an identity that doesn't match the schema",
                format!(
                    "Provider {provider:?} returned an identity for {urn} that doesn't match the identity schema: \
                     {err} ({rpc})"
                ),
            ),
        }
    }
}

/// Terraform core's checks of a returned identity, decoded with the identity type. A null
/// identity is no identity (`Ok(None)`): the framework reports a missing one itself, and
/// Terraform only insists on one after an import by identity (see [`import_key`]).
pub fn check_identity(decoded: Result<Value, cty::Error>) -> Result<Option<Value>, IdentityProblem> {
    let value = decoded.map_err(|err| IdentityProblem::Mismatch(err.to_string()))?;
    if value.is_null() {
        return Ok(None);
    }
    let unknown = cty::unknown_paths(&value);
    if !unknown.is_empty() {
        return Err(IdentityProblem::Unknown(unknown));
    }
    Ok(Some(value))
}

/// What `pulumi import` (a Read with an ID and no state) names.
#[derive(Clone, Debug, PartialEq)]
pub enum ImportKey {
    /// An ID string, imported as Terraform's `terraform import` does.
    Id(String),
    /// An identity, written as a JSON object. `id` is the value of its `id` attribute when
    /// it has a string one, which the bridge also sends (see `docs/schema-mapping.md`).
    Identity { identity: Value, id: Option<String> },
}

/// Why an import ID that is written as identity JSON does not fit the identity schema.
/// The texts name identity fields by their Pulumi names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IdentityInputError {
    #[error("the import ID is not valid identity JSON ({reason}); expected {expected}")]
    Malformed { reason: String, expected: String },
    #[error("the identity lacks the required field {field:?}; expected {expected}")]
    MissingField { field: String, expected: String },
    #[error("the identity field {field:?} must be {wanted}: {reason}")]
    WrongType { field: String, wanted: String, reason: String },
}

/// `an object with the fields a (string, required), b (number, optional)`.
fn expected(schema: &IdentitySchema) -> String {
    let fields: Vec<String> = schema
        .attributes
        .iter()
        .map(|(name, attr)| {
            let need = if attr.required_for_import { "required" } else { "optional" };
            format!("{} ({}, {need})", property_name(name), attr.ty.to_json())
        })
        .collect();
    format!("a JSON object with the fields {}", fields.join(", "))
}

/// The import key an import ID stands for. With an identity schema, an ID that is a JSON
/// object (first non-blank character `{`) whose fields are all identity attributes, by their
/// Pulumi (or Terraform) names, is an identity: `required_for_import` ones must be there,
/// others may be left out (null). A JSON object with any other field is an ID string: some
/// providers' own import IDs are JSON (magodo/restful takes `{"id":…,"path":…,"body":…}`,
/// and its identity is one `id` field). Without an identity schema every ID is an ID
/// string, as with the Go implementation.
pub fn import_key(id: &str, schema: Option<&IdentitySchema>) -> Result<ImportKey, IdentityInputError> {
    let Some(schema) = schema.filter(|schema| !schema.attributes.is_empty()) else {
        return Ok(ImportKey::Id(id.to_owned()));
    };
    if !id.trim_start().starts_with('{') {
        return Ok(ImportKey::Id(id.to_owned()));
    }
    let malformed = |reason: String| IdentityInputError::Malformed { reason, expected: expected(schema) };
    let object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(id).map_err(|err| malformed(err.to_string()))?;
    let mut by_tf_name = serde_json::Map::new();
    for (field, value) in object {
        let Some(tf_name) = schema.attributes.keys().find(|name| **name == field || property_name(name) == field)
        else {
            return Ok(ImportKey::Id(id.to_owned()));
        };
        by_tf_name.insert(tf_name.clone(), value);
    }
    let mut attrs = Vec::new();
    for (name, attr) in &schema.attributes {
        let field = property_name(name);
        let value = match by_tf_name.get(name) {
            None | Some(serde_json::Value::Null) if attr.required_for_import => {
                return Err(IdentityInputError::MissingField { field, expected: expected(schema) });
            }
            None | Some(serde_json::Value::Null) => Value::null(attr.ty.clone()),
            Some(json) => field_value(&field, &attr.ty, json)?,
        };
        attrs.push((name.clone(), value));
    }
    let identity = Value::object(attrs);
    let id = identity.get_attr("id").and_then(Value::as_str).map(str::to_owned);
    Ok(ImportKey::Identity { identity, id })
}

/// One field through cty's JSON decoder, so numbers stay exact and collections typed.
fn field_value(field: &str, ty: &Type, json: &serde_json::Value) -> Result<Value, IdentityInputError> {
    let wrong = |reason: String| IdentityInputError::WrongType {
        field: field.to_owned(),
        wanted: ty.to_json().to_string(),
        reason,
    };
    // cty's JSON decoder converts numbers and bools to strings for a string attribute, as
    // Terraform's does; an identity field is written by hand, so insist on the JSON type.
    if !json_matches(ty, json) {
        return Err(wrong(format!("got {json}")));
    }
    cty::json::decode(json.to_string().as_bytes(), ty).map_err(|err| wrong(err.to_string()))
}

/// Whether `json` has the JSON shape of `ty`, elements included (null fits anything).
fn json_matches(ty: &Type, json: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (ty, json) {
        (_, J::Null) => true,
        (Type::String, J::String(_)) | (Type::Number, J::Number(_)) | (Type::Bool, J::Bool(_)) => true,
        (Type::List(elem) | Type::Set(elem), J::Array(items)) => items.iter().all(|item| json_matches(elem, item)),
        (Type::Map(elem), J::Object(entries)) => entries.values().all(|value| json_matches(elem, value)),
        (Type::Object(object), J::Object(entries)) => {
            entries.iter().all(|(name, value)| object.attrs.get(name).is_some_and(|ty| json_matches(ty, value)))
        }
        (Type::Dynamic, _) => true,
        _ => false,
    }
}

/// Identity JSON as stored in `__meta` and sent to UpgradeResourceIdentity: cty JSON of the
/// identity type, with Terraform's attribute names.
pub fn identity_json(identity: &Value, schema: &IdentitySchema) -> Result<String, cty::Error> {
    cty::json::encode(identity, &schema.implied_type())
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    fn schema(json: &str) -> IdentitySchema {
        serde_json::from_str(json).unwrap()
    }

    const MOCK: &str = r#"{"version":0,"attributes":{"id":{"type":"string","required_for_import":true}}}"#;
    const WIDE: &str = r#"{"version":2,"attributes":{
        "account_id":{"type":"string","required_for_import":true},
        "region":{"type":"string","optional_for_import":true},
        "port":{"type":"number","optional_for_import":true},
        "zones":{"type":["list","string"],"optional_for_import":true}}}"#;

    #[track_caller]
    fn check_import(schema_json: Option<&str>, id: &str, expect: Expect) {
        let schema = schema_json.map(schema);
        let shown = match import_key(id, schema.as_ref()) {
            Ok(ImportKey::Id(id)) => format!("id {id:?}"),
            Ok(ImportKey::Identity { identity, id }) => format!(
                "identity {} id {id:?}",
                cty::json::encode(&identity, &schema.as_ref().unwrap().implied_type()).unwrap()
            ),
            Err(err) => format!("error: {err}"),
        };
        expect.assert_eq(&shown);
    }

    #[test]
    fn import_ids_and_identities() {
        check_import(Some(MOCK), "abc", expect![[r#"id "abc""#]]);
        check_import(None, r#"{"id":"abc"}"#, expect![[r#"id "{\"id\":\"abc\"}""#]]);
        check_import(Some(MOCK), r#" {"id":"abc"}"#, expect![[r#"identity {"id":"abc"} id Some("abc")"#]]);
        check_import(
            Some(WIDE),
            r#"{"accountId":"123","port":8080,"zones":["a","b"]}"#,
            expect![[r#"identity {"account_id":"123","port":8080,"region":null,"zones":["a","b"]} id None"#]],
        );
        // A field the identity does not have: the provider's own import ID, which is JSON
        // (magodo/restful's).
        check_import(
            Some(MOCK),
            r#"{"id":"/zones/a.","path":"/zones","body":{"name":null}}"#,
            expect![[r#"id "{\"id\":\"/zones/a.\",\"path\":\"/zones\",\"body\":{\"name\":null}}""#]],
        );
        // Terraform's names are accepted too.
        check_import(
            Some(WIDE),
            r#"{"account_id":"123"}"#,
            expect![[r#"identity {"account_id":"123","port":null,"region":null,"zones":null} id None"#]],
        );
    }

    #[test]
    fn identities_that_do_not_fit() {
        check_import(
            Some(MOCK),
            r#"{"id":"abc""#,
            expect![[
                r#"error: the import ID is not valid identity JSON (EOF while parsing an object at line 1 column 11); expected a JSON object with the fields id ("string", required)"#
            ]],
        );
        check_import(
            Some(WIDE),
            r#"{"region":"eu"}"#,
            expect![[
                r#"error: the identity lacks the required field "accountId"; expected a JSON object with the fields accountId ("string", required), port ("number", optional), region ("string", optional), zones (["list","string"], optional)"#
            ]],
        );
        check_import(
            Some(MOCK),
            r#"{"id":42}"#,
            expect![[r#"error: the identity field "id" must be "string": got 42"#]],
        );
        check_import(
            Some(WIDE),
            r#"{"accountId":"1","zones":[1]}"#,
            expect![[r#"error: the identity field "zones" must be ["list","string"]: got [1]"#]],
        );
        check_import(Some(MOCK), r#"["id"]"#, expect![[r#"id "[\"id\"]""#]]);
    }

    #[test]
    fn stored_versions() {
        assert_eq!(identity_version(0, 0), IdentityVersion::Current);
        assert_eq!(identity_version(1, 2), IdentityVersion::Upgrade);
        assert_eq!(identity_version(3, 2), IdentityVersion::TooNew);
    }

    #[test]
    fn returned_identities() {
        let ty = schema(MOCK).implied_type();
        let known = Value::object([("id", Value::string("a"))]);
        assert_eq!(check_identity(Ok(known.clone())), Ok(Some(known)));
        assert_eq!(check_identity(Ok(Value::null(ty.clone()))), Ok(None));
        let unknown = Value::object([("id", Value::unknown(Type::String))]);
        assert_eq!(
            check_identity(Ok(unknown)).unwrap_err(),
            IdentityProblem::Unknown(vec![cty::Path::root().attr("id")])
        );
        let wrong = cty::json::decode(br#"{"id":"a","extra":1}"#, &ty);
        assert!(matches!(check_identity(wrong), Err(IdentityProblem::Mismatch(_))));
    }

    #[test]
    fn returned_identity_problems_in_terraforms_words() {
        let (provider, urn) = ("registry.terraform.io/acme/acme", "urn:pulumi:dev::p::acme:index/thing:Thing::t");
        let cases = [
            IdentityProblem::Mismatch("attribute \"id\": string required".to_owned()),
            IdentityProblem::Unknown(vec![cty::Path::root().attr("id")]),
        ];
        let text: Vec<String> = cases
            .iter()
            .map(|problem| {
                let (summary, detail) = problem.words(provider, urn, "ReadResource");
                format!("{summary}: {detail}")
            })
            .collect();
        expect_test::expect![[r#"
            [
                "Provider produced an identity that doesn't match the schema: Provider \"registry.terraform.io/acme/acme\" returned an identity for urn:pulumi:dev::p::acme:index/thing:Thing::t that doesn't match the identity schema: attribute \"id\": string required (ReadResource)",
                "Provider produced invalid identity: Provider \"registry.terraform.io/acme/acme\" returned an identity with unknown values for urn:pulumi:dev::p::acme:index/thing:Thing::t (ReadResource)",
            ]
        "#]]
        .assert_debug_eq(&text);
    }
}
