// Command terraform-provider-sdkv2test is a small Terraform provider built on
// the real terraform-plugin-sdk/v2 and served over protocol 5. It exists only
// as a test peer for the bridge: every resource and attribute is here because
// it exercises an SDKv2 behaviour the bridge must get right (see the comments
// on each schema). It is deterministic and never touches the network.
//
// State lives in JSON files under the provider's `dir` (see store.go), so it
// survives process restarts and tests can change it out of band to provoke
// drift on refresh.
package main

import (
	"github.com/hashicorp/terraform-plugin-sdk/v2/plugin"
)

func main() {
	// plugin.Serve speaks go-plugin with protocol version 5 and the standard
	// Terraform magic cookie, which is exactly what the bridge launches.
	plugin.Serve(&plugin.ServeOpts{ProviderFunc: New})
}
