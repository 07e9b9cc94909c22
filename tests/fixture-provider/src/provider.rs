//! The one provider implementation behind both protocol services.
//!
//! [`Fixture`] holds the schema, the misbehaviour switches and the stop signal. The
//! protocol 5 and protocol 6 services (`provider_v5`, `provider_v6`) are thin maps onto it:
//! every RPC first calls [`Fixture::enter`] with its gRPC method name, which is where the
//! panic and slow switches act, then answers from the shared state.
//!
//! Architecture invariant: `Fixture` knows nothing about the tfplugin5/tfplugin6 message
//! types; conversion to them happens in `convert` and the service modules.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use schema_gen::tf;
use tokio::sync::watch;

use crate::config::Misbehaviour;
use crate::misbehaviour;

/// The shared provider state.
pub struct Fixture {
    pub schema: tf::ProviderSchema,
    misbehaviour: Misbehaviour,
    /// Set once by `StopProvider`/`Stop`; never cleared, like the Go SDKs' stop context.
    stopped: watch::Sender<bool>,
    /// Becomes true once the launch-time flood has been written completely.
    flood_done: watch::Receiver<bool>,
    /// The stderr the process started with, for Go-style panics.
    real_stderr: Mutex<File>,
    /// `FIXTURE_STORE_DIR`, see the `store` module.
    store_dir: Option<PathBuf>,
    /// The last number used in a generated `id`, per resource type, so ids do not depend
    /// on the order in which different types are applied.
    pub(crate) id_counters: Mutex<HashMap<String, u64>>,
}

impl Fixture {
    pub fn new(
        schema: tf::ProviderSchema,
        misbehaviour: Misbehaviour,
        flood_done: watch::Receiver<bool>,
        real_stderr: File,
        store_dir: Option<PathBuf>,
    ) -> Fixture {
        Fixture {
            schema,
            misbehaviour,
            stopped: watch::Sender::new(false),
            flood_done,
            real_stderr: Mutex::new(real_stderr),
            store_dir,
            id_counters: Mutex::new(HashMap::new()),
        }
    }

    pub fn store_dir(&self) -> Option<&Path> {
        self.store_dir.as_deref()
    }

    /// Prints a Go-style panic for `method` on the real stderr and exits with status 2.
    pub fn panic_now(&self, method: &str) -> ! {
        // A poisoned lock only means another thread panicked while writing; the file handle
        // itself is still usable.
        let mut real_stderr = self.real_stderr.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        misbehaviour::go_panic(&mut real_stderr, method)
    }

    /// Waits until the provider is stopped (true) or `limit` passes (false).
    pub async fn wait_for_stop(&self, limit: Duration) -> bool {
        let mut stopped = self.stopped.subscribe();
        tokio::select! {
            () = tokio::time::sleep(limit) => false,
            _ = stopped.wait_for(|stopped| *stopped) => true,
        }
    }

    /// Runs the launch-time switches for a call of `method`: panics the process when
    /// `FIXTURE_PANIC_ON` names it, and waits when `FIXTURE_SLOW_ON` names it. The wait ends
    /// early with `CANCELLED` once the provider has been stopped.
    pub async fn enter(&self, method: &str) -> Result<(), tonic::Status> {
        if self.misbehaviour.panic_on.as_deref() == Some(method) {
            self.panic_now(method);
        }
        if let Some(slow) = &self.misbehaviour.slow
            && slow.method == method
        {
            let mut stopped = self.stopped.subscribe();
            tokio::select! {
                () = tokio::time::sleep(slow.delay) => {}
                _ = stopped.wait_for(|stopped| *stopped) => {
                    return Err(tonic::Status::cancelled(format!("fixture: {method} was stopped by the host before it finished")));
                }
            }
        }
        Ok(())
    }

    /// `StopProvider` (v6) / `Stop` (v5): ends every slow call in progress.
    pub fn stop(&self) {
        self.stopped.send_replace(true);
    }

    /// Waits until the launch-time flood (if any) has been written in full.
    pub async fn flood_written(&self) {
        let mut flood_done = self.flood_done.clone();
        // An error means the flood thread is gone, which only happens once it finished.
        let _ = flood_done.wait_for(|done| *done).await;
    }

    /// The answer to an RPC the fixture does not serve.
    pub fn unimplemented(method: &str) -> tonic::Status {
        tonic::Status::unimplemented(format!("fixture: {method} is not implemented"))
    }
}

