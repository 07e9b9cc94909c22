//! The optional file-backed object store (`FIXTURE_STORE_DIR`): apply writes each object's
//! state as cty JSON to `<dir>/<type>/<id>.json`, read and import load it, delete removes
//! it. A test changes or deletes a file to simulate changes made outside Terraform.
//!
//! A `/` in an id becomes `_` in the file name. Without a store directory every operation
//! here does nothing and loads find nothing.
//!
//! Architecture invariant: the store knows nothing about plans or protocols; it only maps
//! (type, id) to a JSON file.

use std::path::PathBuf;

use rmpv::Value;
use schema_gen::tf::Type;

use crate::provider::Fixture;
use crate::rpc::Diagnostic;
use crate::value;

impl Fixture {
    fn store_path(&self, type_name: &str, id: &str) -> Option<PathBuf> {
        let dir = self.store_dir()?;
        Some(dir.join(type_name).join(format!("{}.json", id.replace('/', "_"))))
    }

    pub(crate) fn store_has(&self, type_name: &str, id: &str) -> bool {
        self.store_path(type_name, id).is_some_and(|path| path.exists())
    }

    /// Writes the object; a failure is reported on stderr only, because the apply itself
    /// succeeded and a test will notice the missing file.
    pub(crate) fn store_save(&self, type_name: &str, ty: &Type, state: &Value) {
        let Some(id) = value::attr_str(state, "id") else { return };
        let Some(path) = self.store_path(type_name, id) else { return };
        let written = value::to_json(state, ty, "")
            .map_err(|err| err.to_string())
            .and_then(|json| serde_json::to_vec_pretty(&json).map_err(|err| err.to_string()))
            .and_then(|bytes| {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|err| err.to_string())?;
                }
                std::fs::write(&path, bytes).map_err(|err| err.to_string())
            });
        if let Err(err) = written {
            eprintln!("fixture: storing {type_name} {id} at {}: {err}", path.display());
        }
    }

    pub(crate) fn store_remove(&self, type_name: &str, id: &str) {
        if let Some(path) = self.store_path(type_name, id) {
            // A file already gone is what delete wants.
            let _ = std::fs::remove_file(path);
        }
    }

    /// The stored object, `None` when there is no store or no file for it.
    pub(crate) fn store_load(&self, type_name: &str, ty: &Type, id: &str) -> Result<Option<Value>, Diagnostic> {
        let Some(path) = self.store_path(type_name, id) else { return Ok(None) };
        let text = match std::fs::read(&path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(err) => {
                return Err(Diagnostic::error("Cannot read stored object", format!("{}: {err}", path.display()), None));
            }
        };
        let invalid =
            |detail: String| Diagnostic::error("Invalid stored object", format!("{}: {detail}", path.display()), None);
        let json: serde_json::Value = serde_json::from_slice(&text).map_err(|err| invalid(err.to_string()))?;
        value::from_json(&json, ty, "").map(Some).map_err(|err| invalid(err.to_string()))
    }
}
