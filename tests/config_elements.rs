//! Configuration elements, end to end: User Defined Variables, User Parameters,
//! Counter and jmeter-plugins Variables From CSV File, seen through Debug Sampler labels
//! (reference §7.1, §7.9, §9.2).

mod support;

use support::{run_fixture, run_fixture_in};

#[test]
fn user_defined_variables_see_earlier_elements_but_not_their_own() {
    let jtl = run_fixture("config/user_defined_variables.jmx", &[]);
    // same=${base} and useMine=${mine} refer to rows of their own element: left as
    // written; fromPlan and fromEarlier use earlier elements (as JMeter 2.13 does).
    assert_eq!(
        jtl.labels_of("Group 1-1"),
        ["${base}|root-x|${mine}|root-x+m"]
    );
}

#[test]
fn user_parameters_give_each_thread_its_values_per_iteration() {
    let jtl = run_fixture("config/user_parameters.jmx", &[]);
    assert_eq!(
        jtl.labels_of("PerIteration 1-1"),
        [
            "alice-1-first",
            "alice-1-second",
            "alice-2-first",
            "alice-2-second"
        ]
    );
    assert_eq!(
        jtl.labels_of("PerIteration 1-2"),
        ["bob-1-first", "bob-1-second", "bob-2-first", "bob-2-second"]
    );
}

#[test]
fn user_parameters_not_per_iteration_apply_before_every_sample() {
    let jtl = run_fixture("config/user_parameters.jmx", &[]);
    assert_eq!(
        jtl.labels_of("PerSample 2-1"),
        ["1-first", "2-second", "3-first", "4-second"]
    );
}

#[test]
fn counter_per_user_wraps_and_formats() {
    let jtl = run_fixture("config/counter.jmx", &[]);
    for thread in ["PerUser 1-1", "PerUser 1-2"] {
        assert_eq!(jtl.labels_of(thread), ["c-001", "c-002", "c-001"]);
    }
}

#[test]
fn shared_counter_hands_out_each_value_once() {
    let jtl = run_fixture("config/counter.jmx", &[]);
    let mut values = jtl.labels_of("Shared 2-1");
    values.extend(jtl.labels_of("Shared 2-2"));
    values.sort();
    assert_eq!(values, ["s-10", "s-15", "s-20", "s-25"]);
}

#[test]
fn variables_from_csv_file_join_the_start_variables() {
    let jtl = run_fixture("config/variables_from_csv.jmx", &[]);
    // The header line is skipped, the comment ignored, a third field dropped, and the
    // plan's own User Defined Variable `v` is still there.
    jtl.one("example.test|||x");
    // A quoted value runs over two lines.
    jtl.one("first\nsecond");
    assert_eq!(jtl.rows.len(), 2);
}

/// bzm Random CSV Data Set: the four records reach the users in random order, each once,
/// quoted fields intact, and without rewind the users stop when the records run out
/// (four samples for six iterations). bzm Directory Listing with an independent list per
/// user: each user walks the whole folder and its sub-folder in path order, then stops.
#[test]
fn bzm_random_csv_and_directory_listing_hand_out_records_and_files() {
    let work = tempfile::tempdir().expect("scratch folder");
    let uploads = work.path().join("uploads");
    std::fs::create_dir_all(uploads.join("sub")).expect("folders");
    for name in ["b.txt", "a.txt", "sub/c.txt"] {
        std::fs::write(uploads.join(name), name).expect("file");
    }
    let jtl = run_fixture_in(work.path(), "config/bzm_data_sets.jmx", &[]);

    let mut records: Vec<String> = jtl
        .rows
        .iter()
        .filter(|row| jtl.get(row, "threadName").starts_with("random csv"))
        .map(|row| jtl.get(row, "label").to_string())
        .collect();
    assert_eq!(records.len(), 4, "{records:?}");
    records.sort();
    assert_eq!(records, ["ann|a1", "bob, jr|b2", "cid|c3", "dee|d4"]);

    for user in ["listing 2-1", "listing 2-2"] {
        let files: Vec<&str> = jtl
            .rows_of(user)
            .iter()
            .map(|row| jtl.get(row, "label"))
            .collect();
        assert_eq!(files, ["/a.txt", "/b.txt", "/sub/c.txt"], "{user}");
    }
}
