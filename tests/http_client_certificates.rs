//! Client certificates (mutual TLS) end to end: the keystore named by
//! `-Djavax.net.ssl.keyStore` and the plan's Keystore Configuration, against an HTTPS
//! server on 127.0.0.1 that requires a certificate from a CA made for the test with
//! `openssl` (PKCS#12 in OpenSSL 3's and the legacy encryption, PEM with two entries,
//! a PKCS#12 file with two entries not in alphabetical order), and the Keystore
//! Configuration's fields as `${__P(...)}` expressions, `preload` included.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use support::http_server::{serve_tls_requiring_client_cert, Reply, TestServer};
use support::{fixtures, jmxr, run_fixture};

/// A CA and two client certificates it issued, made fresh in a scratch folder.
struct Pki {
    dir: tempfile::TempDir,
}

impl Pki {
    fn new() -> Pki {
        let dir = tempfile::tempdir().expect("scratch folder");
        let ec = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
        ];
        openssl(
            dir.path(),
            &[
                &["req", "-x509"],
                &ec[..],
                &[
                    "-keyout",
                    "ca.key",
                    "-out",
                    "ca.pem",
                    "-subj",
                    "/CN=jmxr test CA",
                    "-days",
                    "2",
                    "-addext",
                    "basicConstraints=critical,CA:TRUE",
                    "-addext",
                    "keyUsage=critical,keyCertSign",
                ],
            ]
            .concat(),
        );
        std::fs::write(
            dir.path().join("client.ext"),
            "extendedKeyUsage=clientAuth\n",
        )
        .unwrap();
        for name in ["alice", "bob"] {
            let key = format!("{name}.key");
            let csr = format!("{name}.csr");
            let pem = format!("{name}.pem");
            let subject = format!("/CN={name}");
            openssl(
                dir.path(),
                &[
                    &["req"],
                    &ec[..],
                    &["-keyout", &key, "-out", &csr, "-subj", &subject],
                ]
                .concat(),
            );
            openssl(
                dir.path(),
                &[
                    "x509",
                    "-req",
                    "-in",
                    &csr,
                    "-CA",
                    "ca.pem",
                    "-CAkey",
                    "ca.key",
                    "-CAcreateserial",
                    "-out",
                    &pem,
                    "-days",
                    "2",
                    "-extfile",
                    "client.ext",
                ],
            );
        }
        // OpenSSL 3's default PKCS#12 (AES and PBKDF2, HMAC-SHA-256).
        openssl(
            dir.path(),
            &[
                "pkcs12",
                "-export",
                "-in",
                "alice.pem",
                "-inkey",
                "alice.key",
                "-name",
                "alice",
                "-out",
                "alice.p12",
                "-passout",
                "pass:secret",
            ],
        );
        // The older encryption keytool and OpenSSL 1 wrote (3DES, SHA-1 MAC).
        openssl(
            dir.path(),
            &[
                "pkcs12",
                "-export",
                "-in",
                "bob.pem",
                "-inkey",
                "bob.key",
                "-name",
                "bob",
                "-out",
                "bob-legacy.p12",
                "-passout",
                "pass:secret",
                "-keypbe",
                "PBE-SHA1-3DES",
                "-certpbe",
                "PBE-SHA1-3DES",
                "-macalg",
                "sha1",
            ],
        );
        // Both as PEM entries: each key followed by its certificate.
        let both: Vec<u8> = ["alice.key", "alice.pem", "bob.key", "bob.pem"]
            .iter()
            .flat_map(|f| std::fs::read(dir.path().join(f)).unwrap())
            .collect();
        std::fs::write(dir.path().join("both.pem"), both).unwrap();
        Pki { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn der(&self, name: &str) -> Vec<u8> {
        CertificateDer::from_pem_file(self.path(&format!("{name}.pem")))
            .expect("client certificate")
            .to_vec()
    }

    fn server(&self) -> TestServer {
        serve_tls_requiring_client_cert(&self.path("ca.pem"), |_| Reply::ok("welcome"))
    }
}

fn openssl(dir: &Path, args: &[&str]) {
    let output = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl runs (the CI installs it)");
    assert!(
        output.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn keystore_flags(file: &Path, password: &str) -> Vec<String> {
    vec![
        format!("-Djavax.net.ssl.keyStore={}", file.display()),
        format!("-Djavax.net.ssl.keyStorePassword={password}"),
    ]
}

fn run(fixture: &str, server: &TestServer, extra: &[String]) -> support::Jtl {
    let mut args = vec![format!("-Jport={}", server.port)];
    args.extend_from_slice(extra);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_fixture(fixture, &args)
}

#[test]
fn a_pkcs12_keystore_presents_its_certificate() {
    let pki = Pki::new();
    let server = pki.server();
    let jtl = run(
        "http/client_certificate.jmx",
        &server,
        &keystore_flags(&pki.path("alice.p12"), "secret"),
    );
    let row = jtl.one("client cert");
    assert_eq!(jtl.get(row, "responseCode"), "200", "{row:?}");
    assert_eq!(jtl.get(row, "success"), "true");
    let seen = server.requests_to("/cert/1");
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].client_certificate, Some(pki.der("alice")));
}

#[test]
fn a_legacy_pkcs12_keystore_is_read_too() {
    let pki = Pki::new();
    let server = pki.server();
    let jtl = run(
        "http/client_certificate.jmx",
        &server,
        &keystore_flags(&pki.path("bob-legacy.p12"), "secret"),
    );
    assert_eq!(jtl.get(jtl.one("client cert"), "success"), "true");
    assert_eq!(
        server.requests_to("/cert")[0].client_certificate,
        Some(pki.der("bob"))
    );
}

/// Without a keystore the server ends the handshake: a failed sample with JMeter's
/// non-HTTP response code, and no request reaches the server.
#[test]
fn without_a_keystore_the_server_refuses_the_connection() {
    let pki = Pki::new();
    let server = pki.server();
    let jtl = run("http/client_certificate.jmx", &server, &[]);
    let row = jtl.one("client cert");
    assert_eq!(jtl.get(row, "success"), "false", "{row:?}");
    assert_eq!(
        jtl.get(row, "responseCode"),
        "Non HTTP response code: javax.net.ssl.SSLHandshakeException",
        "{row:?}"
    );
    // JMeter 2.13 on Java 17 against the same kind of server writes exactly this.
    assert_eq!(
        jtl.get(row, "responseMessage"),
        "Non HTTP response message: Received fatal alert: certificate_required",
        "{row:?}"
    );
    assert!(server.requests_to("/cert").is_empty());
}

/// Without an alias variable the entries in the index range go out in turn: two users,
/// two certificates, each user keeping its own.
#[test]
fn entries_are_handed_out_in_turn_across_users() {
    let pki = Pki::new();
    let server = pki.server();
    let mut flags = keystore_flags(&pki.path("both.pem"), "");
    flags.push("-Jthreads=2".into());
    let jtl = run("http/client_certificate.jmx", &server, &flags);
    assert_eq!(jtl.values("success"), ["true"; 4]);
    // Each user keeps the entry it took, on a new connection too (keep-alive is off).
    let users_certificate = |user: &str| {
        let requests = server.requests_to(&format!("/cert/{user}"));
        assert_eq!(requests.len(), 2);
        assert_ne!(requests[0].connection, requests[1].connection);
        assert_eq!(
            requests[0].client_certificate,
            requests[1].client_certificate
        );
        requests[0]
            .client_certificate
            .clone()
            .expect("a certificate")
    };
    let mut seen = vec![users_certificate("1"), users_certificate("2")];
    seen.sort();
    let mut expected = vec![pki.der("alice"), pki.der("bob")];
    expected.sort();
    assert_eq!(seen, expected);

    // One user alone: the second connection presents the first entry again, not the next.
    let alone = pki.server();
    let flags = keystore_flags(&pki.path("both.pem"), "");
    run("http/client_certificate.jmx", &alone, &flags);
    let requests = alone.requests_to("/cert/1");
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].client_certificate, Some(pki.der("alice")));
    assert_eq!(requests[1].client_certificate, Some(pki.der("alice")));
}

