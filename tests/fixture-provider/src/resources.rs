//! Managed resources: validation, state upgrade, plan, apply, read and import, the same for
//! every resource type of the schema, plus the rules a few fixture types add.
//!
//! Plans follow Terraform's rules (see the crate doc for the full table): the plan starts
//! from the proposed new state; a computed attribute whose proposed value is null becomes
//! unknown (so `id` and every computed-only attribute are unknown on create, while an
//! update keeps the prior values the proposal carries); write-only attributes are planned
//! null; a changed top-level attribute named `name` or starting with `replace_` requires
//! replacement. Apply replaces every unknown by a deterministic value
//! ([`crate::value::computed_value`]) and `id` by `<type without fixture_>-<n>`.
//!
//! `fixture_misbehave` breaks these rules on request; see [`Misbehave`].
//!
//! Architecture invariant: no protocol types here; requests and answers are the neutral
//! ones of `rpc`, values are `rmpv` trees from `value`.

use std::time::Duration;

use rmpv::Value;
use schema_gen::tf;

use crate::provider::Fixture;
use crate::rpc::{
    ApplyRequest, ApplyResponse, AttributePath, Diagnostic, ImportResponse, ImportedResource, PathStep, PlanRequest,
    PlanResponse, ReadRequest, ReadResponse, UpgradeRequest, UpgradeResponse,
};
use crate::value::{self, attr, attr_str, set_attr};

pub use crate::misbehave::{Misbehave, NON_UTF8};

/// How long `slow_apply` waits at most.
const SLOW_APPLY_LIMIT: Duration = Duration::from_secs(30);

/// Whether a change of this top-level attribute requires replacement.
pub fn is_force_new(attribute: &str) -> bool {
    attribute == "name" || attribute.starts_with("replace_")
}

fn decode_or_diag(bytes: &[u8], what: &str, diagnostics: &mut Vec<Diagnostic>) -> Value {
    match value::decode(bytes) {
        Ok(value) => value,
        Err(err) => {
            diagnostics.push(Diagnostic::error(format!("Invalid {what}"), err.to_string(), None));
            Value::Nil
        }
    }
}

/// `values` (each bytes and what they are) decoded; `None`, with a diagnostic for each that
/// is not, when any is not.
fn decode_all<const N: usize>(values: [(&[u8], &str); N], diagnostics: &mut Vec<Diagnostic>) -> Option<[Value; N]> {
    let before = diagnostics.len();
    let decoded = values.map(|(bytes, what)| decode_or_diag(bytes, what, diagnostics));
    (diagnostics.len() == before).then_some(decoded)
}

fn path(steps: &[&str]) -> AttributePath {
    steps.iter().map(|step| PathStep::Attribute((*step).to_owned())).collect()
}

impl Fixture {
    fn resource_schema(&self, type_name: &str) -> Result<&tf::Schema, Diagnostic> {
        self.schema.resources.get(type_name).ok_or_else(|| {
            Diagnostic::error(format!("The fixture provider has no resource type named {type_name:?}"), "", None)
        })
    }

    /// [`Self::resource_schema`], its diagnostic pushed onto `diagnostics`.
    fn resource_schema_or_diag(&self, type_name: &str, diagnostics: &mut Vec<Diagnostic>) -> Option<&tf::Schema> {
        self.resource_schema(type_name).map_err(|diag| diagnostics.push(diag)).ok()
    }

