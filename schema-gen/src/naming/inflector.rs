//! English pluralization and singularization, rule for rule as `github.com/pulumi/inflector`
//! does it, because property and type names of generated SDKs depend on it.
//!
//! The tables below are facts about that library (its rule lists, in its order). Some of its
//! results are odd and are reproduced on purpose, since SDKs must be interchangeable:
//! - the `(hive)$` plural rule's replacement is Go's `$1s`, which Go reads as the (absent)
//!   group named `1s`, so `hive` pluralizes to the empty string and `archive` to `arc`;
//! - an irregular word is found only at a regex word boundary (`_` is a word character), and
//!   the replacement starts with the first character of the *whole* input, so `foo-child`
//!   becomes `foo-fhildren`;
//! - `human` becomes `humen` and `ref` becomes `reves`.
//!
//! Architecture invariant: pure string functions; no knowledge of schemas.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use regex::Regex;

/// Words that never change, matched against the whole word, case-insensitively.
const UNINFLECTED: &[&str] = &[
    "Amoyese",
    "bison",
    "Borghese",
    "bream",
    "breeches",
    "britches",
    "buffalo",
    "cantus",
    "carp",
    "chassis",
    "clippers",
    "cod",
    "coitus",
    "Congoese",
    "contretemps",
    "corps",
    "debris",
    "diabetes",
    "djinn",
    "eland",
    "elk",
    "equipment",
    "Faroese",
    "flounder",
    "Foochowese",
    "gallows",
    "Genevese",
    "Genoese",
    "Gilbertese",
    "graffiti",
    "headquarters",
    "herpes",
    "hijinks",
    "Hottentotese",
    "information",
    "innings",
    "jackanapes",
    "Kiplingese",
    "Kongoese",
    "Lucchese",
    "mackerel",
    "Maltese",
    ".*?media",
    "mews",
    "moose",
    "mumps",
    "Nankingese",
    "news",
    "nexus",
    "Niasese",
    "Pekingese",
    "Piedmontese",
    "pincers",
    "Pistoiese",
    "pliers",
    "Portuguese",
    "proceedings",
    "rabies",
    "rice",
    "rhinoceros",
    "salmon",
    "Sarawakese",
    "scissors",
    "sea[- ]bass",
    "series",
    "Shavese",
    "shears",
    "siemens",
    "species",
    "swine",
    "testes",
    "trousers",
    "trout",
    "tuna",
    "Vermontese",
    "Wenchowese",
    "whiting",
    "wildebeest",
    "Yengeese",
];

const UNINFLECTED_PLURALS: &[&str] =
    &[".*[nrlm]ese", ".*deer", ".*fish", ".*measles", ".*ois", ".*pox", ".*sheep", "people"];

const UNINFLECTED_SINGULARS: &[&str] =
    &[".*[nrlm]ese", ".*deer", ".*fish", ".*measles", ".*ois", ".*pox", ".*sheep", ".*ss"];

/// Plural rules, first match wins. Replacements use the regex crate's syntax, which reads
/// `$name` exactly like Go's `regexp.Expand` (longest name, unknown groups are empty).
const PLURAL_RULES: &[(&str, &str)] = &[
    ("(?i)(s)tatus$", "${1}${2}tatuses"),
    ("(?i)(quiz)$", "${1}zes"),
    ("(?i)^(ox)$", "${1}${2}en"),
    ("(?i)([m|l])ouse$", "${1}ice"),
    ("(?i)(matr|vert|ind)(ix|ex)$", "${1}ices"),
    ("(?i)(x|ch|ss|sh)$", "${1}es"),
    ("(?i)([^aeiouy]|qu)y$", "${1}ies"),
    ("(?i)(hive)$", "$1s"),
    ("(?i)(?:([^f])fe|([lre])f)$", "${1}${2}ves"),
    ("(?i)sis$", "ses"),
    ("(?i)([ti])um$", "${1}a"),
    ("(?i)(p)erson$", "${1}eople"),
    ("(?i)(m)an$", "${1}en"),
    ("(?i)(c)hild$", "${1}hildren"),
    ("(?i)(buffal|tomat)o$", "${1}${2}oes"),
    ("(?i)(alumn|bacill|cact|foc|fung|nucle|radi|stimul|syllab|termin|vir)us$", "${1}i"),
    ("(?i)us$", "uses"),
    ("(?i)(alias)$", "${1}es"),
    ("(?i)(ax|cris|test)is$", "${1}es"),
    ("s$", "s"),
    ("^$", ""),
    ("$", "s"),
];

