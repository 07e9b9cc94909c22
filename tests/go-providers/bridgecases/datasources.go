package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// lookup finds `key`'s value; for the key "missing" it returns no object at all, as
// kubernetes_resource does for an object that does not exist (bridge#3549).
type lookup struct{}

func newLookup() datasource.DataSource { return lookup{} }

func (lookup) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = "bridgecases_lookup"
}

func (lookup) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"key":   schema.StringAttribute{Required: true},
		"value": schema.StringAttribute{Computed: true},
	}}
}

func (lookup) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var key types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("key"), &key)...)
	if key.ValueString() == "missing" {
		resp.State.Raw = tftypes.NewValue(resp.State.Schema.Type().TerraformType(ctx), nil)
		return
	}
	resp.State.Raw = req.Config.Raw
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("value"), "value-of-"+key.ValueString())...)
}

// settingsSource returns the provider's `settings` as JSON.
type settingsSource struct{ settings *settings }

var _ datasource.DataSourceWithConfigure = (*settingsSource)(nil)

func newSettingsSource() datasource.DataSource { return &settingsSource{} }

func (d *settingsSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = "bridgecases_settings"
}

func (d *settingsSource) Configure(_ context.Context, req datasource.ConfigureRequest, _ *datasource.ConfigureResponse) {
	if s, ok := req.ProviderData.(*settings); ok {
		d.settings = s
	}
}

func (d *settingsSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"json": schema.StringAttribute{Computed: true},
	}}
}

func (d *settingsSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	text := "unconfigured"
	if d.settings != nil {
		text = d.settings.json
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("json"), text)...)
}
