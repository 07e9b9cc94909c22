package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
)

// store keeps one JSON file per resource instance at
// <dir>/<resource type>/<id>.json:
//
//	{
//	  "attributes": { "<attr>": <value>, ... },   // what Read reports; edit it to make drift
//	  "observed":   { "<key>": <value>, ... }     // what the last Create/Update saw that is not state
//	}
//
// "attributes" uses plain JSON: lists and sets are arrays, blocks are arrays
// of objects, maps are objects. "observed" lets tests check things the bridge
// passes that never appear in state, such as the timeouts of an operation.
type store struct {
	dir string
}

type record struct {
	Attributes map[string]interface{} `json:"attributes"`
	Observed   map[string]interface{} `json:"observed,omitempty"`
}

func (s *store) path(typeName, id string) string {
	return filepath.Join(s.dir, typeName, id+".json")
}

// load returns (nil, nil) when the instance does not exist, so Read can tell
// Terraform the resource is gone.
func (s *store) load(typeName, id string) (*record, error) {
	data, err := os.ReadFile(s.path(typeName, id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", s.path(typeName, id), err)
	}
	return &r, nil
}

func (s *store) save(typeName, id string, r *record) error {
	p := s.path(typeName, id)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	// Write then rename, so a test reading the file never sees half of it.
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

func (s *store) remove(typeName, id string) error {
	err := os.Remove(s.path(typeName, id))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// attributesFrom copies every schema attribute out of d as plain JSON values.
func attributesFrom(d *schema.ResourceData, attrs map[string]*schema.Schema) map[string]interface{} {
	out := make(map[string]interface{}, len(attrs))
	for _, k := range sortedKeys(attrs) {
		out[k] = plain(d.Get(k))
	}
	return out
}

// setAttributes writes every schema attribute from the stored record into d;
// an attribute missing from the file becomes its zero value, so deleting a
// key out of band shows up as drift.
func setAttributes(d *schema.ResourceData, attrs map[string]*schema.Schema, stored map[string]interface{}) error {
	for _, k := range sortedKeys(attrs) {
		if err := d.Set(k, stored[k]); err != nil {
			return fmt.Errorf("attribute %q: %w", k, err)
		}
	}
	return nil
}

// plain turns the SDK's *schema.Set values (at any depth) into lists, which
// is what encoding/json and d.Set both understand.
func plain(v interface{}) interface{} {
	switch t := v.(type) {
	case *schema.Set:
		return plain(t.List())
	case []interface{}:
		out := make([]interface{}, len(t))
		for i, e := range t {
			out[i] = plain(e)
		}
		return out
	case map[string]interface{}:
		out := make(map[string]interface{}, len(t))
		for k, e := range t {
			out[k] = plain(e)
		}
		return out
	default:
		return v
	}
}

func sortedKeys(m map[string]*schema.Schema) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