    /// `ValidateResourceConfig` / `ValidateResourceTypeConfig`: the value rules of the crate
    /// doc. Unknown values are never errors.
    pub fn validate_resource_config(&self, type_name: &str, config: &[u8]) -> Vec<Diagnostic> {
        if let Err(diag) = self.resource_schema(type_name) {
            return vec![diag];
        }
        let mut diagnostics = Vec::new();
        let config = decode_or_diag(config, "configuration", &mut diagnostics);
        let invalid = |summary: &str, detail: String, at: AttributePath| Diagnostic::error(summary, detail, Some(at));
        match type_name {
            "fixture_flags" if attr_str(&config, "name") == Some("bad") => {
                diagnostics.push(invalid(
                    "Invalid name",
                    "The name \"bad\" is reserved by the fixture provider.".to_owned(),
                    path(&["name"]),
                ));
            }
            "fixture_types" => {
                if let Some(n) = attr(&config, "number_value").and_then(number)
                    && !(0.0..=1000.0).contains(&n)
                {
                    diagnostics.push(invalid(
                        "Value out of range",
                        format!("number_value must be between 0 and 1000, got {n}."),
                        path(&["number_value"]),
                    ));
                }
                if let Some(Value::Array(items)) = attr(&config, "list_value") {
                    for (i, item) in items.iter().enumerate() {
                        if item.as_str() == Some("bad") {
                            let mut at = path(&["list_value"]);
                            at.push(PathStep::ElementKeyInt(i as i64));
                            diagnostics.push(invalid("Invalid list element", "\"bad\" is not allowed.".to_owned(), at));
                        }
                    }
                }
            }
            "fixture_blocks" => {
                if let Some(Value::Array(blocks)) = attr(&config, "list_block") {
                    for (i, block) in blocks.iter().enumerate() {
                        if attr_str(block, "value") == Some("bad") {
                            let at = vec![
                                PathStep::Attribute("list_block".to_owned()),
                                PathStep::ElementKeyInt(i as i64),
                                PathStep::Attribute("value".to_owned()),
                            ];
                            diagnostics.push(invalid("Invalid block value", "\"bad\" is not allowed.".to_owned(), at));
                        }
                    }
                }
            }
            "fixture_misbehave" => {
                if let Some(text) = attr_str(&config, "misbehave")
                    && let Err(name) = Misbehave::parse_list(text)
                {
                    let known: Vec<&str> = Misbehave::ALL.iter().map(|(known, _)| *known).collect();
                    diagnostics.push(invalid(
                        "Unknown misbehaviour",
                        format!("{name:?} is not one of {}.", known.join(", ")),
                        path(&["misbehave"]),
                    ));
                }
            }
            _ => {}
        }
        diagnostics
    }

    /// `UpgradeResourceState`: decodes JSON or flatmap state through the current schema's
    /// implied type. `fixture_versioned` states older than version 3 kept `value` under the
    /// name `legacy_value`; the upgrade renames it.
    pub fn upgrade_resource_state(&self, request: &UpgradeRequest) -> UpgradeResponse {
        let schema = match self.resource_schema(&request.type_name) {
            Ok(schema) => schema,
            Err(diag) => return UpgradeResponse { upgraded_state: Vec::new(), diagnostics: vec![diag] },
        };
        let fail = |summary: &str, detail: String| UpgradeResponse {
            upgraded_state: Vec::new(),
            diagnostics: vec![Diagnostic::error(summary, detail, None)],
        };
        if request.version > schema.version {
            return fail(
                "State version is newer than the provider",
                format!(
                    "{} state is at schema version {}, but this provider knows versions up to {}.",
                    request.type_name, request.version, schema.version
                ),
            );
        }
        let ty = schema.block.implied_type();
        let mut json = if !request.raw_json.is_empty() {
            match serde_json::from_slice::<serde_json::Value>(&request.raw_json) {
                Ok(json) => json,
                Err(err) => return fail("Invalid raw state", format!("the JSON state does not parse: {err}")),
            }
        } else if !request.raw_flatmap.is_empty() {
            value::flatmap_to_json(&request.raw_flatmap, &ty)
        } else {
            return fail("Invalid raw state", "neither JSON nor flatmap state was sent".to_owned());
        };
        if request.type_name == "fixture_versioned"
            && request.version < 3
            && let Some(object) = json.as_object_mut()
            && let Some(legacy) = object.remove("legacy_value")
        {
            object.insert("value".to_owned(), legacy);
        }
        match value::from_json(&json, &ty, "") {
            Ok(state) => UpgradeResponse { upgraded_state: value::encode(&state), diagnostics: Vec::new() },
            Err(err) => fail("Invalid raw state", err.to_string()),
        }
    }

