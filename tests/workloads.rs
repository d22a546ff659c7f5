//! The long-lived-connection workloads as plans users write them, end to end against
//! local servers that check what they receive:
//! * `im/chat.jmx`, instant messaging: users from a CSV file log in over WebSocket with
//!   a protobuf `LoginRequest` (a refused login stops the user), send `ChatMessage`
//!   frames with a rising `seq`, assert the `message_id` of each `ChatAck`, and send a
//!   heartbeat whenever its interval has passed. The server decodes every frame with a
//!   wire-format reader written here, not with jmxr's protobuf code.
//! * `live_room/live_room.jmx`, a live-stream room: a WebSocket heartbeat, an event
//!   stream read with event-type and data filters, a gift list polled over HTTP, and
//!   gifts signed with HMAC-SHA256 over the sorted parameters and an HS256 JWT, which
//!   the server verifies (with `ring` and a JWT reader written here); a Switch
//!   Controller splits users into viewers and givers.

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

const ROOM: &str = "42";
const SIGN_SECRET: &str = "room-signing-secret";
const JWT_SECRET: &str = "a-jwt-secret-of-at-least-32-bytes";

fn hmac_sha256(key: &str, data: &[u8]) -> Vec<u8> {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, key.as_bytes());
    ring::hmac::sign(&key, data).as_ref().to_vec()
}

