//! Response times measured from when samples were meant to start, beside JMeter's.
//!
//! Under an open model a slow system makes arrivals wait for a free thread or a busy
//! worker; JMeter's elapsed time starts when the sample actually began, so that wait is
//! invisible in its percentiles (coordinated omission). Samples of arrival-driven groups
//! carry their intended start (`SampleResult::intended_start`); this sink keeps the
//! distribution of `end − intended start` and of `elapsed` for them, and at the end of
//! the run gives one line comparing the two, which the run prints after the arrival
//! reports. Samples of other groups are not counted; without any, there is no line.

use std::sync::Arc;

use parking_lot::Mutex;

use super::bus::{SampleEvent, Sink};
use super::percentile::Distribution;

/// The percentiles the line shows.
const PERCENTILES: [f64; 4] = [50.0, 90.0, 95.0, 99.0];

/// Where the end-of-run line goes: the run prints what it finds there.
pub type Lines = Arc<Mutex<Vec<String>>>;

/// Collects both distributions over every arrival-driven sample of the run.
pub struct IntendedStartLatency {
    from_intended: Distribution,
    from_start: Distribution,
    max_from_intended: i64,
    max_from_start: i64,
    out: Lines,
}

impl IntendedStartLatency {
    pub fn new(out: Lines) -> IntendedStartLatency {
        IntendedStartLatency {
            // Exact mode: counts per distinct millisecond, so memory is bounded by the
            // number of distinct times, not of samples.
            from_intended: Distribution::new(0),
            from_start: Distribution::new(0),
            max_from_intended: 0,
            max_from_start: 0,
            out,
        }
    }

    fn line(&self) -> Option<String> {
        if self.from_intended.is_empty() {
            return None;
        }
        let show = |d: &Distribution, max: i64| {
            let values = d.percentiles(&PERCENTILES);
            let parts: Vec<String> = PERCENTILES
                .iter()
                .zip(values)
                .map(|(p, v)| format!("{p:.0}th {v:.0}"))
                .collect();
            format!("{}, max {max} ms", parts.join(", "))
        };
        Some(format!(
            "Response times of arrival-driven samples: from intended start {}; from actual start (as JMeter reports them) {}",
            show(&self.from_intended, self.max_from_intended),
            show(&self.from_start, self.max_from_start),
        ))
    }
}

impl Sink for IntendedStartLatency {
    fn on_sample(&mut self, event: &SampleEvent) -> std::io::Result<()> {
        let sample = &event.result;
        if let Some(intended) = sample.intended_start {
            let from_intended = sample.end_time - intended;
            self.from_intended.add(from_intended);
            self.from_start.add(sample.elapsed);
            self.max_from_intended = self.max_from_intended.max(from_intended);
            self.max_from_start = self.max_from_start.max(sample.elapsed);
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        if let Some(line) = self.line() {
            self.out.lock().push(line);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::SampleResult;

    fn event(start: i64, elapsed: i64, late: Option<i64>) -> SampleEvent {
        let mut result = SampleResult::new_shared(Arc::from("s"));
        let sample = Arc::get_mut(&mut result).expect("fresh");
        sample.start_time = start;
        sample.elapsed = elapsed;
        sample.end_time = start + elapsed;
        sample.intended_start = late.map(|l| start - l);
        SampleEvent {
            result,
            listeners: Arc::from(Vec::new()),
        }
    }

    #[test]
    fn waiting_before_the_start_shows_only_in_the_intended_start_figures() {
        let out = Lines::default();
        let mut sink = IntendedStartLatency::new(out.clone());
        for i in 0..100 {
            // The last ten arrivals began 500 ms late; every sample took 10 ms.
            let late = if i >= 90 { 500 } else { 0 };
            sink.on_sample(&event(1_000 * i, 10, Some(late)))
                .expect("sample");
        }
        // Samples of other groups carry no intended start and are not counted.
        sink.on_sample(&event(0, 9_999, None)).expect("sample");
        sink.finish().expect("finish");
        // JMeter's estimator puts the 90th at rank 90.9 of 100: 10 + 0.9 × (510 − 10).
        let lines = out.lock();
        assert_eq!(
            lines.as_slice(),
            [
                "Response times of arrival-driven samples: from intended start 50th 10, 90th 460, \
              95th 510, 99th 510, max 510 ms; from actual start (as JMeter reports them) 50th \
              10, 90th 10, 95th 10, 99th 10, max 10 ms"
            ]
        );
    }

    #[test]
    fn without_arrival_driven_samples_there_is_no_line() {
        let out = Lines::default();
        let mut sink = IntendedStartLatency::new(out.clone());
        sink.on_sample(&event(0, 5, None)).expect("sample");
        sink.finish().expect("finish");
        assert!(out.lock().is_empty());
    }
}
