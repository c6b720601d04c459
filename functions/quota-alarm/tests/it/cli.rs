//! The command line as a user meets it: help and version on stdout with exit 0, errors that
//! name the flag on stderr with clap's exit code 2, `alarms --json` as infra runs it.

use std::process::{Command, Output};

fn quota_alarm(args: &[&str]) -> (Option<i32>, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_quota-alarm"))
        .args(args)
        .env_remove("AWS_LAMBDA_RUNTIME_API")
        .env_remove("QUOTA_CATALOG_DIR")
        .env_remove("QUOTA_EMF_NAMESPACE")
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (status.code(), text(stdout), text(stderr))
}

#[test]
fn help_lists_the_commands_on_stdout() {
    for flag in ["--help", "-h", "help"] {
        let (code, stdout, stderr) = quota_alarm(&[flag]);
        assert_eq!(code, Some(0), "{flag}: {stderr}");
        assert!(stdout.contains("Usage: quota-alarm [COMMAND]"), "{stdout}");
        assert!(
            stdout.contains("\n  run ") && stdout.contains("\n  alarms "),
            "{stdout}"
        );
        assert!(stderr.is_empty(), "{stderr}");
    }
}

#[test]
fn version_is_the_package_version_on_stdout() {
    let (code, stdout, _) = quota_alarm(&["--version"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        stdout,
        format!("quota-alarm {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn alarms_has_its_own_help_naming_the_variables_behind_its_flags() {
    let (code, stdout, _) = quota_alarm(&["alarms", "--help"]);
    assert_eq!(code, Some(0));
    assert!(
        stdout.contains("Usage: quota-alarm alarms [OPTIONS]"),
        "{stdout}"
    );
    assert!(stdout.contains("[env: QUOTA_CATALOG_DIR=]"), "{stdout}");
    assert!(stdout.contains("[env: QUOTA_EMF_NAMESPACE=]"), "{stdout}");
}

#[test]
fn unknown_flag_is_named_with_a_did_you_mean_hint() {
    let (code, stdout, stderr) = quota_alarm(&["alarms", "--jsn"]);
    assert_eq!(code, Some(2));
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("error: unexpected argument '--jsn' found"),
        "{stderr}"
    );
    assert!(
        stderr.contains("a similar argument exists: '--json'"),
        "{stderr}"
    );
}

#[test]
fn no_command_outside_lambda_is_a_usage_error() {
    let (code, _, stderr) = quota_alarm(&[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("no command given"), "{stderr}");
    assert!(stderr.contains("Usage: quota-alarm [COMMAND]"), "{stderr}");
}

/// infra/src/quota-alarms.ts runs exactly this.
#[test]
fn alarms_json_as_infra_runs_it() {
    let (code, stdout, stderr) =
        quota_alarm(&["alarms", "--json", "--namespace", "HostedMcp/test"]);
    assert_eq!(code, Some(0), "{stderr}");
    let plan: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(plan["namespace"], "HostedMcp/test");
    assert!(!plan["alarms"].as_array().unwrap().is_empty());
}
