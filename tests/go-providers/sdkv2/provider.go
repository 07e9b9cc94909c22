package main

import (
	"context"
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
)

// New returns the provider. The only configuration is the state directory:
// a Required provider attribute, so the bridge must pass provider config
// through Configure before any CRUD call can work.
func New() *schema.Provider {
	return &schema.Provider{
		Schema: map[string]*schema.Schema{
			"dir": {
				Type:        schema.TypeString,
				Required:    true,
				Description: "Directory holding one JSON file per resource instance.",
			},
		},
		ResourcesMap: map[string]*schema.Resource{
			"sdkv2test_thing":     resourceThing(),
			"sdkv2test_versioned": resourceVersioned(),
		},
		DataSourcesMap: map[string]*schema.Resource{
			"sdkv2test_thing": dataSourceThing(),
		},
		ConfigureContextFunc: configure,
	}
}

func configure(_ context.Context, d *schema.ResourceData) (interface{}, diag.Diagnostics) {
	dir := d.Get("dir").(string)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, diag.FromErr(fmt.Errorf("provider dir %q: %w", dir, err))
	}
	return &store{dir: dir}, nil
}