const PLURAL_IRREGULAR: &[(&str, &str)] = &[
    ("atlas", "atlases"),
    ("beef", "beefs"),
    ("brother", "brothers"),
    ("cafe", "cafes"),
    ("child", "children"),
    ("cookie", "cookies"),
    ("corpus", "corpuses"),
    ("cow", "cows"),
    ("ganglion", "ganglions"),
    ("genie", "genies"),
    ("genus", "genera"),
    ("graffito", "graffiti"),
    ("hoof", "hoofs"),
    ("loaf", "loaves"),
    ("man", "men"),
    ("money", "monies"),
    ("mongoose", "mongooses"),
    ("move", "moves"),
    ("mythos", "mythoi"),
    ("niche", "niches"),
    ("numen", "numina"),
    ("occiput", "occiputs"),
    ("octopus", "octopuses"),
    ("opus", "opuses"),
    ("ox", "oxen"),
    ("penis", "penises"),
    ("person", "people"),
    ("sex", "sexes"),
    ("soliloquy", "soliloquies"),
    ("testis", "testes"),
    ("trilby", "trilbys"),
    ("turf", "turfs"),
    ("potato", "potatoes"),
    ("hero", "heroes"),
    ("tooth", "teeth"),
    ("goose", "geese"),
    ("foot", "feet"),
];

const SINGULAR_RULES: &[(&str, &str)] = &[
    ("(?i)(s)tatuses$", "${1}${2}tatus"),
    ("(?i)^(.*)(menu)s$", "${1}${2}"),
    ("(?i)(quiz)zes$", "$1"),
    ("(?i)(matr)ices$", "${1}ix"),
    ("(?i)(vert|ind)ices$", "${1}ex"),
    ("(?i)^(ox)en", "$1"),
    ("(?i)(alias)(es)*$", "$1"),
    ("(?i)(alumn|bacill|cact|foc|fung|nucle|radi|stimul|syllab|termin|viri?)i$", "${1}us"),
    ("(?i)([ftw]ax)es", "$1"),
    ("(?i)(cris|ax|test)es$", "${1}is"),
    ("(?i)(shoe|slave)s$", "$1"),
    ("(?i)(o)es$", "$1"),
    ("ouses$", "ouse"),
    ("([^a])uses$", "${1}us"),
    ("(?i)([m|l])ice$", "${1}ouse"),
    ("(?i)(cache)s$", "$1"),
    ("(?i)(x|ch|ss|sh)es$", "$1"),
    ("(?i)(m)ovies$", "${1}${2}ovie"),
    ("(?i)(s)eries$", "${1}${2}eries"),
    ("(?i)([^aeiouy]|qu)ies$", "${1}y"),
    ("(?i)(tive)s$", "$1"),
    ("(?i)([lre])ves$", "${1}f"),
    ("(?i)([^fo])ves$", "${1}fe"),
    ("(?i)(hive)s$", "$1"),
    ("(?i)(drive)s$", "$1"),
    ("(?i)(^analy)ses$", "${1}sis"),
    ("(?i)(analy|diagno|^ba|parenthe|progno|synop|the)ses$", "${1}sis"),
    ("(?i)([ti])a$", "${1}um"),
    ("(?i)(p)eople$", "${1}${2}erson"),
    ("(?i)(m)en$", "${1}an"),
    ("(?i)(c)hildren$", "${1}${2}hild"),
    ("(?i)(n)ews$", "${1}${2}ews"),
    ("eaus$", "eau"),
    ("^(.*us)$", "$1"),
    ("(?i)s$", ""),
];

