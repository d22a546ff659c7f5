//! A small evaluation harness for the expression unit tests.

use rand::rngs::SmallRng;
use rand::SeedableRng;

use super::standard_registry;
use crate::expr::Template;
use crate::foundation::properties::Properties;
use crate::user_state::EvalContext;
use crate::user_state::TestInfo;
use crate::user_state::ThreadInfo;
use crate::user_state::Variables;

/// Everything an [`EvalContext`] borrows, owned so tests can inspect it afterwards.
pub(crate) struct Fixture {
    pub vars: Variables,
    pub props: Properties,
    pub thread: ThreadInfo,
    pub test: TestInfo,
    pub rng: SmallRng,
    pub sampler_name: String,
}

impl Fixture {
    pub fn new() -> Fixture {
        Fixture {
            vars: Variables::new(),
            props: Properties::new(),
            thread: ThreadInfo {
                thread_num: 3,
                thread_name: "Users 1-3".into(),
                group_name: "Users".into(),
            },
            test: TestInfo::default(),
            rng: SmallRng::seed_from_u64(7),
            sampler_name: "Login".to_string(),
        }
    }

    /// Compiles `text` with the standard registry; panics on a compile error (tests only).
    pub fn compile(text: &str) -> Template {
        match Template::compile(text, standard_registry()) {
            Ok(compiled) => compiled.template,
            Err(err) => panic!("{text:?} did not compile: {err}"),
        }
    }

    pub fn eval(&mut self, text: &str) -> String {
        let template = Fixture::compile(text);
        self.run(&template)
    }

    pub fn run(&mut self, template: &Template) -> String {
        let mut ctx = EvalContext {
            vars: &mut self.vars,
            props: &self.props,
            thread: &self.thread,
            test: &self.test,
            rng: &mut self.rng,
            sampler_name: &self.sampler_name,
            prev: None,
        };
        template.eval(&mut ctx)
    }

    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name)
    }
}