/// With `clientCertAliasVarName` each user presents the entry its variable names (PEM
/// entries are named 1, 2... in file order); an alias the keystore lacks fails the
/// sample with JMeter's message.
#[test]
fn the_alias_variable_picks_each_users_certificate() {
    let pki = Pki::new();
    let server = pki.server();
    let jtl = run(
        "http/client_certificate_alias.jmx",
        &server,
        &keystore_flags(&pki.path("both.pem"), ""),
    );
    let first = server.requests_to("/alias/1");
    let second = server.requests_to("/alias/2");
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].client_certificate, Some(pki.der("alice")));
    assert_eq!(second.len(), 1);
    assert_eq!(second[0].client_certificate, Some(pki.der("bob")));
    assert!(server.requests_to("/alias/3").is_empty());
    let failed: Vec<_> = jtl
        .rows
        .iter()
        .filter(|r| jtl.get(r, "success") == "false")
        .collect();
    assert_eq!(failed.len(), 1, "{:?}", jtl.rows);
    assert_eq!(
        jtl.get(failed[0], "responseCode"),
        "Non HTTP response code: java.lang.IllegalArgumentException"
    );
    assert_eq!(
        jtl.get(failed[0], "responseMessage"),
        "Non HTTP response message: No certificate found for alias:'3'"
    );
}

