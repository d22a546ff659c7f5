//! Assembles the runnable plan from the loaded tree: every element is looked up in the
//! compatibility registry (`plan::registry`); supported ones are constructed by the module
//! that implements them (controllers, config, timers, assertions and post-processors in
//! `plan`, protocol samplers in `samplers`, JSR223/BeanShell/BSF elements in `script`),
//! and for each sampler the elements in its scope are resolved into one package.
//!
//! It sits above `plan`, `samplers` and `script` because it constructs from all three;
//! they know nothing of it. [`compat_doc`] renders `docs/compatibility.md` from the same
//! registry and the function library.
//!
//! Scope follows JMeter's rules (reference §2.3–2.4): logic controllers and samplers are
//! ordered; every other element applies to the samplers below its parent. Test-plan-level
//! elements behave as the last children of every thread group. For each sampler the
//! levels from the thread group down to the sampler's own children are combined:
//! pre-processors, post-processors and assertions outermost first, config innermost first.

mod backend;
pub mod compat_doc;
mod prometheus;

use std::collections::HashMap;
use std::sync::Arc;

use crate::expr::{FunctionRegistry, Template};
use crate::jmx::{Element, TestTree};
use crate::plan::config::keystore::KeystoreConfig;
use crate::plan::context::argument_rows;
use crate::plan::controllers;
use crate::plan::registry::{self, Family, Status};
use crate::plan::tree::*;
use crate::plan::{
    assertions, config, timers, Assertion, BuildContext, Diagnostic, IterationListener,
    PostProcessor, PreProcessor, SampleListener, Severity, Timer,
};
use crate::sample::SampleAction;
use crate::samplers::jdbc;
use crate::script::elements::{self as script_elements, ScriptElement};

/// One element as `jmxr check` reports it.
#[derive(Debug, Clone)]
pub struct ElementReport {
    pub path: String,
    pub location: String,
    pub class: String,
    pub title: String,
    pub family: Option<Family>,
    pub status: Status,
    pub note: String,
}

/// Everything building a plan produced.
pub struct PlanOutcome {
    /// The runnable plan (built even when diagnostics hold errors, so `--skip-unsupported` can run it).
    pub plan: TestPlan,
    pub elements: Vec<ElementReport>,
    pub diagnostics: Vec<Diagnostic>,
}

impl PlanOutcome {
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
    }
}

/// Builds the plan from a rewritten tree.
pub fn build(tree: &TestTree, functions: &FunctionRegistry) -> PlanOutcome {
    build_with_properties(tree, functions, crate::plan::context::no_properties())
}

/// Builds the plan with the run's properties at hand, for the few elements whose meaning
/// a property decides (the Java Request class table, `jmxr.java.<class>`).
pub fn build_with_properties(
    tree: &TestTree,
    functions: &FunctionRegistry,
    properties: &HashMap<String, String>,
) -> PlanOutcome {
    let mut builder = Builder {
        functions,
        properties,
        diagnostics: Vec::new(),
        elements: Vec::new(),
        next_id: 0,
        listeners: Vec::new(),
        auto_stops: Vec::new(),
        mailers: Vec::new(),
        backend_listeners: Vec::new(),
        prometheus_listeners: Vec::new(),
        flexible_file_writers: Vec::new(),
        variables: Vec::new(),
        group_iteration: Vec::new(),
        group_numbers: [0; 3],
        data_sources: Arc::default(),
        keystore: None,
    };
    let plan = builder.plan(tree);
    PlanOutcome {
        plan,
        elements: builder.elements,
        diagnostics: builder.diagnostics,
    }
}

struct Builder<'f> {
    functions: &'f FunctionRegistry,
    properties: &'f HashMap<String, String>,
    diagnostics: Vec<Diagnostic>,
    elements: Vec<ElementReport>,
    next_id: usize,
    listeners: Vec<ListenerSpec>,
    auto_stops: Vec<AutoStopSpec>,
    mailers: Vec<crate::plan::mailer::MailerSpec>,
    backend_listeners: Vec<BackendListenerSpec>,
    prometheus_listeners: Vec<PrometheusListenerSpec>,
    flexible_file_writers: Vec<crate::plan::flexible_file_writer::FlexibleFileWriterSpec>,
    variables: Vec<Vec<(String, Template)>>,
    /// Iteration listeners of the thread group being built, wherever they sit in it.
    group_iteration: Vec<Arc<dyn IterationListener>>,
    /// Thread groups seen so far per phase, for their numbers.
    group_numbers: [usize; 3],
    /// The plan's JDBC Connection Configurations: a pool serves every thread group.
    data_sources: Arc<jdbc::DataSources>,
    /// The last Keystore Configuration met: it configures the run's one keystore.
    keystore: Option<KeystoreConfig>,
}

