//! `planned_end` for the arrival-driven groups: their schedule's length, as `jmxr plan`
//! shows it, with the run's properties.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::planned_end;
use crate::foundation::properties::Properties;
use crate::plan::ThreadGroup;
use crate::user_state::{RunShared, TestInfo};

/// One group of each arrival-driven kind.
const PLAN: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.6.3">
  <hashTree>
    <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="Arrivals" enabled="true"/>
    <hashTree>
      <OpenModelThreadGroup guiclass="OpenModelThreadGroupGui" testclass="OpenModelThreadGroup" testname="Open" enabled="true">
        <elementProp name="ThreadGroup.main_controller" elementType="OpenModelThreadGroupController"/>
        <stringProp name="OpenModelThreadGroup.schedule">rate(5/s) random_arrivals(${__P(om.length,3)} s) /* then */ pause(2 s)</stringProp>
      </OpenModelThreadGroup>
      <hashTree/>
      <com.blazemeter.jmeter.threads.arrivals.ArrivalsThreadGroup guiclass="com.blazemeter.jmeter.threads.arrivals.ArrivalsThreadGroupGui" testclass="com.blazemeter.jmeter.threads.arrivals.ArrivalsThreadGroup" testname="Arrivals" enabled="true">
        <elementProp name="ThreadGroup.main_controller" elementType="com.blazemeter.jmeter.control.VirtualUserController"/>
        <stringProp name="TargetLevel">6</stringProp>
        <stringProp name="RampUp">2</stringProp>
        <stringProp name="Steps">2</stringProp>
        <stringProp name="Hold">3</stringProp>
        <stringProp name="Unit">M</stringProp>
      </com.blazemeter.jmeter.threads.arrivals.ArrivalsThreadGroup>
      <hashTree/>
      <com.blazemeter.jmeter.threads.arrivals.FreeFormArrivalsThreadGroup guiclass="com.blazemeter.jmeter.threads.arrivals.FreeFormArrivalsThreadGroupGui" testclass="com.blazemeter.jmeter.threads.arrivals.FreeFormArrivalsThreadGroup" testname="Free" enabled="true">
        <elementProp name="ThreadGroup.main_controller" elementType="com.blazemeter.jmeter.control.VirtualUserController"/>
        <collectionProp name="Schedule">
          <collectionProp name="1">
            <stringProp name="49">1</stringProp>
            <stringProp name="52">4</stringProp>
            <stringProp name="0">2.5</stringProp>
          </collectionProp>
          <collectionProp name="2">
            <stringProp name="52">4</stringProp>
            <stringProp name="52">4</stringProp>
            <stringProp name="49">1</stringProp>
          </collectionProp>
        </collectionProp>
        <stringProp name="Unit">S</stringProp>
      </com.blazemeter.jmeter.threads.arrivals.FreeFormArrivalsThreadGroup>
      <hashTree/>
    </hashTree>
  </hashTree>
</jmeterTestPlan>
"#;

/// The groups of [`PLAN`] and a run with `properties`.
fn groups(properties: &[(&str, &str)]) -> (Vec<Arc<ThreadGroup>>, RunShared) {
    let tree = crate::jmx::load_str(PLAN, Path::new("arrivals.jmx")).expect("the plan loads");
    let functions = crate::script::function_registry();
    let built = crate::assemble::build(&tree, &functions);
    let map: HashMap<String, String> = properties
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let run = RunShared::new(Properties::from_map(map), TestInfo::default(), Some(0));
    (built.plan.groups, run)
}

fn end_of(name: &str, properties: &[(&str, &str)]) -> Option<Duration> {
    let (groups, run) = groups(properties);
    let group = groups
        .iter()
        .find(|g| &*g.name == name)
        .expect("the group is built");
    planned_end(group, &run)
}

#[test]
fn an_open_model_group_ends_with_its_schedule() {
    assert_eq!(end_of("Open", &[]), Some(Duration::from_secs(5)));
    // The schedule is evaluated with the run's properties.
    assert_eq!(
        end_of("Open", &[("om.length", "10")]),
        Some(Duration::from_secs(12))
    );
    // A schedule that does not parse has no known end.
    assert_eq!(end_of("Open", &[("om.length", "soon")]), None);
}

#[test]
fn an_arrivals_group_ends_after_ramp_up_and_hold_in_its_unit() {
    assert_eq!(end_of("Arrivals", &[]), Some(Duration::from_secs(300)));
}

#[test]
fn a_free_form_arrivals_group_ends_after_its_rows_on_whole_second_offsets() {
    // 2.5 s then 1 s: the plugin's offsets are whole seconds (2, then 3).
    assert_eq!(end_of("Free", &[]), Some(Duration::from_secs(3)));
}
