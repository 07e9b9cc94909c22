//! Walking values: every part with its path, the value at a path, unknowns.
//!
//! Shared by the lifecycle checks (unknowns after apply, `requires_replace` paths) and the
//! translation to Pulumi values (secret paths), none of which this module knows about.

use super::{Path, PathStep, Type, Value, View};

impl Value {
    /// Calls `visit` on this value and every part of it, parents before children, with the
    /// path of each. This is how callers collect the paths of things (say, the parts that
    /// must be marked secret) without this module knowing what they look for.
    pub fn walk(&self, visit: &mut dyn FnMut(&Path, &Value)) {
        fn go(value: &Value, path: &mut Path, visit: &mut dyn FnMut(&Path, &Value)) {
            visit(path, value);
            let mut descend = |step: PathStep, child: &Value, path: &mut Path| {
                path.steps.push(step);
                go(child, path, visit);
                path.steps.pop();
            };
            match value.view() {
                View::List(_, elems) | View::Set(_, elems) | View::Tuple(elems) => {
                    for (idx, elem) in elems.iter().enumerate() {
                        descend(PathStep::Index(idx as u64), elem, path);
                    }
                }
                View::Map(_, elems) => {
                    for (key, elem) in elems {
                        descend(PathStep::Key(key.to_string()), elem, path);
                    }
                }
                View::Object(attrs) => {
                    for (name, attr) in attrs {
                        descend(PathStep::Attr(name.to_string()), attr, path);
                    }
                }
                _ => {}
            }
        }
        go(self, &mut Path::root(), visit);
    }
}

/// `object` with one attribute replaced.
pub fn with_attribute(object: &Value, name: &str, new: Value) -> Value {
    match object.view() {
        View::Object(attrs) => Value::object(attrs.iter().map(|(key, value)| {
            let value = if key.as_str() == name { new.clone() } else { value.clone() };
            (key.clone(), value)
        })),
        _ => object.clone(),
    }
}

/// Every unknown in `value` replaced by null of its type: what Terraform saves when a
/// provider leaves unknowns after apply.
pub fn unknowns_to_null(value: &Value) -> Value {
    match value.view() {
        View::Unknown(ty, _) => Value::null(ty.clone()),
        View::List(ty, elems) => {
            Value::list(ty.clone(), elems.iter().map(unknowns_to_null).collect()).unwrap_or_else(|_| value.clone())
        }
        View::Set(ty, elems) => {
            Value::set(ty.clone(), elems.iter().map(unknowns_to_null).collect()).unwrap_or_else(|_| value.clone())
        }
        View::Map(ty, entries) => {
            Value::map(ty.clone(), entries.iter().map(|(k, v)| (k.as_str(), unknowns_to_null(v))))
                .unwrap_or_else(|_| value.clone())
        }
        View::Object(attrs) => Value::object(attrs.iter().map(|(k, v)| (k.clone(), unknowns_to_null(v)))),
        View::Tuple(elems) => Value::tuple(elems.iter().map(unknowns_to_null).collect()),
        _ => value.clone(),
    }
}

/// The paths of every unknown value in `value`.
pub fn unknown_paths(value: &Value) -> Vec<Path> {
    let mut paths = Vec::new();
    value.walk(&mut |path, v| {
        if !v.is_known() {
            paths.push(path.clone());
        }
    });
    paths
}

/// The value at `path` inside `value`: `None` when the path does not exist, the unknown
/// value itself when the path passes through one. A step into a set stops at the set
/// (set elements have no addresses).
pub fn value_at<'v>(value: &'v Value, path: &Path) -> Option<&'v Value> {
    let mut current = value;
    for step in &path.steps {
        if !current.is_known() || current.is_null() {
            return Some(current);
        }
        current = match (current.view(), step) {
            (View::Set(..), _) => return Some(current),
            (View::Object(_), PathStep::Attr(name)) => current.get_attr(name)?,
            (View::Map(..), PathStep::Key(key)) => current.get_map_entry(key)?,
            (View::List(_, elems) | View::Tuple(elems), PathStep::Index(idx)) => {
                elems.get(usize::try_from(*idx).ok()?)?
            }
            _ => return None,
        };
    }
    Some(current)
}

/// Whether `path` names an attribute or block that the schema's implied type has (or a
/// step inside a value of it), regardless of the values.
pub fn path_exists_in_type(ty: &Type, path: &Path) -> bool {
    let mut current = ty;
    for step in &path.steps {
        current = match (current, step) {
            (Type::Object(object), PathStep::Attr(name)) => match object.attrs.get(name) {
                Some(ty) => ty,
                None => return false,
            },
            (Type::Map(elem), PathStep::Key(_)) => elem,
            (Type::List(elem) | Type::Set(elem), PathStep::Index(_)) => elem,
            (Type::Set(_), _) => return true,
            (Type::Tuple(elems), PathStep::Index(idx)) => {
                match usize::try_from(*idx).ok().and_then(|idx| elems.get(idx)) {
                    Some(ty) => ty,
                    None => return false,
                }
            }
            (Type::Dynamic, _) => return true,
            _ => return false,
        };
    }
    true
}
