//! The binary end to end: `run --local` over the checked-in fixture writes the four files.

use std::path::Path;
use std::process::{Command, Output};

/// `run --local` over the checked-in fixture into `out`.
fn run_local(out: &Path) -> Output {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/audit-two-weeks.jsonl"
    );
    Command::new(env!("CARGO_BIN_EXE_tool-error-digest"))
        .args(["run", "--local", fixture, "--out"])
        .arg(out)
        .args(["--now", "2026-11-30T06:00:00Z"])
        .env_remove("AWS_LAMBDA_RUNTIME_API")
        .env("DIGEST_DASHBOARD_URL", "https://example.com/dashboard")
        .env("DIGEST_SUBJECT_PREFIX", "[local]")
        .output()
        .unwrap()
}

#[test]
fn run_local_writes_the_digest_files() {
    let out = std::env::temp_dir().join(format!("tool-error-digest-bin-{}", std::process::id()));
    let output = run_local(&out);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.starts_with("[local] 7 tools failing, 2 new — week 48\n"),
        "{stdout}"
    );

    let text = std::fs::read_to_string(out.join("digest.txt")).unwrap();
    assert!(
        text.contains("Dashboard: https://example.com/dashboard"),
        "{text}"
    );
    // The limits-hit query runs over the file like the others.
    assert!(
        text.contains("LIMITS HIT") && text.contains("ip      -                         4\n"),
        "{text}"
    );
    // So does the writes query, with the write whose outcome is unknown called out.
    assert!(
        text.contains("\nWRITES (")
            && text.contains(
                "Check: 1 write has an unknown outcome: papierkram_invoice_cancel (papierkram) 1."
            ),
        "{text}"
    );
    let html = std::fs::read_to_string(out.join("digest.html")).unwrap();
    assert!(html.contains("href=\"https://example.com/dashboard\""));
    assert!(html.contains(">Limits hit</div>"));
    assert!(html.contains(">Writes</div>"));
    let png = std::fs::read(out.join("errors-per-day.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    let eml = std::fs::read_to_string(out.join("message.eml")).unwrap();
    assert!(eml.contains("\r\nContent-ID: <errors-per-day@tool-error-digest>\r\n"));
    assert!(eml.ends_with("--=_tool-error-digest.related--\r\n"));
    std::fs::remove_dir_all(&out).unwrap();
}

/// Another process, the same events: the same message, byte for byte.
#[test]
fn two_runs_write_the_same_message_bytes() {
    let base = std::env::temp_dir().join(format!("tool-error-digest-twice-{}", std::process::id()));
    let mut messages = Vec::new();
    for run in ["a", "b"] {
        let out = base.join(run);
        assert!(run_local(&out).status.success());
        messages.push(std::fs::read(out.join("message.eml")).unwrap());
    }
    assert!(
        messages[0] == messages[1],
        "the two runs' message.eml differ"
    );
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn bad_arguments_fail_with_usage() {
    let output = Command::new(env!("CARGO_BIN_EXE_tool-error-digest"))
        .args(["run", "--local", "x.jsonl"])
        .env_remove("AWS_LAMBDA_RUNTIME_API")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "clap's exit code for a usage error"
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("the following required arguments were not provided:\n  --out <DIR>"),
        "{stderr}"
    );
    assert!(
        stderr.contains("Usage: tool-error-digest run --local <AUDIT.jsonl> --out <DIR>"),
        "{stderr}"
    );
}

#[test]
fn invalid_configuration_fails_at_start_naming_the_variable() {
    let output = Command::new(env!("CARGO_BIN_EXE_tool-error-digest"))
        .args(["run", "--local", "x.jsonl", "--out", "y"])
        .env_remove("AWS_LAMBDA_RUNTIME_API")
        .env("DIGEST_SEND_ALL_CLEAR", "maybe")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("DIGEST_SEND_ALL_CLEAR: `maybe` is neither true nor false"),
        "{stderr}"
    );
}
