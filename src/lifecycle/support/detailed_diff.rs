//! The detailed diff Pulumi shows: which properties a plan changes, and how.
//!
//! Terraform decides *whether* a resource changes (the planned state differs from the
//! prior state) and *whether* it is replaced (`requires_replace`). Pulumi additionally shows
//! *which* properties change. [`detailed_diff`] compares the prior outputs with the planned
//! outputs, both in Pulumi names, property by property: lists element by element, objects
//! key by key. An unknown planned value is an update (its final value is not known yet).
//! Entries at or under a path that forces replacement get the `*_REPLACE` kinds.
//!
//! Architecture invariant: pure, over Pulumi property values; knows nothing of Terraform.

use std::collections::BTreeSet;

use crate::property::{PropertyMap, PropertyPath, PropertyPathStep, PropertyValue};

/// Pulumi's `PropertyDiff.Kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffKind {
    Add,
    AddReplace,
    Delete,
    DeleteReplace,
    Update,
    UpdateReplace,
}

impl DiffKind {
    fn replacing(self) -> DiffKind {
        match self {
            DiffKind::Add | DiffKind::AddReplace => DiffKind::AddReplace,
            DiffKind::Delete | DiffKind::DeleteReplace => DiffKind::DeleteReplace,
            DiffKind::Update | DiffKind::UpdateReplace => DiffKind::UpdateReplace,
        }
    }
}

/// One changed property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertyDiff {
    pub path: PropertyPath,
    pub kind: DiffKind,
}

/// Which arrays are Terraform sets, whose elements have no position: an element is added or
/// removed, never updated in place.
pub struct Sets<'a> {
    /// The paths of the sets (not inside another set's element, which is compared whole).
    pub paths: Vec<PropertyPath>,
    /// The new inputs. Pulumi shows an added element's new value from the inputs at the
    /// diff's index, so an addition is reported at the element's index there.
    pub inputs: Option<&'a PropertyMap>,
}

/// The changes from `prior` to `planned` (keys starting with `__` are the bridge's own
/// and ignored), with the kinds under `replace_paths` turned into replacements. A replace
/// path no change covers (the value was not known) is added as an update-replace, so the
/// user always sees what forces the replacement.
pub fn detailed_diff(
    prior: &PropertyMap,
    planned: &PropertyMap,
    replace_paths: &[PropertyPath],
    sets: &Sets<'_>,
) -> Vec<PropertyDiff> {
    let mut out = Vec::new();
    let mut path = PropertyPath::default();
    objects(prior, planned, &mut path, sets, &mut out);
    for diff in &mut out {
        if replace_paths.iter().any(|replace| is_prefix(replace, &diff.path) || is_prefix(&diff.path, replace)) {
            diff.kind = diff.kind.replacing();
        }
    }
    for replace in replace_paths {
        let covered = out.iter().any(|diff| is_prefix(replace, &diff.path) || is_prefix(&diff.path, replace));
        if !covered && !replace.steps.is_empty() {
            out.push(PropertyDiff { path: replace.clone(), kind: DiffKind::UpdateReplace });
        }
    }
    out
}

/// The diff without the values the provider computes: updates at paths where the new inputs
/// have no value (an `id`, a content hash, a timestamp derived from an input).
///
/// Terraform shows these as `~ day = 1 -> 2`, or as "(known after apply)" when the value is
/// recomputed on apply. Pulumi cannot: it displays a detailed diff with the old value from
/// the prior outputs and the new one from the new *inputs*, so an update of a property that is
/// no input reads as a deletion (`- id`). A recomputed value is not deleted; it is left out,
/// as in the Go implementation's display of a replaced `local_file`. Changes of inputs,
/// additions, deletions (a value that really goes away) and anything that forces a
/// replacement stay.
pub fn without_recomputed(diffs: Vec<PropertyDiff>, inputs: &PropertyMap) -> Vec<PropertyDiff> {
    diffs
        .into_iter()
        .filter(|diff| !(diff.kind == DiffKind::Update && plain(lookup(inputs, &diff.path)).is_none()))
        .collect()
}

