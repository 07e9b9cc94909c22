//! The installer's HTTP client: rustls (aws-lc-rs) with the platform's roots plus any extra
//! roots from the configuration, bounded retries, size limits, and redirects followed by hand
//! so that a host's credentials are only ever sent to that same host over https.
//!
//! Architecture invariant: the only module that talks HTTP; it knows no registry or mirror
//! document format.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use url::Url;

use super::Progress;
use super::cliconfig::Token;
use super::error::Error;

/// Most redirects followed for one request; Terraform's clients allow about as many.
const MAX_REDIRECTS: usize = 10;

/// What the HTTP client needs from the installer configuration.
pub(crate) struct HttpSettings<'a> {
    pub(crate) extra_root_certificates_pem: &'a [Vec<u8>],
    pub(crate) tokens: &'a BTreeMap<String, Token>,
    pub(crate) terraform_version: &'a str,
    pub(crate) request_timeout: Duration,
    pub(crate) retries: u32,
}

pub(crate) struct HttpClient {
    client: reqwest::Client,
    tokens: BTreeMap<String, Token>,
    terraform_version: String,
    request_timeout: Duration,
    retries: u32,
}

/// A small response read completely into memory.
pub(crate) struct SmallResponse {
    pub(crate) status: u16,
    pub(crate) body: Vec<u8>,
    /// The URL that answered after redirects; relative URLs in the body resolve against it.
    pub(crate) final_url: Url,
    pub(crate) content_type: String,
}

impl HttpClient {
    pub(crate) fn new(settings: &HttpSettings<'_>) -> Result<HttpClient, Error> {
        let mut certificates = Vec::new();
        for pem in settings.extra_root_certificates_pem {
            let parsed = reqwest::Certificate::from_pem_bundle(pem)
                .map_err(|error| Error::InvalidRootCertificates { reason: error.to_string() })?;
            certificates.extend(parsed);
        }
        let had_extra_roots = !certificates.is_empty();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(settings.request_timeout)
            .read_timeout(settings.request_timeout)
            .user_agent(format!("tfbridge-provider-installer/{}", env!("CARGO_PKG_VERSION")))
            .tls_certs_merge(certificates)
            .build()
            .map_err(|source| {
                // With our fixed settings the only input that can make the builder fail is a
                // certificate that is valid PEM but not a valid X.509 certificate.
                if had_extra_roots {
                    let cause = std::error::Error::source(&source).map(ToString::to_string).unwrap_or_default();
                    Error::InvalidRootCertificates { reason: format!("{source}: {cause}") }
                } else {
                    Error::Transport { url: "(building the HTTP client)".to_owned(), source }
                }
            })?;
        Ok(HttpClient {
            client,
            tokens: settings.tokens.clone(),
            terraform_version: settings.terraform_version.to_owned(),
            request_timeout: settings.request_timeout,
            retries: settings.retries,
        })
    }

    /// Whether a request to `url` would carry credentials.
    pub(crate) fn has_credentials_for(&self, url: &Url) -> bool {
        self.token_for(url).is_some()
    }

