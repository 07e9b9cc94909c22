package main

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	ephschema "github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// upper is a provider-defined function (GetFunctions / CallFunction), which
// only exists in the protocol since Terraform 1.8.
type upper struct{}

func newUpper() function.Function { return upper{} }

func (upper) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "upper"
}

func (upper) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary:    "Upper-cases a string.",
		Parameters: []function.Parameter{function.StringParameter{Name: "input"}},
		Return:     function.StringReturn{},
	}
}

func (upper) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var in string
	resp.Error = req.Arguments.Get(ctx, &in)
	if resp.Error != nil {
		return
	}
	resp.Error = resp.Result.Set(ctx, strings.ToUpper(in))
}

// token is an ephemeral resource. Pulumi has no counterpart, so the bridge
// must skip it with a warning rather than fail on it.
type token struct{}

func newToken() ephemeral.EphemeralResource { return token{} }

func (token) Metadata(_ context.Context, _ ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = "framework6test_token"
}

func (token) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = ephschema.Schema{Attributes: map[string]ephschema.Attribute{
		"name":  ephschema.StringAttribute{Required: true},
		"value": ephschema.StringAttribute{Computed: true, Sensitive: true},
	}}
}

func (token) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var name types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Result.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.Result.SetAttribute(ctx, path.Root("value"), "token-for-"+name.ValueString())...)
}

// echo is a data source with a dynamic input and output: the bridge must
// carry a value whose type is only known from the configuration both ways.
type echo struct{}

func newEcho() datasource.DataSource { return echo{} }

func (echo) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = "framework6test_echo"
}

func (echo) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dsschema.Schema{Attributes: map[string]dsschema.Attribute{
		"input":  dsschema.DynamicAttribute{Required: true},
		"output": dsschema.DynamicAttribute{Computed: true},
	}}
}

func (echo) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var in types.Dynamic
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("input"), &in)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("input"), in)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("output"), in)...)
}
