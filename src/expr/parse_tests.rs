//! The parser rules, one test per rule.

use crate::expr::functions::testing::Fixture;
use crate::expr::{FunctionRegistry, Template};

fn compile(text: &str) -> crate::expr::Compiled {
    match Template::compile(text, &FunctionRegistry::standard()) {
        Ok(compiled) => compiled,
        Err(err) => panic!("{text:?}: {err}"),
    }
}

#[test]
fn text_without_reference_is_raw_and_constant() {
    let template = compile(r"a\,b\\c\$d").template;
    assert!(template.is_constant());
    assert_eq!(template.as_literal(), Some(r"a\,b\\c\$d"));
    assert_eq!(Fixture::new().run(&template), r"a\,b\\c\$d");
}

#[test]
fn variables_are_substituted_or_left_verbatim() {
    let mut f = Fixture::new();
    f.vars.put("host", "example.org");
    f.vars.put("__jm__Loop__idx", "4");
    assert_eq!(f.eval("http://${host}/x"), "http://example.org/x");
    assert_eq!(f.eval("${UNDEF}-${host}"), "${UNDEF}-example.org");
    assert_eq!(f.eval("i=${__jm__Loop__idx}"), "i=4");
    assert!(!compile("${host}").template.is_constant());
}

#[test]
fn variable_names_are_not_trimmed() {
    let mut f = Fixture::new();
    f.vars.put("a", "1");
    f.vars.put(" a ", "2");
    assert_eq!(f.eval("${ a }"), "2");
    assert_eq!(f.eval("${ b }"), "${ b }");
}

#[test]
fn functions_with_and_without_parentheses() {
    let mut f = Fixture::new();
    f.props.set("p", "v");
    assert_eq!(f.eval("${__threadNum}"), "3");
    assert_eq!(f.eval("${__threadNum()}"), "3");
    assert_eq!(f.eval("${ __P(p)}"), "v");
    assert_eq!(f.eval("${__P(p) }"), "v");
    // A registered name always means the function, even if a variable has that name.
    f.vars.put("__threadNum", "var");
    assert_eq!(f.eval("${__threadNum}"), "3");
}

#[test]
fn a_space_before_the_parenthesis_makes_a_variable() {
    let compiled = compile("${__P (p)}");
    assert!(compiled.unknown_functions.is_empty());
    assert_eq!(Fixture::new().run(&compiled.template), "${__P (p)}");
}

#[test]
fn unregistered_calls_are_variables_and_reported() {
    let compiled = compile("a${foo(x)}b${__nope(1,2)}c${__nope(3)}");
    assert_eq!(compiled.unknown_functions, ["__nope"]);
    let mut f = Fixture::new();
    assert_eq!(
        f.run(&compiled.template),
        "a${foo(x)}b${__nope(1,2)}c${__nope(3)}"
    );
    f.vars.put("foo(x)", "X");
    assert_eq!(f.run(&compiled.template), "aXb${__nope(1,2)}c${__nope(3)}");
    // The variable ends at the first `}`, even inside what looks like nested arguments.
    assert_eq!(f.eval("${__nope(${x})}"), "${__nope(${x})}");
}

#[test]
fn arguments_split_on_commas_outside_nested_references() {
    let mut f = Fixture::new();
    // Parentheses do not protect commas: the arguments are `x(1` and `2)`.
    assert_eq!(f.eval("${__P(x(1,2))}"), "2)");
    // Balanced parentheses only find the closing one.
    assert_eq!(f.eval("${__P(missing,(a))}"), "(a)");
    f.props.set("a,b", "comma");
    assert_eq!(f.eval(r"${__P(a\,b)}"), "comma");
    f.vars.put("d", "x,y");
    assert_eq!(f.eval("${__P(missing,${d})}"), "x,y");
}

#[test]
fn empty_argument_lists() {
    let mut f = Fixture::new();
    assert_eq!(f.eval("${__P(missing,)}"), "");
    assert!(Template::compile("${__P()}", &FunctionRegistry::standard()).is_err());
}

