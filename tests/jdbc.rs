//! JDBC Request, JDBC Pre/PostProcessor and JDBC Connection Configuration end to end,
//! against private PostgreSQL and MariaDB servers (see `support::db`): every query type,
//! parameter types and NULL, variables, the result variable read by a script, JMeter's
//! response layout, codes and messages, transactions, pools shared across thread groups
//! and exhausted pools. The expected texts follow JMeter 5.6.3's `AbstractJDBCTestElement`
//! and the Java drivers, as `docs/jdbc.md` cites.

mod support;

use std::sync::Mutex;

use support::jdbc_run::{run, Driver, Sample};

/// The MariaDB and Connector/J tests share the MariaDB server's tables: one at a time.
static MARIADB: Mutex<()> = Mutex::new(());

fn mariadb_turn() -> std::sync::MutexGuard<'static, ()> {
    MARIADB.lock().unwrap_or_else(|e| e.into_inner())
}

fn assert_ok(sample: &Sample, data: &str) {
    assert_eq!(
        (
            sample.code.as_str(),
            sample.message.as_str(),
            sample.success
        ),
        ("200", "OK", true),
        "{}: {}",
        sample.label,
        sample.data
    );
    assert_eq!(sample.data, data, "response of {}", sample.label);
    assert_eq!(sample.bytes, data.len() as i64, "bytes of {}", sample.label);
    assert_eq!(sample.data_type, "text");
}

fn assert_failed(sample: &Sample, code: &str, message: &str) {
    assert!(!sample.success, "{} should fail", sample.label);
    assert_eq!(
        (sample.code.as_str(), sample.message.as_str()),
        (code, message),
        "{}",
        sample.label
    );
}

const VARIABLES: [&str; 12] = [
    "id_#",
    "id_1",
    "id_3",
    "name_2",
    "name_3",
    "note_#",
    "note_1",
    "note_2",
    "row_count",
    "second_name",
    "third_id",
    "nulls_1",
];

