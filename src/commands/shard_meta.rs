//! A shard's metadata file, `<results>.jtl.shard.json`, written beside its `.jtl` by a
//! `--shard` or `--start-at` run and read back by `jmxr merge`.
//!
//! The run writes it twice: when the test starts (`finished: false`) and when it ends
//! (`finished: true`, with the end-of-run clock offset). A shard killed mid-run therefore
//! leaves `finished: false` behind, which the merge reports. Offsets are "reference minus
//! local" in milliseconds: a sample's corrected time is its local time plus the offset,
//! interpolated linearly between the start and end measurements (clock drift).

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

/// What one shard records about its run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShardMeta {
    /// 1-based index, and count (`None` for a run without `--shard`).
    pub shard: Option<(u32, u32)>,
    /// `divide` (the plan's load is split) or `replicate` (every shard runs all of it).
    pub mode: String,
    pub host: String,
    pub version: String,
    /// Epoch ms, local clock.
    pub started: i64,
    pub ended: Option<i64>,
    pub finished: bool,
    /// `host:port` of the SNTP server the offsets were measured against.
    pub reference: Option<String>,
    pub offset_start_ms: Option<f64>,
    pub offset_end_ms: Option<f64>,
}

/// The metadata file of a results file.
pub fn meta_path(jtl: &Path) -> PathBuf {
    let mut name = jtl.as_os_str().to_os_string();
    name.push(".shard.json");
    PathBuf::from(name)
}

impl ShardMeta {
    /// Drift between the two measurements, when both exist.
    pub fn drift_ms(&self) -> Option<f64> {
        Some(self.offset_end_ms? - self.offset_start_ms?)
    }

    /// The offset to add to a local time `at` (epoch ms): the measurements interpolated
    /// linearly, the nearest one outside the run, 0 without any.
    pub fn offset_at(&self, at: i64) -> f64 {
        match (self.offset_start_ms, self.offset_end_ms, self.ended) {
            (Some(a), Some(b), Some(ended)) if ended > self.started => {
                let f =
                    ((at - self.started) as f64 / (ended - self.started) as f64).clamp(0.0, 1.0);
                a + (b - a) * f
            }
            (Some(a), _, _) | (None, Some(a), _) => a,
            (None, None, _) => 0.0,
        }
    }

    pub fn to_json(&self) -> String {
        let mut map = Map::new();
        map.insert("jmxr".into(), json!(self.version));
        map.insert("host".into(), json!(self.host));
        if let Some((index, count)) = self.shard {
            map.insert("shard".into(), json!(index));
            map.insert("shards".into(), json!(count));
        }
        map.insert("mode".into(), json!(self.mode));
        map.insert("started".into(), json!(self.started));
        map.insert("ended".into(), json!(self.ended));
        map.insert("finished".into(), json!(self.finished));
        map.insert("clockReference".into(), json!(self.reference));
        map.insert("offsetStartMs".into(), json!(self.offset_start_ms));
        map.insert("offsetEndMs".into(), json!(self.offset_end_ms));
        map.insert("driftMs".into(), json!(self.drift_ms()));
        let mut text = serde_json::to_string_pretty(&Value::Object(map)).unwrap_or_default();
        text.push('\n');
        text
    }

    pub fn from_json(text: &str) -> Result<ShardMeta, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let int = |k: &str| value.get(k).and_then(Value::as_i64);
        let float = |k: &str| value.get(k).and_then(Value::as_f64);
        let text = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_string);
        let shard = match (int("shard"), int("shards")) {
            (Some(i), Some(n)) => Some((
                u32::try_from(i).map_err(|_| "bad shard index")?,
                u32::try_from(n).map_err(|_| "bad shard count")?,
            )),
            _ => None,
        };
        Ok(ShardMeta {
            shard,
            mode: text("mode").unwrap_or_default(),
            host: text("host").unwrap_or_default(),
            version: text("jmxr").unwrap_or_default(),
            started: int("started").ok_or("no \"started\" time")?,
            ended: int("ended"),
            finished: value.get("finished").and_then(Value::as_bool) == Some(true),
            reference: text("clockReference"),
            offset_start_ms: float("offsetStartMs"),
            offset_end_ms: float("offsetEndMs"),
        })
    }

    /// Reads the metadata beside `jtl`: `Ok(None)` when there is none.
    pub fn read_beside(jtl: &Path) -> Result<Option<ShardMeta>, String> {
        let path = meta_path(jtl);
        match std::fs::read_to_string(&path) {
            Ok(text) => ShardMeta::from_json(&text)
                .map(Some)
                .map_err(|e| format!("{}: {e}", path.display())),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(format!("cannot read {}: {err}", path.display())),
        }
    }

    /// Writes the metadata beside `jtl` (through a temporary file, so a reader never
    /// sees half of it).
    pub fn write_beside(&self, jtl: &Path) -> Result<(), String> {
        let path = meta_path(jtl);
        let mut tmp = path.as_os_str().to_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        std::fs::write(&tmp, self.to_json())
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_interpolates_the_offset() {
        let meta = ShardMeta {
            shard: Some((2, 3)),
            mode: "divide".into(),
            host: "h".into(),
            version: "1".into(),
            started: 1000,
            ended: Some(3000),
            finished: true,
            reference: Some("127.0.0.1:123".into()),
            offset_start_ms: Some(100.0),
            offset_end_ms: Some(300.0),
        };
        let back = ShardMeta::from_json(&meta.to_json()).unwrap();
        assert_eq!(back, meta);
        assert_eq!(back.offset_at(2000), 200.0);
        assert_eq!(back.offset_at(0), 100.0);
        assert_eq!(back.offset_at(9000), 300.0);
        assert_eq!(back.drift_ms(), Some(200.0));
    }
}
