//! The Open Model Thread Group's schedule language (JMeter 5.5+) and the arrival times
//! it describes.
//!
//! `rate(10/sec) random_arrivals(1 min) rate(20/sec) even_arrivals(30 s) pause(5 s)` is
//! tokenized and parsed as JMeter's `scheduleTokenizer.kt` and `scheduleParser.kt` do:
//! identifiers are case-insensitive, `/* */` and `//` comments are whitespace, units
//! are `ms`, `s`/`sec…`, `m`/`min…`, `h`/`hour…`, `d`/`day…`, a rate of 0 and a
//! duration of 0 need no unit, `pause(d)` keeps the previous rate around a zero-rate
//! stretch, and a schedule that is a bare integer `N` is JMeter's undocumented
//! "validation mode" (N arrivals in the first second, then an hour for them to end).
//! `concurrency(N)` (JMeter 6) caps the threads running at once from that point on.
//!
//! [`Arrivals`] then yields each arrival's offset from the group's start in seconds,
//! as JMeter's `ThreadScheduleProcessGenerator` with its even and Poisson ramps does,
//! drawing from `java.util.Random` so that a seeded schedule gives JMeter's times.
//! The engine's starter (`engine::arrivals`) turns the offsets into started users;
//! `jmxr plan` draws the rates.

use crate::foundation::java_random::JavaRandom;

/// One step of a schedule, as JMeter's `ThreadScheduleStep`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// Arrivals per second from here on (`rate(…)`).
    Rate(f64),
    /// A stretch of `duration` seconds whose rate goes from the preceding `Rate` to the
    /// following one (or stays, when no `Rate` follows).
    Arrivals { random: bool, duration: f64 },
    /// At most this many threads at once from here on.
    Concurrency(u32),
}

/// A parsed schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    pub steps: Vec<Step>,
}

/// A schedule JMeter would refuse, with the position as JMeter reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleError {
    pub message: String,
    pub position: usize,
    pub input: String,
}

impl std::fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let near: String = self.input.chars().skip(self.position).take(20).collect();
        write!(
            f,
            "{} at position {}: '{near}' in '{}'",
            self.message, self.position, self.input
        )
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Number(String),
    Open,
    Close,
    Divide,
}

impl Token {
    fn image(&self) -> &str {
        match self {
            Token::Ident(text) | Token::Number(text) => text,
            Token::Open => "(",
            Token::Close => ")",
            Token::Divide => "/",
        }
    }
    fn is_word(&self, word: &str) -> bool {
        matches!(self, Token::Ident(text) if text.eq_ignore_ascii_case(word))
    }
}

/// Java's `.` without DOTALL: anything but a line terminator.
fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// Length of the whitespace or comment at the start of `rest`, if any.
fn skip_blank(rest: &str) -> Option<usize> {
    let mut chars = rest.char_indices().peekable();
    let (_, first) = *chars.peek()?;
    if first.is_whitespace() {
        let end = rest
            .char_indices()
            .find(|(_, c)| !c.is_whitespace())
            .map_or(rest.len(), |(i, _)| i);
        return Some(end);
    }
    if let Some(body) = rest.strip_prefix("/*") {
        let close = body.find("*/")?;
        return (!body[..close].chars().any(is_line_terminator)).then_some(close + 4);
    }
    if let Some(body) = rest.strip_prefix("//") {
        let line_end = body.find(['\n', '\r']).unwrap_or(body.len());
        let after = &body[line_end..];
        let newlines = after.len() - after.trim_start_matches(['\n', '\r']).len();
        return Some(2 + line_end + newlines);
    }
    None
}

fn number_len(rest: &str) -> usize {
    let digits = |s: &str| s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let whole = digits(rest);
    if let Some(fraction) = rest[whole..].strip_prefix('.') {
        let frac = digits(fraction);
        if frac > 0 {
            return whole + 1 + frac;
        }
    }
    whole
}

