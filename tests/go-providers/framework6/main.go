// Command terraform-provider-framework6test is a small Terraform provider
// built on the real terraform-plugin-framework and served over protocol 6.
// It exists only as a test peer for the bridge: each resource, attribute and
// function is here because it exercises a protocol-6 or framework behaviour
// the bridge must get right (see the comments next to each). It is
// deterministic and never touches the network.
//
// Resource state lives in JSON files under the provider's `dir` (see
// store.go), so it survives process restarts and tests can change it out of
// band to provoke drift on refresh.
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
)

func main() {
	err := providerserver.Serve(context.Background(), newProvider, providerserver.ServeOpts{
		Address:         "registry.terraform.io/tfbridge/framework6test",
		ProtocolVersion: 6,
	})
	if err != nil {
		log.Fatal(err)
	}
}