#[test]
fn nested_calls() {
    let mut f = Fixture::new();
    f.props.set("b", "a");
    f.props.set("a", "A");
    assert_eq!(f.eval("${__P(a,${__P(b,c)})}"), "A");
    assert_eq!(f.eval("[${__P(${__P(b,c)},z)}]"), "[A]");
    f.vars.put("MAX", "7");
    assert_eq!(f.eval("${__Random(7,${MAX})}"), "7");
}

#[test]
fn escapes_apply_when_a_reference_is_present() {
    let mut f = Fixture::new();
    f.vars.put("y", "Y");
    f.vars.put("x", "X");
    assert_eq!(f.eval(r"\${x} ${y}"), "${x} Y");
    assert_eq!(f.eval(r"a\,b\\c\n ${y}"), r"a,b\c\n Y");
    assert_eq!(f.eval(r"${y}\"), r"Y\");
    // An escaped `${` alone is no reference, so the text stays raw.
    assert_eq!(f.eval(r"\${x}"), r"\${x}");
}

#[test]
fn dollar_brace_edge_cases() {
    let mut f = Fixture::new();
    f.vars.put("x", "X");
    assert_eq!(f.eval("${"), "${");
    assert_eq!(f.eval("abc${"), "abc${");
    assert_eq!(f.eval("${x} and ${oops"), "X and ${oops");
    assert_eq!(f.eval("$${x}"), "$X");
    assert_eq!(f.eval("$$"), "$$");
    assert_eq!(f.eval("${}"), "${}");
    f.vars.put("", "empty-name");
    assert_eq!(f.eval("${}"), "empty-name");
    f.vars.put("a}b", "braced");
    assert_eq!(f.eval(r"${a\}b}"), "braced");
}

#[test]
fn malformed_calls_keep_the_whole_text_raw() {
    for text in ["x ${__P(a", "${__P(a)x} ${y}", "${__P(a,${__P(b)}"] {
        let compiled = compile(text);
        assert_eq!(compiled.warnings.len(), 1, "{text}");
        assert_eq!(compiled.template.as_literal(), Some(text));
    }
}

#[test]
fn bad_argument_counts_are_errors() {
    let registry = FunctionRegistry::standard();
    let err = Template::compile("a ${__UUID(x)}", &registry).err();
    let message = err.map(|e| e.to_string()).unwrap_or_default();
    assert_eq!(
        message,
        "function __UUID: called with wrong number of parameters. Actual: 1. Expected: 0."
    );
}

#[test]
fn every_call_site_has_its_own_state() {
    let first = compile("${__counter(FALSE)}").template;
    let second = compile("${__counter(FALSE)}").template;
    let mut f = Fixture::new();
    assert_eq!(f.run(&first), "1");
    assert_eq!(f.run(&first), "2");
    assert_eq!(f.run(&second), "1");
    // Clones share their call sites.
    assert_eq!(f.run(&first.clone()), "3");
}

#[test]
fn constant_arguments_fold() {
    let template = compile(r"${__P(a\,b,c)}").template;
    assert!(!template.is_constant());
    assert_eq!(template.raw(), r"${__P(a\,b,c)}");
}

#[test]
fn non_ascii_text_survives() {
    let mut f = Fixture::new();
    f.vars.put("名前", "値");
    assert_eq!(f.eval("héllo ${名前} ✓"), "héllo 値 ✓");
}

#[test]
fn calls_nested_deeper_than_the_limit_are_a_plan_error() {
    let registry = FunctionRegistry::standard();
    let deep = "${__P(".repeat(20_000) + "x" + ")}".repeat(20_000).as_str();
    let message = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            Template::compile(&deep, &registry)
                .err()
                .map(|e| e.to_string())
        })
        .expect("a thread starts")
        .join()
        .expect("compiling returns");
    assert_eq!(
        message.as_deref(),
        Some("function calls nested deeper than 100 levels")
    );
    // Thirty levels compile and run: each `__P` of a missing property gives its default, 1.
    let thirty = "${__P(".repeat(30) + "x" + ")}".repeat(30).as_str();
    assert_eq!(Fixture::new().eval(&thirty), "1");
}
