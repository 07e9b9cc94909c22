// random (a secret password), local (a data source), time (a provider function) and sdkv2test
// (an explicit provider with configuration, a resource updated in place or replaced, a data
// source and the provider's terraformConfig method).
//
// The TypeScript and Python programs call local's `direxists` instead of time's
// `rfc3339_parse`: the Go SDK that Pulumi 3.259 generates for a function whose result is not
// an object does not compile (`return nil, err` where the result is a bool), so here local is
// added with `--include local_file` only and the function comes from time, whose
// rfc3339_parse returns an object.
package main

import (
	"github.com/pulumi/pulumi-terraform-provider/sdks/go/local/local"
	"github.com/pulumi/pulumi-terraform-provider/sdks/go/random/v3/random"
	"github.com/pulumi/pulumi-terraform-provider/sdks/go/sdkv2test/sdkv2test"
	"github.com/pulumi/pulumi-terraform-provider/sdks/go/time/time"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		conf := config.New(ctx, "")
		dir := conf.Require("dir")
		// Changing it updates the thing in place; changing thingName replaces it.
		description := conf.Get("description")
		if description == "" {
			description = "first"
		}
		thingName := conf.Get("thingName")
		if thingName == "" {
			thingName = "alpha"
		}

		password, err := random.NewPassword(ctx, "password", &random.PasswordArgs{
			Length:  pulumi.Float64(20),
			Special: pulumi.Bool(false),
		})
		if err != nil {
			return err
		}

		input := local.LookupFileOutput(ctx, local.LookupFileOutputArgs{Filename: pulumi.String(dir + "/input.txt")})
		parsed := time.Rfc3339ParseOutput(ctx, pulumi.String("2026-01-02T00:00:00Z"))

		store, err := sdkv2test.NewProvider(ctx, "store", &sdkv2test.ProviderArgs{Dir: pulumi.String(dir + "/store")})
		if err != nil {
			return err
		}
		thing, err := sdkv2test.NewThing(ctx, "thing", &sdkv2test.ThingArgs{
			Name:        pulumi.String(thingName),
			Description: pulumi.String(description),
			Secret:      pulumi.String("hunter2"),
			Tags:        pulumi.StringMap{"team": pulumi.String("e2e")},
			Settings:    &sdkv2test.ThingSettingsArgs{Level: pulumi.Float64(3)},
		}, pulumi.Provider(store))
		if err != nil {
			return err
		}
		// By id, which is unknown until the thing exists, so a preview never reads a missing thing.
		found := sdkv2test.LookupThingOutput(ctx, sdkv2test.LookupThingOutputArgs{Name: thing.ID().ToStringOutput()},
			pulumi.Provider(store))
		storeConfig, err := store.TerraformConfig(ctx)
		if err != nil {
			return err
		}

		ctx.Export("passwordResult", password.Result)
		ctx.Export("inputContent", input.Content())
		ctx.Export("inputSha256", input.ContentSha256())
		ctx.Export("parsedUnix", parsed.Unix())
		ctx.Export("thingId", thing.ID())
		ctx.Export("thingDescription", thing.Description)
		ctx.Export("thingFingerprint", thing.Fingerprint)
		ctx.Export("thingSecret", thing.Secret)
		ctx.Export("foundDescription", found.Description())
		ctx.Export("storeConfig", storeConfig)
		return nil
	})
}
