//! The command line as a user meets it: help and version on stdout with exit 0, errors that
//! name the flag on stderr with clap's exit code 2, `lint` as CI runs it.

use std::process::Command;

use crate::common::run_mcp_server;

#[test]
fn help_lists_the_commands_on_stdout() {
    for flag in ["--help", "-h", "help"] {
        let (code, stdout, stderr) = run_mcp_server(&[flag]);
        assert_eq!(code, Some(0), "{flag}: {stderr}");
        assert!(stdout.contains("Usage: mcp-server [COMMAND]"), "{stdout}");
        for command in ["serve", "lint", "smoke"] {
            assert!(stdout.contains(&format!("\n  {command} ")), "{stdout}");
        }
        assert!(stderr.is_empty(), "{stderr}");
    }
}

#[test]
fn version_is_the_package_version_on_stdout() {
    let (code, stdout, _) = run_mcp_server(&["--version"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        stdout,
        format!("mcp-server {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn serve_has_its_own_help_naming_the_variable_behind_catalog() {
    let (code, stdout, _) = run_mcp_server(&["serve", "--help"]);
    assert_eq!(code, Some(0));
    assert!(
        stdout.contains("Usage: mcp-server serve [OPTIONS]"),
        "{stdout}"
    );
    assert!(stdout.contains("[default: 127.0.0.1:8767]"), "{stdout}");
    assert!(stdout.contains("[env: MCP_CATALOG_DIR=]"), "{stdout}");
    let (code, stdout, _) = run_mcp_server(&["help", "smoke"]);
    assert_eq!(code, Some(0));
    assert!(
        stdout.contains("Usage: mcp-server smoke [OPTIONS] --url <URL> --key <KEY>"),
        "{stdout}"
    );
}

#[test]
fn unknown_flag_is_named_with_a_did_you_mean_hint() {
    let (code, stdout, stderr) = run_mcp_server(&["serve", "--adr", "127.0.0.1:0"]);
    assert_eq!(code, Some(2));
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("error: unexpected argument '--adr' found"),
        "{stderr}"
    );
    assert!(
        stderr.contains("a similar argument exists: '--addr'"),
        "{stderr}"
    );
}

#[test]
fn no_command_outside_lambda_is_a_usage_error() {
    let (code, _, stderr) = run_mcp_server(&[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("no command given"), "{stderr}");
}

/// As CI runs it: the table on stdout, exit 0 without gaps.
#[test]
fn lint_checks_the_shipped_catalogs() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/connector/catalogs"
    );
    let (code, stdout, stderr) = run_mcp_server(&["lint", dir]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains(" ok "), "{stdout}");
}

/// A mistyped `MCP_` variable is named at start with the variable it likely meant, instead of
/// being ignored without a word.
#[test]
fn an_unknown_mcp_variable_is_warned_about_at_start_with_a_did_you_mean() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/connector/catalogs"
    );
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-server"))
        .args(["lint", dir])
        .env_remove("AWS_LAMBDA_RUNTIME_API")
        .env_remove("MCP_CATALOG_DIR")
        .env("MCP_LIMTS", "off")
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("MCP_LIMTS is not a variable this server reads")
            && stderr.contains("did you mean MCP_LIMITS?"),
        "{stderr}"
    );
}
