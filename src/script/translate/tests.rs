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

fn var(vars: &[(String, String)], name: &str) -> String {
    vars.iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| panic!("no variable {name} in {vars:?}"))
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

fn value_of(source: &str) -> String {
    let (value, _) = groovy(source, &[]);
    crate::script::shims::java_string(&value)
}

#[test]
fn gstrings_interpolate_expressions_and_dotted_names() {
    let (_, vars) = groovy(
        "def user = [name: 'Ann', age: 41]\ndef n = 2\nvars.put('line', \"${user.name} is ${user.age + n - 2}, $user.name\")",
        &[],
    );
    assert_eq!(var(&vars, "line"), "Ann is 41, Ann");
}

#[test]
fn java_string_methods_use_java_indices_and_regexes() {
    assert_eq!(value_of("'hello world'.substring(6)"), "world");
    assert_eq!(
        value_of("'hello world'.substring(0, 5).toUpperCase()"),
        "HELLO"
    );
    assert_eq!(value_of("'a1b22c'.split('\\\\d+').join('|')"), "a|b|c");
    assert_eq!(value_of("'  x '.trim() + '.'"), "x.");
    assert_eq!(value_of("'a-b-c'.replace('-', '+')"), "a+b+c");
    assert_eq!(
        value_of("'id=42;'.replaceAll('id=(\\\\d+);', 'n$1')"),
        "n42"
    );
    assert_eq!(value_of("'abc'.indexOf('c')"), "2");
    assert_eq!(value_of("'17'.toInteger() + 1"), "18");
    assert_eq!(value_of("Integer.parseInt('7') * 2"), "14");
}

#[test]
fn closures_over_lists_and_maps() {
    assert_eq!(value_of("[1, 2, 3].collect { it * 2 }.join(',')"), "2,4,6");
    assert_eq!(
        value_of("[1, 2, 3, 4].findAll { x -> x % 2 == 0 }.size()"),
        "2"
    );
    assert_eq!(
        value_of("def total = 0\n[5, 6].each { total += it }\ntotal"),
        "11"
    );
    assert_eq!(
        value_of("def m = [a: 1, b: 2]\ndef keys = []\nm.each { k, v -> keys.add(k + v) }\nkeys.join(' ')"),
        "a1 b2"
    );
    assert_eq!(value_of("[3, 1, 2].find { it > 1 }"), "3");
}

#[test]
fn loops_switch_and_exceptions() {
    assert_eq!(
        value_of("def s = ''\nfor (int i = 0; i < 5; i++) {\n if (i == 1) continue\n s += i\n}\ns"),
        "0234"
    );
    assert_eq!(
        value_of("def s = ''\nfor (int i = 10; i > 0; i -= 3) {\n if (i == 7) { continue }\n s += i + ' '\n}\ns"),
        "10 4 1 "
    );
    assert_eq!(
        value_of("def n = 0\nfor (x in [1, 2, 3]) { n += x }\nwhile (n < 10) { n++ }\nn"),
        "10"
    );
    assert_eq!(
        value_of("def out = ''\nswitch ('b') {\n case 'a': out = 'A'; break\n case 'b':\n case 'c': out = 'BC'; break\n default: out = '?'\n}\nout"),
        "BC"
    );
    assert_eq!(
        value_of("def r = 'none'\ntry {\n Integer.parseInt('x')\n r = 'parsed'\n} catch (NumberFormatException e) {\n r = 'bad'\n} finally {\n r += '!'\n}\nr"),
        "bad!"
    );
}

#[test]
fn groovy_truth_elvis_and_ternary() {
    assert_eq!(value_of("def v = ''\nv ?: 'fallback'"), "fallback");
    assert_eq!(
        value_of("def list = []\nif (list) { 'full' } else { 'empty' }"),
        "empty"
    );
    assert_eq!(value_of("def x = null\n!x ? 'none' : 'some'"), "none");
    assert_eq!(value_of("def s = 'abc'\ns?.length()"), "3");
    assert_eq!(value_of("5 / 2"), "2.5");
    assert_eq!(value_of("(int) 7.9"), "7");
    assert_eq!(value_of("'12' as Integer"), "12");
}

#[test]
fn methods_get_the_bindings_they_use() {
    let (_, vars) = groovy(
        "def store(String k, v) { vars.put(k, v.toString()) }\nstore('a', 1)\nstore('b', twice(2))\ndef twice(n) { n * 2 }",
        &[],
    );
    assert_eq!(var(&vars, "a"), "1");
    assert_eq!(var(&vars, "b"), "4");
}

#[test]
fn beanshell_loose_assignments_are_declared() {
    let code = rhai(
        SourceLanguage::BeanShell,
        "count = Integer.parseInt(vars.get(\"n\"));\nif (count > 1) { label = \"many\"; } else { label = \"one\"; }\nvars.put(\"label\", label);\nString[] parts = \"a,b\".split(\",\");\nvars.put(\"first\", parts[0]);",
    );
    let (_, vars) = run(&code, &[("n", "3")]);
    let vars = vars.0.lock().clone();
    assert_eq!(vars["label"], "many");
    assert_eq!(vars["first"], "a");
}

#[test]
fn javascript_functions_and_objects() {
    let code = rhai(
        SourceLanguage::JavaScript,
        "var o = {a: 1, b: 'x'};\nfunction f(v) { return v + 1; }\nvars.put('r', '' + f(o.a) + o.b);",
    );
    let (_, vars) = run(&code, &[]);
    assert_eq!(vars.0.lock()["r"], "2x");
}

