//! Translation checked by running the Rhai it produces on an engine with the shims and
//! a test-only stand-in for `vars`.

use rhai::Dynamic;

use super::{translate, SourceLanguage};
use crate::script::shims::test_support::run;

fn rhai(language: SourceLanguage, source: &str) -> String {
    let translation = translate(language, source);
    assert!(
        translation.problems.is_empty(),
        "problems: {:?}\n{}",
        translation.problems,
        translation.rhai
    );
    translation.rhai
}

/// Translates Groovy and runs it with `vars` preset; returns the value and the vars.
fn groovy(source: &str, vars: &[(&str, &str)]) -> (Dynamic, Vec<(String, String)>) {
    let code = rhai(SourceLanguage::Groovy, source);
    let (value, vars) = run(&code, vars);
    let vars = vars.0.lock().clone().into_iter().collect();
    (value, vars)
}

#[test]
fn batch_loop_index_script_compiles_to_a_condition_on_an_integer() {
    let code = rhai(
        SourceLanguage::Groovy,
        "int cpt = vars[\"__jm__LC__idx\"].toInteger();\nif (cpt % 2 == 0) {\n  SampleResult.setSuccessful(false);\n} else {\n  SampleResult.setSuccessful(true);\n}",
    );
    assert!(
        code.contains("let cpt = vars[\"__jm__LC__idx\"].toInteger();"),
        "{code}"
    );
    assert!(code.contains("if (cpt % 2) == 0 {"), "{code}");
    assert!(
        code.contains("SampleResult.setSuccessful(false);"),
        "{code}"
    );
}

#[test]
fn batch_duration_scripts_keep_props_and_compute_in_milliseconds() {
    let code = rhai(
        SourceLanguage::Groovy,
        "props.put(\"TEST_START\", System.currentTimeMillis().toString());",
    );
    assert_eq!(
        code.trim(),
        "props.put(\"TEST_START\", System::currentTimeMillis().toString())"
    );
    let (value, _) = groovy(
        "long start = Long.parseLong(\"1000\");\nlong duration = System.currentTimeMillis() - start;\nlong max = vars[\"MaxDuration\"].toInteger()*1000+1000\nif(duration > max) {\n  vars.put(\"msg\", \"Duration \"+duration+\" exceeded \" + max)\n}\nmax",
        &[("MaxDuration", "3")],
    );
    assert_eq!(value.as_int(), Ok(4000));
}

#[test]
fn beanshell_globals_and_bsf_expressions() {
    let code = rhai(SourceLanguage::BeanShell, "IsSuccess  = false;");
    assert_eq!(code.trim(), "IsSuccess = false;");
    let code = rhai(
        SourceLanguage::BeanShell,
        "vars.put(\"my_var\", \"-----123--456--------------------789---\");",
    );
    assert!(code.contains("vars.put(\"my_var\""), "{code}");
    let (value, _) = run(&rhai(SourceLanguage::BeanShell, "12*12"), &[]);
    assert_eq!(value.as_int(), Ok(144));
    let (value, _) = run(&rhai(SourceLanguage::Jexl, "11*11"), &[]);
    assert_eq!(value.as_int(), Ok(121));
}
