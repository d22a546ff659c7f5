//! Property functions: `__P`, `__property`, `__setProperty`, `__isPropDefined`, and the
//! jmeter-plugins `__env`, which reads the environment as `__property` reads properties.
//!
//! `__P` and `__property` read through `JMeterUtils.getPropDefault`, which trims the value
//! and the default (`${__P(id, 7)}` is `7`); the property's name is not trimmed.

use super::{arg, stateless, Constructor, Function};
use crate::expr::Template;
use crate::user_state::EvalContext;

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[
    ("__P", p),
    ("__property", property),
    ("__setProperty", set_property),
    ("__isPropDefined", is_prop_defined),
    ("__env", env),
];

/// `__P(name[,default])`: the default when missing is `1`, chosen by JMeter so that counts work.
fn p(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    let constant = |i: usize| args.get(i).and_then(Template::as_literal);
    match (args.len(), constant(0), constant(1)) {
        (1, Some(name), _) => {
            return Ok(Box::new(ConstantNameP {
                name: name.to_string(),
                default: "1".to_string(),
            }))
        }
        (2, Some(name), Some(default)) => {
            return Ok(Box::new(ConstantNameP {
                name: name.to_string(),
                default: default.to_string(),
            }))
        }
        _ => {}
    }
    stateless(args, 1, 2, |args, ctx| {
        let name = arg(args, 0, ctx);
        // JMeter evaluates the default even when the property exists (it may have effects).
        let default = match args.len() {
            1 => "1".to_string(),
            _ => arg(args, 1, ctx),
        };
        ctx.props.get_default(&name, &default)
    })
}

/// `__P` with a name and default written in the plan, the common `${__P(host,localhost)}`:
/// nothing to evaluate but the lookup, and nothing else to do.
struct ConstantNameP {
    name: String,
    default: String,
}

impl Function for ConstantNameP {
    fn call(&self, ctx: &mut EvalContext<'_>) -> String {
        ctx.props.get_default(&self.name, &self.default)
    }

    fn reads_only_properties(&self) -> bool {
        true
    }
}

/// `__property(name[,var[,default]])`: missing without a default returns the name itself.
fn property(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 3, |args, ctx| {
        let name = arg(args, 0, ctx);
        let default = match args.len() {
            3 => arg(args, 2, ctx),
            _ => name.clone(),
        };
        let value = ctx.props.get_default(&name, &default);
        // Unlike most functions, `__property` does not trim the variable name.
        let var = arg(args, 1, ctx);
        if !var.is_empty() {
            ctx.vars.put(var, value.clone());
        }
        value
    })
}

/// `__env(name[,variable[,default]])` (jmeter-plugins): the environment variable, else the
/// default, which is the name itself when not given; stored in `variable` when one is
/// named.
fn env(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 3, |args, ctx| {
        let name = arg(args, 0, ctx);
        let default = match args.len() {
            3 => arg(args, 2, ctx),
            _ => name.clone(),
        };
        let value = std::env::var(&name).unwrap_or(default);
        let var = arg(args, 1, ctx);
        if !var.is_empty() {
            ctx.vars.put(var, value.clone());
        }
        value
    })
}

/// `__setProperty(name,value[,returnOriginal])`.
fn set_property(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 2, 3, |args, ctx| {
        let name = arg(args, 0, ctx);
        let value = arg(args, 1, ctx);
        let return_original = arg(args, 2, ctx).eq_ignore_ascii_case("true");
        let previous = ctx.props.set(name, value);
        match (return_original, previous) {
            (false, _) => String::new(),
            (true, Some(previous)) => previous,
            // JMeter appends the Java null it gets back, which prints as "null".
            (true, None) => "null".to_string(),
        }
    })
}

fn is_prop_defined(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 1, |args, ctx| {
        let name = arg(args, 0, ctx);
        ctx.props.contains(&name).to_string()
    })
}

#[cfg(test)]
mod tests {
    use crate::expr::functions::testing::Fixture;
    use crate::expr::{FunctionRegistry, Template};

    #[test]
    fn p_reads_a_property_with_default_one() {
        let mut f = Fixture::new();
        f.props.set("threads", "10");
        assert_eq!(f.eval("${__P(threads)}"), "10");
        assert_eq!(f.eval("${__P(threads,5)}"), "10");
        assert_eq!(f.eval("${__P(missing)}"), "1");
        assert_eq!(f.eval("${__P(missing,)}"), "");
        assert_eq!(f.eval("${__P(missing,7)}"), "7");
    }