#[test]
fn library_shims_json_builders_and_dates() {
    assert_eq!(
        value_of("def json = new groovy.json.JsonSlurper().parseText('{\"items\":[{\"id\":7}]}')\njson.items[0].id"),
        "7"
    );
    assert_eq!(
        value_of("groovy.json.JsonOutput.toJson([a: [1, 'x']])"),
        "{\"a\":[1,\"x\"]}"
    );
    assert_eq!(
        value_of(
            "def sb = new StringBuilder()\nsb.append('a').append(1)\nsb << 'z'\nsb.toString()"
        ),
        "a1z"
    );
    assert_eq!(
        value_of("new SimpleDateFormat('yyyy').format(new Date()).length()"),
        "4"
    );
    assert_eq!(value_of("UUID.randomUUID().toString().length()"), "36");
    assert_eq!(value_of("String.format('%05d-%s', 42, 'x')"), "00042-x");
    assert_eq!(
        value_of("Base64.getEncoder().encodeToString('hi'.getBytes())"),
        "aGk="
    );
    assert_eq!(value_of("new Random().nextInt(5) < 5"), "true");
}

#[test]
fn unsupported_constructs_are_reported_with_their_line() {
    let translation = translate(
        SourceLanguage::Groovy,
        "vars.put('a', '1')\nclass A { }\ndef c = new java.net.Socket('h', 1)",
    );
    let problems: Vec<(usize, &str)> = translation
        .problems
        .iter()
        .map(|p| (p.line, p.construct.as_str()))
        .collect();
    assert_eq!(
        problems,
        vec![(2, "class definition"), (3, "class `Socket`")]
    );
}

/// Expected values from Python's `hmac` and `base64` (RFC 4231 test case 2 for the MAC).
#[test]
fn java_signing_idioms_translate_to_the_crypto_shims() {
    let source = r#"import javax.crypto.Mac
import javax.crypto.spec.SecretKeySpec
import java.util.concurrent.atomic.AtomicLong
Mac mac = Mac.getInstance("HmacSHA256")
mac.init(new SecretKeySpec("Jefe".getBytes("UTF-8"), "HmacSHA256"))
byte[] raw = mac.doFinal("what do ya want for nothing?".getBytes("UTF-8"))
vars.put("hex", Hex.encodeHexString(raw))
vars.put("url", Base64.getUrlEncoder().withoutPadding().encodeToString(raw))
vars.put("jwt", Jwts.builder().setSubject("u")
    .signWith(SignatureAlgorithm.HS256, Base64.getEncoder().encodeToString("k".getBytes())).compact())
def seq = new AtomicLong(5)
vars.put("seq", String.valueOf(seq.incrementAndGet()))"#;
    let code = rhai(SourceLanguage::Groovy, source);
    assert!(code.contains(r#"Mac::getInstance("HmacSHA256")"#), "{code}");
    assert!(code.contains("SecretKeySpec::create("), "{code}");
    assert!(code.contains("AtomicLong::create(5)"), "{code}");
    let (_, vars) = groovy(source, &[]);
    assert_eq!(
        var(&vars, "hex"),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
    assert_eq!(
        var(&vars, "url"),
        "W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM"
    );
    assert_eq!(
        var(&vars, "jwt"),
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.gj43NvXuHsNvh-y77Iju50bTzcQ9fuOkwbvFZ4Y9SXg"
    );
    assert_eq!(var(&vars, "seq"), "6");
}

#[test]
fn a_step_needs_something_to_change() {
    let translation = translate(SourceLanguage::JavaScript, &format!("t{}1", "-".repeat(61)));
    assert_eq!(translation.problems.len(), 1, "{translation:?}");
    assert!(translation.problems[0]
        .construct
        .contains("`--` needs a variable"));
    let (_, vars) = groovy(
        "def a = [0, 0]\ndef i = 0\na[i]++\nvars.put('a', \"${a[0]}\")",
        &[],
    );
    assert_eq!(var(&vars, "a"), "1");
}

#[test]
fn a_step_as_a_value_on_an_element_whose_index_changes_is_untranslatable() {
    let mut nested = String::from("i");
    for _ in 0..26 {
        nested = format!("a[{nested}++]");
    }
    let translation = translate(SourceLanguage::Java, &format!("x = {nested}++;"));
    assert!(
        translation
            .problems
            .iter()
            .any(|p| p.construct.contains("whose index changes")),
        "{:?}",
        translation.problems
    );
    let translation = translate(SourceLanguage::Java, "x = (a[i++] = 2);");
    assert!(!translation.problems.is_empty());
}

#[test]
fn nesting_deeper_than_the_limit_is_reported_without_exhausting_the_stack() {
    let n = 20_000;
    for (language, source) in [
        (
            SourceLanguage::Groovy,
            format!("x = {}{}", "[".repeat(n), "]".repeat(n)),
        ),
        (
            SourceLanguage::Java,
            format!("int x = {}1{};", "(".repeat(n), ")".repeat(n)),
        ),
        (
            SourceLanguage::JavaScript,
            format!("{}{}", "{".repeat(n), "}".repeat(n)),
        ),
        (
            SourceLanguage::BeanShell,
            format!("x = {}1;", "-".repeat(n)),
        ),
        (
            SourceLanguage::Jexl,
            format!("{}x = 1;", "if (true) ".repeat(n)),
        ),
    ] {
        // On a runtime worker's 2 MiB stack, where plans' scripts are translated.
        let translation = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || translate(language, &source))
            .expect("a thread starts")
            .join()
            .expect("translation returns");
        assert!(
            translation
                .problems
                .iter()
                .any(|p| p.construct.contains("nested deeper than 200 levels")),
            "{language:?}: {:?}",
            translation.problems
        );
    }
    // Nesting people write still translates and runs.
    let (value, _) = groovy(&format!("{}7{}", "(".repeat(40), ")".repeat(40)), &[]);
    assert_eq!(value.as_int().ok(), Some(7));
}
