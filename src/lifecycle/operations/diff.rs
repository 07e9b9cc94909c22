//! Diff: the upgraded prior state, the provider's plan of the new inputs
//! (`PlanResourceChange`), and what changes in Pulumi property paths; the plan is kept for
//! the Update that follows. Where a resource's name came from decides the replacement
//! order ([`delete_before_replace`]).

use super::interface::{Diffed, Target};
use super::memory::{GeneratedNames, PlanCache};
use super::prior::{Source, prior};
use super::values::{configuration, name_property, pulumi_outputs};
use crate::cty::{self};
use crate::lifecycle::calls::{Plan, Resource, Stored, Warnings};
use crate::lifecycle::support::after_plan::unchanged;
use crate::lifecycle::support::checks::EarlierPlan;
use crate::lifecycle::support::detailed_diff::{Sets, detailed_diff, top_level_keys, without_recomputed};
use crate::lifecycle::support::error::LifecycleError;
use crate::lifecycle::support::state::{self, Meta};
use crate::property::{PropertyMap, PropertyPath};

/// Diff of one resource.
#[derive(Clone, Debug, Default)]
pub struct DiffRequest {
    pub target: Target,
    pub id: String,
    pub olds: PropertyMap,
    pub news: PropertyMap,
}

/// Diff: what the provider's plan changes, against the upgraded prior state.
/// Where the name came from (`generated`) decides the order of a replacement.
pub(crate) async fn diff(
    resource: &Resource<'_>,
    request: &DiffRequest,
    cache: &PlanCache,
    generated: &GeneratedNames,
) -> Result<Diffed, LifecycleError> {
    let DiffRequest { id, olds, news, .. } = request;
    let mut warnings = Warnings::default();
    let mut secrets = resource.stored_secrets(olds);
    let (prior, meta, source) = prior(resource, id, olds, &secrets, &mut warnings).await?;
    // Terraform replaces a tainted object (one a failed create left), and creates anew one
    // its refresh found gone.
    let replace_why = if meta.tainted {
        Some("the object's create failed (it is tainted), so it must be replaced")
    } else if source == Source::Gone {
        Some("the object a failed apply left no longer exists, so it must be created again")
    } else {
        None
    };
    let (config, config_secrets) = configuration(resource, news)?;
    secrets.extend(config_secrets);
    let prior_identity = resource.stored_identity(&meta)?;
    let stored = Stored { state: &prior, private: &meta.private, identity: prior_identity.as_ref() };
    let plan = Plan { prior: stored, saved_private: &[], config: &config, secrets: &secrets };
    let planned = warnings.keep(resource.plan_resource_change(plan).await?);
    let warnings = warnings.into_vec();
    if planned.deferred.is_some() {
        // A change the provider deferred: shown as an update (its warning says why), never
        // kept for an Update, which refuses to apply it.
        return Ok(Diffed { changes: true, warnings, ..Diffed::default() });
    }
    let diffed = if unchanged(&prior, &planned.value) && replace_why.is_none() {
        Diffed { warnings, ..Diffed::default() }
    } else {
        let no_secrets: &[cty::Path] = &[];
        let before = pulumi_outputs(resource, &prior, no_secrets, &Meta::default())?;
        let after = pulumi_outputs(resource, &planned.value, no_secrets, &Meta::default())?;
        let replace: Vec<PropertyPath> = planned.replace_paths.iter().map(|p| resource.pulumi_path(p)).collect();
        let sets = Sets { paths: resource.set_paths(&[&prior, &planned.value]), inputs: Some(news) };
        let detailed = without_recomputed(detailed_diff(&before, &after, &replace, &sets), news);
        let mut replaces = top_level_keys(replace.iter());
        let diffs = top_level_keys(detailed.iter().map(|d| &d.path));
        let mut warnings = warnings;
        if let Some(why) = replace_why {
            warnings.push(why.to_owned());
            // Every changed property forces it; with none, the id names the object replaced.
            replaces = if diffs.is_empty() { vec!["id".to_owned()] } else { diffs.clone() };
        }
        // Set whenever a name was given, not only for the provider's replacements: the
        // engine reads it for any replacement, `replaceOnChanges`' too.
        let delete_before_replace = delete_before_replace(name_source(resource, id, news, olds, generated));
        Diffed { changes: true, replaces, diffs, detailed, delete_before_replace, warnings }
    };
    cache.keep(
        resource.urn(),
        EarlierPlan { prior, config, planned: planned.value, private: planned.private },
        &diffed,
    );
    Ok(diffed)
}

/// Where a resource's `name` came from, as Diff sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameSource {
    /// The type is not auto-named, or the inputs have no name.
    None,
    /// This process's Check made it up (auto-naming), or kept one it made before.
    Generated,
    /// The program gave it; `kept` when it is the name the object has now.
    Given { kept: bool },
    /// A type with no auto-named name whose object's id is made only of values the program
    /// gives now ([`id_made_of`]): an identity the program gave, such as a zone path
    /// `/zones/example.org.` from `path` and `body.name`.
    IdGiven,
}

