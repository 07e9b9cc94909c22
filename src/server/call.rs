//! `Call`: methods of resources. The only one is the provider resource's `terraformConfig`
//! (Terraform has no components, so there is nothing else to call).
//!
//! Architecture invariant: translation only; the result is made in `lifecycle`.

use tfbridge_proto::pulumirpc;
use tonic::Status;

use super::Provider;
use super::resources::{properties, status};
use crate::lifecycle::TERRAFORM_CONFIG_METHOD;
use crate::property::PropertyValue;
use crate::property::structpb::encode_struct;

/// The method a token names: `pulumi:providers:random/terraformConfig` → `terraformConfig`
/// (the part after `/` in the token's last component, as the Go implementation reads it).
fn method_name(token: &str) -> Option<&str> {
    let member = token.rsplit(':').next()?;
    member.split_once('/').map(|(_, method)| method)
}

impl Provider {
    pub(super) async fn do_call(&self, request: pulumirpc::CallRequest) -> Result<pulumirpc::CallResponse, Status> {
        let session = self.session().await?;
        match method_name(&request.tok) {
            Some(TERRAFORM_CONFIG_METHOD) => {}
            Some(_) => return Err(Status::invalid_argument(format!("unknown method {}", request.tok))),
            None => {
                return Err(Status::invalid_argument(format!(
                    "cannot read a method name from the token {:?}",
                    request.tok
                )));
            }
        }
        let args = properties(request.args.as_ref(), "args")?;
        let urn = match args.get("__self__") {
            Some(PropertyValue::ResourceReference(reference)) => reference.urn.clone(),
            _ => format!("pulumi:providers:{}", session.package_name()),
        };
        let result = session.terraform_config(&urn).map_err(status)?;
        Ok(pulumirpc::CallResponse { r#return: Some(encode_struct(&result)), ..Default::default() })
    }
}

#[cfg(test)]
mod tests {
    use super::method_name;

    #[test]
    fn method_names() {
        let names: Vec<_> = [
            "pulumi:providers:random/terraformConfig",
            "pulumi:providers:my-pkg/otherMethod",
            "random:index:RandomPet",
            "",
        ]
        .iter()
        .map(|token| method_name(token))
        .collect();
        assert_eq!(names, [Some("terraformConfig"), Some("otherMethod"), None, None]);
    }
}
