// Command terraform-provider-bridgecases is a small plugin-framework provider (protocol 6)
// with one type for each case a bridge has got wrong (issue 29 item 5), none of which a real
// provider in the suite does on demand:
//
//   - bridgecases_counter: a numeric `id` (dnsimple, bunnynet: "missing ID", bridge#3610);
//   - bridgecases_noid: no `id` at all (incus);
//   - bridgecases_prefixed: `name` and `name_prefix` that conflict (bridge#3457), with the
//     framework validators' wording;
//   - bridgecases_tags: a list, for `ignoreChanges` on an index past its end (bridge#3560);
//   - the data source bridgecases_lookup, which returns no object for key "missing"
//     (bridge#3549);
//   - a `dynamic` attribute in the provider's own configuration (ptp#88), read back by the
//     data source bridgecases_settings.
//
// Resources keep their state in Terraform's state only: Read returns the prior state, so
// nothing outlives the stack. It is deterministic and never touches the network.
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
)

func main() {
	err := providerserver.Serve(context.Background(), newProvider, providerserver.ServeOpts{
		Address:         "registry.terraform.io/tfbridge/bridgecases",
		ProtocolVersion: 6,
	})
	if err != nil {
		log.Fatal(err)
	}
}
