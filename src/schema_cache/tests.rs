use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use expect_test::expect;
use schema_gen::tf::{ProviderSchema, ProvidersSchemaFile};

use super::entry::{self, EntryProblem, MAGIC};
use super::package;
use super::store::{CacheFile, evictions, write_atomically};
use super::*;

/// The fixture provider's schema: protocol-6 nested attributes, blocks, functions, a
/// provider_meta-less provider block, sensitive and write-only attributes.
fn fixture_schema() -> ProviderSchema {
    let file: ProvidersSchemaFile =
        serde_json::from_str(include_str!("../../tests/fixture-provider/src/fixture_schema.json")).unwrap();
    file.provider_schemas.into_values().next().unwrap()
}

/// A cache of unbounded size in a fresh directory, which lives as long as the guard.
fn unbounded_cache() -> (tempfile::TempDir, SchemaCache) {
    let temp = tempfile::tempdir().unwrap();
    let cache = SchemaCache { dir: temp.path().to_owned(), max_bytes: u64::MAX };
    (temp, cache)
}

fn key(binary: &str) -> CacheKey {
    let identity = FileIdentity { device: 1, inode: 2, size: 3, mtime_ns: 4, ctime_ns: 5 };
    CacheKey {
        format: key::FORMAT_VERSION,
        bridge_version: "100.0.0".to_owned(),
        bridge_build: identity.clone(),
        binary: PathBuf::from(binary),
        binary_identity: identity,
    }
}

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Facts {
    capabilities: Vec<String>,
}

fn facts() -> Facts {
    Facts { capabilities: vec!["plan_destroy".to_owned()] }
}

#[test]
fn an_entry_reads_back_lazily_item_by_item_and_whole() {
    let schema = fixture_schema();
    let key = key("/p/terraform-provider-fixture");
    let bytes = entry::encode(&key, &facts(), &schema).unwrap();
    let (read_facts, lazy): (Facts, LazySchema) = entry::decode(&key, bytes).unwrap();
    assert_eq!(read_facts, facts());
    assert!(!lazy.is_whole());
    // The eager parts and the names are there without decoding any resource.
    assert_eq!(lazy.provider(), &schema.provider);
    assert_eq!(lazy.names().resources.keys().collect::<Vec<_>>(), schema.resources.keys().collect::<Vec<_>>());
    assert_eq!(lazy.names().data_sources.len(), schema.data_sources.len());
    assert_eq!(lazy.names().functions, schema.functions);
    for (name, expected) in &schema.resources {
        assert_eq!(lazy.resource(name), Some((name.as_str(), expected)), "{name}");
    }
    for (name, expected) in &schema.data_sources {
        assert_eq!(lazy.data_source(name), Some((name.as_str(), expected)), "{name}");
    }
    assert_eq!(lazy.resource("fixture_nonexistent"), None);
    assert!(!lazy.is_whole(), "item lookups must not decode the whole schema");
    assert_eq!(lazy.whole().unwrap(), &schema);
    assert!(lazy.is_whole());
    // After the whole decode, items come from it.
    let first = schema.resources.keys().next().unwrap();
    assert_eq!(lazy.resource(first).map(|(_, s)| s), schema.resources.get(first));
}

#[test]
fn a_schema_from_the_provider_is_whole() {
    let schema = fixture_schema();
    let lazy = LazySchema::from_provider(schema.clone());
    assert!(lazy.is_whole());
    let first = schema.resources.keys().next().unwrap();
    assert_eq!(lazy.resource(first).map(|(_, s)| s), schema.resources.get(first));
    assert_eq!(lazy.whole().unwrap(), &schema);
}

