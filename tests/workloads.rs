//! The long-lived-connection workloads as plans users write them, end to end against
//! local servers that check what they receive:
//! * `im/chat.jmx`, instant messaging: users from a CSV file log in over WebSocket with
//!   a protobuf `LoginRequest` (a refused login stops the user), send `ChatMessage`
//!   frames with a rising `seq`, assert the `message_id` of each `ChatAck`, and send a
//!   heartbeat whenever its interval has passed. The server decodes every frame with a
//!   wire-format reader written here, not with jmxr's protobuf code.

mod support;

use std::time::{SystemTime, UNIX_EPOCH};

use support::app_ws_server::{self, Received};
use support::protowire::{self, string_map, text_of, varint_of, Encoder};
use support::run_fixture;
use tokio_tungstenite::tungstenite::Message;

/// The users of `jmx-fixtures/im/users.csv`: id, token, room.
const USERS: [(&str, &str, u64); 3] = [
    ("u1001", "tok-1001", 7),
    ("u1002", "tok-1002", 7),
    ("u1003", "expired", 8),
];
const MESSAGES: usize = 6;
const HEARTBEAT_MS: u64 = 350;
/// The ack the server gets wrong on purpose: user and seq.
const WRONG_ACK: (&str, u64) = ("u1002", 4);

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_millis() as u64
}

/// The IM server: the first frame of a connection is a `LoginRequest` (refused with
/// 401 for an expired token), every later one a `ChatMessage` acknowledged by a
/// `ChatAck` with its `message_id` and `seq` (except [`WRONG_ACK`]).
fn im_answer(target: &str, before: usize, received: &Received) -> Vec<Message> {
    let fields = protowire::fields(&received.data);
    let reply = if before == 0 {
        let (code, message) = if text_of(&fields, 2) == "expired" {
            (401, "invalid token")
        } else {
            (200, "ok")
        };
        Encoder::default()
            .varint(1, code)
            .bytes(2, message.as_bytes())
    } else {
        let seq = varint_of(&fields, 10);
        let mut message_id = text_of(&fields, 1);
        if target.contains(&format!("uid={}&", WRONG_ACK.0)) && seq == WRONG_ACK.1 {
            message_id = "stale-ack".into();
        }
        Encoder::default()
            .bytes(1, message_id.as_bytes())
            .varint(2, 1)
            .varint(3, seq)
    };
    vec![Message::binary(reply.0)]
}

