//! List: Pulumi's `List` RPC (`pulumi do <token> list`) onto a Terraform list resource,
//! with the pages and continuation tokens the Pulumi protocol defines.
//!
//! The query is the resource's `listInputs` (the list resource's configuration, under Pulumi
//! names). The first page validates it (ValidateListResourceConfig) and opens one
//! ListResource stream; each page reads at most `page_size` results from it and ends with a
//! continuation token, empty after the last page. The open stream waits between pages in
//! [`ListSessions`], bound to its token, query and limit, for [`SESSION_TTL`], as the Go
//! bridge's statically built providers do (pulumi-terraform-bridge #3446). Each result's
//! `id` and `name` follow their rules too ([`result_id`]).
//!
//! Architecture invariant: no gRPC types; a page is plain data with the error, if any, that
//! ended it after the results it carries.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::convert::paths::pulumi_path;
use crate::convert::values::{self as convert, UnknownKeys};
use crate::cty::{self, Value};
use crate::lifecycle::calls::{Connection, TokenKind};
use crate::lifecycle::calls::{Listed, Listing};
use crate::lifecycle::support::error::{LifecycleError, Subject};
use crate::property::PropertyMap;

/// A page size of 0 lets the provider choose: the Go bridge's choice.
pub const DEFAULT_PAGE_SIZE: i64 = 100;
/// The most results one page holds, whatever the engine asks.
pub const MAX_PAGE_SIZE: i64 = 400;
/// How long an unfinished listing waits for its next page.
pub const SESSION_TTL: Duration = Duration::from_secs(300);

/// One `List` request.
#[derive(Clone, Debug, PartialEq)]
pub struct ListQuery {
    pub token: String,
    pub query: PropertyMap,
    /// The most results across all pages; below 1 means no limit.
    pub limit: i64,
    /// The most results in this page; 0 lets the provider choose.
    pub page_size: i64,
    /// Empty for the first page.
    pub continuation_token: String,
}

/// One page of results: (id, name) pairs, then the continuation token (empty when there
/// are no more pages), or the error that ended the listing after `results`.
#[derive(Debug)]
pub struct ListPage {
    pub results: Vec<(String, String)>,
    pub outcome: Result<String, LifecycleError>,
}

/// Listings waiting for their next page.
#[derive(Default)]
pub struct ListSessions(Mutex<HashMap<String, PendingList>>);

struct PendingList {
    token: String,
    fingerprint: String,
    /// The limit the last page was asked with.
    limit: i64,
    /// The most results the whole listing may return, if limited.
    cap: Option<i64>,
    returned: i64,
    listing: Listing,
    last_used: Instant,
}

/// Why a result has no Pulumi ID.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResultIdError {
    #[error("the identity has no attributes")]
    Empty,
    #[error("identity attribute {0:?} is null")]
    Null(String),
    #[error("identity attribute {name:?} has the unsupported type {ty}")]
    Unsupported { name: String, ty: String },
}