/// A keystore that cannot be used refuses the run with a message saying what to do.
#[test]
fn an_unusable_keystore_refuses_the_run() {
    let pki = Pki::new();
    let plan = fixtures().join("http/client_certificate.jmx");
    let plan = plan.to_str().unwrap();
    let jks = pki.path("client.jks");
    std::fs::write(&jks, [0xFE, 0xED, 0xFE, 0xED, 0, 0, 0, 2, 0, 0, 0, 0]).unwrap();
    for (file, password, expected) in [
        (jks, "secret", "keytool -importkeystore"),
        (
            pki.path("alice.p12"),
            "wrong",
            "javax.net.ssl.keyStorePassword",
        ),
        (pki.path("missing.p12"), "secret", "javax.net.ssl.keyStore"),
    ] {
        let work = tempfile::tempdir().unwrap();
        let flags = keystore_flags(&file, password);
        let mut args = vec!["-n", "-t", plan, "-l", "out.jtl", "-Jport=9"];
        args.extend(flags.iter().map(String::as_str));
        let output = jmxr(work.path(), &args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{file:?} was accepted");
        assert!(stderr.contains(expected), "{file:?}: {stderr}");
        assert!(!work.path().join("out.jtl").exists());
    }
}

/// The Keystore Configuration of `client_certificate_props.jmx` takes its fields from
/// `-J` properties: `ksStart`, `ksEnd`, `preload`, `aliasVar`.
const PROPS_PLAN: &str = "http/client_certificate_props.jmx";

/// Whose certificate each of the plan's two requests presented (one user).
fn presented(pki: &Pki, server: &TestServer) -> Vec<&'static str> {
    let requests = server.requests_to("/cert/1");
    assert_eq!(requests.len(), 2);
    let (alice, bob) = (pki.der("alice"), pki.der("bob"));
    requests
        .iter()
        .map(|r| match &r.client_certificate {
            Some(der) if *der == alice => "alice",
            Some(der) if *der == bob => "bob",
            Some(_) => "another",
            None => "none",
        })
        .collect()
}

