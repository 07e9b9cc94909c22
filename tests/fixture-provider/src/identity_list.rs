//! Resource identity and list resources, for what tfcoremock does not do on demand: an
//! identity schema of a chosen version whose UpgradeResourceIdentity always fails, and a
//! ListResource stream that breaks after some results. Protocol 6 only.
//!
//! Switched on at launch (see the crate doc): `FIXTURE_IDENTITY_VERSION=N` declares the
//! identity `{id: string}` (required for import), version N, for every resource type;
//! `FIXTURE_LIST_FAIL_AFTER=K` also declares, for every resource type, a list resource with
//! the configuration `{prefix: optional string}`, whose ListResource sends K results (ids
//! `<prefix>item-<i>`) and then fails the stream with an INTERNAL status.
//!
//! Architecture invariant: knows nothing about protocol 6 messages beyond what the service
//! module hands it; values are built with the crate's msgpack helpers.

use schema_gen::tf;

/// What the switches ask for; both `None` means the fixture has neither.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdentityListConfig {
    pub identity_version: Option<i64>,
    pub list_fail_after: Option<u64>,
}

impl IdentityListConfig {
    /// Reads `FIXTURE_IDENTITY_VERSION` and `FIXTURE_LIST_FAIL_AFTER` through `lookup`.
    pub fn from_lookup(lookup: &dyn Fn(&str) -> Option<String>) -> Result<IdentityListConfig, String> {
        let number = |var: &str| -> Result<Option<i64>, String> {
            match lookup(var).filter(|v| !v.is_empty()) {
                None => Ok(None),
                Some(text) => text.parse().map(Some).map_err(|_| format!("{var}={text:?}: expected a whole number")),
            }
        };
        let identity_version = number("FIXTURE_IDENTITY_VERSION")?;
        let list_fail_after = number("FIXTURE_LIST_FAIL_AFTER")?.map(|k| k.max(0) as u64);
        Ok(IdentityListConfig { identity_version, list_fail_after })
    }

    /// The identity schemas to declare: one per resource type, when either switch is on
    /// (a list resource needs its resource's identity).
    pub fn identity_schemas(&self, schema: &tf::ProviderSchema) -> Vec<(String, i64)> {
        let version = match (self.identity_version, self.list_fail_after) {
            (Some(version), _) => version,
            (None, Some(_)) => 0,
            (None, None) => return Vec::new(),
        };
        schema.resources.keys().map(|name| (name.clone(), version)).collect()
    }

    /// The schema with a list resource added for every resource type, when listing is on.
    pub fn with_list_resources(&self, mut schema: tf::ProviderSchema) -> tf::ProviderSchema {
        if self.list_fail_after.is_none() {
            return schema;
        }
        let config: tf::Schema = serde_json::from_str(
            r#"{"version":0,"block":{"attributes":{"prefix":{"type":"string","optional":true,"description":"Only ids starting with this."}}}}"#,
        )
        .expect("a valid list schema");
        for name in schema.resources.keys().cloned().collect::<Vec<_>>() {
            schema.list_resources.insert(name, config.clone());
        }
        schema
    }
}

/// The text of the UpgradeResourceIdentity error the fixture always answers.
pub fn upgrade_identity_error(type_name: &str, from: i64, to: Option<i64>) -> (String, String) {
    (
        "fixture: cannot upgrade identity".to_owned(),
        format!("{type_name} identity version {from} cannot become version {}", to.unwrap_or_default()),
    )
}

/// msgpack of the identity object `{id: <id>}`.
pub fn identity_msgpack(id: &str) -> Vec<u8> {
    let mut bytes = vec![0x81, 0xa2, b'i', b'd'];
    bytes.extend(msgpack_str(id));
    bytes
}

fn msgpack_str(text: &str) -> Vec<u8> {
    let len = text.len();
    let mut bytes = if len < 32 {
        vec![0xa0 | len as u8]
    } else if len < 256 {
        vec![0xd9, len as u8]
    } else {
        let mut head = vec![0xda];
        head.extend((len as u16).to_be_bytes());
        head
    };
    bytes.extend(text.as_bytes());
    bytes
}

/// The ids one listing sends before it fails: `<prefix>item-<i>`.
pub fn listed_ids(prefix: &str, count: u64) -> Vec<String> {
    (0..count).map(|i| format!("{prefix}item-{i}")).collect()
}
