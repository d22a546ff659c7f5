//! Questions the emitter asks about a body before writing it: which names it declares,
//! assigns and uses, and whether it jumps out with `break` or `continue`.

use std::collections::HashSet;

use super::ast::{Expr, Interpolation, MapKey, Stmt, StmtKind};

/// Calls `on_stmt` for every statement and `on_expr` for every expression, depth first.
fn walk(stmts: &[Stmt], on_stmt: &mut dyn FnMut(&Stmt), on_expr: &mut dyn FnMut(&Expr)) {
    for stmt in stmts {
        on_stmt(stmt);
        let mut exprs: Vec<&Expr> = Vec::new();
        let mut bodies: Vec<&[Stmt]> = Vec::new();
        match &stmt.kind {
            StmtKind::Expr(e) | StmtKind::Throw(e) | StmtKind::Return(Some(e)) => exprs.push(e),
            StmtKind::Let(names) => exprs.extend(names.iter().filter_map(|(_, v)| v.as_ref())),
            StmtKind::If {
                condition,
                then,
                otherwise,
            } => {
                exprs.push(condition);
                bodies.push(then);
                if let Some(o) = otherwise {
                    bodies.push(o);
                }
            }
            StmtKind::While { condition, body } | StmtKind::DoWhile { body, condition } => {
                exprs.push(condition);
                bodies.push(body);
            }
            StmtKind::For {
                init,
                condition,
                update,
                body,
            } => {
                bodies.push(init);
                exprs.extend(condition.iter());
                exprs.extend(update.iter());
                bodies.push(body);
            }
            StmtKind::ForIn { iterable, body, .. } => {
                exprs.push(iterable);
                bodies.push(body);
            }
            StmtKind::Switch { subject, cases } => {
                exprs.push(subject);
                for case in cases {
                    exprs.extend(case.labels.iter());
                    bodies.push(&case.body);
                }
            }
            StmtKind::Try {
                body,
                catch,
                finally,
            } => {
                bodies.push(body);
                if let Some((_, handler)) = catch {
                    bodies.push(handler);
                }
                bodies.push(finally);
            }
            StmtKind::Block(body) | StmtKind::Function { body, .. } => bodies.push(body),
            StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) | StmtKind::Empty => {}
        }
        for e in exprs {
            walk_expr(e, on_stmt, on_expr);
        }
        for body in bodies {
            walk(body, on_stmt, on_expr);
        }
    }
}

fn walk_expr(expr: &Expr, on_stmt: &mut dyn FnMut(&Stmt), on_expr: &mut dyn FnMut(&Expr)) {
    on_expr(expr);
    let mut children: Vec<&Expr> = Vec::new();
    match expr {
        Expr::Interpolated(parts) => {
            for part in parts {
                if let Interpolation::Code(e) = part {
                    children.push(e);
                }
            }
        }
        Expr::Field { target, .. } => children.push(target),
        Expr::Call { args, .. } | Expr::Static { args, .. } | Expr::New { args, .. } => {
            children.extend(args.iter())
        }
        Expr::Method { target, args, .. } => {
            children.push(target);
            children.extend(args.iter());
        }
        Expr::Index(a, b)
        | Expr::Binary(_, a, b)
        | Expr::Assign(_, a, b)
        | Expr::Elvis(a, b)
        | Expr::Range { from: a, to: b, .. } => {
            children.push(a);
            children.push(b);
        }
        Expr::Unary(_, a) | Expr::Convert(_, a) | Expr::InstanceOf(a, _) => children.push(a),
        Expr::Step { target, .. } => children.push(target),
        Expr::Ternary(a, b, c) => {
            children.push(a);
            children.push(b);
            children.push(c);
        }
        Expr::NewArray { size, fill, items } => {
            children.extend(size.iter().map(|b| &**b));
            children.push(fill);
            children.extend(items.iter());
        }
        Expr::List(items) => children.extend(items.iter()),
        Expr::Map(entries) => {
            for (key, value) in entries {
                if let MapKey::Computed(k) = key {
                    children.push(k);
                }
                children.push(value);
            }
        }
        Expr::Closure { body, .. } => walk(body, on_stmt, on_expr),
        Expr::Null
        | Expr::Bool(_)
        | Expr::Int(_)
        | Expr::Float(_)
        | Expr::Str(_)
        | Expr::Ident(_)
        | Expr::StaticField { .. }
        | Expr::Unsupported => {}
    }
    for child in children {
        walk_expr(child, on_stmt, on_expr);
    }
}

