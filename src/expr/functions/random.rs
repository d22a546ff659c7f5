//! Random values: `__Random`, `__RandomString`, `__UUID`.
//!
//! Every draw uses the evaluating user's `ctx.rng`, so `--seed` makes them reproducible.

use rand::{Rng, RngCore};

use super::log::emit;
use super::{arg, arg_shared, stateless, store, Constructor, Function};
use crate::expr::Template;
use crate::foundation::java_text::java_trim;

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[
    ("__Random", random),
    ("__RandomString", random_string),
    ("__UUID", uuid),
];

/// `__Random(min,max[,var])`: uniform in `[min, max]`, both inclusive. The bounds are
/// read without copies and the number written with `itoa`: plans call it on every
/// sample (a random key for each request).
fn random(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 2, 3, |args, ctx| {
        let min = arg_shared(args, 0, ctx);
        let max = arg_shared(args, 1, ctx);
        let (Ok(min), Ok(max)) = (
            java_trim(&min).parse::<i64>(),
            java_trim(&max).parse::<i64>(),
        ) else {
            emit(
                "ERROR",
                &format!("__Random: {:?} or {:?} is not a number", &*min, &*max),
            );
            return String::new();
        };
        if min > max {
            emit("ERROR", &format!("__Random: min {min} is above max {max}"));
            return String::new();
        }
        let value = String::from(itoa::Buffer::new().format(ctx.rng.gen_range(min..=max)));
        store(args, 2, ctx, &value);
        value
    })
}

/// `__RandomString(length[,chars[,var]])`: without chars, any Unicode scalar value.
fn random_string(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 3, |args, ctx| {
        let length_text = arg(args, 0, ctx);
        // JMeter parses the length untrimmed.
        let Ok(length) = length_text.parse::<usize>() else {
            emit(
                "ERROR",
                &format!("__RandomString: bad length {length_text:?}"),
            );
            return String::new();
        };
        let chars: Vec<char> = arg(args, 1, ctx).trim().chars().collect();
        let value: String = (0..length)
            .map(|_| match chars.len() {
                0 => any_char(ctx.rng),
                n => chars[ctx.rng.gen_range(0..n)],
            })
            .collect();
        store(args, 2, ctx, &value);
        value
    })
}

/// A uniformly drawn Unicode scalar value (code points minus the surrogate block).
fn any_char(rng: &mut impl Rng) -> char {
    const SURROGATES: u32 = 0xE000 - 0xD800;
    let drawn = rng.gen_range(0..=(0x10FFFF - SURROGATES));
    let code = if drawn >= 0xD800 {
        drawn + SURROGATES
    } else {
        drawn
    };
    char::from_u32(code).unwrap_or('\u{FFFD}')
}

/// `__UUID()`: a version 4 UUID in lower-case canonical form.
fn uuid(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 0, 0, |_, ctx| {
        let mut bytes = [0u8; 16];
        ctx.rng.fill_bytes(&mut bytes);
        uuid::Builder::from_random_bytes(bytes)
            .into_uuid()
            .hyphenated()
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use crate::expr::functions::testing::Fixture;

    #[test]
    fn random_stays_within_inclusive_bounds() {
        let mut f = Fixture::new();
        let template = Fixture::compile("${__Random(1,3,R)}");
        let mut seen = [false; 4];
        for _ in 0..200 {
            let value: usize = f.run(&template).parse().unwrap_or(0);
            assert!((1..=3).contains(&value));
            seen[value] = true;
        }
        assert!(seen[1] && seen[3]);
        assert!(f.var("R").is_some());
        assert_eq!(f.eval("${__Random( 5 , 5 )}"), "5");
        assert_eq!(f.eval("${__Random(5,1)}"), "");
    }

    #[test]
    fn random_takes_nested_bounds() {
        let mut f = Fixture::new();
        f.vars.put("MAX", "1");
        assert_eq!(f.eval("${__Random(1,${MAX})}"), "1");
    }

    #[test]
    fn random_string_uses_given_chars() {
        let mut f = Fixture::new();
        let value = f.eval("${__RandomString(12,ab,V)}");
        assert_eq!(value.chars().count(), 12);
        assert!(value.chars().all(|c| c == 'a' || c == 'b'));
        assert_eq!(f.var("V"), Some(value.as_str()));
        assert_eq!(f.eval("${__RandomString(5)}").chars().count(), 5);
        assert_eq!(f.eval("${__RandomString(x)}"), "");
    }

    #[test]
    fn uuid_is_version_4() {
        let mut f = Fixture::new();
        let value = f.eval("${__UUID}");
        let parsed = uuid::Uuid::parse_str(&value).map(|u| u.get_version_num());
        assert_eq!(parsed.ok(), Some(4));
        assert_eq!(value, value.to_lowercase());
        assert_ne!(value, f.eval("${__UUID()}"));
    }
}
