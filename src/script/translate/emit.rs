//! Rhai source from the syntax tree: statements here, expressions in
//! [`super::emit_expr`]. Rhai differs from the source languages in ways this module
//! absorbs: every variable must be declared (BeanShell's and Groovy's undeclared
//! assignments are hoisted as `let`), functions cannot see the script's variables (the
//! JMeter bindings a method uses are passed as extra parameters), conditions must be
//! booleans (Groovy truth goes through the `truthy` shim), and there is no C-style
//! `for`, `switch` fall-through or `finally`.

use std::collections::{HashMap, HashSet};

use std::sync::Arc;

use super::ast::{Expr, Stmt, StmtKind, SwitchCase};
use super::names::{is_binding, rhai_name};
use super::protobuf::ProtoType;
use super::walk::{assigned_names, declared_names, mentions, mentions_jump, used_names};
use super::{SourceLanguage, Untranslatable};
use crate::script::protobuf::Schema;

pub struct Emitter {
    pub(super) language: SourceLanguage,
    pub(super) out: String,
    indent: usize,
    pub(super) line: usize,
    pub problems: Vec<Untranslatable>,
    /// Script methods and the bindings each needs passed in.
    pub(super) functions: HashMap<String, Vec<String>>,
    /// Variables that hold a closure, called as `f.call(..)`.
    pub(super) closure_variables: HashSet<String>,
    /// Numbers hidden variables (`_switch_1`...).
    temporaries: usize,
    /// Names declared by the bodies enclosing the one being written (a closure sees
    /// them; a nested `let` would hide them).
    outer_declared: HashSet<String>,
    /// The run's `.proto` files, for generated-Java protobuf code.
    pub(super) protobuf: Option<Arc<Schema>>,
    /// Variables known to hold a protobuf builder, message or list.
    pub(super) proto_vars: HashMap<String, ProtoType>,
    /// The script asks for `text/event-stream`: its Apache HttpClient calls map onto
    /// the scripts' event streams.
    pub(super) event_stream: bool,
}

impl Emitter {
    pub fn new(language: SourceLanguage) -> Emitter {
        Emitter {
            language,
            out: String::new(),
            indent: 0,
            line: 1,
            problems: Vec::new(),
            functions: HashMap::new(),
            closure_variables: HashSet::new(),
            temporaries: 0,
            outer_declared: HashSet::new(),
            protobuf: None,
            proto_vars: HashMap::new(),
            event_stream: false,
        }
    }

    pub(super) fn problem(&mut self, construct: String) {
        let line = self.line;
        if !self
            .problems
            .iter()
            .any(|p| p.line == line && p.construct == construct)
        {
            self.problems.push(Untranslatable { line, construct });
        }
    }

    pub fn script(&mut self, statements: &[Stmt]) {
        self.collect_functions(statements);
        let hoisted = self.undeclared(statements, &[]);
        let mut script_variables = declared_names(statements);
        script_variables.extend(hoisted.iter().cloned());
        for statement in statements {
            if let StmtKind::Function { name, body, params } = &statement.kind {
                self.line = statement.line;
                self.check_function_scope(name, params, body, &script_variables);
            }
        }
        self.outer_declared = script_variables;
        // Methods first: Rhai wants the script's value (its last expression) last.
        let (functions, rest): (Vec<Stmt>, Vec<Stmt>) = statements
            .iter()
            .cloned()
            .partition(|s| matches!(s.kind, StmtKind::Function { .. }));
        self.statements(&functions, false);
        for name in hoisted {
            self.write_line(&format!("let {};", rhai_name(&name)));
        }
        self.statements(&rest, true);
    }