/// An entry whose bytes passed every check but do not decode (forged with a valid checksum,
/// or a model that changed without a format version) is an error to report, never a panic:
/// an item is missing, and the whole schema is an error that says what to do.
#[test]
fn an_entry_that_does_not_decode_is_an_error_not_a_panic() {
    use super::LazySchemaError;
    use super::lazy::Source;
    let document = br#"{"resource_schemas": {"fixture_thing": not json}}"#.to_vec();
    let item = document.windows(8).position(|w| w == b"not json").unwrap();
    let ranges = BTreeMap::from([(
        "resource_schemas".to_owned(),
        BTreeMap::from([("fixture_thing".to_owned(), item..item + 8)]),
    )]);
    let lazy = LazySchema::cached(ProviderSchema::default(), Source::from(document), 0, ranges).unwrap();
    assert_eq!(lazy.names().resources.keys().collect::<Vec<_>>(), ["fixture_thing"], "the names are there");
    assert_eq!(lazy.resource("fixture_thing"), None, "an item that does not decode is missing");
    let error = lazy.whole().expect_err("the whole schema does not decode");
    assert!(matches!(error, LazySchemaError::Decode(_)), "{error:?}");
    assert!(
        error.to_string().contains("does not decode (expected ident at line 1 column 41); it is removed"),
        "{error}"
    );
    assert!(!lazy.is_whole());

    let unknown = BTreeMap::from([("resource_chemas".to_owned(), BTreeMap::new())]);
    let refused = LazySchema::cached(ProviderSchema::default(), Source::from(Vec::new()), 0, unknown);
    assert!(matches!(refused, Err(LazySchemaError::UnknownSection(section)) if section == "resource_chemas"));
}

/// An entry on disk that passes its checksum but whose item does not decode (forged, or a
/// model change without a format bump) is removed when that item is read, so the next start
/// misses and rebuilds it, instead of failing the same way every run.
#[test]
fn an_entry_that_does_not_decode_is_removed_so_the_next_start_rebuilds_it() {
    let (_temp, cache) = unbounded_cache();
    let schema = fixture_schema();
    let a = key("/p/a");
    let good = entry::encode(&a, &facts(), &schema).unwrap();
    let header_len = u32::from_le_bytes(good[MAGIC.len()..MAGIC.len() + 4].try_into().unwrap()) as usize;
    let payload_start = MAGIC.len() + 4 + header_len;
    // Break one resource's JSON near the end of the document, then sign the payload again.
    let (name, _) = schema.resources.iter().next_back().unwrap();
    let mut payload = good[payload_start..].to_vec();
    let needle = format!("\"{name}\":{{");
    let at = payload.windows(needle.len()).rposition(|w| w == needle.as_bytes()).unwrap() + needle.len();
    payload[at] = b'!';
    let header = std::str::from_utf8(&good[MAGIC.len() + 4..payload_start]).unwrap();
    let old_sum = header.split("\"sha256\":\"").nth(1).unwrap().split('"').next().unwrap();
    let new_sum: String = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, &payload)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let header = header.replace(old_sum, &new_sum);
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&(header.len() as u32).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(&payload);
    std::fs::create_dir_all(&cache.dir).unwrap();
    let path = cache.dir.join(a.file_name());
    std::fs::write(&path, bytes).unwrap();

    let (_, lazy) = cache.load::<Facts>(&a).expect("the forged entry passes its checks");
    assert!(path.exists());
    assert_eq!(lazy.resource(name), None, "the broken item is missing, not a panic");
    assert!(!path.exists(), "the entry that does not decode is removed");
    assert!(lazy.whole().is_err());
    assert!(matches!(cache.load::<Facts>(&a), Err(Miss::Absent)), "the next start misses and rebuilds");
}

