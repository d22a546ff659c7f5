//! Arrival-driven thread groups, end to end: the Open Model Thread Group's schedule
//! (totals per phase, a Poisson envelope per second, even spacing, properties in the
//! schedule), the bzm Arrivals and Free-Form Arrivals groups' counts per phase, pool
//! and concurrency limit, and an open model against a server that slows down: the
//! schedule is kept while the pool allows, and late, delayed and dropped arrivals are
//! reported when it does not.

mod support;

use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use support::http_server::{serve, Reply};
use support::{fixtures, jmxr, peak_rss_of_children_kb, run_fixture_printing, Jtl};

/// Runs of the tests here share it; the one test that drives 10,000 arrivals a second
/// takes it alone, so its CPU load never lands in the seconds the others count.
static CPU: RwLock<()> = RwLock::new(());

/// Runs a fixture; returns its `.jtl` and what it printed.
fn run(fixture: &str, extra: &[&str]) -> (Jtl, String) {
    let _shared = CPU.read().unwrap_or_else(|poisoned| poisoned.into_inner());
    let work = tempfile::tempdir().expect("scratch folder");
    run_fixture_printing(work.path(), fixture, extra)
}

/// The number after `what` in the group's end-of-run report line.
fn reported(stdout: &str, group: &str, what: &str) -> u64 {
    let line = stdout
        .lines()
        .find(|l| l.contains(&format!("'{group}':")))
        .unwrap_or_else(|| panic!("no report for {group} in {stdout}"));
    let before = line
        .split(", ")
        .find(|part| part.contains(what))
        .unwrap_or_else(|| panic!("no {what} in {line}"));
    let number = before.split_whitespace().find(|w| w.parse::<u64>().is_ok());
    number.and_then(|n| n.parse().ok()).expect("a count")
}

/// Start times (ms) by the user's number (`Group 1-N`), which follows arrival order.
fn starts_by_user(jtl: &Jtl) -> Vec<(u64, i64)> {
    let mut starts: Vec<(u64, i64)> = jtl
        .rows
        .iter()
        .map(|row| {
            let name = jtl.get(row, "threadName");
            let n = name.rsplit('-').next().and_then(|n| n.parse().ok());
            (n.expect("numbered thread"), jtl.int(row, "timeStamp"))
        })
        .collect();
    starts.sort();
    starts
}

fn count_in(starts: &[i64], from: i64, to: i64) -> usize {
    starts.iter().filter(|t| (from..to).contains(*t)).count()
}

/// Where arrival `k` of the even stretch (300/s from the 3rd second) is planned, in ms
/// from that stretch's start.
fn even_offset(k: usize) -> i64 {
    (k as f64 * 1000.0 / 300.0).round() as i64
}

/// The run's schedule origin (ms): arrivals can be late but never early, so the least-late
/// arrival of the even stretch fixes where the schedule lies. A busy machine delays a few
/// arrivals; anchoring on one of them would make every other look early.
fn schedule_origin(users: &[(u64, i64)]) -> i64 {
    users[300..]
        .iter()
        .enumerate()
        .map(|(k, (_, t))| t - 3000 - even_offset(k))
        .min()
        .expect("the even stretch's arrivals")
}

