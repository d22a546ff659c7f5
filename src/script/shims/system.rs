//! `System` (clock, properties, environment), `Thread.sleep`, `UUID`, and random
//! numbers (`Random`, `ThreadLocalRandom`, `RandomStringUtils`).
//!
//! `Thread.sleep` really sleeps the calling thread, capped at [`MAX_SLEEP_MS`] so that a
//! script cannot hold a virtual user for longer than a run would tolerate; the cap is an
//! error, not a silent shortening.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rhai::{Dynamic, Engine, FLOAT, INT};

use super::func;
use super::{error, Class, ShimResult};

/// The longest `Thread.sleep` a script may ask for.
pub const MAX_SLEEP_MS: INT = 60_000;

pub(crate) fn now_millis() -> INT {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as INT)
}

fn nano_time() -> INT {
    use std::sync::OnceLock;
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_nanos() as INT
}

fn sleep(millis: INT) -> ShimResult<()> {
    if millis > MAX_SLEEP_MS {
        return error(format!(
            "Thread.sleep({millis}) exceeds the {MAX_SLEEP_MS} ms that scripts may sleep"
        ));
    }
    if millis > 0 {
        std::thread::sleep(Duration::from_millis(millis as u64));
    }
    Ok(())
}

fn system_property(name: &str) -> Dynamic {
    let value = match name {
        "user.dir" => std::env::current_dir()
            .map(|d| d.display().to_string())
            .ok(),
        "line.separator" => Some("\n".into()),
        "file.separator" => Some("/".into()),
        "path.separator" => Some(":".into()),
        "os.name" => Some(std::env::consts::OS.into()),
        "java.io.tmpdir" => Some(std::env::temp_dir().display().to_string()),
        "user.name" => std::env::var("USER").ok(),
        "user.home" => std::env::var("HOME").ok(),
        _ => None,
    };
    value.map_or(Dynamic::UNIT, Dynamic::from)
}

/// Java's `Random`; copies share the generator.
#[derive(Clone)]
pub(crate) struct JavaRandom(Arc<Mutex<SmallRng>>);

impl JavaRandom {
    fn new(seed: Option<INT>) -> JavaRandom {
        let rng = match seed {
            Some(seed) => SmallRng::seed_from_u64(seed as u64),
            None => SmallRng::from_entropy(),
        };
        JavaRandom(Arc::new(Mutex::new(rng)))
    }
}

fn bounded(rng: &JavaRandom, from: INT, to: INT) -> ShimResult<INT> {
    if to <= from {
        return error("IllegalArgumentException: bound must be greater than origin");
    }
    Ok(rng.0.lock().gen_range(from..to))
}

fn random_text(count: INT, alphabet: &[u8]) -> String {
    let mut rng = rand::thread_rng();
    (0..count.max(0))
        .map(|_| alphabet[rng.gen_range(0..alphabet.len())] as char)
        .collect()
}

const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const DIGITS: &[u8] = b"0123456789";
const ALPHANUMERIC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