fn tokenize(input: &str) -> Result<Vec<(usize, Token)>, ScheduleError> {
    let mut tokens = Vec::new();
    let mut pos = 0;
    while pos < input.len() {
        let rest = &input[pos..];
        if let Some(len) = skip_blank(rest) {
            pos += len;
            continue;
        }
        let first = rest.chars().next().unwrap_or(' ');
        let token = match first {
            '(' => Token::Open,
            ')' => Token::Close,
            '/' => Token::Divide,
            _ if number_len(rest) > 0 => Token::Number(rest[..number_len(rest)].to_string()),
            _ if first.is_ascii_alphabetic() => {
                let len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                Token::Ident(rest[..len].to_string())
            }
            _ => {
                return Err(ScheduleError {
                    message: "Unexpected input".into(),
                    position: input[..pos].chars().count(),
                    input: input.to_string(),
                })
            }
        };
        let len = token.image().len();
        tokens.push((pos, token));
        pos += len;
    }
    Ok(tokens)
}

/// Parses a schedule as JMeter does (see the module docs).
pub fn parse(input: &str) -> Result<Schedule, ScheduleError> {
    if let Some(n) = java_int(input) {
        let rate = n as f64;
        let even = |duration| Step::Arrivals {
            random: false,
            duration,
        };
        return Ok(Schedule {
            steps: vec![
                Step::Rate(rate),
                even(1.0),
                Step::Rate(rate),
                Step::Rate(0.0),
                even(3600.0),
            ],
        });
    }
    Parser {
        input,
        tokens: tokenize(input)?,
        pos: 0,
        last_rate: 0.0,
    }
    .parse()
}

/// Kotlin's `String.toIntOrNull()`: an optional sign and ASCII digits, within `i32`.
fn java_int(text: &str) -> Option<i32> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

struct Parser<'a> {
    input: &'a str,
    tokens: Vec<(usize, Token)>,
    pos: usize,
    last_rate: f64,
}

