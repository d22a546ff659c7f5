//! The index must give exactly what the full tree gives: every path over every
//! document selects the same values, printed the same way, and the index never accepts
//! a text `serde_json` refuses.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::Value;

use super::Tape;
use crate::query::json_text::extracted_text;
use crate::query::jsonpath::JsonPath;
use crate::query::test_support::mutate;

const DOCUMENTS: &[&str] = &[
    r#"{"store":{"book":[
        {"category":"reference","author":"Nigel Rees","title":"Sayings","price":8.95},
        {"category":"fiction","author":"Evelyn Waugh","title":"Sword","price":12.99},
        {"category":"fiction","author":"Herman Melville","title":"Moby Dick","isbn":"0-553","price":8.99},
        {"category":"fiction","author":"J. R. R. Tolkien","title":"LOTR","isbn":"0-395","price":22.99}],
      "bicycle":{"color":"red","price":19.95}},"expensive":10}"#,
    r#"{"token":"abc123","items":[{"id":0,"name":"item-0","href":"/items/0?token=t0","price":0.0},
        {"id":1,"name":"item-1","href":"/items/1?token=t1","price":1.25},
        {"id":42,"name":"item-42","href":"/items/42?token=t42","price":52.5},
        {"id":43,"name":"it\"em\u00e9\n","href":null,"price":-0}]}"#,
    r#"{"id":"6f1c","user":{"id":7,"email":"a@b.c","defaultServicePointId":"sp1"},
        "jobExecutions":[{"id":"j1","status":"COMMITTED","progress":{"current":3,"total":5}},
                         {"id":"j2","status":"ERROR","progress":{"current":0,"total":5},"uiStatus":"X"}],
        "fileDefinitions":[{"id":"f1","status":"UPLOADED","name":"a.mrc","size":10,"uiKey":"k"},
                           {"id":"f2","status":"NEW","name":"b.mrc","size":2.5e3}],
        "locations":[{"id":"l1","name":"Main","code":"M"},{"id":"l2","name":"Annex","code":"A"}],
        "data":[{"id":1,"attributes":{"identifiers":[{"id":"x"}]}},{"id":2}],
        "meta":{"isOwner":false,"deep":{"isOwner":true,"id":99}},
        "empty":{},"none":[],"flags":[true,false,null],"nums":[1,-2,3.5,1e2,-0.0,12345678901234567890]}"#,
    r#"[{"name":"arjundockerjmeter","id":1,"@id":"v1"},{"name":"other","id":2,"@id":"v2"},[1,[2,[3]]]]"#,
    r#"{"http://www.w3.org/ns/prof/token":[{"@value":"tok"},{"@value":{"b":1,"a":[{"z":1,"y":2}]}}]}"#,
    r#"{"a":{"b":{"c":{"d":[{"e":1},{"e":"2"},{"e":[3]},{"e":{"f":4}}]}}},"b":[[],[[]],{}],"c":"\/x\\y\t"}"#,
    r#""just a string""#,
    "12.5",
    "  [ 1 , 2 ,\n 3 ]  ",
    r#"{"a":1,"b":2,"a":3}"#,
    r#"{"k\u0061":1,"ka":2}"#,
    r#"{"s":"\ud83d\ude00","t":"x"}"#,
    r#"{"big":1e400,"x":1}"#,
];