    /// Finds the script's methods and the bindings each one needs, including those
    /// of the methods it calls.
    fn collect_functions(&mut self, statements: &[Stmt]) {
        let mut uses: HashMap<String, (HashSet<String>, HashSet<String>)> = HashMap::new();
        for statement in statements {
            if let StmtKind::Function { name, body, .. } = &statement.kind {
                let names = used_names(body);
                let bindings = names.iter().filter(|n| is_binding(n)).cloned().collect();
                uses.insert(name.clone(), (bindings, names));
            }
        }
        let function_names: Vec<String> = uses.keys().cloned().collect();
        loop {
            let mut changed = false;
            for name in &function_names {
                let inherited: Vec<String> = uses[name]
                    .1
                    .iter()
                    .filter(|callee| uses.contains_key(*callee) && *callee != name)
                    .flat_map(|callee| uses[callee].0.iter().cloned())
                    .collect();
                if let Some((bindings, _)) = uses.get_mut(name) {
                    for binding in inherited {
                        changed |= bindings.insert(binding);
                    }
                }
            }
            if !changed {
                break;
            }
        }
        for (name, (bindings, _)) in uses {
            let mut bindings: Vec<String> = bindings.into_iter().collect();
            bindings.sort();
            self.functions.insert(name, bindings);
        }
    }

    /// Groovy methods cannot see the script's `def` variables either, but they can see
    /// undeclared (binding) ones; Rhai functions see neither, so report the use.
    fn check_function_scope(
        &mut self,
        name: &str,
        params: &[String],
        body: &[Stmt],
        script_variables: &HashSet<String>,
    ) {
        let local = declared_names(body);
        let mut outer: Vec<String> = used_names(body)
            .into_iter()
            .filter(|n| {
                !params.contains(n)
                    && !local.contains(n)
                    && !self.functions.contains_key(n)
                    && script_variables.contains(n)
            })
            .collect();
        outer.sort();
        for variable in outer {
            self.problem(format!(
                "method `{name}` uses the script variable `{variable}`"
            ));
        }
    }

    /// The names a body assigns without declaring them (BeanShell's loose typing,
    /// Groovy's binding variables): they get a `let` at the top of the body.
    fn undeclared(&self, body: &[Stmt], params: &[String]) -> Vec<String> {
        let declared = declared_names(body);
        let mut names: Vec<String> = assigned_names(body)
            .into_iter()
            .filter(|n| {
                !declared.contains(n)
                    && !params.contains(n)
                    && !is_binding(n)
                    && !self.functions.contains_key(n)
                    && !self.outer_declared.contains(n)
            })
            .collect();
        names.sort();
        names
    }

    /// Writes a method's or closure's body with its own hoisted declarations, and
    /// `outer` as the names it can see from outside.
    fn body_in_scope(&mut self, params: &[String], body: &[Stmt], outer: HashSet<String>) {
        let saved = std::mem::replace(&mut self.outer_declared, outer);
        let hoisted = self.undeclared(body, params);
        for name in &hoisted {
            self.write_line(&format!("let {};", rhai_name(name)));
        }
        self.outer_declared.extend(hoisted);
        self.outer_declared.extend(declared_names(body));
        self.outer_declared.extend(params.iter().cloned());
        self.statements(body, true);
        self.outer_declared = saved;
    }

    pub(super) fn write_line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// Emits statements; when `value_last`, a final expression statement is left
    /// without `;` so that it is the block's value (Groovy returns it).
    pub(super) fn statements(&mut self, statements: &[Stmt], value_last: bool) {
        let last = statements
            .iter()
            .rposition(|s| !matches!(s.kind, StmtKind::Empty | StmtKind::Function { .. }));
        for (index, statement) in statements.iter().enumerate() {
            self.statement(statement, value_last && Some(index) == last);
        }
    }

    fn block(&mut self, head: &str, body: &[Stmt], tail: &str) {
        self.write_line(&format!("{head}{{"));
        self.indent += 1;
        self.statements(body, false);
        self.indent -= 1;
        self.write_line(&format!("}}{tail}"));
    }

