//! Pass/fail criteria written in Taurus' short form:
//!
//! `[message:] subject [of label] condition threshold [for|within|over timeframe][, stop|continue [as failed|non-failed]]`
//!
//! for example `avg-rt of Log in>150ms for 10s, stop as failed`, `p95>300ms`,
//! `fail>1%`, `rps<100 for 30s, continue as failed`. Times without a unit are seconds and
//! sizes without one bytes, as in Taurus; a criterion without a timeframe judges the
//! whole run at its end.

use std::fmt;

/// What a criterion measures.
#[derive(Debug, Clone, PartialEq)]
pub enum Subject {
    /// `avg-rt`: mean response time (ms).
    AvgRt,
    /// `avg-lt`: mean latency (ms).
    AvgLt,
    /// `avg-ct`: mean connect time (ms).
    AvgCt,
    /// `stdev-rt`: standard deviation of response times (ms).
    StdevRt,
    /// `p90`, `p99.9`: a percentile of response times (ms).
    Percentile(f64),
    /// `hits`: samples.
    Hits,
    /// `rps`: samples per second (jmxr's name for Taurus' per-second `hits`).
    Rps,
    /// `bytes`: received bytes.
    Bytes,
    /// `succ`, `success`: successful samples.
    Successes,
    /// `fail`, `failures`: failed samples.
    Failures,
    /// `rc<pattern>`: samples whose response code matches (`?` and `*` wildcards).
    ResponseCode(String),
    /// `concurrency`: active users.
    Concurrency,
}

impl Subject {
    fn parse(text: &str) -> Result<Subject, String> {
        Ok(match text {
            "avg-rt" => Subject::AvgRt,
            "avg-lt" => Subject::AvgLt,
            "avg-ct" => Subject::AvgCt,
            "stdev-rt" => Subject::StdevRt,
            "hits" => Subject::Hits,
            "rps" => Subject::Rps,
            "bytes" => Subject::Bytes,
            s if s.starts_with("succ") => Subject::Successes,
            s if s.starts_with("fail") => Subject::Failures,
            s if s.starts_with("concurr") => Subject::Concurrency,
            s if s.starts_with("rc") && s.len() > 2 => Subject::ResponseCode(s[2..].to_string()),
            s if s.starts_with('p') => match s[1..].parse::<f64>() {
                Ok(p) if p > 0.0 && p <= 100.0 => Subject::Percentile(p),
                _ => return Err(format!("{s:?} is not a percentile (p50, p95, p99.9)")),
            },
            s => {
                return Err(format!(
                    "unknown subject {s:?}: use avg-rt, avg-lt, avg-ct, stdev-rt, p<N>, hits, \
                     rps, bytes, succ, fail, rc<code> or concurrency"
                ))
            }
        })
    }

    /// The subject as written in the short form.
    pub fn name(&self) -> String {
        match self {
            Subject::AvgRt => "avg-rt".into(),
            Subject::AvgLt => "avg-lt".into(),
            Subject::AvgCt => "avg-ct".into(),
            Subject::StdevRt => "stdev-rt".into(),
            Subject::Percentile(p) => format!("p{p}"),
            Subject::Hits => "hits".into(),
            Subject::Rps => "rps".into(),
            Subject::Bytes => "bytes".into(),
            Subject::Successes => "succ".into(),
            Subject::Failures => "fail".into(),
            Subject::ResponseCode(pattern) => format!("rc{pattern}"),
            Subject::Concurrency => "concurrency".into(),
        }
    }

    /// The value in words with its unit.
    pub fn show(&self, value: f64, percentage: bool) -> String {
        if percentage {
            return format!("{value:.2} %");
        }
        match self {
            s if s.is_time() => format!("{value:.0} ms"),
            Subject::Rps => format!("{value:.2}/s"),
            Subject::Bytes => format!("{value:.0} bytes"),
            _ => format!("{value:.0}"),
        }
    }

    /// Whether its threshold is a time.
    fn is_time(&self) -> bool {
        matches!(
            self,
            Subject::AvgRt
                | Subject::AvgLt
                | Subject::AvgCt
                | Subject::StdevRt
                | Subject::Percentile(_)
        )
    }

    /// Whether a `%` threshold makes sense (a share of the samples).
    fn takes_percentage(&self) -> bool {
        matches!(
            self,
            Subject::Successes | Subject::Failures | Subject::ResponseCode(_)
        )
    }

    /// Whether values of seconds add up over a `within`/`over` window (counts) rather
    /// than average.
    pub fn sums(&self, percentage: bool) -> bool {
        !percentage
            && matches!(
                self,
                Subject::Hits | Subject::Successes | Subject::Failures | Subject::ResponseCode(_)
            )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    Greater,
    GreaterOrEqual,
    Less,
    LessOrEqual,
    Equal,
}

impl Condition {
    fn parse(text: &str) -> Result<Condition, String> {
        Ok(match text {
            ">" => Condition::Greater,
            ">=" => Condition::GreaterOrEqual,
            "<" => Condition::Less,
            "<=" => Condition::LessOrEqual,
            "=" | "==" => Condition::Equal,
            c => return Err(format!("unknown condition {c:?}: use >, >=, <, <= or =")),
        })
    }