/// Whether a replacement deletes the old object before creating the new one, the order
/// Terraform's `-/+` always uses and Pulumi's engine uses when the provider asks for it.
///
/// Pulumi creates the replacement first, which is right only when the new object cannot be
/// the old one: a name auto-naming made up is made up afresh for the replacement (the engine
/// checks the inputs again without the old ones), and a new name the program gives is another
/// object, but the name the object has now, given again, is the same name. Created first under
/// it, the new object is the old one (a DNS record set) or a conflict (an HTTP API's 409), and
/// deleting the old one then deletes what was just made (issue 28). Where create-first is
/// safe it stays, since a failed create then keeps the old object. Types with no auto-named
/// `name` keep Pulumi's order when their identity is the provider's to give (an id the API
/// assigns), and delete first when their id is made of what the program gives again. The
/// program's `deleteBeforeReplace` option still forces the order; nothing here can force the
/// other.
pub fn delete_before_replace(name: NameSource) -> bool {
    matches!(name, NameSource::Given { kept: true } | NameSource::IdGiven)
}

/// Whether every word of `id` (its runs of letters and digits) is a word of some string or
/// number the inputs hold: then the id is made of what the program gives, and a replacement
/// made from the same inputs gets the same id. An id the service assigns (a UUID, a serial)
/// has words no input holds. A false match costs only Terraform's own order, delete first.
pub fn id_made_of(id: &str, inputs: &PropertyMap) -> bool {
    use crate::property::PropertyValue;
    fn collect(value: &PropertyValue, words: &mut std::collections::HashSet<String>) {
        match value {
            PropertyValue::String(text) => words.extend(id_words(text).map(str::to_owned)),
            PropertyValue::Number(number) => {
                words.insert(number.to_string());
            }
            PropertyValue::Array(items) => items.iter().for_each(|item| collect(item, words)),
            PropertyValue::Object(map) => map.values().for_each(|item| collect(item, words)),
            PropertyValue::Secret(inner) => collect(inner, words),
            PropertyValue::Output(output) => output.value.iter().for_each(|inner| collect(inner, words)),
            _ => {}
        }
    }
    let mut words = std::collections::HashSet::new();
    inputs.values().for_each(|value| collect(value, &mut words));
    let mut id_words = id_words(id).peekable();
    id_words.peek().is_some() && id_words.all(|word| words.contains(word))
}

fn id_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|word| !word.is_empty())
}

/// Where the `name` in checked inputs came from, and whether it is the one in `olds`,
/// the stored outputs; for a type with no auto-named name, whether the object's `id` is
/// made of the inputs.
fn name_source(
    resource: &Resource<'_>,
    id: &str,
    inputs: &PropertyMap,
    olds: &PropertyMap,
    generated: &GeneratedNames,
) -> NameSource {
    use crate::property::PropertyValue;
    let Some(key) = name_property(resource) else {
        return if id_made_of(id, inputs) { NameSource::IdGiven } else { NameSource::None };
    };
    let name = |props: &PropertyMap| props.get(&key).map(state::unwrap_secret).cloned();
    match name(inputs) {
        None | Some(PropertyValue::Null) => NameSource::None,
        Some(_) if generated.contains(resource.urn()) => NameSource::Generated,
        given => NameSource::Given { kept: given == name(olds) },
    }
}

#[cfg(test)]
mod replacement_order_tests {
    use super::*;

    #[test]
    fn only_a_name_the_program_gave_deletes_first() {
        // (case, where the name came from, delete before replace)
        let table = [
            ("no auto-named name, an id the provider assigned", NameSource::None, false),
            ("no auto-named name, an id made of the program's values", NameSource::IdGiven, true),
            ("a generated name: the replacement gets a new one", NameSource::Generated, false),
            ("the object's name, given again: the replacement would be it", NameSource::Given { kept: true }, true),
            (
                "a new name given: another object; a failed create keeps the old",
                NameSource::Given { kept: false },
                false,
            ),
        ];
        for (case, name, expected) in table {
            assert_eq!(delete_before_replace(name), expected, "{case}");
        }
    }

    #[test]
    fn ids_made_of_the_inputs() {
        use crate::property::PropertyValue as V;
        let inputs =
            |pairs: &[(&str, V)]| -> PropertyMap { pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect() };
        let s = |text: &str| V::String(text.to_owned());
        let zone = inputs(&[
            ("path", s("/zones")),
            ("body", V::Object(inputs(&[("name", s("example.org.")), ("kind", s("Native"))]))),
        ]);
        let record = inputs(&[("zone", s("example.com.")), ("name", V::Secret(Box::new(s("txt"))))]);
        let numbered = inputs(&[("project", s("p1")), ("number", V::Number(42.0))]);
        // (case, id, inputs, made of them)
        let table = [
            ("a path from `path` and `body.name`", "/zones/example.org.", &zone, true),
            (
                "a new name: `org` is no longer given",
                "/zones/example.org.",
                &inputs(&[("path", s("/zones")), ("body", V::Object(inputs(&[("name", s("example.net."))])))]),
                false,
            ),
            ("a record's name in its zone, a secret name too", "txt.example.com.", &record, true),
            ("a UUID the API assigned", "4341cb18-739d-4e0c-a764-18049a46f7e1", &zone, false),
            ("a serial the API assigned", "projects/p1/items/7", &numbered, false),
            ("a number the program gave", "p1/42", &numbered, true),
            ("no words at all", "/", &zone, false),
            ("an empty id", "", &zone, false),
        ];
        for (case, id, inputs, expected) in table {
            assert_eq!(id_made_of(id, inputs), expected, "{case}");
        }
    }

    #[test]
    fn generated_names_follow_the_last_check() {
        let names = GeneratedNames::default();
        assert!(!names.contains("urn:a"));
        names.note("urn:a", true);
        assert!(names.contains("urn:a"));
        names.note("urn:a", false);
        assert!(!names.contains("urn:a"), "a later Check with a given name forgets the generated one");
    }
}
