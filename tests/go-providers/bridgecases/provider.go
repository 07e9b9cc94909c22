package main

import (
	"context"
	"encoding/json"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

type bridgecases struct{}

func newProvider() provider.Provider { return &bridgecases{} }

func (p *bridgecases) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "bridgecases"
	resp.Version = "0.1.0"
}

func (p *bridgecases) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		// Any value at all, typed by the configuration (ptp#88).
		"settings": schema.DynamicAttribute{Optional: true, Description: "Settings of any shape."},
	}}
}

// settings is the provider's `settings` as JSON ("null" when unset), for the data source.
type settings struct{ json string }

func (p *bridgecases) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var value types.Dynamic
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("settings"), &value)...)
	if resp.Diagnostics.HasError() {
		return
	}
	text := "null"
	if !value.IsNull() && !value.IsUnknown() && value.UnderlyingValue() != nil {
		raw, err := value.UnderlyingValue().ToTerraformValue(ctx)
		if err != nil {
			resp.Diagnostics.AddError("settings", err.Error())
			return
		}
		encoded, err := json.Marshal(plain(raw))
		if err != nil {
			resp.Diagnostics.AddError("settings", err.Error())
			return
		}
		text = string(encoded)
	}
	resp.DataSourceData = &settings{json: text}
}

// plain turns a known tftypes value into Go values encoding/json writes.
func plain(v tftypes.Value) interface{} {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return s
	case v.Type().Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return b
	case v.Type().Is(tftypes.Number):
		n := new(big.Float)
		_ = v.As(&n)
		f, _ := n.Float64()
		return f
	}
	var items []tftypes.Value
	if err := v.As(&items); err == nil {
		out := make([]interface{}, len(items))
		for i, item := range items {
			out[i] = plain(item)
		}
		return out
	}
	var fields map[string]tftypes.Value
	if err := v.As(&fields); err == nil {
		out := map[string]interface{}{}
		for k, item := range fields {
			out[k] = plain(item)
		}
		return out
	}
	return nil
}

func (p *bridgecases) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{newCounter, newNoID, newPrefixed, newTags}
}

func (p *bridgecases) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{newLookup, newSettingsSource}
}