/// Every way an entry can be damaged is refused with its reason, never decoded.
#[test]
fn damaged_entries_are_refused() {
    let schema = fixture_schema();
    let key = key("/p/terraform-provider-fixture");
    let good = entry::encode(&key, &facts(), &schema).unwrap();
    let header_len = u32::from_le_bytes(good[MAGIC.len()..MAGIC.len() + 4].try_into().unwrap()) as usize;
    let payload_start = MAGIC.len() + 4 + header_len;
    let replace_in_header = |from: &str, to: &str| {
        let header = std::str::from_utf8(&good[MAGIC.len() + 4..payload_start]).unwrap().replacen(from, to, 1);
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&(header.len() as u32).to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(&good[payload_start..]);
        bytes
    };
    let mut flipped = good.clone();
    flipped[payload_start + 200] ^= 0x20;
    let other_binary = super::tests::key("/p/other");
    let cases: Vec<(&str, Vec<u8>, &CacheKey)> = vec![
        ("empty file", vec![], &key),
        ("not an entry", b"{\"hello\": 1}".to_vec(), &key),
        ("cut in the header length", good[..MAGIC.len() + 2].to_vec(), &key),
        ("cut in the header", good[..MAGIC.len() + 10].to_vec(), &key),
        ("cut in the payload", good[..good.len() - 1].to_vec(), &key),
        ("cut at the payload", good[..payload_start].to_vec(), &key),
        ("longer than declared", [good.clone(), b" ".to_vec()].concat(), &key),
        ("one bit flipped in the payload", flipped, &key),
        ("another format", replace_in_header("\"format\":1,", "\"format\":99,"), &key),
        (
            "another bridge version",
            replace_in_header("\"bridge_version\":\"100.0.0\"", "\"bridge_version\":\"1.2.0\""),
            &key,
        ),
        ("read for another binary", good.clone(), &other_binary),
        ("header is not JSON", replace_in_header("{", "["), &key),
    ];
    let outcomes: Vec<String> = cases
        .into_iter()
        .map(|(name, bytes, key)| {
            let outcome = match entry::decode::<Facts>(key, bytes) {
                Ok(_) => "ACCEPTED".to_owned(),
                Err(problem) => problem.to_string(),
            };
            format!("{name}: {outcome}")
        })
        .collect();
    expect![[r#"
        empty file: not a schema cache entry (bad magic)
        not an entry: not a schema cache entry (bad magic)
        cut in the header length: truncated: header length
        cut in the header: truncated: header
        cut in the payload: truncated: payload
        cut at the payload: truncated: payload
        longer than declared: unreadable header: payload longer than declared
        one bit flipped in the payload: checksum mismatch: the entry is corrupt
        another format: written in format 99, this bridge reads format 1
        another bridge version: written for another key (another bridge build, or the provider binary changed)
        read for another binary: written for another key (another bridge build, or the provider binary changed)
        header is not JSON: unreadable header: invalid type: string "format", expected u32 at line 1 column 9"#]]
    .assert_eq(&outcomes.join("\n"));
    assert!(entry::decode::<Facts>(&key, good).is_ok());
}

#[test]
fn facts_of_another_shape_are_a_miss_not_a_wrong_answer() {
    #[derive(serde::Serialize)]
    struct Older {
        capabilities: u32,
    }
    let key = key("/p/x");
    let bytes = entry::encode(&key, &Older { capabilities: 1 }, &fixture_schema()).unwrap();
    assert!(matches!(entry::decode::<Facts>(&key, bytes), Err(EntryProblem::Payload(_))));
}

fn file(name: &str, size: u64, age_secs: u64, now: SystemTime) -> CacheFile {
    CacheFile { name: name.to_owned(), size, modified: now - Duration::from_secs(age_secs) }
}

#[test]
fn eviction_keeps_the_most_recently_used_entries_under_the_bound() {
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
    let table: Vec<(&str, Vec<CacheFile>, u64, Vec<&str>)> = vec![
        ("under the bound", vec![file("a.schema", 10, 5, now), file("b.schema", 10, 1, now)], 20, vec![]),
        ("oldest goes first", vec![file("a.schema", 10, 5, now), file("b.schema", 10, 1, now)], 15, vec!["a.schema"]),
        (
            "a big recent entry pushes out older small ones",
            vec![file("old1.schema", 5, 9, now), file("old2.schema", 5, 8, now), file("big.schema", 12, 1, now)],
            15,
            vec!["old2.schema", "old1.schema"],
        ),
        ("an entry over the bound alone is evicted", vec![file("huge.schema", 30, 1, now)], 20, vec!["huge.schema"]),
        (
            "a stale temporary file goes, a fresh one stays",
            vec![file(".tmp-dead", 1, 7200, now), file(".tmp-busy", 1, 10, now)],
            100,
            vec![".tmp-dead"],
        ),
        (
            "files that are not ours are left alone",
            vec![file("README", 1000, 9999, now), file("a.schema", 10, 1, now)],
            10,
            vec![],
        ),
        ("ties break by name", vec![file("b.schema", 10, 3, now), file("a.schema", 10, 3, now)], 10, vec!["b.schema"]),
    ];
    for (name, files, max, expected) in table {
        assert_eq!(evictions(files, max, now), expected, "{name}");
    }
}

#[test]
fn store_then_load_in_a_directory_and_evict_to_the_bound() {
    let temp = tempfile::tempdir().unwrap();
    let cache = SchemaCache { dir: temp.path().join("nested/.schema-cache"), max_bytes: u64::MAX };
    let schema = fixture_schema();
    let a = key("/p/a");
    assert!(matches!(cache.load::<Facts>(&a), Err(Miss::Absent)));
    cache.store(&a, &facts(), &schema).unwrap();
    let (read, lazy) = cache.load::<Facts>(&a).unwrap();
    assert_eq!(read, facts());
    assert_eq!(lazy.whole().unwrap(), &schema);
    // Closed, so that on Windows too the eviction below removes its name at once.
    drop(lazy);

    // A bound that holds one entry keeps the newest.
    let size = std::fs::metadata(cache.dir.join(a.file_name())).unwrap().len();
    let small = SchemaCache { max_bytes: size + size / 2, ..cache.clone() };
    std::thread::sleep(Duration::from_millis(20));
    let b = key("/p/b");
    small.store(&b, &facts(), &schema).unwrap();
    assert!(matches!(small.load::<Facts>(&a), Err(Miss::Absent)), "the older entry is evicted");
    assert!(small.load::<Facts>(&b).is_ok());
    let names: Vec<String> =
        std::fs::read_dir(&cache.dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names, vec![b.file_name()], "no temporary file is left behind");
}

#[test]
fn a_loaded_entry_reads_its_items_from_the_file_it_verified_even_once_replaced() {
    let (_temp, cache) = unbounded_cache();
    let schema = fixture_schema();
    let a = key("/p/a");
    cache.store(&a, &facts(), &schema).unwrap();
    let (_, lazy) = cache.load::<Facts>(&a).unwrap();
    // Another process rewrites the entry (a rename over it), then evicts it: the schema
    // opened before still reads the file it verified, item by item and whole.
    let mut other = schema.clone();
    other.resources.clear();
    cache.store(&a, &facts(), &other).unwrap();
    std::fs::remove_file(cache.dir.join(a.file_name())).unwrap();
    for (name, expected) in &schema.resources {
        assert_eq!(lazy.resource(name), Some((name.as_str(), expected)), "{name}");
    }
    assert!(!lazy.is_whole());
    assert_eq!(lazy.whole().unwrap(), &schema);
}

#[test]
fn a_corrupt_entry_on_disk_is_a_miss_and_the_next_store_replaces_it() {
    let (_temp, cache) = unbounded_cache();
    let a = key("/p/a");
    let path = cache.dir.join(a.file_name());
    std::fs::write(&path, b"tfbridge-schema-cache\n\x05\0\0\0{}").unwrap();
    assert!(matches!(cache.load::<Facts>(&a), Err(Miss::Refused { .. })));
    cache.store(&a, &facts(), &fixture_schema()).unwrap();
    assert!(cache.load::<Facts>(&a).is_ok());
}

#[test]
fn an_unwritable_directory_is_an_error_for_the_debug_line_not_a_panic() {
    let temp = tempfile::tempdir().unwrap();
    // A regular file where the directory should be: nothing can be created under it, even
    // by root (who ignores permission bits).
    let blocker = temp.path().join("not-a-dir");
    std::fs::write(&blocker, b"").unwrap();
    let cache = SchemaCache { dir: blocker.join(".schema-cache"), max_bytes: u64::MAX };
    let error = cache.store(&key("/p/a"), &facts(), &fixture_schema()).unwrap_err();
    assert!(matches!(error, StoreError::Io { .. }), "{error}");
    // Unix says "not a directory"; Windows, "the path is not found", so nothing is there.
    if cfg!(unix) {
        assert!(matches!(cache.load::<Facts>(&key("/p/a")), Err(Miss::Io { .. })));
    } else {
        assert!(matches!(cache.load::<Facts>(&key("/p/a")), Err(Miss::Absent)));
    }
}

/// Concurrent writers and readers of one key: every read is either absent or whole and
/// right; never a torn entry.
#[test]
fn concurrent_writers_and_readers_never_see_a_torn_entry() {
    let (_temp, cache) = unbounded_cache();
    let schema = fixture_schema();
    let a = key("/p/a");
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| {
                for _ in 0..5 {
                    cache.store(&a, &facts(), &schema).unwrap();
                }
            });
        }
        for _ in 0..3 {
            scope.spawn(|| {
                for _ in 0..20 {
                    match cache.load::<Facts>(&a) {
                        Ok((read, lazy)) => {
                            assert_eq!(read, facts());
                            assert_eq!(lazy.whole().unwrap(), &schema);
                        }
                        Err(Miss::Absent) => {}
                        Err(other) => panic!("a reader saw a bad entry: {other}"),
                    }
                }
            });
        }
    });
}