/// Every query type, parameters and the response layout, on the given driver.
fn query_types(driver: Driver) {
    let samples = run("query_types.jmx", driver, &VARIABLES, &[]);
    let mariadb = driver != Driver::Postgres;
    assert_ok(samples.one("drop"), "0 updates");
    assert_ok(samples.one("create"), "0 updates");
    assert_ok(samples.one("insert"), "3 updates");

    let seen = |pg: &str, maria: &str, connector: &str| match driver {
        Driver::Postgres => pg.to_string(),
        Driver::MariaDb => maria.to_string(),
        Driver::ConnectorJ => connector.to_string(),
    };
    let select = samples.one("select");
    let expected = format!(
        "id\tname\tprice\tborn\tseen\tflag\tnote\n\
         1\tapple\t1.50\t2024-01-02\t{}\ttrue\tnull\n\
         2\tpear\t2.25\t2024-02-03\t{}\tfalse\tripe\n\
         3\tfig\t10.00\t2024-03-04\t{}\ttrue\tdry\n",
        seen(
            "2024-01-02 03:04:05.0",
            "2024-01-02 03:04:05.0",
            "2024-01-02T03:04:05"
        ),
        seen(
            "2024-02-03 04:05:06.5",
            "2024-02-03 04:05:06.5",
            "2024-02-03T04:05:06.500"
        ),
        seen(
            "2024-03-04 05:06:07.25",
            "2024-03-04 05:06:07.25",
            "2024-03-04T05:06:07.250"
        ),
    );
    assert_ok(select, &expected);
    assert_eq!(
        select.sampler_data,
        "[Select Statement] select id, name, price, born, seen, flag, note from qt_items order by id\n\n"
    );
    let (scheme, class) = match driver {
        Driver::Postgres => ("postgresql", "org.postgresql.Driver"),
        Driver::MariaDb => ("mariadb", "org.mariadb.jdbc.Driver"),
        Driver::ConnectorJ => ("mysql", "com.mysql.cj.jdbc.Driver"),
    };
    assert_eq!(
        select.headers,
        format!(
            "shared:true, driver:{class}, url:jdbc:{scheme}://127.0.0.1:{}/jmxr, user:jmxr",
            driver.server().port
        )
    );
    let vars = &select.variables;
    assert_eq!(vars["id_#"], "3");
    assert_eq!(vars["id_3"], "3");
    assert_eq!(vars["name_2"], "pear");
    assert_eq!(vars["note_1"], "", "a NULL value sets no variable");
    assert_eq!(vars["note_2"], "ripe");

    let script = samples.one("script reads rows");
    assert_eq!(script.variables["row_count"], "3", "{}", script.data);
    assert_eq!(script.variables["second_name"], "pear");
    assert_eq!(
        script.variables["third_id"], "4",
        "ids are numbers in scripts"
    );

    let fewer = samples.one("select fewer");
    assert_ok(fewer, "id\tname\tnote\n1\tapple\tnull\n2\tpear\tripe\n");
    assert_eq!(fewer.variables["id_#"], "2");
    assert_eq!(
        fewer.variables["id_3"], "",
        "the third row of the earlier select is gone"
    );
    assert_eq!(fewer.variables["name_3"], "");
    assert_eq!(
        fewer.variables["note_#"], "3",
        "names not listed keep their values"
    );

    assert_ok(samples.one("max rows"), "id\n1\n");
    assert_ok(samples.one("prepared select"), "name\tprice\npear\t2.25\n");
    assert_ok(samples.one("prepared select strings"), "n\n2\n");
    // Rows that set no variable are written as they are read: NULL, numbers, the limit.
    assert_ok(
        samples.one("prepared max rows"),
        "name\tnote\tprice\napple\tnull\t1.50\npear\tripe\t2.25\n",
    );
    assert_ok(samples.one("prepared empty result"), "id\tname\n");
    assert_ok(samples.one("prepared update null"), "1 updates.\n");
    assert_ok(samples.one("prepared update values"), "1 updates.\n");
    let nulls = samples.one("count nulls");
    assert_ok(nulls, "nulls\n2\n");
    assert_eq!(nulls.variables["nulls_1"], "2");
    assert_ok(samples.one("edited type"), "name\napple\n");
    let empty = samples.one("empty result");
    assert_ok(empty, "id\tname\n");
    assert_eq!(empty.variables["id_#"], "0");
    assert_eq!(empty.variables["id_1"], "");

    assert_failed(
        samples.one("unknown type"),
        "000",
        "java.lang.UnsupportedOperationException: Unexpected query type: Nope",
    );
    assert_failed(
        samples.one("bad number"),
        "000",
        "java.lang.NumberFormatException: For input string: \"x1\"",
    );
    assert_eq!(samples.one("bad number").data, "For input string: \"x1\"");
    assert_failed(
        samples.one("bad type name"),
        "null 0",
        "java.sql.SQLException: Invalid data type: String",
    );
    assert_failed(
        samples.one("count mismatch"),
        "null 0",
        "java.sql.SQLException: number of arguments (2) and number of types (1) are not equal",
    );
    assert_failed(
        samples.one("no pool"),
        "null 0",
        "java.sql.SQLException: No pool found named: 'nopool', ensure Variable Name matches \
         Variable Name of JDBC Connection Configuration",
    );
    let syntax = samples.one("syntax error");
    let unknown = samples.one("unknown table");
    if driver == Driver::ConnectorJ {
        // Connector/J refuses what does not start as a query before sending it.
        assert_failed(
            syntax,
            "S1009 0",
            "java.sql.SQLException: Statement.executeQuery() cannot issue statements that do \
             not produce result sets.",
        );
    }
    if driver == Driver::MariaDb {
        assert_eq!(syntax.code, "42000 1064");
        assert!(
            syntax
                .message
                .starts_with("java.sql.SQLSyntaxErrorException: ")
                && syntax
                    .message
                    .contains("You have an error in your SQL syntax"),
            "{}",
            syntax.message
        );
    }
    if mariadb {
        assert_eq!(unknown.code, "42S02 1146");
        let table_missing = "Table 'jmxr.no_such_table' doesn't exist";
        if driver == Driver::MariaDb {
            assert!(
                unknown
                    .message
                    .starts_with("java.sql.SQLSyntaxErrorException: (conn=")
                    && unknown.message.ends_with(&format!(") {table_missing}")),
                "{}",
                unknown.message
            );
        } else {
            assert_eq!(
                unknown.message,
                format!("java.sql.SQLSyntaxErrorException: {table_missing}")
            );
            assert_eq!(unknown.data, table_missing);
        }
    } else {
        assert_failed(
            syntax,
            "42601 0",
            "org.postgresql.util.PSQLException: ERROR: syntax error at or near \"selec\"\n  Position: 1",
        );
        assert_failed(
            unknown,
            "42P01 0",
            "org.postgresql.util.PSQLException: ERROR: relation \"no_such_table\" does not exist\n  Position: 15",
        );
        assert_eq!(
            unknown.data,
            "ERROR: relation \"no_such_table\" does not exist\n  Position: 15"
        );
    }
}

