//! The progress display: on a terminal, one status line under the console output,
//! redrawn in place twice a second while the run goes on.
//!
//! It shows the time run against the plan's length (a bar when the length is known),
//! the users (active, started, finished, and active per thread group), the rate, the
//! error rate and the 95th percentile of the last few seconds, and the `.jtl` written.
//! Three pieces share one [`Display`] under a lock: the sink adds each sample to the
//! recent seconds, a thread redraws the line, and [`ConsoleLines`] (the summariser's
//! output) clears the line before each complete line it prints and redraws it after,
//! so summariser lines are never overwritten nor interleaved. The caller turns it on
//! only when stdout is a terminal; otherwise nothing here runs and the output is
//! JMeter's, byte for byte.

use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::{SampleEvent, Sink};
use crate::user_state::ThreadCounts;

/// Seconds of samples behind the rate, error rate and percentile.
const WINDOW_SECONDS: u64 = 5;
const REDRAW: Duration = Duration::from_millis(500);

/// What the display shows besides the samples.
pub struct ProgressSettings {
    /// The plan's length when the thread groups' settings fix it.
    pub planned: Option<Duration>,
    /// Thread groups by name with their active users.
    pub groups: Vec<(String, Arc<AtomicI32>)>,
    pub counts: Arc<ThreadCounts>,
    /// The `.jtl` being written, if any.
    pub jtl: Option<String>,
}

/// One second's samples: count, errors, and elapsed times with their counts.
#[derive(Default)]
struct Second {
    at: u64,
    count: u64,
    errors: u64,
    elapsed: BTreeMap<i64, u32>,
}

struct Display {
    settings: ProgressSettings,
    out: Box<dyn Write + Send>,
    started: Instant,
    seconds: VecDeque<Second>,
    /// Whether the status line is on screen (the cursor is at its end).
    shown: bool,
    /// False once the run is over: lines are then printed as they come.
    live: bool,
}

impl Display {
    fn add(&mut self, elapsed: i64, success: bool) {
        let at = self.started.elapsed().as_secs();
        if self.seconds.back().is_none_or(|s| s.at != at) {
            self.seconds.push_back(Second {
                at,
                ..Second::default()
            });
        }
        while self
            .seconds
            .front()
            .is_some_and(|s| s.at + WINDOW_SECONDS < at)
        {
            self.seconds.pop_front();
        }
        if let Some(second) = self.seconds.back_mut() {
            second.count += 1;
            second.errors += u64::from(!success);
            *second.elapsed.entry(elapsed).or_default() += 1;
        }
    }

    /// The status text, at most `width` characters.
    fn status(&self, width: usize) -> String {
        let elapsed = self.started.elapsed();
        let mut parts = Vec::new();
        match self.settings.planned {
            Some(planned) if !planned.is_zero() => {
                let done = (elapsed.as_secs_f64() / planned.as_secs_f64()).min(1.0);
                let filled = (done * 20.0).round() as usize;
                parts.push(format!(
                    "[{}{}] {} / {}",
                    "#".repeat(filled),
                    "-".repeat(20 - filled),
                    clock(elapsed),
                    clock(planned)
                ));
            }
            _ => parts.push(format!("{} elapsed", clock(elapsed))),
        }
        let c = self.settings.counts.snapshot();
        let mut users = format!(
            "users {} active, {} started, {} finished",
            c.active, c.started, c.finished
        );
        if self.settings.groups.len() > 1 {
            let groups: Vec<String> = self
                .settings
                .groups
                .iter()
                .map(|(name, active)| format!("{name} {}", active.load(Ordering::Relaxed)))
                .collect();
            users.push_str(&format!(" ({})", groups.join(", ")));
        }
        parts.push(users);
        parts.push(self.recent());
        if let Some(jtl) = &self.settings.jtl {
            parts.push(format!("-> {jtl}"));
        }
        let text = parts.join(" | ");
        text.chars().take(width).collect()
    }