/// A result's Pulumi ID, by the Go bridge's rule: the resource object's top-level `id` when
/// it has a non-null one; else the identity's `id` attribute; else every identity attribute
/// in name order, each as text (lists and sets as JSON arrays of text), joined with `,`.
/// It is a listing's ID, not a claim that the provider imports it; identity JSON is what
/// imports by identity (`docs/schema-mapping.md`).
pub fn result_id(object: Option<&Value>, identity: &Value) -> Result<String, ResultIdError> {
    if let Some(id) = object.and_then(|object| object.get_attr("id")).filter(|id| !id.is_null())
        && let Some(text) = scalar_text(id)
    {
        return Ok(text);
    }
    let attributes = identity.attributes().unwrap_or_default();
    if attributes.is_empty() {
        return Err(ResultIdError::Empty);
    }
    let text_of = |name: &str, value: &Value| -> Result<String, ResultIdError> {
        if value.is_null() {
            return Err(ResultIdError::Null(name.to_owned()));
        }
        if let Some(text) = scalar_text(value) {
            return Ok(text);
        }
        match value.elements() {
            Some(elements) => {
                let texts: Option<Vec<String>> = elements.iter().map(scalar_text).collect();
                let texts = texts.ok_or_else(|| ResultIdError::Unsupported {
                    name: name.to_owned(),
                    ty: value.ty().to_json().to_string(),
                })?;
                Ok(serde_json::to_string(&texts).unwrap_or_default())
            }
            None => Err(ResultIdError::Unsupported { name: name.to_owned(), ty: value.ty().to_json().to_string() }),
        }
    };
    if let Some((name, value)) = attributes.iter().find(|(name, _)| name.as_str() == "id") {
        return text_of(name, value);
    }
    let mut sorted: Vec<&(cty::Str, Value)> = attributes.iter().collect();
    sorted.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    let texts = sorted.iter().map(|(name, value)| text_of(name, value)).collect::<Result<Vec<_>, _>>()?;
    Ok(texts.join(","))
}

/// A known string, bool or number as text (numbers in plain decimal, as Go's
/// `big.Float.Text('f', -1)`).
fn scalar_text(value: &Value) -> Option<String> {
    if let Some(text) = value.as_str() {
        return Some(text.to_owned());
    }
    if let Some(b) = value.as_bool() {
        return Some(b.to_string());
    }
    value.as_number().map(ToString::to_string)
}

impl ListSessions {
    fn take(&self, token: &str) -> Option<PendingList> {
        let mut sessions = self.0.lock().unwrap_or_else(|p| p.into_inner());
        // Expired listings are dropped (closing their streams) whenever one is looked up.
        sessions.retain(|_, session| session.last_used.elapsed() < SESSION_TTL);
        sessions.remove(token)
    }

    fn put(&self, key: String, session: PendingList) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).insert(key, session);
    }
}

/// List: one page of the resources a Terraform list resource finds.
pub(crate) async fn list(
    connection: &std::sync::Arc<Connection>,
    sessions: &ListSessions,
    query: &ListQuery,
) -> ListPage {
    let fail = |error| ListPage { results: Vec::new(), outcome: Err(error) };
    let subject = Subject::Token(query.token.clone());
    let page_size = match page_size(query, &subject) {
        Ok(page_size) => page_size,
        Err(error) => return fail(error),
    };
    let fingerprint = fingerprint(&query.query);
    let session = if query.continuation_token.is_empty() {
        open_listing(connection, &subject, query, &fingerprint).await
    } else {
        resume(sessions, query, &fingerprint, &subject)
    };
    let mut session = match session {
        Ok(session) => session,
        Err(error) => return fail(error),
    };
    let (results, filled) = fill_page(&mut session, page_size, &subject).await;
    match filled {
        Err(error) => ListPage { results, outcome: Err(error) },
        Ok(Filled::Finished) => ListPage { results, outcome: Ok(String::new()) },
        Ok(Filled::More) => {
            let next = new_token();
            session.last_used = Instant::now();
            sessions.put(next.clone(), session);
            ListPage { results, outcome: Ok(next) }
        }
    }
}

fn invalid(subject: &Subject, message: impl Into<String>) -> LifecycleError {
    LifecycleError::Invalid { subject: subject.clone(), message: message.into() }
}

/// The page size a query asks for (0: the default), after its limit and page size are
/// checked.
fn page_size(query: &ListQuery, subject: &Subject) -> Result<i64, LifecycleError> {
    if query.limit < 0 {
        return Err(invalid(subject, "limit must be >= 0"));
    }
    if query.page_size < 0 {
        return Err(invalid(subject, "page_size must be >= 0"));
    }
    Ok(match query.page_size {
        0 => DEFAULT_PAGE_SIZE,
        size => size.min(MAX_PAGE_SIZE),
    })
}

