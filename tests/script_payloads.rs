//! What scripts build for binary and signed requests, end to end: protobuf messages
//! from generated-Java Groovy code against the fixture's `.proto` files, request
//! signatures and JSON Web Tokens checked by code jmxr does not contain (Python's
//! `hmac`/`hashlib` and PyJWT, Debian's `python3-jwt`), and an `AtomicLong` shared by
//! many users through `props`.

mod support;

use std::collections::HashMap;
use std::process::Command;

use support::protowire::{fields as wire_fields, text, Wire};
use support::{fixtures, jmxr, run_fixture, Jtl};

fn unhex(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect()
}

#[test]
fn groovy_builds_and_reads_a_protobuf_message_from_generated_java_code() {
    let jtl = run_fixture(
        "scripts/protobuf_groovy.jmx",
        &["-Jjmxr.protobuf.path=protos"],
    );
    for label in ["build ChatMessage", "decode ChatMessage"] {
        let row = jtl.one(label);
        assert_eq!(jtl.get(row, "success"), "true", "{row:?}");
    }
    let labels = jtl.labels_of("Chat 1-1");
    let debug = labels.last().expect("a debug sample");
    let (decoded, hex) = debug
        .strip_prefix("dbg ")
        .and_then(|l| l.split_once(" hex="))
        .expect("dbg <decoded> hex=<bytes>");
    assert_eq!(
        decoded,
        "m-1|u1|u2|7|TEXT|1|text/plain|héllo|t1|web|42|0|a,b|pic:12|cover|-1|false"
    );
    let dbg_row = jtl.rows_of("Chat 1-1")[2];
    assert_eq!(
        jtl.get(dbg_row, "success"),
        "true",
        "the assertion on the variables"
    );

    let fields = wire_fields(&unhex(hex));
    assert_eq!(text(&fields[&1]), "m-1");
    assert_eq!(text(&fields[&2]), "u1");
    assert_eq!(text(&fields[&3]), "u2");
    assert_eq!(fields[&4], [Wire::Varint(7)]);
    assert_eq!(fields[&5], [Wire::Varint(1)], "msg_type TEXT");
    assert_eq!(text(&fields[&6]), "text/plain");
    assert_eq!(text(&fields[&7]), "héllo");
    let mut extra: Vec<(String, String)> = fields[&8]
        .iter()
        .map(|entry| {
            let Wire::Bytes(entry) = entry else {
                panic!("map entry")
            };
            let entry = wire_fields(entry);
            (text(&entry[&1]), text(&entry[&2]))
        })
        .collect();
    extra.sort();
    assert_eq!(
        extra,
        [
            ("client".into(), "web".into()),
            ("trace".into(), "t1".into())
        ]
    );
    let Wire::Varint(timestamp) = fields[&9][0] else {
        panic!("timestamp")
    };
    assert!(timestamp > 1_600_000_000_000, "{timestamp}");
    assert_eq!(fields[&10], [Wire::Varint(42)]);
    assert!(!fields.contains_key(&11), "ack_status 0 is not written");
    assert_eq!(
        fields[&12],
        [Wire::Bytes(b"a".to_vec()), Wire::Bytes(b"b".to_vec())]
    );
    let Wire::Bytes(attachment) = &fields[&13][0] else {
        panic!("attachment")
    };
    let attachment = wire_fields(attachment);
    assert_eq!(text(&attachment[&1]), "pic");
    assert_eq!(attachment[&2], [Wire::Varint(12)]);
    assert_eq!(fields[&15], [Wire::Varint(u64::MAX)], "-1 as uint64");
}

#[test]
fn check_names_the_missing_property_and_a_bad_proto_with_its_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = fixtures().join("scripts/protobuf_groovy.jmx");
    let plan = plan.to_str().expect("UTF-8");
    let output = jmxr(dir.path(), &["check", plan]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("`ChatMessage.newBuilder`: no protobuf message `ChatMessage` in the .proto files named by jmxr.protobuf.path"),
        "{stdout}"
    );

    std::fs::copy(plan, dir.path().join("plan.jmx")).expect("copy");
    std::fs::create_dir(dir.path().join("protos")).expect("folder");
    std::fs::write(
        dir.path().join("protos/im.proto"),
        "syntax = \"proto3\";\npackage im.v1;\n\nmessage ChatMessage {\n  strin message_id = 1;\n}\n",
    )
    .expect("write");
    let output = jmxr(
        dir.path(),
        &["check", "plan.jmx", "-Jjmxr.protobuf.path=protos"],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(stdout.contains("protos/im.proto:5:3"), "{stdout}");
}

