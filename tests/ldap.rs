//! LDAP Request and LDAP Extended Request end to end against a private OpenLDAP server
//! (`support::slapd`): every operation of both samplers with their defaults elements and
//! the Login Config Element, the failures with JMeter's codes and messages (bad
//! credentials, no such object, already exists, a bad filter, a refused connection, a
//! server that never answers within the connection timeout, an untrusted LDAPS
//! certificate), the LDAP Extended Request's `<ldapanswer>` response data, and the
//! directory's state afterwards. The same fixtures run by JMeter 2.13 (`jmeter-ldap`)
//! against the same server gave the same rows and response data, except where JMeter
//! 5.6.3 (the reference) changed: the Extended Request's codes keep a leading space
//! (` 49`, 2.13 `49`) and an add's attribute list prints `()` after each value.

mod support;

use std::net::TcpListener;

use support::services::free_port;
use support::slapd::{Slapd, MANAGER_PASSWORD};
use support::xml_jtl::{get, run, Sample};

/// (code, message, success) of a sample.
fn outcome(sample: &Sample) -> (&str, &str, bool) {
    (&sample.code, &sample.message, sample.success)
}

/// The `<ldapanswer>` JMeter writes around an operation's tags and results.
fn answer(operation: &str, code: &str, message: &str) -> String {
    format!(
        "<ldapanswer><operation>{operation}</operation>\n<responsecode>{code}</responsecode>\n\
         <responsemessage>{message}</responsemessage>\n</ldapanswer>\n"
    )
}