    fn statement(&mut self, statement: &Stmt, is_value: bool) {
        self.line = statement.line;
        match &statement.kind {
            StmtKind::Empty => {}
            StmtKind::Expr(expr) => self.expression_statement(expr, is_value),
            StmtKind::Let(names) => {
                for (name, value) in names {
                    if matches!(value, Some(Expr::Closure { .. })) {
                        self.closure_variables.insert(name.clone());
                    }
                    let text = match value {
                        Some(value) => format!("let {} = {};", rhai_name(name), self.expr(value)),
                        None => format!("let {};", rhai_name(name)),
                    };
                    self.note_proto_variable(name, value.as_ref());
                    self.write_line(&text);
                }
            }
            StmtKind::If {
                condition,
                then,
                otherwise,
            } => self.if_chain(condition, then, otherwise.as_deref()),
            StmtKind::While { condition, body } => {
                let head = format!("while {} ", self.condition(condition));
                self.block(&head, body, "");
            }
            StmtKind::DoWhile { body, condition } => {
                let tail = format!(" while {};", self.condition(condition));
                self.block("do ", body, &tail);
            }
            StmtKind::For {
                init,
                condition,
                update,
                body,
            } => self.counted_for(init, condition.as_ref(), update, body),
            StmtKind::ForIn {
                name,
                iterable,
                body,
            } => {
                let head = format!("for {} in {} ", rhai_name(name), self.expr(iterable));
                self.note_proto_loop(name, iterable);
                self.block(&head, body, "");
            }
            StmtKind::Switch { subject, cases } => self.switch(subject, cases),
            StmtKind::Break => self.write_line("break;"),
            StmtKind::Continue => self.write_line("continue;"),
            StmtKind::Return(None) => self.write_line("return;"),
            StmtKind::Return(Some(value)) => {
                let text = format!("return {};", self.expr(value));
                self.write_line(&text);
            }
            StmtKind::Throw(value) => {
                let text = format!("throw {};", self.expr(value));
                self.write_line(&text);
            }
            StmtKind::Try {
                body,
                catch,
                finally,
            } => self.try_catch(body, catch.as_ref(), finally),
            StmtKind::Block(body) => self.block("", body, ""),
            StmtKind::Function { name, params, body } => self.function(name, params, body),
        }
    }

    fn expression_statement(&mut self, expr: &Expr, is_value: bool) {
        let text = match expr {
            Expr::Assign(op, target, value) => self.assignment(op, target, value),
            Expr::Step { op, target, .. } => {
                let op = if *op == "++" { "+=" } else { "-=" };
                self.assignment(op, target, &Expr::Int(1))
            }
            Expr::Binary("<<", target, value) => {
                format!("{}.push({})", self.expr(target), self.expr(value))
            }
            _ => self.expr(expr),
        };
        if is_value && !matches!(expr, Expr::Assign(..) | Expr::Step { .. }) {
            self.write_line(&text);
        } else {
            self.write_line(&format!("{text};"));
        }
    }

    fn open(&mut self, head: &str) {
        self.write_line(&format!("{head}{{"));
        self.indent += 1;
    }

    fn close(&mut self, tail: &str) {
        self.indent -= 1;
        self.write_line(&format!("}}{tail}"));
    }

    /// Closes a block and opens the next on the same line (`} else {`).
    fn close_open(&mut self, head: &str) {
        self.indent -= 1;
        self.write_line(&format!("}} {head}{{"));
        self.indent += 1;
    }

    fn if_chain(&mut self, condition: &Expr, then: &[Stmt], otherwise: Option<&[Stmt]>) {
        let head = format!("if {} ", self.condition(condition));
        self.open(&head);
        self.statements(then, false);
        let mut otherwise = otherwise;
        while let Some(branch) = otherwise {
            if let [Stmt {
                kind:
                    StmtKind::If {
                        condition,
                        then,
                        otherwise: next,
                    },
                line,
            }] = branch
            {
                self.line = *line;
                let head = format!("else if {} ", self.condition(condition));
                self.close_open(&head);
                self.statements(then, false);
                otherwise = next.as_deref();
            } else {
                self.close_open("else ");
                self.statements(branch, false);
                otherwise = None;
            }
        }
        self.close("");
    }

