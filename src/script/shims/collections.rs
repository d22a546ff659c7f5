//! Java's List and Map methods and Groovy's collection methods on Rhai arrays, maps
//! and ranges. Closures arrive as Rhai function pointers; a Groovy closure with two
//! parameters over a map (`each { k, v -> }`) is called through the `_kv` variants the
//! translator writes.

use rhai::{Array, Dynamic, Engine, FnPtr, ImmutableString, Map, NativeCallContext, INT};

use super::conversions::{compare_to, truthy};
use super::func;
use super::{error, java_string, Class, ShimResult};

type Ctx<'a> = NativeCallContext<'a>;

fn call(ctx: &Ctx, f: &FnPtr, item: Dynamic) -> ShimResult<Dynamic> {
    f.call_within_context::<Dynamic>(ctx, (item,))
}

fn call2(ctx: &Ctx, f: &FnPtr, a: Dynamic, b: Dynamic) -> ShimResult<Dynamic> {
    f.call_within_context::<Dynamic>(ctx, (a, b))
}

fn entry(key: &str, value: Dynamic) -> Dynamic {
    let mut map = Map::new();
    map.insert("key".into(), Dynamic::from(key.to_string()));
    map.insert("value".into(), value);
    Dynamic::from(map)
}

fn each(ctx: Ctx, items: &mut Array, f: FnPtr) -> ShimResult<Array> {
    for item in items.iter() {
        let _ = call(&ctx, &f, item.clone())?;
    }
    Ok(items.clone())
}

fn each_with_index(ctx: Ctx, items: &mut Array, f: FnPtr) -> ShimResult<()> {
    for (i, item) in items.iter().enumerate() {
        let _ = call2(&ctx, &f, item.clone(), Dynamic::from(i as INT))?;
    }
    Ok(())
}

fn collect(ctx: Ctx, items: &mut Array, f: FnPtr) -> ShimResult<Array> {
    items.iter().map(|i| call(&ctx, &f, i.clone())).collect()
}

fn find(ctx: Ctx, items: &mut Array, f: FnPtr) -> ShimResult<Dynamic> {
    for item in items.iter() {
        if truthy(&call(&ctx, &f, item.clone())?) {
            return Ok(item.clone());
        }
    }
    Ok(Dynamic::UNIT)
}

fn find_all(ctx: Ctx, items: &mut Array, f: FnPtr) -> ShimResult<Array> {
    let mut out = Array::new();
    for item in items.iter() {
        if truthy(&call(&ctx, &f, item.clone())?) {
            out.push(item.clone());
        }
    }
    Ok(out)
}

fn any(ctx: Ctx, items: &mut Array, f: FnPtr) -> ShimResult<bool> {
    for item in items.iter() {
        if truthy(&call(&ctx, &f, item.clone())?) {
            return Ok(true);
        }
    }
    Ok(false)
}

fn every(ctx: Ctx, items: &mut Array, f: FnPtr) -> ShimResult<bool> {
    for item in items.iter() {
        if !truthy(&call(&ctx, &f, item.clone())?) {
            return Ok(false);
        }
    }
    Ok(true)
}

fn inject(ctx: Ctx, items: &mut Array, initial: Dynamic, f: FnPtr) -> ShimResult<Dynamic> {
    let mut acc = initial;
    for item in items.iter() {
        acc = call2(&ctx, &f, acc, item.clone())?;
    }
    Ok(acc)
}

fn sum(items: &mut Array) -> ShimResult<Dynamic> {
    if items.iter().all(|i| i.is_int()) {
        return Ok(Dynamic::from(
            items.iter().map(|i| i.as_int().unwrap_or(0)).sum::<INT>(),
        ));
    }
    let mut total = 0.0;
    for item in items.iter() {
        total += super::conversions::as_double(item)?;
    }
    Ok(Dynamic::from(total))
}

