package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/validation"
)

const thingType = "sdkv2test_thing"

// namePattern keeps names usable as file names; it also gives the bridge a
// real SDKv2 ValidateFunc to surface through ValidateResourceTypeConfig.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// resourceThing is the kitchen-sink resource: one attribute or block for each
// SDKv2 schema shape the bridge must map to Pulumi and back. Its `id` is the
// implicit Optional+Computed attribute the SDK adds to every resource.
func resourceThing() *schema.Resource {
	return &schema.Resource{
		Description:   "One of every SDKv2 schema shape, stored in <dir>/sdkv2test_thing/<name>.json.",
		CreateContext: createThing,
		ReadContext:   readThing,
		UpdateContext: updateThing,
		DeleteContext: deleteThing,
		// Passthrough import: the import ID is the name, and Read fills the rest.
		Importer: &schema.ResourceImporter{StateContext: schema.ImportStatePassthroughContext},
		// A `timeouts` block appears in the schema; the bridge must pass the
		// configured values via the private state / meta. Create and Update
		// record what they saw under "observed" in the file.
		Timeouts: &schema.ResourceTimeout{
			Create: schema.DefaultTimeout(2 * time.Minute),
			Update: schema.DefaultTimeout(3 * time.Minute),
			Delete: schema.DefaultTimeout(4 * time.Minute),
		},
		Schema: thingSchema(),
	}
}

func thingSchema() map[string]*schema.Schema {
	return map[string]*schema.Schema{
		// ForceNew: changing it must plan a replacement.
		"name": {
			Type:         schema.TypeString,
			Required:     true,
			ForceNew:     true,
			ValidateFunc: validation.StringMatch(namePattern, "must match "+namePattern.String()),
		},
		// Optional+Computed: unknown in the plan when unset, filled at create.
		"description": {
			Type:     schema.TypeString,
			Optional: true,
			Computed: true,
		},
		// Sensitive: must become a Pulumi secret.
		"secret": {
			Type:      schema.TypeString,
			Optional:  true,
			Sensitive: true,
		},
		// A map of strings.
		"tags": {
			Type:     schema.TypeMap,
			Optional: true,
			Elem:     &schema.Schema{Type: schema.TypeString},
		},
		// A set of strings: order-insensitive, hashed by the SDK.
		"labels": {
			Type:     schema.TypeSet,
			Optional: true,
			Elem:     &schema.Schema{Type: schema.TypeString},
		},
		// A MaxItems=1 list block: the bridge flattens it to a single object.
		// `mode` has a Default, which the SDK applies during plan.
		"settings": {
			Type:     schema.TypeList,
			Optional: true,
			MaxItems: 1,
			Elem: &schema.Resource{Schema: map[string]*schema.Schema{
				"mode":  {Type: schema.TypeString, Optional: true, Default: "fast"},
				"level": {Type: schema.TypeInt, Optional: true},
			}},
		},
		// A nested block list (repeated `rule { ... }` blocks).
		"rule": {
			Type:     schema.TypeList,
			Optional: true,
			Elem: &schema.Resource{Schema: map[string]*schema.Schema{
				"port":     {Type: schema.TypeInt, Required: true},
				"protocol": {Type: schema.TypeString, Optional: true, Default: "tcp"},
			}},
		},
		// A set block: elements are matched by hash, not position.
		"endpoint": {
			Type:     schema.TypeSet,
			Optional: true,
			Elem: &schema.Resource{Schema: map[string]*schema.Schema{
				"host":   {Type: schema.TypeString, Required: true},
				"weight": {Type: schema.TypeInt, Optional: true},
			}},
		},
		// Computed only, set once at create from the name (deterministic).
		"fingerprint": {
			Type:     schema.TypeString,
			Computed: true,
		},
	}
}

func fingerprintOf(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:8])
}

func createThing(_ context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	s := meta.(*store)
	name := d.Get("name").(string)
	existing, err := s.load(thingType, name)
	if err != nil {
		return diag.FromErr(err)
	}
	if existing != nil {
		return diag.Errorf("%s %q already exists in %s", thingType, name, s.dir)
	}
	if _, ok := d.GetOk("description"); !ok {
		if err := d.Set("description", "managed by sdkv2test"); err != nil {
			return diag.FromErr(err)
		}
	}
	if err := d.Set("fingerprint", fingerprintOf(name)); err != nil {
		return diag.FromErr(err)
	}
	d.SetId(name)
	return saveThing(d, s, "create_timeout_seconds", d.Timeout(schema.TimeoutCreate))
}

func updateThing(_ context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	return saveThing(d, meta.(*store), "update_timeout_seconds", d.Timeout(schema.TimeoutUpdate))
}

func saveThing(d *schema.ResourceData, s *store, timeoutKey string, timeout time.Duration) diag.Diagnostics {
	r := &record{
		Attributes: attributesFrom(d, thingSchema()),
		Observed:   map[string]interface{}{timeoutKey: int(timeout.Seconds())},
	}
	if err := s.save(thingType, d.Id(), r); err != nil {
		return diag.FromErr(err)
	}
	return nil
}

func readThing(_ context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	r, err := meta.(*store).load(thingType, d.Id())
	if err != nil {
		return diag.FromErr(err)
	}
	if r == nil {
		// Gone out of band: an empty ID tells Terraform to drop it from state.
		d.SetId("")
		return nil
	}
	if err := setAttributes(d, thingSchema(), r.Attributes); err != nil {
		return diag.FromErr(fmt.Errorf("%s %q: %w", thingType, d.Id(), err))
	}
	return nil
}

func deleteThing(_ context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	return diag.FromErr(meta.(*store).remove(thingType, d.Id()))
}

// dataSourceThing reads a thing by name. It exists so the bridge has a real
// SDKv2 data source (ReadDataSource, with the implicit computed `id`).
func dataSourceThing() *schema.Resource {
	return &schema.Resource{
		Description: "Reads a sdkv2test_thing from the provider dir by name.",
		ReadContext: readThingDataSource,
		Schema: map[string]*schema.Schema{
			"name":        {Type: schema.TypeString, Required: true},
			"description": {Type: schema.TypeString, Computed: true},
			"fingerprint": {Type: schema.TypeString, Computed: true},
			"tags":        {Type: schema.TypeMap, Computed: true, Elem: &schema.Schema{Type: schema.TypeString}},
			"labels":      {Type: schema.TypeSet, Computed: true, Elem: &schema.Schema{Type: schema.TypeString}},
		},
	}
}

func readThingDataSource(_ context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	s := meta.(*store)
	name := d.Get("name").(string)
	r, err := s.load(thingType, name)
	if err != nil {
		return diag.FromErr(err)
	}
	if r == nil {
		return diag.Errorf("no %s named %q in %s", thingType, name, s.dir)
	}
	for _, k := range []string{"description", "fingerprint", "tags", "labels"} {
		if err := d.Set(k, r.Attributes[k]); err != nil {
			return diag.FromErr(fmt.Errorf("attribute %q: %w", k, err))
		}
	}
	d.SetId(name)
	return nil
}
