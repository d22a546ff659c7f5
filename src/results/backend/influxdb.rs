//! JMeter's `InfluxdbBackendListenerClient`: every send writes, in InfluxDB's line
//! protocol, one point per label and status (`statut` = `all`, `ok`, `ko`) with `count`,
//! `avg`, `min`, `max`, `hit`, `sb`, `rb` and `pct<P>` fields, one point per label and
//! error (`responseCode`, `responseMessage`, `count`), the run's cumulated point
//! (`transaction=all`, with `countError`), the `internal` users point, and at the start
//! and the end the `events` annotation Grafana shows. Tags, escaping, field names and
//! number formats are JMeter's, so dashboards written for JMeter read these unchanged.

use std::fmt::Write as _;

use super::metric::{Snapshot, Users};
use super::{Parameters, Percentile};
use crate::foundation::java_format::java_double;

/// What the client reads from its parameters when the test starts.
#[derive(Debug, Clone, PartialEq)]
pub struct InfluxSettings {
    /// `influxdbUrl`: the write URL (HTTP) or `host:port` (UDP sender).
    pub url: String,
    /// `influxdbMetricsSender` names the UDP sender.
    pub udp: bool,
    /// `influxdbToken`, sent as `Authorization: Token …` when not blank (InfluxDB 2).
    pub token: Option<String>,
    pub application: String,
    pub measurement: String,
    pub summary_only: bool,
    pub samplers_regex: String,
    pub percentiles: Vec<Percentile>,
    pub test_title: String,
    pub event_tags: String,
    /// `,name=value` for every `TAG_name` parameter with a value.
    pub user_tags: String,
}

impl InfluxSettings {
    /// Reads the parameters as `setupTest` does; problems (a percentile that is not a
    /// number) are returned for a warning.
    pub fn read(params: &Parameters, problems: &mut Vec<String>) -> InfluxSettings {
        let sender = params.get("influxdbMetricsSender").unwrap_or("");
        let user_tags = params
            .iter()
            .filter(|(name, value)| name.starts_with("TAG_") && !value.trim().is_empty())
            .map(|(name, value)| format!(",{}={}", tag(&name.trim()[4..]), tag(value.trim())))
            .collect();
        InfluxSettings {
            url: params.get("influxdbUrl").unwrap_or("").trim().to_string(),
            udp: sender.trim().ends_with("UdpMetricsSender"),
            token: params
                .get("influxdbToken")
                .filter(|t| !t.trim().is_empty())
                .map(str::to_string),
            application: tag(params.get("application").unwrap_or("")),
            measurement: tag(params.get("measurement").unwrap_or("jmeter")),
            summary_only: params.flag("summaryOnly", false),
            samplers_regex: params.get("samplersRegex").unwrap_or("").to_string(),
            percentiles: Percentile::list(params.get("percentiles").unwrap_or(""), problems),
            test_title: params.get("testTitle").unwrap_or("Test").to_string(),
            event_tags: tag(params.get("eventTags").unwrap_or("")),
            user_tags,
        }
    }
}

