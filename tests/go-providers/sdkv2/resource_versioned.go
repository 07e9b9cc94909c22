package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hashicorp/go-cty/cty"
	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/validation"
)

const versionedType = "sdkv2test_versioned"

// resourceVersioned is at SchemaVersion 1 with a StateUpgrader from version
// 0, so the bridge must send the stored schema version and raw JSON state to
// UpgradeResourceState. Version 0 stored `size` as a string ("10"); version 1
// stores it as a number.
func resourceVersioned() *schema.Resource {
	return &schema.Resource{
		Description:   "A schema-versioned resource, stored in <dir>/sdkv2test_versioned/<name>.json.",
		SchemaVersion: 1,
		StateUpgraders: []schema.StateUpgrader{{
			Version: 0,
			Type:    versionedV0Type(),
			Upgrade: upgradeVersionedV0,
		}},
		CreateContext: createVersioned,
		ReadContext:   readVersioned,
		UpdateContext: updateVersioned,
		DeleteContext: deleteVersioned,
		Importer:      &schema.ResourceImporter{StateContext: schema.ImportStatePassthroughContext},
		Schema:        versionedSchema(),
	}
}

func versionedSchema() map[string]*schema.Schema {
	return map[string]*schema.Schema{
		"name": {
			Type:         schema.TypeString,
			Required:     true,
			ForceNew:     true,
			ValidateFunc: validation.StringMatch(namePattern, "must match "+namePattern.String()),
		},
		"size": {Type: schema.TypeInt, Optional: true},
	}
}

// versionedV0Type is the state type at version 0, when size was a string.
func versionedV0Type() cty.Type {
	return (&schema.Resource{Schema: map[string]*schema.Schema{
		"name": {Type: schema.TypeString, Required: true, ForceNew: true},
		"size": {Type: schema.TypeString, Optional: true},
	}}).CoreConfigSchema().ImpliedType()
}

func upgradeVersionedV0(_ context.Context, raw map[string]interface{}, _ interface{}) (map[string]interface{}, error) {
	if raw == nil {
		return raw, nil
	}
	switch size := raw["size"].(type) {
	case nil:
	case string:
		if size == "" {
			delete(raw, "size")
			break
		}
		n, err := strconv.Atoi(size)
		if err != nil {
			return nil, fmt.Errorf("upgrading %s state from version 0: size %q is not an integer", versionedType, size)
		}
		raw["size"] = n
	default:
		return nil, fmt.Errorf("upgrading %s state from version 0: size has type %T, want a string", versionedType, size)
	}
	return raw, nil
}

func createVersioned(ctx context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	d.SetId(d.Get("name").(string))
	return updateVersioned(ctx, d, meta)
}

func updateVersioned(_ context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	r := &record{Attributes: attributesFrom(d, versionedSchema())}
	return diag.FromErr(meta.(*store).save(versionedType, d.Id(), r))
}

func readVersioned(_ context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	r, err := meta.(*store).load(versionedType, d.Id())
	if err != nil {
		return diag.FromErr(err)
	}
	if r == nil {
		d.SetId("")
		return nil
	}
	return diag.FromErr(setAttributes(d, versionedSchema(), r.Attributes))
}

func deleteVersioned(_ context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	return diag.FromErr(meta.(*store).remove(versionedType, d.Id()))
}
