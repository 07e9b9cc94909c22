package main

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// These tests drive the provider through its real protocol-6 server, the
// way the bridge does, so a schema the framework rejects or a state the
// store cannot round-trip fails here first.

func server(t *testing.T) tfprotov6.ProviderServer {
	t.Helper()
	s, err := providerserver.NewProtocol6WithError(newProvider())()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func noDiags(t *testing.T, what string, diags []*tfprotov6.Diagnostic) {
	t.Helper()
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatalf("%s: %s: %s", what, d.Summary, d.Detail)
		}
	}
}

func dyn(t *testing.T, typ tftypes.Type, v tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

func TestWidgetLifecycleThroughTheProtocol(t *testing.T) {
	ctx := context.Background()
	srv := server(t)
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	noDiags(t, "GetProviderSchema", schemas.Diagnostics)
	if len(schemas.EphemeralResourceSchemas) != 1 || len(schemas.Functions) != 1 {
		t.Fatalf("ephemeral resources %d, functions %d", len(schemas.EphemeralResourceSchemas), len(schemas.Functions))
	}

	dir := t.TempDir()
	provTyp := schemas.Provider.ValueType()
	conf, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{
		Config: dyn(t, provTyp, tftypes.NewValue(provTyp, map[string]tftypes.Value{"dir": tftypes.NewValue(tftypes.String, dir)})),
	})
	if err != nil {
		t.Fatal(err)
	}
	noDiags(t, "ConfigureProvider", conf.Diagnostics)

	typ := schemas.ResourceSchemas[widgetType].ValueType().(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for k, at := range typ.AttributeTypes {
		vals[k] = tftypes.NewValue(at, nil)
	}
	vals["name"] = tftypes.NewValue(tftypes.String, "w1")
	vals["password_wo"] = tftypes.NewValue(tftypes.String, "hunter2")
	vals["amount"] = tftypes.NewValue(tftypes.Number, big.NewFloat(0.5))
	vals["extra"] = tftypes.NewValue(tftypes.List{ElementType: tftypes.String},
		[]tftypes.Value{tftypes.NewValue(tftypes.String, "a")})
	config := tftypes.NewValue(typ, vals)

	plan, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName:         widgetType,
		PriorState:       dyn(t, typ, tftypes.NewValue(typ, nil)),
		ProposedNewState: dyn(t, typ, config),
		Config:           dyn(t, typ, config),
	})
	if err != nil {
		t.Fatal(err)
	}
	noDiags(t, "PlanResourceChange", plan.Diagnostics)

	applied, err := srv.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName:     widgetType,
		PriorState:   dyn(t, typ, tftypes.NewValue(typ, nil)),
		PlannedState: plan.PlannedState,
		Config:       dyn(t, typ, config),
	})
	if err != nil {
		t.Fatal(err)
	}
	noDiags(t, "ApplyResourceChange", applied.Diagnostics)

	file := filepath.Join(dir, widgetType, "w1.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Attributes map[string]interface{} `json:"attributes"`
		Observed   map[string]interface{} `json:"observed"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Attributes["id"] != "w1" || rec.Attributes["tier"] != "standard" || rec.Attributes["password_wo"] != nil {
		t.Fatalf("stored attributes: %s", data)
	}
	if rec.Observed["password_wo_set"] != true {
		t.Fatalf("observed: %s", data)
	}

	// Drift: change the file, Read must report it.
	patched := strings.Replace(string(data), `"standard"`, `"premium"`, 1)
	if err := os.WriteFile(file, []byte(patched), 0o644); err != nil {
		t.Fatal(err)
	}
	read, err := srv.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: widgetType, CurrentState: applied.NewState})
	if err != nil {
		t.Fatal(err)
	}
	noDiags(t, "ReadResource", read.Diagnostics)
	got, err := read.NewState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := got.As(&attrs); err != nil {
		t.Fatal(err)
	}
	if !attrs["tier"].Equal(tftypes.NewValue(tftypes.String, "premium")) {
		t.Fatalf("tier after drift: %v", attrs["tier"])
	}
	if !attrs["extra"].Equal(vals["extra"]) {
		t.Fatalf("extra did not round-trip: %v", attrs["extra"])
	}
}

func TestUpperFunction(t *testing.T) {
	resp, err := server(t).CallFunction(context.Background(), &tfprotov6.CallFunctionRequest{
		Name:      "upper",
		Arguments: []*tfprotov6.DynamicValue{dyn(t, tftypes.String, tftypes.NewValue(tftypes.String, "abc"))},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Error != nil {
		t.Fatal(resp.Error.Text)
	}
	got, err := resp.Result.Unmarshal(tftypes.String)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(tftypes.NewValue(tftypes.String, "ABC")) {
		t.Fatalf("upper(abc) = %v", got)
	}
}