/// The value at `path`, if there is one. Secrets and outputs are looked through.
fn lookup<'v>(props: &'v PropertyMap, path: &PropertyPath) -> Option<&'v PropertyValue> {
    let mut steps = path.steps.iter();
    let Some(PropertyPathStep::Key(first)) = steps.next() else { return None };
    let mut value = props.get(first)?;
    for step in steps {
        value = match (plain(Some(value))?, step) {
            (PropertyValue::Object(map), PropertyPathStep::Key(key)) => map.get(key)?,
            (PropertyValue::Array(items), PropertyPathStep::Index(idx)) => items.get(*idx)?,
            // An unknown container: whatever is inside is unknown too.
            (unknown @ PropertyValue::Unknown(_), _) => unknown,
            _ => return None,
        };
    }
    Some(value)
}

/// The top-level property names of some paths, sorted and without repeats.
pub fn top_level_keys<'p>(paths: impl Iterator<Item = &'p PropertyPath>) -> Vec<String> {
    let keys: BTreeSet<String> = paths
        .filter_map(|path| match path.steps.first() {
            Some(PropertyPathStep::Key(key)) => Some(key.clone()),
            _ => None,
        })
        .collect();
    keys.into_iter().collect()
}

fn is_prefix(prefix: &PropertyPath, path: &PropertyPath) -> bool {
    path.steps.len() >= prefix.steps.len() && path.steps[..prefix.steps.len()] == prefix.steps[..]
}

fn objects(
    prior: &PropertyMap,
    planned: &PropertyMap,
    path: &mut PropertyPath,
    sets: &Sets<'_>,
    out: &mut Vec<PropertyDiff>,
) {
    let keys: BTreeSet<&String> = prior.keys().chain(planned.keys()).filter(|key| !key.starts_with("__")).collect();
    for key in keys {
        path.steps.push(PropertyPathStep::Key(key.clone()));
        value(prior.get(key.as_str()), planned.get(key.as_str()), path, sets, out);
        path.steps.pop();
    }
}

/// A set's changes: elements only in `after` are additions (at their index in the new
/// inputs, where Pulumi reads the value it shows), elements only in `before` deletions (at
/// their index in the prior outputs), and elements in both no change, wherever the
/// provider's ordering put them. A set with an unknown element is one update: which
/// elements it holds is not known yet.
fn set_elements(
    before: &[PropertyValue],
    after: &[PropertyValue],
    path: &mut PropertyPath,
    sets: &Sets<'_>,
    out: &mut Vec<PropertyDiff>,
) {
    if after.iter().any(has_unknown) {
        out.push(PropertyDiff { path: path.clone(), kind: DiffKind::Update });
        return;
    }
    let same = |a: &PropertyValue, b: &PropertyValue| bare(a) == bare(b);
    let inputs = sets.inputs.and_then(|inputs| match plain(lookup(inputs, path)) {
        Some(PropertyValue::Array(items)) => Some(items),
        _ => None,
    });
    let mut diffs = Vec::new();
    for (idx, element) in before.iter().enumerate() {
        if !after.iter().any(|other| same(element, other)) {
            diffs.push((idx, DiffKind::Delete));
        }
    }
    for (idx, element) in after.iter().enumerate() {
        if !before.iter().any(|other| same(element, other)) {
            let shown = inputs.and_then(|items| items.iter().position(|item| same(element, item)));
            diffs.push((shown.unwrap_or(idx), DiffKind::Add));
        }
    }
    // An index both deleted and added is a changed element at the position Pulumi shows.
    diffs.sort_by_key(|(idx, _)| *idx);
    let mut idx_seen = None;
    for (idx, kind) in diffs {
        if idx_seen == Some(idx) {
            if let Some(last) = out.last_mut() {
                last.kind = DiffKind::Update;
            }
            continue;
        }
        idx_seen = Some(idx);
        path.steps.push(PropertyPathStep::Index(idx));
        out.push(PropertyDiff { path: path.clone(), kind });
        path.steps.pop();
    }
}