#[test]
fn postgres_query_types_parameters_and_layout() {
    query_types(Driver::Postgres);
}

#[test]
fn mariadb_query_types_parameters_and_layout() {
    let _turn = mariadb_turn();
    query_types(Driver::MariaDb);
}

#[test]
fn mysql_connector_j_query_types_parameters_and_layout() {
    let _turn = mariadb_turn();
    query_types(Driver::ConnectorJ);
}

/// The statements `transactions.jmx` takes from properties, in each database's SQL.
fn dialect_properties(driver: Driver) -> Vec<String> {
    let pairs: [(&str, &str); 7] = if driver == Driver::Postgres {
        [
            (
                "create_fn",
                "create function jmxr_calc(a integer, inout b varchar, out c integer) as \
                 $$ begin b := b || 'y'; c := a + 1; end $$ language plpgsql",
            ),
            ("drop_fn", "drop function if exists jmxr_calc"),
            ("sleep_sql", "select pg_sleep(2) as slept"),
            ("conn_id_sql", "select pg_backend_pid() as id"),
            ("kill_prefix", "select pg_terminate_backend("),
            ("kill_suffix", ") as killed"),
            ("kill_type", "Select Statement"),
        ]
    } else {
        [
            (
                "create_fn",
                "create procedure jmxr_calc(in a int, inout b varchar(20), out c int) \
                 begin set b = concat(b, 'y'); set c = a + 1; end",
            ),
            ("drop_fn", "drop procedure if exists jmxr_calc"),
            ("sleep_sql", "select sleep(2) as slept"),
            ("conn_id_sql", "select connection_id() as id"),
            ("kill_prefix", "kill"),
            ("kill_suffix", ""),
            ("kill_type", "Update Statement"),
        ]
    };
    pairs.iter().map(|(k, v)| format!("-J{k}={v}")).collect()
}