    fn counted_for(
        &mut self,
        init: &[Stmt],
        condition: Option<&Expr>,
        update: &[Expr],
        body: &[Stmt],
    ) {
        if let Some(range) = self.simple_range(init, condition, update, body) {
            let (name, range) = range;
            self.block(&format!("for {name} in {range} "), body, "");
            return;
        }
        self.write_line("{");
        self.indent += 1;
        self.statements(init, false);
        let condition = condition.map(|c| self.condition(c));
        let updates: Vec<Stmt> = update
            .iter()
            .map(|u| Stmt {
                line: self.line,
                kind: StmtKind::Expr(u.clone()),
            })
            .collect();
        if mentions_jump(body, true) {
            // `continue` must still run the update: it runs at the top of each pass but
            // the first.
            self.temporaries += 1;
            let started = format!("_for_started_{}", self.temporaries);
            self.write_line(&format!("let {started} = false;"));
            self.write_line("loop {");
            self.indent += 1;
            self.block(&format!("if {started} "), &updates, "");
            self.write_line(&format!("{started} = true;"));
            if let Some(condition) = condition {
                self.write_line(&format!("if !({condition}) {{ break; }}"));
            }
            self.statements(body, false);
            self.indent -= 1;
            self.write_line("}");
        } else {
            let head = format!("while {} ", condition.unwrap_or_else(|| "true".into()));
            let mut all = body.to_vec();
            all.extend(updates);
            self.block(&head, &all, "");
        }
        self.indent -= 1;
        self.write_line("}");
    }

    /// `for (int i = a; i < b; i++)` with `i` untouched by the body → `for i in a..b`.
    fn simple_range(
        &mut self,
        init: &[Stmt],
        condition: Option<&Expr>,
        update: &[Expr],
        body: &[Stmt],
    ) -> Option<(String, String)> {
        let [Stmt {
            kind: StmtKind::Let(declared),
            ..
        }] = init
        else {
            return None;
        };
        let [(name, Some(start))] = declared.as_slice() else {
            return None;
        };
        let Some(Expr::Binary(op @ ("<" | "<="), left, end)) = condition else {
            return None;
        };
        let steps_by_one = match update {
            [Expr::Step {
                op: "++", target, ..
            }] => **target == Expr::Ident(name.clone()),
            [Expr::Assign("+=", target, step)] => {
                **target == Expr::Ident(name.clone()) && **step == Expr::Int(1)
            }
            _ => false,
        };
        let end_is_stable = match &**end {
            Expr::Int(_) => true,
            Expr::Ident(end) => !assigned_names(body).contains(end),
            Expr::Method { target, args, .. } => {
                args.is_empty() && matches!(&**target, Expr::Ident(t) if !mentions(body, t))
            }
            Expr::Field { target, .. } => matches!(&**target, Expr::Ident(t) if !mentions(body, t)),
            _ => false,
        };
        if **left != Expr::Ident(name.clone())
            || !steps_by_one
            || !end_is_stable
            || assigned_names(body).contains(name)
        {
            return None;
        }
        let dots = if *op == "<" { ".." } else { "..=" };
        Some((
            rhai_name(name),
            format!("{}{dots}{}", self.operand(start), self.operand(end)),
        ))
    }

    fn switch(&mut self, subject: &Expr, cases: &[SwitchCase]) {
        self.temporaries += 1;
        let variable = format!("_switch_{}", self.temporaries);
        self.write_line("{");
        self.indent += 1;
        let text = format!("let {variable} = {};", self.expr(subject));
        self.write_line(&text);
        let mut branches: Vec<(Option<String>, Vec<Stmt>)> = Vec::new();
        let mut pending_labels: Vec<String> = Vec::new();
        let mut pending_default = false;
        for (index, case) in cases.iter().enumerate() {
            for label in &case.labels {
                pending_labels.push(self.case_test(&variable, label));
            }
            pending_default |= case.is_default;
            if case.body.is_empty() && index + 1 < cases.len() {
                continue;
            }
            let body = self.case_body(cases, index);
            let test = (!pending_default).then(|| pending_labels.join(" || "));
            branches.push((test, body));
            pending_labels.clear();
            pending_default = false;
        }
        let default = branches.iter().position(|(test, _)| test.is_none());
        let mut first = true;
        for (test, body) in branches.iter().filter(|(t, _)| t.is_some()) {
            let test = test.as_deref().unwrap_or("true");
            if first {
                self.open(&format!("if {test} "));
            } else {
                self.close_open(&format!("else if {test} "));
            }
            self.statements(body, false);
            first = false;
        }
        if let Some(default) = default {
            if first {
                self.open("");
            } else {
                self.close_open("else ");
            }
            let body = branches[default].1.clone();
            self.statements(&body, false);
            first = false;
        }
        if !first {
            self.close("");
        }
        self.indent -= 1;
        self.write_line("}");
    }

