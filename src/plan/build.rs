//! Walks the loaded tree into a [`TestPlan`](super::TestPlan).
