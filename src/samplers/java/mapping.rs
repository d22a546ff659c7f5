//! The Java Request class table: which native implementation runs a Java client class.
//!
//! jmxr cannot load Java classes, so a Java Request runs only when its class name maps
//! to something jmxr implements. The table ships with JMeter's own `JavaTest` and
//! `SleepTest` and with the UDP sender contract under `com.demo.udp.UdpSampler` (the
//! class teams write for UDP load, see `samplers::udp::sender`). Users map their own
//! classes with a property, `jmxr.java.<class>=<implementation>` (`-J` on the command
//! line or a line in `user.properties`); a property beats the shipped entry, so a
//! shipped name can be pointed elsewhere too.
//!
//! The table is read when the plan is built (the plan sees the command line's
//! properties), so an unmapped class is a plan error before any user starts.

use std::collections::HashMap;

/// The prefix of the properties that map a class: `jmxr.java.com.acme.Sender=udp`.
pub const PROPERTY_PREFIX: &str = "jmxr.java.";

/// A native implementation a Java Request class can map to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Native {
    /// JMeter's configurable dummy sampler.
    JavaTest,
    /// JMeter's plain sleeping sampler.
    SleepTest,
    /// One UDP datagram per sample (`host`, `port`, `message`, `intervalMs`, `packetSize`).
    Udp,
}

impl Native {
    /// Every implementation with the name a property uses for it.
    pub const ALL: [(&'static str, Native); 3] = [
        ("udp", Native::Udp),
        ("JavaTest", Native::JavaTest),
        ("SleepTest", Native::SleepTest),
    ];

    /// The implementation a property value names (case does not matter).
    pub fn by_name(name: &str) -> Option<Native> {
        let name = name.trim();
        Native::ALL
            .iter()
            .find(|(known, _)| known.eq_ignore_ascii_case(name))
            .map(|(_, native)| *native)
    }

    /// The names a property value may take, for messages.
    pub fn names() -> String {
        Native::ALL
            .iter()
            .map(|(name, _)| *name)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The classes jmxr maps without any property.
pub const SHIPPED: [(&str, Native); 3] = [
    (super::JAVA_TEST, Native::JavaTest),
    (super::SLEEP_TEST, Native::SleepTest),
    ("com.demo.udp.UdpSampler", Native::Udp),
];

/// Why a class could not be mapped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unmapped {
    /// No shipped entry and no property.
    Unknown,
    /// The property names an implementation jmxr does not have.
    BadProperty { value: String },
}

/// The implementation for `class`: a `jmxr.java.<class>` property first, then the
/// shipped table.
pub fn resolve(class: &str, properties: &HashMap<String, String>) -> Result<Native, Unmapped> {
    if let Some(value) = properties.get(&property_name(class)) {
        return Native::by_name(value).ok_or_else(|| Unmapped::BadProperty {
            value: value.clone(),
        });
    }
    SHIPPED
        .iter()
        .find(|(name, _)| *name == class)
        .map(|(_, native)| *native)
        .ok_or(Unmapped::Unknown)
}

/// The property that maps `class`.
pub fn property_name(class: &str) -> String {
    format!("{PROPERTY_PREFIX}{class}")
}

/// The plan error for a class that does not map: names the class, lists the parameters
/// the plan gives it (so the user can see which implementation fits), and says which
/// property maps it.
pub fn unmapped_message(class: &str, why: &Unmapped, parameters: &[&str]) -> String {
    let listed = if parameters.is_empty() {
        "none".to_string()
    } else {
        parameters.join(", ")
    };
    let property = property_name(class);
    let cause = match why {
        Unmapped::Unknown => "has no native implementation in jmxr".to_string(),
        Unmapped::BadProperty { value } => {
            format!("is mapped by {property} to {value:?}, which is not an implementation")
        }
    };
    format!(
        "Java Request class {class:?} {cause} (parameters: {listed}); map it with the \
         property {property}=<implementation> (-J{property}=udp on the command line or \
         in user.properties), implementations: {}",
        Native::names()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_classes_map_without_properties() {
        let none = HashMap::new();
        assert_eq!(resolve("com.demo.udp.UdpSampler", &none), Ok(Native::Udp));
        assert_eq!(
            resolve(super::super::SLEEP_TEST, &none),
            Ok(Native::SleepTest)
        );
        assert_eq!(resolve("com.acme.Sender", &none), Err(Unmapped::Unknown));
    }

    #[test]
    fn a_property_maps_a_class_and_beats_the_shipped_entry() {
        let props = HashMap::from([
            ("jmxr.java.com.acme.Sender".to_string(), " UDP ".to_string()),
            (
                "jmxr.java.com.demo.udp.UdpSampler".to_string(),
                "sleeptest".to_string(),
            ),
            ("jmxr.java.com.acme.Bad".to_string(), "tcp".to_string()),
        ]);
        assert_eq!(resolve("com.acme.Sender", &props), Ok(Native::Udp));
        assert_eq!(
            resolve("com.demo.udp.UdpSampler", &props),
            Ok(Native::SleepTest)
        );
        assert_eq!(
            resolve("com.acme.Bad", &props),
            Err(Unmapped::BadProperty {
                value: "tcp".into()
            })
        );
    }

    #[test]
    fn the_message_names_class_parameters_and_property() {
        let message = unmapped_message("com.acme.X", &Unmapped::Unknown, &["host", "port"]);
        assert!(message.contains("\"com.acme.X\""), "{message}");
        assert!(message.contains("parameters: host, port"), "{message}");
        assert!(
            message.contains("jmxr.java.com.acme.X=<implementation>"),
            "{message}"
        );
        assert!(message.contains("udp, JavaTest, SleepTest"), "{message}");
    }
}
