//! The engine as a gRPC service the plugin calls back: a stand-in for the engine's `Engine`
//! service that records what a plugin logs.

use tfbridge_proto::pulumirpc;
use tokio::sync::mpsc;

/// A stand-in for the engine's `Engine` service that records what the plugin logs.
pub async fn recording_engine() -> (String, mpsc::UnboundedReceiver<pulumirpc::LogRequest>) {
    struct Recorder(mpsc::UnboundedSender<pulumirpc::LogRequest>);

    #[tonic::async_trait]
    impl pulumirpc::engine_server::Engine for Recorder {
        async fn log(
            &self,
            request: tonic::Request<pulumirpc::LogRequest>,
        ) -> Result<tonic::Response<()>, tonic::Status> {
            let _ = self.0.send(request.into_inner());
            Ok(tonic::Response::new(()))
        }
        async fn get_root_resource(
            &self,
            _: tonic::Request<pulumirpc::GetRootResourceRequest>,
        ) -> Result<tonic::Response<pulumirpc::GetRootResourceResponse>, tonic::Status> {
            Err(tonic::Status::unimplemented("not recorded"))
        }
        async fn set_root_resource(
            &self,
            _: tonic::Request<pulumirpc::SetRootResourceRequest>,
        ) -> Result<tonic::Response<pulumirpc::SetRootResourceResponse>, tonic::Status> {
            Err(tonic::Status::unimplemented("not recorded"))
        }
        async fn start_debugging(
            &self,
            _: tonic::Request<pulumirpc::StartDebuggingRequest>,
        ) -> Result<tonic::Response<()>, tonic::Status> {
            Err(tonic::Status::unimplemented("not recorded"))
        }
        async fn require_pulumi_version(
            &self,
            _: tonic::Request<pulumirpc::RequirePulumiVersionRequest>,
        ) -> Result<tonic::Response<pulumirpc::RequirePulumiVersionResponse>, tonic::Status> {
            Err(tonic::Status::unimplemented("not recorded"))
        }
    }

    let (sender, receiver) = mpsc::unbounded_channel();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("local addr").to_string();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(pulumirpc::engine_server::EngineServer::new(Recorder(sender)))
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
    );
    (address, receiver)
}
