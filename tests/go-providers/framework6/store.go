package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

var pathDir = path.Root("dir")

// store keeps one JSON file per resource instance at
// <dir>/<resource type>/<id>.json:
//
//	{
//	  "attributes": { ... },   // the state, in Terraform's JSON state encoding; edit it to make drift
//	  "observed":   { ... }    // what the last Create/Update saw that is not state
//	}
//
// "attributes" is what Terraform itself writes for a resource: objects for
// nested attributes, arrays for lists/sets, numbers as JSON numbers, and a
// dynamic value as {"value": ..., "type": <type JSON>}. "observed" lets tests
// check values that never reach state, such as write-only attributes.
type store struct {
	dir string
}

type record struct {
	Attributes json.RawMessage        `json:"attributes"`
	Observed   map[string]interface{} `json:"observed,omitempty"`
}

func (s *store) path(typeName, id string) string {
	return filepath.Join(s.dir, typeName, id+".json")
}

// load returns a null value (and no error) when the instance does not exist.
func (s *store) load(typeName, id string, typ tftypes.Type) (tftypes.Value, error) {
	data, err := os.ReadFile(s.path(typeName, id))
	if errors.Is(err, os.ErrNotExist) {
		return tftypes.NewValue(typ, nil), nil
	}
	if err != nil {
		return tftypes.Value{}, err
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return tftypes.Value{}, fmt.Errorf("%s: %w", s.path(typeName, id), err)
	}
	v, err := (&tfprotov6.RawState{JSON: r.Attributes}).Unmarshal(typ)
	if err != nil {
		return tftypes.Value{}, fmt.Errorf("%s: attributes: %w", s.path(typeName, id), err)
	}
	return v, nil
}

func (s *store) save(typeName, id string, typ tftypes.Type, v tftypes.Value, observed map[string]interface{}) error {
	attrs, err := toJSON(typ, v)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(attrs)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(record{Attributes: raw, Observed: observed}, "", "  ")
	if err != nil {
		return err
	}
	p := s.path(typeName, id)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	// Write then rename, so a test reading the file never sees half of it.
	if err := os.WriteFile(p+".tmp", append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(p+".tmp", p)
}

func (s *store) remove(typeName, id string) error {
	err := os.Remove(s.path(typeName, id))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// toJSON encodes v (of schema type typ) the way Terraform encodes state
// JSON, which is what RawState.Unmarshal reads back. typ, not v.Type(),
// decides where a dynamic value needs its {"value","type"} wrapper.
func toJSON(typ tftypes.Type, v tftypes.Value) (interface{}, error) {
	if !v.IsKnown() {
		return nil, fmt.Errorf("cannot store an unknown value of type %s", v.Type())
	}
	if v.IsNull() {
		return nil, nil
	}
	if typ.Is(tftypes.DynamicPseudoType) {
		inner, err := toJSON(v.Type(), v)
		if err != nil {
			return nil, err
		}
		typeJSON, err := v.Type().MarshalJSON()
		if err != nil {
			return nil, err
		}
		return map[string]interface{}{"value": inner, "type": json.RawMessage(typeJSON)}, nil
	}
	switch {
	case typ.Is(tftypes.String):
		var s string
		return s, v.As(&s)
	case typ.Is(tftypes.Bool):
		var b bool
		return b, v.As(&b)
	case typ.Is(tftypes.Number):
		var f big.Float
		if err := v.As(&f); err != nil {
			return nil, err
		}
		// Shortest decimal that reads back to the same value.
		return json.Number(f.Text('g', -1)), nil
	case typ.Is(tftypes.List{}), typ.Is(tftypes.Set{}), typ.Is(tftypes.Tuple{}):
		var elems []tftypes.Value
		if err := v.As(&elems); err != nil {
			return nil, err
		}
		out := make([]interface{}, len(elems))
		for i, e := range elems {
			var et tftypes.Type
			switch t := typ.(type) {
			case tftypes.List:
				et = t.ElementType
			case tftypes.Set:
				et = t.ElementType
			case tftypes.Tuple:
				et = t.ElementTypes[i]
			}
			j, err := toJSON(et, e)
			if err != nil {
				return nil, err
			}
			out[i] = j
		}
		return out, nil
	case typ.Is(tftypes.Map{}), typ.Is(tftypes.Object{}):
		var elems map[string]tftypes.Value
		if err := v.As(&elems); err != nil {
			return nil, err
		}
		out := make(map[string]interface{}, len(elems))
		for k, e := range elems {
			et := tftypes.Type(nil)
			if m, ok := typ.(tftypes.Map); ok {
				et = m.ElementType
			} else {
				et = typ.(tftypes.Object).AttributeTypes[k]
			}
			j, err := toJSON(et, e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = j
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported type %s", typ)
}

// unknownsToNull replaces every unknown in a planned value with null: the
// computed attributes this provider does not fill stay null after apply.
func unknownsToNull(v tftypes.Value) (tftypes.Value, error) {
	return tftypes.Transform(v, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
}