    /// Credentials are keyed by host (with the port when it is not the default) and only sent
    /// over https, so a redirect to another host or to plain http never leaks them.
    fn token_for(&self, url: &Url) -> Option<&str> {
        if url.scheme() != "https" {
            return None;
        }
        let host = url.host_str()?.to_ascii_lowercase();
        let authority = match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host,
        };
        self.tokens.get(&authority).map(Token::expose)
    }

    /// GETs a document of at most `limit` bytes, whatever its status.
    pub(crate) async fn get_small(&self, url: &Url, accept: &str, limit: u64) -> Result<SmallResponse, Error> {
        let (mut response, final_url) = self.send_following_redirects(url, Some(accept), true).await?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let mut body = Vec::new();
        loop {
            let chunk =
                response.chunk().await.map_err(|source| Error::Transport { url: final_url.to_string(), source })?;
            let Some(chunk) = chunk else { break };
            if body.len() as u64 + chunk.len() as u64 > limit {
                return Err(Error::ResponseTooLarge { url: final_url.to_string(), limit });
            }
            body.extend_from_slice(&chunk);
        }
        Ok(SmallResponse { status, body, final_url, content_type })
    }

    /// Streams `url` into the new file `dest` (at most `limit` bytes), reporting progress, and
    /// returns the hex SHA-256 of what was written. Any non-200 answer is an error.
    pub(crate) async fn download(
        &self,
        url: &Url,
        dest: &Path,
        limit: u64,
        progress: &dyn Progress,
    ) -> Result<String, Error> {
        let (mut response, final_url) = self.send_following_redirects(url, None, false).await?;
        let status = response.status().as_u16();
        if status != 200 {
            let had_credentials = self.has_credentials_for(&final_url);
            return Err(status_error(&final_url, status, String::new(), had_credentials));
        }
        let total = response.content_length();
        if total.is_some_and(|total| total > limit) {
            return Err(Error::ResponseTooLarge { url: final_url.to_string(), limit });
        }
        let mut file = tokio::fs::File::create_new(dest).await.map_err(Error::io("cannot create", dest))?;
        let mut hasher = super::hash::Sha256Hasher::new();
        let mut received: u64 = 0;
        let mut last_reported: u64 = 0;
        let display_url = url.to_string();
        progress.download(&display_url, 0, total);
        loop {
            let chunk =
                response.chunk().await.map_err(|source| Error::Transport { url: final_url.to_string(), source })?;
            let Some(chunk) = chunk else { break };
            received += chunk.len() as u64;
            if received > limit {
                return Err(Error::ResponseTooLarge { url: final_url.to_string(), limit });
            }
            hasher.update(&chunk);
            file.write_all(&chunk).await.map_err(Error::io("cannot write", dest))?;
            // Reporting every chunk would flood the caller; once per MiB is plenty for a status line.
            if received - last_reported >= 1 << 20 {
                progress.download(&display_url, received, total);
                last_reported = received;
            }
        }
        file.flush().await.map_err(Error::io("cannot write", dest))?;
        file.sync_all().await.map_err(Error::io("cannot sync", dest))?;
        progress.download(&display_url, received, total);
        Ok(super::hash::to_hex(&hasher.finish()))
    }

    async fn send_following_redirects(
        &self,
        url: &Url,
        accept: Option<&str>,
        whole_request_timeout: bool,
    ) -> Result<(reqwest::Response, Url), Error> {
        let mut current = url.clone();
        let mut visited = HashSet::new();
        for _ in 0..=MAX_REDIRECTS {
            if !visited.insert(current.clone()) {
                return Err(Error::RedirectLoop { url: current.to_string() });
            }
            let response = self.send_with_retries(&current, accept, whole_request_timeout).await?;
            if !response.status().is_redirection() || response.status() == reqwest::StatusCode::NOT_MODIFIED {
                return Ok((response, current));
            }
            let location =
                response.headers().get(reqwest::header::LOCATION).and_then(|value| value.to_str().ok()).ok_or_else(
                    || Error::InvalidResponse {
                        url: current.to_string(),
                        reason: format!("redirect ({}) without a Location header", response.status().as_u16()),
                    },
                )?;
            let next = resolve(&current, location)?;
            current = next;
        }
        Err(Error::TooManyRedirects { url: url.to_string(), limit: MAX_REDIRECTS })
    }

    /// Retries connection failures, timeouts, 5xx and 429 a bounded number of times.
    async fn send_with_retries(
        &self,
        url: &Url,
        accept: Option<&str>,
        whole_request_timeout: bool,
    ) -> Result<reqwest::Response, Error> {
        let mut attempt: u32 = 0;
        loop {
            let mut request = self.client.get(url.clone()).header("X-Terraform-Version", &self.terraform_version);
            if let Some(accept) = accept {
                request = request.header(reqwest::header::ACCEPT, accept);
            }
            if let Some(token) = self.token_for(url) {
                request = request.bearer_auth(token);
            }
            if whole_request_timeout {
                request = request.timeout(self.request_timeout);
            }
            let result = request.send().await;
            let retryable = match &result {
                Err(error) => error.is_connect() || error.is_timeout(),
                Ok(response) => {
                    response.status().is_server_error() || response.status() == reqwest::StatusCode::TOO_MANY_REQUESTS
                }
            };
            if retryable && attempt < self.retries {
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(250 * u64::from(attempt))).await;
                continue;
            }
            return result.map_err(|source| Error::Transport { url: url.to_string(), source });
        }
    }
}

impl SmallResponse {
    /// Nothing if the response is a 200; else the error for its status (`http` says whether
    /// credentials went with it).
    pub(crate) fn require_ok(&self, http: &HttpClient) -> Result<(), Error> {
        if self.status == 200 {
            return Ok(());
        }
        let had_credentials = http.has_credentials_for(&self.final_url);
        Err(status_error(
            &self.final_url,
            self.status,
            String::from_utf8_lossy(&self.body).into_owned(),
            had_credentials,
        ))
    }
}

/// Maps an unexpected status to the error a user can act on.
pub(crate) fn status_error(url: &Url, status: u16, body: String, had_credentials: bool) -> Error {
    if status == 401 || status == 403 {
        return Error::Unauthorized { url: url.to_string(), status, had_credentials };
    }
    // Error pages can be long HTML documents; the first line is enough context.
    let first_line: String = body.lines().next().unwrap_or("").chars().take(200).collect();
    Error::HttpStatus { url: url.to_string(), status, body: first_line }
}

/// Tokens from `TF_TOKEN_<host>` variables: `_` stands for `.` and `__` for `-`, so
/// `TF_TOKEN_app_example__corp_com` is the token for `app.example-corp.com`.
pub(crate) fn tokens_from_environment(vars: impl Iterator<Item = (String, String)>) -> BTreeMap<String, Token> {
    let mut tokens = BTreeMap::new();
    for (name, value) in vars {
        let Some(encoded_host) = name.strip_prefix("TF_TOKEN_") else { continue };
        if encoded_host.is_empty() || value.is_empty() {
            continue;
        }
        let host = encoded_host.replace("__", "\u{0}").replace('_', ".").replace('\u{0}', "-");
        tokens.insert(host.to_ascii_lowercase(), Token::new(value));
    }
    tokens
}

/// Resolves a URL from a response (a redirect's Location, a link in a document) against the
/// response's URL; only http(s) is acceptable.
pub(crate) fn resolve(base: &Url, reference: &str) -> Result<Url, Error> {
    let resolved = base.join(reference).map_err(|error| Error::InvalidResponse {
        url: base.to_string(),
        reason: format!("invalid URL {reference:?}: {error}"),
    })?;
    if resolved.scheme() != "https" && resolved.scheme() != "http" {
        return Err(Error::InvalidResponse {
            url: base.to_string(),
            reason: format!("URL {resolved} is neither http nor https"),
        });
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_variable_names_map_to_hosts() {
        let vars = [
            ("TF_TOKEN_app_terraform_io", "a"),
            ("TF_TOKEN_my__corp_example_com", "b"),
            ("TF_TOKEN_", "ignored"),
            ("TF_TOKEN_empty_example", ""),
            ("PATH", "/bin"),
        ];
        let tokens = tokens_from_environment(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let rendered: Vec<String> = tokens.iter().map(|(host, token)| format!("{host}={}", token.expose())).collect();
        assert_eq!(rendered, ["app.terraform.io=a", "my-corp.example.com=b"]);
    }
}
