#!/usr/bin/env python3
"""The resources of a Pulumi YAML program on the AWS-sized synthetic provider, for
scripts/bench/e2e.sh: N resources spread evenly over five resource types taken from across the
schema (services 0, 18, 37, 56 and 75 of 94), each with every required input set to a value
of its type. The types come from the Pulumi package schema (schema-gen's output), so the
program follows the naming rules rather than restating them.

    python3 scripts/bench/program.py PULUMI-SCHEMA.json N >program.yaml
"""

import json
import sys


def value(schema, spec, idx):
    """A YAML flow value for a property spec."""
    if "$ref" in spec:
        ref = spec["$ref"].removeprefix("#/types/")
        properties = schema["types"][ref]["properties"]
        return "{" + ", ".join(f"{name}: {value(schema, prop, idx)}" for name, prop in sorted(properties.items())) + "}"
    kind = spec.get("type")
    if kind == "string":
        return f"v{idx}"
    if kind == "number" or kind == "integer":
        return str(idx % 1000)
    if kind == "boolean":
        return "true"
    if kind == "array":
        return f"[{value(schema, spec['items'], idx)}]"
    if kind == "object":
        return f"{{k: {value(schema, spec['additionalProperties'], idx)}}}"
    raise SystemExit(f"bench-program: no value for {spec}")


def main():
    schema = json.load(open(sys.argv[1]))
    n_resources = int(sys.argv[2])
    tokens = sorted(schema["resources"])
    picked = [tokens[i * len(tokens) // 5 + i * 3] for i in range(5)]
    for idx in range(n_resources):
        token = picked[idx % len(picked)]
        resource = schema["resources"][token]
        inputs = resource["inputProperties"]
        properties = ", ".join(
            f"{name}: {value(schema, inputs[name], idx)}" for name in sorted(resource.get("requiredInputs", []))
        )
        print(f"  res{idx}:\n    type: {token}\n    properties: {{{properties}}}")


if __name__ == "__main__":
    main()