#[test]
fn open_model_keeps_totals_per_phase_a_poisson_envelope_and_even_spacing() {
    let (jtl, stdout) = run("arrivals/open_model.jmx", &[]);
    // 100/s random for 3 s, 300/s even for 1 s, a 1 s pause: every arrival a user.
    assert_eq!(jtl.rows.len(), 600, "{stdout}");
    assert_eq!(reported(&stdout, "Open", "dropped"), 0);
    let users = starts_by_user(&jtl);
    let t0 = schedule_origin(&users);
    let first: Vec<i64> = users[..300].iter().map(|(_, t)| *t).collect();
    assert!(first.iter().all(|t| (t0 - 5..t0 + 3000 + 250).contains(t)));
    for second in 0..3 {
        let n = count_in(&first, t0 + second * 1000, t0 + (second + 1) * 1000);
        // Poisson with mean 100: ±4 standard deviations.
        assert!((60..=140).contains(&n), "second {second}: {n} arrivals");
    }
    // Even spacing: almost every arrival within 15 ms of its plan; a busy machine may hold
    // back a few, but a spacing or rate error would make most of them late.
    let lateness: Vec<i64> = users[300..]
        .iter()
        .enumerate()
        .map(|(k, (_, t))| t - (t0 + 3000 + even_offset(k)))
        .collect();
    let late = lateness.iter().filter(|l| **l > 15).count();
    assert!(
        late <= 15,
        "{late} of 300 even arrivals over 15 ms late: {lateness:?}"
    );
    assert!(lateness.iter().all(|l| *l < 250), "{lateness:?}");
    // The pause: nothing after the 4th second.
    assert!(users.iter().all(|(_, t)| *t < t0 + 4000 + 250));
}

/// Each arrival's offset (ms) from the schedule's origin, by user.
fn offsets(jtl: &Jtl) -> Vec<i64> {
    let users = starts_by_user(jtl);
    let t0 = schedule_origin(&users);
    users.iter().map(|(_, t)| t - t0).collect()
}

#[test]
fn open_model_schedule_reads_properties_and_its_seed_fixes_the_draw() {
    let (jtl, _) = run("arrivals/open_model.jmx", &["-Jom.rate=50"]);
    // 50/s for 3 s, then the 300 even arrivals.
    assert_eq!(jtl.rows.len(), 450);

    // The same seed draws the same random arrivals; another seed others.
    let (a, _) = run("arrivals/open_model.jmx", &[]);
    let (b, _) = run("arrivals/open_model.jmx", &[]);
    let (c, _) = run("arrivals/open_model.jmx", &["-Jom.seed=7"]);
    let (a, b, c) = (offsets(&a), offsets(&b), offsets(&c));
    let close = |x: &[i64], y: &[i64]| {
        x.iter()
            .zip(y)
            .filter(|(p, q)| (*p - *q).abs() <= 25)
            .count()
    };
    // A busy machine may delay a few arrivals of either run.
    assert!(close(&a[..300], &b[..300]) >= 290, "seed 42 twice");
    assert!(
        close(&a[..300], &c[..300]) < 150,
        "seeds 42 and 7 drew alike"
    );

    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("arrivals/open_model.jmx");
    let plan = plan.to_str().expect("UTF-8 path");
    let out = jmxr(
        work.path(),
        &["-n", "-t", plan, "-l", "out.jtl", "-Jom.rate=fast"],
    );
    assert!(
        !out.status.success(),
        "a schedule JMeter cannot parse stops the test"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Expected float number for rate"),
        "{stderr}"
    );
}

#[test]
fn intended_start_column_is_off_by_default_and_shows_the_schedule_when_asked() {
    let (jtl, _) = run("arrivals/free_form.jmx", &[]);
    assert!(
        !jtl.header.iter().any(|h| h == "intendedStart"),
        "{:?}",
        jtl.header
    );
    assert_eq!(jtl.header.last().map(String::as_str), Some("Connect"));
    let (jtl, _) = run(
        "arrivals/free_form.jmx",
        &["-Jjmxr.save.intended_start=true"],
    );
    assert_eq!(jtl.header.last().map(String::as_str), Some("intendedStart"));
    for row in &jtl.rows {
        let behind = jtl.int(row, "timeStamp") - jtl.int(row, "intendedStart");
        assert!((0..=15).contains(&behind), "{behind} ms behind");
    }
}

