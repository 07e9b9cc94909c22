//! The provider-configuration, resource and invoke RPCs: decode the Pulumi request, run the
//! lifecycle operation, encode its answer, and turn its errors into statuses the engine
//! understands (partial failures carry `ErrorResourceInitFailed`, missing settings carry
//! `ConfigureErrorMissingKeys`).
//!
//! Architecture invariant: translation only; every decision is made in `lifecycle`.

use std::sync::Arc;

use prost::Message as _;
use tfbridge_proto::pulumirpc;
use tonic::{Code, Status};

use super::Provider;
use crate::lifecycle::{
    Autonaming, CheckFailure, CheckRequest, Checked, ConfigureRequest, CreateRequest, Deadline, DeleteRequest,
    DiffConfigRequest, DiffKind, DiffRequest, Diffed, InvokeRequest, LifecycleError, PartialFailure, ReadRequest,
    Session, Target, UpdateRequest, Written,
};
use crate::property::PropertyMap;
use crate::property::structpb::{decode_struct, encode_struct};

/// The properties of an optional Struct field; an absent one is empty.
pub(super) fn properties(value: Option<&prost_types::Struct>, field: &str) -> Result<PropertyMap, Status> {
    match value {
        None => Ok(PropertyMap::new()),
        Some(value) => decode_struct(value).map_err(|err| Status::invalid_argument(format!("invalid {field}: {err}"))),
    }
}

/// The resource type token in a URN (`urn:pulumi:stack::project::parent$type::name`).
pub(super) fn urn_type(urn: &str) -> &str {
    let qualified = urn.split("::").nth(2).unwrap_or("");
    qualified.rsplit('$').next().unwrap_or(qualified)
}

/// The resource name in a URN.
pub(super) fn urn_name(urn: &str) -> &str {
    urn.splitn(4, "::").nth(3).unwrap_or("")
}

/// The resource a request is about: its `type` token, else the one in its URN (older
/// engines send only the URN).
fn target(token: &str, urn: &str) -> Target {
    let token = if token.is_empty() { urn_type(urn) } else { token };
    Target { token: token.to_owned(), urn: urn.to_owned() }
}

/// What a resource operation answers, with the warnings to show.
trait WithWarnings {
    fn warnings(&self) -> &[String];
}

