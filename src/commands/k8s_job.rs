//! `jmxr k8s-job PLAN.jmx --shards N [...]`: prints the Kubernetes manifests that run a
//! plan as N shards, a ConfigMap and an Indexed Job (the template beside them is
//! `deploy/kubernetes/job.yaml`).
//!
//! The ConfigMap holds the plan and the CSV Data Set files it names by a plain relative
//! path; the Job mounts it at `/plan` with each file at its relative path, so the plan
//! finds its data where it did on the author's machine. Each pod is one shard: jmxr reads
//! its index from `JOB_COMPLETION_INDEX` and the count from `JMXR_SHARDS` (the array-job
//! environment of `distributed`), waits for `--start-at`, and writes
//! `/results/sI.jtl` with its metadata beside it. Results go to a PersistentVolumeClaim
//! when one is named, otherwise to an emptyDir that the pod keeps until the results are
//! copied out (or for an hour); `fsGroup` is the image's user, so a claim is writable
//! by it. Resource requests come from the plan's peak load per
//! shard ([`plan_profile`](super::plan_profile)) and the planning figures below.
//! The YAML text itself is written by `k8s_yaml`.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use super::cli::CliError;
use super::k8s_yaml::{file_entry, quoted};
use crate::engine::Measure;
use crate::jmx::{self, Element};

/// Planned requests per second one core carries (see docs/distributed.md, Sizing).
pub const REQUESTS_PER_CORE: f64 = 10_000.0;
/// Requests per second assumed of a user when the plan does not fix a rate: one, as a
/// user behind a 1 s think time.
pub const REQUESTS_PER_USER: f64 = 1.0;
/// Memory of the process without users, and per user (100,000 idle-ish users measured
/// at 630 MB, rounded up for buffers of real responses).
pub const BASE_MIB: f64 = 64.0;
pub const KIB_PER_USER: f64 = 8.0;
/// How long an emptyDir pod waits for its results to be copied out.
const HOLD_SECONDS: u32 = 3600;
/// A ConfigMap holds at most 1 MiB.
const CONFIGMAP_LIMIT: usize = 1 << 20;

#[derive(Debug, Clone)]
pub struct K8sJobConfig {
    pub plan: PathBuf,
    pub shards: u32,
    pub start_at: Option<String>,
    pub image: String,
    pub namespace: String,
    pub ntp: Option<String>,
    /// A PersistentVolumeClaim (ReadWriteMany) for `/results`; an emptyDir without one.
    pub results_pvc: Option<String>,
    /// `-Jname=value`, passed to every shard and used to size the plan.
    pub properties: Vec<(String, String)>,
}

const USAGE: &str = "k8s-job needs a plan and a shard count: jmxr k8s-job plan.jmx --shards N [--start-at TIME] [--image IMAGE] [--namespace NS] [--ntp HOST:PORT] [--results-pvc CLAIM] [-Jname=value ...]";

/// Reads `plan.jmx --shards N [options]`.
pub fn parse_args(args: &[String]) -> Result<K8sJobConfig, CliError> {
    let mut config = K8sJobConfig {
        plan: PathBuf::new(),
        shards: 0,
        start_at: None,
        image: "jmxr:latest".into(),
        namespace: "default".into(),
        ntp: None,
        results_pvc: None,
        properties: Vec::new(),
    };
    let mut plan = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .cloned()
                .ok_or_else(|| CliError::Usage(format!("k8s-job: {name} needs a value")))
        };
        match arg.as_str() {
            "--shards" => {
                let text = value("--shards")?;
                config.shards = text.parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
                    CliError::Usage(format!(
                        "k8s-job: --shards takes a count of 1 or more, not {text:?}"
                    ))
                })?;
            }
            "--start-at" => {
                let text = value("--start-at")?;
                super::distributed::parse_start_at(&text).map_err(CliError::Usage)?;
                config.start_at = Some(text);
            }
            "--image" => config.image = value("--image")?,
            "--namespace" => config.namespace = value("--namespace")?,
            "--ntp" => config.ntp = Some(value("--ntp")?),
            "--results-pvc" => config.results_pvc = Some(value("--results-pvc")?),
            other if other.starts_with("-J") && other.len() > 2 => {
                let (name, value) = other[2..].split_once('=').unwrap_or((&other[2..], ""));
                config.properties.push((name.into(), value.into()));
            }
            other if other.starts_with('-') => {
                return Err(CliError::Usage(format!("k8s-job: unknown option {other}")))
            }
            other => plan = Some(PathBuf::from(other)),
        }
    }
    match plan {
        Some(plan) if config.shards >= 1 => config.plan = plan,
        _ => return Err(CliError::Usage(USAGE.into())),
    }
    Ok(config)
}

