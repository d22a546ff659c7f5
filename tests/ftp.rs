//! FTP Request and FTP Request Defaults end to end against a private FTP server
//! (`support::ftp_server`): uploads from content (ASCII, line ends converted) and from a
//! local file (binary), downloads saved in the response (binary and ASCII) and to a local
//! file, and the failures with JMeter's codes and the server's reply texts: a missing
//! file (550), an empty file (the transfer's 1xx reply: JMeter counts no bytes as a
//! failure), a bad login (530), a refused connection and a missing local file (000).
//! The same fixture's rows were compared with JMeter 2.13's on the same server.

mod support;

use support::ftp_server::FtpServer;
use support::services::free_port;
use support::{run_fixture, Jtl};

/// (code, message, success, dataType, bytes, sentBytes) of the row labelled `label`.
fn row<'a>(jtl: &'a Jtl, label: &str) -> (&'a str, &'a str, bool, &'a str, i64, i64) {
    let row = jtl.one(label);
    (
        jtl.get(row, "responseCode"),
        jtl.get(row, "responseMessage"),
        jtl.get(row, "success") == "true",
        jtl.get(row, "dataType"),
        jtl.int(row, "bytes"),
        jtl.int(row, "sentBytes"),
    )
}

#[test]
fn ftp_requests_get_and_put_and_fail_with_jmeters_codes() {
    let server = FtpServer::start();
    std::fs::write(server.file("text.txt"), b"a\r\nb\r\nc\n").expect("text file");
    let binary: Vec<u8> = (0..3000u32).map(|i| (i * 7 % 256) as u8).collect();
    std::fs::write(server.file("data.bin"), &binary).expect("binary file");
    std::fs::write(server.file("empty.txt"), b"").expect("empty file");
    let local = tempfile::tempdir().expect("local folder");
    let upload: Vec<u8> = (0..1234u32).map(|i| (i * 13 % 256) as u8).collect();
    std::fs::write(local.path().join("local.bin"), &upload).expect("local file");

    let jtl = run_fixture(
        "ftp/transfers.jmx",
        &[
            &format!("-Jftp_port={}", server.port),
            &format!("-Jftp_local={}", local.path().display()),
            &format!("-Jftp_closed_port={}", free_port()),
        ],
    );
    let ok = |label: &str| {
        let (code, message, success, _, _, _) = row(&jtl, label);
        assert_eq!((code, message, success), ("200", "OK", true), "{label}");
    };

    // Uploads: ASCII content goes out with CRLF line ends (the server stores them as its
    // own), a binary file byte for byte; both count sent bytes, not received ones.
    ok("put content ascii");
    assert_eq!(row(&jtl, "put content ascii").5, 12);
    assert_eq!(row(&jtl, "put content ascii").4, 0);
    let stored = std::fs::read(server.file("up.txt")).expect("uploaded text");
    assert_eq!(
        String::from_utf8_lossy(&stored).replace("\r\n", "\n"),
        "line1\nline2\n"
    );
    ok("put file binary");
    assert_eq!(row(&jtl, "put file binary").5, 1234);
    assert_eq!(
        std::fs::read(server.file("up.bin")).expect("uploaded file"),
        upload
    );

    // Downloads: saved in the response (binary: no data type; ASCII: text with CRLF
    // turned into LF), or to a local file with the bytes still counted.
    ok("get binary saved");
    assert_eq!(row(&jtl, "get binary saved").3, "");
    assert_eq!(row(&jtl, "get binary saved").4, 3000);
    ok("get ascii saved");
    assert_eq!(row(&jtl, "get ascii saved").3, "text");
    assert_eq!(row(&jtl, "get ascii saved").4, "a\nb\nc\n".len() as i64);
    ok("get to local file");
    assert_eq!(row(&jtl, "get to local file").4, 3000);
    assert_eq!(
        std::fs::read(local.path().join("copy.bin")).expect("downloaded file"),
        binary
    );
    let described = jtl.get(jtl.one("get binary saved"), "URL");
    assert_eq!(
        described,
        format!("ftp://127.0.0.1:{}/data.bin (Binary)  ->", server.port)
    );

    // Failures: the server's last reply, whole, as the message.
    let failures = [
        ("get missing", "550", "550 No such file or directory.\n"),
        ("bad login", "530", "530 Authentication failed.\n"),
        (
            "connect refused",
            "000",
            "java.net.ConnectException: Connection refused",
        ),
    ];
    // An empty file ends the transfer at its preliminary reply, which JMeter reports as a
    // failure: 150, or 125 when the passive data connection was already open (a race the
    // server decides).
    let (code, message, success, _, bytes, _) = row(&jtl, "get empty");
    assert!(
        [
            (
                "150",
                "150 File status okay. About to open data connection.\n"
            ),
            (
                "125",
                "125 Data connection already open. Transfer starting.\n"
            ),
        ]
        .contains(&(code, message)),
        "get empty: {code} {message:?}"
    );
    assert_eq!((success, bytes), (false, 0), "get empty");
    for (label, code, message) in failures {
        let (seen_code, seen_message, success, _, bytes, _) = row(&jtl, label);
        // The .jtl reader turns the reply's CRLF into LF.
        assert_eq!(
            (seen_code, seen_message, success, bytes),
            (code, message, false, 0),
            "{label}"
        );
    }
    let (code, message, _, _, _, _) = row(&jtl, "put missing local file");
    assert_eq!(code, "000");
    assert_eq!(
        message,
        format!(
            "java.io.FileNotFoundException: {}/absent.bin (No such file or directory)",
            local.path().display()
        )
    );
}