    /// Rate, error rate and p95 over the whole seconds of the window.
    fn recent(&self) -> String {
        let now = self.started.elapsed().as_secs();
        let closed = self
            .seconds
            .iter()
            .filter(|s| s.at < now && s.at + WINDOW_SECONDS >= now);
        let (mut count, mut errors) = (0, 0);
        let mut elapsed: BTreeMap<i64, u64> = BTreeMap::new();
        for second in closed {
            count += second.count;
            errors += second.errors;
            for (ms, n) in &second.elapsed {
                *elapsed.entry(*ms).or_default() += u64::from(*n);
            }
        }
        let span = now.clamp(1, WINDOW_SECONDS) as f64;
        if count == 0 {
            return "0.0/s, errors 0.00%, p95 -".to_string();
        }
        let rank = (count as f64 * 0.95).ceil() as u64;
        let mut seen = 0;
        let p95 = elapsed
            .iter()
            .find(|(_, n)| {
                seen += **n;
                seen >= rank
            })
            .map_or(0, |(ms, _)| *ms);
        format!(
            "{:.1}/s, errors {:.2}%, p95 {p95} ms",
            count as f64 / span,
            errors as f64 * 100.0 / count as f64
        )
    }

    fn clear(&mut self) -> io::Result<()> {
        if self.shown {
            self.out.write_all(b"\r\x1b[2K")?;
            self.shown = false;
        }
        Ok(())
    }

    fn draw(&mut self) -> io::Result<()> {
        if !self.live {
            return Ok(());
        }
        let width = terminal_width().saturating_sub(1).max(20);
        let status = self.status(width);
        self.out.write_all(b"\r\x1b[2K")?;
        self.out.write_all(status.as_bytes())?;
        self.shown = true;
        self.out.flush()
    }
}

/// `m:ss`, or `h:mm:ss` past an hour.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// The terminal's columns (80 when it cannot be asked).
fn terminal_width() -> usize {
    let mut size = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ fills the winsize it is given and touches nothing else.
    let asked = unsafe {
        libc::ioctl(
            libc::STDOUT_FILENO,
            libc::TIOCGWINSZ,
            &mut size as *mut libc::winsize,
        )
    };
    if asked == 0 && size.ws_col > 0 {
        usize::from(size.ws_col)
    } else {
        80
    }
}

/// The display: its sink, its console writer and its redraw thread.
pub struct Progress {
    display: Arc<Mutex<Display>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// The display on `out` (stdout), silent until [`Progress::start`]: lines printed
    /// through [`Progress::console`] before then go straight out.
    pub fn new(settings: ProgressSettings, out: Box<dyn Write + Send>) -> Progress {
        let display = Arc::new(Mutex::new(Display {
            settings,
            out,
            started: Instant::now(),
            seconds: VecDeque::new(),
            shown: false,
            live: false,
        }));
        Progress {
            display,
            stop: Arc::new(AtomicBool::new(false)),
            thread: None,
        }
    }

    /// The run has started: the clock starts and the line is drawn until [`Progress::stop`].
    pub fn start(&mut self) {
        {
            let mut display = self.display.lock();
            display.started = Instant::now();
            display.live = true;
        }
        let (drawn, stopping) = (self.display.clone(), self.stop.clone());
        self.thread = std::thread::Builder::new()
            .name("jmxr-progress".to_string())
            .spawn(move || {
                while !stopping.load(Ordering::Relaxed) {
                    // A terminal that cannot be written to only loses the status line.
                    let _ = drawn.lock().draw();
                    std::thread::sleep(REDRAW);
                }
            })
            .ok();
    }

    /// The writer the summariser prints through.
    pub fn console(&self) -> ConsoleLines {
        ConsoleLines {
            display: self.display.clone(),
            pending: Vec::new(),
        }
    }

    /// The sink that feeds the display its samples.
    pub fn sink(&self) -> ProgressSink {
        ProgressSink {
            display: self.display.clone(),
        }
    }