fn sorted(items: &Array) -> ShimResult<Array> {
    let mut out = items.clone();
    let mut failure = None;
    out.sort_by(|a, b| match compare_to(a.clone(), b.clone()) {
        Ok(n) => n.cmp(&0),
        Err(e) => {
            failure = Some(e);
            std::cmp::Ordering::Equal
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

fn extreme(items: &mut Array, want_max: bool) -> ShimResult<Dynamic> {
    let sorted = sorted(items)?;
    let pick = if want_max {
        sorted.last()
    } else {
        sorted.first()
    };
    Ok(pick.cloned().unwrap_or(Dynamic::UNIT))
}

fn index_of(items: &mut Array, value: Dynamic) -> INT {
    let wanted = java_string(&value);
    items
        .iter()
        .position(|i| i.type_name() == value.type_name() && java_string(i) == wanted)
        .map_or(-1, |p| p as INT)
}

fn register_lists(engine: &mut Engine) {
    engine
        .register_fn("size", |a: &mut Array| a.len() as INT)
        .register_get("length", |a: &mut Array| a.len() as INT)
        .register_fn("isEmpty", |a: &mut Array| a.is_empty())
        .register_fn("add", |a: &mut Array, v: Dynamic| {
            a.push(v);
            true
        })
        .register_fn("add", |a: &mut Array, at: INT, v: Dynamic| {
            let at = (at.max(0) as usize).min(a.len());
            a.insert(at, v);
        })
        .register_fn("addAll", |a: &mut Array, more: Array| {
            a.extend(more);
            true
        })
        .register_fn("get", |a: &mut Array, i: INT| -> ShimResult<Dynamic> {
            a.get(i.max(0) as usize)
                .filter(|_| i >= 0)
                .cloned()
                .map_or_else(
                    || {
                        error(format!(
                            "IndexOutOfBoundsException: Index {i} out of bounds for length {}",
                            a.len()
                        ))
                    },
                    Ok,
                )
        })
        .register_fn(
            "set",
            |a: &mut Array, i: INT, v: Dynamic| -> ShimResult<Dynamic> {
                match a.get_mut(i.max(0) as usize) {
                    Some(slot) if i >= 0 => Ok(std::mem::replace(slot, v)),
                    _ => error(format!("IndexOutOfBoundsException: Index {i}")),
                }
            },
        )
        .register_fn("remove", |a: &mut Array, v: ImmutableString| {
            let wanted = Dynamic::from(v);
            let at = index_of(a, wanted);
            if at >= 0 {
                let _ = a.remove(at as usize);
            }
            at >= 0
        })
        .register_fn("indexOf", index_of)
        .register_fn("join", |a: &mut Array, sep: &str| {
            a.iter().map(java_string).collect::<Vec<_>>().join(sep)
        })
        .register_fn("join", |a: &mut Array| {
            a.iter().map(java_string).collect::<String>()
        })
        .register_fn("first", |a: &mut Array| {
            a.first().cloned().unwrap_or(Dynamic::UNIT)
        })
        .register_fn("last", |a: &mut Array| {
            a.last().cloned().unwrap_or(Dynamic::UNIT)
        })
        .register_fn("sort", |a: &mut Array| -> ShimResult<Array> {
            *a = sorted(a)?;
            Ok(a.clone())
        })
        .register_fn("reverse", |a: &mut Array| {
            a.iter().rev().cloned().collect::<Array>()
        })
        .register_fn("unique", |a: &mut Array| {
            let mut seen = std::collections::HashSet::new();
            a.retain(|i| seen.insert(format!("{}:{}", i.type_name(), java_string(i))));
            a.clone()
        })
        .register_fn(
            "subList",
            |a: &mut Array, from: INT, to: INT| -> ShimResult<Array> {
                if from < 0 || to as usize > a.len() || from > to {
                    return error(format!(
                        "IndexOutOfBoundsException: fromIndex {from}, toIndex {to}"
                    ));
                }
                Ok(a[from as usize..to as usize].to_vec())
            },
        )
        .register_fn("take", |a: &mut Array, n: INT| {
            a.iter().take(n.max(0) as usize).cloned().collect::<Array>()
        })
        .register_fn("toList", |a: &mut Array| a.clone())
        .register_fn("toArray", |a: &mut Array| a.clone())
        .register_fn("sum", sum)
        .register_fn("max", |a: &mut Array| extreme(a, true))
        .register_fn("min", |a: &mut Array| extreme(a, false))
        .register_fn("each", each)
        .register_fn("eachWithIndex", each_with_index)
        .register_fn("collect", collect)
        .register_fn("find", find)
        .register_fn("findAll", find_all)
        .register_fn("any", any)
        .register_fn("every", every)
        .register_fn("inject", inject)
        .register_fn(
            "count",
            |ctx: Ctx, a: &mut Array, f: FnPtr| -> ShimResult<INT> {
                Ok(find_all(ctx, a, f)?.len() as INT)
            },
        )
        .register_fn("toString", |a: &mut Array| {
            java_string(&Dynamic::from(a.clone()))
        });
}

fn map_each(ctx: Ctx, map: &mut Map, f: FnPtr) -> ShimResult<()> {
    for (k, v) in map.iter() {
        let _ = call(&ctx, &f, entry(k, v.clone()))?;
    }
    Ok(())
}

fn map_each_kv(ctx: Ctx, map: &mut Map, f: FnPtr) -> ShimResult<()> {
    for (k, v) in map.iter() {
        let _ = call2(&ctx, &f, Dynamic::from(k.to_string()), v.clone())?;
    }
    Ok(())
}

fn map_collect_kv(ctx: Ctx, map: &mut Map, f: FnPtr) -> ShimResult<Array> {
    map.iter()
        .map(|(k, v)| call2(&ctx, &f, Dynamic::from(k.to_string()), v.clone()))
        .collect()
}

fn map_find_all_kv(ctx: Ctx, map: &mut Map, f: FnPtr) -> ShimResult<Map> {
    let mut out = Map::new();
    for (k, v) in map.iter() {
        if truthy(&call2(&ctx, &f, Dynamic::from(k.to_string()), v.clone())?) {
            out.insert(k.clone(), v.clone());
        }
    }
    Ok(out)
}

fn map_any_kv(ctx: Ctx, map: &mut Map, f: FnPtr) -> ShimResult<bool> {
    for (k, v) in map.iter() {
        if truthy(&call2(&ctx, &f, Dynamic::from(k.to_string()), v.clone())?) {
            return Ok(true);
        }
    }
    Ok(false)
}

fn key(k: &Dynamic) -> String {
    java_string(k)
}

fn register_maps(engine: &mut Engine) {
    engine
        .register_fn("get", |m: &mut Map, k: Dynamic| {
            m.get(key(&k).as_str()).cloned().unwrap_or(Dynamic::UNIT)
        })
        .register_fn("getOrDefault", |m: &mut Map, k: Dynamic, d: Dynamic| {
            m.get(key(&k).as_str()).cloned().unwrap_or(d)
        })
        .register_fn("put", |m: &mut Map, k: Dynamic, v: Dynamic| {
            m.insert(key(&k).into(), v).unwrap_or(Dynamic::UNIT)
        })
        .register_fn("putAll", |m: &mut Map, more: Map| m.extend(more))
        .register_fn("containsKey", |m: &mut Map, k: Dynamic| {
            m.contains_key(key(&k).as_str())
        })
        .register_fn("containsValue", |m: &mut Map, v: Dynamic| {
            let wanted = java_string(&v);
            m.values().any(|x| java_string(x) == wanted)
        })
        .register_fn("keySet", |m: &mut Map| -> Array {
            m.keys().map(|k| Dynamic::from(k.to_string())).collect()
        })
        .register_fn("entrySet", |m: &mut Map| -> Array {
            m.iter().map(|(k, v)| entry(k, v.clone())).collect()
        })
        .register_fn("getKey", |m: &mut Map| {
            m.get("key").cloned().unwrap_or(Dynamic::UNIT)
        })
        .register_fn("getValue", |m: &mut Map| {
            m.get("value").cloned().unwrap_or(Dynamic::UNIT)
        })
        .register_fn("size", |m: &mut Map| m.len() as INT)
        .register_fn("isEmpty", |m: &mut Map| m.is_empty())
        .register_fn("each", map_each)
        .register_fn("each_kv", map_each_kv)
        .register_fn("collect_kv", map_collect_kv)
        .register_fn("findAll_kv", map_find_all_kv)
        .register_fn("any_kv", map_any_kv)
        .register_fn("toString", |m: &mut Map| {
            java_string(&Dynamic::from(m.clone()))
        });
}

fn range_items(from: INT, to: INT) -> Array {
    (from..to).map(Dynamic::from).collect()
}

fn register_ranges(engine: &mut Engine) {
    use std::ops::{Range, RangeInclusive};
    engine
        .register_fn("each", |ctx: Ctx, r: &mut Range<INT>, f: FnPtr| {
            each(ctx, &mut range_items(r.start, r.end), f)
        })
        .register_fn("each", |ctx: Ctx, r: &mut RangeInclusive<INT>, f: FnPtr| {
            each(ctx, &mut range_items(*r.start(), *r.end() + 1), f)
        })
        .register_fn("collect", |ctx: Ctx, r: &mut Range<INT>, f: FnPtr| {
            collect(ctx, &mut range_items(r.start, r.end), f)
        })
        .register_fn(
            "collect",
            |ctx: Ctx, r: &mut RangeInclusive<INT>, f: FnPtr| {
                collect(ctx, &mut range_items(*r.start(), *r.end() + 1), f)
            },
        )
        .register_fn("toList", |r: &mut Range<INT>| range_items(r.start, r.end))
        .register_fn("toList", |r: &mut RangeInclusive<INT>| {
            range_items(*r.start(), *r.end() + 1)
        })
        .register_fn("size", |r: &mut Range<INT>| (r.end - r.start).max(0))
        .register_fn("size", |r: &mut RangeInclusive<INT>| {
            (*r.end() - *r.start() + 1).max(0)
        });
}

pub(crate) fn classes() -> Vec<Class> {
    let mut arrays = Class::new("Arrays");
    func!(arrays, "asList", |a: Dynamic| -> Array {
        if a.is_array() {
            a.cast::<Array>()
        } else {
            vec![a]
        }
    });
    func!(arrays, "asList", |a: Dynamic, b: Dynamic| vec![a, b]);
    func!(arrays, "asList", |a: Dynamic, b: Dynamic, c: Dynamic| vec![
        a, b, c
    ]);
    func!(arrays, "asList", |a: Dynamic,
                             b: Dynamic,
                             c: Dynamic,
                             d: Dynamic| vec![
        a, b, c, d
    ]);
    func!(arrays, "toString", |a: Array| java_string(&Dynamic::from(
        a
    )));
    func!(arrays, "sort", |a: Array| sorted(&a));
    let mut collections = Class::new("Collections");
    func!(collections, "emptyList", Array::new);
    func!(collections, "emptyMap", Map::new);
    func!(collections, "sort", |a: Array| sorted(&a));
    func!(collections, "max", |mut a: Array| extreme(&mut a, true));
    func!(collections, "min", |mut a: Array| extreme(&mut a, false));
    func!(collections, "shuffle", |mut a: Array| {
        use rand::seq::SliceRandom;
        a.shuffle(&mut rand::thread_rng());
        a
    });
    vec![arrays, collections]
}

pub(crate) fn register(engine: &mut Engine) {
    register_lists(engine);
    register_maps(engine);
    register_ranges(engine);
}
