//! Unit tests for the loader: property kinds, text decoding, spans, errors.

use std::path::Path;

use super::load_str;
use crate::jmx::{Element, LoadError, PropValue, Property, ScalarKind, Span, TestTree};

fn load(text: &str) -> TestTree {
    match load_str(text, Path::new("t.jmx")) {
        Ok(tree) => tree,
        Err(err) => panic!("load failed: {err}"),
    }
}

/// A plan whose Test Plan has `props` and one child `<Sampler>` with `child_props`.
fn plan_with(props: &str, child_props: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.6.3">
  <hashTree>
    <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="Plan">{props}</TestPlan>
    <hashTree>
      <DebugSampler guiclass="TestBeanGUI" testclass="DebugSampler" testname="Child">{child_props}</DebugSampler>
      <hashTree/>
    </hashTree>
  </hashTree>
</jmeterTestPlan>
"#
    )
}

fn child(tree: &TestTree) -> &Element {
    &tree.roots[0].children[0]
}

fn scalar(prop: &Property) -> (ScalarKind, &str) {
    match &prop.value {
        PropValue::Scalar { kind, text } => (*kind, text.as_str()),
        other => panic!("not a scalar: {other:?}"),
    }
}

#[test]
fn reads_root_and_element_attributes() {
    let tree = load(&plan_with("", ""));
    assert_eq!(tree.jmeter_version.as_deref(), Some("5.6.3"));
    assert_eq!(tree.roots.len(), 1);
    let plan = &tree.roots[0];
    assert_eq!(
        (plan.tag.as_str(), plan.class.as_str(), plan.gui.as_str()),
        ("TestPlan", "TestPlan", "TestPlanGui")
    );
    assert_eq!(plan.name, "Plan");
    assert!(plan.enabled);
    assert_eq!(child(&tree).name, "Child");
    assert_eq!(plan.file.as_path(), Path::new("t.jmx"));
}

#[test]
fn scalar_kinds_keep_their_text() {
    let tree = load(&plan_with(
        r#"<stringProp name="s"> a b </stringProp><boolProp name="b">true</boolProp>
           <intProp name="i">-1</intProp><longProp name="l">1316699696000</longProp>
           <stringProp name="empty"></stringProp><stringProp name="selfclosed"/>"#,
        "",
    ));
    let plan = &tree.roots[0];
    let kinds: Vec<_> = plan.props.iter().map(scalar).collect();
    assert_eq!(
        kinds,
        vec![
            (ScalarKind::String, " a b "),
            (ScalarKind::Bool, "true"),
            (ScalarKind::Int, "-1"),
            (ScalarKind::Long, "1316699696000"),
            (ScalarKind::String, ""),
            (ScalarKind::String, ""),
        ]
    );
    assert_eq!(plan.str_prop("l"), Some("1316699696000"));
}

#[test]
fn double_and_float_props_take_name_and_value_from_children() {
    let tree = load(&plan_with(
        "<doubleProp><name>throughput</name><value>60.0</value><savedValue>0.0</savedValue></doubleProp>
         <FloatProperty><name>pct</name><value>50.0</value><savedValue>0.0</savedValue></FloatProperty>
         <floatProp><name>f</name><value>1.5</value></floatProp>",
        "",
    ));
    let plan = &tree.roots[0];
    let throughput = plan.prop("throughput").expect("doubleProp");
    assert_eq!(scalar(throughput), (ScalarKind::Double, "60.0"));
    assert_eq!(
        scalar(plan.prop("pct").expect("FloatProperty")),
        (ScalarKind::Float, "50.0")
    );
    assert_eq!(
        scalar(plan.prop("f").expect("floatProp")),
        (ScalarKind::Float, "1.5")
    );
}

#[test]
fn fully_qualified_property_tags_are_accepted() {
    let tree = load(&plan_with(
        r#"<org.apache.jmeter.testelement.property.StringProperty name="q">v</org.apache.jmeter.testelement.property.StringProperty>"#,
        "",
    ));
    assert_eq!(tree.roots[0].str_prop("q"), Some("v"));
}

#[test]
fn entities_are_decoded_and_line_ends_normalised() {
    let text = plan_with(
        "<stringProp name=\"crlf\">a\r\nb</stringProp>\
         <stringProp name=\"cr\">a&#13;&#10;b</stringProp>\
         <stringProp name=\"ents\">&lt;x&gt; &amp; &quot;&apos; &#x41;</stringProp>\
         <stringProp name=\"cdata\"><![CDATA[<raw>&amp;]]></stringProp>",
        "",
    )
    .replace("testname=\"Child\"", "testname=\"A &amp; B\"");
    let tree = load(&text);
    let plan = &tree.roots[0];
    assert_eq!(plan.str_prop("crlf"), Some("a\nb"));
    assert_eq!(plan.str_prop("cr"), Some("a\r\nb"));
    assert_eq!(plan.str_prop("ents"), Some("<x> & \"' A"));
    assert_eq!(plan.str_prop("cdata"), Some("<raw>&amp;"));
    assert_eq!(child(&tree).name, "A & B");
}

