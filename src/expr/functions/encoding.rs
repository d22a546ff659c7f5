//! Encoding and choice functions: `__base64Encode`, `__base64Decode` (jmeter-plugins),
//! `__digest`, `__escapeOroRegexpChars`, `__chooseRandom` (jmeter-plugins),
//! `__RandomFromMultipleVars` and `__iterationNum`.

use rand::Rng;

use super::hashes::{digest, hex};
use super::log::emit;
use super::{arg, stateless, store, Constructor, Function};
use crate::expr::Template;

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[
    ("__base64Encode", base64_encode),
    ("__base64Decode", base64_decode),
    ("__digest", digest_fn),
    ("__chooseRandom", choose_random),
    ("__RandomFromMultipleVars", random_from_multiple_vars),
    ("__escapeOroRegexpChars", escape_oro_regexp_chars),
    ("__iterationNum", iteration_num),
];

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard Base64 with padding.
pub fn base64(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, b| n << 8 | *b as u32) << (8 * (3 - chunk.len()));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes Base64 (standard or URL-safe alphabet), skipping what is not part of it, as
/// Commons Codec does.
pub fn unbase64(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in text.bytes() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => continue,
        };
        acc = acc << 6 | value as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

/// `__base64Encode(text[,var])`: the UTF-8 bytes of the text in Base64.
fn base64_encode(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 2, |args, ctx| {
        let value = base64(arg(args, 0, ctx).as_bytes());
        store(args, 1, ctx, &value);
        value
    })
}

/// `__base64Decode(text[,var])`: the decoded bytes read as UTF-8.
fn base64_decode(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 2, |args, ctx| {
        let value = String::from_utf8_lossy(&unbase64(&arg(args, 0, ctx))).into_owned();
        store(args, 1, ctx, &value);
        value
    })
}

/// `__digest(algorithm,text[,salt[,upper[,var]]])`: hex digest of the text then the salt.
fn digest_fn(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 2, 5, |args, ctx| {
        let algorithm = arg(args, 0, ctx);
        let mut data = arg(args, 1, ctx).into_bytes();
        data.extend(arg(args, 2, ctx).into_bytes());
        let Some(bytes) = digest(&algorithm, &data) else {
            emit("ERROR", &format!("__digest: no algorithm {algorithm:?}"));
            return String::new();
        };
        let mut value = hex(&bytes);
        if arg(args, 3, ctx).trim().eq_ignore_ascii_case("true") {
            value = value.to_uppercase();
        }
        store(args, 4, ctx, &value);
        value
    })
}

/// `__chooseRandom(value1,...,valueN,var)`: one of the values, also stored in `var`.
fn choose_random(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 2, usize::MAX, |args, ctx| {
        let choices = args.len() - 1;
        let i = ctx.rng.gen_range(0..choices);
        let value = arg(args, i, ctx);
        store(args, choices, ctx, &value);
        value
    })
}

/// `__RandomFromMultipleVars(a|b|...[,var])`: a random value among the variables named;
/// a variable with `name_matchNr` contributes `name_1..name_n`, others their value when
/// not empty.
fn random_from_multiple_vars(
    args: Vec<Template>,
    _site: usize,
) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 2, |args, ctx| {
        let names = arg(args, 0, ctx);
        let mut values: Vec<String> = Vec::new();
        for name in names.trim().split('|').filter(|n| !n.is_empty()) {
            let count: usize = ctx
                .vars
                .get(&format!("{name}_matchNr"))
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            if count > 0 {
                for i in 1..=count {
                    values.extend(ctx.vars.get(&format!("{name}_{i}")).map(str::to_string));
                }
            } else if let Some(value) = ctx.vars.get(name).filter(|v| !v.is_empty()) {
                values.push(value.to_string());
            }
        }
        let value = if values.is_empty() {
            String::new()
        } else {
            values.swap_remove(ctx.rng.gen_range(0..values.len()))
        };
        store(args, 1, ctx, &value);
        value
    })
}

/// `__escapeOroRegexpChars(text[,var])`: every character that is not a letter, digit or
/// `_` escaped with `\`, as ORO's `Perl5Compiler.quotemeta` does.
fn escape_oro_regexp_chars(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 2, |args, ctx| {
        let mut value = String::new();
        for c in arg(args, 0, ctx).chars() {
            if !(c.is_ascii_alphanumeric() || c == '_') {
                value.push('\\');
            }
            value.push(c);
        }
        store(args, 1, ctx, &value);
        value
    })
}

/// `__iterationNum()`: the thread-group iteration of the evaluating user, from 1.
fn iteration_num(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 0, 0, |_, ctx| {
        let key = format!("__jm__{}__idx", ctx.thread.group_name);
        let index: u64 = ctx.vars.get(&key).and_then(|v| v.parse().ok()).unwrap_or(0);
        (index + 1).to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::functions::testing::Fixture;

    #[test]
    fn base64_round_trips() {
        for text in ["", "f", "fo", "foo", "foob", "fooba", "foobar", "héllo"] {
            assert_eq!(unbase64(&base64(text.as_bytes())), text.as_bytes());
        }
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(b"fo"), "Zm8=");
    }

    #[test]
    fn functions_evaluate_and_store() {
        let mut f = Fixture::new();
        assert_eq!(f.eval("${__base64Encode(user:pass,b)}"), "dXNlcjpwYXNz");
        assert_eq!(f.var("b"), Some("dXNlcjpwYXNz"));
        assert_eq!(f.eval("${__base64Decode(dXNlcjpwYXNz)}"), "user:pass");
        assert_eq!(
            f.eval("${__digest(MD5,ab,c,true,d)}"),
            "900150983CD24FB0D6963F7D28E17F72"
        );
        let chosen = f.eval("${__chooseRandom(x,y,z,pick)}");
        assert!(["x", "y", "z"].contains(&chosen.as_str()));
        assert_eq!(f.var("pick"), Some(chosen.as_str()));
        f.vars.put("ids_matchNr", "2");
        f.vars.put("ids_1", "a");
        f.vars.put("ids_2", "b");
        f.vars.put("one", "c");
        let picked = f.eval("${__RandomFromMultipleVars(ids|one|unset,r)}");
        assert!(["a", "b", "c"].contains(&picked.as_str()), "{picked}");
        assert_eq!(
            f.eval("${__escapeOroRegexpChars(a.b[1]_c)}"),
            "a\\.b\\[1\\]_c"
        );
        f.vars.put("__jm__Users__idx", "4");
        assert_eq!(f.eval("${__iterationNum()}"), "5");
    }
}