    pub fn holds(self, value: f64, threshold: f64) -> bool {
        match self {
            Condition::Greater => value > threshold,
            Condition::GreaterOrEqual => value >= threshold,
            Condition::Less => value < threshold,
            Condition::LessOrEqual => value <= threshold,
            Condition::Equal => value == threshold,
        }
    }
}

/// How the seconds of a timeframe are judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Logic {
    /// Every second of the timeframe meets the condition.
    For,
    /// The timeframe's seconds taken together meet it (even before a full timeframe).
    Within,
    /// As `within`, once a full timeframe has passed.
    Over,
}

/// One criterion as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Criterion {
    /// The text as given, for messages and the JUnit report.
    pub text: String,
    /// A message written before a colon, shown instead of the text.
    pub message: Option<String>,
    pub subject: Subject,
    /// Empty for the whole run.
    pub label: String,
    pub condition: Condition,
    /// In ms for times, bytes for sizes, percent for `%` thresholds, else a count.
    pub threshold: f64,
    pub percentage: bool,
    pub logic: Logic,
    /// Seconds; 0 judges the whole run at its end.
    pub timeframe: u64,
    /// `stop` (the default) ends the run when the criterion is met.
    pub stop: bool,
    /// `as failed` (the default) makes a met criterion fail the run.
    pub fail: bool,
    /// A copy of a rule without a label, judging one label (`--junit-per-label`).
    pub per_label: bool,
}

impl fmt::Display for Criterion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message.as_deref().unwrap_or(&self.text))?;
        if self.per_label {
            write!(f, " [{}]", self.label)?;
        }
        Ok(())
    }
}

impl Criterion {
    /// Parses one criterion; the error says which part is wrong.
    pub fn parse(written: &str) -> Result<Criterion, String> {
        let text = written.trim().to_string();
        let wrong = |why: String| format!("criterion {text:?}: {why}");
        let (message, rest) = match text.split_once(':') {
            Some((message, rest)) => (Some(message.trim().to_string()), rest.trim()),
            None => (None, text.as_str()),
        };
        let (rule, action) = match rest.split_once(',') {
            Some((rule, action)) => (rule.trim(), action.trim()),
            None => (rest.trim(), ""),
        };
        let (stop, fail) = parse_action(action).map_err(wrong)?;
        let op_start = rule
            .find(['<', '>', '='])
            .ok_or_else(|| wrong("no condition (>, <, >=, <=, =)".into()))?;
        let op_len = rule[op_start..]
            .chars()
            .take_while(|c| matches!(c, '<' | '>' | '='))
            .count();
        let condition = Condition::parse(&rule[op_start..op_start + op_len]).map_err(wrong)?;
        let (subject_text, label) = split_label(rule[..op_start].trim());
        let subject = Subject::parse(subject_text).map_err(wrong)?;
        let after = rule[op_start + op_len..].trim();
        let mut words = after.split_whitespace();
        let threshold_text = words.next().ok_or_else(|| wrong("no threshold".into()))?;
        let (logic, timeframe) = match (words.next(), words.next(), words.next()) {
            (None, _, _) => (Logic::For, 0),
            (Some(logic), Some(frame), None) => {
                let logic = match logic {
                    "for" => Logic::For,
                    "within" => Logic::Within,
                    "over" => Logic::Over,
                    other => return Err(wrong(format!("{other:?} is not for, within or over"))),
                };
                let secs = duration_ms(frame).map_err(wrong)? / 1000.0;
                (logic, secs.ceil().max(1.0) as u64)
            }
            _ => return Err(wrong(format!("cannot read {after:?} after the condition"))),
        };
        let percentage = threshold_text.ends_with('%');
        if percentage && !subject.takes_percentage() {
            return Err(wrong(format!(
                "a percentage applies to succ, fail and rc, not {subject_text}"
            )));
        }
        let threshold = if percentage {
            number(threshold_text.trim_end_matches('%')).map_err(wrong)?
        } else if subject.is_time() {
            duration_ms(threshold_text).map_err(wrong)?
        } else if subject == Subject::Bytes {
            bytes(threshold_text).map_err(wrong)?
        } else {
            number(threshold_text).map_err(wrong)?
        };
        Ok(Criterion {
            text: text.clone(),
            message,
            subject,
            label: label.to_string(),
            condition,
            threshold,
            percentage,
            logic,
            timeframe,
            stop,
            fail,
            per_label: false,
        })
    }

    /// The same rule judging one label's samples (`--junit-per-label`).
    pub fn for_label(&self, label: &str) -> Criterion {
        Criterion {
            label: label.to_string(),
            per_label: true,
            ..self.clone()
        }
    }
}

