//! Java's date and number patterns and number texts, in one place for the `.jtl` writer
//! and reader, the report, the functions, the samplers and the script shims.
//!
//! [`pattern`] cuts a date pattern into letters and literals (quotes, `''`) and holds the
//! English month and day names; [`date`] is the compiled [`JavaDateFormat`], which
//! formats in one of two [`Dialect`]s and reads text back into an instant
//! ([`date_read`]); [`decimal`] is `java.text.DecimalFormat` for whole numbers;
//! [`double`] is `Double.toString` and `Float.toString`.
//!
//! Java has two date pattern classes whose letters mostly agree but not always:
//! `SimpleDateFormat` (JMeter's `timestamp_format`, the report generator's date range) and
//! `java.time.format.DateTimeFormatter` (`__time`, the date functions, scripts). Where
//! they differ (`u`, `S`, text widths, zone letters, what a pattern may contain) the
//! dialect decides; everything else is shared.

pub mod date;
mod date_read;
pub mod decimal;
pub mod double;
mod pattern;

pub use date::{Dialect, JavaDateFormat};
pub use decimal::DecimalFormat;
pub use double::{java_double, java_float};
