//! Scripting. `condition` is the small expression language that If and While
//! Controllers and the `__jexl3`, `__jexl2` and `__javaScript` functions evaluate when
//! the expression is a one-line comparison (the common case, no engine needed).
//! Scripts run on Rhai: `translate` turns Groovy, Java, BeanShell and JavaScript into
//! Rhai source at plan time, and `shims` supplies the Java/Groovy library calls that
//! translated code makes.

pub mod condition;
pub mod functions;
pub mod shims;
pub mod translate;
