//! HTML Link Parser end to end: `jmx-fixtures/http/link_parser.jmx` opens a start page,
//! then, three times over, follows links whose fields are patterns: an item link among
//! several that match (and some that match in all but one field), the one detail link,
//! and the login form, whose fields fill the request's arguments by name and value
//! patterns. A request after a page without links, and one after a non-HTTP sample, go
//! as written. The server on 127.0.0.1 records what each request asked for.

mod support;

use support::http_server::{serve, Reply};
use support::run_fixture;

const START: &str = r#"<html><head><title>Start</title></head><body>
<a href="/catalog/item?id=1">one</a>
<a href="catalog/item?id=2">two, relative</a>
<a href="/catalog/item?id=3&amp;promo=yes">three</a>
<a href="/other/item?id=4">another path</a>
<a href="/catalog/item?ref=5">no id argument</a>
<a href="http://elsewhere.invalid/catalog/item?id=6">another host</a>
<a href="https://127.0.0.1/catalog/item?id=7">another protocol</a>
<a href="javascript:show('/catalog/item?id=8')">a script</a>
</body></html>"#;

const ITEM: &str = r#"<html><body>
<a href="/catalog/detail?ref=abc">details</a>
<a href="/catalog/details-old">old details</a>
<a href="/catalog/item?id=9">next item</a>
</body></html>"#;

const DETAIL: &str = r#"<html><body>
<a href="/login">a plain link to the login page</a>
<form action="/login?next=home" method="post">
<input type="hidden" name="csrf" value="abc123">
<input type="text" name="user" value="">
<input type="radio" name="color" value="red">
<input type="radio" name="color" value="green">
<input type="radio" name="color" value="blue">
<input type="submit" name="go" value="Log in">
</form>
<form action="/logout"><input type="hidden" name="csrf" value="zzz"></form>
</body></html>"#;

fn page(target: &str) -> Reply {
    let html = |body: &str| {
        let mut reply = Reply::ok(body);
        reply.headers = vec![("Content-Type".into(), "text/html; charset=UTF-8".into())];
        reply
    };
    if target.starts_with("/start") {
        html(START)
    } else if target.starts_with("/catalog/item") {
        html(ITEM)
    } else if target.starts_with("/catalog/detail") {
        html(DETAIL)
    } else if target.starts_with("/login") {
        Reply::ok("welcome")
    } else {
        Reply::ok("nothing to follow here")
    }
}

#[test]
fn requests_follow_matching_links_and_forms_of_the_previous_page() {
    let server = serve(|request| page(&request.target));
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/link_parser.jmx", &[&port]);
    assert_eq!(
        jtl.values("label"),
        [
            "start",
            "item",
            "detail",
            "login",
            "no match",
            "debug",
            "after debug"
        ]
        .repeat(3)
    );
    assert_eq!(jtl.values("success"), ["true"; 21]);

    let items = [
        "/catalog/item?id=1",
        "/catalog/item?id=2",
        "/catalog/item?id=3&promo=yes",
    ];
    let item_requests = server.requests_to("/catalog/item");
    assert_eq!(item_requests.len(), 6, "three followed, three as written");
    let (as_written, followed): (Vec<_>, Vec<_>) = item_requests
        .iter()
        .map(|r| r.target.as_str())
        .partition(|target| *target == "/catalog/item?id=.*");
    // After the Debug Sampler the previous sample is no HTTP response: no change.
    assert_eq!(as_written.len(), 3);
    for target in followed {
        assert!(items.contains(&target), "{target} is none of {items:?}");
    }

    // One link matches: its query replaces the request's (empty) arguments.
    let details: Vec<String> = server
        .requests_to("/catalog/detail")
        .into_iter()
        .map(|r| r.target)
        .collect();
    assert_eq!(details, ["/catalog/detail?ref=abc"; 3]);

    // The form is chosen over the plain link (no `csrf` there) and the logout form
    // (another path); the action's query is not sent; `user` keeps its value, as no
    // field has the value `alice`; `color` takes red or green, never blue.
    let logins = server.requests_to("/login");
    assert_eq!(logins.len(), 3);
    for login in logins {
        assert_eq!(
            (login.method.as_str(), login.target.as_str()),
            ("POST", "/login")
        );
        let body = String::from_utf8(login.body).expect("a form body");
        assert!(
            ["red", "green"]
                .iter()
                .any(|color| body == format!("csrf=abc123&user=alice&color={color}")),
            "{body}"
        );
    }

    // The previous page ("welcome") has no links: the request goes as written.
    assert_eq!(server.requests_to("/nothing").len(), 3);
}
