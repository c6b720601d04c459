//! The command line as a user meets it: help and version on stdout with exit 0, errors that
//! name the flag on stderr with clap's exit code 2.

use std::process::{Command, Output};

fn digest(args: &[&str]) -> (Option<i32>, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_tool-error-digest"))
        .args(args)
        .env_remove("AWS_LAMBDA_RUNTIME_API")
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (status.code(), text(stdout), text(stderr))
}

#[test]
fn help_lists_the_run_command_on_stdout() {
    for flag in ["--help", "-h", "help"] {
        let (code, stdout, stderr) = digest(&[flag]);
        assert_eq!(code, Some(0), "{flag}: {stderr}");
        assert!(
            stdout.contains("Usage: tool-error-digest [COMMAND]"),
            "{stdout}"
        );
        assert!(stdout.contains("\n  run "), "{stdout}");
        assert!(stderr.is_empty(), "{stderr}");
    }
}

#[test]
fn no_arguments_print_the_help() {
    let (code, stdout, _) = digest(&[]);
    assert_eq!(code, Some(0));
    assert!(
        stdout.contains("Usage: tool-error-digest [COMMAND]"),
        "{stdout}"
    );
}

#[test]
fn version_is_the_package_version_on_stdout() {
    let (code, stdout, _) = digest(&["--version"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        stdout,
        format!("tool-error-digest {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn run_has_its_own_help() {
    for args in [&["run", "--help"][..], &["help", "run"]] {
        let (code, stdout, _) = digest(args);
        assert_eq!(code, Some(0), "{args:?}");
        assert!(
            stdout.contains(
                "Usage: tool-error-digest run [OPTIONS] --local <AUDIT.jsonl> --out <DIR>"
            ),
            "{stdout}"
        );
        assert!(stdout.contains("--now <RFC3339>"), "{stdout}");
        assert!(stdout.contains("--trace-region <REGION>"), "{stdout}");
    }
}

#[test]
fn unknown_flag_is_named_with_a_did_you_mean_hint() {
    let (code, stdout, stderr) = digest(&["run", "--lokal", "a.jsonl", "--out", "d"]);
    assert_eq!(code, Some(2));
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("error: unexpected argument '--lokal' found"),
        "{stderr}"
    );
    assert!(
        stderr.contains("a similar argument exists: '--local'"),
        "{stderr}"
    );
}

#[test]
fn a_bad_now_names_the_flag() {
    let (code, _, stderr) = digest(&["run", "--local", "a", "--out", "d", "--now", "monday"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("invalid value 'monday' for '--now <RFC3339>'"),
        "{stderr}"
    );
}
