package main

import (
	"context"
	"fmt"
	"hash/crc32"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// stateOnly is the CRUD of a resource whose object is its Terraform state: Create and
// Update store the plan (after `fill` sets what is computed), Read keeps the prior state.
type stateOnly struct {
	typeName string
	schema   schema.Schema
	fill     func(ctx context.Context, plan *resource.CreateResponse, req resource.CreateRequest)
}

func (r *stateOnly) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = r.typeName
}

func (r *stateOnly) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.schema
}

func (r *stateOnly) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = req.Plan.Raw
	if r.fill != nil {
		r.fill(ctx, resp, req)
	}
}

func (r *stateOnly) Read(_ context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	resp.State.Raw = req.State.Raw
}

func (r *stateOnly) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *stateOnly) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// counter's id is a number, made from its label.
func newCounter() resource.Resource {
	return &stateOnly{
		typeName: "bridgecases_counter",
		schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"id": schema.Int64Attribute{
				Computed:      true,
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"label": schema.StringAttribute{
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"note": schema.StringAttribute{Optional: true},
		}},
		fill: func(ctx context.Context, resp *resource.CreateResponse, req resource.CreateRequest) {
			var label types.String
			resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("label"), &label)...)
			id := int64(crc32.ChecksumIEEE([]byte(label.ValueString())) % 1000000)
			resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
		},
	}
}

// noid has no `id` attribute: its identity is its key.
func newNoID() resource.Resource {
	return &stateOnly{
		typeName: "bridgecases_noid",
		schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"key": schema.StringAttribute{
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"value": schema.StringAttribute{Optional: true},
		}},
	}
}

// prefixed takes a `name`, or makes one from `name_prefix`; the two conflict.
type prefixed struct{ stateOnly }

var _ resource.ResourceWithValidateConfig = (*prefixed)(nil)

func newPrefixed() resource.Resource {
	return &prefixed{stateOnly{
		typeName: "bridgecases_prefixed",
		schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Optional: true,
				Computed: true,
				PlanModifiers: []planmodifier.String{
					stringplanmodifier.UseStateForUnknown(),
					stringplanmodifier.RequiresReplace(),
				},
			},
			"name_prefix": schema.StringAttribute{
				Optional:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
		}},
		fill: func(ctx context.Context, resp *resource.CreateResponse, req resource.CreateRequest) {
			var name, prefix types.String
			resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
			resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name_prefix"), &prefix)...)
			chosen := name.ValueString()
			if name.IsUnknown() || name.IsNull() {
				chosen = fmt.Sprintf("%s%08x", prefix.ValueString(), crc32.ChecksumIEEE([]byte(prefix.ValueString())))
			}
			resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), chosen)...)
			resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), chosen)...)
		},
	}}
}

// ValidateConfig says what terraform-plugin-framework-validators' ConflictsWith says.
func (r *prefixed) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var name, prefix types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name_prefix"), &prefix)...)
	if !name.IsNull() && !prefix.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Invalid Attribute Combination",
			`Attribute "name_prefix" cannot be specified when "name" is specified`)
	}
}

// tags holds a list, for ignoreChanges on its elements.
func newTags() resource.Resource {
	return &stateOnly{
		typeName: "bridgecases_tags",
		schema: schema.Schema{Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"items": schema.ListAttribute{ElementType: types.StringType, Optional: true},
		}},
		fill: func(ctx context.Context, resp *resource.CreateResponse, _ resource.CreateRequest) {
			resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), "tags")...)
		},
	}
}