impl WithWarnings for Checked {
    fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

impl WithWarnings for Diffed {
    fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

impl WithWarnings for Written {
    fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// Delete answers only its warnings.
impl WithWarnings for Vec<String> {
    fn warnings(&self) -> &[String] {
        self
    }
}

pub(super) fn failures(failures: Vec<CheckFailure>) -> Vec<pulumirpc::CheckFailure> {
    failures.into_iter().map(|f| pulumirpc::CheckFailure { property: f.property, reason: f.reason }).collect()
}

fn any(type_name: &str, message: &impl prost::Message) -> prost_types::Any {
    prost_types::Any { type_url: format!("type.googleapis.com/{type_name}"), value: message.encode_to_vec() }
}

/// A status with one detail message, as the engine unpacks them.
fn status_with_detail(code: Code, message: String, detail: prost_types::Any) -> Status {
    let status = tonic_types::pb::Status { code: code as i32, message: message.clone(), details: vec![detail] };
    Status::with_details(code, message, status.encode_to_vec().into())
}

/// An Invoke's warnings, each after the token it invoked (the engine names no resource).
fn after_token(token: &str, warnings: &[String]) -> Vec<String> {
    warnings.iter().map(|warning| format!("{token}: {warning}")).collect()
}

/// The status for a lifecycle error.
pub(super) fn status(error: LifecycleError) -> Status {
    // The engine shows the message under the resource (or after the invoke's token); our log
    // names the subject itself.
    tracing::debug!("{}", error.in_context());
    // Where no engine log is at hand the warnings go to ours (`Provider::failed` sends them).
    let (error, warnings) = error.into_parts();
    for warning in warnings {
        tracing::warn!("{warning}");
    }
    let message = error.to_string();
    match error {
        LifecycleError::Partial(partial) => {
            let PartialFailure { id, outputs, inputs, reasons, .. } = *partial;
            let detail = pulumirpc::ErrorResourceInitFailed {
                id,
                properties: Some(encode_struct(&outputs)),
                reasons,
                inputs: Some(encode_struct(&inputs)),
                // Not the engine's refresh: it reads through the provider the old state names,
                // with the old configuration, so after a wrong credential is fixed its refresh
                // still fails (tests/peer/e2e_dns.rs). The `__meta` mark (`apply_failed`) has
                // Diff and Update read through the provider as configured now.
                refresh_before_update: false,
            };
            status_with_detail(Code::Unknown, message, any("pulumirpc.ErrorResourceInitFailed", &detail))
        }
        LifecycleError::MissingConfig { keys, .. } => {
            let detail = pulumirpc::ConfigureErrorMissingKeys {
                missing_keys: keys
                    .into_iter()
                    .map(|k| pulumirpc::configure_error_missing_keys::MissingKey {
                        name: k.name,
                        description: k.description,
                    })
                    .collect(),
            };
            status_with_detail(Code::InvalidArgument, message, any("pulumirpc.ConfigureErrorMissingKeys", &detail))
        }
        ref other if other.remote_state_uncertain() => Status::internal(message),
        LifecycleError::UnknownToken { .. }
        | LifecycleError::InvalidProperty { .. }
        | LifecycleError::Invalid { .. } => Status::invalid_argument(message),
        LifecycleError::Internal { .. } => Status::internal(message),
        LifecycleError::Unsupported { .. } => Status::unimplemented(message),
        LifecycleError::Deferred { .. } => Status::failed_precondition(message),
        LifecycleError::Interrupted { interruption: crate::lifecycle::Interruption::Cancelled, .. } => {
            Status::cancelled(message)
        }
        LifecycleError::Interrupted { .. } => Status::deadline_exceeded(message),
        LifecycleError::Cancelled(_) => Status::cancelled(message),
        LifecycleError::EngineUnsupported(_) => Status::failed_precondition(message),
        LifecycleError::Call { .. } => Status::unavailable(message),
        // Taken apart above.
        LifecycleError::Warned { error, .. } => status(*error),
        LifecycleError::State { .. }
        | LifecycleError::Diagnostics { .. }
        | LifecycleError::ApplyFailed { .. }
        | LifecycleError::Unreadable { .. }
        | LifecycleError::ProviderBug { .. } => Status::failed_precondition(message),
    }
}

fn diff_response(diffed: Diffed) -> pulumirpc::DiffResponse {
    use pulumirpc::diff_response::DiffChanges;
    use pulumirpc::property_diff::Kind;
    let detailed_diff = diffed
        .detailed
        .iter()
        .map(|d| {
            let kind = match d.kind {
                DiffKind::Add => Kind::Add,
                DiffKind::AddReplace => Kind::AddReplace,
                DiffKind::Delete => Kind::Delete,
                DiffKind::DeleteReplace => Kind::DeleteReplace,
                DiffKind::Update => Kind::Update,
                DiffKind::UpdateReplace => Kind::UpdateReplace,
            };
            (d.path.to_string(), pulumirpc::PropertyDiff { kind: kind as i32, input_diff: false })
        })
        .collect();
    pulumirpc::DiffResponse {
        replaces: diffed.replaces,
        stables: Vec::new(),
        delete_before_replace: diffed.delete_before_replace,
        changes: if diffed.changes { DiffChanges::DiffSome } else { DiffChanges::DiffNone } as i32,
        diffs: diffed.diffs,
        has_detailed_diff: diffed.changes && !diffed.detailed.is_empty(),
        detailed_diff,
    }
}

impl Provider {
    /// The session, or the error every call before Parameterize gets.
    pub(super) async fn session(&self) -> Result<Arc<Session>, Status> {
        self.session.lock().await.clone().ok_or_else(|| {
            Status::failed_precondition(
                "this terraform-provider instance has not been parameterized with a Terraform provider: \
                 use an SDK generated by `pulumi package add terraform-provider <provider>`",
            )
        })
    }

