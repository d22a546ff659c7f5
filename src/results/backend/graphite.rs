//! JMeter's `GraphiteBackendListenerClient` with its plaintext sender: every send
//! writes `<prefix><context>.<metric> <value> <epoch seconds>` lines, where the context
//! is a label (backslashes and spaces made `-`, dots `_`), `all` for the whole run, or
//! `test` for the users metrics. The metric names (`ok.count`, `ko.count`, `a.count`,
//! `h.count`, `sb.bytes`, `rb.bytes`, `ok.min`, `a.pct90`, ...), their order and number
//! formats are JMeter's.

use std::fmt::Write as _;

use super::metric::{Snapshot, Users, Window};
use super::{Parameters, Percentile};
use crate::foundation::java_format::java_double;

/// What the client reads from its parameters when the test starts.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphiteSettings {
    pub host: String,
    pub port: u16,
    /// `rootMetricsPrefix`, `jmeter.` by default (written as given: it carries its dot).
    pub prefix: String,
    pub summary_only: bool,
    /// `samplersList`: a regular expression the whole label must match, or names
    /// separated by `;`.
    pub samplers_list: String,
    pub use_regexp: bool,
    pub percentiles: Vec<Percentile>,
    /// `graphiteMetricsSender` names the pickle protocol, which is not written.
    pub pickle: bool,
}

impl GraphiteSettings {
    /// Reads the parameters as `setupTest` does; problems are returned for a warning.
    pub fn read(params: &Parameters, problems: &mut Vec<String>) -> GraphiteSettings {
        let port = match params.get("graphitePort") {
            None => 2003,
            Some(text) => text.trim().parse().unwrap_or_else(|_| {
                problems.push(format!("graphitePort {text:?} is not a port; 2003 is used"));
                2003
            }),
        };
        // A missing `percentiles` reads the prefix's default (`jmeter.`), which is not a
        // number: JMeter logs it and sends no percentile.
        let percentiles = params.get("percentiles").unwrap_or("jmeter.");
        GraphiteSettings {
            host: params.get("graphiteHost").unwrap_or("").trim().to_string(),
            port,
            prefix: params
                .get("rootMetricsPrefix")
                .unwrap_or("jmeter.")
                .to_string(),
            summary_only: params.flag("summaryOnly", true),
            samplers_list: params.get("samplersList").unwrap_or("").to_string(),
            use_regexp: params.flag("useRegexpForSamplersList", false),
            percentiles: Percentile::list(percentiles, problems),
            pickle: params
                .get("graphiteMetricsSender")
                .is_some_and(|s| s.trim().ends_with("PickleGraphiteMetricsSender")),
        }
    }
}

/// `sanitizeString`: backslashes and spaces become `-`, dots `_`.
pub fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\\' | ' ' => '-',
            '.' => '_',
            c => c,
        })
        .collect()
}

/// Builds the lines of one send, all stamped with the same second.
pub struct GraphiteLines<'a> {
    settings: &'a GraphiteSettings,
    seconds: i64,
    out: String,
}