/// What kind of schema a type name is looked up in.
#[derive(Clone, Copy, Debug)]
pub enum TypeKind {
    Resource,
    DataSource,
}

impl Fixture {
    /// The error summary for a type name the schema does not declare, if it does not.
    pub fn unknown_type_name(&self, kind: TypeKind, type_name: &str) -> Option<String> {
        let (known, what) = match kind {
            TypeKind::Resource => (self.schema.resources.contains_key(type_name), "resource type"),
            TypeKind::DataSource => (self.schema.data_sources.contains_key(type_name), "data source"),
        };
        (!known).then(|| format!("The fixture provider has no {what} named {type_name:?}"))
    }
}

/// Writes a provider service impl: the listed items as given (the RPCs whose messages or
/// behaviour differ between the protocols), the RPCs that do the same in both under the names
/// each protocol gives them (`renamed`: the metadata converter, then each RPC's method name,
/// message module where it differs from the method's, and the name [`Fixture::enter`]
/// records), the RPCs written the same in both (GetMetadata, GetFunctions, and from
/// UpgradeResourceState on: same method names, same message fields; `pb`, `Request`,
/// `Response`, `Status` and the `protocol_conversions!` helpers resolve in the module that
/// invokes the macro, so each protocol gets its own types), and every method in the
/// `unimplemented` list as a call of [`Fixture::enter`] followed by `UNIMPLEMENTED`.
///
/// A macro rather than default trait methods because tonic's generated traits have none,
/// and the two protocols list about thirty such methods each.
macro_rules! provider_service {
    (
        impl $($service:ident)::+ for $ty:ident { $($body:tt)* }
        renamed {
            metadata: $metadata:path;
            schema: $schema:ident($schema_msg:ident) = $schema_name:literal;
            validate_resource: $validate_resource:ident = $validate_resource_name:literal;
            validate_data_source: $validate_data_source:ident = $validate_data_source_name:literal;
            configure: $configure:ident = $configure_name:literal;
            stop: $stop:ident = $stop_name:literal;
        }
        unimplemented { $($method:ident($request:ty) -> $response:ty = $name:literal;)* }
    ) => {
        #[tonic::async_trait]
        impl $($service)::+ for $ty {
            $($body)*

            async fn get_metadata(
                &self,
                _request: Request<pb::get_metadata::Request>,
            ) -> Result<Response<pb::get_metadata::Response>, Status> {
                self.fixture.enter("GetMetadata").await?;
                Ok(Response::new($metadata(&self.fixture.schema)))
            }

            async fn $schema(
                &self,
                _request: Request<pb::$schema_msg::Request>,
            ) -> Result<Response<pb::$schema_msg::Response>, Status> {
                self.fixture.enter($schema_name).await?;
                self.fixture.flood_written().await;
                Ok(Response::new(self.schema.clone()))
            }

            async fn get_functions(
                &self,
                _request: Request<pb::get_functions::Request>,
            ) -> Result<Response<pb::get_functions::Response>, Status> {
                self.fixture.enter("GetFunctions").await?;
                Ok(Response::new(pb::get_functions::Response {
                    functions: self.schema.functions.clone(),
                    diagnostics: Vec::new(),
                }))
            }

            async fn $validate_resource(
                &self,
                request: Request<pb::$validate_resource::Request>,
            ) -> Result<Response<pb::$validate_resource::Response>, Status> {
                self.fixture.enter($validate_resource_name).await?;
                let request = request.into_inner();
                let diagnostics = self.fixture.validate_resource_config(&request.type_name, &msgpack_of(request.config));
                Ok(Response::new(pb::$validate_resource::Response { diagnostics: diagnostics_of(diagnostics) }))
            }

            async fn $validate_data_source(
                &self,
                request: Request<pb::$validate_data_source::Request>,
            ) -> Result<Response<pb::$validate_data_source::Response>, Status> {
                self.fixture.enter($validate_data_source_name).await?;
                let request = request.into_inner();
                let diagnostics =
                    self.fixture.validate_data_source_config(&request.type_name, &msgpack_of(request.config));
                Ok(Response::new(pb::$validate_data_source::Response { diagnostics: diagnostics_of(diagnostics) }))
            }

            async fn $configure(
                &self,
                request: Request<pb::$configure::Request>,
            ) -> Result<Response<pb::$configure::Response>, Status> {
                self.fixture.enter($configure_name).await?;
                let diagnostics = self.fixture.check_provider_config(&msgpack_of(request.into_inner().config));
                Ok(Response::new(pb::$configure::Response { diagnostics: diagnostics_of(diagnostics) }))
            }

            async fn $stop(
                &self,
                _request: Request<pb::$stop::Request>,
            ) -> Result<Response<pb::$stop::Response>, Status> {
                self.fixture.enter($stop_name).await?;
                self.fixture.stop();
                Ok(Response::new(pb::$stop::Response { error: String::new() }))
            }

            async fn upgrade_resource_state(
                &self,
                request: Request<pb::upgrade_resource_state::Request>,
            ) -> Result<Response<pb::upgrade_resource_state::Response>, Status> {
                self.fixture.enter("UpgradeResourceState").await?;
                let response = self.fixture.upgrade_resource_state(&upgrade_request(request.into_inner()));
                Ok(Response::new(upgrade_response(response)))
            }

            async fn read_resource(
                &self,
                request: Request<pb::read_resource::Request>,
            ) -> Result<Response<pb::read_resource::Response>, Status> {
                self.fixture.enter("ReadResource").await?;
                let request = request.into_inner();
                let response = self.fixture.read_resource(&crate::rpc::ReadRequest {
                    type_name: request.type_name,
                    current_state: msgpack_of(request.current_state),
                    private: request.private,
                });
                Ok(Response::new(read_response(response)))
            }

            async fn plan_resource_change(
                &self,
                request: Request<pb::plan_resource_change::Request>,
            ) -> Result<Response<pb::plan_resource_change::Response>, Status> {
                self.fixture.enter("PlanResourceChange").await?;
                let request = request.into_inner();
                let response = self.fixture.plan_resource_change(&crate::rpc::PlanRequest {
                    planned_private: saved_plan_private(&request),
                    type_name: request.type_name,
                    prior_state: msgpack_of(request.prior_state),
                    proposed_new_state: msgpack_of(request.proposed_new_state),
                    config: msgpack_of(request.config),
                    prior_private: request.prior_private,
                });
                Ok(Response::new(plan_response(response)))
            }

            async fn apply_resource_change(
                &self,
                request: Request<pb::apply_resource_change::Request>,
            ) -> Result<Response<pb::apply_resource_change::Response>, Status> {
                self.fixture.enter("ApplyResourceChange").await?;
                let response = self.fixture.apply_resource_change(&apply_request(request.into_inner())).await;
                Ok(Response::new(apply_response(response)))
            }

            async fn import_resource_state(
                &self,
                request: Request<pb::import_resource_state::Request>,
            ) -> Result<Response<pb::import_resource_state::Response>, Status> {
                self.fixture.enter("ImportResourceState").await?;
                let request = request.into_inner();
                let response = self.fixture.import_resource_state(&request.type_name, &request.id);
                Ok(Response::new(import_response(response)))
            }

            async fn read_data_source(
                &self,
                request: Request<pb::read_data_source::Request>,
            ) -> Result<Response<pb::read_data_source::Response>, Status> {
                self.fixture.enter("ReadDataSource").await?;
                let request = request.into_inner();
                let response = self.fixture.read_data_source(&request.type_name, &msgpack_of(request.config));
                Ok(Response::new(pb::read_data_source::Response {
                    state: dynamic_value(response.state),
                    diagnostics: diagnostics_of(response.diagnostics),
                    deferred: None,
                }))
            }

            async fn call_function(
                &self,
                request: Request<pb::call_function::Request>,
            ) -> Result<Response<pb::call_function::Response>, Status> {
                self.fixture.enter("CallFunction").await?;
                let request = request.into_inner();
                let arguments: Vec<Vec<u8>> = request.arguments.into_iter().map(|argument| argument.msgpack).collect();
                Ok(Response::new(call_function_response(self.fixture.call_function(&request.name, &arguments))))
            }
            $(
                async fn $method(
                    &self,
                    _request: tonic::Request<$request>,
                ) -> Result<tonic::Response<$response>, tonic::Status> {
                    self.fixture.enter($name).await?;
                    Err(crate::provider::Fixture::unimplemented($name))
                }
            )*
        }
    };
}
pub(crate) use provider_service;