/// The value without secret or output wrappers anywhere in it, for comparing elements.
fn bare(value: &PropertyValue) -> PropertyValue {
    match plain(Some(value)) {
        None => PropertyValue::Null,
        Some(PropertyValue::Array(items)) => PropertyValue::Array(items.iter().map(bare).collect()),
        Some(PropertyValue::Object(map)) => {
            PropertyValue::Object(map.iter().map(|(key, item)| (key.clone(), bare(item))).collect())
        }
        Some(other) => other.clone(),
    }
}

fn has_unknown(value: &PropertyValue) -> bool {
    match plain(Some(value)) {
        Some(PropertyValue::Unknown(_)) => true,
        Some(PropertyValue::Array(items)) => items.iter().any(has_unknown),
        Some(PropertyValue::Object(map)) => map.values().any(has_unknown),
        _ => false,
    }
}

fn plain(value: Option<&PropertyValue>) -> Option<&PropertyValue> {
    match value? {
        PropertyValue::Secret(inner) => plain(Some(inner)),
        PropertyValue::Output(output) => match &output.value {
            Some(inner) => plain(Some(inner)),
            None => Some(&PropertyValue::Unknown(crate::property::UnknownKind::String)),
        },
        PropertyValue::Null => None,
        other => Some(other),
    }
}

