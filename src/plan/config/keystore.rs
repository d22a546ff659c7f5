//! Keystore Configuration (`KeystoreConfig`): which entries of the client keystore an
//! HTTPS connection presents when the server asks for a certificate.
//!
//! The keystore itself is JSSE's, named by the Java system properties
//! `javax.net.ssl.keyStore`, `javax.net.ssl.keyStorePassword` and
//! `javax.net.ssl.keyStoreType` (`-D` or `-S`); `samplers::http::keystore` loads it
//! when the run starts. This element only narrows the key entries to an index range and
//! names the variable holding each user's alias. It is run-wide in JMeter (its
//! `testStarted` configures the one `SSLManager`), wherever it sits in the tree; the last
//! one in tree order wins.

use crate::plan::BuildContext;

/// The alias choice, as JMeter's `SSLManager.configureKeystore` receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeystoreSettings {
    /// First key entry to use, counting key entries from 0.
    pub start_index: usize,
    /// Last key entry to use; `None` for all from `start_index` on (JMeter's `-1`).
    pub end_index: Option<usize>,
    /// The variable whose value is the alias a user presents; empty to hand the entries
    /// out in turn, one per new TLS handshake.
    pub alias_variable: String,
}

impl Default for KeystoreSettings {
    /// Without the element JMeter's `SSLManager` keeps its zero indexes: the first key
    /// entry only.
    fn default() -> KeystoreSettings {
        KeystoreSettings {
            start_index: 0,
            end_index: Some(0),
            alias_variable: String::new(),
        }
    }
}

/// Reads the element. An index that is not a number keeps JMeter's default (the
/// properties `https.keyStoreStartIndex` / `https.keyStoreEndIndex`, else 0), as
/// `KeystoreConfig.testStarted` does after logging a warning.
pub fn read(cx: &mut BuildContext<'_>) -> KeystoreSettings {
    let property_default = |cx: &BuildContext<'_>, name: &str| -> i64 {
        cx.properties
            .get(name)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    };
    let mut start = property_default(cx, "https.keyStoreStartIndex");
    let mut end = property_default(cx, "https.keyStoreEndIndex");
    for (name, slot) in [("startIndex", &mut start), ("endIndex", &mut end)] {
        let text = cx.raw(name).unwrap_or("").trim().to_string();
        if text.is_empty() {
            continue;
        }
        match text.parse::<i64>() {
            Ok(value) => *slot = value,
            Err(_) => cx.warn(format!(
                "{name} '{text}' is not a number; {slot} is used, as JMeter does"
            )),
        }
    }
    if start < 0 || end < -1 {
        cx.error(format!(
            "Keystore Config error: invalid alias index(es), start={start}, end={end}"
        ));
    } else if end != -1 && start > end {
        // JMeter stops the test with this message.
        cx.error("Keystore Config error : Alias start index must be lower than Alias end index");
    }
    KeystoreSettings {
        start_index: start.max(0) as usize,
        end_index: (end >= 0).then_some(end as usize),
        alias_variable: cx
            .raw("clientCertAliasVarName")
            .unwrap_or("")
            .trim()
            .to_string(),
    }
}