const SINGULAR_IRREGULAR: &[(&str, &str)] = &[
    ("foes", "foe"),
    ("waves", "wave"),
    ("curves", "curve"),
    ("atlases", "atlas"),
    ("beefs", "beef"),
    ("brothers", "brother"),
    ("cafes", "cafe"),
    ("children", "child"),
    ("cookies", "cookie"),
    ("corpuses", "corpus"),
    ("cows", "cow"),
    ("ganglions", "ganglion"),
    ("genies", "genie"),
    ("genera", "genus"),
    ("graffiti", "graffito"),
    ("hoofs", "hoof"),
    ("loaves", "loaf"),
    ("men", "man"),
    ("monies", "money"),
    ("mongooses", "mongoose"),
    ("moves", "move"),
    ("mythoi", "mythos"),
    ("niches", "niche"),
    ("caches", "cache"),
    ("numina", "numen"),
    ("occiputs", "occiput"),
    ("octopuses", "octopus"),
    ("opuses", "opus"),
    ("oxen", "ox"),
    ("penises", "penis"),
    ("people", "person"),
    ("sexes", "sex"),
    ("soliloquies", "soliloquy"),
    ("testes", "testis"),
    ("trilbys", "trilby"),
    ("turfs", "turf"),
    ("potatoes", "potato"),
    ("heroes", "hero"),
    ("teeth", "tooth"),
    ("geese", "goose"),
    ("feet", "foot"),
];

/// One direction of inflection, compiled, with a cache of results: a big provider asks
/// for the same few hundred words tens of thousands of times.
struct Inflector {
    cache: Mutex<HashMap<String, String>>,
    irregular: Regex,
    irregular_map: &'static [(&'static str, &'static str)],
    uninflected: Regex,
    rules: Vec<(Regex, &'static str)>,
}

impl Inflector {
    fn new(
        rules: &'static [(&'static str, &'static str)],
        irregular: &'static [(&'static str, &'static str)],
        extra_uninflected: &[&str],
    ) -> Inflector {
        let words: Vec<&str> = irregular.iter().map(|(word, _)| *word).collect();
        let uninflected: Vec<&str> = UNINFLECTED.iter().chain(extra_uninflected).copied().collect();
        let compile = |pattern: &str| Regex::new(pattern).expect("the inflector's rule table is valid regex syntax");
        Inflector {
            cache: Mutex::new(HashMap::new()),
            irregular: compile(&format!(r"(?i)(.*)\b((?:{}))$", words.join("|"))),
            irregular_map: irregular,
            uninflected: compile(&format!("(?i)(^(?:{}))$", uninflected.join("|"))),
            rules: rules.iter().map(|(pattern, replacement)| (compile(pattern), *replacement)).collect(),
        }
    }

    fn inflect(&self, word: &str) -> String {
        // A poisoned lock only means another thread panicked mid-insert; the map is still
        // a valid cache.
        let mut cache = self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(hit) = cache.get(word) {
            return hit.clone();
        }
        let result = self.inflect_uncached(word);
        cache.insert(word.to_owned(), result.clone());
        result
    }

    fn inflect_uncached(&self, word: &str) -> String {
        if let Some(captures) = self.irregular.captures(word) {
            let before = captures.get(1).map_or("", |m| m.as_str());
            let matched = captures.get(2).map_or("", |m| m.as_str()).to_lowercase();
            let replacement = self.irregular_map.iter().find(|(w, _)| *w == matched).map_or("", |(_, r)| *r);
            // The library keeps the first character of the whole input (to preserve its
            // case) and appends the replacement minus its first character.
            let first: String = word.chars().take(1).collect();
            let rest: String = replacement.chars().skip(1).collect();
            return format!("{before}{first}{rest}");
        }
        if self.uninflected.is_match(word) {
            return word.to_owned();
        }
        for (pattern, replacement) in &self.rules {
            if pattern.is_match(word) {
                return pattern.replace_all(word, *replacement).into_owned();
            }
        }
        word.to_owned()
    }
}

static PLURAL: LazyLock<Inflector> =
    LazyLock::new(|| Inflector::new(PLURAL_RULES, PLURAL_IRREGULAR, UNINFLECTED_PLURALS));
static SINGULAR: LazyLock<Inflector> =
    LazyLock::new(|| Inflector::new(SINGULAR_RULES, SINGULAR_IRREGULAR, UNINFLECTED_SINGULARS));

/// The plural of `word`, as `inflector.Pluralize` gives it.
pub fn pluralize(word: &str) -> String {
    PLURAL.inflect(word)
}

/// The singular of `word`, as `inflector.Singularize` gives it.
pub fn singularize(word: &str) -> String {
    SINGULAR.inflect(word)
}
