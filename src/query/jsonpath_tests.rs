use serde_json::{json, Value};

use super::JsonPath;

fn doc() -> Value {
    json!({
        "store": {
            "book": [
                {"category": "reference", "author": "Nigel Rees", "title": "Sayings", "price": 8.95},
                {"category": "fiction", "author": "Evelyn Waugh", "title": "Sword", "price": 12.99},
                {"category": "fiction", "author": "Herman Melville", "title": "Moby Dick", "isbn": "0-553", "price": 8.99},
                {"category": "fiction", "author": "J. R. R. Tolkien", "title": "LOTR", "isbn": "0-395", "price": 22.99}
            ],
            "bicycle": {"color": "red", "price": 19.95}
        },
        "expensive": 10
    })
}

fn select(path: &str) -> Vec<Value> {
    let compiled = JsonPath::compile(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let document = doc();
    compiled
        .select(&document)
        .into_iter()
        .map(|v| v.into_owned())
        .collect()
}

#[test]
fn child_bracket_index_and_slice() {
    assert_eq!(select("$.store.bicycle.color"), [json!("red")]);
    assert_eq!(select("$['store']['bicycle']['color']"), [json!("red")]);
    assert_eq!(select("store.bicycle.color"), [json!("red")]);
    assert_eq!(select("$.store.book[0].title"), [json!("Sayings")]);
    assert_eq!(select("$.store.book[-1].title"), [json!("LOTR")]);
    assert_eq!(
        select("$.store.book[0,2].price"),
        [json!(8.95), json!(8.99)]
    );
    assert_eq!(
        select("$.store.book[:2].price"),
        [json!(8.95), json!(12.99)]
    );
    assert_eq!(
        select("$.store.book[2:].title"),
        [json!("Moby Dick"), json!("LOTR")]
    );
    assert!(select("$.store.nothing").is_empty());
    assert!(select("$.store.book[9]").is_empty());
}

#[test]
fn wildcards_and_deep_scan() {
    assert_eq!(select("$.store.book[*].author").len(), 4);
    assert_eq!(select("$..author").len(), 4);
    assert_eq!(select("$.store.*").len(), 2);
    assert_eq!(select("$..price").len(), 5);
    assert_eq!(select("$..book[2].title"), [json!("Moby Dick")]);
    assert_eq!(select("$..isbn"), [json!("0-553"), json!("0-395")]);
}

#[test]
fn filters() {
    assert_eq!(
        select("$..book[?(@.isbn)].title"),
        [json!("Moby Dick"), json!("LOTR")]
    );
    assert_eq!(
        select("$.store.book[?(@.price < 10)].title"),
        [json!("Sayings"), json!("Moby Dick")]
    );
    assert_eq!(
        select("$.store.book[?(@.category == 'reference')].author"),
        [json!("Nigel Rees")]
    );
    assert_eq!(
        select("$.store.book[?(@.category == \"fiction\" && @.price > 20)].title"),
        [json!("LOTR")]
    );
    assert_eq!(
        select("$.store.book[?(@.price <= $['expensive'] || @.title == 'LOTR')].title"),
        [json!("Sayings"), json!("Moby Dick"), json!("LOTR")]
    );
    assert_eq!(
        select("$.store.book[?(@.author =~ /.*REES/i)].price"),
        [json!(8.95)]
    );
    assert_eq!(
        select("$.store.book[?(@.title in ['Sword', 'LOTR'])].price").len(),
        2
    );
    assert_eq!(select("$.store.book[?(!(@.price > 9))].title").len(), 2);
    assert_eq!(
        select("$.store.book[?(@.category != 'fiction')].title"),
        [json!("Sayings")]
    );
}

#[test]
fn functions() {
    assert_eq!(select("$.store.book.length()"), [json!(4)]);
    assert_eq!(select("$..book.size()"), [json!(4)]);
    assert_eq!(
        select("$.store.book[*].price.length()"),
        Vec::<Value>::new()
    );
    assert_eq!(
        select("$.store.book[?(@.title.length() > 5)].title"),
        [json!("Sayings"), json!("Moby Dick")]
    );
}

#[test]
fn bad_paths_are_errors() {
    for bad in ["$.a[", "$.a[?(@.x ==)]", "$.a.unknown()", "", "$.a[x]"] {
        assert!(JsonPath::compile(bad).is_err(), "{bad}");
    }
}

/// A bare path in a filter asks whether the member exists, as Jayway's `PathNode`
/// existence check does: `false` and `null` members exist; `!@.x` asks the opposite. The
/// document index and the full tree must agree.
#[test]
fn a_bare_filter_path_is_an_existence_check() {
    let text =
        r#"{"items":[{"id":1,"flag":false},{"id":2,"flag":null},{"id":3,"flag":true},{"id":4}]}"#;
    let ids = |path: &str| {
        let compiled = JsonPath::compile(path).unwrap();
        let tree: Value = serde_json::from_str(text).unwrap();
        let from_tree: Vec<Value> = compiled
            .select(&tree)
            .into_iter()
            .map(|v| v.into_owned())
            .collect();
        let from_text = compiled.select_text(text).unwrap();
        assert_eq!(from_tree, from_text, "{path}");
        from_tree
    };
    assert_eq!(ids("$.items[?(@.flag)].id"), [json!(1), json!(2), json!(3)]);
    assert_eq!(ids("$.items[?(!@.flag)].id"), [json!(4)]);
}