    /// `PlanResourceChange`: see the module doc.
    pub fn plan_resource_change(&self, request: &PlanRequest) -> PlanResponse {
        let mut response = PlanResponse::default();
        let Some(schema) = self.resource_schema_or_diag(&request.type_name, &mut response.diagnostics) else {
            return response;
        };
        let values = [
            (&request.prior_state[..], "prior state"),
            (&request.proposed_new_state[..], "proposed new state"),
            (&request.config[..], "configuration"),
        ];
        let Some([prior, proposed, config]) = decode_all(values, &mut response.diagnostics) else {
            return response;
        };
        response.planned_private = if request.prior_private.is_empty() {
            format!("fixture-private:{}", request.type_name).into_bytes()
        } else {
            request.prior_private.clone()
        };
        if proposed.is_nil() {
            // Destroy: the planned state is null, as plan_destroy asks.
            response.planned_state = value::encode(&Value::Nil);
            return response;
        }
        let misbehave = Misbehave::from_config(&config);
        response.legacy_type_system = misbehave.contains(&Misbehave::LegacyTypeSystem);
        if misbehave.contains(&Misbehave::Deferred) {
            response.deferred = Some(crate::rpc::DEFERRED_RESOURCE_CONFIG_UNKNOWN);
            response.planned_state = request.proposed_new_state.clone();
            return response;
        }
        if misbehave.contains(&Misbehave::ChecksPlannedPrivate) && !prior.is_nil() {
            match crate::saved_plans::plan_private(&request.planned_private) {
                Ok(private) => response.planned_private = private,
                Err(diag) => {
                    response.diagnostics.push(diag);
                    return response;
                }
            }
        }
        let mut planned = proposed;
        plan_block(&schema.block, &mut planned);
        if !prior.is_nil() {
            for name in schema.block.attributes.keys().filter(|name| is_force_new(name)) {
                if attr(&prior, name) != attr(&planned, name) {
                    response.requires_replace.push(path(&[name]));
                }
            }
        }
        if misbehave.contains(&Misbehave::PlanDiffersFromConfig) {
            let configured = attr_str(&config, "value").unwrap_or_default();
            set_attr(&mut planned, "value", Value::from(format!("{configured}-planned")));
        }
        if misbehave.contains(&Misbehave::RequiresReplaceNonexistent) {
            response.requires_replace.push(path(&["no_such_attribute"]));
        }
        if misbehave.contains(&Misbehave::WriteOnlyInPlan) {
            set_attr(&mut planned, "secret_wo", Value::from("leaked"));
        }
        if misbehave.contains(&Misbehave::UnstablePlan) {
            // The clock, not a counter: Terraform plans and applies with separate processes.
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| elapsed.as_nanos());
            set_attr(&mut planned, "computed_value", Value::from(format!("plan-{nanos}")));
        }
        response.planned_state = value::encode(&planned);
        response
    }

    /// `ApplyResourceChange`: see the module doc. A null planned state deletes.
    pub async fn apply_resource_change(&self, request: &ApplyRequest) -> ApplyResponse {
        let mut response = ApplyResponse::default();
        let Some(schema) = self.resource_schema_or_diag(&request.type_name, &mut response.diagnostics) else {
            return response;
        };
        let values = [
            (&request.prior_state[..], "prior state"),
            (&request.planned_state[..], "planned state"),
            (&request.config[..], "configuration"),
        ];
        let Some([prior, planned, config]) = decode_all(values, &mut response.diagnostics) else {
            return response;
        };
        if planned.is_nil() {
            if Misbehave::from_config(&prior).contains(&Misbehave::DeleteFails) {
                response.diagnostics.push(Diagnostic::error(
                    "Delete failed",
                    "The fixture refused to delete the object.",
                    None,
                ));
                response.new_state = value::encode(&prior);
                return response;
            }
            if let Some(id) = attr_str(&prior, "id") {
                self.store_remove(&request.type_name, id);
            }
            response.new_state = value::encode(&Value::Nil);
            return response;
        }
        crate::ephemeral::record_write_only(&request.type_name, &schema.block, &config);
        let misbehave = Misbehave::from_config(&config);
        response.legacy_type_system = misbehave.contains(&Misbehave::LegacyTypeSystem);
        if misbehave.contains(&Misbehave::PanicInApply) {
            self.panic_now("ApplyResourceChange");
        }
        if misbehave.contains(&Misbehave::ChecksPlannedPrivate)
            && !prior.is_nil()
            && let Some(diag) = crate::saved_plans::apply_problem(&request.planned_private)
        {
            response.diagnostics.push(diag);
            response.new_state = value::encode(&prior);
            return response;
        }
        if misbehave.contains(&Misbehave::SlowApply) && self.wait_for_stop(SLOW_APPLY_LIMIT).await {
            response.diagnostics.push(Diagnostic::error(
                "Apply interrupted",
                "The provider was stopped before the apply finished.",
                None,
            ));
            response.new_state = value::encode(&prior);
            return response;
        }
        if misbehave.contains(&Misbehave::FinishesAtStop) {
            self.wait_for_stop(SLOW_APPLY_LIMIT).await;
        }
        if misbehave.contains(&Misbehave::ErrorWithPlannedState) {
            response.diagnostics.push(Diagnostic::error(
                "Invalid value",
                "The fixture rejected the value; its answer is the plan it was given.",
                Some(path(&["value"])),
            ));
            response.new_state = value::encode(&planned);
            return response;
        }
        if misbehave.contains(&Misbehave::ErrorWithNullState) {
            response.diagnostics.push(Diagnostic::warning("Apply warning", "The fixture warns before it fails."));
            response.diagnostics.push(Diagnostic::error("Apply failed", "The fixture made nothing.", None));
            response.new_state = value::encode(&Value::Nil);
            return response;
        }
        let mut new_state = planned;
        if attr(&new_state, "id").is_some_and(value::is_unknown) {
            set_attr(&mut new_state, "id", Value::from(self.next_id(&request.type_name)));
        }
        value::fill_unknowns(&mut new_state, &schema.block.implied_type(), "");
        null_write_only(&schema.block, &mut new_state);
        if misbehave.contains(&Misbehave::UnknownAfterApply) {
            set_attr(&mut new_state, "computed_value", value::unknown());
        }
        if misbehave.contains(&Misbehave::ApplyChangesKnownValue) {
            let planned_value = attr_str(&new_state, "value").unwrap_or_default().to_owned();
            set_attr(&mut new_state, "value", Value::from(format!("{planned_value}-applied")));
        }
        if misbehave.contains(&Misbehave::SetElementsUncorrelated) {
            let items = match attr(&new_state, "items") {
                Some(Value::Array(items)) if !items.is_empty() => items
                    .iter()
                    .map(|item| Value::from(format!("{}-uncorrelated", item.as_str().unwrap_or_default())))
                    .collect(),
                _ => vec![Value::from("uncorrelated")],
            };
            set_attr(&mut new_state, "items", Value::Array(items));
        }
        if misbehave.contains(&Misbehave::ErrorWithPartialState) {
            response.diagnostics.push(Diagnostic::error(
                "Partial failure",
                "The fixture created the object but failed to finish configuring it.",
                None,
            ));
        }
        let unapplied = misbehave.contains(&Misbehave::ErrorWithUnappliedState);
        if unapplied {
            response.diagnostics.push(Diagnostic::error(
                "Update failed",
                "The fixture rejected the change; the object is as it was.",
                None,
            ));
        }
        if misbehave.contains(&Misbehave::NullAfterApply) {
            new_state = Value::Nil;
        } else if !unapplied {
            // The remote object exists even when the answer hides one of its values as unknown.
            let mut remote = new_state.clone();
            value::fill_unknowns(&mut remote, &schema.block.implied_type(), "");
            self.store_save(&request.type_name, &schema.block.implied_type(), &remote);
        }
        if misbehave.contains(&Misbehave::NonUtf8State) {
            non_utf8(&mut new_state, &mut response.diagnostics);
        }
        if misbehave.contains(&Misbehave::HugeValue) {
            set_attr(&mut new_state, "computed_value", Value::from("x".repeat(crate::misbehave::HUGE_LEN)));
        }
        response.new_state =
            if misbehave.contains(&Misbehave::GarbageNewState) { vec![0xc1] } else { value::encode(&new_state) };
        response.private = request.planned_private.clone();
        response
    }

    /// `ReadResource`: the current state, or with `FIXTURE_STORE_DIR` what the store holds
    /// for its `id` (null when the file is gone).
    pub fn read_resource(&self, request: &ReadRequest) -> ReadResponse {
        let mut response = ReadResponse { private: request.private.clone(), ..ReadResponse::default() };
        let Some(schema) = self.resource_schema_or_diag(&request.type_name, &mut response.diagnostics) else {
            return response;
        };
        let current = decode_or_diag(&request.current_state, "current state", &mut response.diagnostics);
        let new_state = match attr_str(&current, "id") {
            Some(id) if self.store_dir().is_some() => {
                match self.store_load(&request.type_name, &schema.block.implied_type(), id) {
                    Ok(stored) => stored.unwrap_or(Value::Nil),
                    Err(diag) => {
                        response.diagnostics.push(diag);
                        current
                    }
                }
            }
            _ => current,
        };
        let mut new_state = new_state;
        let misbehave = Misbehave::from_config(&new_state);
        if misbehave.contains(&Misbehave::ReadFails) {
            response.diagnostics.push(Diagnostic::error("Read failed", "The fixture cannot read the object.", None));
            return response;
        }
        if misbehave.contains(&Misbehave::ReadGone) {
            new_state = Value::Nil;
        }
        if misbehave.contains(&Misbehave::ReadChangesId)
            && let Some(id) = attr_str(&new_state, "id").map(str::to_owned)
        {
            set_attr(&mut new_state, "id", Value::from(format!("{id}-moved")));
        }
        if misbehave.contains(&Misbehave::NonUtf8State) {
            non_utf8(&mut new_state, &mut response.diagnostics);
        }
        if misbehave.contains(&Misbehave::HugeValue) {
            set_attr(&mut new_state, "computed_value", Value::from("x".repeat(crate::misbehave::HUGE_LEN)));
        }
        response.new_state = value::encode(&new_state);
        response
    }

    /// `ImportResourceState`: a state holding only the id (or what the store holds for it);
    /// an id `multi:<x>` imports two objects, `<x>-1` and `<x>-2`.
    pub fn import_resource_state(&self, type_name: &str, id: &str) -> ImportResponse {
        let mut response = ImportResponse::default();
        let Some(schema) = self.resource_schema_or_diag(type_name, &mut response.diagnostics) else {
            return response;
        };
        // `partial:<id>`: the object, and an error beside it (a provider that fails after it
        // found the object).
        let (id, partial) = match id.strip_prefix("partial:") {
            Some(id) => (id, true),
            None => (id, false),
        };
        if partial {
            response.diagnostics.push(Diagnostic::error(
                "Import failed",
                "The fixture found the object, then failed; its answer holds the object.",
                None,
            ));
        }
        let ids: Vec<String> = match id.strip_prefix("multi:") {
            Some(base) => vec![format!("{base}-1"), format!("{base}-2")],
            None => vec![id.to_owned()],
        };
        let ty = schema.block.implied_type();
        for id in ids {
            let state = match self.store_load(type_name, &ty, &id) {
                Ok(Some(stored)) => stored,
                Ok(None) => {
                    let mut state = value::empty_block(&schema.block);
                    set_attr(&mut state, "id", Value::from(id.as_str()));
                    state
                }
                Err(diag) => {
                    response.diagnostics.push(diag);
                    continue;
                }
            };
            response.imported.push(ImportedResource {
                type_name: type_name.to_owned(),
                state: value::encode(&state),
                private: format!("fixture-imported:{id}").into_bytes(),
            });
        }
        response
    }

    /// A fresh id `<type without fixture_>-<n>`, skipping ids the store already holds so that
    /// several processes sharing a store do not collide.
    fn next_id(&self, type_name: &str) -> String {
        let short = type_name.strip_prefix("fixture_").unwrap_or(type_name);
        loop {
            let n = {
                // A poisoned lock only means another apply panicked; the counters are intact.
                let mut counters = self.id_counters.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                let counter = counters.entry(type_name.to_owned()).or_default();
                *counter += 1;
                *counter
            };
            let id = format!("{short}-{n}");
            if !self.store_has(type_name, &id) {
                return id;
            }
        }
    }
}