/// Index fields holding `${__P(...)}` are evaluated when the test starts.
#[test]
fn keystore_fields_take_expressions() {
    let pki = Pki::new();
    for (start, end, expected) in [("0", "0", "alice"), ("1", "1", "bob"), ("1", "-1", "bob")] {
        let server = pki.server();
        let mut flags = keystore_flags(&pki.path("both.pem"), "");
        flags.push(format!("-JksStart={start}"));
        flags.push(format!("-JksEnd={end}"));
        let jtl = run(PROPS_PLAN, &server, &flags);
        assert_eq!(jtl.values("success"), ["true"; 2], "{start}..{end}");
        assert_eq!(presented(&pki, &server), [expected; 2], "{start}..{end}");
    }
}

/// Runs the props plan expecting jmxr to refuse it; returns what it printed on stderr.
fn refused_run(flags: &[String]) -> String {
    let plan = fixtures().join(PROPS_PLAN);
    let work = tempfile::tempdir().unwrap();
    let mut args = vec![
        "-n",
        "-t",
        plan.to_str().unwrap(),
        "-l",
        "out.jtl",
        "-Jport=9",
    ];
    args.extend(flags.iter().map(String::as_str));
    let output = jmxr(work.path(), &args);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!output.status.success(), "accepted: {flags:?}");
    assert!(!work.path().join("out.jtl").exists(), "{flags:?} sampled");
    stderr
}

/// A start index after the end index stops the test before it starts, with JMeter's
/// message, however the keystore is loaded.
#[test]
fn a_start_index_after_the_end_index_stops_the_test() {
    let pki = Pki::new();
    let mut flags = keystore_flags(&pki.path("both.pem"), "");
    flags.extend([
        "-JksStart=1".into(),
        "-JksEnd=0".into(),
        "-Jpreload=false".into(),
    ]);
    let stderr = refused_run(&flags);
    assert!(
        stderr.contains(
            "Keystore Config error : Alias start index must be lower than Alias end index"
        ),
        "{stderr}"
    );
}

/// `preload` true reads the keystore when the test starts: a wrong or missing password
/// refuses the run before any sample, with JMeter's words.
#[test]
fn a_preloaded_keystore_that_cannot_be_opened_refuses_the_run() {
    let pki = Pki::new();
    let mut flags = keystore_flags(&pki.path("alice.p12"), "wrong");
    flags.push("-Jpreload=true".into());
    let stderr = refused_run(&flags);
    let file = pki.path("alice.p12");
    let expected = format!("Can't load keystore '{}'. Wrong password?", file.display());
    assert!(stderr.contains(&expected), "{stderr}");

    // No password at all: JMeter would ask in its GUI; without one it cannot.
    let flags = vec![
        format!("-Djavax.net.ssl.keyStore={}", file.display()),
        "-Jpreload=TRUE".to_string(),
    ];
    let stderr = refused_run(&flags);
    assert!(
        stderr.contains("No password provided, and no GUI present so cannot prompt"),
        "{stderr}"
    );
}

/// `preload` false leaves the keystore until the first HTTPS connection: the run
/// starts, and the samples that need the keystore fail with the reason.
#[test]
fn a_lazily_loaded_keystore_that_cannot_be_opened_fails_the_samples() {
    let pki = Pki::new();
    let server = pki.server();
    let mut flags = keystore_flags(&pki.path("alice.p12"), "wrong");
    flags.push("-Jpreload=false".into());
    let jtl = run(PROPS_PLAN, &server, &flags);
    assert_eq!(jtl.rows.len(), 2);
    let expected_message = format!(
        "Non HTTP response message: Could not create keystore: Can't load keystore '{}'. \
         Wrong password?",
        pki.path("alice.p12").display()
    );
    for row in &jtl.rows {
        assert_eq!(jtl.get(row, "success"), "false", "{row:?}");
        assert_eq!(
            jtl.get(row, "responseCode"),
            "Non HTTP response code: java.lang.IllegalArgumentException"
        );
        let message = jtl.get(row, "responseMessage");
        assert!(message.starts_with(&expected_message), "{message}");
    }
    assert!(server.requests_to("/cert").is_empty());

    // With the right password the lazy load succeeds at the first connection.
    let server = pki.server();
    let mut flags = keystore_flags(&pki.path("alice.p12"), "secret");
    flags.push("-Jpreload=false".into());
    let jtl = run(PROPS_PLAN, &server, &flags);
    assert_eq!(jtl.values("success"), ["true"; 2]);
    assert_eq!(presented(&pki, &server), ["alice"; 2]);
}