    pub(super) async fn warn_all(&self, urn: Option<&str>, warnings: &[String]) {
        for warning in warnings {
            self.engine_log.log(super::Severity::Warning, urn, warning.clone()).await;
        }
    }

    pub(super) async fn do_check_config(
        &self,
        request: pulumirpc::CheckRequest,
    ) -> Result<pulumirpc::CheckResponse, Status> {
        let session = self.session().await?;
        let config = properties(request.news.as_ref(), "news")?;
        let checked = match session.check_config(ConfigureRequest { urn: request.urn.clone(), config }).await {
            Ok(checked) => checked,
            Err(error) => return Err(self.failed(Some(&request.urn), error).await),
        };
        self.warn_all(Some(&request.urn), &checked.warnings).await;
        Ok(pulumirpc::CheckResponse {
            inputs: Some(encode_struct(&checked.inputs)),
            failures: failures(checked.failures),
        })
    }

    /// CheckConfig2 (Pulumi 3.277): the same check as CheckConfig, in messages of its own.
    /// Answered rather than left to the engine's fallback, so a 3.277 engine makes one call,
    /// not an UNIMPLEMENTED round trip and then CheckConfig.
    pub(super) async fn do_check_config2(
        &self,
        request: pulumirpc::CheckConfigRequest,
    ) -> Result<pulumirpc::CheckConfigResponse, Status> {
        let session = self.session().await?;
        let config = properties(request.new_inputs.as_ref(), "new_inputs")?;
        let checked =
            session.check_config(ConfigureRequest { urn: request.urn.clone(), config }).await.map_err(status)?;
        self.warn_all(Some(&request.urn), &checked.warnings).await;
        Ok(pulumirpc::CheckConfigResponse {
            inputs: Some(encode_struct(&checked.inputs)),
            failures: checked
                .failures
                .into_iter()
                .map(|f| pulumirpc::CheckConfigFailure { property: f.property, reason: f.reason })
                .collect(),
        })
    }

    pub(super) async fn do_diff_config(
        &self,
        request: pulumirpc::DiffRequest,
    ) -> Result<pulumirpc::DiffResponse, Status> {
        let session = self.session().await?;
        let olds = match request.old_inputs.as_ref() {
            Some(old_inputs) => properties(Some(old_inputs), "old_inputs")?,
            None => properties(request.olds.as_ref(), "olds")?,
        };
        let news = properties(request.news.as_ref(), "news")?;
        Ok(diff_response(session.diff_config(DiffConfigRequest { olds, news })))
    }

    pub(super) async fn do_configure(
        &self,
        request: pulumirpc::ConfigureRequest,
    ) -> Result<pulumirpc::ConfigureResponse, Status> {
        let session = self.session().await?;
        // Every engine that speaks Handshake sends `args`; the deprecated `variables` map
        // holds the same settings as strings.
        let config = properties(request.args.as_ref(), "args")?;
        let urn = request.urn.clone().unwrap_or_else(|| format!("pulumi:providers:{}", session.package_name()));
        let warnings = match session.configure(ConfigureRequest { urn: urn.clone(), config }).await {
            Ok(warnings) => warnings,
            Err(error) => return Err(self.failed(Some(&urn), error).await),
        };
        self.warn_all(Some(&urn), &warnings).await;
        Ok(pulumirpc::ConfigureResponse {
            accept_secrets: true,
            supports_preview: true,
            accept_resources: true,
            accept_outputs: false,
            supports_autonaming_configuration: true,
        })
    }

