//! Keystore Configuration (`KeystoreConfig`): which entries of the client keystore an
//! HTTPS connection presents when the server asks for a certificate, and when the
//! keystore is read.
//!
//! The keystore itself is JSSE's, named by the Java system properties
//! `javax.net.ssl.keyStore`, `javax.net.ssl.keyStorePassword` and
//! `javax.net.ssl.keyStoreType` (`-D` or `-S`); `samplers::http::keystore` reads it.
//! This element narrows the key entries to an index range, names the variable holding
//! each user's alias and says whether the file is read when the test starts (`preload`)
//! or at the first HTTPS connection. It is a TestBean: its fields may hold `${...}`
//! expressions, evaluated once when the test starts ([`KeystoreConfig::settings`]). It
//! is run-wide in JMeter (its `testStarted` configures the one `SSLManager`), wherever
//! it sits in the tree; the last one in tree order wins.

use crate::plan::{BuildContext, Setting};
use crate::user_state::EvalContext;

/// JMeter property giving the start index when the field is empty or not a number.
const START_INDEX_PROPERTY: &str = "https.keyStoreStartIndex";
/// JMeter property giving the end index when the field is empty or not a number.
const END_INDEX_PROPERTY: &str = "https.keyStoreEndIndex";

/// The element as saved: its fields, still unevaluated.
#[derive(Debug, Clone)]
pub struct KeystoreConfig {
    start_index: Setting,
    end_index: Setting,
    alias_variable: Setting,
    preload: Setting,
}

/// The alias choice, as JMeter's `SSLManager.configureKeystore` receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeystoreSettings {
    /// First key entry to use, counting key entries from 0 (JMeter rejects a negative
    /// one when it creates the keystore).
    pub start_index: i64,
    /// Last key entry to use; `-1` for all from `start_index` on.
    pub end_index: i64,
    /// The variable whose value is the alias a user presents; empty to hand the entries
    /// out in turn, one per new TLS handshake.
    pub alias_variable: String,
    /// Read the keystore when the test starts rather than at the first HTTPS connection.
    pub preload: bool,
}

impl Default for KeystoreSettings {
    /// Without the element JMeter's `SSLManager` keeps its zero indexes (the first key
    /// entry only) and reads the keystore when the first HTTPS connection needs it.
    fn default() -> KeystoreSettings {
        KeystoreSettings {
            start_index: 0,
            end_index: 0,
            alias_variable: String::new(),
            preload: false,
        }
    }
}

impl KeystoreSettings {
    /// Whether the key entry at `index` (counting key entries only) is in the range.
    pub fn selects(&self, index: usize) -> bool {
        let index = index as i64;
        index >= self.start_index && (self.end_index == -1 || index <= self.end_index)
    }
}

/// Reads the element. A field the plan lacks takes the bean's default, as JMeter's
/// `TestBeanHelper` does: preload `True`, alias variable `certAlias`, indexes `0`/`-1`.
pub fn read(cx: &mut BuildContext<'_>) -> KeystoreConfig {
    KeystoreConfig {
        start_index: cx.setting("startIndex", "0"),
        end_index: cx.setting("endIndex", "-1"),
        alias_variable: cx.setting("clientCertAliasVarName", "certAlias"),
        preload: cx.setting("preload", "True"),
    }
}

impl KeystoreConfig {
    /// Evaluates the fields when the test starts, as `KeystoreConfig.testStarted` does:
    /// an empty or non-numeric index falls back to the property `https.keyStoreStartIndex`
    /// / `https.keyStoreEndIndex` (else 0 / -1) with a warning in `warnings`; a start
    /// after the end stops the test with JMeter's message (the `Err`).
    pub fn settings(
        &self,
        cx: &mut EvalContext<'_>,
        warnings: &mut Vec<String>,
    ) -> Result<KeystoreSettings, String> {
        let property = |cx: &EvalContext<'_>, name: &str, default: i64| -> i64 {
            cx.props
                .get(name)
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(default)
        };
        let mut start = property(cx, START_INDEX_PROPERTY, 0);
        let mut end = property(cx, END_INDEX_PROPERTY, -1);
        for (name, setting, slot) in [
            ("startIndex", &self.start_index, &mut start),
            ("endIndex", &self.end_index, &mut end),
        ] {
            let text = setting.text(cx);
            if text.is_empty() {
                continue;
            }
            // Java's Integer.parseInt: an optional sign and digits, no spaces.
            match text.parse::<i32>() {
                Ok(value) => *slot = i64::from(value),
                Err(_) => warnings.push(format!(
                    "Failed parsing {name}: {text}, will default to: {slot}"
                )),
            }
        }
        if end != -1 && start > end {
            return Err(
                "Keystore Config error : Alias start index must be lower than Alias end index"
                    .into(),
            );
        }
        Ok(KeystoreSettings {
            start_index: start,
            end_index: end,
            alias_variable: self.alias_variable.text(cx),
            // Boolean.parseBoolean: `true` in any case, nothing else.
            preload: self.preload.text(cx).eq_ignore_ascii_case("true"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::assertions::test_support::*;

    /// The settings of an element with `props`, evaluated with the run's `properties`.
    fn settle(
        props: Vec<crate::jmx::Property>,
        properties: &[(&str, &str)],
    ) -> (Result<KeystoreSettings, String>, Vec<String>) {
        let el = element("KeystoreConfig", "Keystore Configuration", props);
        let config = with_cx(&el, read);
        let mut user = user_with(1, properties);
        let mut warnings = Vec::new();
        let settings = config.settings(&mut user.eval(""), &mut warnings);
        (settings, warnings)
    }

    #[test]
    fn fields_are_expressions_evaluated_with_the_properties() {
        let (settings, warnings) = settle(
            vec![
                str_prop("startIndex", "${__P(first,9)}"),
                str_prop("endIndex", "${__P(last)}"),
                str_prop("clientCertAliasVarName", "${__P(var)}"),
                str_prop("preload", "${__P(early)}"),
            ],
            &[
                ("first", "1"),
                ("last", "2"),
                ("var", "who"),
                ("early", "TRUE"),
            ],
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            settings.unwrap(),
            KeystoreSettings {
                start_index: 1,
                end_index: 2,
                alias_variable: "who".into(),
                preload: true,
            }
        );
    }

    #[test]
    fn absent_fields_take_the_beans_defaults() {
        let (settings, _) = settle(vec![], &[]);
        assert_eq!(
            settings.unwrap(),
            KeystoreSettings {
                start_index: 0,
                end_index: -1,
                alias_variable: "certAlias".into(),
                preload: true,
            }
        );
    }

    #[test]
    fn a_non_numeric_index_falls_back_to_the_property_with_a_warning() {
        let (settings, warnings) = settle(
            vec![
                str_prop("startIndex", "one"),
                str_prop("endIndex", ""),
                str_prop("preload", "yes"),
            ],
            &[("https.keyStoreStartIndex", "2")],
        );
        let settings = settings.unwrap();
        assert_eq!((settings.start_index, settings.end_index), (2, -1));
        assert!(!settings.preload);
        assert_eq!(
            warnings,
            ["Failed parsing startIndex: one, will default to: 2"]
        );
    }

    #[test]
    fn a_start_after_the_end_stops_the_test() {
        let (settings, _) = settle(
            vec![str_prop("startIndex", "3"), str_prop("endIndex", "1")],
            &[],
        );
        assert_eq!(
            settings.unwrap_err(),
            "Keystore Config error : Alias start index must be lower than Alias end index"
        );
    }
}