/// Whether evaluating `expr` changes a variable: an assignment or `++`/`--` in it.
pub fn changes_variables(expr: &Expr) -> bool {
    let mut found = false;
    walk_expr(expr, &mut |_| {}, &mut |e| {
        found |= matches!(e, Expr::Assign(..) | Expr::Step { .. });
    });
    found
}

/// Names declared anywhere in `stmts`: `let`s, loop variables, catch variables,
/// closure parameters.
pub fn declared_names(stmts: &[Stmt]) -> HashSet<String> {
    let mut names = HashSet::new();
    let mut closure_params = Vec::new();
    walk(
        stmts,
        &mut |stmt| match &stmt.kind {
            StmtKind::Let(declared) => names.extend(declared.iter().map(|(n, _)| n.clone())),
            StmtKind::ForIn { name, .. } => {
                names.insert(name.clone());
            }
            StmtKind::Try {
                catch: Some((name, _)),
                ..
            } => {
                names.insert(name.clone());
            }
            _ => {}
        },
        &mut |expr| {
            if let Expr::Closure { params, .. } = expr {
                closure_params.extend(params.iter().cloned());
            }
        },
    );
    names.extend(closure_params);
    names
}

/// Simple names assigned (`x = ..`, `x += ..`, `x++`) anywhere in `stmts`.
pub fn assigned_names(stmts: &[Stmt]) -> HashSet<String> {
    let mut names = HashSet::new();
    walk(stmts, &mut |_| {}, &mut |expr| match expr {
        Expr::Assign(_, target, _) | Expr::Step { target, .. } => {
            if let Expr::Ident(name) = &**target {
                names.insert(name.clone());
            }
        }
        _ => {}
    });
    names
}

/// Every name read, assigned or called in `stmts`.
pub fn used_names(stmts: &[Stmt]) -> HashSet<String> {
    let mut names = HashSet::new();
    walk(stmts, &mut |_| {}, &mut |expr| match expr {
        Expr::Ident(name) | Expr::Call { name, .. } => {
            names.insert(name.clone());
        }
        _ => {}
    });
    names
}

pub fn mentions(stmts: &[Stmt], name: &str) -> bool {
    used_names(stmts).contains(name)
}

/// Whether `stmts` contain a `continue` (or a `break`, when `is_continue` is false)
/// that leaves the enclosing construct rather than a nested loop or switch.
pub fn mentions_jump(stmts: &[Stmt], is_continue: bool) -> bool {
    stmts.iter().any(|stmt| match &stmt.kind {
        StmtKind::Continue => is_continue,
        StmtKind::Break => !is_continue,
        StmtKind::If {
            then, otherwise, ..
        } => {
            mentions_jump(then, is_continue)
                || otherwise
                    .as_ref()
                    .is_some_and(|o| mentions_jump(o, is_continue))
        }
        StmtKind::Block(body) => mentions_jump(body, is_continue),
        StmtKind::Try {
            body,
            catch,
            finally,
        } => {
            mentions_jump(body, is_continue)
                || catch
                    .as_ref()
                    .is_some_and(|(_, h)| mentions_jump(h, is_continue))
                || mentions_jump(finally, is_continue)
        }
        StmtKind::Switch { cases, .. } if is_continue => {
            cases.iter().any(|c| mentions_jump(&c.body, is_continue))
        }
        _ => false,
    })
}