const PATHS: &[&str] = &[
    "$",
    "$.*",
    "$..*",
    "$.id",
    "$..id",
    "id",
    "$.token",
    "$..token",
    "$.items[?(@.id == 42)].name",
    "$.items[?(@.id > 0)].name",
    "$.items[?(@.id in [1, 43])].href",
    "$..[?(@.isOwner == false)].id",
    "$..[?(@.id)]",
    "$.jobExecutions[?(@.id== 'j2')].status",
    "$.jobExecutions[?(@.progress.current >= 1 || @.uiStatus)].id",
    "$.jobExecutions[*].progress",
    "$..progress.current",
    "$..status",
    "$..uiStatus",
    "$.fileDefinitions..status",
    "$.fileDefinitions[0].size",
    "$..fileDefinitions[0].name",
    "$.fileDefinitions[-1]",
    "$.fileDefinitions[0,1].id",
    "$.fileDefinitions[:1]",
    "$.fileDefinitions[1:]",
    "$.locations.[0]..name",
    "$.locations.[0]..id",
    "$.user.id",
    "$..defaultServicePointId",
    "$.data[*].id",
    ".data[*].attributes.identifiers[0].id",
    "$.data.length()",
    "$.nums.max()",
    "$.nums.sum()",
    "$.nums[*]",
    "$.flags[*]",
    "$.empty",
    "$.none",
    "$.none[0]",
    "$.meta",
    "$..deep",
    "$[?(@.name == 'arjundockerjmeter')].id",
    "$[?(@.['@id'] == 'v2')]",
    "$[*].name",
    "$[2][1][1][0]",
    "$..[0]",
    "$['http://www.w3.org/ns/prof/token']..['@value']",
    "$..@value",
    "$.store.book[?(@.price < 10)].title",
    "$.store.book[?(@.author =~ /.*REES/i)].price",
    "$.store.book[?(@.price <= $['expensive'])].title",
    "$.store.book[?(@.isbn)].title",
    "$.store.book[?(!(@.price > 9))].title",
    "$.store.book[?(@.category != 'fiction')]",
    "$.store.*",
    "$..price",
    "$..book.length()",
    "$.store.book[?(@.title.length() > 5)].title",
    "$..e",
    "$.a..d[?(@.e == '2')]",
    "$.b[*][*]",
    "$.c",
    "$.s",
    "$.a",
    "$.ka",
    "$.x",
    "$.items[?(42 == @.id)].name",
    "$.items[?(@.id != 1)].id",
    "$.items[?(@.id <= 1)].id",
    "$.items[?(@.id >= -3)].id",
    "$.items[?(@.id == '42')].id",
    "$.items[?(@.name == 42)].id",
    "$.items[?(@.name > 'item-1')].name",
    "$.items[?('item-1' < @.name)].name",
    "$.items[?(@.name == 'item-42')].price",
    "$.items[?(@.price == -0)].id",
    "$.items[?(@.price == 0)].id",
    "$.items[?(@.id == 42.0)].id",
    "$.items[?(@.id == 9007199254740993)].id",
    "$[?(@.id < 2)].name",
    "$.nums[?(@ == 12345678901234567890)]",
    "$.data[?(@.id == $.user.id)]",
    "$.jobExecutions[?(@.status < 'D')].id",
    "$.locations[?(@.name != 'Main')].code",
];

/// The texts of what `path` selects in `text`: through the index when it builds and
/// the evaluation over it is not doubtful, through the full tree otherwise; `None` when
/// `text` is not JSON (or, indexed, when the full tree must decide).
fn texts(path: &JsonPath, text: &str, indexed: bool) -> Option<Vec<Option<String>>> {
    let values: Vec<Value> = if indexed {
        let tape = Tape::build(text)?;
        path.select_indexed(&tape)?
    } else {
        let document: Value = serde_json::from_str(text).ok()?;
        path.select(&document)
            .into_iter()
            .map(|v| v.into_owned())
            .collect()
    };
    Some(values.iter().map(extracted_text).collect())
}

fn same_as_full_tree(text: &str, paths: &[JsonPath]) {
    let full_tree_accepts = serde_json::from_str::<Value>(text).is_ok();
    if Tape::build(text).is_none() {
        return;
    }
    assert!(
        full_tree_accepts,
        "the index accepts what serde_json refuses: {text:?}"
    );
    for path in paths {
        // A doubtful evaluation is discarded: the full tree decides.
        if let Some(indexed) = texts(path, text, true) {
            assert_eq!(
                Some(indexed),
                texts(path, text, false),
                "{path:?} over {text}"
            );
        }
    }
}

fn compiled_paths() -> Vec<JsonPath> {
    PATHS
        .iter()
        .map(|p| JsonPath::compile(p).unwrap_or_else(|e| panic!("{p}: {e}")))
        .collect()
}

#[test]
fn every_path_selects_the_same_values_as_the_full_tree() {
    let paths = compiled_paths();
    for text in DOCUMENTS {
        same_as_full_tree(text, &paths);
    }
}

