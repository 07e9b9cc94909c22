//! A test-only HTTPS server on a loopback address: hyper over tokio-rustls with a certificate
//! from a throwaway rcgen CA. Routes are set per path; every request is recorded with the
//! headers the tests care about. Dropping or shutting it down aborts every connection.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::Full;
use hyper_util::rt::TokioIo;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A throwaway CA and one leaf certificate valid for `localhost`, 127.0.0.1 and 127.0.0.2.
pub struct TestCa {
    pub ca_pem: String,
    leaf_der: CertificateDer<'static>,
    leaf_key_der: Vec<u8>,
}

impl TestCa {
    pub fn generate() -> TestCa {
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params.distinguished_name.push(rcgen::DnType::CommonName, "tfbridge installer test CA");
        ca_params.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign, rcgen::KeyUsagePurpose::DigitalSignature];
        let ca_cert = ca_params.self_signed(&ca_key).unwrap();
        let issuer = rcgen::Issuer::new(ca_params, ca_key);

        let leaf_key = rcgen::KeyPair::generate().unwrap();
        let mut leaf_params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        for ip in ["127.0.0.1", "127.0.0.2"] {
            leaf_params.subject_alt_names.push(rcgen::SanType::IpAddress(ip.parse().unwrap()));
        }
        let leaf_cert = leaf_params.signed_by(&leaf_key, &issuer).unwrap();
        TestCa { ca_pem: ca_cert.pem(), leaf_der: leaf_cert.der().clone(), leaf_key_der: leaf_key.serialize_der() }
    }
}

/// What the server answers on one path.
#[derive(Clone, Debug)]
pub enum Reply {
    Body { status: u16, content_type: &'static str, body: Vec<u8> },
    Redirect(String),
}

impl Reply {
    pub fn json(value: serde_json::Value) -> Reply {
        Reply::Body { status: 200, content_type: "application/json", body: value.to_string().into_bytes() }
    }
    pub fn bytes(body: Vec<u8>) -> Reply {
        Reply::Body { status: 200, content_type: "application/octet-stream", body }
    }
    pub fn status(status: u16) -> Reply {
        Reply::Body { status, content_type: "text/plain", body: format!("status {status}").into_bytes() }
    }
}

/// One request the server saw.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    pub path: String,
    pub authorization: Option<String>,
    pub terraform_version: Option<String>,
}

#[derive(Default)]
struct State {
    routes: Mutex<HashMap<String, Reply>>,
    requests: Mutex<Vec<RecordedRequest>>,
}

pub struct TestServer {
    pub addr: SocketAddr,
    state: Arc<State>,
    task: tokio::task::JoinHandle<()>,
}

impl TestServer {
    /// Starts a server on `ip` (a loopback address) and an ephemeral port.
    pub async fn start(ca: &TestCa, ip: &str) -> TestServer {
        let listener = tokio::net::TcpListener::bind((ip.parse::<IpAddr>().unwrap(), 0)).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let tls_config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![ca.leaf_der.clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(ca.leaf_key_der.clone())),
            )
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls_config));
        let state = Arc::new(State::default());
        let task_state = state.clone();
        let task = tokio::spawn(async move {
            // Connection tasks live in this set, so aborting the accept loop ends them too.
            let mut connections = tokio::task::JoinSet::new();
            loop {
                let Ok((tcp, _)) = listener.accept().await else { continue };
                let acceptor = acceptor.clone();
                let state = task_state.clone();
                connections.spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else { return };
                    let service = hyper::service::service_fn(move |request| {
                        let state = state.clone();
                        async move { Ok::<_, Infallible>(respond(&state, &request)) }
                    });
                    let _ =
                        hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(tls), service).await;
                });
            }
        });
        TestServer { addr, state, task }
    }

    /// `https://<addr>` without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("https://{}", self.addr)
    }

    /// `<ip>:<port>`, usable as a registry hostname in provider addresses.
    pub fn host(&self) -> String {
        self.addr.to_string()
    }

    pub fn route(&self, path: &str, reply: Reply) {
        self.state.routes.lock().unwrap().insert(path.to_owned(), reply);
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state.requests.lock().unwrap().clone()
    }

    /// Stops accepting and drops every open connection; the port then refuses connections.
    pub async fn shut_down(self) {
        self.task.abort();
        // Wait until the aborted task (and with it every connection) is really gone.
        while !self.task.is_finished() {
            tokio::task::yield_now().await;
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn respond(state: &State, request: &hyper::Request<hyper::body::Incoming>) -> hyper::Response<Full<Bytes>> {
    let header = |name: &str| request.headers().get(name).and_then(|value| value.to_str().ok()).map(ToOwned::to_owned);
    let path = request.uri().path().to_owned();
    state.requests.lock().unwrap().push(RecordedRequest {
        path: path.clone(),
        authorization: header("authorization"),
        terraform_version: header("x-terraform-version"),
    });
    let reply = state.routes.lock().unwrap().get(&path).cloned().unwrap_or(Reply::status(404));
    match reply {
        Reply::Body { status, content_type, body } => hyper::Response::builder()
            .status(status)
            .header("content-type", content_type)
            .body(Full::new(Bytes::from(body)))
            .unwrap(),
        Reply::Redirect(location) => {
            hyper::Response::builder().status(302).header("location", location).body(Full::new(Bytes::new())).unwrap()
        }
    }
}
