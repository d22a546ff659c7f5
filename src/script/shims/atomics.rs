//! `java.util.concurrent.atomic.AtomicLong` and `AtomicInteger`: counters that many
//! virtual users share through `props` (`props.put("seq", new AtomicLong(0))`, then
//! `props.get("seq").incrementAndGet()`). A copy of the value is another handle on the
//! same counter, so every user's `props.get` reaches one atomic integer and each
//! increment hands out a distinct number. `AtomicInteger` wraps at 32 bits as Java's does.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use rhai::{Dynamic, Engine, INT};

use super::conversions::as_int;
use super::func;
use super::{Class, ShimResult};

#[derive(Clone)]
pub(crate) struct Atomic {
    value: Arc<AtomicI64>,
    /// `AtomicInteger`: results wrap to 32 bits.
    int: bool,
}

impl Atomic {
    fn new(initial: INT, int: bool) -> Atomic {
        Atomic {
            value: Arc::new(AtomicI64::new(if int {
                i64::from(initial as i32)
            } else {
                initial
            })),
            int,
        }
    }

    fn wrap(&self, value: i64) -> i64 {
        if self.int {
            i64::from(value as i32)
        } else {
            value
        }
    }

    /// Applies `f` atomically; returns (old, new).
    fn update(&self, f: impl Fn(i64) -> i64) -> (i64, i64) {
        let mut current = self.value.load(Ordering::SeqCst);
        loop {
            let next = self.wrap(f(current));
            match self.value.compare_exchange_weak(
                current,
                next,
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => return (current, next),
                Err(seen) => current = seen,
            }
        }
    }

    fn get(&self) -> INT {
        self.value.load(Ordering::SeqCst)
    }
}

fn initial(value: &Dynamic) -> ShimResult<INT> {
    as_int(value)
}

pub(crate) fn classes() -> Vec<Class> {
    let mut long = Class::new("AtomicLong");
    func!(long, "create", || Atomic::new(0, false));
    func!(long, "create", |v: Dynamic| initial(&v)
        .map(|v| Atomic::new(v, false)));
    let mut int = Class::new("AtomicInteger");
    func!(int, "create", || Atomic::new(0, true));
    func!(int, "create", |v: Dynamic| initial(&v)
        .map(|v| Atomic::new(v, true)));
    vec![long, int]
}

pub(crate) fn register(engine: &mut Engine) {
    engine
        .register_type_with_name::<Atomic>("AtomicLong")
        .register_fn("get", |a: &mut Atomic| a.get())
        .register_fn("longValue", |a: &mut Atomic| a.get())
        .register_fn("intValue", |a: &mut Atomic| i64::from(a.get() as i32))
        .register_fn("toString", |a: &mut Atomic| a.get().to_string())
        .register_fn("to_string", |a: &mut Atomic| a.get().to_string())
        .register_fn("set", |a: &mut Atomic, v: INT| {
            a.update(|_| v);
        })
        .register_fn("lazySet", |a: &mut Atomic, v: INT| {
            a.update(|_| v);
        })
        .register_fn("getAndSet", |a: &mut Atomic, v: INT| a.update(|_| v).0)
        .register_fn("incrementAndGet", |a: &mut Atomic| {
            a.update(|v| v.wrapping_add(1)).1
        })
        .register_fn("getAndIncrement", |a: &mut Atomic| {
            a.update(|v| v.wrapping_add(1)).0
        })
        .register_fn("decrementAndGet", |a: &mut Atomic| {
            a.update(|v| v.wrapping_sub(1)).1
        })
        .register_fn("getAndDecrement", |a: &mut Atomic| {
            a.update(|v| v.wrapping_sub(1)).0
        })
        .register_fn("addAndGet", |a: &mut Atomic, d: INT| {
            a.update(|v| v.wrapping_add(d)).1
        })
        .register_fn("getAndAdd", |a: &mut Atomic, d: INT| {
            a.update(|v| v.wrapping_add(d)).0
        })
        .register_fn(
            "compareAndSet",
            |a: &mut Atomic, expected: INT, next: INT| {
                let next = a.wrap(next);
                a.value
                    .compare_exchange(expected, next, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
            },
        );
}

#[cfg(test)]
mod tests {
    use super::super::test_support::run;
    use super::*;

    #[test]
    fn copies_share_one_counter() {
        let (value, _) = run(
            r#"let a = AtomicLong::create(5);
               let b = a;
               b.incrementAndGet();
               a.getAndAdd(10);
               `${a.get()} ${b.incrementAndGet()} ${a.compareAndSet(17, 1)} ${a}`"#,
            &[],
        );
        assert_eq!(value.to_string(), "16 17 true 1");
    }

    #[test]
    fn atomic_integer_wraps_at_32_bits() {
        let (value, _) = run(
            r#"let i = AtomicInteger::create(2147483647); i.incrementAndGet()"#,
            &[],
        );
        assert_eq!(value.as_int().unwrap(), -2147483648);
    }

    #[test]
    fn increments_from_many_threads_are_distinct() {
        let counter = Atomic::new(0, false);
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let counter = counter.clone();
                std::thread::spawn(move || {
                    (0..1000)
                        .map(|_| counter.update(|v| v + 1).1)
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<i64> = handles
            .into_iter()
            .flat_map(|h| h.join().expect("thread"))
            .collect();
        all.sort_unstable();
        assert_eq!(all, (1..=8000).collect::<Vec<_>>());
    }
}