fn value(
    prior: Option<&PropertyValue>,
    planned: Option<&PropertyValue>,
    path: &mut PropertyPath,
    sets: &Sets<'_>,
    out: &mut Vec<PropertyDiff>,
) {
    let push =
        |out: &mut Vec<PropertyDiff>, path: &PropertyPath, kind| out.push(PropertyDiff { path: path.clone(), kind });
    match (plain(prior), plain(planned)) {
        (None, None) => {}
        (None, Some(_)) => push(out, path, DiffKind::Add),
        (Some(_), None) => push(out, path, DiffKind::Delete),
        (Some(_), Some(PropertyValue::Unknown(_))) => push(out, path, DiffKind::Update),
        (Some(PropertyValue::Object(before)), Some(PropertyValue::Object(after))) => {
            objects(before, after, path, sets, out)
        }
        (Some(PropertyValue::Array(before)), Some(PropertyValue::Array(after))) if sets.paths.contains(path) => {
            set_elements(before, after, path, sets, out)
        }
        (Some(PropertyValue::Array(before)), Some(PropertyValue::Array(after))) => {
            for idx in 0..before.len().max(after.len()) {
                path.steps.push(PropertyPathStep::Index(idx));
                value(before.get(idx), after.get(idx), path, sets, out);
                path.steps.pop();
            }
        }
        (Some(before), Some(after)) => {
            if before != after {
                push(out, path, DiffKind::Update);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::properties;

    fn path(text: &str) -> PropertyPath {
        let mut out = PropertyPath::default();
        for part in text.split('.') {
            match part.split_once('[') {
                Some((key, index)) => {
                    out.steps.push(PropertyPathStep::Key(key.to_owned()));
                    out.steps.push(PropertyPathStep::Index(index.trim_end_matches(']').parse().expect("an index")));
                }
                None => out.steps.push(PropertyPathStep::Key(part.to_owned())),
            }
        }
        out
    }

    #[test]
    fn diffs_by_property() {
        // (prior, planned, replace paths, expected "path kind" lines)
        const UNKNOWN: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
        let secret_x = r#"{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": "x"}"#;
        let unknown_a = format!(r#"{{"a": "{UNKNOWN}"}}"#);
        let unknown_b = format!(r#"{{"a": 1, "b": "{UNKNOWN}"}}"#);
        let secret_s = format!(r#"{{"s": {secret_x}}}"#);
        // (prior, planned, replace paths, expected "path kind" lines)
        let cases: &[(&str, &str, &[&str], &[&str])] = &[
            (r#"{"a": 1}"#, r#"{"a": 1}"#, &[], &[]),
            (r#"{"a": 1}"#, r#"{"a": 2}"#, &[], &["a Update"]),
            (r#"{"a": 1}"#, r#"{"a": 2}"#, &["a"], &["a UpdateReplace"]),
            (r#"{}"#, r#"{"a": 2}"#, &[], &["a Add"]),
            (r#"{"a": 1}"#, r#"{}"#, &[], &["a Delete"]),
            (r#"{"a": 1}"#, &unknown_a, &[], &["a Update"]),
            (
                r#"{"tags": {"x": "1", "y": "2"}}"#,
                r#"{"tags": {"x": "1", "z": "3"}}"#,
                &[],
                &["tags.y Delete", "tags.z Add"],
            ),
            (r#"{"l": [1, 2]}"#, r#"{"l": [1, 3, 4]}"#, &[], &["l[1] Update", "l[2] Add"]),
            (r#"{"o": {"p": 1}}"#, r#"{"o": {"p": 2}}"#, &["o"], &["o.p UpdateReplace"]),
            (r#"{"a": 1, "__meta": "x"}"#, r#"{"a": 1}"#, &[], &[]),
            (r#"{"a": 1}"#, &unknown_b, &["b"], &["b AddReplace"]),
            (r#"{"a": 1}"#, r#"{"a": 1}"#, &["b"], &["b UpdateReplace"]),
            (&secret_s, r#"{"s": "x"}"#, &[], &[]),
        ];
        for (prior, planned, replace, expected) in cases {
            let replace: Vec<PropertyPath> = replace.iter().map(|p| path(p)).collect();
            let no_sets = Sets { paths: Vec::new(), inputs: None };
            let diffs = detailed_diff(&properties(prior), &properties(planned), &replace, &no_sets);
            let got: Vec<String> = diffs.iter().map(|d| format!("{} {:?}", d.path, d.kind)).collect();
            assert_eq!(got, *expected, "{prior} -> {planned} (replace {replace:?})");
        }
    }

    #[test]
    fn recomputed_values_are_not_shown_as_changes() {
        // (prior outputs, planned outputs, new inputs, replace paths, expected "path kind" lines)
        let u = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
        let unknown_content = format!(r#"{{"content": "{u}"}}"#);
        type Case<'a> = (String, String, &'a str, &'a [&'a str], &'a [&'a str]);
        let cases: Vec<Case> = vec![
            // issue 12 item 8: local_file's content forces a replacement; its id and hashes
            // are recomputed. Only the content is a change.
            (
                r#"{"id": "a1", "content": "hi", "contentMd5": "49f6", "filename": "f"}"#.to_owned(),
                format!(r#"{{"id": "{u}", "content": "ho", "contentMd5": "{u}", "filename": "f"}}"#),
                r#"{"content": "ho", "filename": "f"}"#,
                &["content"],
                &["content UpdateReplace"],
            ),
            // An input whose new value is unknown (from another resource) is a change.
            (
                r#"{"id": "a1", "content": "hi"}"#.to_owned(),
                format!(r#"{{"id": "{u}", "content": "{u}"}}"#),
                &unknown_content,
                &[],
                &["content Update"],
            ),
            // A computed value that changes with an input (time_offset's `day`): only the input.
            (
                r#"{"offsetDays": 1, "day": 2}"#.to_owned(),
                r#"{"offsetDays": 2, "day": 3}"#.to_owned(),
                r#"{"offsetDays": 2}"#,
                &[],
                &["offsetDays Update"],
            ),
            // A computed value inside a block element is left out too; the block's input stays.
            (
                r#"{"rules": [{"port": 80, "arn": "x"}]}"#.to_owned(),
                format!(r#"{{"rules": [{{"port": 81, "arn": "{u}"}}]}}"#),
                r#"{"rules": [{"port": 81}]}"#,
                &[],
                &["rules[0].port Update"],
            ),
            // A secret input is an input.
            (
                r#"{"password": "a"}"#.to_owned(),
                r#"{"password": "b"}"#.to_owned(),
                r#"{"password": {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": "b"}}"#,
                &[],
                &["password Update"],
            ),
            // A computed value that forces the replacement is still shown.
            (
                r#"{"id": "a1", "zone": "z1"}"#.to_owned(),
                format!(r#"{{"id": "a1", "zone": "{u}"}}"#),
                r#"{}"#,
                &["zone"],
                &["zone UpdateReplace"],
            ),
            // A value that goes away is a deletion, as Terraform shows it; a new one an addition.
            (
                r#"{"id": "a1", "etag": "e"}"#.to_owned(),
                r#"{"id": "a1", "arn": "x"}"#.to_owned(),
                r#"{}"#,
                &[],
                &["arn Add", "etag Delete"],
            ),
        ];
        for (prior, planned, inputs, replace, expected) in &cases {
            let replace: Vec<PropertyPath> = replace.iter().map(|p| path(p)).collect();
            let no_sets = Sets { paths: Vec::new(), inputs: None };
            let diffs = detailed_diff(&properties(prior), &properties(planned), &replace, &no_sets);
            let diffs = without_recomputed(diffs, &properties(inputs));
            let got: Vec<String> = diffs.iter().map(|d| format!("{} {:?}", d.path, d.kind)).collect();
            assert_eq!(got, *expected, "{prior} -> {planned} (inputs {inputs})");
        }
    }

    #[test]
    fn set_elements_are_added_or_removed_never_updated() {
        // (prior, planned, new inputs, expected "path kind" lines); `privileges` is a set.
        let u = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
        let unknown_element = format!(r#"{{"privileges": ["SELECT", "{u}"]}}"#);
        let cases: &[(&str, &str, &str, &[&str])] = &[
            // The MySQL provider's grant: SELECT kept, INSERT added, the planned set sorted
            // before it. Compared by position this was `[0] Update` ("SELECT" => "SELECT" on
            // screen) and `[1] Add`.
            (
                r#"{"privileges": ["SELECT"]}"#,
                r#"{"privileges": ["INSERT", "SELECT"]}"#,
                r#"{"privileges": ["SELECT", "INSERT"]}"#,
                &["privileges[1] Add"],
            ),
            // The same set in another order is no change.
            (r#"{"privileges": ["A", "B"]}"#, r#"{"privileges": ["B", "A"]}"#, r#"{"privileges": ["A", "B"]}"#, &[]),
            // A removed element is deleted at its index in the prior outputs.
            (
                r#"{"privileges": ["A", "B", "C"]}"#,
                r#"{"privileges": ["A", "C"]}"#,
                r#"{"privileges": ["A", "C"]}"#,
                &["privileges[1] Delete"],
            ),
            // Removed and added at the same shown index: one changed element.
            (
                r#"{"privileges": ["A", "B"]}"#,
                r#"{"privileges": ["A", "C"]}"#,
                r#"{"privileges": ["A", "C"]}"#,
                &["privileges[1] Update"],
            ),
            // An element not known yet: the set as a whole is an update.
            (r#"{"privileges": ["SELECT"]}"#, &unknown_element, &unknown_element, &["privileges Update"]),
            // Objects are compared whole.
            (
                r#"{"privileges": [{"a": 1}, {"a": 2}]}"#,
                r#"{"privileges": [{"a": 2}, {"a": 3}]}"#,
                r#"{"privileges": [{"a": 2}, {"a": 3}]}"#,
                &["privileges[0] Delete", "privileges[1] Add"],
            ),
        ];
        for (prior, planned, inputs, expected) in cases {
            let inputs = properties(inputs);
            let sets = Sets { paths: vec![path("privileges")], inputs: Some(&inputs) };
            let diffs = detailed_diff(&properties(prior), &properties(planned), &[], &sets);
            let got: Vec<String> = diffs.iter().map(|d| format!("{} {:?}", d.path, d.kind)).collect();
            assert_eq!(got, *expected, "{prior} -> {planned}");
        }
        // Without the set's path, the same arrays are compared by position, as lists are.
        let sets = Sets { paths: Vec::new(), inputs: None };
        let diffs = detailed_diff(
            &properties(r#"{"l": ["SELECT"]}"#),
            &properties(r#"{"l": ["INSERT", "SELECT"]}"#),
            &[],
            &sets,
        );
        assert_eq!(diffs.len(), 2);
    }
}
