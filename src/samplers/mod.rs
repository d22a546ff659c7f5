//! Samplers, one module per protocol or family. Each turns its resolved settings into a
//! `SampleResult`; none of them schedules or loops.