impl<'a> GraphiteLines<'a> {
    pub fn new(settings: &'a GraphiteSettings, now_ms: i64) -> GraphiteLines<'a> {
        GraphiteLines {
            settings,
            seconds: now_ms.div_euclid(1000),
            out: String::new(),
        }
    }

    pub fn finish(self) -> String {
        self.out
    }

    fn line(&mut self, context: &str, metric: &str, value: impl std::fmt::Display) {
        let _ = writeln!(
            self.out,
            "{}{context}.{metric} {value} {}",
            self.settings.prefix, self.seconds
        );
    }

    /// A label's metrics; `None` is the run's cumulated metrics (context `all`).
    pub fn metrics(&mut self, label: Option<&str>, metric: &Snapshot) {
        if metric.total() <= 0 {
            return;
        }
        let context = label.map_or_else(|| "all".to_string(), sanitize);
        self.line(&context, "ok.count", metric.successes);
        self.line(&context, "ko.count", metric.failures);
        self.line(&context, "a.count", metric.total());
        self.line(&context, "h.count", metric.hits);
        self.line(&context, "sb.bytes", metric.sent_bytes);
        self.line(&context, "rb.bytes", metric.received_bytes);
        if metric.successes > 0 {
            self.times(&context, "ok", &metric.ok, &metric.ok);
        }
        if metric.failures > 0 {
            self.times(&context, "ko", &metric.ko, &metric.ko);
        }
        self.times(&context, "a", &metric.all, &metric.pct);
    }

    fn times(&mut self, context: &str, kind: &str, times: &Window, pct: &Window) {
        self.line(context, &format!("{kind}.min"), java_double(times.min()));
        self.line(context, &format!("{kind}.max"), java_double(times.max()));
        self.line(context, &format!("{kind}.avg"), java_double(times.mean()));
        let ps: Vec<f32> = self.settings.percentiles.iter().map(|p| p.value).collect();
        let values = pct.percentiles(&ps);
        for (p, value) in self.settings.percentiles.iter().zip(values) {
            let name = format!("{kind}.pct{}", sanitize(&p.key));
            self.line(context, &name, java_double(value));
        }
    }

    /// The `test` context: active users over the window, users started and ended.
    pub fn users(&mut self, users: Users) {
        self.line("test", "minAT", users.min_active);
        self.line("test", "maxAT", users.max_active);
        self.line("test", "meanAT", users.mean_active);
        self.line("test", "startedT", users.started);
        self.line("test", "endedT", users.finished);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::metric::{SamplerMetric, UserMetric, WindowMode, WindowSettings};
    use super::*;
    use crate::sample::SampleResult;

    fn read(params: &[(&str, &str)]) -> (GraphiteSettings, Vec<String>) {
        let params = Parameters::new(
            params
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
        );
        let mut problems = Vec::new();
        (GraphiteSettings::read(&params, &mut problems), problems)
    }

    #[test]
    fn lines_carry_jmeters_names_and_the_second() {
        let (settings, problems) = read(&[
            ("graphiteHost", "127.0.0.1"),
            ("rootMetricsPrefix", "perf."),
            ("percentiles", "90;99.5"),
        ]);
        assert!(problems.is_empty(), "{problems:?}");
        let mut metric = SamplerMetric::new(WindowSettings::default());
        for (elapsed, ok) in [(10, true), (30, true), (5, false)] {
            let mut s = SampleResult::new(Arc::from("Log in.v2"));
            s.elapsed = elapsed;
            s.set_success(ok);
            s.sent_bytes = 1;
            s.bytes_override = 2;
            metric.add(&s, false);
        }
        let mut lines = GraphiteLines::new(&settings, 1_700_000_001_999);
        lines.metrics(Some("Log in.v2"), &metric.take_interval(WindowMode::Fixed));
        lines.users(UserMetric::new(WindowSettings::default()).users(4, 0));
        let text = lines.finish();
        let expected = "\
perf.Log-in_v2.ok.count 2 1700000001
perf.Log-in_v2.ko.count 1 1700000001
perf.Log-in_v2.a.count 3 1700000001
perf.Log-in_v2.h.count 3 1700000001
perf.Log-in_v2.sb.bytes 3 1700000001
perf.Log-in_v2.rb.bytes 6 1700000001
perf.Log-in_v2.ok.min 10.0 1700000001
perf.Log-in_v2.ok.max 30.0 1700000001
perf.Log-in_v2.ok.avg 20.0 1700000001
perf.Log-in_v2.ok.pct90 30.0 1700000001
perf.Log-in_v2.ok.pct99_5 30.0 1700000001
perf.Log-in_v2.ko.min 5.0 1700000001
perf.Log-in_v2.ko.max 5.0 1700000001
perf.Log-in_v2.ko.avg 5.0 1700000001
perf.Log-in_v2.ko.pct90 5.0 1700000001
perf.Log-in_v2.ko.pct99_5 5.0 1700000001
perf.Log-in_v2.a.min 5.0 1700000001
perf.Log-in_v2.a.max 30.0 1700000001
perf.Log-in_v2.a.avg 15.0 1700000001
perf.Log-in_v2.a.pct90 30.0 1700000001
perf.Log-in_v2.a.pct99_5 30.0 1700000001
perf.test.minAT 0 1700000001
perf.test.maxAT 0 1700000001
perf.test.meanAT 0 1700000001
perf.test.startedT 4 1700000001
perf.test.endedT 0 1700000001
";
        assert_eq!(text, expected);
    }

    #[test]
    fn defaults_are_jmeters() {
        let (settings, problems) = read(&[("graphiteHost", "h")]);
        assert_eq!(settings.port, 2003);
        assert_eq!(settings.prefix, "jmeter.");
        assert!(settings.summary_only);
        assert!(!settings.use_regexp);
        assert!(settings.percentiles.is_empty());
        assert_eq!(
            problems.len(),
            1,
            "the missing list reads `jmeter.`: {problems:?}"
        );
    }
}
