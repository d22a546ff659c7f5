//! Sent against received: the sender's `.jtl` (one row per datagram) beside the sink's
//! counts, per second and in total.
//!
//! A row counts as a datagram sent when it succeeded; it was sent at the end of the
//! sample (`timeStamp + elapsed`: the interval comes first inside the sample), which puts
//! it in the same second the sink sees it on the same machine.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use super::Counts;

/// Sent and received per epoch second, and in total.
#[derive(Debug, Default)]
pub struct Reconciliation {
    pub sent: BTreeMap<i64, u64>,
    pub total_sent: u64,
    pub total_received: u64,
    /// Rows that recorded a failed send.
    pub failed_rows: u64,
}

impl Reconciliation {
    pub fn summary(&self) -> String {
        let mut out = String::new();
        let missing = self.total_sent as i64 - self.total_received as i64;
        let _ = writeln!(
            out,
            "reconciliation: sent {} (jtl, {} failed rows not counted), received {}, not received {missing}",
            self.total_sent, self.failed_rows, self.total_received
        );
        out
    }
}

/// Reads the `.jtl` at `path` (CSV with a header, `timeStamp` in epoch ms) and sets it
/// against `counts`.
pub fn reconcile(path: &Path, counts: &Counts) -> Result<Reconciliation, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the jtl {}: {e}", path.display()))?;
    let records = parse_csv(&text);
    let mut records = records.into_iter();
    let header = records
        .next()
        .ok_or_else(|| format!("{} is empty", path.display()))?;
    let column = |name: &str| {
        header.iter().position(|h| h == name).ok_or_else(|| {
            format!(
                "{} has no {name} column (a CSV .jtl with a header is needed)",
                path.display()
            )
        })
    };
    let (stamp, elapsed) = (column("timeStamp")?, column("elapsed")?);
    let success = column("success").ok();
    let mut out = Reconciliation {
        total_received: counts.datagrams,
        ..Reconciliation::default()
    };
    for row in records {
        let field = |i: usize| row.get(i).map(String::as_str).unwrap_or("");
        if success.is_some_and(|i| field(i) != "true") {
            out.failed_rows += 1;
            continue;
        }
        let (Ok(start), Ok(took)) = (field(stamp).parse::<i64>(), field(elapsed).parse::<i64>())
        else {
            return Err(format!(
                "{}: timeStamp {:?} is not epoch milliseconds",
                path.display(),
                field(stamp)
            ));
        };
        *out.sent.entry((start + took).div_euclid(1000)).or_default() += 1;
        out.total_sent += 1;
    }
    Ok(out)
}

/// The per-second CSV: `epochSecond,datagrams,bytes` and, with a jtl, `sent`.
pub fn per_second_csv(counts: &Counts, reconciliation: Option<&Reconciliation>) -> String {
    let mut seconds: Vec<i64> = counts.seconds.keys().copied().collect();
    if let Some(r) = reconciliation {
        seconds.extend(r.sent.keys().copied());
        seconds.sort_unstable();
        seconds.dedup();
    }
    let mut out = String::from("epochSecond,datagrams,bytes");
    out.push_str(if reconciliation.is_some() {
        ",sent\n"
    } else {
        "\n"
    });
    for second in seconds {
        let got = counts.seconds.get(&second).copied().unwrap_or_default();
        let _ = write!(out, "{second},{},{}", got.datagrams, got.bytes);
        match reconciliation {
            Some(r) => {
                let _ = writeln!(out, ",{}", r.sent.get(&second).copied().unwrap_or(0));
            }
            None => out.push('\n'),
        }
    }
    out
}

/// Splits CSV text into records: quoted fields may hold commas, doubled quotes and line
/// breaks, as JMeter writes them.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            (true, '"') => quoted = false,
            (true, _) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, _) => field.push(c),
        }
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    records
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_may_be_quoted() {
        let records = parse_csv("a,b\r\n\"x,\"\"y\"\"\",\"l1\nl2\"\n3,4");
        assert_eq!(records[1], vec!["x,\"y\"", "l1\nl2"]);
        assert_eq!(records[2], vec!["3", "4"]);
    }

    #[test]
    fn sent_rows_are_set_against_received_per_second() {
        let dir = tempfile::tempdir().expect("scratch");
        let jtl = dir.path().join("s.jtl");
        std::fs::write(
            &jtl,
            "timeStamp,elapsed,label,success\n1000,10,u,true\n1995,10,u,true\n2000,1,u,false\n",
        )
        .expect("written");
        let mut counts = Counts::new(false);
        counts.record(1, b"a");
        counts.record(2, b"b");
        let r = reconcile(&jtl, &counts).expect("reconciled");
        assert_eq!(r.total_sent, 2);
        assert_eq!(r.failed_rows, 1);
        assert_eq!(r.sent.get(&1), Some(&1));
        assert_eq!(r.sent.get(&2), Some(&1));
        let csv = per_second_csv(&counts, Some(&r));
        assert_eq!(csv, "epochSecond,datagrams,bytes,sent\n1,1,1,1\n2,1,1,1\n");
        assert!(r.summary().contains("not received 0"));
    }
}