/// A later page's listing: the one its continuation token left, asked for the same token
/// and query.
fn resume(
    sessions: &ListSessions,
    query: &ListQuery,
    fingerprint: &str,
    subject: &Subject,
) -> Result<PendingList, LifecycleError> {
    let Some(mut session) = sessions.take(&query.continuation_token) else {
        return Err(invalid(subject, "invalid or expired continuation_token"));
    };
    // A different limit on a later page is not refused, unlike the protocol's rule
    // and the Go bridge: `pulumi do --count N` (CLI 3.259) asks each page for the
    // results still missing. It then caps what is left to return.
    if session.limit != query.limit {
        session.cap = (query.limit > 0).then_some(session.returned + query.limit);
        session.limit = query.limit;
    }
    let mismatch = if session.token != query.token {
        Some("token")
    } else if session.fingerprint != fingerprint {
        Some("query")
    } else {
        None
    };
    if let Some(what) = mismatch {
        return Err(invalid(subject, format!("continuation_token was used with a different {what}")));
    }
    Ok(session)
}

/// Whether a listing has more to give after a page.
enum Filled {
    /// The provider's stream ended, or the listing's cap was reached.
    Finished,
    /// The page is full; the stream may hold more.
    More,
}

/// Up to `page_size` results from the listing's stream, and whether it has more; an error
/// ends the page with the results before it.
async fn fill_page(
    session: &mut PendingList,
    page_size: i64,
    subject: &Subject,
) -> (Vec<(String, String)>, Result<Filled, LifecycleError>) {
    let mut results = Vec::new();
    let capped = |session: &PendingList| session.cap.is_some_and(|cap| session.returned >= cap);
    while (results.len() as i64) < page_size {
        if capped(session) {
            return (results, Ok(Filled::Finished));
        }
        let listed = match session.listing.next().await {
            None => return (results, Ok(Filled::Finished)),
            Some(Err(error)) => return (results, Err(error)),
            Some(Ok(listed)) => listed,
        };
        match result(&listed) {
            Ok(result) => {
                results.push(result);
                session.returned += 1;
            }
            Err(error) => {
                let error = LifecycleError::ProviderBug {
                    subject: subject.clone(),
                    summary: "Provider returned an invalid list result",
                    problems: vec![format!(
                        "the result {:?} has no top-level id and no usable identity: {error}",
                        listed.display_name
                    )],
                };
                return (results, Err(error));
            }
        }
    }
    let filled = if capped(session) { Filled::Finished } else { Filled::More };
    (results, Ok(filled))
}