impl Parser<'_> {
    fn token(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|(_, t)| t)
    }

    fn error(&self, message: String) -> ScheduleError {
        let byte = self.tokens.get(self.pos).map_or(0, |(p, _)| *p);
        ScheduleError {
            message,
            position: self.input[..byte].chars().count(),
            input: self.input.to_string(),
        }
    }

    fn describe(&self) -> String {
        match self.token() {
            None => "null".into(),
            Some(Token::Ident(t)) => format!("Identifier({t})"),
            Some(Token::Number(t)) => format!("Number({t})"),
            Some(t) => t.image().to_string(),
        }
    }

    fn parse(mut self) -> Result<Schedule, ScheduleError> {
        let mut steps = Vec::new();
        while self.pos < self.tokens.len() {
            if self.token().is_some_and(|t| t.is_word("pause")) {
                let duration = self.call(Self::duration)?;
                let even = Step::Arrivals {
                    random: false,
                    duration,
                };
                let last = Step::Rate(self.last_rate);
                if self.last_rate == 0.0 {
                    steps.extend([even, last]);
                } else {
                    let zero = Step::Rate(0.0);
                    steps.extend([last, zero, even, zero, last]);
                }
                continue;
            }
            let step = match self.token() {
                Some(t) if t.is_word("rate") => Step::Rate(self.call(Self::rate)?),
                Some(t) if t.is_word("concurrency") => {
                    Step::Concurrency(self.call(Self::concurrency)?)
                }
                Some(t) if t.is_word("random_arrivals") || t.is_word("even_arrivals") => {
                    let random = t.is_word("random_arrivals");
                    let duration = self.call(Self::duration)?;
                    Step::Arrivals { random, duration }
                }
                _ => return Err(self.error(
                    "Unexpected input (expecting rate, concurrency, random_arrivals, even_arrivals, or pause)".into(),
                )),
            };
            if let Step::Rate(rate) = step {
                self.last_rate = rate;
            }
            steps.push(step);
        }
        Ok(Schedule { steps })
    }

    /// `name ( inner )`, the name already seen.
    fn call<T>(
        &mut self,
        inner: fn(&mut Self) -> Result<T, ScheduleError>,
    ) -> Result<T, ScheduleError> {
        self.pos += 1;
        self.expect(&Token::Open)?;
        let value = inner(self)?;
        self.expect(&Token::Close)?;
        Ok(value)
    }

    fn expect(&mut self, expected: &Token) -> Result<(), ScheduleError> {
        if self.token() != Some(expected) {
            let message = format!(
                "Unexpected input. Expected {} got {}",
                expected.image(),
                self.describe()
            );
            return Err(self.error(message));
        }
        self.pos += 1;
        Ok(())
    }

    fn number(&mut self, what: &str) -> Result<f64, ScheduleError> {
        match self.token() {
            Some(Token::Number(text)) => {
                let value = text.parse().unwrap_or(0.0);
                self.pos += 1;
                Ok(value)
            }
            _ => {
                let message = format!("Unexpected input. Expected {what} got {}", self.describe());
                Err(self.error(message))
            }
        }
    }

    fn rate(&mut self) -> Result<f64, ScheduleError> {
        let rate = self.number("float number for rate")?;
        if rate == 0.0 && self.token() == Some(&Token::Close) {
            return Ok(0.0);
        }
        match self.token() {
            Some(Token::Divide) => self.pos += 1,
            Some(t) if t.is_word("per") => self.pos += 1,
            _ => {
                let message = format!(
                    "Unexpected input. Expected /, Identifier(per) got {}",
                    self.describe()
                );
                return Err(self.error(message));
            }
        }
        Ok(rate / self.unit()?)
    }

    fn concurrency(&mut self) -> Result<u32, ScheduleError> {
        let limit = self.number("integer number for concurrency")?;
        if limit < 1.0 || limit != limit.floor() {
            self.pos -= 1;
            let text = self.tokens[self.pos].1.image().to_string();
            return Err(self.error(format!(
                "concurrency must be a positive integer, got {text}"
            )));
        }
        Ok(limit.min(i32::MAX as f64) as u32)
    }

    fn duration(&mut self) -> Result<f64, ScheduleError> {
        let mut total = 0.0;
        loop {
            let value = self.number("float number for duration")?;
            if value == 0.0 && self.token() == Some(&Token::Close) {
                break;
            }
            total += value * self.unit()?;
            if !matches!(self.token(), Some(Token::Number(_))) {
                break;
            }
        }
        Ok(total)
    }

    /// Seconds in the unit at the cursor.
    fn unit(&mut self) -> Result<f64, ScheduleError> {
        let Some(Token::Ident(image)) = self.token().cloned() else {
            let message = format!(
                "Unexpected input. Expected unit for duration: sec, min, hour, day got {}",
                self.describe()
            );
            return Err(self.error(message));
        };
        let lower = image.to_ascii_lowercase();
        let seconds = match lower.as_str() {
            "ms" => 0.001,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            "d" => 86_400.0,
            _ if lower.starts_with("sec") => 1.0,
            _ if lower.starts_with("min") => 60.0,
            _ if lower.starts_with("hour") => 3600.0,
            _ if lower.starts_with("day") => 86_400.0,
            _ => return Err(self.error(format!("Unexpected time unit {image}"))),
        };
        self.pos += 1;
        Ok(seconds)
    }
}

impl Schedule {
    /// Seconds from the first arrival stretch to the end of the last.
    pub fn total_duration(&self) -> f64 {
        self.steps
            .iter()
            .map(|step| match step {
                Step::Arrivals { duration, .. } => *duration,
                _ => 0.0,
            })
            .sum()
    }

    /// The stretches as (start s, duration s, begin rate, end rate, random), in order.
    pub fn stretches(&self) -> Vec<Stretch> {
        let mut out = Vec::new();
        let mut begin_rate = 0.0;
        let mut start = 0.0;
        for (i, step) in self.steps.iter().enumerate() {
            match *step {
                Step::Rate(rate) => begin_rate = rate,
                Step::Concurrency(_) => {}
                Step::Arrivals { random, duration } => {
                    let end_rate = match self.steps.get(i + 1) {
                        Some(Step::Rate(rate)) => *rate,
                        _ => begin_rate,
                    };
                    out.push(Stretch {
                        start,
                        duration,
                        begin_rate,
                        end_rate,
                        random,
                    });
                    start += duration;
                }
            }
        }
        out
    }

    /// `concurrency(…)` changes as (seconds from the start, limit), the last of several
    /// at the same time winning; empty when the schedule sets no limit.
    pub fn concurrency_changes(&self) -> Vec<(f64, u32)> {
        let mut changes: Vec<(f64, u32)> = Vec::new();
        let mut time = 0.0;
        for step in &self.steps {
            match *step {
                Step::Concurrency(limit) => match changes.last_mut() {
                    Some(last) if last.0 == time => last.1 = limit,
                    _ => changes.push((time, limit)),
                },
                Step::Arrivals { duration, .. } => time += duration,
                Step::Rate(_) => {}
            }
        }
        changes
    }
}

