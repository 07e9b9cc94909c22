//! The `List` RPC: one page of a Terraform list resource's results as a stream of
//! `ListResponse`s: the results, then one `Continuation` (empty after the last page), or,
//! when the listing broke after some results, those results and then the error status.

use tfbridge_proto::pulumirpc;
use tonic::Status;

use super::Provider;
use super::resources::{properties, status};
use crate::lifecycle::ListQuery;

/// The stream a `List` call answers with.
pub type ListStream = tokio_stream::Iter<std::vec::IntoIter<Result<pulumirpc::ListResponse, Status>>>;

impl Provider {
    pub(super) async fn do_list(&self, request: pulumirpc::ListRequest) -> Result<ListStream, Status> {
        let session = self.session().await?;
        let query = ListQuery {
            query: properties(request.query.as_ref(), "query")?,
            token: request.token,
            limit: request.limit,
            page_size: request.page_size,
            continuation_token: request.continuation_token,
        };
        let page = session.list(query).await;
        use pulumirpc::list_response::{Continuation, Response, Result as ListResult};
        let mut items: Vec<Result<pulumirpc::ListResponse, Status>> = page
            .results
            .into_iter()
            .map(|(id, name)| Ok(pulumirpc::ListResponse { response: Some(Response::Result(ListResult { id, name })) }))
            .collect();
        match page.outcome {
            Ok(continuation_token) => items.push(Ok(pulumirpc::ListResponse {
                response: Some(Response::Continuation(Continuation { continuation_token })),
            })),
            // Before any result, a plain error status; after some, the results first.
            Err(error) if items.is_empty() => return Err(status(error)),
            Err(error) => items.push(Err(status(error))),
        }
        Ok(tokio_stream::iter(items))
    }
}