/// The non-ordered elements found at one level of the tree.
#[derive(Clone, Default)]
struct Level<'t> {
    configs: Vec<&'t Element>,
    pre: Vec<Arc<dyn PreProcessor>>,
    timers: Vec<Arc<dyn Timer>>,
    post: Vec<Arc<dyn PostProcessor>>,
    assertions: Vec<Arc<dyn Assertion>>,
    listeners: Vec<usize>,
    sample_listeners: Vec<Arc<dyn SampleListener>>,
    result_actions: Vec<SampleAction>,
    iteration: Vec<Arc<dyn IterationListener>>,
}

impl<'t> Level<'t> {
    fn extend(&mut self, other: &Level<'t>) {
        self.configs.extend(other.configs.iter().copied());
        self.pre.extend(other.pre.iter().cloned());
        self.timers.extend(other.timers.iter().cloned());
        self.post.extend(other.post.iter().cloned());
        self.assertions.extend(other.assertions.iter().cloned());
        self.listeners.extend(other.listeners.iter().copied());
        self.sample_listeners
            .extend(other.sample_listeners.iter().cloned());
        self.result_actions
            .extend(other.result_actions.iter().copied());
        self.iteration.extend(other.iteration.iter().cloned());
    }
}

/// Combines the levels (outermost first) into one sampler's package.
fn package(levels: &[Level<'_>]) -> ScopePackage {
    let mut out = ScopePackage::default();
    let mut listeners = Vec::new();
    let mut actions = Vec::new();
    for level in levels {
        out.pre.extend(level.pre.iter().cloned());
        out.post.extend(level.post.iter().cloned());
        out.assertions.extend(level.assertions.iter().cloned());
    }
    // Sample listeners innermost first, as JMeter's `TestCompiler` lists them: with two
    // Save Responses elements, the outer one's file name is the one the row keeps.
    for level in levels.iter().rev() {
        out.sample_listeners
            .extend(level.sample_listeners.iter().cloned());
        out.timers.extend(level.timers.iter().cloned());
        listeners.extend(level.listeners.iter().copied());
        actions.extend(level.result_actions.iter().copied());
    }
    out.listeners = Arc::from(listeners);
    out.result_actions = actions;
    out
}

fn path_join(parent: &str, el: &Element) -> Arc<str> {
    let own = format!("{} [{}]", el.name, el.class);
    if parent.is_empty() {
        Arc::from(own)
    } else {
        Arc::from(format!("{parent} › {own}"))
    }
}

fn is_thread_group(family: Option<Family>) -> bool {
    family == Some(Family::ThreadGroup)
}

impl<'f> Builder<'f> {
    fn id(&mut self) -> usize {
        self.next_id += 1;
        self.next_id
    }

    fn context<'a>(&'a mut self, el: &'a Element, path: Arc<str>) -> BuildContext<'a> {
        let id = self.id();
        BuildContext::new(self.functions, el, path, id, &mut self.diagnostics)
            .with_properties(self.properties)
    }

    /// Looks the element up, records it for `check`, and reports an unsupported one.
    fn classify(&mut self, el: &Element, path: &str) -> (Option<Family>, Status) {
        let info = registry::lookup(&el.class, &el.gui);
        let (family, status, title, note) = match info {
            Some(info) => (
                Some(info.family),
                info.status,
                info.title.to_string(),
                info.note.to_string(),
            ),
            None => (
                None,
                Status::Unsupported,
                el.class.clone(),
                "unknown element class".to_string(),
            ),
        };
        if status == Status::Unsupported {
            self.diagnostics.push(Diagnostic {
                severity: if registry::affects_run(info, &el.class) {
                    Severity::Error
                } else {
                    Severity::Warning
                },
                location: el.location(),
                path: path.to_string(),
                message: format!("{title} is not supported: {note}"),
            });
        }
        self.elements.push(ElementReport {
            path: path.to_string(),
            location: el.location(),
            class: el.class.clone(),
            title,
            family,
            status,
            note,
        });
        (family, status)
    }

    fn plan(&mut self, tree: &TestTree) -> TestPlan {
        let root = tree.roots.iter().find(|e| e.class == "TestPlan");
        let mut plan = TestPlan {
            name: String::new(),
            file: tree.file.to_path_buf(),
            functional_mode: false,
            serialize_threadgroups: false,
            teardown_on_shutdown: false,
            variables: Vec::new(),
            setup_groups: Vec::new(),
            groups: Vec::new(),
            teardown_groups: Vec::new(),
            listeners: Vec::new(),
            auto_stops: Vec::new(),
            mailers: Vec::new(),
            backend_listeners: Vec::new(),
            prometheus_listeners: Vec::new(),
            flexible_file_writers: Vec::new(),
            keystore: None,
        };
        for other in tree.roots.iter().filter(|e| e.class != "TestPlan") {
            let path = path_join("", other);
            self.classify(other, &path);
            self.report_subtree(other, &path);
        }
        let Some(root) = root else {
            self.diagnostics.push(Diagnostic {
                severity: Severity::Error,
                location: tree.file.display().to_string(),
                path: String::new(),
                message: "the file holds no Test Plan element".into(),
            });
            return plan;
        };
        let root_path = path_join("", root);
        self.classify(root, &root_path);
        plan.name = root.name.clone();
        let flag = |name: &str| {
            root.str_prop(name)
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        };
        plan.functional_mode = flag("TestPlan.functional_mode");
        plan.serialize_threadgroups = flag("TestPlan.serialize_threadgroups");
        plan.teardown_on_shutdown = flag("TestPlan.tearDown_on_shutdown");
        if let Some(udv) = root.prop("TestPlan.user_defined_variables") {
            let rows = argument_rows(udv);
            let mut cx = self.context(root, root_path.clone());
            let compiled = rows.into_iter().map(|(n, v)| (n, cx.compile(&v))).collect();
            self.variables.push(compiled);
        }

        self.data_sources = Arc::new(self.collect_data_sources(root, &root_path));
        // Plan-level non-thread-group elements apply inside every thread group.
        let mut plan_level = Level::default();
        let mut groups = Vec::new();
        for child in &root.children {
            let path = path_join(&root_path, child);
            let (family, status) = self.classify(child, &path);
            if is_thread_group(family) {
                groups.push((child, path, status));
            } else {
                self.level_element(child, &path, family, status, &mut plan_level);
                self.walk_unused(child, &path, family);
            }
        }
        for (el, path, status) in groups {
            let phase = match el.class.as_str() {
                "SetupThreadGroup" => 0,
                "PostThreadGroup" => 2,
                _ => 1,
            };
            self.group_numbers[phase] += 1;
            if status != Status::Supported {
                self.report_subtree(el, &path);
                continue;
            }
            let group = Arc::new(self.thread_group(el, path, &plan_level));
            match el.class.as_str() {
                "SetupThreadGroup" => plan.setup_groups.push(group),
                "PostThreadGroup" => plan.teardown_groups.push(group),
                _ => plan.groups.push(group),
            }
        }
        plan.listeners = std::mem::take(&mut self.listeners);
        plan.auto_stops = std::mem::take(&mut self.auto_stops);
        plan.mailers = std::mem::take(&mut self.mailers);
        plan.backend_listeners = std::mem::take(&mut self.backend_listeners);
        plan.prometheus_listeners = std::mem::take(&mut self.prometheus_listeners);
        plan.flexible_file_writers = std::mem::take(&mut self.flexible_file_writers);
        plan.variables = std::mem::take(&mut self.variables);
        plan.keystore = self.keystore.take();
        plan
    }

    /// Builds every JDBC Connection Configuration of the tree, in tree order.
    fn collect_data_sources(&mut self, el: &Element, path: &str) -> jdbc::DataSources {
        let mut defs = Vec::new();
        for child in &el.children {
            let child_path = path_join(path, child);
            if jdbc::is_data_source(&child.class) {
                let mut cx = self.context(child, child_path.clone());
                defs.push(Arc::new(jdbc::datasource::build(&mut cx)));
            }
            let nested = self.collect_data_sources(child, &child_path);
            defs.extend(nested.into_defs());
        }
        jdbc::DataSources::new(defs)
    }

    /// Reports the subtree of an element that does not run in place (a Test Fragment at
    /// plan level, an unsupported thread group), so `check` still lists every element.
    fn report_subtree(&mut self, el: &Element, path: &str) {
        for child in &el.children {
            let child_path = path_join(path, child);
            self.classify(child, &child_path);
            self.report_subtree(child, &child_path);
        }
    }

    fn walk_unused(&mut self, el: &Element, path: &str, family: Option<Family>) {
        if family == Some(Family::Controller) || !el.children.is_empty() {
            self.report_subtree(el, path);
        }
    }

    fn thread_group(
        &mut self,
        el: &Element,
        path: Arc<str>,
        plan_level: &Level<'_>,
    ) -> ThreadGroup {
        let mut cx = self.context(el, path.clone());
        let id = cx.id;
        let num_threads = cx.setting("ThreadGroup.num_threads", "0");
        let ramp_up = cx.setting("ThreadGroup.ramp_time", "0");
        let scheduler = cx.flag("ThreadGroup.scheduler", false);
        let duration = cx.setting("ThreadGroup.duration", "0");
        let delay = cx.setting("ThreadGroup.delay", "0");
        // The bzm groups save the flag without the `ThreadGroup.` prefix.
        let same_user_on_next_iteration = cx.flag(
            "ThreadGroup.same_user_on_next_iteration",
            cx.flag("same_user_on_next_iteration", true),
        );
        let delayed_start = cx.flag("ThreadGroup.delayedStart", false);
        let on_error = OnError::parse(cx.raw("ThreadGroup.on_sample_error").unwrap_or(""));
        let schedule = group_schedule(el.class.as_str(), &mut cx);
        let loops = match el.prop("ThreadGroup.main_controller") {
            Some(main) => {
                let text = main
                    .child("LoopController.loops")
                    .and_then(|p| p.as_str())
                    .unwrap_or("1")
                    .to_string();
                let template = cx.compile(&text);
                crate::plan::Setting::from_template(template)
            }
            None => crate::plan::Setting::constant("1"),
        };
        let name: Arc<str> = Arc::from(name_at_start(&mut cx, &el.name));
        let name_template = Template::literal(&el.name);
        self.group_iteration = plan_level.iteration.clone();
        let (children, level) = self.children(el, &path, &[], Some(plan_level));
        let phase = match el.class.as_str() {
            "SetupThreadGroup" => Phase::Setup,
            "PostThreadGroup" => Phase::Teardown,
            _ => Phase::Main,
        };
        let number = self.group_numbers[match phase {
            Phase::Setup => 0,
            Phase::Main => 1,
            Phase::Teardown => 2,
        }];
        // JMeter adds iteration listeners at the front of its list: the last one added fires first.
        let mut iteration_listeners = level.iteration;
        iteration_listeners.reverse();
        let body = Arc::new(Controller {
            id,
            name: name_template,
            path: path.clone(),
            kind: ControllerKind::Simple,
            children,
            iteration_listeners,
            scope: ScopePackage::default(),
        });
        ThreadGroup {
            id,
            name,
            path,
            phase,
            number,
            iteration_listeners: std::mem::take(&mut self.group_iteration),
            num_threads,
            ramp_up,
            loops,
            scheduler,
            duration,
            delay,
            same_user_on_next_iteration,
            delayed_start,
            on_error,
            body,
            schedule,
        }
    }

    /// Builds the ordered children (controllers and samplers) of `parent`, with
    /// `outer` the levels above it. `extra` holds elements appended to this level
    /// (plan-level elements inside a thread group). Returns the nodes and this level.
    fn children<'t>(
        &mut self,
        parent: &'t Element,
        parent_path: &str,
        outer: &[Level<'t>],
        extra: Option<&Level<'t>>,
    ) -> (Vec<Node>, Level<'t>) {
        let mut level = Level::default();
        let mut ordered = Vec::new();
        for child in &parent.children {
            let path = path_join(parent_path, child);
            let (family, status) = self.classify(child, &path);
            match family {
                Some(Family::Controller) | Some(Family::Sampler) => {
                    ordered.push((child, path, family, status))
                }
                Some(Family::ThreadGroup) | Some(Family::TestPlan) => {
                    self.report_subtree(child, &path)
                }
                _ => {
                    self.level_element(child, &path, family, status, &mut level);
                    self.walk_unused(child, &path, family);
                }
            }
        }
        if let Some(extra) = extra {
            level.extend(extra);
        }
        let mut levels = outer.to_vec();
        levels.push(level.clone());
        let mut nodes = Vec::new();
        for (child, path, family, status) in ordered {
            if status != Status::Supported {
                self.report_subtree(child, &path);
                continue;
            }
            let node = if family == Some(Family::Controller) {
                self.controller(child, path, &levels)
            } else {
                self.sampler(child, path, &levels)
            };
            if let Some(node) = node {
                nodes.push(node);
            }
        }
        (nodes, level)
    }

    fn controller(&mut self, el: &Element, path: Arc<str>, outer: &[Level<'_>]) -> Option<Node> {
        let (children, level) = self.children(el, &path, outer, None);
        let mut levels = outer.to_vec();
        levels.push(level.clone());
        let mut cx = self.context(el, path.clone());
        let kind = controllers::build(&mut cx)?;
        let name = cx.compile(&el.name);
        let id = cx.id;
        let scope = match kind {
            ControllerKind::Transaction { .. } | ControllerKind::Parallel { .. } => {
                package(&levels)
            }
            _ => ScopePackage::default(),
        };
        let mut iteration_listeners = level.iteration;
        iteration_listeners.reverse();
        Some(Node::Controller(Arc::new(Controller {
            id,
            name,
            path,
            kind,
            children,
            iteration_listeners,
            scope,
        })))
    }

    fn sampler(&mut self, el: &Element, path: Arc<str>, outer: &[Level<'_>]) -> Option<Node> {
        let mut own = Level::default();
        for child in &el.children {
            let child_path = path_join(&path, child);
            let (family, status) = self.classify(child, &child_path);
            self.level_element(child, &child_path, family, status, &mut own);
            self.walk_unused(child, &child_path, family);
        }
        let mut levels = outer.to_vec();
        levels.push(own);
        let configs: Vec<&Element> = levels
            .iter()
            .rev()
            .flat_map(|l| l.configs.iter().copied())
            .collect();
        let sources = self.data_sources.clone();
        let mut cx = self.context(el, path.clone());
        let id = cx.id;
        let name = cx.compile(&el.name);
        let sampler = if el.class == "TestAction" {
            Some(crate::samplers::flow_control::build(&mut cx))
        } else if jdbc::is_sampler(&el.class) {
            Some(jdbc::build_sampler(&mut cx, sources))
        } else if script_elements::is_script_class(&el.class) {
            // A script that cannot run has been reported by the script builder.
            match script_elements::build(&el.class, &mut cx) {
                Some(ScriptElement::Sampler(sampler)) => Some(sampler),
                _ => return None,
            }
        } else {
            crate::samplers::build(&el.class, &mut cx, &configs)
        };
        let Some(sampler) = sampler else {
            cx.error(format!("{} cannot be built", el.class));
            return None;
        };
        Some(Node::Sampler(Arc::new(SamplerNode {
            id,
            literal_label: name.as_literal().map(Arc::from),
            name,
            path,
            sampler,
            scope: package(&levels),
        })))
    }

    /// Builds a non-ordered element into `level`.
    fn level_element<'t>(
        &mut self,
        el: &'t Element,
        path: &Arc<str>,
        family: Option<Family>,
        status: Status,
        level: &mut Level<'t>,
    ) {
        if status != Status::Supported {
            return;
        }
        let class = el.class.as_str();
        let sources = self.data_sources.clone();
        let mut cx = self.context(el, path.clone());
        if script_elements::is_script_class(class) {
            match script_elements::build(class, &mut cx) {
                Some(ScriptElement::Pre(pre)) => level.pre.push(pre),
                Some(ScriptElement::Post(post)) => level.post.push(post),
                Some(ScriptElement::Assertion(assertion)) => level.assertions.push(assertion),
                Some(ScriptElement::Timer(timer)) => level.timers.push(timer),
                Some(ScriptElement::Listener(listener)) => level.sample_listeners.push(listener),
                Some(ScriptElement::Sampler(_)) | None => {}
            }
            return;
        }
        if class == "URLRewritingModifier" {
            level
                .pre
                .push(crate::samplers::http::url_rewriting::build(&mut cx));
            return;
        }
        if class == "AnchorModifier" {
            level.pre.push(crate::samplers::http::link_parser::build());
            return;
        }
        if class == "RegExUserParameters" {
            level
                .pre
                .push(crate::samplers::http::regex_user_parameters::build(&mut cx));
            return;
        }
        if let Some(pre) = jdbc::processor_kind(class) {
            let processor = jdbc::build_processor(&mut cx, sources);
            if pre {
                level.pre.push(processor);
            } else {
                level.post.push(processor);
            }
            return;
        }
        match family {
            Some(Family::Config) if el.gui.ends_with("SimpleConfigGui") && !el.props.is_empty() => {
                cx.warn("the properties of a Simple Config Element are not merged into samplers");
            }
            Some(Family::Config) if el.gui.ends_with("SimpleConfigGui") => {}
            Some(Family::Config) if class == "KeystoreConfig" => {
                self.keystore = Some(config::keystore::read(&mut cx));
            }
            Some(Family::Config) if class == "Arguments" => {
                let rows = cx.arguments("Arguments.arguments");
                self.variables.push(rows);
            }
            // The plugin is an `Arguments` element too: its rows join the start variables.
            Some(Family::Config) if class == "kg.apc.jmeter.config.VariablesFromCSV" => {
                let rows = config::variables_from_csv::rows(&mut cx);
                self.variables.push(rows);
            }
            Some(Family::Config) | Some(Family::PreProcessor) => {
                match config::build(class, &mut cx) {
                    Some(config::ConfigElement::Iteration(it)) => {
                        self.group_iteration.push(it.clone());
                        level.iteration.push(it);
                    }
                    Some(config::ConfigElement::Pre(pre)) => level.pre.push(pre),
                    None => level.configs.push(el),
                }
            }
            Some(Family::Timer) => match timers::build(class, &mut cx) {
                Some(timer) => level.timers.push(timer),
                None => cx.error(format!("{class} cannot be built")),
            },
            Some(Family::Assertion) => match assertions::build(class, &mut cx) {
                Some(assertion) => level.assertions.push(assertion),
                None => cx.error(format!("{class} cannot be built")),
            },
            Some(Family::PostProcessor) if class == "ResultAction" => {
                let action = result_action(cx.raw("OnError.action").unwrap_or("0"));
                level.result_actions.push(action);
            }
            Some(Family::PostProcessor) => match crate::plan::extractors::build(class, &mut cx) {
                Some(post) => level.post.push(post),
                None => cx.error(format!("{class} cannot be built")),
            },
            Some(Family::Listener) if class == AUTO_STOP => {
                if let Some(spec) = auto_stop_spec(&mut cx) {
                    level.listeners.push(spec.id);
                    self.auto_stops.push(spec);
                }
            }
            Some(Family::Listener) if class == "MailerResultCollector" => {
                let spec = crate::plan::mailer::build(&mut cx);
                // A Result Collector too: it writes its file when it names one.
                let file = listener_spec(&mut cx);
                level.listeners.push(spec.id);
                self.mailers.push(spec);
                self.listeners.extend(file);
            }
            Some(Family::Listener) if class == "BackendListener" => {
                if let Some(spec) = backend::spec(&mut cx) {
                    level.listeners.push(spec.id);
                    self.backend_listeners.push(spec);
                }
            }
            Some(Family::Listener) if class == "ResultSaver" => {
                let saver = crate::plan::result_saver::build(&mut cx);
                level.sample_listeners.push(Arc::new(saver));
            }
            Some(Family::Listener) if class == crate::plan::flexible_file_writer::CLASS => {
                let spec = crate::plan::flexible_file_writer::build(&mut cx);
                level.listeners.push(spec.id);
                self.flexible_file_writers.push(spec);
            }
            Some(Family::Listener) if class == PROMETHEUS_LISTENER => {
                let spec = prometheus::spec(&mut cx);
                level.listeners.push(spec.id);
                self.prometheus_listeners.push(spec);
            }
            Some(Family::Listener) => {
                if let Some(spec) = listener_spec(&mut cx) {
                    level.listeners.push(spec.id);
                    self.listeners.push(spec);
                }
            }
            _ => {}
        }
    }
}

/// `OnError.action` of a Result Status Action Handler.
fn result_action(raw: &str) -> SampleAction {
    match raw.trim() {
        "1" => SampleAction::StopThread,
        "2" => SampleAction::StopTest,
        "3" => SampleAction::StopTestNow,
        "4" => SampleAction::StartNextThreadLoop,
        "5" => SampleAction::StartNextIterationOfCurrentLoop,
        "6" => SampleAction::BreakCurrentLoop,
        _ => SampleAction::Continue,
    }
}

/// A Result Collector that names a file becomes a listener spec; one without a file
/// only shows results in JMeter's GUI and has nothing to do here.
fn listener_spec(cx: &mut BuildContext<'_>) -> Option<ListenerSpec> {
    let el = cx.element;
    let raw = el.str_prop("filename").unwrap_or("");
    if raw.trim().is_empty() {
        return None;
    }
    let filename = cx.compile(raw);
    let save_config = el.props.iter().find_map(|p| match &p.value {
        crate::jmx::PropValue::Object { fields, .. } if p.name == "saveConfig" => {
            Some(fields.clone())
        }
        _ => None,
    });
    Some(ListenerSpec {
        id: cx.id,
        name: el.name.clone(),
        path: cx.path.clone(),
        filename,
        save_config,
        errors_only: cx.flag("ResultCollector.error_logging", false),
        success_only: cx.flag("ResultCollector.success_only_logging", false),
    })
}

const AUTO_STOP: &str = "kg.apc.jmeter.reporters.AutoStop";

/// The AutoStop Listener's conditions; `None` (an error) when it asks for one of the
/// conditions later versions of the plugin added, which jmxr does not evaluate.
fn auto_stop_spec(cx: &mut BuildContext<'_>) -> Option<AutoStopSpec> {
    const LATER_CONDITIONS: [&str; 5] = [
        "percentile_response_time",
        "rel_percentile_window_secs",
        "rel_percentile_threshold_pct",
        "error_count",
        "custom_validation_duration",
    ];
    let asked: Vec<&str> = LATER_CONDITIONS
        .into_iter()
        .filter(|name| {
            cx.element
                .str_prop(name)
                .is_some_and(|v| !matches!(v.trim(), "" | "0"))
        })
        .collect();
    if !asked.is_empty() {
        cx.error(format!(
            "AutoStop conditions {} are not evaluated; only average response time, \
             average latency and error rate are",
            asked.join(", ")
        ));
        return None;
    }
    let names = [
        "avg_response_time",
        "avg_response_time_length",
        "avg_response_latency",
        "avg_response_latency_length",
        "error_rate",
        "error_rate_length",
    ];
    let values = names.map(|name| {
        let raw = cx.element.str_prop(name).unwrap_or("").to_string();
        cx.compile(&raw)
    });
    Some(AutoStopSpec {
        id: cx.id,
        path: cx.path.clone(),
        values,
    })
}

/// A thread group's name as JMeter names its threads: functions in it are evaluated
/// when the test starts, with the run's properties and no variables yet
/// (`${__P(group,Users)}` makes threads `Users 1-1`).
fn name_at_start(cx: &mut BuildContext<'_>, text: &str) -> String {
    if !text.contains("${") {
        return text.to_string();
    }
    let template = cx.compile(text);
    let props = crate::foundation::properties::Properties::from_map(cx.properties.clone());
    let mut vars = crate::user_state::Variables::new();
    let thread = crate::user_state::ThreadInfo::default();
    let test = crate::user_state::TestInfo::default();
    let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(0);
    template.eval(&mut crate::user_state::EvalContext {
        vars: &mut vars,
        props: &props,
        thread: &thread,
        test: &test,
        rng: &mut rng,
        sampler_name: "",
        prev: None,
    })
}

/// The schedule of a thread group by its class (the plugin groups keep their users'
/// start and end times in their own properties).
fn group_schedule(class: &str, cx: &mut BuildContext<'_>) -> GroupSchedule {
    match class.rsplit('.').next().unwrap_or(class) {
        "UltimateThreadGroup" => {
            // Plans saved by old versions of the plugin name the table `threads_schedule`.
            let name = if cx.element.prop("ultimatethreadgroupdata").is_some() {
                "ultimatethreadgroupdata"
            } else {
                "threads_schedule"
            };
            let rows = cx.setting_table(name);
            GroupSchedule::Ultimate(rows)
        }
        "SteppingThreadGroup" => GroupSchedule::Stepping(Box::new(SteppingSettings {
            initial_delay: cx.setting("Threads initial delay", "0"),
            start_count: cx.setting("Start users count", "0"),
            start_burst: cx.setting("Start users count burst", "0"),
            start_period: cx.setting("Start users period", "0"),
            ramp_up: cx.setting("rampUp", "0"),
            hold: cx.setting("flighttime", "0"),
            stop_count: cx.setting("Stop users count", "0"),
            stop_period: cx.setting("Stop users period", "0"),
        })),
        "ConcurrencyThreadGroup" => GroupSchedule::Concurrency(Box::new(ConcurrencySettings {
            target: cx.setting("TargetLevel", "1"),
            ramp_up: cx.setting("RampUp", ""),
            steps: cx.setting("Steps", ""),
            hold: cx.setting("Hold", "1"),
            unit: cx.setting("Unit", ""),
            iterations: cx.setting("Iterations", ""),
        })),
        "OpenModelThreadGroup" => GroupSchedule::OpenModel(Box::new(OpenModelSettings {
            schedule: cx.setting("OpenModelThreadGroup.schedule", ""),
            random_seed: cx.setting("OpenModelThreadGroup.random_seed", "0"),
        })),
        kind @ ("ArrivalsThreadGroup" | "FreeFormArrivalsThreadGroup") => {
            let free_form =
                (kind == "FreeFormArrivalsThreadGroup").then(|| cx.setting_table("Schedule"));
            GroupSchedule::Arrivals(Box::new(ArrivalsSettings {
                target: cx.setting("TargetLevel", "1"),
                ramp_up: cx.setting("RampUp", ""),
                steps: cx.setting("Steps", ""),
                hold: cx.setting("Hold", "1"),
                unit: cx.setting("Unit", ""),
                iterations: cx.setting("Iterations", ""),
                concurrency_limit: cx.setting("ConcurrencyLimit", ""),
                free_form,
            }))
        }
        _ => GroupSchedule::Standard,
    }
}

#[cfg(test)]
mod auto_stop_tests {
    use super::*;
    use crate::plan::assertions::test_support::*;

    #[test]
    fn an_auto_stop_listener_keeps_its_conditions_and_refuses_the_later_ones() {
        let el = element(
            AUTO_STOP,
            "AutoStop",
            vec![
                str_prop("avg_response_time", "${__P(limit,250)}"),
                str_prop("error_rate", "5"),
                str_prop("percentile_response_time", "0"),
            ],
        );
        let (spec, diagnostics) = build_with_diagnostics(&el, auto_stop_spec);
        let spec = spec.expect("the three conditions are kept");
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(spec.id, 7);
        assert_eq!(spec.values[0].raw(), "${__P(limit,250)}");
        assert_eq!(spec.values[4].raw(), "5");

        let el = element(
            AUTO_STOP,
            "AutoStop",
            vec![
                str_prop("avg_response_time", "250"),
                str_prop("percentile_response_time", "900"),
                str_prop("error_count", "3"),
            ],
        );
        let (spec, diagnostics) = build_with_diagnostics(&el, auto_stop_spec);
        assert!(spec.is_none());
        assert_eq!(diagnostics.len(), 1);
        assert!(
            diagnostics[0]
                .message
                .contains("percentile_response_time, error_count"),
            "{diagnostics:?}"
        );
    }
}