#[test]
fn ldap_extended_requests_answer_as_jmeter_does() {
    let server = Slapd::start();
    // Accepts connections (the kernel completes them) but never answers a bind.
    let silent = TcpListener::bind("127.0.0.1:0").expect("silent listener");
    let silent_port = silent.local_addr().expect("port").port();
    let closed_port = free_port();
    let samples = run(
        "ldap/extended.jmx",
        &[
            ("ldap_port", server.port.to_string()),
            ("ldaps_port", server.ldaps_port.to_string()),
            ("ldap_password", MANAGER_PASSWORD.to_string()),
            ("ldap_closed_port", closed_port.to_string()),
            ("ldap_silent_port", silent_port.to_string()),
        ],
    );
    let ok = |label: &str| {
        let sample = get(&samples, label);
        assert_eq!(
            outcome(sample),
            ("0", "Success", true),
            "{label}: {sample:#?}"
        );
        sample
    };

    // Without a thread bind there is no context.
    let unbound = get(&samples, "search without bind");
    assert_eq!(
        outcome(unbound),
        (
            "800",
            "javax.naming.NamingException: Context is null",
            false
        )
    );
    assert!(unbound.data.contains("<searchfilter>(uid=bob)</searchfilter>\n<baseobj>dc=example,dc=com</baseobj>\n<searchbase>ou=people</searchbase>\n<scope>2</scope>\n<countlimit/>\n<timelimit/>\n</operation>\n<responsecode>800</responsecode>"), "{}", unbound.data);

    // Binds: the code and message JMeter cuts out of JNDI's text keep its spaces.
    let refused = get(&samples, "bind bad password");
    assert_eq!(outcome(refused), (" 49", " Invalid Credentials", false));
    assert_eq!(refused.sampler_data, "Bind as cn=admin,dc=example,dc=com");
    let bind = ok("bind");
    assert_eq!(
        bind.data,
        answer(
            "<opertype>bind</opertype>\n<baseobj>dc=example,dc=com</baseobj>\n\
             <binddn>cn=admin,dc=example,dc=com</binddn>\n<connectionTO>5000</connectionTO>\n",
            "0",
            "Success"
        )
    );

    // Searches: parsed results sorted by name read backwards, attributes by name,
    // several values sorted and joined.
    let parsed = ok("search parsed");
    assert_eq!(
        parsed.sampler_data,
        "Search with filter (objectClass=inetOrgPerson)"
    );
    assert_eq!(
        parsed.data,
        answer(
            "<opertype>search</opertype>\n<searchfilter>(objectClass=inetOrgPerson)</searchfilter>\n\
             <baseobj>dc=example,dc=com</baseobj>\n<searchbase>ou=people</searchbase>\n\
             <scope>2</scope>\n<countlimit>0</countlimit>\n<timelimit>0</timelimit>\n\
             <searchresults><searchresult><dn>cn=Alice Smith,ou=people,dc=example,dc=com</dn>\n\
             <returnedattr>3</returnedattr>\n<attributes><cn>Alice Smith</cn>\n\
             <mail>alice@example.com</mail>\n<telephoneNumber>+1 555 0100, +1 555 0101</telephoneNumber>\n\
             </attributes>\n</searchresult>\n\
             <searchresult><dn>cn=Bob Jones,ou=people,dc=example,dc=com</dn>\n\
             <returnedattr>2</returnedattr>\n<attributes><cn>Bob Jones</cn>\n\
             <mail>bob@example.com</mail>\n</attributes>\n</searchresult>\n</searchresults>\n",
            "0",
            "Success"
        )
    );
    assert!(ok("search unparsed")
        .data
        .contains("<searchresults>hasElements=true</searchresults>\n"));
    assert!(ok("search nothing")
        .data
        .contains("<searchresults>hasElements=false</searchresults>\n"));
    // One level below the root DN (an empty search base): the two folders.
    let level = ok("search one level");
    assert!(
        level.data.contains(
            "<searchresults><searchresult><dn>ou=people,dc=example,dc=com</dn>\n\
             <returnedattr>1</returnedattr>\n<attributes><ou>people</ou>\n</attributes>\n\
             </searchresult>\n<searchresult><dn>ou=groups,dc=example,dc=com</dn>\n"
        ),
        "{}",
        level.data
    );
    // The size limit fails the sample after the entries that came are written.
    let limited = get(&samples, "search size limit");
    assert_eq!(outcome(limited), (" 4 ", "Sizelimit Exceeded", false));
    assert_eq!(
        limited.data.matches("<searchresult>").count(),
        1,
        "{}",
        limited.data
    );
    assert!(limited.data.ends_with(
        "</searchresults>\n</operation>\n<responsecode> 4 </responsecode>\n\
         <responsemessage>Sizelimit Exceeded</responsemessage>\n</ldapanswer>\n"
    ));
    assert_eq!(
        outcome(get(&samples, "search bad filter")),
        (
            "800",
            "javax.naming.directory.InvalidSearchFilterException: Unbalanced parenthesis; \
             remaining name 'ou=people'",
            false
        )
    );
    assert_eq!(
        outcome(get(&samples, "search no such base")),
        (" 32", " No Such Object", false)
    );

    // Compares.
    let matched = ok("compare true");
    assert_eq!(
        matched.sampler_data,
        "Compare mail=bob@example.com cn=Bob Jones,ou=people"
    );
    assert_eq!(
        matched.data,
        answer(
            "<opertype>compare</opertype>\n<comparedn>cn=Bob Jones,ou=people</comparedn>\n\
             <comparefilter>mail=bob@example.com</comparefilter>\n",
            "0",
            "Success"
        )
    );
    assert_eq!(
        outcome(get(&samples, "compare false")),
        ("5", "compareFalse", false)
    );
    assert_eq!(
        outcome(get(&samples, "compare missing")),
        (" 32", " No Such Object", false)
    );

    // Add, modify, rename, delete.
    let added = ok("add");
    assert_eq!(added.sampler_data, "Add object cn=Carol White,ou=people");
    assert!(added.data.contains(
        "<attributes>objectClass=inetOrgPerson()&cn=Carol White()&sn=White()&\
         mail=carol@example.com()&title=Engineer()&objectClass=organizationalPerson()</attributes>\n\
         <dn>cn=Carol White,ou=people</dn>\n"
    ), "{}", added.data);
    assert_eq!(
        outcome(get(&samples, "add again")),
        (" 68", " Entry Already Exists", false)
    );
    let modified = ok("modify");
    assert!(
        modified.data.contains(
            "<dn>cn=Carol White,ou=people</dn>\n<attributes>mail=carol2@example.com&\
         mail=carol@example.com&telephoneNumber=+1 555 0199&title=</attributes>\n"
        ),
        "{}",
        modified.data
    );
    let after = ok("search modified");
    assert!(
        after.data.contains(
            "<dn>cn=Carol White,ou=people,dc=example,dc=com</dn>\n<returnedattr>3</returnedattr>\n\
         <attributes><mail>carol2@example.com</mail>\n<sn>White</sn>\n\
         <telephoneNumber>+1 555 0199</telephoneNumber>\n</attributes>\n"
        ),
        "{}",
        after.data
    );
    assert_eq!(
        outcome(get(&samples, "modify missing")),
        (" 32", " No Such Object", false)
    );
    let renamed = ok("rename");
    assert_eq!(
        renamed.sampler_data,
        "ModDN object cn=Carol White,ou=people to cn=Caroline White,ou=people"
    );
    ok("rename to groups");
    ok("delete");
    // JNDI's delete is idempotent: an entry already gone (its parent there) is deleted.
    ok("delete again");
    assert_eq!(
        outcome(get(&samples, "delete missing parent")),
        (" 32", " No Such Object", false)
    );
    assert_eq!(
        server.entry("cn=Caroline White,ou=groups,dc=example,dc=com"),
        ""
    );

    // Unbind ends the thread's context; single binds open and close their own.
    ok("unbind");
    assert_eq!(
        outcome(get(&samples, "search after unbind")).0,
        "800",
        "the context is gone"
    );
    ok("single bind");
    assert_eq!(
        outcome(get(&samples, "single bind refused")),
        (
            "800",
            &*format!(
                "javax.naming.CommunicationException: 127.0.0.1:{closed_port} \
                 [Root exception is java.net.ConnectException: Connection refused]"
            ),
            false
        )
    );
    let timeout = get(&samples, "single bind timeout");
    assert_eq!(
        outcome(timeout),
        (
            "800",
            "javax.naming.NamingException: LDAP response read timed out, timeout used: 500 ms.",
            false
        )
    );
    assert!(
        (450..5000).contains(&timeout.elapsed),
        "{}",
        timeout.elapsed
    );

    // LDAPS: trusting any certificate, then the JVM's authorities (which do not know the
    // test's self-signed one).
    ok("ldaps bind");
    assert!(ok("ldaps search")
        .data
        .contains("<attributes><uid>alice</uid>\n</attributes>"));
    ok("ldaps unbind");
    let untrusted = get(&samples, "ldaps untrusted");
    assert_eq!(untrusted.code, "800");
    assert_eq!(
        untrusted.message,
        format!(
            "javax.naming.CommunicationException: simple bind failed: 127.0.0.1:{} \
             [Root exception is javax.net.ssl.SSLHandshakeException: PKIX path building \
             failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to \
             find valid certification path to requested target]",
            server.ldaps_port
        )
    );
    drop(silent);
}

