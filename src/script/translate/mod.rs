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
//!
//! The pipeline is [`lexer`] (tokens of the union of the four languages) → [`parser`]
//! and [`parse_expr`] (one syntax tree, [`ast`]) → [`emit`] and [`emit_expr`] (Rhai
//! text), with [`walk`] answering the emitter's questions about a body and [`names`]
//! holding the bindings, shimmed classes and reserved words.

mod ast;
mod emit;
mod emit_expr;
mod lexer;
mod names;
mod parse_expr;
mod parser;
mod protobuf;
mod walk;

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
    translate_with(language, source, None)
}

/// Translates with the run's `.proto` files at hand: generated-Java protobuf code whose
/// types they define becomes calls of the `Protobuf` Rhai API.
pub fn translate_with(
    language: SourceLanguage,
    source: &str,
    protobuf: Option<std::sync::Arc<crate::script::protobuf::Schema>>,
) -> Translation {
    if language == SourceLanguage::Rhai {
        return Translation {
            rhai: source.to_string(),
            problems: Vec::new(),
        };
    }
    let tokens = match lexer::tokenize(language, source) {
        Ok(tokens) => tokens,
        Err((line, message)) => {
            return Translation {
                rhai: String::new(),
                problems: vec![Untranslatable {
                    line,
                    construct: message,
                }],
            }
        }
    };
    let mut parser = parser::Parser::new(language, tokens);
    let statements = parser.script();
    let mut emitter = emit::Emitter::new(language);
    emitter.protobuf = protobuf;
    emitter.event_stream = source.contains("text/event-stream");
    emitter.script(&statements);
    let mut problems = parser.problems;
    problems.extend(emitter.problems);
    problems.sort_by_key(|p| p.line);
    Translation {
        rhai: emitter.out,
        problems,
    }
}

#[cfg(test)]
mod tests;
