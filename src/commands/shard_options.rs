//! The command line's distributed options as run properties: `--shard I/N` (or, when
//! absent, the array-job environment) and `--replicate` become `jmxr.shard` and
//! `jmxr.shard.mode`, which the engine reads through `foundation::shard`.

use std::collections::HashMap;

use crate::foundation::properties::Properties;
use crate::foundation::shard::{Shard, MODE_PROPERTY, SHARD_PROPERTY};

use super::cli::RawArgs;

/// Sets the shard properties from the options or the environment (`env`), and checks
/// the result.
pub fn apply(
    raw: &RawArgs,
    properties: &mut HashMap<String, String>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<(), String> {
    let shard = raw
        .shard
        .clone()
        .or_else(|| super::distributed::shard_from_env(env));
    if let Some(shard) = shard {
        properties.insert(SHARD_PROPERTY.into(), shard);
    }
    if raw.replicate {
        if !properties.contains_key(SHARD_PROPERTY) {
            return Err("--replicate needs --shard I/N (each shard runs the whole plan)".into());
        }
        properties.insert(MODE_PROPERTY.into(), "replicate".into());
    }
    Shard::from_properties(&Properties::from_map(properties.clone()))
        .map_err(|e| format!("--shard: {e}"))?;
    Ok(())
}