#[test]
fn common_documents_are_indexed_and_doubtful_ones_left_to_the_full_tree() {
    // Duplicate and escaped member names are looked at only where a path reads them.
    for text in &DOCUMENTS[..11] {
        assert!(Tape::build(text).is_some(), "{text}");
    }
    for text in &DOCUMENTS[11..] {
        assert!(Tape::build(text).is_none(), "{text}");
    }
}

#[test]
fn invalid_texts_are_never_indexed() {
    let invalid = [
        "",
        " ",
        "{",
        "}",
        "[1,]",
        "[1 2]",
        "{\"a\" 1}",
        "{\"a\":1,}",
        "{a:1}",
        "01",
        "-",
        "1.",
        ".5",
        "1e",
        "+1",
        "tru",
        "nul",
        "[1] x",
        "\"a\u{1}b\"",
        "\"\\x\"",
        "\"\\u12g4\"",
        "'a'",
        "[\"unclosed]",
        "NaN",
        "Infinity",
        "{\"a\":}",
        "[,1]",
        "\u{feff}1",
    ];
    for text in invalid {
        assert!(serde_json::from_str::<Value>(text).is_err(), "{text:?}");
        assert!(Tape::build(text).is_none(), "{text:?}");
    }
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert!(Tape::build(&deep).is_none());
}

#[test]
fn mutated_documents_agree_with_the_full_tree() {
    let paths = compiled_paths();
    let alphabet = b"{}[]\":,.-+eE0129 \\/utnfalsx\n";
    let mut rng = SmallRng::seed_from_u64(7);
    for text in DOCUMENTS {
        for _ in 0..300 {
            let mut bytes = text.as_bytes().to_vec();
            let edits = rng.gen_range(1..4);
            mutate(&mut bytes, edits, alphabet, &mut rng);
            if let Ok(mutated) = String::from_utf8(bytes) {
                same_as_full_tree(&mutated, &paths);
            }
        }
    }
}

/// What `path` selects over the index of `text`, `None` when the evaluation is doubtful.
fn indexed(path: &str, text: &str) -> Option<Vec<Value>> {
    let tape = Tape::build(text).expect("indexed");
    JsonPath::compile(path).expect(path).select_indexed(&tape)
}

/// What `path` selects in the full tree of `text`.
fn full_tree(path: &str, text: &str) -> Vec<Value> {
    let document: Value = serde_json::from_str(text).expect("JSON");
    let path = JsonPath::compile(path).expect(path);
    path.select(&document)
        .into_iter()
        .map(|v| v.into_owned())
        .collect()
}

#[test]
fn objects_with_a_duplicate_name_are_left_to_the_full_tree_whatever_their_size() {
    for size in [2, 5, 16, 17, 20, 31, 32, 33, 40, 100] {
        let members: Vec<String> = (0..size).map(|i| format!("\"k{i}\":{i}")).collect();
        let distinct = format!("{{{}}}", members.join(","));
        let duplicated = format!("{{{},\"k{}\":0}}", members.join(","), size / 2);
        let nested = format!("[{{\"x\":{distinct}}},{duplicated}]");
        for text in [&distinct, &duplicated, &nested] {
            assert!(Tape::build(text).is_some(), "{size} names: {text}");
        }
        assert!(indexed("$.*", &distinct).is_some(), "{size} distinct names");
        assert_eq!(
            indexed("$.*", &duplicated),
            None,
            "{size} names and a duplicate"
        );
        assert_eq!(indexed("$..*", &nested), None, "{size} names, nested");
        assert!(
            indexed("$[0].x.*", &nested).is_some(),
            "{size} names, nested"
        );
        // Looking a member up needs no doubt: the last value wins, as in the full tree.
        let name = format!("$[1].k{}", size / 2);
        assert_eq!(indexed(&name, &nested), Some(vec![Value::from(0)]));
        assert_eq!(indexed(&name, &nested), Some(full_tree(&name, &nested)));
    }
}