/// `non_utf8_state`: `computed_value` as [`NON_UTF8`], with the provider's warning.
fn non_utf8(state: &mut Value, diagnostics: &mut Vec<Diagnostic>) {
    set_attr(state, "computed_value", value::raw_string(NON_UTF8));
    diagnostics.push(Diagnostic::warning(
        "Value is not recognized as UTF-8",
        "computed_value holds bytes that are not UTF-8.",
    ));
}

fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Integer(n) => n.as_f64(),
        Value::F64(f) => Some(*f),
        Value::F32(f) => Some(f64::from(*f)),
        Value::String(text) => text.as_str().and_then(|text| text.parse().ok()),
        _ => None,
    }
}

/// Marks computed attributes whose proposed value is null as unknown and plans write-only
/// attributes null, through nested blocks and nested attributes.
fn plan_block(block: &tf::Block, object: &mut Value) {
    plan_attributes(&block.attributes, object);
    for (name, nested) in &block.block_types {
        // Blocks with a dynamic implied type hold tuples; the fixture has no computed
        // attributes inside them, so there is nothing to plan there.
        if matches!(nested.implied_type(), tf::Type::Dynamic) {
            continue;
        }
        if let Some(inner) = value::attr_mut(object, name) {
            for element in elements_mut(inner, nested.nesting == tf::BlockNesting::Map) {
                plan_block(&nested.block, element);
            }
        }
    }
}