/// Commit, rollback and auto-commit seen from a second pool, a callable statement with
/// INOUT and OUT parameters, the query timeout, the JDBC Pre/PostProcessor, one pool
/// shared by two thread groups, an exhausted pool and a connection the server ended.
fn transactions(driver: Driver) {
    let extra = dialect_properties(driver);
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let names = ["b_out", "c_out", "conn_1", "post_1", "lost_1"];
    let samples = run("transactions.jmx", driver, &names, &extra);
    let mysql_family = driver != Driver::Postgres;

    // The "tx" pool has auto-commit off: its insert is seen by the "db" pool only after
    // the commit; a rolled-back insert never; AutoCommit(true) commits what is open.
    assert_ok(samples.one("insert uncommitted"), "1 updates");
    assert_ok(samples.one("seen before commit"), "n\n0\n");
    assert_ok(samples.one("commit"), "Commit");
    assert_ok(samples.one("seen after commit"), "n\n1\n");
    assert_ok(samples.one("insert rolled back"), "1 updates");
    assert_ok(samples.one("rollback"), "Rollback");
    assert_ok(samples.one("seen after rollback"), "n\n1\n");
    assert_ok(samples.one("autocommit off"), "AutoCommit(false)");
    assert_ok(samples.one("autocommit on"), "AutoCommit(true)");
    assert_ok(samples.one("seen after autocommit"), "n\n2\n");

    // OUT parameters are listed by position and set the variable names in order.
    let callable = samples.one("callable");
    let first = if mysql_family {
        "0 updates."
    } else {
        "-1 updates."
    };
    assert_ok(
        callable,
        &format!("{first}\nOutput variables by position:\n[2] xy\n[3] 3\n"),
    );
    assert_eq!(callable.variables["b_out"], "xy");
    assert_eq!(callable.variables["c_out"], "3");

    let timeout = samples.one("query timeout");
    match driver {
        Driver::Postgres => assert_failed(
            timeout,
            "57014 0",
            "org.postgresql.util.PSQLException: ERROR: canceling statement due to user request",
        ),
        Driver::MariaDb => {
            assert_eq!(timeout.code, "70100 1969");
            assert!(
                timeout
                    .message
                    .starts_with("java.sql.SQLTimeoutException: (conn=")
                    && timeout.message.ends_with(
                        ") Query execution was interrupted (max_statement_time exceeded)"
                    ),
                "{}",
                timeout.message
            );
        }
        Driver::ConnectorJ => assert_failed(
            timeout,
            "null 0",
            "com.mysql.cj.jdbc.exceptions.MySQLTimeoutException: Statement cancelled due to \
             timeout or client request",
        ),
    }
    assert!(
        (900..1900).contains(&timeout.elapsed),
        "the 1 s timeout ends the 2 s sleep: {}",
        timeout.elapsed
    );

    // The PreProcessor's variable is in the query; the PostProcessor's prepared select
    // (2 rows + 5) is set before the sample's variables are saved.
    let processed = samples.one("with processors");
    assert_ok(processed, "seen\nfrom-pre\n");
    assert_eq!(processed.variables["post_1"], "7");

    // Two thread groups borrow the one connection of the same pool.
    let one = &samples.one("pool id one").variables["conn_1"];
    assert!(!one.is_empty());
    assert_eq!(&samples.one("pool id two").variables["conn_1"], one);

    // Two users, one connection, 300 ms max wait: the second gives up.
    let held = samples.labelled("hold the only connection");
    assert_eq!(held.len(), 2);
    let failed: Vec<_> = held.iter().filter(|s| !s.success).collect();
    assert_eq!(failed.len(), 1, "{held:?}");
    assert_failed(
        failed[0],
        "null 0",
        "java.sql.SQLException: Cannot get a connection, pool error Timeout waiting for idle \
         object, borrowMaxWaitDuration=PT0.3S",
    );
    assert!(
        (250..1500).contains(&failed[0].connect),
        "connect time is the wait: {}",
        failed[0].connect
    );

    // The server ends the pooled connection: the next borrow fails as the driver
    // reports a dead connection, the one after reconnects.
    assert!(samples.one("kill").success, "{}", samples.one("kill").data);
    let after = samples.one("after kill");
    assert!(!after.success, "{}", after.data);
    match driver {
        Driver::Postgres => assert_eq!(after.code, "57P01 0"),
        Driver::MariaDb => assert_eq!(after.code, "08000 0"),
        Driver::ConnectorJ => assert_eq!(after.code, "08S01 0"),
    }
    assert_ok(samples.one("after reconnect"), "one\n1\n");
}

#[test]
fn postgres_transactions_callable_and_pools() {
    transactions(Driver::Postgres);
}

#[test]
fn mariadb_transactions_callable_and_pools() {
    let _turn = mariadb_turn();
    transactions(Driver::MariaDb);
}

#[test]
fn mysql_connector_j_transactions_callable_and_pools() {
    let _turn = mariadb_turn();
    transactions(Driver::ConnectorJ);
}

