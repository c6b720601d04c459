//! `mcp-server import openapi` end to end: the built binary drafts a catalog that loads and
//! that `lint` refuses for its curation gaps; a second run compares instead of overwriting; bad
//! input leaves no file behind.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::run_mcp_server;

fn spec(name: &str) -> String {
    format!(
        "{}/../../shared/openapi-import/tests/specs/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A fresh, empty directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-import-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `mcp-server import openapi DOCUMENT --connector CONNECTOR --out OUT`: its exit code, stdout
/// and stderr.
fn import_openapi(document: &str, connector: &str, out: &str) -> (Option<i32>, String, String) {
    run_mcp_server(&[
        "import",
        "openapi",
        document,
        "--connector",
        connector,
        "--out",
        out,
    ])
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_draft_loads_lints_with_curation_gaps_and_is_never_overwritten() {
    let dir = scratch("draft");
    let out = dir.join("sevdesk.yaml");
    let out_arg = out.to_str().unwrap();
    let spec = spec("sevdesk-like.yaml");
    let (code, stdout, stderr) = import_openapi(&spec, "sevdesk", out_arg);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("# Import of sevdesk-like API 2.0.0 as `sevdesk`"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\ncounts: operations 10, tools 10"),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("wrote {out_arg}")), "{stdout}");
    assert_eq!(files(&dir), ["sevdesk.yaml"], "no temporary file left");
    let text = std::fs::read_to_string(&out).unwrap();
    let draft = catalog::parse("sevdesk.yaml", &text).unwrap();
    assert_eq!(draft.tools.len(), 10);

    let (code, stdout, stderr) = run_mcp_server(&["lint", dir.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stderr.contains("gap(s) in the catalogs"), "{stderr}");
    let curation_gaps = stdout
        .lines()
        .filter(|l| l.starts_with("curation") && l.contains(" gap "))
        .count();
    assert_eq!(curation_gaps, 11, "10 tools and the connector:\n{stdout}");
    assert!(
        stdout.contains("risk: proposed high because DELETE"),
        "{stdout}"
    );

    // Run again: the existing file is the curated catalog, compared and left alone.
    let (code, stdout, stderr) = import_openapi(&spec, "sevdesk", out_arg);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("# Re-import"), "{stdout}");
    assert!(stdout.contains("document unchanged"), "{stdout}");
    assert!(stdout.contains("not overwritten"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);

    // The document changed: the report names the new and the removed operation.
    let changed = dir.join("changed.yaml");
    std::fs::write(
        &changed,
        std::fs::read_to_string(&spec)
            .unwrap()
            .replace(
                "/Invoice/{invoiceId}/enshrine:",
                "/Invoice/{invoiceId}/lock:",
            )
            .replace("operationId: invoiceEnshrine", "operationId: invoiceLock"),
    )
    .unwrap();
    let (code, stdout, stderr) = import_openapi(changed.to_str().unwrap(), "sevdesk", out_arg);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("document changed since the import"),
        "{stdout}"
    );
    assert!(
        stdout.contains("- PUT /Invoice/{invoiceId}/lock (invoiceLock)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("- sevdesk_invoice_enshrine (invoiceEnshrine)"),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_names_the_place_and_leaves_no_file() {
    let dir = scratch("bad");
    let bad = dir.join("bad.yaml");
    std::fs::write(
        &bad,
        "openapi: 3.0.0\npaths:\n  /a:\n    get:\n      parameters:\n        - $ref: '#/components/parameters/gone'\n      responses: {}\n",
    )
    .unwrap();
    let swagger = dir.join("swagger.json");
    std::fs::write(&swagger, r#"{"swagger": "2.0", "paths": {}}"#).unwrap();
    let out = dir.join("out.yaml");
    for (input, needle) in [
        (
            &bad,
            "#/paths/~1a/get/parameters/0: `$ref: #/components/parameters/gone` points at nothing",
        ),
        (&swagger, "swagger2openapi"),
    ] {
        let (code, _, stderr) = import_openapi(input.to_str().unwrap(), "x", out.to_str().unwrap());
        assert_eq!(code, Some(1), "{stderr}");
        assert!(stderr.contains(needle), "{stderr}");
    }
    assert_eq!(
        files(&dir),
        ["bad.yaml", "swagger.json"],
        "no draft, no temporary file"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small OpenAPI document: a list and a create, bearer auth.
const NOTES: &str = r#"openapi: 3.0.3
info: { title: Notes API, version: 1.0.0 }
servers: [{ url: "https://notes.test/api" }]
components:
  securitySchemes:
    bearer: { type: http, scheme: bearer }
security: [{ bearer: [] }]
paths:
  /notes:
    get:
      operationId: listNotes
      responses:
        "200":
          description: The notes.
          content:
            application/json:
              schema:
                type: array
                items:
                  type: object
                  properties: { id: { type: integer }, title: { type: string } }
    post:
      operationId: createNote
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [title]
              properties: { title: { type: string, maxLength: 80 } }
      responses:
        "201": { description: Created. }
"#;

/// `dir/drafts/notes.yaml`, drafted by the built importer from [`NOTES`]; its directory.
fn imported_draft(dir: &Path) -> PathBuf {
    let spec = dir.join("notes-openapi.yaml");
    std::fs::write(&spec, NOTES).unwrap();
    let drafts = dir.join("drafts");
    std::fs::create_dir_all(&drafts).unwrap();
    let out = drafts.join("notes.yaml");
    let (code, _, stderr) = import_openapi(spec.to_str().unwrap(), "notes", out.to_str().unwrap());
    assert_eq!(code, Some(0), "{stderr}");
    drafts
}

/// Runs `mcp-server ARGS` with `vars` until it exits, at most 30 s: its exit code and stderr,
/// or `None` when it was still running (then it is stopped).
fn exit_of(args: &[&str], vars: &[(&str, &str)]) -> Option<(Option<i32>, String)> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-server"))
        .args(args)
        .env_remove("AWS_LAMBDA_RUNTIME_API")
        .env_remove("MCP_CATALOG_DIR")
        .env_remove("MCP_API_KEYS")
        .envs(vars.iter().copied())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::time::Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
            return Some((status.code(), stderr));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

#[test]
fn serve_refuses_an_imported_draft_naming_the_file_its_decisions_and_the_ways_out() {
    let dir = scratch("serve-draft");
    let drafts = imported_draft(&dir);
    let file = drafts.join("notes.yaml");
    let dir_arg = drafts.to_str().unwrap();
    let exited = exit_of(
        &["serve", "--catalog", dir_arg, "--addr", "127.0.0.1:0"],
        &[],
    );
    let Some((code, stderr)) = exited else {
        panic!("serve started with an uncurated draft instead of refusing it");
    };
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("{} is an uncurated draft", file.display())),
        "{stderr}"
    );
    assert!(
        stderr.contains("with 12 pending decision(s), so it is not served"),
        "{stderr}"
    );
    assert!(
        stderr.contains("  - catalog: auth: proposed `bearer: token`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("  - notes_notes_list: risk: proposed low because GET reads"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("`mcp-server lint {dir_arg}`")),
        "{stderr}"
    );
    assert!(
        stderr.contains("`mcp-server serve --allow-drafts`"),
        "{stderr}"
    );
    assert!(!stderr.contains("serving MCP"), "{stderr}");
}

#[test]
fn lambda_mode_never_serves_an_imported_draft() {
    let dir = scratch("lambda-draft");
    let drafts = imported_draft(&dir);
    // Nothing listens at the runtime API: only the start-up up to the catalogs is reached.
    let exited = exit_of(
        &[],
        &[
            ("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:1"),
            ("MCP_SECRET_ID", "hosted-mcp/test"),
            (
                "MCP_ALLOWED_HOSTS",
                "abc123.execute-api.eu-central-1.amazonaws.com",
            ),
            ("MCP_CATALOG_DIR", drafts.to_str().unwrap()),
        ],
    );
    let Some((code, stderr)) = exited else {
        panic!("Lambda mode went on with an uncurated draft instead of refusing it");
    };
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("notes.yaml is an uncurated draft"),
        "{stderr}"
    );
    assert!(
        stderr.contains("Lambda mode never serves a draft."),
        "{stderr}"
    );
    assert!(
        !stderr.contains("--allow-drafts"),
        "no flag on Lambda: {stderr}"
    );
}

#[tokio::test]
async fn an_allowed_draft_is_served_marked_and_its_writes_ask_for_confirmation() {
    use crate::common::{app_with, connector_secrets, tool_result};
    use mcp_server::{DRAFT_MARK, Drafts};

    let dir = scratch("allow-draft");
    let drafts = imported_draft(&dir);
    // What `serve` loads with and without `--allow-drafts`.
    assert!(mcp_server::load_served(Some(&drafts), Drafts::Refuse).is_err());
    let catalogs = mcp_server::load_served(Some(&drafts), Drafts::Allow).unwrap();
    let create = catalogs[0]
        .tools
        .iter()
        .find(|t| t.name == "notes_note_create")
        .unwrap();
    assert!(create.description.starts_with(DRAFT_MARK));
    let app = app_with(&[], catalogs, connector_secrets("notes", &[("token", "t")]));
    // The draft proposes `medium`, which would run unasked: a draft's write asks first.
    let r = tool_result(
        &app,
        "notes_note_create",
        serde_json::json!({"title": "hi"}),
    )
    .await;
    assert_eq!(r["status"], "confirmation_required", "{r}");
    assert!(r["confirmation_token"].is_string(), "{r}");
}