fn plan_attributes(attributes: &std::collections::BTreeMap<String, tf::Attribute>, object: &mut Value) {
    for (name, attribute) in attributes {
        let Some(slot) = value::attr_mut(object, name) else { continue };
        if attribute.write_only {
            *slot = Value::Nil;
        } else if attribute.computed && slot.is_nil() {
            *slot = value::unknown();
        } else if let tf::AttributeType::Nested(nested) = &attribute.ty {
            let elements: Vec<&mut Value> = match nested.nesting {
                tf::ObjectNesting::Single => vec![slot],
                tf::ObjectNesting::Map => elements_mut(slot, true),
                tf::ObjectNesting::List | tf::ObjectNesting::Set => elements_mut(slot, false),
            };
            for element in elements {
                plan_attributes(&nested.attributes, element);
            }
        }
    }
}

/// The known, non-null objects inside a block or nested attribute value.
fn elements_mut(value: &mut Value, map: bool) -> Vec<&mut Value> {
    if value.is_map() && !map {
        return vec![value];
    }
    match value {
        Value::Array(items) if !map => items.iter_mut().filter(|item| item.is_map()).collect(),
        Value::Map(entries) if map => entries.iter_mut().map(|(_, item)| item).filter(|item| item.is_map()).collect(),
        _ => Vec::new(),
    }
}

/// Sets every write-only attribute (top level and in nested attributes) to null, as state
/// never holds them.
fn null_write_only(block: &tf::Block, object: &mut Value) {
    for (name, attribute) in &block.attributes {
        if attribute.write_only
            && let Some(slot) = value::attr_mut(object, name)
        {
            *slot = Value::Nil;
        }
    }
}
