//! Request payloads of the WebSocket samplers: binary data in the plugin's hex notation
//! (`0xca 0xfe` or `cafe`, read by the Binary Response Assertion's helpers), its STOMP
//! shorthand, data files, and bytes a script left in
//! an object variable (`vars.putObject("payload", blob)` sent by a Binary sampler whose
//! request data is `${payload}`).

use crate::user_state::Variables;

pub use crate::plan::assertions::{format_binary, parse_binary};

/// The name in a request data that is one plain variable reference (`${payload}`),
/// whose value may be bytes a script stored.
pub fn single_variable(raw: &str) -> Option<&str> {
    let name = raw.strip_prefix("${")?.strip_suffix('}')?;
    let plain = !name.is_empty() && !name.contains(['{', '}', '(', ')', '$']);
    plain.then_some(name)
}

/// The bytes of an object variable, when a script stored bytes under `name` (a Rhai
/// blob, or raw bytes from native code).
pub fn object_bytes(vars: &Variables, name: &str) -> Option<Vec<u8>> {
    let object = &vars.get_object(name)?.0;
    if let Some(bytes) = object.downcast_ref::<Vec<u8>>() {
        return Some(bytes.clone());
    }
    if let Some(bytes) = object.downcast_ref::<bytes::Bytes>() {
        return Some(bytes.to_vec());
    }
    let value = object.downcast_ref::<rhai::Dynamic>()?;
    value.read_lock::<rhai::Blob>().map(|blob| blob.to_vec())
}

/// The STOMP payload type's shorthand: `^@` stands for the NUL that ends a frame.
pub fn stomp(text: &str) -> String {
    text.replace("^@", "\0")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_request_data_of_one_variable_may_name_script_bytes() {
        assert_eq!(single_variable("${payload}"), Some("payload"));
        assert_eq!(single_variable("${__time()}"), None);
        assert_eq!(single_variable("x${payload}"), None);
        let mut vars = Variables::new();
        let blob: rhai::Blob = vec![0, 1, 0xff];
        vars.put_object(
            "payload",
            crate::user_state::VariableObject(Arc::new(rhai::Dynamic::from_blob(blob))),
        );
        assert_eq!(object_bytes(&vars, "payload"), Some(vec![0, 1, 0xff]));
        vars.put_object("raw", crate::user_state::VariableObject(Arc::new(vec![7u8, 8])));
        assert_eq!(object_bytes(&vars, "raw"), Some(vec![7, 8]));
        vars.put("text", "0xca");
        assert_eq!(object_bytes(&vars, "text"), None);
    }
}