    fn case_test(&mut self, variable: &str, label: &Expr) -> String {
        match label {
            Expr::Range { .. } => format!("({variable} in {})", self.expr(label)),
            Expr::List(_) => format!("({variable} in {})", self.expr(label)),
            _ => format!("{variable} == {}", self.operand(label)),
        }
    }

    /// A case's statements up to its `break`, falling through into the next cases as
    /// Java does when there is none.
    fn case_body(&mut self, cases: &[SwitchCase], start: usize) -> Vec<Stmt> {
        let mut body = Vec::new();
        for case in &cases[start..] {
            let mut statements = case.body.clone();
            let ends = matches!(
                statements.last().map(|s| &s.kind),
                Some(
                    StmtKind::Break | StmtKind::Return(_) | StmtKind::Throw(_) | StmtKind::Continue
                )
            );
            if matches!(statements.last().map(|s| &s.kind), Some(StmtKind::Break)) {
                statements.pop();
            }
            if mentions_jump(&statements, false) {
                self.problem("`break` inside a `switch` case before its end".into());
            }
            body.extend(statements);
            if ends {
                break;
            }
        }
        body
    }

    fn try_catch(&mut self, body: &[Stmt], catch: Option<&(String, Vec<Stmt>)>, finally: &[Stmt]) {
        match catch {
            Some((name, handler)) => {
                let head = format!(
                    "}} catch ({}) {{",
                    rhai_name(if name.is_empty() { "e" } else { name })
                );
                self.write_line("try {");
                self.indent += 1;
                self.statements(body, false);
                self.indent -= 1;
                self.write_line(&head);
                self.indent += 1;
                self.statements(handler, false);
                self.indent -= 1;
                self.write_line("}");
            }
            None if !finally.is_empty() => {
                self.write_line("try {");
                self.indent += 1;
                self.statements(body, false);
                self.indent -= 1;
                self.write_line("} catch (_error) {");
                self.indent += 1;
                self.statements(finally, false);
                self.write_line("throw _error;");
                self.indent -= 1;
                self.write_line("}");
            }
            None => self.block("", body, ""),
        }
        self.statements(finally, false);
    }

    fn function(&mut self, name: &str, params: &[String], body: &[Stmt]) {
        if self.indent > 0 {
            self.problem(format!("method `{name}` defined inside a block"));
            return;
        }
        let mut all: Vec<String> = params.iter().map(|p| rhai_name(p)).collect();
        all.extend(self.functions.get(name).cloned().unwrap_or_default());
        self.write_line(&format!("fn {}({}) {{", rhai_name(name), all.join(", ")));
        self.indent += 1;
        self.body_in_scope(params, body, HashSet::new());
        self.indent -= 1;
        self.write_line("}");
    }

    /// The body of a closure, indented one level deeper, as the text between braces.
    pub(super) fn closure_body(&mut self, params: &[String], body: &[Stmt]) -> String {
        let saved = std::mem::take(&mut self.out);
        let saved_line = self.line;
        self.indent += 1;
        let outer = self.outer_declared.clone();
        self.body_in_scope(params, body, outer);
        self.indent -= 1;
        self.line = saved_line;
        std::mem::replace(&mut self.out, saved)
    }

    pub(super) fn indentation(&self) -> String {
        "    ".repeat(self.indent)
    }
}