    pub(super) async fn do_check(&self, request: pulumirpc::CheckRequest) -> Result<pulumirpc::CheckResponse, Status> {
        let session = self.session().await?;
        let autonaming = match &request.autonaming {
            None => Autonaming::Default,
            Some(options) => {
                use pulumirpc::check_request::autonaming_options::Mode;
                match Mode::try_from(options.mode).unwrap_or(Mode::Propose) {
                    Mode::Disable => Autonaming::Disable,
                    Mode::Enforce => Autonaming::Enforce(options.proposed_name.clone()),
                    Mode::Propose if options.proposed_name.is_empty() => Autonaming::Default,
                    Mode::Propose => Autonaming::Propose(options.proposed_name.clone()),
                }
            }
        };
        let check = CheckRequest {
            target: target(&request.r#type, &request.urn),
            name: if request.name.is_empty() { urn_name(&request.urn) } else { &request.name }.to_owned(),
            olds: properties(request.olds.as_ref(), "olds")?,
            news: properties(request.news.as_ref(), "news")?,
            // Sent by engines of 3.261 and later on an update's Check only (Handshake's
            // `sends_old_outputs_to_check`); absent, there are none.
            old_outputs: request.old_outputs.as_ref().map(|o| properties(Some(o), "old_outputs")).transpose()?,
            random_seed: request.random_seed,
            autonaming,
        };
        let checked = self.warned(&request.urn, session.check(check)).await?;
        Ok(pulumirpc::CheckResponse {
            inputs: Some(encode_struct(&checked.inputs)),
            failures: failures(checked.failures),
        })
    }

    pub(super) async fn do_diff(&self, request: pulumirpc::DiffRequest) -> Result<pulumirpc::DiffResponse, Status> {
        let session = self.session().await?;
        let diff = DiffRequest {
            target: target(&request.r#type, &request.urn),
            id: request.id,
            olds: properties(request.olds.as_ref(), "olds")?,
            news: properties(request.news.as_ref(), "news")?,
        };
        Ok(diff_response(self.warned(&request.urn, session.diff(diff)).await?))
    }

    pub(super) async fn do_create(
        &self,
        request: pulumirpc::CreateRequest,
    ) -> Result<pulumirpc::CreateResponse, Status> {
        let session = self.session().await?;
        let create = CreateRequest {
            target: target(&request.r#type, &request.urn),
            news: properties(request.properties.as_ref(), "properties")?,
            preview: request.preview,
            deadline: self.deadline(request.timeout),
        };
        let written = self.warned(&request.urn, session.create(create)).await?;
        Ok(pulumirpc::CreateResponse {
            id: written.id,
            properties: Some(encode_struct(&written.outputs)),
            refresh_before_update: false,
        })
    }

    pub(super) async fn do_update(
        &self,
        request: pulumirpc::UpdateRequest,
    ) -> Result<pulumirpc::UpdateResponse, Status> {
        let session = self.session().await?;
        let update = UpdateRequest {
            target: target(&request.r#type, &request.urn),
            id: request.id,
            olds: properties(request.olds.as_ref(), "olds")?,
            news: properties(request.news.as_ref(), "news")?,
            preview: request.preview,
            deadline: self.deadline(request.timeout),
        };
        let written = self.warned(&request.urn, session.update(update)).await?;
        Ok(pulumirpc::UpdateResponse {
            properties: Some(encode_struct(&written.outputs)),
            refresh_before_update: false,
        })
    }

    pub(super) async fn do_delete(&self, request: pulumirpc::DeleteRequest) -> Result<(), Status> {
        let session = self.session().await?;
        let delete = DeleteRequest {
            target: target(&request.r#type, &request.urn),
            id: request.id,
            olds: properties(request.properties.as_ref(), "properties")?,
            deadline: self.deadline(request.timeout),
        };
        self.warned(&request.urn, session.delete(delete)).await?;
        Ok(())
    }

    pub(super) async fn do_read(&self, request: pulumirpc::ReadRequest) -> Result<pulumirpc::ReadResponse, Status> {
        let session = self.session().await?;
        let read = ReadRequest {
            target: target(&request.r#type, &request.urn),
            id: request.id,
            outputs: request.properties.as_ref().map(|p| properties(Some(p), "properties")).transpose()?,
            inputs: request.inputs.as_ref().map(|p| properties(Some(p), "inputs")).transpose()?,
        };
        let Written { id, outputs, inputs, .. } = self.warned(&request.urn, session.read(read)).await?;
        if id.is_empty() {
            // Gone: an empty ID and no properties, which is how the engine hears "deleted".
            return Ok(pulumirpc::ReadResponse::default());
        }
        Ok(pulumirpc::ReadResponse {
            id,
            properties: Some(encode_struct(&outputs)),
            inputs: inputs.as_ref().map(encode_struct),
            refresh_before_update: false,
        })
    }

    /// A resource operation's answer, its warnings shown to the engine against `urn`; an
    /// error becomes its status.
    async fn warned<T: WithWarnings>(
        &self,
        urn: &str,
        answer: impl std::future::Future<Output = Result<T, LifecycleError>>,
    ) -> Result<T, Status> {
        let answer = match answer.await {
            Ok(answer) => answer,
            Err(error) => return Err(self.failed(Some(urn), error).await),
        };
        self.warn_all(Some(urn), answer.warnings()).await;
        Ok(answer)
    }

    /// The status for a failed call, after the warnings raised before the failure are shown
    /// against `urn`, as Terraform shows every diagnostic of a failed step.
    pub(super) async fn failed(&self, urn: Option<&str>, error: LifecycleError) -> Status {
        let (error, warnings) = error.into_parts();
        self.warn_all(urn, &warnings).await;
        status(error)
    }

    /// The engine's timeout for a change, and this process's Cancel.
    fn deadline(&self, timeout_seconds: f64) -> Deadline {
        Deadline { timeout_seconds, cancel: self.cancel.clone() }
    }

    pub(super) async fn do_invoke(
        &self,
        request: pulumirpc::InvokeRequest,
    ) -> Result<pulumirpc::InvokeResponse, Status> {
        let session = self.session().await?;
        // The engine says whether an Invoke is part of a preview only when its Handshake
        // declared `invoke_with_preview`; actions need to know.
        let invoke_with_preview =
            self.engine_info.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).invoke_with_preview;
        let args = properties(request.args.as_ref(), "args")?;
        // A running action's progress arrives synchronously from its stream; a task sends
        // it to the engine as status lines, in order, and is awaited so that every line is
        // shown before the Invoke answers.
        let (progress, forwarder) = self.progress_forwarder();
        let invoked = session
            .invoke(InvokeRequest {
                token: request.tok.clone(),
                args,
                preview: invoke_with_preview.then_some(request.preview),
                progress,
                cancel: self.cancel.clone(),
            })
            .await;
        // The request, and with it the progress sender, is gone: the forwarder ends.
        let _ = forwarder.await;
        let invoked = match invoked {
            Ok(invoked) => invoked,
            Err(error) => {
                let (error, warnings) = error.into_parts();
                self.warn_all(None, &after_token(&request.tok, &warnings)).await;
                return Err(status(error));
            }
        };
        self.warn_all(invoked.urn.as_deref(), &after_token(&request.tok, &invoked.warnings)).await;
        Ok(pulumirpc::InvokeResponse {
            r#return: Some(encode_struct(&invoked.outputs)),
            failures: failures(invoked.failures),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urn_parts() {
        let cases = [
            ("urn:pulumi:dev::proj::random:index/pet:Pet::my-pet", "random:index/pet:Pet", "my-pet"),
            ("urn:pulumi:dev::proj::my:comp$random:index/pet:Pet::a::b", "random:index/pet:Pet", "a::b"),
            ("garbage", "", ""),
        ];
        for (urn, ty, name) in cases {
            assert_eq!((urn_type(urn), urn_name(urn)), (ty, name), "{urn}");
        }
    }
}
