//! `FIXTURE_1_14=1`: the Terraform 1.14 features no real provider in our set shows on demand.
//!
//! - Actions ([`with_actions`] adds them to the schema):
//!   - `fixture_notify` (`message` required string, `fail` optional string, `steps` optional
//!     number, default 2). Validation refuses `message = "bad"` at `message`. Plan answers no
//!     diagnostics. Invoke sends `steps` progress events `notify step <i> of <n>: <message>`,
//!     then a Completed event; `fail = "completed"` makes the Completed event carry the error
//!     "Notification failed" after the progress, and `fail = "stream"` breaks the stream with
//!     a gRPC error instead. With `FIXTURE_STORE_DIR`, every plan and invoke appends a line
//!     `planned <message>` / `invoked <message>` to `<dir>/actions.log`, so a test can tell
//!     which ran.
//!   - `fixture_legacy_action` (`message` optional string): every action RPC for it answers
//!     `UNIMPLEMENTED`, as a provider older than Terraform 1.14 does.
//! - GenerateResourceConfig (capability `generate_resource_config`): the configuration of a
//!   state is the state with every computed attribute null, optional-and-computed ones
//!   included (the provider says they were left to their defaults), and blocks kept.
//!
//! Architecture invariant: protocol-neutral, like `resources`; the service modules convert.

use std::io::Write as _;

use schema_gen::tf;

use crate::provider::Fixture;
use crate::rpc::{Diagnostic, PathStep};
use crate::value::{self, attr, attr_str, set_attr};
use rmpv::Value;

pub const NOTIFY: &str = "fixture_notify";
pub const LEGACY_ACTION: &str = "fixture_legacy_action";

/// The schema with the fixture's actions added.
pub fn with_actions(mut schema: tf::ProviderSchema) -> tf::ProviderSchema {
    let attribute = |ty: tf::Type, required: bool, description: &str| {
        let mut attr = tf::Attribute::new(ty);
        attr.required = required;
        attr.optional = !required;
        attr.description = description.to_owned();
        attr
    };
    let notify = tf::Block {
        attributes: [
            ("message".to_owned(), attribute(tf::Type::String, true, "What to notify.")),
            ("fail".to_owned(), attribute(tf::Type::String, false, "`completed` or `stream`: how to fail.")),
            ("steps".to_owned(), attribute(tf::Type::Number, false, "How many progress events to send (default 2).")),
        ]
        .into(),
        description: "Sends a notification, reporting progress as it goes.".to_owned(),
        ..tf::Block::default()
    };
    let legacy = tf::Block {
        attributes: [("message".to_owned(), attribute(tf::Type::String, false, "Ignored."))].into(),
        description: "An action whose RPCs answer UNIMPLEMENTED.".to_owned(),
        ..tf::Block::default()
    };
    schema.actions.insert(NOTIFY.to_owned(), tf::Schema { version: 0, block: notify });
    schema.actions.insert(LEGACY_ACTION.to_owned(), tf::Schema { version: 0, block: legacy });
    schema
}

/// One event of an InvokeAction stream, or the error that breaks it.
#[derive(Clone, Debug, PartialEq)]
pub enum ActionEventOut {
    Progress(String),
    Completed(Vec<Diagnostic>),
    StreamError(String),
}

impl Fixture {
    /// Whether `action` is one whose RPCs answer UNIMPLEMENTED.
    pub fn action_unimplemented(&self, action: &str) -> bool {
        action == LEGACY_ACTION
    }

    fn decode_action_config(&self, action: &str, config: &[u8]) -> Result<Value, Diagnostic> {
        if !self.schema.actions.contains_key(action) {
            return Err(Diagnostic::error(
                "Unknown action",
                format!("The fixture provider has no action {action:?}"),
                None,
            ));
        }
        value::decode(config).map_err(|err| Diagnostic::error("Invalid action configuration", err.to_string(), None))
    }

    fn log_action(&self, line: &str) {
        if let Some(dir) = self.store_dir() {
            let _ = std::fs::create_dir_all(dir);
            if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(dir.join("actions.log")) {
                let _ = writeln!(file, "{line}");
            }
        }
    }

    pub fn validate_action_config(&self, action: &str, config: &[u8]) -> Vec<Diagnostic> {
        let config = match self.decode_action_config(action, config) {
            Ok(config) => config,
            Err(diag) => return vec![diag],
        };
        if attr_str(&config, "message") == Some("bad") {
            return vec![Diagnostic::error(
                "Invalid message",
                "The fixture refuses to notify \"bad\".",
                Some(vec![PathStep::Attribute("message".to_owned())]),
            )];
        }
        Vec::new()
    }

    pub fn plan_action(&self, action: &str, config: &[u8]) -> Vec<Diagnostic> {
        match self.decode_action_config(action, config) {
            Ok(config) => {
                self.log_action(&format!("planned {}", attr_str(&config, "message").unwrap_or("<unknown>")));
                Vec::new()
            }
            Err(diag) => vec![diag],
        }
    }

    pub fn invoke_action(&self, action: &str, config: &[u8]) -> Vec<ActionEventOut> {
        let config = match self.decode_action_config(action, config) {
            Ok(config) => config,
            Err(diag) => return vec![ActionEventOut::Completed(vec![diag])],
        };
        let message = attr_str(&config, "message").unwrap_or_default().to_owned();
        self.log_action(&format!("invoked {message}"));
        let steps = attr(&config, "steps").and_then(Value::as_f64).map_or(2, |n| n.max(0.0) as u64);
        let mut events: Vec<ActionEventOut> = (1..=steps)
            .map(|step| ActionEventOut::Progress(format!("notify step {step} of {steps}: {message}")))
            .collect();
        events.push(match attr_str(&config, "fail") {
            Some("completed") => ActionEventOut::Completed(vec![Diagnostic::error(
                "Notification failed",
                format!("The fixture was told to fail after {steps} steps."),
                None,
            )]),
            Some("stream") => {
                ActionEventOut::StreamError(format!("fixture: the notify stream broke after {steps} steps"))
            }
            _ => ActionEventOut::Completed(Vec::new()),
        });
        events
    }

    /// GenerateResourceConfig: see the module doc.
    pub fn generate_resource_config(&self, type_name: &str, state: &[u8]) -> (Vec<u8>, Vec<Diagnostic>) {
        let Some(schema) = self.schema.resources.get(type_name) else {
            let detail = format!("The fixture provider has no resource type named {type_name:?}");
            return (Vec::new(), vec![Diagnostic::error("Unknown resource type", detail, None)]);
        };
        let mut config = match value::decode(state) {
            Ok(state) => state,
            Err(err) => return (Vec::new(), vec![Diagnostic::error("Invalid state", err.to_string(), None)]),
        };
        for (name, attribute) in &schema.block.attributes {
            if attribute.computed {
                set_attr(&mut config, name, Value::Nil);
            }
        }
        (value::encode(&config), Vec::new())
    }
}