/// `tagToStringValue`: trimmed, with spaces, commas, equals signs and newlines escaped.
pub fn tag(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.trim().chars() {
        match c {
            ' ' | ',' | '=' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out
}

/// `fieldToStringValue`: trimmed, with double quotes escaped.
fn field_text(text: &str) -> String {
    text.trim().replace('"', "\\\"")
}

/// Builds the lines of one send, each stamped with the time it was made.
pub struct InfluxLines<'a> {
    settings: &'a InfluxSettings,
    out: String,
}

impl<'a> InfluxLines<'a> {
    pub fn new(settings: &'a InfluxSettings) -> InfluxLines<'a> {
        InfluxLines {
            settings,
            out: String::new(),
        }
    }

    pub fn finish(self) -> String {
        self.out
    }

    fn line(&mut self, measurement: &str, tags: &str, fields: &str, now_ms: i64) {
        let _ = writeln!(self.out, "{measurement}{tags} {fields} {now_ms}000000");
    }

    /// The `events` annotation at the start or the end of the test.
    pub fn annotation(&mut self, start: bool, now_ms: i64) {
        let s = self.settings;
        let mut tags = format!(
            ",application={},title=ApacheJMeter{}",
            s.application, s.user_tags
        );
        if !s.event_tags.is_empty() {
            let _ = write!(tags, ",tags={}", s.event_tags);
        }
        let when = if start { " started" } else { " ended" };
        let fields = format!(
            "text=\"{}\"",
            field_text(&format!("{}{when}", s.test_title))
        );
        self.line("events", &tags, &fields, now_ms);
    }

    /// The `all`, `ok` and `ko` points of one label, then its errors.
    pub fn label(&mut self, label: &str, metric: &Snapshot, now_ms: i64) {
        let transaction = tag(label);
        let windows = [
            ("all", metric.total(), &metric.all, &metric.pct),
            ("ok", metric.successes, &metric.ok, &metric.ok),
            ("ko", metric.failures, &metric.ko, &metric.ko),
        ];
        for (status, count, times, pct) in windows {
            if count <= 0 {
                continue;
            }
            let s = self.settings;
            let tags = format!(
                ",application={},transaction={transaction},statut={status}{}",
                s.application, s.user_tags
            );
            let mut fields = format!("count={count}");
            push_times(&mut fields, times.mean(), times.min(), times.max());
            let _ = write!(
                fields,
                ",hit={},sb={},rb={}",
                metric.hits, metric.sent_bytes, metric.received_bytes
            );
            push_percentiles(&mut fields, &self.settings.percentiles, pct);
            self.line(&s.measurement, &tags, &fields, now_ms);
        }
        for (code, message, count) in &metric.errors {
            if *count <= 0 {
                continue;
            }
            let s = self.settings;
            let tags = format!(
                ",application={},transaction={transaction},responseCode={},responseMessage={}{}",
                s.application,
                tag(code),
                tag(message),
                s.user_tags
            );
            self.line(&s.measurement, &tags, &format!("count={count}"), now_ms);
        }
    }

    /// The run's cumulated point: its times are those of the successful samples, its
    /// percentiles those of all.
    pub fn cumulated(&mut self, metric: &Snapshot, now_ms: i64) {
        let total = metric.total();
        if total <= 0 {
            return;
        }
        let s = self.settings;
        let tags = format!(
            ",application={},transaction=all,statut=all{}",
            s.application, s.user_tags
        );
        let mut fields = format!("count={total},countError={}", metric.failures);
        push_times(
            &mut fields,
            metric.ok.mean(),
            metric.ok.min(),
            metric.ok.max(),
        );
        let _ = write!(
            fields,
            ",hit={},sb={},rb={}",
            metric.hits, metric.sent_bytes, metric.received_bytes
        );
        push_percentiles(&mut fields, &s.percentiles, &metric.pct);
        self.line(&s.measurement, &tags, &fields, now_ms);
    }

    /// The `internal` point: active users over the window, users started and ended.
    pub fn users(&mut self, users: Users, now_ms: i64) {
        let s = self.settings;
        let tags = format!(
            ",application={},transaction=internal{}",
            s.application, s.user_tags
        );
        let fields = format!(
            "minAT={},maxAT={},meanAT={},startedT={},endedT={}",
            users.min_active, users.max_active, users.mean_active, users.started, users.finished
        );
        self.line(&s.measurement, &tags, &fields, now_ms);
    }
}

/// `avg`, `min` and `max`, each left out when its window is empty.
fn push_times(fields: &mut String, mean: f64, min: f64, max: f64) {
    for (name, value) in [("avg", mean), ("min", min), ("max", max)] {
        if !value.is_nan() {
            let _ = write!(fields, ",{name}={}", java_double(value));
        }
    }
}

/// `pct<P>=value` for each percentile, `P` written as Java writes the float.
fn push_percentiles(
    fields: &mut String,
    percentiles: &[Percentile],
    window: &super::metric::Window,
) {
    let ps: Vec<f32> = percentiles.iter().map(|p| p.value).collect();
    for (p, value) in percentiles.iter().zip(window.percentiles(&ps)) {
        let _ = write!(fields, ",pct{}={}", p.float_text, java_double(value));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::metric::{SamplerMetric, UserMetric, WindowMode, WindowSettings};
    use super::*;
    use crate::sample::SampleResult;

    fn settings(params: &[(&str, &str)]) -> InfluxSettings {
        let params = Parameters::new(
            params
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
        );
        let mut problems = Vec::new();
        let settings = InfluxSettings::read(&params, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        settings
    }

    fn sample(elapsed: i64, code: &str) -> SampleResult {
        let mut s = SampleResult::new(Arc::from("Home page"));
        s.elapsed = elapsed;
        s.set_success(code == "200");
        s.response_code = code.to_string().into();
        s.response_message = if code == "200" { "OK" } else { "Not Found" }.into();
        s.sent_bytes = 120;
        s.bytes_override = 1000;
        s
    }

    #[test]
    fn lines_are_jmeters_line_protocol() {
        let settings = settings(&[
            ("application", "shop front"),
            ("measurement", "jmeter"),
            ("percentiles", "90;99.9"),
            ("testTitle", "Nightly \"full\""),
            ("eventTags", "release,v2"),
            ("TAG_region", "eu west"),
            ("TAG_empty", " "),
        ]);
        let mut label = SamplerMetric::new(WindowSettings::default());
        let mut total = SamplerMetric::new(WindowSettings::default());
        for s in [sample(100, "200"), sample(300, "200"), sample(50, "404")] {
            label.add(&s, false);
            total.add(&s, true);
        }
        let mut users = UserMetric::new(WindowSettings::default());
        [2, 4, 4].into_iter().for_each(|n| users.add(n));
        let mut lines = InfluxLines::new(&settings);
        lines.annotation(true, 1_700_000_000_123);
        lines.label(
            "Home page",
            &label.take_interval(WindowMode::Fixed),
            1_700_000_005_000,
        );
        lines.cumulated(&total.take_interval(WindowMode::Fixed), 1_700_000_005_000);
        lines.users(users.users(5, 1), 1_700_000_005_000);
        let expected = [
            "events,application=shop\\ front,title=ApacheJMeter,region=eu\\ west,tags=release\\,v2 text=\"Nightly \\\"full\\\" started\" 1700000000123000000",
            "jmeter,application=shop\\ front,transaction=Home\\ page,statut=all,region=eu\\ west count=3,avg=150.0,min=50.0,max=300.0,hit=3,sb=360,rb=3000,pct90.0=300.0,pct99.9=300.0 1700000005000000000",
            "jmeter,application=shop\\ front,transaction=Home\\ page,statut=ok,region=eu\\ west count=2,avg=200.0,min=100.0,max=300.0,hit=3,sb=360,rb=3000,pct90.0=300.0,pct99.9=300.0 1700000005000000000",
            "jmeter,application=shop\\ front,transaction=Home\\ page,statut=ko,region=eu\\ west count=1,avg=50.0,min=50.0,max=50.0,hit=3,sb=360,rb=3000,pct90.0=50.0,pct99.9=50.0 1700000005000000000",
            "jmeter,application=shop\\ front,transaction=Home\\ page,responseCode=404,responseMessage=Not\\ Found,region=eu\\ west count=1 1700000005000000000",
            "jmeter,application=shop\\ front,transaction=all,statut=all,region=eu\\ west count=3,countError=1,avg=200.0,min=100.0,max=300.0,hit=3,sb=360,rb=3000,pct90.0=300.0,pct99.9=300.0 1700000005000000000",
            "jmeter,application=shop\\ front,transaction=internal,region=eu\\ west minAT=2,maxAT=4,meanAT=3,startedT=5,endedT=1 1700000005000000000",
        ];
        let text = lines.finish();
        assert_eq!(text.lines().collect::<Vec<_>>(), expected);
    }

    #[test]
    fn defaults_follow_jmeter_when_parameters_are_missing() {
        let settings = settings(&[("influxdbUrl", " http://127.0.0.1:8086/write?db=jmeter ")]);
        assert_eq!(settings.url, "http://127.0.0.1:8086/write?db=jmeter");
        assert_eq!(settings.measurement, "jmeter");
        assert_eq!(settings.test_title, "Test");
        assert!(!settings.summary_only);
        assert!(!settings.udp);
        assert!(settings.percentiles.is_empty());
        assert_eq!(settings.token, None);
    }
}
