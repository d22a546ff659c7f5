//! The Backend Listener: which client it names decides whether it runs. jmxr runs
//! JMeter's InfluxDB and Graphite clients (`results::backend`); any other client (the
//! raw InfluxDB client, third-party classes) is left out with a warning, as a listener
//! that only observes.

use crate::plan::tree::{BackendListenerSpec, GRAPHITE_CLIENT, INFLUXDB_CLIENT};
use crate::plan::BuildContext;

/// The listener's spec, or `None` (with a warning) when its client is not one jmxr runs.
pub(super) fn spec(cx: &mut BuildContext<'_>) -> Option<BackendListenerSpec> {
    let classname = cx.raw("classname").unwrap_or("").trim().to_string();
    if classname != INFLUXDB_CLIENT && classname != GRAPHITE_CLIENT {
        let short = classname.rsplit('.').next().unwrap_or(&classname);
        cx.warn(format!(
            "the Backend Listener client {short} is not supported, so this listener sends \
             nothing; jmxr runs InfluxdbBackendListenerClient and \
             GraphiteBackendListenerClient, and the .jtl holds every sample"
        ));
        return None;
    }
    let arguments = cx.arguments("arguments");
    Some(BackendListenerSpec {
        id: cx.id,
        path: cx.path.clone(),
        classname,
        arguments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::assertions::test_support::*;
    use crate::plan::Severity;

    #[test]
    fn only_jmeters_influxdb_and_graphite_clients_run() {
        let el = element(
            "BackendListener",
            "Backend Listener",
            vec![str_prop("classname", INFLUXDB_CLIENT)],
        );
        let (built, diagnostics) = build_with_diagnostics(&el, spec);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(built.expect("runs").classname, INFLUXDB_CLIENT);

        let el = element(
            "BackendListener",
            "Backend Listener",
            vec![str_prop(
                "classname",
                "rocks.nt.apm.jmeter.JMeterInfluxDBBackendListenerClient",
            )],
        );
        let (built, diagnostics) = build_with_diagnostics(&el, spec);
        assert!(built.is_none());
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].severity, Severity::Warning);
        assert!(diagnostics[0]
            .message
            .contains("JMeterInfluxDBBackendListenerClient"));
    }
}
