//! Kubernetes: the manifests `jmxr k8s-job` prints for the deterministic shard plan are
//! checked offline against the API schema (the Kubernetes Python client's models, through
//! tests/support/validate_k8s.py), and each pod of the Indexed Job is played locally (its
//! shell line, its environment, the ConfigMap's files at their paths): the merged results
//! are the single run's. `deploy/kubernetes/job.yaml` is the generator's current output.
//!
//! Skipped, with the reason printed, only when python3-kubernetes is not installed;
//! `.ci/run` installs it.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use support::shards::{check_like_single, check_partition, merge_shards, now_ms, run_single};

const VALIDATOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/validate_k8s.py");

fn client_missing() -> Option<String> {
    let probe = Command::new("/usr/bin/python3")
        .args(["-c", "import kubernetes, yaml"])
        .output();
    match probe {
        Ok(out) if out.status.success() => None,
        _ => {
            Some("python3-kubernetes is not installed (apt-get install python3-kubernetes)".into())
        }
    }
}

fn validate(files: &[&Path], dump: bool) -> Output {
    let mut command = Command::new("/usr/bin/python3");
    command.arg(VALIDATOR);
    if dump {
        command.arg("--dump");
    }
    command.args(files).output().expect("the validator runs")
}

/// `jmxr k8s-job` on the shard plan with `extra` options, written to `out`.
fn generate(work: &Path, out: &str, extra: &[&str]) -> PathBuf {
    let plan = support::shards::plan();
    let mut args = vec!["k8s-job", plan.to_str().unwrap(), "--shards", "4"];
    args.extend(extra);
    let run = support::jmxr(work, &args);
    assert!(
        run.status.success(),
        "k8s-job: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let path = work.join(out);
    std::fs::write(&path, &run.stdout).unwrap();
    path
}

/// The manifests, validated, as JSON documents.
fn valid_documents(file: &Path) -> Vec<Value> {
    let out = validate(&[file], true);
    assert!(
        out.status.success(),
        "{} is not valid:\n{}{}",
        file.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_generated_job_validates_and_its_pods_merge_into_the_single_run() {
    let _turn = support::shards::one_at_a_time();
    if let Some(why) = client_missing() {
        eprintln!("skipped: {why}");
        return;
    }
    let base = tempfile::tempdir().unwrap();
    let (single, single_start) = run_single(base.path());
    let start_at = now_ms() + 3000;
    let start = start_at.to_string();
    let file = generate(
        base.path(),
        "job.yaml",
        &[
            "--start-at",
            &start,
            "-Jsample_variables=row,it",
            "-Jjmxr.shard.csv=partition",
        ],
    );
    let docs = valid_documents(&file);
    let (config_map, job) = (&docs[0], &docs[1]);
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    assert_eq!(
        (spec["completions"].as_u64(), spec["parallelism"].as_u64()),
        (Some(4), Some(4))
    );
    let pod = &spec["template"]["spec"];
    let container = &pod["containers"][0];
    let requests = &container["resources"]["requests"];
    assert!(
        requests["cpu"].is_string() && requests["memory"].is_string(),
        "{requests}"
    );

    // The ConfigMap's files where the pod mounts them, with /plan and /results moved into
    // the scratch folder.
    let (plan_dir, results) = (base.path().join("plan"), base.path().join("results"));
    std::fs::create_dir_all(&results).unwrap();
    std::fs::write(results.join("collected"), "").unwrap();
    for item in pod["volumes"][0]["configMap"]["items"].as_array().unwrap() {
        let content = config_map["data"][item["key"].as_str().unwrap()]
            .as_str()
            .unwrap();
        let path = plan_dir.join(item["path"].as_str().unwrap());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    let original = std::fs::read_to_string(support::shards::plan()).unwrap();
    assert_eq!(
        std::fs::read_to_string(plan_dir.join("plan.jmx")).unwrap(),
        original
    );
    let line = container["args"][0]
        .as_str()
        .unwrap()
        .replace("/plan/", &format!("{}/", plan_dir.display()))
        .replace("/results", results.to_str().unwrap())
        .replacen("jmxr ", &format!("{} ", env!("CARGO_BIN_EXE_jmxr")), 1);
    let pods: Vec<_> = (0..4)
        .map(|index| {
            let mut command = Command::new("/bin/sh");
            command.args(["-c", &line]).current_dir(&results);
            command.stdout(std::process::Stdio::null());
            command.env("JOB_COMPLETION_INDEX", index.to_string());
            for var in container["env"].as_array().unwrap() {
                command.env(
                    var["name"].as_str().unwrap(),
                    var["value"].as_str().unwrap(),
                );
            }
            command.spawn().expect("the pod's shell runs")
        })
        .collect();
    for pod in pods {
        let out = pod.wait_with_output().unwrap();
        assert!(out.status.success(), "a pod's jmxr failed");
    }
    let merged = merge_shards(&results, 4);
    check_like_single(&single, single_start, &merged, start_at, 4);
    check_partition(&results, 4);
}

#[test]
fn misspelled_fields_are_rejected() {
    let _turn = support::shards::one_at_a_time();
    if let Some(why) = client_missing() {
        eprintln!("skipped: {why}");
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let file = generate(
        work.path(),
        "job.yaml",
        &["--start-at", "2026-12-02T06:00:00Z"],
    );
    let text = std::fs::read_to_string(&file).unwrap();
    for (right, wrong, message) in [
        (
            "completionMode:",
            "completionsMode:",
            "spec.completionsMode: unknown field of V1JobSpec",
        ),
        (
            "restartPolicy:",
            "restartPolicyy:",
            "spec.restartPolicyy: unknown field of V1PodSpec",
        ),
        (
            "completions: 4",
            "completions: \"4\"",
            "spec.completions: int expected",
        ),
        (
            "- name: jmxr\n",
            "- nam: jmxr\n",
            "V1Container: Invalid value for `name`",
        ),
    ] {
        assert!(text.contains(right), "{right}");
        let bad = work.path().join("bad.yaml");
        std::fs::write(&bad, text.replacen(right, wrong, 1)).unwrap();
        let out = validate(&[&bad], false);
        let report = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{wrong}: {report}");
        assert!(report.contains(message), "{wrong}: {report}");
    }
}

#[test]
fn a_claim_for_the_results_validates_and_the_template_is_current() {
    let _turn = support::shards::one_at_a_time();
    if let Some(why) = client_missing() {
        eprintln!("skipped: {why}");
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let start = ["--start-at", "2026-12-02T06:00:00Z"];
    let pvc = generate(
        work.path(),
        "pvc.yaml",
        &[&start[..], &["--results-pvc", "jmxr-results"]].concat(),
    );
    let docs = valid_documents(&pvc);
    let volumes = &docs[1]["spec"]["template"]["spec"]["volumes"];
    assert_eq!(
        volumes[1]["persistentVolumeClaim"]["claimName"],
        "jmxr-results"
    );
    let template = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/kubernetes/job.yaml");
    valid_documents(&template);
    let current = generate(work.path(), "job.yaml", &start);
    assert_eq!(
        std::fs::read_to_string(&template).unwrap(),
        std::fs::read_to_string(current).unwrap(),
        "deploy/kubernetes/job.yaml is not the generator's output: regenerate it with \
         jmxr k8s-job jmx-fixtures/distributed/sharded.jmx --shards 4 --start-at 2026-12-02T06:00:00Z"
    );
}