/// The real-world plans that use JDBC: `check` accepts their JDBC elements. What it still
/// reports is about other elements (missing CSV files, BeanShell, an arrivals thread
/// group), the Oracle driver jmxr has no counterpart for, and, as a warning, the
/// template's `hostname:port` URL, whose samples fail as JMeter's do.
#[test]
fn real_world_jdbc_plans_pass_check_but_for_other_elements() {
    let plans: [(&str, &[&str]); 8] = [
        ("kimoty__training__jdbc.jmx", &[]),
        ("apache__jmeter__jdbc.jmx", &[]),
        (
            "mosip__mosip-performance-tests__09.fetchingprids_from_db.jmx",
            &[],
        ),
        ("Fangziqiang__jmeter_script__plan-505018c4.jmx", &[]),
        ("cbrowet-axway__performance_testing__JDBC_test.jmx", &[]),
        ("anoopbaragi__jmeeter-__jdbc.jmx", &[]),
        (
            "pluto-atom-4__mvn-jmeter-jdbc__oe11r2-hr-validate.jmx",
            &["JDBC driver \"oracle.jdbc.driver.OracleDriver\" is not supported"],
        ),
        (
            "george-pc__jmeter-jdbc-test-framework__Test-Plan-Fire-QPS-with-load-profile.jmx",
            &[],
        ),
    ];
    let work = tempfile::tempdir().expect("scratch folder");
    for (plan, expected) in plans {
        let path = support::conformance().join("real-world").join(plan);
        let output = support::jmxr(work.path(), &["check", path.to_str().expect("UTF-8")]);
        let text = String::from_utf8_lossy(&output.stdout);
        let jdbc_errors: Vec<&str> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("error:") && l.contains("[JDBC"))
            .collect();
        assert_eq!(
            jdbc_errors.len(),
            expected.len(),
            "{plan}: {jdbc_errors:#?}"
        );
        for (line, wanted) in jdbc_errors.iter().zip(expected) {
            assert!(line.contains(wanted), "{plan}: {line}");
        }
        let unsupported_jdbc = text
            .lines()
            .filter(|l| l.trim_start().starts_with("unsupported") && l.contains("[JDBC"))
            .count();
        assert_eq!(unsupported_jdbc, 0, "{plan}:\n{text}");
    }
    let template = support::conformance().join("real-world/apache__jmeter__jdbc.jmx");
    let output = support::jmxr(work.path(), &["check", template.to_str().expect("UTF-8")]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("Result: jmxr can run this plan")
            && text.contains("every sample using this pool fails"),
        "{text}"
    );
}

/// The runtime's workers look for ready sockets after every task only in plans that hold
/// JDBC elements, including elements from included files; other plans, and plans that
/// cannot be read, keep tokio's scheduling.
#[test]
fn only_plans_with_jdbc_elements_get_the_database_scheduling() {
    use jmxr::commands::run::plan_uses_jdbc;
    let fixtures = support::fixtures();
    assert!(plan_uses_jdbc(&fixtures.join("bench/jdbc_select.jmx")));
    assert!(!plan_uses_jdbc(&fixtures.join("samplers/debug.jmx")));
    let work = tempfile::tempdir().expect("scratch folder");
    assert!(!plan_uses_jdbc(&work.path().join("missing.jmx")));

    let debug = std::fs::read_to_string(fixtures.join("samplers/debug.jmx")).expect("plan");
    // JMeter includes a file's first Test Fragment.
    let fragment = r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.6.3">
  <hashTree>
    <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="Fragments" enabled="true"/>
    <hashTree>
      <TestFragmentController guiclass="TestFragmentControllerGui" testclass="TestFragmentController" testname="Database" enabled="true"/>
      <hashTree>
        <JDBCSampler guiclass="TestBeanGUI" testclass="JDBCSampler" testname="select" enabled="true">
          <stringProp name="dataSource">db</stringProp>
          <stringProp name="query">select 1</stringProp>
          <stringProp name="queryType">Select Statement</stringProp>
        </JDBCSampler>
        <hashTree/>
      </hashTree>
    </hashTree>
  </hashTree>
</jmeterTestPlan>
"#;
    std::fs::write(work.path().join("database.jmx"), fragment).expect("included plan");
    let include = r#"<IncludeController guiclass="IncludeControllerGui" testclass="IncludeController" testname="Include" enabled="true">
          <stringProp name="IncludeController.includepath">database.jmx</stringProp>
        </IncludeController>
        <hashTree/>
        <DebugSampler "#;
    assert!(debug.contains("<DebugSampler "), "the Debug plan changed");
    let including = debug.replacen("<DebugSampler ", include, 1);
    std::fs::write(work.path().join("including.jmx"), &including).expect("plan");
    assert!(plan_uses_jdbc(&work.path().join("including.jmx")));
    // A disabled Include Controller includes nothing.
    let disabled = including.replacen(
        r#"testname="Include" enabled="true""#,
        r#"testname="Include" enabled="false""#,
        1,
    );
    std::fs::write(work.path().join("disabled.jmx"), disabled).expect("plan");
    assert!(!plan_uses_jdbc(&work.path().join("disabled.jmx")));
}
