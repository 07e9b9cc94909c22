//! Parameterize through the real binary: bad parameters are clear errors. With a real
//! Terraform provider, and GetSchema: tests/peer/parameterize_schema_real.rs.

use crate::common;

use common::plugin::Plugin;
use tfbridge_proto::pulumirpc::parameterize_request::{Parameters, ParametersArgs, ParametersValue};

#[tokio::test]
async fn bad_parameters_are_clear_errors() {
    let plugin = Plugin::start(&["127.0.0.1:9"]);
    let cases = [
        (Parameters::Args(ParametersArgs { args: vec![] }), "accepts between 1 and 2 arg(s), received 0"),
        (
            Parameters::Args(ParametersArgs { args: vec!["./missing/terraform-provider-nope".into()] }),
            "terraform-provider-nope",
        ),
        (
            Parameters::Value(ParametersValue { name: "x".into(), version: "1.0.0".into(), value: b"{}".to_vec() }),
            r#"must specify exactly one of "remote" or "local""#,
        ),
    ];
    for (parameters, message) in cases {
        let status = plugin.parameterize(parameters).await.unwrap_err();
        assert!(status.message().contains(message), "{message}: {}", status.message());
    }
}