#[test]
fn whole_file_with_crlf_line_ends_loads() {
    let tree =
        load(&plan_with("<stringProp name=\"x\">1\n2</stringProp>", "").replace('\n', "\r\n"));
    assert_eq!(tree.roots[0].str_prop("x"), Some("1\n2"));
    // The property's own line break moves the child one line down.
    assert_eq!(child(&tree).span, Span { line: 7, column: 7 });
}

#[test]
fn element_prop_without_testclass_takes_its_element_type() {
    let tree = load(&plan_with(
        r#"<elementProp name="ThreadGroup.main_controller" elementType="com.blazemeter.jmeter.control.VirtualUserController"/>
           <elementProp name="args" elementType="Arguments" guiclass="ArgumentsPanel" testclass="Arguments" testname="UDV" enabled="false">
             <collectionProp name="Arguments.arguments">
               <elementProp name="k" elementType="Argument">
                 <stringProp name="Argument.name">k</stringProp>
                 <stringProp name="Argument.value">v</stringProp>
               </elementProp>
             </collectionProp>
           </elementProp>"#,
        "",
    ));
    let plan = &tree.roots[0];
    let PropValue::Element {
        element_type,
        class,
        gui,
        ..
    } = &plan
        .prop("ThreadGroup.main_controller")
        .expect("main")
        .value
    else {
        panic!("not an element");
    };
    assert_eq!(class, "com.blazemeter.jmeter.control.VirtualUserController");
    assert_eq!(class, element_type);
    assert_eq!(gui, "");
    let args = plan.prop("args").expect("args");
    let PropValue::Element {
        class,
        gui,
        name,
        enabled,
        ..
    } = &args.value
    else {
        panic!("not an element");
    };
    assert_eq!(
        (class.as_str(), gui.as_str(), name.as_str()),
        ("Arguments", "ArgumentsPanel", "UDV")
    );
    assert!(!enabled);
    let rows = args
        .child("Arguments.arguments")
        .expect("collection")
        .children();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0].child("Argument.value").and_then(Property::as_str),
        Some("v")
    );
}

#[test]
fn collections_nest_and_keep_order() {
    let tree = load(&plan_with(
        r#"<collectionProp name="rows">
             <collectionProp name="1"><stringProp name="a">1</stringProp><stringProp name="b">2</stringProp></collectionProp>
             <collectionProp name="2"><intProp name="c">3</intProp></collectionProp>
           </collectionProp>
           <mapProp name="m"><stringProp name="k">v</stringProp></mapProp>"#,
        "",
    ));
    let plan = &tree.roots[0];
    let rows = plan.prop("rows").expect("rows").children();
    let texts: Vec<Vec<&str>> = rows
        .iter()
        .map(|row| row.children().iter().filter_map(Property::as_str).collect())
        .collect();
    assert_eq!(texts, vec![vec!["1", "2"], vec!["3"]]);
    let PropValue::Map(items) = &plan.prop("m").expect("map").value else {
        panic!("not a map");
    };
    assert_eq!(items[0].as_str(), Some("v"));
}

#[test]
fn obj_prop_save_config_keeps_class_and_fields_in_order() {
    let tree = load(&plan_with(
        r#"<objProp>
             <name>saveConfig</name>
             <value class="SampleSaveConfiguration">
               <time>false</time>
               <latency>true</latency>
               <assertionsResultsToSave>0</assertionsResultsToSave>
             </value>
           </objProp>"#,
        "",
    ));
    let save = tree.roots[0].prop("saveConfig").expect("saveConfig");
    let PropValue::Object { class, fields } = &save.value else {
        panic!("not an object");
    };
    assert_eq!(class, "SampleSaveConfiguration");
    let fields: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        fields,
        vec![
            ("time", "false"),
            ("latency", "true"),
            ("assertionsResultsToSave", "0")
        ]
    );
}

#[test]
fn unknown_child_tags_are_ignored() {
    let tree = load(&plan_with(
        r#"<whatever name="x">1</whatever><stringProp name="kept">y</stringProp><!-- note -->"#,
        "",
    ));
    let names: Vec<&str> = tree.roots[0]
        .props
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, vec!["kept"]);
}

#[test]
fn enabled_follows_java_boolean_parsing() {
    let text = r#"<jmeterTestPlan><hashTree>
      <A testname="absent"/><hashTree/>
      <A testname="upper" enabled="TRUE"/><hashTree/>
      <A testname="off" enabled="false"/><hashTree/>
      <A testname="empty" enabled=""/><hashTree/>
    </hashTree></jmeterTestPlan>"#;
    let tree = load(text);
    let enabled: Vec<(&str, bool)> = tree
        .roots
        .iter()
        .map(|e| (e.name.as_str(), e.enabled))
        .collect();
    assert_eq!(
        enabled,
        vec![
            ("absent", true),
            ("upper", true),
            ("off", false),
            ("empty", false)
        ]
    );
    assert_eq!(tree.roots[0].class, "A", "class falls back to the tag");
    assert_eq!(tree.jmeter_version, None);
}

