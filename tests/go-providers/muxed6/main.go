// Command terraform-provider-muxed6test is a muxed Terraform provider served over protocol 6,
// built the way the AWS, Google and Azure providers are: an SDKv2 half upgraded to protocol 6
// (tf5to6server) and a plugin-framework half, joined by terraform-plugin-mux (tf6muxserver).
// It exists only as a test peer for the bridge: the warm start of a muxed provider on protocol
// 6 (mux breaks when asked GetMetadata before its first per-type call), and a provider the size
// of proxmox's (115 resources and 91 data sources) for start-up measurements. Its objects live
// only in the state: Read keeps what it is given, Delete forgets. It never touches the network.
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-mux/tf5to6server"
	"github.com/hashicorp/terraform-plugin-mux/tf6muxserver"
)

// How many types each half has: together proxmox's 115 resources and 91 data sources.
const (
	sdkResources         = 58
	sdkDataSources       = 46
	frameworkResources   = 57
	frameworkDataSources = 45
)

func main() {
	ctx := context.Background()
	upgraded, err := tf5to6server.UpgradeServer(ctx, newSDKProvider().GRPCProvider)
	if err != nil {
		log.Fatal(err)
	}
	servers := []func() tfprotov6.ProviderServer{
		func() tfprotov6.ProviderServer { return upgraded },
		providerserver.NewProtocol6(newFrameworkProvider()),
	}
	mux, err := tf6muxserver.NewMuxServer(ctx, servers...)
	if err != nil {
		log.Fatal(err)
	}
	if err := tf6server.Serve("registry.terraform.io/tfbridge/muxed6test", mux.ProviderServer); err != nil {
		log.Fatal(err)
	}
}