/// Prints the manifests to `out`; false (with the reason on stderr) when the plan cannot
/// be read or its files do not fit a ConfigMap.
pub fn run(config: &K8sJobConfig, out: &mut impl std::io::Write) -> bool {
    match manifests(config) {
        Ok(text) => out.write_all(text.as_bytes()).is_ok(),
        Err(message) => {
            eprintln!("An error occurred: {message}");
            false
        }
    }
}

/// The ConfigMap and the Job, as one YAML stream.
pub fn manifests(config: &K8sJobConfig) -> Result<String, String> {
    let plan_text = std::fs::read_to_string(&config.plan)
        .map_err(|e| format!("cannot read {}: {e}", config.plan.display()))?;
    let tree = jmx::load_file(&config.plan).map_err(|e| e.to_string())?;
    let (files, skipped) = data_files(&tree.roots, tree.plan_dir());
    for path in &skipped {
        eprintln!("warning: {path} is not put in the ConfigMap (not a plain relative path to an existing file); mount it in the pod yourself");
    }
    let mut contents = vec![("plan.jmx".to_string(), "plan.jmx".to_string(), plan_text)];
    for (i, relative) in files.iter().enumerate() {
        let text = std::fs::read_to_string(tree.plan_dir().join(relative)).map_err(|e| {
            format!("cannot put {relative} in the ConfigMap (text files only): {e}")
        })?;
        let key = format!("data-{}-{}", i + 1, key_safe(relative));
        contents.push((key, relative.clone(), text));
    }
    let size: usize = contents.iter().map(|c| c.0.len() + c.2.len()).sum();
    if size > CONFIGMAP_LIMIT {
        return Err(format!("the plan and its files take {size} bytes, more than a ConfigMap holds (1 MiB): put them on a volume instead and edit the Job's plan volume"));
    }
    let sizing = size_shard(config)?;
    let name = job_name(&config.plan);
    let mut text = config_map(&name, &config.namespace, &contents);
    text.push_str("---\n");
    text.push_str(&job(config, &name, &contents, &sizing));
    Ok(text)
}

/// What one shard is asked to carry, and the requests it gets for it.
pub struct Sizing {
    pub users: f64,
    pub rate: f64,
    pub millicores: u64,
    pub memory_mib: u64,
}

/// Every group's peak (users, or arrivals per second) summed and divided by the shard
/// count: groups that do not overlap are counted together, which errs on the large side.
fn size_shard(config: &K8sJobConfig) -> Result<Sizing, String> {
    let plan_config = super::plan_profile::PlanConfig {
        plan: config.plan.clone(),
        svg: None,
        properties: config.properties.iter().cloned().collect::<HashMap<_, _>>(),
    };
    let (mut users, mut rate) = (0.0, 0.0);
    for profile in super::plan_profile::profiles(&plan_config)? {
        let peak = profile.points.iter().map(|p| p.1).fold(0.0, f64::max);
        match profile.measure {
            Measure::Users => users += peak,
            Measure::Rate => rate += peak,
        }
    }
    let shards = f64::from(config.shards);
    let (users, rate) = ((users / shards).ceil(), rate / shards);
    let requests = users * REQUESTS_PER_USER + rate;
    let millicores = ((requests / REQUESTS_PER_CORE * 1000.0).ceil() as u64).clamp(500, 64_000);
    let memory_mib =
        (BASE_MIB + users * KIB_PER_USER / 1024.0 + rate * KIB_PER_USER / 1024.0).ceil() as u64;
    Ok(Sizing {
        users,
        rate,
        millicores,
        memory_mib,
    })
}

