//! Who and where: `__threadNum`, `__threadGroupName`, `__samplerName`, `__TestPlanName`,
//! `__machineName`, `__machineIP`.

use std::net::{IpAddr, ToSocketAddrs};
use std::sync::OnceLock;

use super::{stateless, store, Constructor, Function};
use crate::expr::Template;

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[
    ("__threadNum", thread_num),
    ("__threadGroupName", thread_group_name),
    ("__samplerName", sampler_name),
    ("__TestPlanName", test_plan_name),
    ("__machineName", machine_name),
    ("__machineIP", machine_ip),
];

fn thread_num(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 0, 0, |_, ctx| ctx.thread.thread_num.to_string())
}

/// JMeter does not check this function's arguments; neither do we.
fn thread_group_name(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 0, usize::MAX, |_, ctx| {
        ctx.thread.group_name.to_string()
    })
}

fn sampler_name(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 0, 1, |args, ctx| {
        let name = ctx.sampler_name.to_string();
        store(args, 0, ctx, &name);
        name
    })
}

/// The plan's file name (`Demo.jmx`), without its folder.
fn test_plan_name(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 0, 0, |_, ctx| {
        ctx.test
            .plan_file
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()
    })
}

fn machine_name(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 0, 1, |args, ctx| {
        let name = host_name().to_string();
        store(args, 0, ctx, &name);
        name
    })
}

fn machine_ip(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 0, 1, |args, ctx| {
        let ip = host_ip().to_string();
        store(args, 0, ctx, &ip);
        ip
    })
}

/// The host name, looked up once per process as JMeter caches it.
fn host_name() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| gethostname::gethostname().to_string_lossy().into_owned())
}

/// The address the host name resolves to (IPv4 preferred), `127.0.0.1` when it does not.
fn host_ip() -> &'static str {
    static IP: OnceLock<String> = OnceLock::new();
    IP.get_or_init(|| {
        let addresses: Vec<IpAddr> = (host_name(), 0)
            .to_socket_addrs()
            .map(|found| found.map(|a| a.ip()).collect())
            .unwrap_or_default();
        addresses
            .iter()
            .find(|ip| ip.is_ipv4())
            .or(addresses.first())
            .map(IpAddr::to_string)
            .unwrap_or_else(|| "127.0.0.1".to_string())
    })
}

#[cfg(test)]
mod tests {
    use crate::expr::functions::testing::Fixture;

    #[test]
    fn thread_facts() {
        let mut f = Fixture::new();
        assert_eq!(f.eval("${__threadNum}"), "3");
        assert_eq!(f.eval("${__threadNum()}"), "3");
        assert_eq!(f.eval("${__threadGroupName}"), "Users");
        assert_eq!(f.eval("${__samplerName(S)}"), "Login");
        assert_eq!(f.var("S"), Some("Login"));
    }

    #[test]
    fn test_plan_name_is_the_file_name() {
        let mut f = Fixture::new();
        f.test.plan_file = "/plans/Demo.jmx".into();
        assert_eq!(f.eval("${__TestPlanName}"), "Demo.jmx");
    }

    #[test]
    fn machine_name_and_ip() {
        let mut f = Fixture::new();
        assert!(!f.eval("${__machineName(M)}").is_empty());
        assert!(f.var("M").is_some());
        let ip = f.eval("${__machineIP}");
        assert!(ip.parse::<std::net::IpAddr>().is_ok(), "{ip}");
    }
}
