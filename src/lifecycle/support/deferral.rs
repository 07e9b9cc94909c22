//! Deferred changes (protocol 5.6/6.6): how a provider's reason for deferring reads.
//!
//! Terraform names each reason twice: a token in the JSON plan and a phrase in the human
//! plan output (`# <addr> was deferred` / `# (because ...)`). Messages carry both, so a
//! user can search for either.
//!
//! Architecture invariant: words only; what a deferral does is decided by its callers.

use crate::tfplugin::core_rpcs::DeferredReason;

/// `<json token> (<Terraform's phrase>)`, e.g. `resource_config_unknown (because the resource
/// configuration is unknown)`.
pub fn reason_text(reason: DeferredReason) -> String {
    let (token, phrase) = match reason {
        DeferredReason::ResourceConfigUnknown => {
            ("resource_config_unknown", "because the resource configuration is unknown")
        }
        DeferredReason::ProviderConfigUnknown => {
            ("provider_config_unknown", "because the provider configuration is unknown")
        }
        DeferredReason::AbsentPrereq => {
            ("absent_prereq", "because a prerequisite for this resource has not yet been created")
        }
        // Terraform's JSON token for the protocol's UNKNOWN reason is `invalid`.
        DeferredReason::Unknown => ("invalid", "for an unknown reason"),
    };
    format!("{token}, {phrase}")
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;

    #[test]
    fn every_reason_reads_as_terraform_names_it() {
        let all = [
            DeferredReason::Unknown,
            DeferredReason::ResourceConfigUnknown,
            DeferredReason::ProviderConfigUnknown,
            DeferredReason::AbsentPrereq,
        ];
        let text: Vec<String> = all.into_iter().map(reason_text).collect();
        expect![[r#"
            invalid, for an unknown reason
            resource_config_unknown, because the resource configuration is unknown
            provider_config_unknown, because the provider configuration is unknown
            absent_prereq, because a prerequisite for this resource has not yet been created"#]]
        .assert_eq(&text.join("\n"));
    }
}