#[test]
fn duplicate_names_matter_only_in_objects_the_path_reads() {
    let text = r#"{"a":1,"b":{"c":1,"c":2},"d":[{"id":1,"id":2,"n":"x"},{"id":3,"n":"y"}],
        "e":{"k\u0061":1,"ka":2},"f":{"z":[1,{"q":1,"q":1}]}}"#;
    // Elsewhere, a duplicate changes nothing.
    assert_eq!(indexed("$.a", text), Some(vec![Value::from(1)]));
    assert_eq!(indexed("$.f.z[0]", text), Some(vec![Value::from(1)]));
    assert!(indexed("$.d[*].n", text).is_some());
    // Looked up, the last member of the name wins, as in the full tree.
    for path in [
        "$.b.c",
        "$.d[?(@.id == 2)].n",
        "$.d[?(@.id == 1)].n",
        "$.d[0].id",
    ] {
        assert_eq!(indexed(path, text), Some(full_tree(path, text)), "{path}");
    }
    assert_eq!(indexed("$.b.c", text), Some(vec![Value::from(2)]));
    // Listed members, or names with escapes, are left to the full tree.
    for path in ["$.b.*", "$..id", "$.e.ka", "$.e.*", "$.f..q"] {
        assert_eq!(indexed(path, text), None, "{path}");
    }
    // The public entry points fall back to the full tree and agree with it.
    for path in [
        "$.b.*", "$..id", "$.e.ka", "$.e.*", "$.f..q", "$.b.c", "$..c",
    ] {
        let compiled = JsonPath::compile(path).expect(path);
        assert_eq!(
            compiled.select_text(text),
            Some(full_tree(path, text)),
            "{path}"
        );
    }
}

#[test]
fn nesting_is_indexed_up_to_the_depth_serde_json_accepts() {
    for depth in [1, 2, 100, 126, 127, 128, 129, 200] {
        let arrays = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let objects = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        let (mut mixed, mut closing) = (String::new(), String::new());
        for level in 0..depth {
            let (open, close) = if level % 2 == 0 {
                ("[", "]")
            } else {
                ("{\"a\":", "}")
            };
            mixed.push_str(open);
            closing.insert_str(0, close);
        }
        mixed.push_str(&format!("1{closing}"));
        for text in [arrays, objects, mixed] {
            let accepted = serde_json::from_str::<Value>(&text).is_ok();
            assert_eq!(accepted, depth < 128, "serde_json's limit, {depth} levels");
            assert_eq!(
                Tape::build(&text).is_some(),
                accepted,
                "{depth} levels: {text}"
            );
        }
    }
}

/// A document like the responses plans extract from, long enough for many 64-byte
/// blocks, with escapes, whitespace and numbers of every form placed across block
/// boundaries.
fn long_document() -> String {
    let mut text = String::from("{\"token\":\"abc\\\"123\",\n  \"items\": [");
    for i in 0..60 {
        let separator = if i == 0 { "" } else { ",\r\n\t" };
        text.push_str(&format!(
            r#"{separator}{{"id":{i}, "name" : "item-{i}", "note":"a\\b\u00e9\"{i}\/","price":{}.{}e{},"ok":{},"tags":[{}]}}"#,
            i * 7 - 20,
            i % 10,
            i % 3,
            if i % 2 == 0 { "true" } else { "null" },
            (0..i % 4).map(|n| n.to_string()).collect::<Vec<_>>().join(" ,"),
        ));
    }
    text.push_str("]}  ");
    text
}

#[test]
fn long_mutated_documents_agree_with_the_full_tree() {
    let paths: Vec<JsonPath> = [
        "$.items[?(@.id == 42)].name",
        "$.items[?(@.name == 'item-7')].note",
        "$.items[?(@.price > 3)].id",
        "$..tags[*]",
        "$.token",
        "$.items[*].ok",
    ]
    .iter()
    .map(|p| JsonPath::compile(p).expect(p))
    .collect();
    let text = long_document();
    assert!(Tape::build(&text).is_some());
    same_as_full_tree(&text, &paths);
    let alphabet = b"{}[]\":,.-+eE0129 \\/utnfalsx\n\r\t";
    let mut rng = SmallRng::seed_from_u64(13);
    for _ in 0..1500 {
        let mut bytes = text.as_bytes().to_vec();
        let edits = rng.gen_range(1..4);
        mutate(&mut bytes, edits, alphabet, &mut rng);
        if let Ok(mutated) = String::from_utf8(bytes) {
            same_as_full_tree(&mutated, &paths);
        }
    }
}
