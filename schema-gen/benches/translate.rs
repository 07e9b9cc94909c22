//! Translation of an AWS-sized synthetic provider schema: 1,500 resources, 600 data
//! sources, about 60,000 attributes, with nested blocks, MaxItems=1 blocks, nested
//! attributes, maps and lists. The schema is generated deterministically (a fixed linear
//! congruential sequence), so runs compare.
//!
//! Run: `cargo bench -p schema-gen --bench translate`.

use std::collections::BTreeMap;

use criterion::{Criterion, criterion_group, criterion_main};
use schema_gen::tf::{
    Attribute, AttributeType, Block, BlockNesting, NestedBlock, NestedObject, ObjectNesting, ProviderSchema, Schema,
    Type,
};
use schema_gen::translate::{TokenFilter, TranslateConfig, translate};

/// A tiny deterministic pseudo-random sequence (Knuth's MMIX constants).
struct Sequence(u64);

impl Sequence {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound
    }
}

const WORDS: &[&str] = &[
    "name",
    "arn",
    "policy",
    "rule",
    "bucket",
    "instance",
    "subnet",
    "security_group",
    "tag",
    "endpoint",
    "status",
    "address",
    "key",
    "value",
    "priority",
    "action",
    "target",
    "listener",
    "certificate",
    "domain",
    "alias",
    "index",
    "capacity",
    "mode",
    "type",
    "role",
    "region",
    "zone",
    "vpc",
    "route",
    "filter",
    "entry",
    "log",
    "metric",
];

fn word_name(seq: &mut Sequence, idx: usize) -> String {
    let a = WORDS[seq.next(WORDS.len() as u64) as usize];
    let b = WORDS[seq.next(WORDS.len() as u64) as usize];
    format!("{a}_{b}_{idx}")
}

fn attribute(seq: &mut Sequence) -> Attribute {
    let ty = match seq.next(10) {
        0..=3 => Type::String,
        4 => Type::Number,
        5 => Type::Bool,
        6 => Type::list(Type::String),
        7 => Type::set(Type::String),
        8 => Type::map(Type::String),
        _ => Type::object([("host", Type::String), ("port", Type::Number)]),
    };
    let mut attr = Attribute::new(ty);
    match seq.next(4) {
        0 => attr.required = true,
        1 => attr.optional = true,
        2 => (attr.optional, attr.computed) = (true, true),
        _ => attr.computed = true,
    }
    attr.sensitive = seq.next(20) == 0;
    attr.description = "Some description of this attribute, with `code` in it.".to_owned();
    attr
}

/// A block with `n_attrs` attributes in total, some of them inside nested blocks.
fn block(seq: &mut Sequence, n_attrs: usize, depth: usize) -> Block {
    let mut result = Block { description: "A block.".to_owned(), ..Block::default() };
    let mut remaining = n_attrs;
    let mut idx = 0;
    while remaining > 0 {
        idx += 1;
        let name = word_name(seq, idx);
        if depth < 3 && remaining > 6 && seq.next(8) == 0 {
            let size = 2 + seq.next(5) as usize;
            let inner = block(seq, size, depth + 1);
            let (nesting, max_items) = match seq.next(3) {
                0 => (BlockNesting::List, 1),
                1 => (BlockNesting::List, 0),
                _ => (BlockNesting::Set, 0),
            };
            result.block_types.insert(name, NestedBlock { nesting, block: inner, min_items: 0, max_items });
            remaining -= size;
        } else if depth < 3 && remaining > 4 && seq.next(16) == 0 {
            let attributes: BTreeMap<String, Attribute> =
                (0..3).map(|i| (format!("field_{i}"), attribute(seq))).collect();
            let mut attr = Attribute::new(Type::String);
            attr.ty = AttributeType::Nested(NestedObject {
                attributes,
                nesting: ObjectNesting::List,
                min_items: 0,
                max_items: 0,
            });
            attr.optional = true;
            result.attributes.insert(name, attr);
            remaining -= 3;
        } else {
            result.attributes.insert(name, attribute(seq));
            remaining -= 1;
        }
    }
    result.attributes.insert("id".to_owned(), {
        let mut id = Attribute::new(Type::String);
        (id.optional, id.computed) = (true, true);
        id
    });
    result
}

fn aws_sized_schema() -> ProviderSchema {
    let mut seq = Sequence(42);
    let mut schema =
        ProviderSchema { provider: Schema { version: 0, block: block(&mut seq, 40, 0) }, ..ProviderSchema::default() };
    for idx in 0..1500 {
        let name = format!("aws_{}", word_name(&mut seq, idx));
        schema.resources.insert(name, Schema { version: 1, block: block(&mut seq, 30, 0) });
    }
    for idx in 0..600 {
        let name = format!("aws_{}", word_name(&mut seq, idx));
        schema.data_sources.insert(name, Schema { version: 0, block: block(&mut seq, 24, 0) });
    }
    schema
}

fn count_attributes(block: &Block) -> usize {
    block.attributes.len() + block.block_types.values().map(|b| count_attributes(&b.block)).sum::<usize>()
}

fn bench_translate(c: &mut Criterion) {
    let schema = aws_sized_schema();
    let n_attrs: usize =
        schema.resources.values().chain(schema.data_sources.values()).map(|s| count_attributes(&s.block)).sum();
    eprintln!(
        "synthetic schema: {} resources, {} data sources, {n_attrs} attributes",
        schema.resources.len(),
        schema.data_sources.len()
    );
    let parameter = br#"{"remote":{"url":"registry.opentofu.org/hashicorp/aws","version":"6.0.0"}}"#;
    let config = TranslateConfig {
        schema: &schema,
        package_name: "aws",
        package_version: "6.0.0",
        terraform_name: "aws",
        source_address: Some("registry.opentofu.org/hashicorp/aws"),
        parameter_value: parameter,
        plugin_version: "100.0.0",
        filter: TokenFilter { include: &[], exclude: &[] },
    };
    // The machine may be shared: report process CPU time too, which waiting for a core
    // does not inflate.
    const N_RUNS: u32 = 5;
    let (wall_start, cpu_start) = (std::time::Instant::now(), cpu_time());
    for _ in 0..N_RUNS {
        std::hint::black_box(translate(&config));
    }
    eprintln!(
        "one translation: {:.0} ms wall, {:.0} ms CPU (mean of {N_RUNS})",
        wall_start.elapsed().as_secs_f64() * 1000.0 / f64::from(N_RUNS),
        (cpu_time() - cpu_start).as_secs_f64() * 1000.0 / f64::from(N_RUNS)
    );
    let mut group = c.benchmark_group("translate");
    group.sample_size(10);
    group.bench_function("aws_sized", |b| b.iter(|| translate(&config)));
    group.bench_function("aws_sized_to_json", |b| b.iter(|| translate(&config).0.to_json()));
    group.finish();
}

/// CPU time used by this process so far.
#[cfg(unix)]
fn cpu_time() -> std::time::Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_PROCESS_CPUTIME_ID always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Elsewhere (BENCHMARKS.md's figures are Linux's), wall-clock time since the first call.
#[cfg(not(unix))]
fn cpu_time() -> std::time::Duration {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}

criterion_group!(benches, bench_translate);
criterion_main!(benches);
