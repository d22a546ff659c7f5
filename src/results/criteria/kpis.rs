//! The numbers a criterion reads, for one second or for the run so far (Taurus'
//! `KPISet`): counts, sums for the means and the standard deviation, received bytes,
//! samples per response code, every response time (as counts per distinct value, for
//! exact percentiles) and the most users seen active.

use crate::results::percentile::Distribution;
use crate::sample::SampleResult;

use super::parse::Subject;

pub struct Kpis {
    count: u64,
    failures: u64,
    sum_rt: f64,
    sum_sq_rt: f64,
    sum_lt: f64,
    sum_ct: f64,
    bytes: f64,
    codes: Vec<(String, u64)>,
    times: Distribution,
    max_active: u64,
}

impl Default for Kpis {
    fn default() -> Kpis {
        Kpis {
            count: 0,
            failures: 0,
            sum_rt: 0.0,
            sum_sq_rt: 0.0,
            sum_lt: 0.0,
            sum_ct: 0.0,
            bytes: 0.0,
            codes: Vec::new(),
            times: Distribution::new(0),
            max_active: 0,
        }
    }
}

impl Kpis {
    pub fn add(&mut self, sample: &SampleResult, active: u64) {
        let rt = sample.elapsed as f64;
        self.count += 1;
        if !sample.success {
            self.failures += 1;
        }
        self.sum_rt += rt;
        self.sum_sq_rt += rt * rt;
        self.sum_lt += sample.latency as f64;
        self.sum_ct += sample.connect_time as f64;
        self.bytes += sample.bytes() as f64;
        let code: &str = &sample.response_code;
        match self.codes.iter_mut().find(|(c, _)| c == code) {
            Some((_, n)) => *n += 1,
            None => self.codes.push((code.to_string(), 1)),
        }
        self.times.add(sample.elapsed);
        self.max_active = self.max_active.max(active);
    }

    /// The subject's value (ms for times, percent for `%`), over `seconds` for rates;
    /// `None` without samples.
    pub fn value(&self, subject: &Subject, percentage: bool, seconds: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let n = self.count as f64;
        let share = |k: f64| if percentage { 100.0 * k / n } else { k };
        Some(match subject {
            Subject::AvgRt => self.sum_rt / n,
            Subject::AvgLt => self.sum_lt / n,
            Subject::AvgCt => self.sum_ct / n,
            Subject::StdevRt => {
                let mean = self.sum_rt / n;
                (self.sum_sq_rt / n - mean * mean).max(0.0).sqrt()
            }
            Subject::Percentile(p) => self.times.percentiles(&[*p])[0],
            Subject::Hits => n,
            Subject::Rps => n / seconds,
            Subject::Bytes => self.bytes,
            Subject::Successes => share((self.count - self.failures) as f64),
            Subject::Failures => share(self.failures as f64),
            Subject::ResponseCode(pattern) => {
                let matching: u64 = self
                    .codes
                    .iter()
                    .filter(|(code, _)| wildcard(pattern, code))
                    .map(|(_, n)| n)
                    .sum();
                share(matching as f64)
            }
            Subject::Concurrency => self.max_active as f64,
        })
    }
}

/// `fnmatch` with `?` (one character) and `*` (any run).
fn wildcard(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_code_patterns_match_as_fnmatch() {
        assert!(wildcard("5??", "503"));
        assert!(!wildcard("5??", "5031"));
        assert!(wildcard("*", ""));
        assert!(wildcard("4*", "404"));
        assert!(wildcard(
            "Non*Exception",
            "Non HTTP response code: java.net.ConnectException"
        ));
        assert!(!wildcard("200", "201"));
    }
}
