package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

const widgetType = "framework6test_widget"

// namePattern keeps names usable as file names.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// widget has one attribute for each protocol-6 / framework schema feature
// the bridge must map: nested attributes of all four kinds, a dynamic value,
// a write-only attribute, three number types, a default, plan modifiers and
// a nested block. Its id is the name.
type widget struct{ store *store }

var (
	_ resource.ResourceWithConfigure   = (*widget)(nil)
	_ resource.ResourceWithImportState = (*widget)(nil)
)

func newWidget() resource.Resource { return &widget{} }

func (r *widget) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = widgetType
}

func (r *widget) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	str := func(required bool) schema.StringAttribute {
		return schema.StringAttribute{Required: required, Optional: !required}
	}
	resp.Schema = schema.Schema{
		Description: "One of every protocol-6 schema shape, stored in <dir>/framework6test_widget/<id>.json.",
		Attributes: map[string]schema.Attribute{
			// Computed with UseStateForUnknown: unknown only on create,
			// then the prior value is planned.
			"id": schema.StringAttribute{
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			// RequiresReplace: changing it must plan a replacement.
			"name": schema.StringAttribute{
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			// Optional+Computed with a framework Default, applied at plan time.
			"tier": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString("standard"),
			},
			// Sensitive: must become a Pulumi secret.
			"secret": schema.StringAttribute{Optional: true, Sensitive: true},
			// Write-only: sent in config, always null in plan and state. The
			// provider records its SHA-256 under "observed" in the file.
			"password_wo": schema.StringAttribute{Optional: true, Sensitive: true, WriteOnly: true},
			// The three number types: int64, float64, arbitrary-precision number.
			"replicas": schema.Int64Attribute{Optional: true},
			"ratio":    schema.Float64Attribute{Optional: true},
			"amount":   schema.NumberAttribute{Optional: true},
			// A dynamic attribute: any type, chosen by the configuration.
			"extra": schema.DynamicAttribute{Optional: true},
			// The four nested-attribute kinds (protocol 6 only).
			"config": schema.SingleNestedAttribute{
				Optional: true,
				Attributes: map[string]schema.Attribute{
					"mode":    str(false),
					"enabled": schema.BoolAttribute{Optional: true},
				},
			},
			"ports": schema.ListNestedAttribute{
				Optional: true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"port":     schema.Int64Attribute{Required: true},
					"protocol": str(false),
				}},
			},
			"members": schema.SetNestedAttribute{
				Optional: true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"user": str(true),
					"role": str(false),
				}},
			},
			"envs": schema.MapNestedAttribute{
				Optional: true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"value": str(true),
				}},
			},
		},
		// A nested block next to nested attributes, as in real v6 providers.
		Blocks: map[string]schema.Block{
			"rule": schema.ListNestedBlock{
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"action": str(true),
				}},
			},
		},
	}
}

func (r *widget) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if s, ok := req.ProviderData.(*store); ok {
		r.store = s
	}
}

// observedWriteOnly reads the write-only value from the config (it is null in
// the plan) and returns what to record about it.
func observedWriteOnly(ctx context.Context, config tfsdk.Config) map[string]interface{} {
	var pw types.String
	if d := config.GetAttribute(ctx, path.Root("password_wo"), &pw); d.HasError() || pw.IsNull() || pw.IsUnknown() {
		return map[string]interface{}{"password_wo_set": false}
	}
	sum := sha256.Sum256([]byte(pw.ValueString()))
	return map[string]interface{}{"password_wo_set": true, "password_wo_sha256": hex.EncodeToString(sum[:])}
}

func (r *widget) apply(plan tftypes.Value, id string, observed map[string]interface{}) (tftypes.Value, error) {
	if r.store == nil {
		return tftypes.Value{}, fmt.Errorf("the provider is not configured")
	}
	state, err := unknownsToNull(plan)
	if err != nil {
		return tftypes.Value{}, err
	}
	// Fill the computed id into the (otherwise planned) state.
	state, err = tftypes.Transform(state, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if p.Equal(tftypes.NewAttributePath().WithAttributeName("id")) {
			return tftypes.NewValue(tftypes.String, id), nil
		}
		return v, nil
	})
	if err != nil {
		return tftypes.Value{}, err
	}
	return state, r.store.save(widgetType, id, plan.Type(), state, observed)
}

func (r *widget) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var name types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := name.ValueString()
	if !namePattern.MatchString(id) {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "invalid name", fmt.Sprintf("%q must match %s", id, namePattern))
		return
	}
	if r.store != nil {
		existing, err := r.store.load(widgetType, id, req.Plan.Raw.Type())
		if err == nil && !existing.IsNull() {
			resp.Diagnostics.AddError("already exists", fmt.Sprintf("%s %q already exists in %s", widgetType, id, r.store.dir))
			return
		}
	}
	observed := observedWriteOnly(ctx, req.Config)
	state, err := r.apply(req.Plan.Raw, id, observed)
	if err != nil {
		resp.Diagnostics.AddError("create failed", err.Error())
		return
	}
	resp.State.Raw = state
}

func (r *widget) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var id types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	if resp.Diagnostics.HasError() {
		return
	}
	observed := observedWriteOnly(ctx, req.Config)
	state, err := r.apply(req.Plan.Raw, id.ValueString(), observed)
	if err != nil {
		resp.Diagnostics.AddError("update failed", err.Error())
		return
	}
	resp.State.Raw = state
}

func (r *widget) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var id types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.store == nil {
		resp.Diagnostics.AddError("read failed", "the provider is not configured")
		return
	}
	v, err := r.store.load(widgetType, id.ValueString(), req.State.Raw.Type())
	if err != nil {
		resp.Diagnostics.AddError("read failed", err.Error())
		return
	}
	if v.IsNull() {
		// Gone out of band: drop it from state.
		resp.State.RemoveResource(ctx)
		return
	}
	resp.State.Raw = v
}

func (r *widget) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var id types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	if resp.Diagnostics.HasError() || r.store == nil {
		return
	}
	if err := r.store.remove(widgetType, id.ValueString()); err != nil {
		resp.Diagnostics.AddError("delete failed", err.Error())
	}
}

// ImportState takes the import ID as `id`; Read then fills the rest.
func (r *widget) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}
