//! The command line (clap): `serve`, `lint`, `pins`, `smoke`, `import` (feature `import`), and none for
//! Lambda mode. `--help` and
//! `--version` answer on stdout; a bad argument is reported naming it, with exit code 2.

use std::convert::Infallible;
#[cfg(test)]
use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};

use super::{Command, smoke};
use crate::config;

/// MCP over Streamable HTTP, serving the catalogs' tools.
///
/// Without a command and with AWS_LAMBDA_RUNTIME_API set the binary serves the Lambda function
/// (Lambda mode); elsewhere it runs one of the commands. Settings come from MCP_* variables
/// (over a git-ignored .env.local).
#[derive(Debug, Parser)]
#[command(name = "mcp-server", version)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,
}

#[derive(Debug, Subcommand)]
enum Sub {
    /// Serves MCP at http://ADDR/mcp; stdout carries the audit lines.
    ///
    /// Without MCP_API_KEYS a key is generated for the run; without Papierkram credentials the
    /// papierkram tools answer from the offline sandbox.
    Serve {
        /// Address to listen on.
        #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8767")]
        addr: SocketAddr,
        /// Catalog directory; the embedded catalogs when unset.
        #[arg(long, value_name = "DIR", env = config::CATALOG_DIR, value_parser = any_path)]
        catalog: Option<PathBuf>,
        /// Accepts every request without an API key (loopback addresses only).
        #[arg(long)]
        insecure_no_auth: bool,
        /// Serves uncurated imported drafts (`curate` entries, `CURATE:` markers), refused
        /// otherwise: each of their tools is marked as a draft and each write asks for
        /// confirmation first, whatever risk the draft proposes. Never in Lambda mode.
        #[arg(long)]
        allow_drafts: bool,
    },
    /// Checks catalogs against the audit checklist; exits 1 on any gap.
    Lint {
        /// Catalog directory; the embedded catalogs when omitted.
        dir: Option<PathBuf>,
    },
    /// Writes each catalog's capability page beside it (`<connector>.md`), keeping its
    /// `reviewed:` date; the lint checks the pages against the catalogs.
    Pages {
        /// Catalog directory.
        dir: PathBuf,
    },
    /// Prints each remote MCP server's tools as `mcp.pins` for a review (contacts the remotes).
    Pins {
        /// Catalog directory; MCP_CATALOG_DIR or the embedded catalogs when omitted.
        dir: Option<PathBuf>,
    },
    /// Drafts a catalog from an API description, for a person to curate.
    #[cfg(feature = "import")]
    Import {
        #[command(subcommand)]
        source: ImportSource,
    },
    /// Post-deploy check of what a client sees; exits 1 on any failed check.
    Smoke {
        /// The deployed endpoint, e.g. https://…/mcp.
        #[arg(long)]
        url: String,
        /// An API key of the deployment.
        #[arg(long)]
        key: String,
        /// The tool names tools/list must show, one a line (default: the built-in list).
        #[arg(long, value_name = "FILE")]
        allowlist: Option<PathBuf>,
        /// The read-only tool called once.
        #[arg(long, value_name = "NAME", default_value = "papierkram_info_get")]
        tool: String,
        /// Its arguments.
        #[arg(long = "args", value_name = "JSON", default_value = "{}", value_parser = json)]
        tool_args: serde_json::Value,
        /// OAuth discovery must work: 401 → resource metadata → authorization server.
        #[arg(long)]
        oauth: bool,
    },
}

/// What `import` reads.
#[cfg(feature = "import")]
#[derive(Debug, Subcommand)]
enum ImportSource {
    /// An OpenAPI 3.0/3.1 document (JSON or YAML): writes a draft catalog, prints a report.
    ///
    /// When --out already exists it is the curated catalog: the report then says what changed
    /// in the document (new, removed, changed operations and params) and nothing is written.
    Openapi {
        /// The OpenAPI document.
        spec: PathBuf,
        /// The connector name (snake_case); every tool name begins with <connector>_.
        #[arg(long)]
        connector: String,
        /// Where the draft goes [default: <connector>.yaml].
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Writes the report here instead of stdout.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// Imports only the operations with this tag (repeat it for several).
        #[arg(long, conflicts_with = "path_prefix")]
        tag: Vec<String>,
        /// Imports only the paths starting with this prefix (repeat it for several); the other
        /// path items are never parsed.
        #[arg(long, value_name = "PREFIX")]
        path_prefix: Vec<String>,
        /// Most tools in the draft; the rest are left out with a reason.
        #[arg(long, value_name = "N", default_value_t = 250)]
        max_tools: usize,
    },
}