#[test]
fn tolerates_unpaired_hash_trees() {
    let text = r#"<jmeterTestPlan><hashTree>
      <hashTree/>
      <A testname="no subtree"/>
      <B testname="with subtree"/><hashTree><C testname="c"/><hashTree/></hashTree>
      <D testname="last, no subtree"/>
    </hashTree></jmeterTestPlan>"#;
    let tree = load(text);
    let names: Vec<(&str, usize)> = tree
        .roots
        .iter()
        .map(|e| (e.name.as_str(), e.children.len()))
        .collect();
    assert_eq!(
        names,
        vec![
            ("no subtree", 0),
            ("with subtree", 1),
            ("last, no subtree", 0)
        ]
    );
}

#[test]
fn spans_point_at_start_tags() {
    let tree = load(&plan_with(r#"<stringProp name="x">1</stringProp>"#, ""));
    let plan = &tree.roots[0];
    assert_eq!(plan.span, Span { line: 4, column: 5 });
    assert_eq!(child(&tree).span, Span { line: 6, column: 7 });
    let prop_column =
        5 + r#"<TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="Plan">"#.len();
    assert_eq!(
        plan.props[0].span,
        Span {
            line: 4,
            column: prop_column as u32
        }
    );
    assert_eq!(child(&tree).location(), "t.jmx:6:7");
}

#[test]
fn span_columns_count_characters() {
    let tree = load("<jmeterTestPlan><hashTree>\n<!-- é€ -->  <A testname=\"x\"/><hashTree/></hashTree></jmeterTestPlan>");
    assert_eq!(
        tree.roots[0].span,
        Span {
            line: 2,
            column: 14
        }
    );
}

#[test]
fn malformed_xml_reports_file_line_and_column() {
    let text = "<jmeterTestPlan>\n  <hashTree>\n    <TestPlan testname=\"x\">\n  </hashTree>\n</jmeterTestPlan>\n";
    let err = load_str(text, Path::new("dir/bad.jmx")).expect_err("malformed");
    let LoadError::Xml { span, .. } = &err else {
        panic!("expected an XML error, got {err:?}");
    };
    assert_eq!(span.line, 4);
    let message = err.to_string();
    assert!(
        message.starts_with(&format!("dir/bad.jmx:4:{}: malformed XML: ", span.column)),
        "{message}"
    );
    assert!(
        !message.ends_with(&format!(" at {span}")),
        "position said once: {message}"
    );
}

#[test]
fn wrong_root_or_missing_hash_tree_is_a_structure_error() {
    let err = load_str("<testResults/>", Path::new("r.jtl")).expect_err("wrong root");
    assert!(matches!(err, LoadError::Structure { .. }), "{err:?}");
    assert!(err.to_string().contains("<testResults>"), "{err}");
    let err =
        load_str("<jmeterTestPlan>\n</jmeterTestPlan>", Path::new("e.jmx")).expect_err("no tree");
    assert!(matches!(err, LoadError::Structure { .. }), "{err:?}");
    assert!(err.to_string().starts_with("e.jmx:1:1:"), "{err}");
}

#[test]
fn nesting_deeper_than_the_limit_is_refused_with_its_line_before_parsing() {
    let deep = "<elementProp name=\"x\" elementType=\"Arguments\">\n".repeat(20_000)
        + "</elementProp>".repeat(20_000).as_str();
    let text = plan_with("", &deep);
    // On a 2 MiB thread, as a runtime worker has, so that a recursive parse would overflow.
    let outcome = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || load_str(&text, Path::new("t.jmx")).map(|_| ()))
        .expect("a thread starts")
        .join()
        .expect("loading returns");
    match outcome {
        Err(LoadError::Structure { span, message, .. }) => {
            assert!(
                message.contains("nested deeper than 500 levels"),
                "{message}"
            );
            // The sampler sits 4 levels deep on line 6 with the first property; property k
            // is on line 5 + k, 4 + k levels deep, so the 497th is the first too deep.
            assert_eq!(span.line, 502);
        }
        other => panic!("expected a structure error, got {other:?}"),
    }
}

#[test]
fn the_nesting_scan_skips_comments_cdata_self_closing_tags_and_quoted_brackets() {
    let inside = "<!-- <a><a><a> --><![CDATA[<b><b>]]><?pi <c>?><boolProp name=\"a>b/\">true</boolProp><stringProp name=\"x\"/>"
        .repeat(600);
    let tree = load(&plan_with("", &inside));
    assert_eq!(child(&tree).props.len(), 1200);
}

#[test]
fn the_nesting_scan_stops_at_a_tag_the_text_does_not_close() {
    for text in [
        "<",
        "x<a",
        "<a b=\"",
        "<!--",
        "<![CDATA[",
        "<!DOCTYPE [",
        "</",
    ] {
        assert!(load_str(text, Path::new("t.jmx")).is_err(), "{text}");
    }
}