const BASE64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn base64url_decode(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes() {
        let value = BASE64URL
            .iter()
            .position(|b| *b == c)
            .unwrap_or_else(|| panic!("not base64url: {text}")) as u32;
        acc = (acc << 6) | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// Checks a gift request as the room's API does: the HMAC-SHA256 of the parameters
/// sorted by name in `X-Signature`, an HS256 JWT for the same user and room.
fn check_gift(request: &support::sse_server::Request) -> Result<String, String> {
    let body = String::from_utf8_lossy(&request.body).to_string();
    let mut params: Vec<(&str, &str)> = body
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .collect();
    params.sort();
    let param = |name: &str| {
        params
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_string())
            .unwrap_or_default()
    };
    let names: Vec<&str> = params.iter().map(|(n, _)| *n).collect();
    if names != ["count", "gift_id", "room_id", "ts", "uid"] {
        return Err(format!("parameters {names:?}"));
    }
    let canonical: Vec<String> = params.iter().map(|(n, v)| format!("{n}={v}")).collect();
    let expected: String = hmac_sha256(SIGN_SECRET, canonical.join("&").as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    if request.header("X-Signature") != Some(expected.as_str()) {
        return Err("bad signature".into());
    }
    let token = request
        .header("Authorization")
        .and_then(|a| a.strip_prefix("Bearer "))
        .ok_or("no bearer token")?;
    let parts: Vec<&str> = token.split('.').collect();
    let [header, claims, signature] = parts[..] else {
        return Err(format!("not a JWT: {token}"));
    };
    let signed = hmac_sha256(JWT_SECRET, format!("{header}.{claims}").as_bytes());
    if base64url_decode(signature) != signed {
        return Err("bad JWT signature".into());
    }
    let header: serde_json::Value =
        serde_json::from_slice(&base64url_decode(header)).map_err(|e| e.to_string())?;
    let claims: serde_json::Value =
        serde_json::from_slice(&base64url_decode(claims)).map_err(|e| e.to_string())?;
    let ts: u64 = param("ts").parse().map_err(|_| "ts")?;
    let uid = param("uid");
    let expected_claims = serde_json::json!({
        "sub": uid, "room": ROOM, "iat": ts / 1000, "exp": ts / 1000 + 600,
    });
    if header["alg"] != "HS256" || claims != expected_claims {
        return Err(format!("JWT {header} {claims}"));
    }
    if param("room_id") != ROOM || param("gift_id") != "rose" || param("count") != "1" {
        return Err(format!("gift {params:?}"));
    }
    Ok(uid)
}

/// The room's event stream: likes, entrances and chat messages, in turn.
fn room_events() -> support::sse_server::Script {
    use support::sse_server::{send, wait, Script};
    let mut steps = Vec::new();
    for i in 0..200 {
        steps.push(send(&format!(
            "event: like\ndata: {{\"count\":{}}}\nid: {}\n\n\
             event: entrance\ndata: {{\"uid\":\"v{i}\"}}\nid: {}\n\n\
             event: chat\ndata: {{\"room_id\":{ROOM},\"from\":\"v{i}\",\"text\":\"msg {i}\"}}\nid: {}\n\n",
            i % 5 + 1,
            i * 3 + 1,
            i * 3 + 2,
            i * 3 + 3
        )));
        steps.push(wait(5));
    }
    Script::stream(steps)
}

/// Runs the live-room plan with `users` and `rounds`; the gift checks the server made.
fn run_room(
    users: usize,
    rounds: usize,
    sign_secret: &str,
) -> (
    support::Jtl,
    app_ws_server::AppWsServer,
    support::sse_server::SseServer,
    Vec<Result<String, String>>,
) {
    use std::sync::{Arc, Mutex};
    use support::sse_server::Script;
    let gifts: Arc<Mutex<Vec<Result<String, String>>>> = Arc::default();
    let seen = gifts.clone();
    let api = support::sse_server::serve(false, move |request, _| {
        let path = request.target.split('?').next().unwrap_or("");
        match (request.method.as_str(), path) {
            ("GET", "/api/v1/room/42/events") => room_events(),
            ("GET", "/api/v1/room/42/gifts") => Script::page(
                200,
                "OK",
                "application/json",
                r#"{"gifts":[{"id":"rose","price":1},{"id":"rocket","price":500}]}"#,
            ),
            ("POST", "/api/v1/room/42/gift") => {
                let checked = check_gift(request);
                let reply = match &checked {
                    Ok(_) => Script::page(200, "OK", "application/json", r#"{"status":"ok"}"#),
                    Err(_) => Script::page(
                        401,
                        "Unauthorized",
                        "application/json",
                        r#"{"status":"rejected"}"#,
                    ),
                };
                seen.lock().expect("gifts lock").push(checked);
                reply
            }
            _ => Script::page(404, "Not Found", "text/plain", ""),
        }
    });
    let ws = app_ws_server::serve(|_, _, received| {
        let heartbeat: serde_json::Value =
            serde_json::from_slice(&received.data).unwrap_or_default();
        let ack = serde_json::json!({"msg_type": "heartbeat_ack", "seq": heartbeat["seq"]});
        vec![Message::text(ack.to_string())]
    });
    let args = [
        format!("-Jroom.api_port={}", api.port),
        format!("-Jroom.ws_port={}", ws.port),
        format!("-Jroom.users={users}"),
        format!("-Jroom.rounds={rounds}"),
        format!("-Jroom.id={ROOM}"),
        format!("-Jroom.secret={sign_secret}"),
        format!("-Jroom.jwt_secret={JWT_SECRET}"),
        "-Jroom.poll_ms=30".to_string(),
        "-Jroom.poll_range_ms=10".to_string(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let jtl = run_fixture("live_room/live_room.jmx", &args);
    let gifts = gifts.lock().expect("gifts lock").clone();
    (jtl, ws, api, gifts)
}

#[test]
fn live_room_viewers_heartbeat_read_filtered_events_and_send_signed_gifts() {
    let (users, rounds) = (4, 3);
    let (jtl, ws, api, gifts) = run_room(users, rounds, SIGN_SECRET);

    for n in 1..=users {
        let thread = format!("viewers 1-{n}");
        let rows = jtl.rows_of(&thread);
        for row in &rows {
            assert_eq!(jtl.get(row, "success"), "true", "{row:?}");
        }
        let per_round: &[&str] = if n % 2 == 1 {
            &["heartbeat", "gift list", "send gift", "like events"]
        } else {
            &["heartbeat", "chat events", "gift list"]
        };
        let mut expected = vec!["connect", "events"];
        for _ in 0..rounds {
            expected.extend_from_slice(per_round);
        }
        expected.extend_from_slice(&["leave events", "leave"]);
        assert_eq!(jtl.labels_of(&thread), expected, "{thread}");
        // The stream starts with a like and an entrance before the first chat message.
        let first_read = rows
            .iter()
            .find(|r| {
                jtl.get(r, "label").ends_with(" events") && jtl.get(r, "label") != "leave events"
            })
            .expect("an event read");
        let skipped = if n % 2 == 1 {
            "1 event"
        } else {
            "1 event, 2 skipped"
        };
        assert_eq!(jtl.get(first_read, "responseMessage"), skipped, "{thread}");
    }

    // Every gift request passed the server's signature and token checks.
    let mut givers: Vec<String> = gifts
        .iter()
        .map(|g| g.clone().expect("gift accepted"))
        .collect();
    givers.sort();
    let expected: Vec<String> = ["u1", "u3"]
        .iter()
        .flat_map(|u| std::iter::repeat_n(u.to_string(), rounds))
        .collect();
    assert_eq!(givers, expected);

    // One WebSocket per user, a heartbeat per round, closed with 1000.
    let connections = ws.connections();
    assert_eq!(connections.len(), users);
    for connection in &connections {
        let uid = connection.query("uid").expect("uid").to_string();
        assert_eq!(connection.query("room_id"), Some(ROOM));
        let seqs: Vec<serde_json::Value> = connection
            .messages
            .iter()
            .map(|m| {
                let heartbeat: serde_json::Value =
                    serde_json::from_slice(&m.data).expect("JSON heartbeat");
                assert_eq!(heartbeat["msg_type"], "heartbeat");
                assert_eq!(heartbeat["uid"], uid.as_str());
                heartbeat["seq"].clone()
            })
            .collect();
        let counted: Vec<serde_json::Value> = (1..=rounds).map(|n| n.into()).collect();
        assert_eq!(seqs, counted, "{uid}");
        assert_eq!(connection.close_code, Some(1000));
    }

    // One event stream per user, with the plan's headers.
    let streams = api.requests_to("/api/v1/room/42/events");
    assert_eq!(streams.len(), users);
    for stream in &streams {
        assert_eq!(stream.header("Accept"), Some("text/event-stream"));
        assert_eq!(stream.header("X-Client"), Some("live-room-load"));
    }
}

#[test]
fn live_room_gifts_signed_with_the_wrong_secret_are_refused() {
    let (jtl, _ws, _api, gifts) = run_room(1, 1, "not-the-secret");
    assert_eq!(gifts, [Err("bad signature".to_string())]);
    let row = jtl.one("send gift");
    assert_eq!(jtl.get(row, "responseCode"), "401");
    assert_eq!(jtl.get(row, "success"), "false");
}

#[test]
fn check_accepts_the_live_room_plan() {
    check_passes("live_room/live_room.jmx", &[]);
}
