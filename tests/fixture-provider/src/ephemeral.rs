//! The ephemeral resource `fixture_token` and the accounting tests read.
//!
//! - Open answers the configuration with `value = "token-<pid>-<n>"` (sensitive). With
//!   `renew_after_ms` set, `renew_at` is that long after now, and every renewal asks for the
//!   next one the same time later. Private bytes are `fixture-token:<n>:<fail_on>`, so Renew
//!   and Close (which get nothing else) know what to do.
//! - `fail_on`, a comma list: `open` (an error diagnostic "Open failed", nothing opened),
//!   `renew` (Renew answers the error "Renew failed"), `close` (Close answers the error
//!   "Close failed"; the close is still counted).
//! - `FIXTURE_EPHEMERAL_LOG`: a file to which every open, renew and close appends a line
//!   (`open <n>`, `renew <n>`, `close <n>`), and every apply the non-null write-only values
//!   of its configuration (`write-only <type>.<attribute> <value>`), appended with
//!   `O_APPEND` so that several provider processes can share one file. A test reads it to
//!   count opens and closes and to learn the write-only value the provider received, which it
//!   then looks for where it must not be.
//!
//! Architecture invariant: like the rest of the fixture, plain protocol behaviour; the
//! service modules only convert messages.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use rmpv::Value;
use schema_gen::tf;

use crate::provider::Fixture;
use crate::rpc::Diagnostic;
use crate::value::{self, attr, attr_str, set_attr};

/// The environment variable naming the accounting file.
pub const LOG_VAR: &str = "FIXTURE_EPHEMERAL_LOG";

static OPENS: AtomicU64 = AtomicU64::new(0);

/// What Open answers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Opened {
    pub result: Vec<u8>,
    pub private: Option<Vec<u8>>,
    pub renew_at: Option<SystemTime>,
    pub diagnostics: Vec<Diagnostic>,
}

/// What Renew answers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Renewed {
    pub private: Option<Vec<u8>>,
    pub renew_at: Option<SystemTime>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Appends one line to the accounting file, if there is one.
pub fn record(line: &str) {
    let Ok(path) = std::env::var(LOG_VAR) else { return };
    let file = std::fs::OpenOptions::new().create(true).append(true).open(path);
    if let Ok(mut file) = file {
        // One write per line: appends of one line from several processes do not interleave.
        let _ = file.write_all(format!("{line}\n").as_bytes());
    }
}

/// Records the non-null top-level write-only values of an apply's configuration.
pub fn record_write_only(type_name: &str, schema: &tf::Block, config: &Value) {
    for (name, attribute) in &schema.attributes {
        if attribute.write_only
            && let Some(text) = attr_str(config, name)
        {
            record(&format!("write-only {type_name}.{name} {text}"));
        }
    }
}

struct Private {
    n: u64,
    fail_on: String,
}

impl Private {
    fn encode(&self) -> Vec<u8> {
        format!("fixture-token:{}:{}", self.n, self.fail_on).into_bytes()
    }

    fn decode(bytes: Option<&[u8]>) -> Option<Private> {
        let text = std::str::from_utf8(bytes?).ok()?;
        let rest = text.strip_prefix("fixture-token:")?;
        let (n, fail_on) = rest.split_once(':')?;
        Some(Private { n: n.parse().ok()?, fail_on: fail_on.to_owned() })
    }

    fn fails_on(&self, step: &str) -> bool {
        self.fail_on.split(',').any(|s| s.trim() == step)
    }
}

fn renew_interval(config: &Value) -> Option<Duration> {
    attr(config, "renew_after_ms").and_then(Value::as_f64).map(|ms| Duration::from_millis(ms.max(0.0) as u64))
}

fn unknown_type(type_name: &str) -> Diagnostic {
    Diagnostic::error(format!("The fixture provider has no ephemeral resource named {type_name:?}"), "", None)
}

impl Fixture {
    fn has_ephemeral(&self, type_name: &str) -> bool {
        self.schema.ephemeral_resources.contains_key(type_name)
    }

    /// `ValidateEphemeralResourceConfig`: a negative `length` is an error at `length`.
    pub fn validate_ephemeral_resource_config(&self, type_name: &str, config: &[u8]) -> Vec<Diagnostic> {
        if !self.has_ephemeral(type_name) {
            return vec![unknown_type(type_name)];
        }
        match value::decode(config) {
            Ok(config) if attr(&config, "length").and_then(Value::as_f64).is_some_and(|n| n < 0.0) => {
                vec![Diagnostic::error(
                    "Invalid length",
                    "The length must not be negative.",
                    Some(vec![crate::rpc::PathStep::Attribute("length".to_owned())]),
                )]
            }
            Ok(_) => Vec::new(),
            Err(err) => vec![Diagnostic::error("Invalid configuration", err.to_string(), None)],
        }
    }

    /// `OpenEphemeralResource`.
    pub fn open_ephemeral_resource(&self, type_name: &str, config: &[u8]) -> Opened {
        let fail = |diagnostic: Diagnostic| Opened { diagnostics: vec![diagnostic], ..Opened::default() };
        if !self.has_ephemeral(type_name) {
            return fail(unknown_type(type_name));
        }
        let mut config = match value::decode(config) {
            Ok(config) => config,
            Err(err) => return fail(Diagnostic::error("Invalid configuration", err.to_string(), None)),
        };
        let fail_on = attr_str(&config, "fail_on").unwrap_or("").to_owned();
        let n = OPENS.fetch_add(1, Ordering::SeqCst) + 1;
        let private = Private { n, fail_on };
        if private.fails_on("open") {
            return fail(Diagnostic::error(
                "Open failed",
                "fixture: fail_on asks OpenEphemeralResource to fail.",
                None,
            ));
        }
        set_attr(&mut config, "value", Value::from(format!("token-{}-{n}", std::process::id())));
        record(&format!("open {n}"));
        Opened {
            result: value::encode(&config),
            private: Some(private.encode()),
            renew_at: renew_interval(&config).map(|interval| SystemTime::now() + interval),
            diagnostics: Vec::new(),
        }
    }

