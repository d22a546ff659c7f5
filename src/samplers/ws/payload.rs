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

/// The bytes of an object variable, when a script stored bytes under `name` (scripts
/// store every kind of bytes as plain bytes: see `VariableObject::bytes`).
pub fn object_bytes(vars: &Variables, name: &str) -> Option<Vec<u8>> {
    vars.get_object(name)?.bytes().map(<[u8]>::to_vec)
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
        vars.put_object(
            "raw",
            crate::user_state::VariableObject(Arc::new(vec![7u8, 8])),
        );
        assert_eq!(object_bytes(&vars, "raw"), Some(vec![7, 8]));
        vars.put("text", "0xca");
        assert_eq!(object_bytes(&vars, "text"), None);
    }
}