/// The limit in force `elapsed` seconds after the start (`u32::MAX`: none).
pub fn limit_at(changes: &[(f64, u32)], elapsed: f64) -> u32 {
    changes
        .iter()
        .take_while(|(time, _)| *time <= elapsed)
        .last()
        .map_or(u32::MAX, |(_, limit)| *limit)
}

/// One arrivals step with its rates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stretch {
    pub start: f64,
    pub duration: f64,
    pub begin_rate: f64,
    pub end_rate: f64,
    pub random: bool,
}

impl Stretch {
    /// The planned rate `t` seconds into the stretch.
    pub fn rate_at(&self, t: f64) -> f64 {
        if self.duration <= 0.0 {
            return self.begin_rate;
        }
        self.begin_rate + (self.end_rate - self.begin_rate) * (t / self.duration).clamp(0.0, 1.0)
    }

    /// How many arrivals JMeter plans in the stretch (it truncates: 3.7 events are 3).
    pub fn planned_events(&self) -> u64 {
        let count = (self.begin_rate + self.end_rate) / 2.0 * self.duration;
        if self.random {
            (count as i32).max(0) as u64
        } else {
            count as i64 as u64
        }
    }

    /// The event offsets (seconds within the stretch) JMeter's ramps produce, in order.
    fn events(&self, random: &mut JavaRandom) -> Vec<f64> {
        let (begin, end, duration) = (self.begin_rate, self.end_rate, self.duration);
        let mean = (begin + end) / 2.0;
        // Kotlin's toInt/toLong truncate: 3.7 events are 3.
        if !self.random {
            let count = (mean * duration) as i64;
            let acceleration = if (end - begin).abs() < 0.0001 * mean {
                0.0
            } else {
                (end - begin) / duration
            };
            return (0..count.max(0))
                .map(|n| {
                    let n = n as f64;
                    if n == 0.0 {
                        0.0
                    } else if acceleration == 0.0 {
                        n / mean
                    } else {
                        ((begin * begin + 2.0 * acceleration * n).sqrt() - begin) / acceleration
                    }
                })
                .collect();
        }
        let min_rate = begin.min(end);
        let count = (mean * duration) as i32;
        let flat = (min_rate * duration) as i32;
        let mut events = Vec::with_capacity(count.max(0) as usize);
        if min_rate > 0.0 {
            for _ in 0..flat {
                events.push(random.next_double() * duration);
            }
        }
        let left = count - flat;
        if begin != end && left != 0 {
            for _ in 0..left.max(0) {
                let mut time = random.next_double().sqrt();
                if begin > end {
                    time = 1.0 - time;
                }
                events.push(time * duration);
            }
        }
        events.sort_by(f64::total_cmp);
        events
    }
}

/// Arrival offsets (seconds from the group's start) in order, one stretch at a time.
pub struct Arrivals {
    stretches: std::vec::IntoIter<Stretch>,
    random: JavaRandom,
    current: std::vec::IntoIter<f64>,
    offset: f64,
}

impl Arrivals {
    /// `seed` 0 means a fresh schedule each run, as JMeter's `random_seed`; `fallback`
    /// seeds it then (from `--seed` or the clock).
    pub fn new(schedule: &Schedule, seed: i64, fallback: i64) -> Arrivals {
        let seed = if seed == 0 { fallback } else { seed };
        Arrivals {
            stretches: schedule.stretches().into_iter(),
            random: JavaRandom::new(seed),
            current: Vec::new().into_iter(),
            offset: 0.0,
        }
    }
}

impl Iterator for Arrivals {
    type Item = f64;

    fn next(&mut self) -> Option<f64> {
        loop {
            if let Some(t) = self.current.next() {
                return Some(self.offset + t);
            }
            let stretch = self.stretches.next()?;
            self.offset = stretch.start;
            self.current = stretch.events(&mut self.random).into_iter();
        }
    }
}

#[cfg(test)]
#[path = "open_model_tests.rs"]
mod tests;