    #[test]
    fn values_and_defaults_are_trimmed_as_get_prop_default_does() {
        let mut f = Fixture::new();
        f.props.set("token", "abc  \t");
        f.props.set(" id", "named with a space");
        assert_eq!(f.eval("${__P(token)}"), "abc");
        assert_eq!(f.eval("${__P(missing, 7)}"), "7");
        assert_eq!(f.eval("${__P(${name}, 7 )}"), "7");
        assert_eq!(f.eval("${__property(token)}"), "abc");
        assert_eq!(f.eval("${__property(missing,, 9 )}"), "9");
        assert_eq!(f.eval("${__property(missing,v, 9 )}${v}"), "99");
        // The name is looked up as written.
        assert_eq!(f.eval("${__P( id)}"), "named with a space");
        // Inner spaces stay; only the ends go, as Java's `trim` (controls too).
        f.props.set("inner", "\u{1}a b\n");
        assert_eq!(f.eval("${__P(inner)}"), "a b");
    }

    #[test]
    fn a_kept_property_value_follows_every_change() {
        let mut f = Fixture::new();
        let template = Fixture::compile("http://${__P(host,localhost)}:${__P(port)}/");
        assert_eq!(f.run(&template), "http://localhost:1/");
        assert_eq!(f.run(&template), "http://localhost:1/");
        f.props.set("port", "8080");
        assert_eq!(f.run(&template), "http://localhost:8080/");
        f.props.set("host", "a");
        assert_eq!(f.run(&template), "http://a:8080/");
        f.props.remove("host");
        assert_eq!(f.run(&template), "http://localhost:8080/");
        // A clone shares what was kept, and sees changes too.
        let clone = template.clone();
        f.props.set("port", "9");
        assert_eq!(f.run(&clone), "http://localhost:9/");
        assert_eq!(f.run(&template), "http://localhost:9/");
        // With a variable in it, nothing is kept: the variable's value is read each time.
        let with_var = Fixture::compile("${__P(port)}${v}");
        f.vars.put("v", "1".to_string());
        assert_eq!(f.run(&with_var), "91");
        f.vars.put("v", "2".to_string());
        assert_eq!(f.run(&with_var), "92");
    }

    #[test]
    fn p_nests() {
        let mut f = Fixture::new();
        f.props.set("b", "a");
        f.props.set("a", "found");
        assert_eq!(f.eval("${__P(${__P(b,c)})}"), "found");
        assert_eq!(f.eval("${__P(a,${__P(b,c)})}"), "found");
        assert_eq!(f.eval("${__P(zz,${__P(b,c)})}"), "a");
    }

    #[test]
    fn property_defaults_to_its_name_and_stores() {
        let mut f = Fixture::new();
        assert_eq!(f.eval("${__property(user.dir)}"), "user.dir");
        assert_eq!(f.eval("${__property(nope,,dflt)}"), "dflt");
        f.props.set("host", "example.org");
        assert_eq!(f.eval("${__property(host,H)}"), "example.org");
        assert_eq!(f.var("H"), Some("example.org"));
    }

    #[test]
    fn env_reads_the_environment_with_the_name_or_a_default_when_unset() {
        let mut f = Fixture::new();
        let path = std::env::var("PATH").expect("tests run with a PATH");
        assert_eq!(f.eval("${__env(PATH)}"), path);
        assert_eq!(f.eval("${__env(PATH,p)}"), path);
        assert_eq!(f.var("p"), Some(path.as_str()));
        assert_eq!(
            f.eval("${__env(JMXR_SURELY_UNSET_VARIABLE)}"),
            "JMXR_SURELY_UNSET_VARIABLE"
        );
        assert_eq!(f.eval("${__env(JMXR_SURELY_UNSET_VARIABLE,,dflt)}"), "dflt");
        assert!(Template::compile("${__env(a,b,c,d)}", &FunctionRegistry::standard()).is_err());
    }

    #[test]
    fn set_property_returns_empty_or_the_original() {
        let mut f = Fixture::new();
        assert_eq!(f.eval("${__setProperty(k,v1)}"), "");
        assert_eq!(f.props.get("k").as_deref(), Some("v1"));
        assert_eq!(f.eval("${__setProperty(k,v2,TRUE)}"), "v1");
        assert_eq!(f.eval("${__setProperty(fresh,v,true)}"), "null");
    }

    #[test]
    fn is_prop_defined() {
        let mut f = Fixture::new();
        f.props.set("x", "");
        assert_eq!(f.eval("${__isPropDefined(x)}"), "true");
        assert_eq!(f.eval("${__isPropDefined(y)}"), "false");
    }

    #[test]
    fn argument_counts_are_checked() {
        let registry = FunctionRegistry::standard();
        for bad in [
            "${__P}",
            "${__P(a,b,c)}",
            "${__setProperty(a)}",
            "${__property()}",
        ] {
            assert!(Template::compile(bad, &registry).is_err(), "{bad}");
        }
        let err = Template::compile("${__P(a,b,c)}", &registry).err();
        let message = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            message.contains("Actual: 3. Expected: >= 1 and <= 2"),
            "{message}"
        );
    }
}
