package main

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The framework half: resources muxed6test_fw_<n> and data sources muxed6test_fw_data_<n>.
type frameworkProvider struct{}

func newFrameworkProvider() provider.Provider { return frameworkProvider{} }

func (frameworkProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "muxed6test"
}

func (frameworkProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = pschema.Schema{Attributes: map[string]pschema.Attribute{
		"label": pschema.StringAttribute{Optional: true, Description: "A label; unused."},
	}}
}

func (frameworkProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {}

func (frameworkProvider) Resources(context.Context) []func() resource.Resource {
	var all []func() resource.Resource
	for n := 0; n < frameworkResources; n++ {
		name := fmt.Sprintf("muxed6test_fw_%d", n)
		all = append(all, func() resource.Resource { return fwResource{name: name} })
	}
	return all
}

func (frameworkProvider) DataSources(context.Context) []func() datasource.DataSource {
	var all []func() datasource.DataSource
	for n := 0; n < frameworkDataSources; n++ {
		name := fmt.Sprintf("muxed6test_fw_data_%d", n)
		all = append(all, func() datasource.DataSource { return fwDataSource{name: name} })
	}
	return all
}

type fwResource struct{ name string }

func (r fwResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = r.name
}

func (fwResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attributes := map[string]rschema.Attribute{
		"id": rschema.StringAttribute{Computed: true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"name": rschema.StringAttribute{Required: true, Description: "The object's name.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
		"value":       rschema.StringAttribute{Optional: true, Description: "A value, changed in place."},
		"size":        rschema.Int64Attribute{Optional: true},
		"enabled":     rschema.BoolAttribute{Optional: true},
		"tags":        rschema.MapAttribute{Optional: true, ElementType: types.StringType},
		"members":     rschema.SetAttribute{Optional: true, ElementType: types.StringType},
		"ratio":       rschema.Float64Attribute{Optional: true},
		"description": rschema.StringAttribute{Optional: true},
		"rule": rschema.ListNestedAttribute{Optional: true, NestedObject: rschema.NestedAttributeObject{
			Attributes: map[string]rschema.Attribute{
				"port":     rschema.Int64Attribute{Required: true},
				"protocol": rschema.StringAttribute{Optional: true},
				"allow":    rschema.BoolAttribute{Optional: true},
			}}},
	}
	for n := 0; n < 6; n++ {
		attributes[fmt.Sprintf("option_%d", n)] = rschema.StringAttribute{Optional: true}
	}
	resp.Schema = rschema.Schema{Attributes: attributes}
}

func (fwResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = req.Plan.Raw
	var name types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), name)...)
}

func (fwResource) Read(_ context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	resp.State.Raw = req.State.Raw
}

func (fwResource) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (fwResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

type fwDataSource struct{ name string }

func (d fwDataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = d.name
}

func (fwDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dschema.Schema{Attributes: map[string]dschema.Attribute{
		"name":  dschema.StringAttribute{Required: true},
		"value": dschema.StringAttribute{Computed: true},
	}}
}

func (fwDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var name types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.State.Raw = req.Config.Raw
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("value"), types.StringValue("read:"+name.ValueString()))...)
}