/// The first page's work: the list resource behind the token, the query as its
/// configuration (wholly known), ValidateListResourceConfig, then ListResource.
async fn open_listing(
    connection: &std::sync::Arc<Connection>,
    subject: &Subject,
    query: &ListQuery,
    fingerprint: &str,
) -> Result<PendingList, LifecycleError> {
    let tf_name = match connection.lookup_token(&query.token) {
        Some((TokenKind::Resource, tf_name)) => tf_name.to_owned(),
        _ => {
            return Err(LifecycleError::UnknownToken {
                kind: "resource",
                token: query.token.clone(),
                package: connection.package_name().to_owned(),
            });
        }
    };
    let Some((_, list_schema)) = connection.schema().list_resource(&tf_name) else {
        return Err(LifecycleError::Unsupported {
            subject: subject.clone(),
            message: format!(
                "{} has no Terraform list resource for {tf_name}, so {} cannot be listed (list resources need \
                 a provider built for Terraform 1.14, protocol 5.10/6.10)",
                connection.display_name(),
                query.token
            ),
        });
    };
    let resource = connection.list_resource(&tf_name, &list_schema.block, subject.clone());
    let (block, names) = (resource.block(), resource.names());
    let (config, _secrets) = convert::to_cty(block, names, &query.query, UnknownKeys::Reject)
        .map_err(|error| LifecycleError::InvalidProperty { subject: subject.clone(), error: Box::new(error) })?;
    // Absent fields are null attributes, never a null object: Terraform sends the
    // empty configuration when a query has no `config` block.
    let config = if config.is_null() {
        cty::empty_block_value(block).map_err(|err| LifecycleError::Internal {
            subject: subject.clone(),
            message: format!("the empty list query cannot be built: {err}"),
        })?
    } else {
        config
    };
    let unknown = cty::unknown_paths(&config);
    if !unknown.is_empty() {
        let paths: Vec<String> = unknown.iter().map(|path| pulumi_path(block, names, path).to_string()).collect();
        return Err(LifecycleError::Invalid {
            subject: subject.clone(),
            message: format!(
                "the list query is not known: the value of {} is unknown; list inputs must be known values, as \
                 in `terraform query`",
                paths.join(", ")
            ),
        });
    }
    let diagnostics = resource.validate_list_resource_config(&config).await?;
    let rpc = crate::tfplugin::Rpc::ValidateListResourceConfig;
    if !diagnostics.errors.is_empty() {
        return Err(LifecycleError::Diagnostics { subject: subject.clone(), rpc, diagnostics: diagnostics.errors });
    }
    for warning in &diagnostics.warnings {
        tracing::warn!(%subject, "{rpc}: {warning}");
    }
    let limit = if query.limit > 0 { query.limit } else { i64::MAX };
    let listing = resource.list_resource(connection, &config, limit).await?;
    Ok(PendingList {
        token: query.token.clone(),
        fingerprint: fingerprint.to_owned(),
        limit: query.limit,
        cap: (query.limit > 0).then_some(query.limit),
        returned: 0,
        listing,
        last_used: Instant::now(),
    })
}

/// A result's (id, name).
fn result(listed: &Listed) -> Result<(String, String), ResultIdError> {
    Ok((result_id(listed.object.as_ref(), &listed.identity)?, listed.display_name.clone()))
}

/// What binds a continuation token to its query: the query's properties, secrets and all,
/// in a canonical text (the map is ordered).
fn fingerprint(query: &PropertyMap) -> String {
    format!("{query:?}")
}

/// 16 random bytes as hex, as the Go bridge's tokens.
fn new_token() -> String {
    let mut bytes = [0u8; 16];
    if aws_lc_rs::rand::fill(&mut bytes).is_err() {
        // No system randomness: a token unique within this process still works.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        bytes[..8].copy_from_slice(&NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed).to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;
    use crate::cty::{Number, Type};

    #[track_caller]
    fn check(object: Option<Value>, identity: Value, expect: Expect) {
        let shown = crate::testutil::shown(result_id(object.as_ref(), &identity), |id| format!("id {id:?}"));
        expect.assert_eq(&shown);
    }

    fn s(text: &str) -> Value {
        Value::string(text)
    }

    #[test]
    fn result_ids_follow_the_go_bridge() {
        let mock = Value::object([("id", s("two"))]);
        check(None, mock.clone(), expect![[r#"id "two""#]]);
        // The object's own id wins over the identity.
        check(Some(Value::object([("id", s("obj")), ("size", Value::int(1))])), mock.clone(), expect![[r#"id "obj""#]]);
        // A null object id falls back to the identity.
        check(Some(Value::object([("id", Value::null(Type::String))])), mock, expect![[r#"id "two""#]]);
        let several = Value::object([
            ("region", s("eu")),
            ("account", Value::number(Number::parse("1.50").unwrap())),
            ("zones", Value::list(Type::String, vec![s("a"), s("b")]).unwrap()),
            ("enabled", Value::bool(true)),
        ]);
        check(None, several, expect![[r#"id "1.5,true,eu,[\"a\",\"b\"]""#]]);
        check(
            None,
            Value::object([("name", Value::null(Type::String))]),
            expect![[r#"error: identity attribute "name" is null"#]],
        );
        check(None, Value::empty_object(), expect!["error: the identity has no attributes"]);
    }

    #[test]
    fn tokens_are_random_hex() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
