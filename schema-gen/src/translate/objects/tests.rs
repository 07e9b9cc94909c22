use super::go_declaration_order;

#[test]
fn the_go_implementation_declares_in_this_order() {
    // Shuffled origins; sorting by the key must give Go's walk order.
    let mut origins = vec![
        "provider: proxy",
        "data source aws_bucket: rule",
        "resource aws_bridge_output: network_output",
        "resource aws_artifacts: artifact_stores.encryption_key",
        "resource aws_bridge: outputs.network_output",
        "resource aws_artifacts: artifact_stores",
        "resource aws_artifacts: artifact_store.encryption_key",
        "resource aws_artifacts: artifact_store",
        "resource aws_bridge: outputs",
    ];
    origins.sort_by_key(|origin| go_declaration_order(origin));
    assert_eq!(
        origins,
        [
            "resource aws_artifacts: artifact_store",
            "resource aws_artifacts: artifact_store.encryption_key",
            "resource aws_artifacts: artifact_stores",
            "resource aws_artifacts: artifact_stores.encryption_key",
            "resource aws_bridge: outputs",
            "resource aws_bridge: outputs.network_output",
            "resource aws_bridge_output: network_output",
            "data source aws_bucket: rule",
            "provider: proxy",
        ]
    );
    // Configuration variables and provider functions are named by other rules.
    assert_eq!(go_declaration_order("provider configuration: endpoints"), None);
    assert_eq!(go_declaration_order("function parse_arn: result"), None);
}
