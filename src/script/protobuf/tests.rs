//! The Rhai API and the translation of generated-Java code, on the `.proto` file of the
//! protobuf fixtures (`jmx-fixtures/scripts/protos/im.proto`).

use std::sync::Arc;

use rhai::{Dynamic, Scope};

use super::{load, Schema};
use crate::foundation::properties::Properties;
use crate::script::bindings::{with_call, CallState};
use crate::script::translate::{translate_with, SourceLanguage};
use crate::user_state::ThreadInfo;
use crate::user_state::Variables;

fn schema() -> Arc<Schema> {
    let plan_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("jmx-fixtures/scripts");
    load::load("protos", &plan_dir).expect("the fixture's .proto compiles")
}

/// Runs Rhai with the fixture's schema; returns the value (or error) and the variables.
fn run(rhai: &str) -> (Result<Dynamic, String>, Variables) {
    let ast = crate::script::engine::compile(SourceLanguage::Rhai, rhai)
        .unwrap_or_else(|e| panic!("{e}\n{rhai}"));
    let mut vars = Variables::new();
    vars.put("room", "7");
    let mut state = CallState::new(
        vars,
        Properties::new(),
        ThreadInfo::default(),
        Arc::from("test"),
    );
    state.protobuf = Some(schema());
    let (out, state) = with_call(state, || {
        let mut scope = Scope::new();
        crate::script::program::push_bindings(&mut scope);
        crate::script::engine::engine()
            .eval_ast_with_scope::<Dynamic>(&mut scope, &ast)
            .map_err(|e| e.to_string())
    });
    (out, state.vars)
}

fn groovy(source: &str) -> String {
    let translation = translate_with(SourceLanguage::Groovy, source, Some(schema()));
    assert!(
        translation.problems.is_empty(),
        "{:?}\n{}",
        translation.problems,
        translation.rhai
    );
    translation.rhai
}

#[test]
fn a_map_encodes_to_the_bytes_protoc_would_write() {
    // Field 1 (string "a"), field 4 (int64 300), field 5 (enum TEXT = 1), field 8 (map
    // entry {"k": "v"}), field 12 (two strings), as protoc's encoder lays them out.
    let (out, _) = run(
        r#"let b = Protobuf::encode("ChatMessage", #{message_id: "a", room_id: 300, msg_type: "TEXT",
               extra: #{k: "v"}, tags: ["x", "y"]});
           b.encodeHex()"#,
    );
    assert_eq!(
        out.expect("runs").to_string(),
        "0a0161".to_owned() + "20ac02" + "2801" + "4206" + "0a016b120176" + "620178" + "620179"
    );
}

#[test]
fn decode_gives_every_field_with_defaults_and_unset_presence_as_unit() {
    let (out, _) = run(
        r#"let m = Protobuf::decode("im.v1.ChatMessage", Protobuf::encode("ChatMessage",
               #{seq: 9223372036854775807, content: "hi".getBytes(), attachments: [#{name: "a", size: 3}],
                 big: -1, ackStatus: 7}));
           `${m.seq}|${m.content.toStringUtf8()}|${m.attachments[0].size}|${m.big}|${m.ack_status}|${m.msg_type}|${m.message_id.len()}|${m.cover == ()}|${m.note == ()}|${m.tags.len()}`"#,
    );
    assert_eq!(
        out.expect("runs").to_string(),
        "9223372036854775807|hi|3|-1|7|HEARTBEAT|0|true|true|0"
    );
}

#[test]
fn json_follows_the_proto3_mapping_both_ways() {
    let (out, _) = run(
        r#"let json = Protobuf::to_json("ChatMessage", #{message_id: "m1", seq: 5, msg_type: 1, content: "hi".getBytes()});
           let back = Protobuf::decode("ChatMessage", Protobuf::from_json("ChatMessage", json));
           json + " " + back.seq + " " + back.msg_type"#,
    );
    assert_eq!(
        out.expect("runs").to_string(),
        r#"{"messageId":"m1","msgType":"TEXT","content":"aGk=","seq":"5"} 5 TEXT"#
    );
}