pub(crate) fn classes() -> Vec<Class> {
    let mut system = Class::new("System");
    func!(system, "currentTimeMillis", now_millis);
    func!(system, "nanoTime", nano_time);
    func!(system, "getProperty", system_property);
    func!(system, "getProperty", |name: &str, default: Dynamic| {
        let value = system_property(name);
        if value.is_unit() {
            default
        } else {
            value
        }
    });
    func!(system, "getenv", |name: &str| {
        std::env::var(name).map_or(Dynamic::UNIT, Dynamic::from)
    });
    func!(system, "lineSeparator", || "\n".to_string());
    func!(system, "exit", |_code: INT| -> ShimResult<()> {
        error("System.exit is not allowed in a script")
    });
    let mut thread = Class::new("Thread");
    func!(thread, "sleep", sleep);
    let mut uuid = Class::new("UUID");
    func!(uuid, "randomUUID", || uuid::Uuid::new_v4().to_string());
    func!(uuid, "fromString", |s: &str| s.to_string());
    func!(uuid, "nameUUIDFromBytes", |bytes: rhai::Blob| {
        let digest = crate::expr::hashes::digest("MD5", &bytes).unwrap_or_default();
        let mut raw = [0u8; 16];
        raw.copy_from_slice(&digest[..16]);
        raw[6] = (raw[6] & 0x0f) | 0x30;
        raw[8] = (raw[8] & 0x3f) | 0x80;
        uuid::Uuid::from_bytes(raw).to_string()
    });
    let mut random = Class::new("Random");
    func!(random, "create", || JavaRandom::new(None));
    func!(random, "create", |seed: INT| JavaRandom::new(Some(seed)));
    let mut thread_local = Class::new("ThreadLocalRandom");
    func!(thread_local, "current", || JavaRandom::new(None));
    let mut strings = Class::new("RandomStringUtils");
    func!(strings, "randomAlphanumeric", |n: INT| random_text(
        n,
        ALPHANUMERIC
    ));
    func!(strings, "randomAlphabetic", |n: INT| random_text(
        n, LETTERS
    ));
    func!(strings, "randomNumeric", |n: INT| random_text(n, DIGITS));
    func!(strings, "random", |n: INT| random_text(n, ALPHANUMERIC));
    func!(strings, "random", |n: INT, chars: &str| random_text(
        n,
        chars.as_bytes()
    ));
    let mut time_unit = Class::new("TimeUnit");
    for (name, millis) in [
        ("MILLISECONDS", 1),
        ("SECONDS", 1000),
        ("MINUTES", 60_000),
        ("HOURS", 3_600_000),
    ] {
        time_unit.constant(name, Dynamic::from(TimeUnit(millis)));
    }
    let mut cookie = Class::new("Cookie");
    func!(cookie, "create", cookie_map);
    func!(
        cookie,
        "create",
        |name: Dynamic,
         value: Dynamic,
         domain: Dynamic,
         path: Dynamic,
         secure: bool,
         expires: INT| {
            let mut map = cookie_map(name, value, domain, path);
            map.insert("secure".into(), Dynamic::from(secure));
            map.insert("expires".into(), Dynamic::from(expires));
            map
        }
    );
    vec![
        system,
        thread,
        uuid,
        random,
        thread_local,
        strings,
        time_unit,
        cookie,
    ]
}

/// JMeter's `new Cookie(name, value, domain, path, ..)` as a map (`name`, `value`,
/// `domain`, `path`, `secure`, `expires`), which the cookie manager binding takes.
fn cookie_map(name: Dynamic, value: Dynamic, domain: Dynamic, path: Dynamic) -> rhai::Map {
    let mut map = rhai::Map::new();
    for (key, v) in [
        ("name", name),
        ("value", value),
        ("domain", domain),
        ("path", path),
    ] {
        map.insert(key.into(), Dynamic::from(super::java_string(&v)));
    }
    map.insert("secure".into(), Dynamic::from(false));
    map.insert("expires".into(), Dynamic::from(0 as INT));
    map
}

/// A `TimeUnit` constant: its length in milliseconds.
#[derive(Clone, Copy)]
pub(crate) struct TimeUnit(INT);

pub(crate) fn register(engine: &mut Engine) {
    engine
        .register_type_with_name::<JavaRandom>("Random")
        .register_fn("nextInt", |r: &mut JavaRandom| {
            r.0.lock().gen::<i32>() as INT
        })
        .register_fn("nextInt", |r: &mut JavaRandom, bound: INT| {
            bounded(r, 0, bound)
        })
        .register_fn("nextInt", |r: &mut JavaRandom, from: INT, to: INT| {
            bounded(r, from, to)
        })
        .register_fn("nextLong", |r: &mut JavaRandom| r.0.lock().gen::<INT>())
        .register_fn("nextLong", |r: &mut JavaRandom, from: INT, to: INT| {
            bounded(r, from, to)
        })
        .register_fn("nextDouble", |r: &mut JavaRandom| r.0.lock().gen::<FLOAT>())
        .register_fn("nextFloat", |r: &mut JavaRandom| r.0.lock().gen::<FLOAT>())
        .register_fn("nextBoolean", |r: &mut JavaRandom| r.0.lock().gen::<bool>())
        .register_fn("nextGaussian", |r: &mut JavaRandom| {
            // Box–Muller, as java.util.Random does.
            let mut rng = r.0.lock();
            let (u, v): (FLOAT, FLOAT) = (rng.gen(), rng.gen());
            (-2.0 * (1.0 - u).ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        })
        .register_type_with_name::<TimeUnit>("TimeUnit")
        .register_fn("sleep", |unit: &mut TimeUnit, n: INT| {
            sleep(n.saturating_mul(unit.0))
        })
        .register_fn("toMillis", |unit: &mut TimeUnit, n: INT| {
            n.saturating_mul(unit.0)
        })
        .register_fn("toSeconds", |unit: &mut TimeUnit, n: INT| {
            n.saturating_mul(unit.0) / 1000
        });
}
