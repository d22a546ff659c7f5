//! Logic controllers' settings, read from their elements. Their behaviour lives in
//! `engine::controllers`.

use super::tree::{ControllerKind, ThroughputStyle};
use super::{BuildContext, Setting};

/// Reads a controller's settings; `None` (with a diagnostic) for a class that is not a controller.
pub fn build(cx: &mut BuildContext<'_>) -> Option<ControllerKind> {
    let class = cx.element.class.clone();
    let kind = match class.as_str() {
        "GenericController"
        | "RecordingController"
        | "ModuleController"
        | "IncludeController"
        | "TestFragmentController" => ControllerKind::Simple,
        "LoopController" => ControllerKind::Loop {
            loops: cx.setting("LoopController.loops", "0"),
            continue_forever: cx.flag("LoopController.continue_forever", true),
        },
        "WhileController" => ControllerKind::While {
            condition: cx.template("WhileController.condition"),
        },
        "IfController" => {
            let use_expression = cx.flag("IfController.useExpression", false);
            if !use_expression {
                check_javascript_condition(cx);
            }
            ControllerKind::If {
                condition: cx.template("IfController.condition"),
                use_expression,
                evaluate_all: cx.flag("IfController.evaluateAll", false),
            }
        }
        "TransactionController" => ControllerKind::Transaction {
            parent: cx.flag("TransactionController.parent", false),
            include_timers: cx.flag("TransactionController.includeTimers", true),
        },
        "OnceOnlyController" => ControllerKind::OnceOnly,
        "InterleaveControl" => ControllerKind::Interleave {
            ignore_sub_controllers: style(cx) == 0,
            across_threads: cx.flag("InterleaveControl.accrossThreads", false),
        },
        "RandomController" => ControllerKind::Random {
            ignore_sub_controllers: style(cx) == 0,
        },
        "RandomOrderController" => ControllerKind::RandomOrder,
        "ThroughputController" => throughput(cx),
        "RunTime" => ControllerKind::Runtime {
            seconds: cx.setting("RunTime.seconds", "0"),
        },
        "SwitchController" => ControllerKind::Switch {
            value: cx.template("SwitchController.value"),
        },
        "ForeachController" => ControllerKind::ForEach {
            input: cx.template("ForeachController.inputVal"),
            output: cx.template("ForeachController.returnVal"),
            use_separator: cx.flag("ForeachController.useSeparator", true),
            start: cx.setting("ForeachController.startIndex", "0"),
            end: cx.setting("ForeachController.endIndex", ""),
        },
        "CriticalSectionController" => ControllerKind::CriticalSection {
            lock_name: cx.template("CriticalSectionController.lockName"),
        },
        "com.blazemeter.jmeter.control.WeightedSwitchController" => weighted_switch(cx),
        "com.blazemeter.jmeter.controller.ParallelSampler" => parallel(cx),
        "kg.apc.jmeter.control.ParameterizedController" => parameterized(cx),
        other => {
            cx.error(format!("{other} is not a logic controller jmxr runs"));
            return None;
        }
    };
    Some(kind)
}

/// An If Controller without "interpret condition as variable expression" runs its
/// condition as JavaScript; jmxr evaluates the comparisons plans write there, and reports
/// anything beyond them instead of treating it as false.
fn check_javascript_condition(cx: &mut BuildContext<'_>) {
    let raw = cx.raw("IfController.condition").unwrap_or("").to_string();
    if let Err(err) = crate::expr::condition::check_syntax(&raw) {
        cx.error(format!(
            "If Controller condition {raw:?} is JavaScript jmxr cannot evaluate yet ({err})"
        ));
    }
}

fn style(cx: &BuildContext<'_>) -> i64 {
    cx.raw("InterleaveControl.style")
        .map(super::context::parse_i64)
        .unwrap_or(0)
}

fn throughput(cx: &mut BuildContext<'_>) -> ControllerKind {
    let style = match cx
        .raw("ThroughputController.style")
        .map(super::context::parse_i64)
    {
        Some(1) => ThroughputStyle::Percent,
        _ => ThroughputStyle::TotalExecutions,
    };
    let percent = match cx.element.prop("ThroughputController.percentThroughput") {
        Some(prop) => match prop.as_str() {
            Some(text) => {
                let text = text.to_string();
                Setting::from_template(cx.compile(&text))
            }
            None => Setting::constant("100"),
        },
        None => Setting::constant("100"),
    };
    ControllerKind::Throughput {
        style,
        per_thread: cx.flag("ThroughputController.perThread", true),
        max_throughput: cx.setting("ThroughputController.maxThroughput", "1"),
        percent,
    }
}

/// The Weighted Switch Controller's table: rows of (child name, weight, enabled). The
/// plugin counts a row of two cells as enabled and any other row only when its third
/// cell is exactly `true`; the name is not used, the rows' order maps to the children's.
fn weighted_switch(cx: &mut BuildContext<'_>) -> ControllerKind {
    let element = cx.element;
    let mut weights = Vec::new();
    if let Some(table) = element.prop("Weights") {
        for row in table.children() {
            let cells = row.children();
            let enabled = match cells.len() {
                2 => true,
                3 => cells[2].as_str() == Some("true"),
                _ => false,
            };
            if enabled {
                let text = cells[1].as_str().unwrap_or("");
                weights.push(Setting::from_template(cx.compile(text)));
            }
        }
    }
    ControllerKind::WeightedSwitch {
        weights,
        random: cx.flag("IsRandomChoice", false),
    }
}

/// The Parallel Controller's options; the plugin's default pool size is 6.
fn parallel(cx: &mut BuildContext<'_>) -> ControllerKind {
    let limit = cx.flag("LIMIT_MAX_THREAD_NUMBER", false);
    let max = cx
        .raw("MAX_THREAD_NUMBER")
        .map(super::context::parse_i64)
        .unwrap_or(6);
    let max_parallel = if limit {
        if max < 1 {
            cx.error(format!(
                "Parallel Controller limits its threads to {max}: the limit must be at least 1"
            ));
        }
        Some(max.max(1) as usize)
    } else {
        None
    };
    ControllerKind::Parallel {
        generate_parent: cx.flag("PARENT_SAMPLE", false),
        max_parallel,
    }
}

/// The Parameterized Controller's variables, as JMeter's `Arguments.getArgumentsAsMap`
/// reads them: in order, the first row of a name winning.
fn parameterized(cx: &mut BuildContext<'_>) -> ControllerKind {
    let mut variables: Vec<(String, crate::expr::Template)> = Vec::new();
    for (name, value) in cx.arguments("ParameterizedController") {
        if !variables.iter().any(|(known, _)| *known == name) {
            variables.push((name, value));
        }
    }
    ControllerKind::Parameterized {
        variables: variables.into(),
    }
}