#[test]
fn ldap_requests_take_defaults_and_the_login_config_element() {
    let server = Slapd::start();
    let closed_port = free_port();
    let samples = run(
        "ldap/request.jmx",
        &[
            ("ldap_port", server.port.to_string()),
            ("ldap_password", MANAGER_PASSWORD.to_string()),
            ("ldap_closed_port", closed_port.to_string()),
        ],
    );
    let ok = |label: &str| {
        let sample = get(&samples, label);
        assert_eq!(outcome(sample), ("200", "OK", true), "{label}: {sample:#?}");
        assert_eq!(sample.data, "successful", "{label}");
        assert_eq!(sample.data_type, "text", "{label}");
        sample
    };
    // The Login Config Element's manager login lets the adds and deletes through.
    assert_eq!(ok("add").sampler_data, "add");
    let again = get(&samples, "add again");
    assert_eq!(
        outcome(again),
        (
            "500",
            "javax.naming.NameAlreadyBoundException: [LDAP: error code 68 - Entry Already \
             Exists]; remaining name 'cn=Dave Brown,ou=people'",
            false
        )
    );
    // A failure's row has no data type (JMeter sets it only on success), so the XML
    // results file says its (empty) data cannot be recorded, as JMeter's does.
    assert_eq!(
        (again.data.as_str(), again.data_type.as_str(), again.elapsed),
        ("Non-TEXT response data, cannot record: ()", "", 0)
    );
    ok("modify");
    ok("search");
    let nothing = get(&samples, "search nothing");
    assert_eq!(outcome(nothing), ("201", "OK - no results", true));
    assert_eq!(nothing.data, "successful - no results");
    assert_eq!(
        outcome(get(&samples, "search bad filter")),
        (
            "500",
            "javax.naming.directory.InvalidSearchFilterException: Unbalanced parenthesis; \
             remaining name 'ou=people'",
            false
        )
    );
    ok("delete");
    ok("delete again");
    assert_eq!(
        outcome(get(&samples, "delete missing parent")),
        (
            "500",
            "javax.naming.NameNotFoundException: [LDAP: error code 32 - No Such Object]; \
             remaining name 'cn=Nobody,ou=nowhere'",
            false
        )
    );
    for label in [
        "built-in add",
        "built-in modify",
        "built-in search",
        "built-in delete",
    ] {
        ok(label);
    }
    // The sampler's own login wins over the Login Config Element's.
    assert_eq!(
        outcome(get(&samples, "bad credentials")),
        (
            "500",
            "javax.naming.AuthenticationException: [LDAP: error code 49 - Invalid Credentials]",
            false
        )
    );
    assert_eq!(
        outcome(get(&samples, "unreachable")),
        (
            "500",
            &*format!(
                "javax.naming.CommunicationException: 127.0.0.1:{closed_port} \
                 [Root exception is java.net.ConnectException: Connection refused]"
            ),
            false
        )
    );
    // Without a Login Config Element the requests bind anonymously: reads only.
    assert_eq!(
        outcome(get(&samples, "anonymous add")),
        (
            "500",
            "javax.naming.AuthenticationNotSupportedException: [LDAP: error code 8 - \
             modifications require authentication]; remaining name 'cn=Eve,ou=people'",
            false
        )
    );
    ok("anonymous search");

    // What the requests left: Dave deleted, the built-in test entries removed again.
    assert_eq!(
        server.entry("cn=Dave Brown,ou=people,dc=example,dc=com"),
        ""
    );
    for n in 1..=4 {
        assert_eq!(
            server.entry(&format!("cn=TestUser{n},dc=example,dc=com")),
            ""
        );
    }
}
