//! The small elements that need no server of their own, run end to end against a local
//! HTTP server: the jp@gc Inter-Thread Communication queues.

mod support;

use support::http_server::{serve, Reply};
use support::run_fixture;

/// A producer thread puts each token it receives into a queue and a consumer thread
/// takes them in order before its requests; its fourth pop finds the queue empty,
/// waits its one-second timeout and leaves the variable unset. Values the setUp group
/// put with `__fifoPut` are still there for `__fifoPop` in the main groups, and with
/// `kg.apc.jmeter.functions.FifoTimeout=0` an empty queue answers `null` at once.
#[test]
fn inter_thread_communication_passes_values_between_threads() {
    let made = std::sync::atomic::AtomicUsize::new(0);
    let server = serve(move |request| {
        if request.target == "/produce" {
            let n = made.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            Reply::ok(&format!("tok{n}"))
        } else {
            Reply::ok("ok")
        }
    });
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture(
        "elements/inter_thread_communication.jmx",
        &[
            &port,
            "-Jsample_variables=token,seed",
            "-Jkg.apc.jmeter.functions.FifoTimeout=0",
        ],
    );
    let targets = |prefix: &str| -> Vec<String> {
        server
            .requests_to(prefix)
            .into_iter()
            .map(|r| r.target)
            .collect()
    };
    assert_eq!(targets("/seed/"), ["/seed/s1s2"]);
    // The timed-out pop unset the variable: its reference stays as written (a path
    // that is not sent) and the .jtl shows the unset variable as JMeter does.
    assert_eq!(
        targets("/consume/"),
        ["/consume/tok1", "/consume/tok2", "/consume/tok3"]
    );
    let consumed = jtl.labelled("consume");
    let tokens: Vec<&str> = consumed.iter().map(|r| jtl.get(r, "token")).collect();
    assert_eq!(tokens, ["tok1", "tok2", "tok3", "null"]);
    assert_eq!(
        targets("/seeded/"),
        ["/seeded/s1", "/seeded/s2", "/seeded/null", "/seeded/null"]
    );
    let seeds: Vec<String> = jtl
        .labelled("seeded")
        .iter()
        .map(|r| jtl.get(r, "seed").to_string())
        .collect();
    assert_eq!(seeds, ["s1", "s2", "null", "null"]);
    // The last pop waited its timeout between the third "seeded" and the last "consume".
    let third_seeded_end = jtl.span(jtl.labelled("seeded")[2]).1;
    let waited = jtl.int(consumed[3], "timeStamp") - third_seeded_end;
    assert!(
        (900..3000).contains(&waited),
        "the empty pop waited {waited} ms"
    );
}
