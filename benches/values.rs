//! msgpack encode and decode of a large, realistic state: 10,000 nested objects with strings,
//! numbers (integers and floats), bools, a map and a list each, under a dynamic-free schema
//! type, as a provider's state or plan would look.
//!
//! Throughput is reported per byte of msgpack. Allocations are counted by a counting global
//! allocator (below) over one encode and one decode outside the timed loops, and printed
//! before the timings; the counter costs an atomic add per allocation, which the timings
//! include.
//!
//! The Struct ⇄ cty translation is measured on the same state described by a Terraform
//! schema (a list block of 10,000 items, each with a MaxItems=1 `settings` block):
//! `from_cty` (cty → Pulumi properties), `to_cty` (back), and the protobuf `Struct` encoding
//! and decoding of those properties, with allocation counts for one run of each. Its
//! throughput is also given per byte of the state's msgpack, to compare with the codec.
//!
//! Run: `cargo bench --bench values`.

use std::alloc::{GlobalAlloc, Layout};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use prost::Message;
use schema_gen::tf::Block;
use schema_gen::translate::PropertyNames;
use tfbridge::convert::values::{UnknownKeys, from_cty, to_cty};
use tfbridge::cty::{Number, Type, Value, msgpack};
use tfbridge::property::structpb;

struct CountingAllocator;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static ALLOCATED_BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed straight to mimalloc, the allocator the plugin binary uses;
// the counters only observe.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        ALLOCATED_BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: the caller upholds `alloc`'s contract, which is mimalloc's.
        unsafe { mimalloc::MiMalloc.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above, that is from mimalloc.
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        ALLOCATED_BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        // SAFETY: as for `dealloc`, and `new_size` is the caller's to vouch for.
        unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

const N_OBJECTS: usize = 10_000;

fn state_type() -> Type {
    let item = Type::object([
        ("id", Type::String),
        ("name", Type::String),
        ("description", Type::String),
        ("count", Type::Number),
        ("price", Type::Number),
        ("enabled", Type::Bool),
        ("tags", Type::map(Type::String)),
        ("ports", Type::list(Type::Number)),
        ("settings", Type::object([("mode", Type::String), ("retries", Type::Number), ("verbose", Type::Bool)])),
    ]);
    Type::object([("id", Type::String), ("items", Type::list(item))])
}

fn state_value() -> Value {
    let items = (0..N_OBJECTS)
        .map(|idx| {
            let tags = BTreeMap::from([
                ("Name".to_owned(), Value::string(format!("item-{idx}"))),
                ("Environment".to_owned(), Value::string("production")),
                ("Owner".to_owned(), Value::string("platform-team@example.com")),
            ]);
            Value::object([
                ("id", Value::string(format!("i-{idx:016x}"))),
                ("name", Value::string(format!("resource number {idx}"))),
                ("description", Value::string("A realistic description of a cloud resource.")),
                ("count", Value::int(idx as i64 * 37)),
                ("price", Value::number(Number::from_f64(idx as f64 + 0.25).unwrap())),
                ("enabled", Value::bool(idx % 3 == 0)),
                ("tags", Value::map(Type::String, tags).unwrap()),
                (
                    "ports",
                    Value::list(Type::Number, vec![Value::int(80), Value::int(443), Value::int(8080 + idx as i64)])
                        .unwrap(),
                ),
                (
                    "settings",
                    Value::object([
                        ("mode", Value::string("fast")),
                        ("retries", Value::int(3)),
                        ("verbose", Value::bool(false)),
                    ]),
                ),
            ])
        })
        .collect();
    Value::object([("id", Value::string("state")), ("items", Value::list(Type::Dynamic, items).unwrap())])
}

fn count_allocations<T>(f: impl FnOnce() -> T) -> (T, u64, u64) {
    let (allocs, bytes) = (ALLOCATIONS.load(Ordering::Relaxed), ALLOCATED_BYTES.load(Ordering::Relaxed));
    let out = f();
    (out, ALLOCATIONS.load(Ordering::Relaxed) - allocs, ALLOCATED_BYTES.load(Ordering::Relaxed) - bytes)
}

/// CPU time of this thread. The machine these run on is shared, so wall-clock timings (what
/// criterion reports) include waiting for a core; CPU time does not.
#[cfg(unix)]
fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Elsewhere (the figures in BENCHMARKS.md are Linux's), wall-clock time stands in.
#[cfg(not(unix))]
fn thread_cpu_seconds() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64()
}

/// Throughput in MB/s (10^6 bytes) per CPU-second over `rounds` runs of `f`.
fn cpu_throughput(n_bytes: usize, rounds: u32, mut f: impl FnMut()) -> f64 {
    let start = thread_cpu_seconds();
    for _ in 0..rounds {
        f();
    }
    let seconds = thread_cpu_seconds() - start;
    n_bytes as f64 * f64::from(rounds) / seconds / 1e6
}

fn bench_msgpack(c: &mut Criterion) {
    let ty = state_type();
    let value = state_value();
    let (bytes, encode_allocs, encode_alloc_bytes) = count_allocations(|| msgpack::encode(&value, &ty).unwrap());
    let (decoded, decode_allocs, decode_alloc_bytes) = count_allocations(|| msgpack::decode(&bytes, &ty).unwrap());
    assert!(decoded.conforms_to(&ty).is_ok());
    eprintln!(
        "state: {N_OBJECTS} objects, {} bytes of msgpack; one encode: {encode_allocs} allocations ({encode_alloc_bytes} bytes); one decode: {decode_allocs} allocations ({decode_alloc_bytes} bytes)",
        bytes.len()
    );

    let encode_mbps = cpu_throughput(bytes.len(), 20, || drop(black_box(msgpack::encode(&value, &ty).unwrap())));
    let decode_mbps = cpu_throughput(bytes.len(), 20, || drop(black_box(msgpack::decode(&bytes, &ty).unwrap())));
    let both_mbps = cpu_throughput(bytes.len(), 20, || {
        drop(black_box(msgpack::decode(&msgpack::encode(&value, &ty).unwrap(), &ty).unwrap()))
    });
    eprintln!(
        "per CPU-second (20 rounds each): encode {encode_mbps:.0} MB/s, decode {decode_mbps:.0} MB/s, encode+decode {both_mbps:.0} MB/s"
    );

    let mut group = c.benchmark_group("msgpack");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(20);
    group.bench_function("encode", |b| b.iter(|| msgpack::encode(black_box(&value), black_box(&ty)).unwrap()));
    group.bench_function("decode", |b| b.iter(|| msgpack::decode(black_box(&bytes), black_box(&ty)).unwrap()));
    group.bench_function("encode+decode", |b| {
        b.iter(|| msgpack::decode(&msgpack::encode(black_box(&value), black_box(&ty)).unwrap(), &ty).unwrap())
    });
    group.finish();
}

/// The Terraform schema whose implied type is [`state_type`], with `items` as a list block
/// and `settings` as a MaxItems=1 block inside it (a single object in Pulumi).
fn state_schema() -> Block {
    serde_json::from_value(serde_json::json!({
        "attributes": {"id": {"type": "string", "computed": true}},
        "block_types": {
            "items": {"nesting_mode": "list", "block": {
                "attributes": {
                    "id": {"type": "string", "computed": true},
                    "name": {"type": "string", "required": true},
                    "description": {"type": "string", "optional": true},
                    "count": {"type": "number", "optional": true},
                    "price": {"type": "number", "optional": true},
                    "enabled": {"type": "bool", "optional": true},
                    "tags": {"type": ["map", "string"], "optional": true},
                    "ports": {"type": ["list", "number"], "optional": true}
                },
                "block_types": {
                    "settings": {"nesting_mode": "list", "max_items": 1, "block": {"attributes": {
                        "mode": {"type": "string", "optional": true},
                        "retries": {"type": "number", "optional": true},
                        "verbose": {"type": "bool", "optional": true}
                    }}}
                }
            }}
        }
    }))
    .expect("a valid schema")
}

/// [`state_value`] shaped by [`state_schema`]: each `settings` object wrapped in a list.
fn schema_state_value(block: &Block) -> Value {
    let bytes = msgpack::encode(&state_value(), &state_type()).unwrap();
    let flat = msgpack::decode(&bytes, &state_type()).unwrap();
    let items: Vec<Value> = flat
        .get_attr("items")
        .and_then(Value::elements)
        .unwrap()
        .iter()
        .map(|item| {
            let attrs = item.attributes().unwrap().iter().map(|(name, v)| {
                let v =
                    if name.as_str() == "settings" { Value::list(v.ty(), vec![v.clone()]).unwrap() } else { v.clone() };
                (name.clone(), v)
            });
            Value::object(attrs)
        })
        .collect();
    let item_ty = block.block_types["items"].block.implied_type();
    let value = Value::object([("id", Value::string("state")), ("items", Value::list(item_ty, items).unwrap())]);
    value.conforms_to(&block.implied_type()).expect("the state fits its schema");
    value
}

fn bench_translation(c: &mut Criterion) {
    let block = state_schema();
    let names = PropertyNames::of_block(&block);
    let value = schema_state_value(&block);
    let msgpack_len = msgpack::encode(&value, &block.implied_type()).unwrap().len();

    let (props, from_allocs, from_bytes) = count_allocations(|| from_cty(&block, &names, &value, &[]).unwrap());
    let ((back, _), to_allocs, to_bytes) =
        count_allocations(|| to_cty(&block, &names, &props, UnknownKeys::Reject).unwrap());
    assert_eq!(back, value, "the translation round trip is the identity on this state");
    let (message, encode_allocs, encode_bytes) = count_allocations(|| structpb::encode_struct(&props));
    let (decoded, decode_allocs, decode_bytes) = count_allocations(|| structpb::decode_struct(&message).unwrap());
    assert_eq!(decoded, props);
    let struct_len = message.encoded_len();
    eprintln!(
        "translation of the same state ({msgpack_len} bytes of msgpack, {struct_len} bytes of protobuf Struct): \
         from_cty {from_allocs} allocations ({from_bytes} bytes); to_cty {to_allocs} allocations ({to_bytes} bytes); \
         Struct encode {encode_allocs} allocations ({encode_bytes} bytes); Struct decode {decode_allocs} allocations ({decode_bytes} bytes)"
    );

    let rounds = 10;
    let from_mbps =
        cpu_throughput(msgpack_len, rounds, || drop(black_box(from_cty(&block, &names, &value, &[]).unwrap())));
    let to_mbps = cpu_throughput(msgpack_len, rounds, || {
        drop(black_box(to_cty(&block, &names, &props, UnknownKeys::Reject).unwrap()))
    });
    let encode_mbps = cpu_throughput(struct_len, rounds, || drop(black_box(structpb::encode_struct(&props))));
    let decode_mbps =
        cpu_throughput(struct_len, rounds, || drop(black_box(structpb::decode_struct(&message).unwrap())));
    eprintln!(
        "per CPU-second ({rounds} rounds each): from_cty {from_mbps:.0} MB/s and to_cty {to_mbps:.0} MB/s of msgpack-equivalent state; \
         Struct encode {encode_mbps:.0} MB/s and decode {decode_mbps:.0} MB/s of protobuf"
    );

    let mut group = c.benchmark_group("translation");
    group.throughput(Throughput::Bytes(msgpack_len as u64));
    group.sample_size(10);
    group.bench_function("from_cty", |b| {
        b.iter(|| from_cty(black_box(&block), &names, black_box(&value), &[]).unwrap())
    });
    group.bench_function("to_cty", |b| {
        b.iter(|| to_cty(black_box(&block), &names, black_box(&props), UnknownKeys::Reject).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench_msgpack, bench_translation);
criterion_main!(benches);