/// The DER element at the start of `data` whose tag is `tag`: (content, rest).
fn der_element(data: &[u8], tag: u8) -> (&[u8], &[u8]) {
    assert_eq!(data[0], tag, "unexpected DER tag");
    let (length, header) = match data[1] {
        short if short < 0x80 => (usize::from(short), 2),
        long => {
            let count = usize::from(long & 0x7F);
            let length = data[2..2 + count]
                .iter()
                .fold(0, |n, &b| (n << 8) | usize::from(b));
            (length, 2 + count)
        }
    };
    data[header..].split_at(length)
}

/// A DER element of `tag` around `content`.
fn der_wrap(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let length = content.len();
    if length < 0x80 {
        out.push(length as u8);
    } else {
        let bytes: Vec<u8> = length
            .to_be_bytes()
            .into_iter()
            .skip_while(|&b| b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(content);
    out
}

/// The ContentInfos of a MAC-less PKCS#12 file's AuthenticatedSafe.
fn content_infos(pfx: &[u8]) -> Vec<u8> {
    let (pfx, _) = der_element(pfx, 0x30);
    let (_version, rest) = der_element(pfx, 0x02);
    let (auth_safe, _) = der_element(rest, 0x30);
    let (_data_oid, rest) = der_element(auth_safe, 0x06);
    let (explicit, _) = der_element(rest, 0xA0);
    let (octets, _) = der_element(explicit, 0x04);
    der_element(octets, 0x30).0.to_vec()
}

/// One PKCS#12 file holding the key entries of `parts` in that order: OpenSSL writes one
/// key per file, so the test joins the AuthenticatedSafe contents of MAC-less files.
fn join_pkcs12(parts: &[Vec<u8>]) -> Vec<u8> {
    let infos: Vec<u8> = parts.iter().flat_map(|p| content_infos(p)).collect();
    let data_oid = [
        0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01,
    ];
    let octets = der_wrap(0x04, &der_wrap(0x30, &infos));
    let auth_safe = der_wrap(0x30, &[&data_oid[..], &der_wrap(0xA0, &octets)].concat());
    der_wrap(0x30, &[&[0x02, 0x01, 0x03][..], &auth_safe].concat())
}

/// PKCS#12 entries go out in file order, as Java's `KeyStore.aliases()` lists them,
/// not sorted by alias: `Zulu` (alice) comes first, then `Alpha` (bob).
#[test]
fn pkcs12_entries_keep_the_files_order() {
    let pki = Pki::new();
    let mut parts = Vec::new();
    for (name, alias) in [("alice", "Zulu"), ("bob", "Alpha")] {
        let out = format!("{name}-nomac.p12");
        openssl(
            pki.dir.path(),
            &[
                "pkcs12",
                "-export",
                "-in",
                &format!("{name}.pem"),
                "-inkey",
                &format!("{name}.key"),
                "-name",
                alias,
                "-out",
                &out,
                "-passout",
                "pass:secret",
                "-nomac",
            ],
        );
        parts.push(std::fs::read(pki.path(&out)).unwrap());
    }
    let joined = pki.path("zulu-alpha.p12");
    std::fs::write(&joined, join_pkcs12(&parts)).unwrap();
    for (index, expected) in [("0", "alice"), ("1", "bob")] {
        let server = pki.server();
        let mut flags = keystore_flags(&joined, "secret");
        flags.push(format!("-JksStart={index}"));
        flags.push(format!("-JksEnd={index}"));
        let jtl = run(PROPS_PLAN, &server, &flags);
        assert_eq!(jtl.values("success"), ["true"; 2], "entry {index}");
        assert_eq!(presented(&pki, &server), [expected; 2], "entry {index}");
    }
}
