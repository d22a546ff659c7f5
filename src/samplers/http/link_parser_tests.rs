use super::*;

fn page(url: &str, body: &str) -> SampleResult {
    let mut result = SampleResult::new(Arc::from("page"));
    result.is_http = true;
    result.url = Some(url.to_string());
    result.response_data = body.as_bytes().to_vec();
    result
}

fn url(text: &str) -> JavaUrl {
    resolve(None, text).expect("an absolute URL")
}

fn resolved(base: &str, spec: &str) -> String {
    let url = resolve(Some(&url(base)), spec).expect("resolves");
    match url.query {
        Some(query) => format!("{}://{}{}?{query}", url.protocol, url.authority, url.path),
        None => format!("{}://{}{}", url.protocol, url.authority, url.path),
    }
}

fn arg(name: &str, value: &str) -> Arg {
    Arg {
        name: name.into(),
        value: value.into(),
        always_encode: false,
        use_equals: true,
    }
}

#[test]
fn references_resolve_as_java_url_does() {
    let base = "http://h:8080/a/b/page.html?x=1";
    assert_eq!(resolved(base, "c.html"), "http://h:8080/a/b/c.html");
    assert_eq!(resolved(base, "/d?q=2"), "http://h:8080/d?q=2");
    assert_eq!(resolved(base, "../e"), "http://h:8080/a/e");
    assert_eq!(resolved(base, "./f/./g"), "http://h:8080/a/b/f/g");
    // An empty reference or a fragment is the page itself, query included.
    assert_eq!(resolved(base, ""), base);
    assert_eq!(resolved(base, "#top"), base);
    // A query alone keeps the directory only (Java's URL, not RFC 3986).
    assert_eq!(resolved(base, "?y=3"), "http://h:8080/a/b/?y=3");
    assert_eq!(resolved(base, "//other/p"), "http://other/p");
    assert_eq!(resolved(base, "HTTPS://S/x"), "https://S/x");
    // ConversionUtils drops `../` that climb above the root.
    assert_eq!(resolved("http://h/top.html", "../../up"), "http://h/up");
    assert!(resolve(Some(&url(base)), "mailto:a@b").is_none());
    assert!(resolve(Some(&url(base)), "http://h:port/").is_none());
    assert_eq!(url("http://u@[::1]:81/z").host(), "[::1]");
}

#[test]
fn links_forms_and_frames_are_collected_in_jmeter_order() {
    let body = r#"<html><head><base href="/base/"></head><body>
        <a href="one?a=1&b">1</a><a href="javascript:go()">js</a><a name="no-href">x</a>
        <form action="/post?k=v"><input name="user" value="a%20b"><input type="submit">
          <textarea name="note">hi</textarea>
          <select name="pick"><option value="p1">one</option><option>two</option></select>
        </form>
        <input name="late" value="after the form">
        <form><input name="lost"></form>
        <input name="ignored">
        </body></html>"#;
    let found = candidates(&page("http://h/dir/index.html", body)).unwrap();
    let paths: Vec<(&str, bool)> = found.iter().map(|c| (c.path.as_str(), c.form)).collect();
    assert_eq!(paths, [("/base/one", false), ("/post", true)]);
    assert_eq!(
        found[0].args,
        [
            arg("a", "1"),
            Arg {
                use_equals: false,
                ..arg("b", "")
            }
        ]
    );
    let form: Vec<(&str, &str)> = found[1]
        .args
        .iter()
        .map(|a| (a.name.as_str(), a.value.as_str()))
        .collect();
    // The action's query first, then the fields, and a field after the form's end.
    assert_eq!(
        form,
        [
            ("k", "v"),
            ("user", "a b"),
            ("", ""),
            ("note", "hi"),
            ("pick", "p1"),
            ("pick", ""),
            ("late", "after the form"),
        ]
    );
    assert!(found[1].args[1].always_encode);
    let frames = r#"<frameset><frame src="left.html"><frame src="/right"></frameset>"#;
    let found = candidates(&page("http://h/f/", frames)).unwrap();
    let paths: Vec<&str> = found.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["/f/left.html", "/right"]);
}

#[test]
fn a_base_without_href_stops_the_element_as_in_jmeter() {
    assert!(candidates(&page("http://h/", r#"<base target="x"><a href="/a">a</a>"#)).is_none());
}

fn matching_paths(request: Request<'_>, candidates: &[Candidate]) -> Option<Vec<String>> {
    let mut patterns = Patterns::default();
    matching(candidates, &request, &mut patterns)
        .map(|found| found.iter().map(|c| c.path.clone()).collect())
}

#[test]
fn candidates_match_on_protocol_domain_path_and_argument_names() {
    let body = r#"<a href="/item?id=1&x=y">1</a><a href="/item?other=2">2</a>
        <a href="http://elsewhere/item?id=3">3</a><a href="https://h/item?id=4">4</a>
        <a href="/list">l</a>"#;
    let found = candidates(&page("http://h/", body)).unwrap();
    let ids = [arg("id", "")];
    let request = |path: &'static str, domain: &'static str| Request {
        protocol: "",
        domain,
        path,
        args: &ids,
    };
    // Empty protocol is http; the domain is a pattern; an argument name must be there.
    assert_eq!(
        matching_paths(request("/item", "h"), &found).unwrap(),
        ["/item"]
    );
    assert_eq!(
        matching_paths(request("/it.*", ".*"), &found)
            .unwrap()
            .len(),
        2
    );
    // Without a domain any host matches; the path pattern may omit the leading slash.
    let none: [Arg; 0] = [];
    let any = Request {
        protocol: "https?",
        domain: "",
        path: "l.*",
        args: &none,
    };
    assert_eq!(matching_paths(any, &found).unwrap(), ["/list"]);
    // A pattern that does not compile stops the element.
    let broken = Request {
        protocol: "http",
        domain: "",
        path: "/item(",
        args: &none,
    };
    assert!(matching_paths(broken, &found).is_none());
}

#[test]
fn form_fields_replace_arguments_by_name_and_value_patterns() {
    let mut user = crate::samplers::test_support::user();
    let mut fields = vec![
        arg("token", "abc"),
        arg("token", "abc"),
        arg("mode", "fast"),
    ];
    let mut patterns = Patterns::default();
    let mut token = arg("tok.*", ".*");
    replace_argument(&mut token, &mut fields, &mut patterns, &mut user);
    assert_eq!(
        (token.name.as_str(), token.value.as_str()),
        ("token", "abc")
    );
    // The field is used up, with its twin.
    assert_eq!(fields, [arg("mode", "fast")]);
    let mut unmatched = arg("mode", "slow");
    replace_argument(&mut unmatched, &mut fields, &mut patterns, &mut user);
    assert_eq!(unmatched.value, "slow");
}

#[test]
fn relative_paths_lose_dot_segments_as_in_java() {
    assert_eq!(remove_dot_segments("/a/b/../c"), "/a/c");
    assert_eq!(remove_dot_segments("/../a"), "/../a");
    assert_eq!(remove_dot_segments("/a/b/.."), "/a/");
    assert_eq!(remove_dot_segments("/a/./b/."), "/a/b/");
}