/// Parses the arguments after the program name (see [`Cli::into_command`]), as the tests give
/// them.
#[cfg(test)]
fn parse<T: Into<OsString> + Clone>(
    args: impl IntoIterator<Item = T>,
    lambda: bool,
) -> Result<Command, clap::Error> {
    let args =
        std::iter::once(OsString::from("mcp-server")).chain(args.into_iter().map(Into::into));
    Cli::try_parse_from(args)?.into_command(lambda)
}

impl Cli {
    /// The command to run: none means Lambda mode, only on Lambda. Checks what clap cannot
    /// (a loopback address for `--insecure-no-auth`) and reads the `--allowlist` file.
    pub fn into_command(self, lambda: bool) -> Result<Command, clap::Error> {
        Ok(match self.command {
            None if lambda => Command::Lambda,
            None => {
                return Err(error(
                    None,
                    ErrorKind::MissingSubcommand,
                    "no command given (Lambda mode needs AWS_LAMBDA_RUNTIME_API)".into(),
                ));
            }
            Some(Sub::Serve {
                addr,
                catalog,
                insecure_no_auth,
                allow_drafts,
            }) => {
                if insecure_no_auth && !addr.ip().is_loopback() {
                    return Err(error(
                        Some("serve"),
                        ErrorKind::ArgumentConflict,
                        format!(
                            "--insecure-no-auth is only allowed on a loopback address, not {addr}"
                        ),
                    ));
                }
                Command::Serve {
                    addr,
                    // A blank variable counts as unset, as in `Config`.
                    catalog: catalog.filter(|p| !p.as_os_str().is_empty()),
                    insecure_no_auth,
                    allow_drafts,
                }
            }
            Some(Sub::Lint { dir }) => Command::Lint { dir },
            Some(Sub::Pages { dir }) => Command::Pages { dir },
            Some(Sub::Pins { dir }) => Command::Pins { dir },
            #[cfg(feature = "import")]
            Some(Sub::Import {
                source:
                    ImportSource::Openapi {
                        spec,
                        connector,
                        out,
                        report,
                        tag,
                        path_prefix,
                        max_tools,
                    },
            }) => {
                let slice = match (tag.is_empty(), path_prefix.is_empty()) {
                    (false, _) => openapi_import::Slice::Tags(tag),
                    (true, false) => openapi_import::Slice::PathPrefixes(path_prefix),
                    (true, true) => openapi_import::Slice::All,
                };
                Command::Import(Box::new(super::import::ImportArgs {
                    out: out.unwrap_or_else(|| PathBuf::from(format!("{connector}.yaml"))),
                    spec,
                    connector,
                    report,
                    slice,
                    max_tools,
                }))
            }
            Some(Sub::Smoke {
                url,
                key,
                allowlist,
                tool,
                tool_args,
                oauth,
            }) => {
                let allowlist = match allowlist {
                    None => smoke::parse_allowlist(smoke::ALLOWLIST),
                    Some(file) => match std::fs::read_to_string(&file) {
                        Ok(text) => smoke::parse_allowlist(&text),
                        Err(e) => {
                            return Err(error(
                                Some("smoke"),
                                ErrorKind::ValueValidation,
                                format!("--allowlist {}: {e}", file.display()),
                            ));
                        }
                    },
                };
                Command::Smoke(Box::new(smoke::SmokeOptions {
                    url,
                    key,
                    allowlist,
                    tool,
                    args: tool_args,
                    raw_tool: "papierkram_raw_get".into(),
                    oauth,
                }))
            }
        })
    }
}

/// An error after parsing, with the usage line of `command` (or the binary's).
fn error(command: Option<&str>, kind: ErrorKind, message: String) -> clap::Error {
    let mut cli = Cli::command();
    cli.build();
    match command.and_then(|name| cli.find_subcommand_mut(name)) {
        Some(sub) => sub.error(kind, message),
        None => cli.error(kind, message),
    }
}