#[test]
fn instant_messaging_logs_in_chats_with_rising_seq_and_heartbeats() {
    let server = app_ws_server::serve(im_answer);
    let started = now_ms();
    let port = format!("-Jim.port={}", server.port);
    let messages = format!("-Jim.messages={MESSAGES}");
    let heartbeat = format!("-Jim.heartbeat_ms={HEARTBEAT_MS}");
    let jtl = run_fixture(
        "im/chat.jmx",
        &[
            "-Jjmxr.protobuf.path=../scripts/protos",
            &port,
            &messages,
            &heartbeat,
            "-Jim.think_ms=100",
            "-Jim.think_range_ms=20",
        ],
    );
    let ended = now_ms();

    // What the server received, decoded field by field.
    let connections = server.connections();
    assert_eq!(connections.len(), USERS.len(), "{connections:?}");
    let mut heartbeats_seen = 0;
    for (user, token, room) in USERS {
        let connection = connections
            .iter()
            .find(|c| c.query("uid") == Some(user))
            .unwrap_or_else(|| panic!("no connection for {user}: {connections:?}"));
        assert_eq!(connection.query("room_id"), Some(room.to_string().as_str()));
        let (login, frames) = connection.messages.split_first().expect("a login frame");
        assert!(
            connection.messages.iter().all(|m| m.binary),
            "binary frames only"
        );
        let login = protowire::fields(&login.data);
        assert_eq!(text_of(&login, 1), user);
        assert_eq!(text_of(&login, 2), token);
        assert_eq!(varint_of(&login, 3), room);
        assert_eq!(login.len(), 3, "LoginRequest has three fields: {login:?}");
        if token == "expired" {
            assert!(frames.is_empty(), "a refused user stops: {frames:?}");
            continue;
        }
        assert_eq!(connection.close_code, Some(1000), "{user} closes");

        let mut last_heartbeat_at: Option<u64> = None;
        let mut chats = 0;
        for (index, frame) in frames.iter().enumerate() {
            let seq = index as u64 + 1;
            let fields = protowire::fields(&frame.data);
            assert_eq!(text_of(&fields, 1), format!("{user}-{seq}"), "message_id");
            assert_eq!(text_of(&fields, 2), user, "from_user");
            assert_eq!(varint_of(&fields, 4), room, "room_id");
            let timestamp = varint_of(&fields, 9);
            assert!(
                (started..=ended).contains(&timestamp),
                "timestamp {timestamp} within the run"
            );
            assert_eq!(varint_of(&fields, 10), seq, "seq rises by one per frame");
            assert!(!fields.contains_key(&11), "ack_status 0 is not written");
            match varint_of(&fields, 5) {
                1 => {
                    chats += 1;
                    assert_eq!(text_of(&fields, 3), format!("room-{room}"), "to_user");
                    assert_eq!(text_of(&fields, 6), "text/plain", "content_type");
                    assert_eq!(
                        text_of(&fields, 7),
                        format!("hello #{seq} from {user}"),
                        "content"
                    );
                    assert_eq!(
                        string_map(&fields, 8),
                        [
                            ("client".to_string(), "jmeter".to_string()),
                            ("trace".to_string(), format!("t-{user}-{seq}")),
                        ],
                        "extra"
                    );
                    assert_eq!(fields.len(), 10, "{fields:?}");
                }
                0 => {
                    heartbeats_seen += 1;
                    // A heartbeat carries only its identity, the time and the seq.
                    let mut numbers: Vec<u64> = fields.keys().copied().collect();
                    numbers.sort_unstable();
                    assert_eq!(numbers, [1, 2, 4, 9, 10], "heartbeat fields");
                    // The interval is measured from the login, then from each heartbeat.
                    let since = last_heartbeat_at.unwrap_or(connection.messages[0].at_ms);
                    assert!(
                        frame.at_ms + 30 >= since + HEARTBEAT_MS,
                        "{user}: heartbeat {}ms after the previous one",
                        frame.at_ms - since
                    );
                    last_heartbeat_at = Some(frame.at_ms);
                }
                other => panic!("msg_type {other}"),
            }
        }
        assert_eq!(chats, MESSAGES, "{user}");
        assert!(last_heartbeat_at.is_some(), "{user} sent a heartbeat");
    }
    assert!(heartbeats_seen >= 2, "{heartbeats_seen}");

    // What the plan reported: the refused login, the ack that did not match.
    let rows = |thread: &str, label: &str| -> Vec<(String, String)> {
        jtl.rows_of(thread)
            .into_iter()
            .filter(|r| jtl.get(r, "label") == label)
            .map(|r| {
                (
                    jtl.get(r, "success").to_string(),
                    jtl.get(r, "failureMessage").to_string(),
                )
            })
            .collect()
    };
    // Users take CSV rows in the order they start: find the refused one by its login.
    let mut refused = Vec::new();
    let mut stale = Vec::new();
    for n in 1..=USERS.len() {
        let thread = format!("chat users 1-{n}");
        let login = rows(&thread, "login");
        assert_eq!(login.len(), 1, "{thread}");
        if login[0].0 == "false" {
            assert_eq!(login[0].1, "login refused: 401 invalid token");
            assert_eq!(jtl.labels_of(&thread), ["connect", "login"], "stops");
            refused.push(thread);
            continue;
        }
        assert_eq!(rows(&thread, "chat").len(), MESSAGES);
        assert_eq!(rows(&thread, "close"), [("true".into(), String::new())]);
        for (success, message) in rows(&thread, "chat")
            .into_iter()
            .chain(rows(&thread, "heartbeat"))
        {
            if success == "false" {
                stale.push(message);
            }
        }
    }
    assert_eq!(refused.len(), 1);
    assert_eq!(stale, ["ack for stale-ack, expected u1002-4"]);
}

/// `jmxr check` on a workload plan: every element supported, nothing to fix.
fn check_passes(fixture: &str, extra: &[&str]) {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = support::fixtures().join(fixture);
    let mut args = vec!["check", plan.to_str().expect("UTF-8")];
    args.extend_from_slice(extra);
    let output = support::jmxr(dir.path(), &args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains(" 0 unsupported"), "{stdout}");
    assert!(stdout.contains("0 errors, 0 warnings"), "{stdout}");
}

#[test]
fn check_accepts_the_instant_messaging_plan() {
    check_passes("im/chat.jmx", &["-Jjmxr.protobuf.path=../scripts/protos"]);
}