/// The CSV Data Set files named by a literal relative path that exists, in plan order;
/// and the names that are not (expressions, absolute paths, `..`, missing files).
fn data_files(roots: &[Element], plan_dir: &Path) -> (Vec<String>, Vec<String>) {
    let (mut files, mut skipped) = (Vec::new(), Vec::new());
    let mut stack: Vec<&Element> = roots.iter().rev().collect();
    while let Some(element) = stack.pop() {
        stack.extend(element.children.iter().rev());
        if !element.enabled || element.class != "CSVDataSet" {
            continue;
        }
        let Some(name) = element.str_prop("filename").filter(|n| !n.is_empty()) else {
            continue;
        };
        let plain = Path::new(name)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
            && !name.contains("${")
            && plan_dir.join(name).is_file();
        let list = if plain { &mut files } else { &mut skipped };
        if !list.iter().any(|f| f == name) {
            list.push(name.to_string());
        }
    }
    (files, skipped)
}

/// A ConfigMap key: letters, digits, `-`, `_` and `.` only.
fn key_safe(path: &str) -> String {
    path.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `jmxr-` and the plan's file name as a DNS label (lower case, digits, `-`).
fn job_name(plan: &Path) -> String {
    let stem = plan
        .file_stem()
        .map(|s| s.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let mut name = String::from("jmxr-");
    for c in stem.chars() {
        let c = if c.is_ascii_alphanumeric() { c } else { '-' };
        if !(c == '-' && name.ends_with('-')) {
            name.push(c);
        }
    }
    name.truncate(52); // the Job controller adds a suffix to pod names
    name.trim_end_matches('-').to_string()
}

fn config_map(name: &str, namespace: &str, contents: &[(String, String, String)]) -> String {
    let mut text = String::new();
    let _ = write!(
        text,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n  namespace: {}\n  labels:\n    app.kubernetes.io/name: jmxr\ndata:\n",
        quoted(&format!("{name}-plan")),
        quoted(namespace)
    );
    for (key, _, content) in contents {
        file_entry(&mut text, 2, key, content);
    }
    text
}

/// The shell line each pod runs: jmxr, then (with an emptyDir) a wait for the copy-out.
fn shard_command(config: &K8sJobConfig) -> String {
    let mut line = String::from(
        "jmxr -n -t /plan/plan.jmx -l /results/s$((JOB_COMPLETION_INDEX + 1)).jtl --start-at \"$JMXR_START_AT\"",
    );
    if config.ntp.is_some() {
        line.push_str(" --ntp \"$JMXR_NTP\"");
    }
    for (name, value) in &config.properties {
        let _ = write!(
            line,
            " '-J{}'",
            format!("{name}={value}").replace('\'', "'\\''")
        );
    }
    line.push_str("; status=$?");
    if config.results_pvc.is_none() {
        let _ = write!(
            line,
            "; touch /results/done; waited=0; while [ ! -e /results/collected ] && [ $waited -lt {HOLD_SECONDS} ]; do sleep 5; waited=$((waited + 5)); done"
        );
    }
    line.push_str("; exit $status");
    line
}

fn job(
    config: &K8sJobConfig,
    name: &str,
    contents: &[(String, String, String)],
    sizing: &Sizing,
) -> String {
    let start_at = config.start_at.clone().unwrap_or_else(|| {
        (chrono::Utc::now() + chrono::Duration::seconds(120))
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string()
    });
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# Each shard carries about {} users and {:.1} arrivals/s: {}m CPU, {} MiB requested.",
        sizing.users, sizing.rate, sizing.millicores, sizing.memory_mib
    );
    let _ = write!(
        text,
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {n}\n  namespace: {ns}\n  labels:\n    app.kubernetes.io/name: jmxr\nspec:\n  completionMode: Indexed\n  completions: {s}\n  parallelism: {s}\n  backoffLimit: 0\n  template:\n    metadata:\n      labels:\n        app.kubernetes.io/name: jmxr\n        jmxr/job: {n}\n    spec:\n      restartPolicy: Never\n      securityContext:\n        fsGroup: 10001\n      containers:\n        - name: jmxr\n          image: {image}\n          workingDir: /results\n          command: [\"/bin/sh\", \"-c\"]\n          args:\n            - {command}\n          env:\n            - name: JMXR_SHARDS\n              value: \"{s}\"\n            - name: JMXR_START_AT\n              value: {start}\n",
        n = quoted(name),
        ns = quoted(&config.namespace),
        s = config.shards,
        image = quoted(&config.image),
        command = quoted(&shard_command(config)),
        start = quoted(&start_at),
    );
    if let Some(ntp) = &config.ntp {
        let _ = write!(
            text,
            "            - name: JMXR_NTP\n              value: {}\n",
            quoted(ntp)
        );
    }
    let _ = write!(
        text,
        "          resources:\n            requests:\n              cpu: \"{m}m\"\n              memory: \"{mem}Mi\"\n            limits:\n              memory: \"{limit}Mi\"\n          volumeMounts:\n            - name: plan\n              mountPath: /plan\n              readOnly: true\n            - name: results\n              mountPath: /results\n      volumes:\n        - name: plan\n          configMap:\n            name: {cm}\n            items:\n",
        m = sizing.millicores,
        mem = sizing.memory_mib,
        limit = sizing.memory_mib * 2,
        cm = quoted(&format!("{name}-plan")),
    );
    for (key, path, _) in contents {
        let _ = write!(
            text,
            "              - key: {}\n                path: {}\n",
            quoted(key),
            quoted(path)
        );
    }
    match &config.results_pvc {
        Some(claim) => {
            let _ = write!(
                text,
                "        - name: results\n          persistentVolumeClaim:\n            claimName: {}\n",
                quoted(claim)
            );
        }
        None => text.push_str("        - name: results\n          emptyDir: {}\n"),
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn needs_a_plan_and_a_shard_count() {
        assert!(parse_args(&args("plan.jmx")).is_err());
        assert!(parse_args(&args("plan.jmx --shards 0")).is_err());
        assert!(parse_args(&args("--shards 3")).is_err());
        assert!(parse_args(&args("plan.jmx --shards 3 --start-at soon")).is_err());
        let config = parse_args(&args("p.jmx --shards 3 --image r/j:1 -Jusers=9")).unwrap();
        assert_eq!((config.shards, config.image.as_str()), (3, "r/j:1"));
        assert_eq!(config.properties, vec![("users".into(), "9".into())]);
    }

    #[test]
    fn job_names_are_dns_labels() {
        assert_eq!(job_name(Path::new("dir/My Plan_v2.jmx")), "jmxr-my-plan-v2");
        assert!(job_name(Path::new(&"x".repeat(90))).len() <= 52);
    }

    #[test]
    fn the_shell_line_quotes_properties_and_waits_for_the_copy_out_only_with_an_empty_dir() {
        let mut config = parse_args(&args("p.jmx --shards 2 -Jname=it's")).unwrap();
        let line = shard_command(&config);
        assert!(line.contains(" '-Jname=it'\\''s';"), "{line}");
        assert!(line.contains("/results/collected"));
        config.results_pvc = Some("claim".into());
        assert!(!shard_command(&config).contains("collected"));
    }
}
