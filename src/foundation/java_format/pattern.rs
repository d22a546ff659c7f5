//! The tokenizer both date dialects share: runs of one ASCII letter are fields, text in
//! single quotes is literal (`''` is a quote, inside quotes or out), everything else is
//! literal too. Each dialect decides which letters and repeat counts it accepts and what
//! other characters mean (`DateTimeFormatter` reserves `{`, `}`, `#` and reads `[`/`]` as
//! optional sections). The English names are here because writer and reader both use them.

use super::date::Dialect;

pub(super) const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Monday first, as `java.time.DayOfWeek` counts.
pub(super) const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// One piece of a compiled date pattern.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token {
    Literal(String),
    /// A pattern letter and how many times it was repeated.
    Field(char, usize),
}

/// Cuts `pattern` into tokens, rejecting what the dialect's Java class rejects, with
/// that class's message.
pub(super) fn tokenize(pattern: &str, dialect: Dialect) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            let Some((text, next)) = quoted(&chars, i) else {
                return Err(match dialect {
                    Dialect::SimpleDateFormat => "Unterminated quote".to_string(),
                    Dialect::DateTimeFormatter => {
                        "Pattern ends with an incomplete string literal".to_string()
                    }
                });
            };
            push_literal(&mut tokens, &text);
            i = next;
        } else if c.is_ascii_alphabetic() {
            let count = chars[i..].iter().take_while(|x| **x == c).count();
            check_letter(dialect, c, count)?;
            tokens.push(Token::Field(c, count));
            i += count;
        } else {
            if dialect == Dialect::DateTimeFormatter {
                if matches!(c, '{' | '}' | '#') {
                    return Err(format!("Pattern includes reserved character: '{c}'"));
                }
                // `[` and `]` mark optional sections; every field is available when
                // formatting, and reading treats the section as required.
                if matches!(c, '[' | ']') {
                    i += 1;
                    continue;
                }
            }
            push_literal(&mut tokens, &c.to_string());
            i += 1;
        }
    }
    Ok(tokens)
}

/// Reads `'...'` from the opening quote at `open`; `''` is a quote. Returns the text and
/// the index after the closing quote; `None` when the quote is never closed. Decimal
/// patterns quote the same way.
pub(super) fn quoted(chars: &[char], open: usize) -> Option<(String, usize)> {
    if chars.get(open + 1) == Some(&'\'') {
        return Some(("'".to_string(), open + 2));
    }
    let mut text = String::new();
    let mut i = open + 1;
    loop {
        match chars.get(i)? {
            '\'' if chars.get(i + 1) == Some(&'\'') => {
                text.push('\'');
                i += 2;
            }
            '\'' => return Some((text, i + 1)),
            c => {
                text.push(*c);
                i += 1;
            }
        }
    }
}

fn push_literal(tokens: &mut Vec<Token>, text: &str) {
    match tokens.last_mut() {
        Some(Token::Literal(last)) => last.push_str(text),
        _ => tokens.push(Token::Literal(text.to_string())),
    }
}

fn check_letter(dialect: Dialect, letter: char, count: usize) -> Result<(), String> {
    match dialect {
        Dialect::SimpleDateFormat if "GyYMLdHkKhmsSEuaDFwWzZX".contains(letter) => Ok(()),
        Dialect::SimpleDateFormat => Err(format!("Illegal pattern character '{letter}'")),
        Dialect::DateTimeFormatter => check_formatter_letter(letter, count),
    }
}

/// The largest repeat `DateTimeFormatter` accepts for each letter it knows.
fn check_formatter_letter(letter: char, count: usize) -> Result<(), String> {
    let max = match letter {
        'y' | 'u' | 'Y' => 19,
        'G' | 'M' | 'L' | 'Q' | 'q' | 'E' | 'e' | 'c' | 'Z' | 'X' | 'x' => 5,
        'z' | 'O' => 4,
        'D' => 3,
        'd' | 'H' | 'h' | 'k' | 'K' | 'm' | 's' | 'w' | 'V' => 2,
        'a' | 'W' | 'F' => 1,
        'S' => 9,
        'n' | 'N' | 'A' => 19,
        _ => return Err(format!("Unknown pattern letter: {letter}")),
    };
    if count > max || (letter == 'V' && count != 2) || (letter == 'O' && !matches!(count, 1 | 4)) {
        return Err(format!("Too many pattern letters: {letter}"));
    }
    Ok(())
}