#[test]
fn atomic_write_replaces_whole_files() {
    let temp = tempfile::tempdir().unwrap();
    write_atomically(temp.path(), "x.schema", b"first").unwrap();
    write_atomically(temp.path(), "x.schema", b"second").unwrap();
    assert_eq!(std::fs::read(temp.path().join("x.schema")).unwrap(), b"second");
    assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 1);
}

#[test]
fn the_key_changes_when_the_binary_changes_on_disk() {
    let temp = tempfile::tempdir().unwrap();
    let binary = temp.path().join("terraform-provider-x");
    std::fs::write(&binary, b"one").unwrap();
    let bridge = std::env::current_exe().unwrap();
    let before = CacheKey::for_binary(&binary, &bridge).unwrap();
    assert_eq!(CacheKey::for_binary(&binary, &bridge).unwrap(), before, "stable while nothing changes");
    // The same size, rewritten in place: the change time moves even if mtime were reset.
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(&binary, b"two").unwrap();
    let after = CacheKey::for_binary(&binary, &bridge).unwrap();
    assert_ne!(after, before);
    assert_ne!(after.file_name(), before.file_name());
    assert!(CacheKey::for_binary(&temp.path().join("missing"), &bridge).is_err());
}

#[test]
fn the_environment_places_and_bounds_the_cache() {
    let vars = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    };
    let table = [
        // USERPROFILE is Windows' home, HOME everyone else's.
        vars(&[("HOME", "/home/u"), ("USERPROFILE", "/home/u")]),
        vars(&[("HOME", "/home/u"), ("PULUMI_HOME", "/p")]),
        vars(&[
            ("PULUMI_HOME", "/p"),
            ("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR", "/c"),
            ("PULUMI_TF_SCHEMA_CACHE_MAX_MB", "3"),
        ]),
        vars(&[("HOME", "/home/u"), ("PULUMI_TF_SCHEMA_CACHE", "off")]),
        vars(&[("HOME", "/home/u"), ("USERPROFILE", "/home/u"), ("PULUMI_TF_SCHEMA_CACHE_MAX_MB", "lots")]),
    ];
    let rendered: Vec<String> = table
        .iter()
        .map(|vars| match SchemaCache::from_variables(vars) {
            Some(cache) => {
                format!("{} max {} bytes", cache.dir.display().to_string().replace('\\', "/"), cache.max_bytes)
            }
            None => "off".to_owned(),
        })
        .collect();
    expect![[r#"
        /home/u/.pulumi/dynamic_tf_plugins/.schema-cache max 536870912 bytes
        /p/dynamic_tf_plugins/.schema-cache max 536870912 bytes
        /c/.schema-cache max 3145728 bytes
        off
        /home/u/.pulumi/dynamic_tf_plugins/.schema-cache max 536870912 bytes"#]]
    .assert_eq(&rendered.join("\n"));
}

/// A translated package's JSON, big enough to span several pages.
fn package_json(marker: &str) -> String {
    let resources: BTreeMap<String, serde_json::Value> =
        (0..200).map(|i| (format!("p:index/r{i}:R{i}"), serde_json::json!({"marker": marker}))).collect();
    serde_json::json!({"name": "p", "resources": resources}).to_string()
}

#[test]
fn a_package_reads_back_only_for_its_binary_build_and_inputs() {
    let (_temp, cache) = unbounded_cache();
    let a = key("/p/a");
    let inputs = package_inputs_digest(&("p", "1.0.0", ["include"]));
    assert!(matches!(cache.load_package(&a, &inputs), Err(Miss::Absent)), "cold");
    cache.store_package(&a, &inputs, &package_json("one")).unwrap();
    assert_eq!(cache.load_package(&a, &inputs).unwrap(), package_json("one"));
    // Other translation settings (another name or version asked for): another entry.
    let other_inputs = package_inputs_digest(&("p", "2.0.0", ["include"]));
    assert_ne!(other_inputs, inputs);
    assert!(matches!(cache.load_package(&a, &other_inputs), Err(Miss::Absent)));
    // A stale binary: the same path changed on disk is another key.
    let mut changed = a.clone();
    changed.binary_identity.mtime_ns += 1;
    assert!(matches!(cache.load_package(&changed, &inputs), Err(Miss::Absent)));
    // A new plugin version or build reads none of the old ones.
    let mut new_plugin = a.clone();
    new_plugin.bridge_version = "100.0.1".to_owned();
    assert!(matches!(cache.load_package(&new_plugin, &inputs), Err(Miss::Absent)));
    let mut new_build = a.clone();
    new_build.bridge_build.size += 1;
    assert!(matches!(cache.load_package(&new_build, &inputs), Err(Miss::Absent)));
    // An entry copied under another key's name is refused by its header, not believed.
    std::fs::copy(
        cache.dir.join(package::file_name(&a, &inputs)),
        cache.dir.join(package::file_name(&changed, &inputs)),
    )
    .unwrap();
    assert!(matches!(
        cache.load_package(&changed, &inputs),
        Err(Miss::Refused { problem: EntryProblem::OtherKey, .. })
    ));
}

#[test]
fn damaged_packages_are_refused_and_replaced() {
    let (_temp, cache) = unbounded_cache();
    let a = key("/p/a");
    let inputs = package_inputs_digest(&"p");
    cache.store_package(&a, &inputs, &package_json("one")).unwrap();
    let path = cache.dir.join(package::file_name(&a, &inputs));
    let good = std::fs::read(&path).unwrap();
    let refused = |bytes: Vec<u8>| {
        std::fs::write(&path, bytes).unwrap();
        match cache.load_package(&a, &inputs) {
            Err(Miss::Refused { problem, .. }) => problem,
            other => panic!("expected a refusal, got {other:?}"),
        }
    };
    let mut flipped = good.clone();
    let last = flipped.len() - 10;
    flipped[last] ^= 0x20;
    assert_eq!(refused(flipped), EntryProblem::Checksum);
    assert_eq!(refused(good[..good.len() - 1].to_vec()), EntryProblem::Truncated("payload"));
    assert_eq!(refused(good[..10].to_vec()), EntryProblem::BadMagic);
    assert_eq!(refused(package::PACKAGE_MAGIC.to_vec()), EntryProblem::Truncated("header length"));
    let mut longer = good.clone();
    longer.push(b' ');
    assert!(matches!(refused(longer), EntryProblem::BadHeader(_)));
    // The next store replaces the damaged entry.
    cache.store_package(&a, &inputs, &package_json("two")).unwrap();
    assert_eq!(cache.load_package(&a, &inputs).unwrap(), package_json("two"));
}

#[test]
fn packages_count_toward_the_bound_and_are_evicted_like_schemas() {
    let now = SystemTime::now();
    let files = vec![file("new.package", 10, 1, now), file("old.package", 10, 100, now), file("x.schema", 10, 50, now)];
    assert_eq!(evictions(files, 20, now), vec!["old.package".to_owned()]);
}

/// Two processes (this test binary, run again as writers) store the same package while this
/// one reads it: every read is absent or whole and right.
#[test]
fn two_processes_writing_one_package_never_leave_a_torn_entry() {
    const WRITER: &str = "TFBRIDGE_TEST_PACKAGE_WRITER";
    let a = key("/p/a");
    let inputs = package_inputs_digest(&"two processes");
    if let Some(dir) = std::env::var_os(WRITER) {
        let cache = SchemaCache { dir: PathBuf::from(dir), max_bytes: u64::MAX };
        for _ in 0..20 {
            cache.store_package(&a, &inputs, &package_json("same")).unwrap();
        }
        return;
    }
    let (_temp, cache) = unbounded_cache();
    let name = "schema_cache::tests::two_processes_writing_one_package_never_leave_a_torn_entry";
    let mut writers: Vec<_> = (0..2)
        .map(|_| {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args([name, "--exact", "--test-threads=1"])
                .env(WRITER, &cache.dir)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut seen = 0;
    while seen < 40 {
        match cache.load_package(&a, &inputs) {
            Ok(json) => {
                assert_eq!(json, package_json("same"));
                seen += 1;
            }
            Err(Miss::Absent) => {
                // Writers that ended without writing (a filter that matched no test) would
                // leave this loop waiting forever.
                let ended = writers.iter_mut().all(|w| w.try_wait().unwrap().is_some());
                assert!(
                    !ended || cache.dir.join(package::file_name(&a, &inputs)).exists(),
                    "the writers wrote nothing"
                );
                std::thread::yield_now();
            }
            Err(other) => panic!("a reader saw a bad package entry: {other}"),
        }
    }
    for mut writer in writers {
        assert!(writer.wait().unwrap().success(), "a writer process failed");
    }
    let names: Vec<_> = std::fs::read_dir(&cache.dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from(package::file_name(&a, &inputs))], "no temporary file left");
}