fn any_path(text: &str) -> Result<PathBuf, Infallible> {
    Ok(PathBuf::from(text))
}

fn json(text: &str) -> Result<serde_json::Value, String> {
    serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn serve_defaults_to_loopback_8767() {
        let c = parse(args("serve"), false).unwrap();
        assert_eq!(
            c,
            Command::Serve {
                addr: "127.0.0.1:8767".parse().unwrap(),
                catalog: None,
                insecure_no_auth: false,
                allow_drafts: false,
            }
        );
        let Command::Serve { allow_drafts, .. } =
            parse(args("serve --allow-drafts"), false).unwrap()
        else {
            panic!("not serve");
        };
        assert!(allow_drafts);
    }

    #[test]
    fn no_command_means_lambda_only_on_lambda() {
        assert_eq!(parse(args(""), true).unwrap(), Command::Lambda);
        let err = parse(args(""), false).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("no command given"), "{err}");
    }

    #[test]
    fn insecure_mode_refuses_public_addresses() {
        let err = parse(args("serve --addr 0.0.0.0:8767 --insecure-no-auth"), false).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("--insecure-no-auth"), "{err}");
        assert!(err.to_string().contains("loopback"), "{err}");
        assert!(parse(args("serve --addr 127.0.0.1:9 --insecure-no-auth"), false).is_ok());
    }

    /// clap's messages: each names the command or flag at fault, exit code 2.
    #[test]
    fn bad_arguments_name_the_flag() {
        for (line, needle) in [
            ("serve --adr x", "unexpected argument '--adr' found"),
            (
                "serve --addr x",
                "invalid value 'x' for '--addr <HOST:PORT>'",
            ),
            ("lint a b", "unexpected argument 'b' found"),
            ("smoke --key k", "--url <URL>"),
            (
                "smoke --url u --key k --args {",
                "invalid value '{' for '--args <JSON>': not JSON",
            ),
            (
                "smoke --url u --key k --allowlist /nonexistent/allowlist",
                "--allowlist /nonexistent/allowlist: No such file",
            ),
            ("sevre", "unrecognized subcommand 'sevre'"),
        ] {
            let err = parse(args(line), false).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{line}");
            assert!(err.to_string().contains(needle), "{line}: {err}");
        }
    }

    #[test]
    fn smoke_takes_its_defaults() {
        let Command::Smoke(opts) = parse(args("smoke --url u --key k"), false).unwrap() else {
            panic!("not smoke");
        };
        assert_eq!((opts.url.as_str(), opts.key.as_str()), ("u", "k"));
        assert_eq!(opts.tool, "papierkram_info_get");
        assert_eq!(opts.args, serde_json::json!({}));
        assert_eq!(opts.allowlist, smoke::parse_allowlist(smoke::ALLOWLIST));
    }

    #[cfg(feature = "import")]
    #[test]
    fn import_openapi_defaults_the_draft_to_the_connector_file() {
        let Command::Import(a) =
            parse(args("import openapi spec.yaml --connector cal"), false).unwrap()
        else {
            panic!("not import");
        };
        assert_eq!(a.out, PathBuf::from("cal.yaml"));
        assert_eq!(a.slice, openapi_import::Slice::All);
        let Command::Import(a) = parse(
            args("import openapi s.json --connector c --tag Bookings --out d/c.yaml"),
            false,
        )
        .unwrap() else {
            panic!("not import");
        };
        assert_eq!(
            (a.slice, a.out),
            (
                openapi_import::Slice::Tags(vec!["Bookings".into()]),
                PathBuf::from("d/c.yaml")
            )
        );
        let Command::Import(a) = parse(
            args("import openapi g.yaml --connector m365 --path-prefix /users/{user-id}/messages --path-prefix /users/{user-id}/events"),
            false,
        )
        .unwrap() else {
            panic!("not import");
        };
        assert_eq!(
            a.slice,
            openapi_import::Slice::PathPrefixes(vec![
                "/users/{user-id}/messages".into(),
                "/users/{user-id}/events".into()
            ])
        );
        let err = parse(args("import openapi s.json"), false).unwrap_err();
        assert!(err.to_string().contains("--connector"), "{err}");
    }

    #[test]
    fn clap_configuration_is_consistent() {
        Cli::command().debug_assert();
    }
}
