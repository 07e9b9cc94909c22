package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
)

// The SDK's own schema checks: catch an invalid schema here rather than in
// the bridge's tests.
func TestProviderSchemaIsValid(t *testing.T) {
	if err := New().InternalValidate(); err != nil {
		t.Fatal(err)
	}
}

// Create writes the file, Read reflects an out-of-band edit of it, Delete
// removes it.
func TestThingRoundTripsThroughTheFile(t *testing.T) {
	s := &store{dir: t.TempDir()}
	res := resourceThing()
	d := schema.TestResourceDataRaw(t, res.Schema, map[string]interface{}{
		"name":     "a",
		"labels":   []interface{}{"x", "y"},
		"settings": []interface{}{map[string]interface{}{"level": 3}},
		"endpoint": []interface{}{map[string]interface{}{"host": "h", "weight": 2}},
	})
	if diags := createThing(context.Background(), d, s); diags.HasError() {
		t.Fatal(diags)
	}
	if got := d.Get("fingerprint").(string); got != fingerprintOf("a") {
		t.Fatalf("fingerprint = %q", got)
	}
	r, err := s.load(thingType, "a")
	if err != nil || r == nil {
		t.Fatalf("load: %v, %v", r, err)
	}
	// TestResourceDataRaw carries no timeouts, so the SDK's fallback (20m)
	// is what Create sees here; through gRPC it is the schema's 2m default.
	if got := r.Observed["create_timeout_seconds"]; got != float64(1200) {
		t.Fatalf("observed create timeout = %v", got)
	}

	r.Attributes["description"] = "changed out of band"
	r.Attributes["settings"] = []interface{}{map[string]interface{}{"mode": "slow", "level": 7}}
	if err := s.save(thingType, "a", r); err != nil {
		t.Fatal(err)
	}
	if diags := readThing(context.Background(), d, s); diags.HasError() {
		t.Fatal(diags)
	}
	if got := d.Get("description"); got != "changed out of band" {
		t.Fatalf("description = %v", got)
	}
	if got := d.Get("settings.0.level"); got != 7 {
		t.Fatalf("settings.0.level = %v", got)
	}
	if got := d.Get("endpoint").(*schema.Set).Len(); got != 1 {
		t.Fatalf("endpoint count = %d", got)
	}

	if diags := deleteThing(context.Background(), d, s); diags.HasError() {
		t.Fatal(diags)
	}
	if _, err := os.Stat(filepath.Join(s.dir, thingType, "a.json")); !os.IsNotExist(err) {
		t.Fatalf("file still there: %v", err)
	}
}

func TestVersionedUpgradeFromV0(t *testing.T) {
	cases := []struct {
		size    interface{}
		want    interface{}
		wantErr bool
	}{
		{size: "10", want: 10},
		{size: nil, want: nil},
		{size: "ten", wantErr: true},
	}
	for _, c := range cases {
		got, err := upgradeVersionedV0(context.Background(), map[string]interface{}{"name": "n", "size": c.size}, nil)
		if (err != nil) != c.wantErr {
			t.Fatalf("size %v: err = %v", c.size, err)
		}
		if err == nil && got["size"] != c.want {
			t.Fatalf("size %v: got %v, want %v", c.size, got["size"], c.want)
		}
	}
}