#[test]
fn plan_prints_each_groups_planned_load_without_running() {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("arrivals/open_model.jmx");
    let plan = plan.to_str().expect("UTF-8 path");
    let started = Instant::now();
    let out = jmxr(
        work.path(),
        &["plan", plan, "--svg", "chart.svg", "-Jom.rate=60"],
    );
    assert!(out.status.success());
    assert!(started.elapsed() < Duration::from_secs(3), "nothing runs");
    let text = String::from_utf8_lossy(&out.stdout);
    // 60/s for 3 s and 300 even arrivals.
    assert!(
        text.contains(
            "Thread group 'Open': arrivals/s over 5.00 s, peak 300, 480 arrivals planned"
        ),
        "{text}"
    );
    assert!(text.contains("  0.00 s          60"), "{text}");
    let chart = std::fs::read_to_string(work.path().join("chart.svg")).expect("chart written");
    assert!(
        chart.starts_with("<svg") && chart.contains("<polyline"),
        "{chart}"
    );

    let plan = fixtures().join("thread_groups/concurrency.jmx");
    let out = jmxr(work.path(), &["plan", plan.to_str().expect("UTF-8 path")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Thread group 'Limited': users over 1.00 s, peak 2"),
        "{text}"
    );
}

#[test]
fn arrivals_group_steps_hold_pool_and_concurrency_limit_follow_the_plugin() {
    let (jtl, stdout) = run("arrivals/arrivals.jmx", &[]);
    // Steps of 8/s and 16/s over a 2 s ramp-up, then 16/s for 2 s; at exactly 2 s the
    // plugin's step formula gives one arrival at 24/s.
    let stepped: Vec<i64> = jtl
        .labelled("stepped")
        .iter()
        .map(|r| jtl.int(r, "timeStamp"))
        .collect();
    let t0 = *stepped.iter().min().expect("stepped samples");
    assert_eq!(count_in(&stepped, t0, t0 + 940), 8);
    assert_eq!(count_in(&stepped, t0 + 940, t0 + 1970), 16);
    assert_eq!(count_in(&stepped, t0 + 1970, t0 + 4000), 33);
    assert_eq!(stepped.len(), 57);
    assert_eq!(reported(&stdout, "Stepped", "dropped"), 0);
    // Users wait in the pool between arrivals: far fewer users than arrivals.
    let stepped_users: std::collections::HashSet<&str> = jtl
        .labelled("stepped")
        .iter()
        .map(|r| jtl.get(r, "threadName"))
        .collect();
    assert!(stepped_users.len() < 10, "{stepped_users:?}");

    // 20/s, each arrival busy 300 ms, at most 2 busy: the rest are dropped.
    let limited = jtl.labelled("limited");
    let users: std::collections::HashSet<&str> =
        limited.iter().map(|r| jtl.get(r, "threadName")).collect();
    assert_eq!(users.len(), 2, "{users:?}");
    assert!(
        (4..=9).contains(&limited.len()),
        "{} samples",
        limited.len()
    );
    assert_eq!(reported(&stdout, "Limited", "scheduled"), 20);
    assert_eq!(
        reported(&stdout, "Limited", "dropped"),
        20 - limited.len() as u64
    );

    // One iteration per user: a new user for every arrival.
    let one = jtl.labelled("one");
    let users: std::collections::HashSet<&str> =
        one.iter().map(|r| jtl.get(r, "threadName")).collect();
    assert_eq!((one.len(), users.len()), (10, 10));
}

#[test]
fn free_form_rows_give_their_counts_per_phase() {
    let (jtl, _) = run("arrivals/free_form.jmx", &[]);
    let starts: Vec<i64> = jtl.rows.iter().map(|r| jtl.int(r, "timeStamp")).collect();
    let t0 = *starts.iter().min().expect("samples");
    // 4/s for 2 s (both ends included), 0 for 1 s (looked at every 200 ms), 10/s for
    // 1 s from 3.05 s.
    assert_eq!(count_in(&starts, t0, t0 + 2100), 9);
    assert_eq!(count_in(&starts, t0 + 2100, t0 + 3030), 0);
    assert_eq!(count_in(&starts, t0 + 3030, t0 + 4100), 10);
    assert_eq!(starts.len(), 19);
    let (jtl, _) = run("arrivals/free_form.jmx", &["-Jff.rate=20"]);
    assert_eq!(jtl.rows.len(), 29);
}

/// A server answering in 5 ms for its first 1.5 s, then in 500 ms.
fn slowing_server() -> support::http_server::TestServer {
    let first: Arc<Mutex<Option<Instant>>> = Arc::new(Mutex::new(None));
    serve(move |_| {
        let since = first
            .lock()
            .expect("lock")
            .get_or_insert_with(Instant::now)
            .elapsed();
        let delay = if since < Duration::from_millis(1500) {
            5
        } else {
            500
        };
        Reply {
            delay: Duration::from_millis(delay),
            ..Reply::ok("done")
        }
    })
}

#[test]
fn open_model_sends_on_schedule_while_the_pool_allows_and_counts_late_arrivals_when_not() {
    // A pool large enough: 100/s for 3 s whatever the server does.
    let server = slowing_server();
    let port = format!("-Jport={}", server.port);
    let (jtl, stdout) = run(
        "arrivals/open_model_slow_server.jmx",
        &[&port, "-Jom.pool=1000"],
    );
    // The last arrival is due a few milliseconds before the schedule ends; on a machine
    // busy with other work its user may start after the end and count as dropped.
    assert!(
        (299..=300).contains(&jtl.rows.len()),
        "{} rows: {stdout}",
        jtl.rows.len()
    );
    let starts: Vec<i64> = starts_by_user(&jtl).iter().map(|(_, t)| *t).collect();
    let t0 = starts[0];
    for second in 0..3 {
        let n = count_in(
            &starts,
            t0 + second * 1000 - 5,
            t0 + (second + 1) * 1000 - 5,
        );
        assert!((97..=103).contains(&n), "second {second}: {n} sent");
    }
    assert_eq!(reported(&stdout, "Open", "delayed"), 0);
    assert_eq!(
        reported(&stdout, "Open", "dropped"),
        300 - jtl.rows.len() as u64
    );
    // Late means more than 10 ms behind: a handful when the machine is busy, never a
    // systematic lag (which the per-second counts above would also show).
    assert!(reported(&stdout, "Open", "late") <= 15, "{stdout}");

    // At most 10 users: on schedule while fast, then arrivals wait and the rest drop.
    let server = slowing_server();
    let port = format!("-Jport={}", server.port);
    let (jtl, stdout) = run(
        "arrivals/open_model_slow_server.jmx",
        &[&port, "-Jom.pool=10", "-Jjmxr.save.intended_start=true"],
    );
    let starts: Vec<i64> = starts_by_user(&jtl).iter().map(|(_, t)| *t).collect();
    let t0 = starts[0];
    let fast = count_in(&starts, t0, t0 + 1400);
    assert!(
        (138..=142).contains(&fast),
        "{fast} sent in the first 1.4 s"
    );
    assert!(jtl.rows.len() < 250, "{} samples", jtl.rows.len());
    assert!(reported(&stdout, "Open", "delayed") > 0, "{stdout}");
    assert!(reported(&stdout, "Open", "dropped") > 0, "{stdout}");
    assert!(reported(&stdout, "Open", "late") > 0, "{stdout}");
    let scheduled = reported(&stdout, "Open", "scheduled");
    let started = reported(&stdout, "Open", "started");
    assert_eq!(scheduled, 300);
    assert_eq!(started + reported(&stdout, "Open", "dropped"), 300);
    // The stall JMeter's elapsed hides: measured from the intended start, the slowest
    // samples took far longer than the server's 500 ms.
    let from_intended = jtl
        .rows
        .iter()
        .map(|r| jtl.int(r, "timeStamp") + jtl.int(r, "elapsed") - jtl.int(r, "intendedStart"));
    let worst_elapsed = jtl
        .rows
        .iter()
        .map(|r| jtl.int(r, "elapsed"))
        .max()
        .unwrap_or(0);
    let worst_intended = from_intended.max().unwrap_or(0);
    assert!(worst_elapsed < 700, "{worst_elapsed}");
    assert!(
        worst_intended > worst_elapsed + 300,
        "{worst_intended} vs {worst_elapsed}"
    );
    // The console gives the same comparison as percentiles, whether or not the .jtl
    // carries the column.
    let line = stdout
        .lines()
        .find(|l| l.starts_with("Response times of arrival-driven samples:"))
        .unwrap_or_else(|| panic!("no intended-start line in {stdout}"));
    let max_of = |part: &str| -> i64 {
        let text = part.rsplit("max ").next().expect("max");
        text.trim_end_matches(" ms").trim().parse().expect("max ms")
    };
    let (intended, actual) = line.split_once("; from actual start").expect("both halves");
    assert_eq!(max_of(intended), worst_intended, "{line}");
    assert_eq!(max_of(actual), worst_elapsed, "{line}");
}

#[test]
fn the_dashboard_draws_the_planned_rate_beside_the_achieved_one() {
    let work = tempfile::tempdir().expect("scratch folder");
    let (jtl, _) = run_fixture_printing(
        work.path(),
        "bench/open_model_rate.jmx",
        &[
            "-e",
            "-o",
            "report",
            "-Jrate=40",
            "-Jduration=3",
            "-Jarrivals=even",
        ],
    );
    let data = std::fs::read_to_string(work.path().join("report/content/js/report-data.js"))
        .expect("report data");
    let json = data
        .trim()
        .trim_start_matches("window.JMXR_REPORT = ")
        .trim_end_matches(';');
    let report: serde_json::Value = serde_json::from_str(json).expect("report data is JSON");
    let graph = &report["graphs"]["transactionsPerSecond"];
    let series = graph["series"].as_array().expect("series");
    let planned = series
        .iter()
        .find(|s| s["label"] == "Open (planned arrivals/s)")
        .unwrap_or_else(|| panic!("no planned series in {graph}"));
    let points = planned["data"].as_array().expect("points");
    assert!(points.len() > 10, "{planned}");
    let first = jtl
        .rows
        .iter()
        .map(|r| jtl.int(r, "timeStamp"))
        .min()
        .expect("rows");
    let x0 = points[0][0].as_f64().expect("x");
    assert!((x0 - first as f64).abs() < 1.0, "{x0} vs {first}");
    let last_x = points[points.len() - 1][0].as_f64().expect("x");
    assert!(
        (2_900.0..=3_100.0).contains(&(last_x - x0)),
        "{}",
        last_x - x0
    );
    assert!(
        points.iter().all(|p| p[1].as_f64() == Some(40.0)),
        "{planned}"
    );
    // The achieved series are still there, per label as JMeter draws them.
    assert!(series
        .iter()
        .any(|s| s["label"] != "Open (planned arrivals/s)"));
}

#[test]
fn users_of_past_arrivals_are_not_kept_until_the_end() {
    // 30,000 arrivals in 3 s, each a user that ends after one Debug Sampler. Keeping
    // every ended user until the group ends took about 6 KB each (over 170 MB here);
    // the other tests of this file stay far below the bound.
    let _alone = CPU.write().unwrap_or_else(|poisoned| poisoned.into_inner());
    let work = tempfile::tempdir().expect("scratch folder");
    let (jtl, stdout) = run_fixture_printing(
        work.path(),
        "bench/open_model_rate.jmx",
        &["-Jrate=10000", "-Jduration=3", "-Jarrivals=even"],
    );
    assert!(jtl.rows.len() > 27_000, "{} rows: {stdout}", jtl.rows.len());
    let peak = peak_rss_of_children_kb();
    assert!(peak < 80 * 1024, "peak resident size {peak} kB");
}
