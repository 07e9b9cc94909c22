package main

import (
	"context"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// framework6test implements the optional provider interfaces for functions
// and ephemeral resources too, so GetProviderSchema reports both kinds.
type framework6test struct{}

var (
	_ provider.Provider                       = (*framework6test)(nil)
	_ provider.ProviderWithFunctions          = (*framework6test)(nil)
	_ provider.ProviderWithEphemeralResources = (*framework6test)(nil)
)

func newProvider() provider.Provider { return &framework6test{} }

func (p *framework6test) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "framework6test"
	resp.Version = "0.1.0"
}

func (p *framework6test) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Attributes: map[string]schema.Attribute{
			"dir": schema.StringAttribute{
				Required:    true,
				Description: "Directory holding one JSON file per resource instance.",
			},
		},
	}
}

func (p *framework6test) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var dir types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, pathDir, &dir)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if dir.IsUnknown() || dir.ValueString() == "" {
		resp.Diagnostics.AddAttributeError(pathDir, "dir is not set", "The provider needs a known, non-empty dir.")
		return
	}
	if err := os.MkdirAll(dir.ValueString(), 0o755); err != nil {
		resp.Diagnostics.AddAttributeError(pathDir, "cannot create dir", err.Error())
		return
	}
	s := &store{dir: dir.ValueString()}
	resp.ResourceData = s
	resp.DataSourceData = s
}

func (p *framework6test) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{newWidget}
}

func (p *framework6test) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{newEcho}
}

func (p *framework6test) Functions(context.Context) []func() function.Function {
	return []func() function.Function{newUpper}
}

func (p *framework6test) EphemeralResources(context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{newToken}
}