#[test]
fn bad_values_and_names_fail_with_the_field_named() {
    let (out, _) = run(r#"Protobuf::encode("ChatMessage", #{ack_status: 5000000000})"#);
    assert!(out
        .unwrap_err()
        .contains("out of range for field `ack_status`"));
    let (out, _) = run(r#"Protobuf::encode("ChatMessage", #{nope: 1})"#);
    assert!(out.unwrap_err().contains("has no field `nope`"));
    let (out, _) = run(r#"Protobuf::encode("ChatMessage", #{msg_type: "VIDEO"})"#);
    assert!(out.unwrap_err().contains("has no value `VIDEO`"));
    let (out, _) = run(r#"Protobuf::decode("Missing", blob())"#);
    assert!(out.unwrap_err().contains("no protobuf message `Missing`"));
}

#[test]
fn generated_java_builders_translate_and_round_trip() {
    let rhai = groovy(
        r#"import com.example.im.ImProto.ChatMessage
import com.example.im.ImProto.MsgType
import com.google.protobuf.ByteString
def builder = ImProto.ChatMessage.newBuilder()
    .setMessageId("m-1")
    .setRoomId(vars.get("room") as long)
    .setMsgType(MsgType.IMAGE)
    .setContent(ByteString.copyFromUtf8("héllo"))
    .putExtra("trace", "t1")
    .addTags("a")
    .addAllTags(["b", "c"])
    .addAttachments(Attachment.newBuilder().setName("pic").setSize(12).build())
    .setCover(Attachment.newBuilder().setName("cover"))
builder.setSeq(42L)
byte[] bytes = builder.build().toByteArray()
vars.putObject("request_payload", bytes)
ChatMessage msg = ChatMessage.parseFrom(vars.getObject("request_payload"))
def names = []
for (Attachment a : msg.getAttachmentsList()) { names.add(a.getName() + ":" + a.getSize()) }
vars.put("summary", [msg.getMessageId(), msg.getRoomId(), msg.getMsgType(), msg.getMsgTypeValue(),
    msg.getContent().toStringUtf8(), msg.getExtraMap().get("trace"), msg.getExtraOrDefault("none", "d"),
    msg.getTagsCount(), msg.getTags(2), names.join(","), msg.getCover().getName(), msg.hasCover(),
    msg.getSeq(), msg.messageId, msg.getMsgType() == MsgType.IMAGE, MsgType.TEXT.getNumber(),
    msg.containsExtra("trace"), msg.toBuilder().clearTags().build().getTagsList().size()].join("|"))
"#,
    );
    let (out, vars) = run(&rhai);
    if let Err(e) = out {
        panic!("{e}\n{rhai}");
    }
    assert_eq!(
        vars.get("summary"),
        Some("m-1|7|IMAGE|2|héllo|t1|d|3|c|pic:12|cover|true|42|m-1|true|1|true|0"),
        "{rhai}"
    );
    let stored = vars.get_object("request_payload").expect("stored");
    assert!(
        stored.bytes().is_some_and(|b| !b.is_empty()),
        "bytes as a blob"
    );
}

#[test]
fn what_cannot_be_mapped_is_reported() {
    let translation = translate_with(
        SourceLanguage::Groovy,
        "def m = ChatMessage.parseFrom(b)\nm.getUnknownFields()\ndef x = Unknown.newBuilder().build()",
        Some(schema()),
    );
    let problems: Vec<String> = translation
        .problems
        .iter()
        .map(|p| format!("{}: {}", p.line, p.construct))
        .collect();
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("2: `getUnknownFields()`")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("3: `Unknown.newBuilder`: no protobuf message")),
        "{problems:?}"
    );
    let without = translate_with(SourceLanguage::Groovy, "ChatMessage.newBuilder()", None);
    assert!(
        without.problems[0].construct.contains("jmxr.protobuf.path"),
        "{:?}",
        without.problems
    );
}