/// Runs a Python program with Debian's interpreter (where `python3-jwt` lives) and
/// returns its output, failing the test on any error.
fn python(program: &str, args: &[&str]) -> String {
    let output = Command::new("/usr/bin/python3")
        .arg("-c")
        .arg(program)
        .args(args)
        .output()
        .expect("/usr/bin/python3 runs (apt-get install python3-jwt python3-cryptography)");
    assert!(
        output.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

const VERIFY: &str = r#"
import base64, hashlib, hmac, json, sys
import jwt
from cryptography.hazmat.primitives import serialization
secret = b"gift-signing-secret-0123456789abcdef"
canonical = b"count=3&gift_id=g7&room_id=r42&ts=1700000000"
raw = hmac.new(secret, canonical, hashlib.sha256).digest()
body = b'{"gift":"g7"}'
print(raw.hex())
print(base64.b64encode(raw).decode())
print(base64.urlsafe_b64encode(raw).decode().rstrip("="))
print(hashlib.sha256(body).hexdigest())
print(hashlib.sha1(body).hexdigest())
print(hashlib.md5(body).hexdigest())
no_exp = {"verify_exp": False}
hs = jwt.decode(sys.argv[1], secret, algorithms=["HS256"], options=no_exp)
print(json.dumps(hs, sort_keys=True), jwt.get_unverified_header(sys.argv[1]))
key = serialization.load_pem_private_key(open(sys.argv[3], "rb").read(), None).public_key()
rs = jwt.decode(sys.argv[2], key, algorithms=["RS256"], options=no_exp)
print(json.dumps(rs, sort_keys=True), jwt.get_unverified_header(sys.argv[2]))
print(json.dumps(jwt.decode(sys.argv[4], secret, algorithms=["HS256"])))
"#;

#[test]
fn groovy_signatures_and_tokens_verify_independently() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(
        fixtures().join("scripts/signing_groovy.jmx"),
        dir.path().join("plan.jmx"),
    )
    .expect("copy");
    std::fs::create_dir(dir.path().join("keys")).expect("folder");
    let key = dir.path().join("keys/rs256.pem");
    let status = Command::new("openssl")
        .args([
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-out",
        ])
        .arg(&key)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("openssl runs");
    assert!(status.success());
    // Run from the plan's folder, as the script reads `keys/rs256.pem` through
    // `FileServer.getFileServer().getBaseDir()`.
    let output = jmxr(dir.path(), &["-n", "-t", "plan.jmx", "-l", "out.jtl"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let jtl = Jtl::read(&dir.path().join("out.jtl"));
    let signed = jtl.one("sign gift");
    assert_eq!(jtl.get(signed, "success"), "true", "{signed:?}");
    let label = jtl.labels_of("Signing 1-1").pop().expect("debug sample");
    let values: HashMap<&str, &str> = label
        .strip_prefix("dbg ")
        .expect("dbg label")
        .split('|')
        .filter_map(|part| part.split_once('='))
        .collect();
    let checked = python(
        VERIFY,
        &[
            values["hs"],
            values["rs"],
            key.to_str().expect("UTF-8"),
            values["jjwt9"],
        ],
    );
    let lines: Vec<&str> = checked.lines().collect();
    assert_eq!(values["sig"], lines[0], "HMAC-SHA256 hex");
    assert_eq!(values["b64"], lines[1], "Base64");
    assert_eq!(values["url"], lines[2], "URL-safe Base64 without padding");
    assert_eq!(values["sha"], lines[3], "SHA-256");
    assert_eq!(values["sha1"], lines[4], "SHA-1");
    assert_eq!(values["md5"], lines[5], "MD5");
    let claims = r#"{"exp": 1700003600, "iat": 1700000000, "room": "r42", "sub": "user-1"}"#;
    assert_eq!(lines[6], format!("{claims} {{'alg': 'HS256'}}"));
    assert_eq!(lines[7], format!("{claims} {{'alg': 'RS256'}}"));
    assert_eq!(lines[8], r#"{"sub": "user-1"}"#);
}

#[test]
fn users_sharing_an_atomic_long_through_props_get_distinct_increasing_numbers() {
    let jtl = run_fixture("scripts/shared_counter.jmx", &[]);
    let mut all = Vec::new();
    for user in 1..=40 {
        let rows = jtl.rows_of(&format!("Users 1-{user}"));
        assert_eq!(rows.len(), 25, "user {user}");
        let numbers: Vec<i64> = rows
            .iter()
            .map(|row| {
                let message = jtl.get(row, "responseMessage");
                message
                    .strip_prefix("seq=")
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("{message}"))
            })
            .collect();
        assert!(
            numbers.windows(2).all(|w| w[0] < w[1]),
            "user {user}: {numbers:?}"
        );
        all.extend(numbers);
    }
    all.sort_unstable();
    assert_eq!(all, (1..=1000).collect::<Vec<i64>>());
}