    /// `RenewEphemeralResource`.
    pub fn renew_ephemeral_resource(&self, type_name: &str, private: Option<&[u8]>) -> Renewed {
        let fail = |diagnostic: Diagnostic| Renewed { diagnostics: vec![diagnostic], ..Renewed::default() };
        if !self.has_ephemeral(type_name) {
            return fail(unknown_type(type_name));
        }
        let Some(decoded) = Private::decode(private) else {
            return fail(Diagnostic::error(
                "Invalid private data",
                "fixture: Renew got private bytes it never sent.",
                None,
            ));
        };
        record(&format!("renew {}", decoded.n));
        if decoded.fails_on("renew") {
            return fail(Diagnostic::error(
                "Renew failed",
                "fixture: fail_on asks RenewEphemeralResource to fail.",
                None,
            ));
        }
        // The interval is not in the private bytes; renewals come every 200 ms after the first.
        Renewed {
            private: Some(decoded.encode()),
            renew_at: Some(SystemTime::now() + Duration::from_millis(200)),
            diagnostics: Vec::new(),
        }
    }

    /// `CloseEphemeralResource`.
    pub fn close_ephemeral_resource(&self, type_name: &str, private: Option<&[u8]>) -> Vec<Diagnostic> {
        if !self.has_ephemeral(type_name) {
            return vec![unknown_type(type_name)];
        }
        let Some(decoded) = Private::decode(private) else {
            return vec![Diagnostic::error(
                "Invalid private data",
                "fixture: Close got private bytes it never sent.",
                None,
            )];
        };
        record(&format!("close {}", decoded.n));
        if decoded.fails_on("close") {
            return vec![Diagnostic::error(
                "Close failed",
                "fixture: fail_on asks CloseEphemeralResource to fail.",
                None,
            )];
        }
        Vec::new()
    }
}

/// The four ephemeral-resource methods of a provider service, written once for both
/// protocols (their messages are the same); used inside `provider_service!` bodies. They are
/// written in the form `#[tonic::async_trait]` gives methods, because that attribute runs
/// before this macro expands and so does not rewrite them.
macro_rules! ephemeral_methods {
    () => {
        crate::ephemeral::ephemeral_methods!(@method validate_ephemeral_resource_config, |fixture, request| {
            fixture.enter("ValidateEphemeralResourceConfig").await?;
            let diagnostics = fixture.validate_ephemeral_resource_config(&request.type_name, &msgpack_of(request.config));
            Ok(Response::new(pb::validate_ephemeral_resource_config::Response { diagnostics: diagnostics_of(diagnostics) }))
        });
        crate::ephemeral::ephemeral_methods!(@method open_ephemeral_resource, |fixture, request| {
            fixture.enter("OpenEphemeralResource").await?;
            let opened = fixture.open_ephemeral_resource(&request.type_name, &msgpack_of(request.config));
            Ok(Response::new(pb::open_ephemeral_resource::Response {
                diagnostics: diagnostics_of(opened.diagnostics),
                renew_at: opened.renew_at.map(crate::ephemeral::timestamp),
                result: if opened.result.is_empty() { None } else { dynamic_value(opened.result) },
                private: opened.private,
                deferred: None,
            }))
        });
        crate::ephemeral::ephemeral_methods!(@method renew_ephemeral_resource, |fixture, request| {
            fixture.enter("RenewEphemeralResource").await?;
            let renewed = fixture.renew_ephemeral_resource(&request.type_name, request.private.as_deref());
            Ok(Response::new(pb::renew_ephemeral_resource::Response {
                diagnostics: diagnostics_of(renewed.diagnostics),
                renew_at: renewed.renew_at.map(crate::ephemeral::timestamp),
                private: renewed.private,
            }))
        });
        crate::ephemeral::ephemeral_methods!(@method close_ephemeral_resource, |fixture, request| {
            fixture.enter("CloseEphemeralResource").await?;
            let diagnostics = fixture.close_ephemeral_resource(&request.type_name, request.private.as_deref());
            Ok(Response::new(pb::close_ephemeral_resource::Response { diagnostics: diagnostics_of(diagnostics) }))
        });
    };
    (@method $name:ident, |$fixture:ident, $request:ident| $body:block) => {
        fn $name<'life0, 'async_trait>(
            &'life0 self,
            request: Request<pb::$name::Request>,
        ) -> ::core::pin::Pin<
            Box<dyn ::core::future::Future<Output = Result<Response<pb::$name::Response>, Status>> + Send + 'async_trait>,
        >
        where
            'life0: 'async_trait,
            Self: 'async_trait,
        {
            Box::pin(async move {
                let $fixture = &self.fixture;
                let $request = request.into_inner();
                $body
            })
        }
    };
}

pub(crate) use ephemeral_methods;

/// A time as a protobuf timestamp.
pub fn timestamp(time: SystemTime) -> prost_types::Timestamp {
    let since = time.duration_since(SystemTime::UNIX_EPOCH).unwrap_or(Duration::ZERO);
    prost_types::Timestamp {
        seconds: i64::try_from(since.as_secs()).unwrap_or(i64::MAX),
        nanos: i32::try_from(since.subsec_nanos()).unwrap_or(0),
    }
}