    /// Stops redrawing and removes the status line.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let mut display = self.display.lock();
        display.live = false;
        let _ = display.clear();
        let _ = display.out.flush();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Adds each sample to the display's recent seconds.
pub struct ProgressSink {
    display: Arc<Mutex<Display>>,
}

impl Sink for ProgressSink {
    fn on_sample(&mut self, event: &SampleEvent) -> io::Result<()> {
        let sample = &event.result;
        if !sample.ignore && !sample.is_transaction() {
            self.display.lock().add(sample.elapsed, sample.success);
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Console output that keeps clear of the status line: whole lines are printed above
/// it, each with the line taken away first and drawn again after.
pub struct ConsoleLines {
    display: Arc<Mutex<Display>>,
    pending: Vec<u8>,
}

impl Write for ConsoleLines {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        if let Some(end) = self.pending.iter().rposition(|b| *b == b'\n') {
            let lines: Vec<u8> = self.pending.drain(..=end).collect();
            let mut display = self.display.lock();
            display.clear()?;
            display.out.write_all(&lines)?;
            display.draw()?;
            display.out.flush()?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.pending.is_empty() {
            let rest = std::mem::take(&mut self.pending);
            let mut display = self.display.lock();
            display.clear()?;
            display.out.write_all(&rest)?;
        }
        self.display.lock().out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose bytes the test reads back.
    #[derive(Clone, Default)]
    struct Screen(Arc<Mutex<Vec<u8>>>);

    impl Write for Screen {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn settings(planned: Option<Duration>) -> ProgressSettings {
        ProgressSettings {
            planned,
            groups: vec![
                ("Shoppers".into(), Arc::new(AtomicI32::new(3))),
                ("Admins".into(), Arc::new(AtomicI32::new(1))),
            ],
            counts: Arc::new(ThreadCounts::new()),
            jtl: Some("out.jtl".into()),
        }
    }

    #[test]
    fn lines_go_above_the_status_line_which_is_cleared_first_and_drawn_after() {
        let screen = Screen::default();
        let mut progress = Progress::new(settings(None), Box::new(screen.clone()));
        let mut console = progress.console();
        writeln!(console, "Starting standalone test").unwrap();
        progress.start();
        write!(console, "summary +   1 in").unwrap();
        writeln!(console, " 00:00:01").unwrap();
        progress.stop();
        let text = String::from_utf8(screen.0.lock().clone()).unwrap();
        assert!(text.starts_with("Starting standalone test\n"), "{text:?}");
        let line = text.find("summary +   1 in 00:00:01\n").expect(&text);
        // Whatever was drawn before the line was cleared just before it.
        assert!(
            text[..line].ends_with('\n') || text[..line].ends_with("\r\x1b[2K"),
            "{text:?}"
        );
        assert!(text[line..].contains("Shoppers 3, Admins 1"), "{text:?}");
        assert!(text.ends_with("\r\x1b[2K"), "cleared at the end: {text:?}");
    }

    #[test]
    fn the_status_shows_the_plan_length_rate_errors_and_p95() {
        let screen = Screen::default();
        let display = Display {
            settings: settings(Some(Duration::from_secs(60))),
            out: Box::new(screen),
            started: Instant::now() - Duration::from_secs(30),
            seconds: (25..30)
                .map(|at| Second {
                    at,
                    count: 100,
                    errors: if at == 29 { 5 } else { 0 },
                    elapsed: [(10, 95), (250, 5)].into_iter().collect(),
                })
                .collect(),
            shown: false,
            live: true,
        };
        let status = display.status(400);
        assert!(
            status.starts_with("[##########----------] 0:30 / 1:00"),
            "{status}"
        );
        assert!(
            status.contains("100.0/s, errors 1.00%, p95 10 ms"),
            "{status}"
        );
        assert!(status.ends_with("-> out.jtl"), "{status}");
        assert_eq!(display.status(12).chars().count(), 12);
        assert_eq!(clock(Duration::from_secs(3725)), "1:02:05");
    }
}