/// `avg-rt of Log in` or `avg-rt for Log in` (Taurus' documentation writes both).
fn split_label(text: &str) -> (&str, &str) {
    for word in [" of ", " for "] {
        if let Some((subject, label)) = text.split_once(word) {
            return (subject.trim(), label.trim());
        }
    }
    (text, "")
}

fn parse_action(action: &str) -> Result<(bool, bool), String> {
    if action.is_empty() {
        return Ok((true, true));
    }
    let words: Vec<&str> = action.split_whitespace().collect();
    let stop = match words.first() {
        Some(&"stop") => true,
        Some(&"continue") => false,
        _ => return Err(format!("the action {action:?} is not stop or continue")),
    };
    let fail = match words[1..] {
        [] => true,
        ["as", "failed"] => true,
        ["as", "non-failed"] => false,
        _ => {
            return Err(format!(
                "the action {action:?} ends in neither as failed nor as non-failed"
            ))
        }
    };
    Ok((stop, fail))
}

fn number(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .map_err(|_| format!("{text:?} is not a number"))
}

/// Taurus' times: parts like `1m30s`, `2s500ms`, `150ms`; no unit means seconds.
fn duration_ms(text: &str) -> Result<f64, String> {
    let bad = || format!("{text:?} is not a time (150ms, 2s, 1m30s)");
    let mut total = 0.0;
    let mut rest = text;
    if rest.is_empty() {
        return Err(bad());
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let value: f64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let factor = match rest[..unit_len].to_ascii_lowercase().as_str() {
            "ms" => 1.0,
            "" | "s" => 1000.0,
            "m" => 60_000.0,
            "h" => 3_600_000.0,
            "d" => 86_400_000.0,
            _ => return Err(bad()),
        };
        total += value * factor;
        rest = &rest[unit_len..];
    }
    Ok(total)
}

/// Taurus' sizes: `512`, `10kB`, `2MB` (powers of 1024).
fn bytes(text: &str) -> Result<f64, String> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let value = number(&text[..split])?;
    let factor = match text[split..].to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" | "kib" => 1024.0,
        "m" | "mb" | "mib" => 1024.0 * 1024.0,
        _ => return Err(format!("{text:?} is not a size (512, 10kB, 2MB)")),
    };
    Ok(value * factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_short_forms_of_taurus_parse() {
        let c = Criterion::parse("avg-rt of Log in>150ms for 10s, stop as failed").unwrap();
        assert_eq!(c.subject, Subject::AvgRt);
        assert_eq!(c.label, "Log in");
        assert_eq!((c.condition, c.threshold), (Condition::Greater, 150.0));
        assert_eq!(
            (c.logic, c.timeframe, c.stop, c.fail),
            (Logic::For, 10, true, true)
        );

        let c = Criterion::parse("p95>300ms").unwrap();
        assert_eq!(c.subject, Subject::Percentile(95.0));
        assert_eq!((c.timeframe, c.label.as_str()), (0, ""));

        let c = Criterion::parse("fail>1%").unwrap();
        assert!(c.percentage);
        assert_eq!(c.threshold, 1.0);

        let c = Criterion::parse("rps<100 for 30s, continue as failed").unwrap();
        assert_eq!((c.subject, c.condition), (Subject::Rps, Condition::Less));
        assert_eq!((c.timeframe, c.stop, c.fail), (30, false, true));

        let c = Criterion::parse("Too slow: avg-rt>2s500ms within 1m, stop as non-failed").unwrap();
        assert_eq!(c.message.as_deref(), Some("Too slow"));
        assert_eq!(c.to_string(), "Too slow");
        assert_eq!(
            (c.threshold, c.logic, c.timeframe),
            (2500.0, Logic::Within, 60)
        );
        assert!(!c.fail);

        let c = Criterion::parse("rc5??>=10% over 5s").unwrap();
        assert_eq!(c.subject, Subject::ResponseCode("5??".into()));
        assert_eq!(c.logic, Logic::Over);
        let c = Criterion::parse("bytes for Home>10kB").unwrap();
        assert_eq!((c.threshold, c.label.as_str()), (10240.0, "Home"));
        assert_eq!(Criterion::parse("p99.9<=1").unwrap().threshold, 1000.0);
    }

    #[test]
    fn mistakes_name_the_wrong_part() {
        for (text, part) in [
            ("avg-rt 150ms", "no condition"),
            ("speed>3", "unknown subject"),
            ("p101>3", "not a percentile"),
            ("avg-rt>1%", "percentage"),
            ("avg-rt>fast", "not a time"),
            ("fail>1% during 5s", "not for, within or over"),
            ("fail>1%, halt", "not stop or continue"),
            ("fail>1%, stop as broken", "as failed"),
            ("fail=>1", "unknown condition"),
        ] {
            let err = Criterion::parse(text).unwrap_err();
            assert!(err.contains(part), "{text}: {err}");
        }
    }
}
