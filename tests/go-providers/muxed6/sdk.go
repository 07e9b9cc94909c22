package main

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
)

// The SDKv2 half: resources muxed6test_sdk_<n> and data sources muxed6test_sdk_data_<n>.
func newSDKProvider() *schema.Provider {
	resources := map[string]*schema.Resource{}
	for n := 0; n < sdkResources; n++ {
		resources[fmt.Sprintf("muxed6test_sdk_%d", n)] = sdkResource()
	}
	dataSources := map[string]*schema.Resource{}
	for n := 0; n < sdkDataSources; n++ {
		dataSources[fmt.Sprintf("muxed6test_sdk_data_%d", n)] = sdkDataSource()
	}
	return &schema.Provider{
		// Both halves declare the same provider schema, as mux requires.
		Schema: map[string]*schema.Schema{
			"label": {Type: schema.TypeString, Optional: true, Description: "A label; unused."},
		},
		ResourcesMap:   resources,
		DataSourcesMap: dataSources,
	}
}

// sdkAttributes: a dozen attributes of each kind a real resource has, so the schema is of a
// real provider's size.
func sdkAttributes() map[string]*schema.Schema {
	attributes := map[string]*schema.Schema{
		"name":        {Type: schema.TypeString, Required: true, ForceNew: true, Description: "The object's name."},
		"value":       {Type: schema.TypeString, Optional: true, Description: "A value, changed in place."},
		"size":        {Type: schema.TypeInt, Optional: true, Computed: true, Description: "A size."},
		"enabled":     {Type: schema.TypeBool, Optional: true, Description: "Whether it is on."},
		"tags":        {Type: schema.TypeMap, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}},
		"members":     {Type: schema.TypeSet, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}},
		"ratio":       {Type: schema.TypeFloat, Optional: true},
		"description": {Type: schema.TypeString, Optional: true},
		"created":     {Type: schema.TypeString, Computed: true},
		"rule": {Type: schema.TypeList, Optional: true, Elem: &schema.Resource{Schema: map[string]*schema.Schema{
			"port":     {Type: schema.TypeInt, Required: true},
			"protocol": {Type: schema.TypeString, Optional: true},
			"allow":    {Type: schema.TypeBool, Optional: true},
		}}},
	}
	for n := 0; n < 6; n++ {
		attributes[fmt.Sprintf("option_%d", n)] = &schema.Schema{Type: schema.TypeString, Optional: true}
	}
	return attributes
}

func sdkResource() *schema.Resource {
	return &schema.Resource{
		Schema: sdkAttributes(),
		CreateContext: func(_ context.Context, d *schema.ResourceData, _ any) diag.Diagnostics {
			d.SetId(d.Get("name").(string))
			_ = d.Set("created", "muxed6test")
			if _, ok := d.GetOk("size"); !ok {
				_ = d.Set("size", 1)
			}
			return nil
		},
		ReadContext:   func(context.Context, *schema.ResourceData, any) diag.Diagnostics { return nil },
		UpdateContext: func(context.Context, *schema.ResourceData, any) diag.Diagnostics { return nil },
		DeleteContext: func(context.Context, *schema.ResourceData, any) diag.Diagnostics { return nil },
	}
}

func sdkDataSource() *schema.Resource {
	attributes := sdkAttributes()
	attributes["name"] = &schema.Schema{Type: schema.TypeString, Required: true}
	return &schema.Resource{
		Schema: attributes,
		ReadContext: func(_ context.Context, d *schema.ResourceData, _ any) diag.Diagnostics {
			d.SetId(d.Get("name").(string))
			return nil
		},
	}
}
