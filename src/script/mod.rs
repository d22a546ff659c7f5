//! Scripting. For now this holds the small expression language that If and While
//! Controllers and the `__jexl3`, `__jexl2` and `__javaScript` functions evaluate: the
//! JavaScript/JEXL conditions users write most (comparisons of quoted strings and
//! numbers, arithmetic, `&&`, `||`, `!`). Full scripts on Rhai come later.

pub mod condition;
pub mod functions;
