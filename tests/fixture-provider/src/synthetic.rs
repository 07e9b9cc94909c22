//! A deterministic synthetic provider schema of any size, for big-schema benchmarks.
//!
//! [`AWS_SIZED`] is about the size of the AWS provider: 1,500 resources, 600 data sources
//! and 60,000 attributes in all (nested block attributes included), with descriptions,
//! every flag, collection types and nested blocks. The same shape always yields the same
//! schema, byte for byte, so timings can be compared across runs. Write one to a file with
//! `cargo run -p terraform-provider-fixture --example synthetic-schema > schema.json` and
//! serve it with `FIXTURE_SCHEMA_FILE`.
//!
//! Architecture invariant: pure data generation; no I/O.

use std::collections::BTreeMap;

use schema_gen::tf;

/// How big a synthetic schema is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SyntheticShape {
    pub n_resources: usize,
    pub n_data_sources: usize,
    /// Attributes across all resources and data sources, nested blocks included. Every
    /// schema gets at least two (its `id` and one more), so small budgets are rounded up.
    pub n_attributes: usize,
}

/// About the size of the AWS provider's schema.
pub const AWS_SIZED: SyntheticShape = SyntheticShape { n_resources: 1_500, n_data_sources: 600, n_attributes: 60_000 };

/// Builds the schema for `shape`.
pub fn synthetic_schema(shape: &SyntheticShape) -> tf::ProviderSchema {
    let n_schemas = shape.n_resources + shape.n_data_sources;
    let mut resources = BTreeMap::new();
    let mut data_sources = BTreeMap::new();
    for schema_idx in 0..n_schemas {
        // Spread the attribute budget evenly, giving the remainder to the first schemas.
        // The loop only runs when n_schemas > 0, so the divisions are safe.
        let n_attrs = shape.n_attributes / n_schemas + usize::from(schema_idx < shape.n_attributes % n_schemas);
        let mut rng = Lcg::new(schema_idx as u64);
        if schema_idx < shape.n_resources {
            let name = format!("synthetic_svc{:03}_resource{:02}", schema_idx / 16, schema_idx % 16);
            let version = if schema_idx % 7 == 0 { 1 } else { 0 };
            resources.insert(name, tf::Schema { version, block: resource_block(&mut rng, n_attrs.max(2), false) });
        } else {
            let idx = schema_idx - shape.n_resources;
            let name = format!("synthetic_svc{:03}_data{:02}", idx / 16, idx % 16);
            data_sources.insert(name, tf::Schema { version: 0, block: resource_block(&mut rng, n_attrs.max(2), true) });
        }
    }
    let mut provider = tf::Block::default();
    for (name, required) in [("region", true), ("access_key", false), ("secret_key", false), ("profile", false)] {
        let mut attr = tf::Attribute::new(tf::Type::String);
        attr.required = required;
        attr.optional = !required;
        attr.sensitive = name == "secret_key";
        attr.description = format!("The {name} used to reach the synthetic service.");
        provider.attributes.insert(name.to_owned(), attr);
    }
    tf::ProviderSchema {
        provider: tf::Schema { version: 0, block: provider },
        resources,
        data_sources,
        ..tf::ProviderSchema::default()
    }
}

/// A block with exactly `n_attrs` attributes in all, some of them inside nested blocks.
fn resource_block(rng: &mut Lcg, n_attrs: usize, data_source: bool) -> tf::Block {
    let mut block = tf::Block {
        description: "A synthetic schema entry, generated for benchmarks. It mimics the size and variety of a large cloud provider's resources.".to_owned(),
        ..tf::Block::default()
    };
    let mut id = tf::Attribute::new(tf::Type::String);
    id.computed = true;
    block.attributes.insert("id".to_owned(), id);
    let mut remaining = n_attrs - 1;
    // About a third of the budget goes into nested blocks when there is room for them.
    let mut block_idx = 0;
    while remaining > 8 && rng.below(3) == 0 {
        let n_inner = 2 + rng.below(6) as usize;
        let nesting = match rng.below(4) {
            0 => tf::BlockNesting::Set,
            1 => tf::BlockNesting::Single,
            _ => tf::BlockNesting::List,
        };
        let max_items = if nesting == tf::BlockNesting::List && rng.below(2) == 0 { 1 } else { 0 };
        let mut inner = tf::Block::default();
        add_attributes(rng, &mut inner, n_inner, data_source);
        block.block_types.insert(
            format!("nested_block_{block_idx}"),
            tf::NestedBlock { nesting, block: inner, min_items: 0, max_items },
        );
        remaining -= n_inner;
        block_idx += 1;
    }
    add_attributes(rng, &mut block, remaining, data_source);
    block
}

fn add_attributes(rng: &mut Lcg, block: &mut tf::Block, n_attrs: usize, data_source: bool) {
    let start = block.attributes.len();
    for attr_idx in start..start + n_attrs {
        let (kind, ty) = match rng.below(20) {
            0..=9 => ("name", tf::Type::String),
            10..=11 => ("count", tf::Type::Number),
            12..=13 => ("enabled", tf::Type::Bool),
            14 => ("tags", tf::Type::map(tf::Type::String)),
            15 => ("ids", tf::Type::list(tf::Type::String)),
            16 => ("members", tf::Type::set(tf::Type::String)),
            17 => ("ports", tf::Type::list(tf::Type::Number)),
            18 => ("labels", tf::Type::map(tf::Type::Number)),
            _ => ("settings", tf::Type::object([("key", tf::Type::String), ("value", tf::Type::String)])),
        };
        let mut attr = tf::Attribute::new(ty);
        match (data_source, rng.below(10)) {
            (true, 0..=1) => attr.required = true,
            (true, _) => attr.computed = true,
            (false, 0..=2) => attr.required = true,
            (false, 3..=6) => attr.optional = true,
            (false, 7..=8) => {
                attr.optional = true;
                attr.computed = true;
            }
            (false, _) => attr.computed = true,
        }
        attr.sensitive = rng.below(40) == 0;
        attr.description = format!(
            "The {kind} of this synthetic object (attribute {attr_idx}). Changing it may force a new resource to be created."
        );
        block.attributes.insert(format!("{kind}_{attr_idx}"), attr);
    }
}

/// A tiny linear congruential generator: deterministic and dependency-free, which is all a
/// benchmark schema needs.
struct Lcg(u64);

impl Lcg {
    fn new(seed: u64) -> Lcg {
        Lcg(seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407))
    }

    fn below(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % bound
    }
}

/// Counts the attributes of a block, nested blocks included.
pub fn count_attributes(block: &tf::Block) -> usize {
    block.attributes.len() + block.block_types.values().map(|b| count_attributes(&b.block)).sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aws_sized_schema_has_the_promised_size_and_is_deterministic() {
        let schema = synthetic_schema(&AWS_SIZED);
        assert_eq!(schema.resources.len(), 1_500);
        assert_eq!(schema.data_sources.len(), 600);
        let n_attributes: usize =
            schema.resources.values().chain(schema.data_sources.values()).map(|s| count_attributes(&s.block)).sum();
        assert_eq!(n_attributes, 60_000);
        assert_eq!(synthetic_schema(&AWS_SIZED), schema);
        let n_nested_blocks: usize = schema.resources.values().map(|s| s.block.block_types.len()).sum();
        assert!(n_nested_blocks > 300, "only {n_nested_blocks} nested blocks");
    }
}
