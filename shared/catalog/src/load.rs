//! Loading catalog files: read and parse them, check each against the rules (`crate::rules`)
//! and the set for names that clash, and name file, line and problem when something is wrong.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::model::Catalog;
use crate::rules::{Place, validate};

/// A catalog that failed to load: where and why.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{file}: cannot read")]
    Io {
        file: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}:{line}: {problem}")]
    Invalid {
        file: String,
        line: usize,
        problem: String,
    },
    #[error("{0}: no catalog files (*.yaml) found")]
    Empty(PathBuf),
}

/// Loads every `*.yaml` file in `dir`, sorted by name.
pub fn load_dir(dir: &Path) -> Result<Vec<Catalog>, LoadError> {
    Ok(load_dir_files(dir)?.into_iter().map(|(_, c)| c).collect())
}

/// [`load_dir`], each catalog with the file it came from (what a refusal to serve one names).
pub fn load_dir_files(dir: &Path) -> Result<Vec<(PathBuf, Catalog)>, LoadError> {
    let files = catalog_files(dir)?;
    let mut catalogs = Vec::with_capacity(files.len());
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|source| LoadError::Io {
            file: file.clone(),
            source,
        })?;
        catalogs.push(parse(&file.display().to_string(), &text)?);
    }
    check_unique(&catalogs)?;
    Ok(files.into_iter().zip(catalogs).collect())
}

/// The catalog files of `dir` (`*.yaml`, `*.yml`), sorted by name; none is an error.
pub fn catalog_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let io = |source| LoadError::Io {
        file: dir.to_path_buf(),
        source,
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(LoadError::Empty(dir.to_path_buf()));
    }
    Ok(files)
}

/// Parses catalogs given as `(file name, text)` pairs (the embedded default set).
pub fn load_sources(sources: &[(&str, &str)]) -> Result<Vec<Catalog>, LoadError> {
    let catalogs = sources
        .iter()
        .map(|(file, text)| parse(file, text))
        .collect::<Result<Vec<_>, _>>()?;
    check_unique(&catalogs)?;
    Ok(catalogs)
}

/// Parses and validates one catalog file.
pub fn parse(file: &str, text: &str) -> Result<Catalog, LoadError> {
    let catalog: Catalog = yaml_serde::from_str(text).map_err(|e| LoadError::Invalid {
        file: file.to_string(),
        line: e.location().map_or(1, |l| l.line()),
        problem: strip_location(&e.to_string()),
    })?;
    let problems = validate(&catalog);
    if let Some((place, problem)) = problems.into_iter().next() {
        let line = match place {
            Some(Place::Tool(t)) => line_of_tool(text, &t),
            Some(Place::Key(key)) => line_of_key(text, key),
            None => 1,
        };
        return Err(LoadError::Invalid {
            file: file.to_string(),
            line,
            problem,
        });
    }
    Ok(catalog)
}

fn strip_location(message: &str) -> String {
    // yaml_serde appends "at line X column Y"; the line is already in our prefix.
    match message.find(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// The 1-based line of the top-level `key:` in the source (1 when not found).
fn line_of_key(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| l.strip_prefix(key).is_some_and(|r| r.starts_with(':')))
        .map_or(1, |i| i + 1)
}

/// The 1-based line of `- name: <tool>` in the source, for error messages.
fn line_of_tool(text: &str, tool: &str) -> usize {
    text.lines()
        .position(|l| {
            let l = l.trim_start().trim_start_matches("- ").trim();
            l.strip_prefix("name:")
                .is_some_and(|v| v.trim().trim_matches(['"', '\'']) == tool)
        })
        .map_or(1, |i| i + 1)
}

fn check_unique(catalogs: &[Catalog]) -> Result<(), LoadError> {
    let mut connectors = BTreeSet::new();
    let mut tools = BTreeSet::new();
    let mut prompts = BTreeSet::new();
    for c in catalogs {
        if !connectors.insert(&c.connector) {
            return Err(LoadError::Invalid {
                file: c.connector.to_string(),
                line: 1,
                problem: format!("connector `{}` is declared twice", c.connector),
            });
        }
        for p in &c.prompts {
            if !prompts.insert(&p.name) {
                return Err(LoadError::Invalid {
                    file: c.connector.to_string(),
                    line: 1,
                    problem: format!("prompt `{}` is declared by two connectors", p.name),
                });
            }
        }
        for t in &c.tools {
            if !tools.insert(&t.name) {
                return Err(LoadError::Invalid {
                    file: c.connector.to_string(),
                    line: 1,
                    problem: format!("tool `{}` is declared by two connectors", t.name),
                });
            }
        }
    }
    if let Some((connector, problem)) = crate::names::problems(catalogs) {
        return Err(LoadError::Invalid {
            file: connector,
            line: 1,
            problem,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::{load_packed, pack};
    use crate::rules::tests::GOOD;

    #[test]
    fn good_catalog_loads() {
        let c = parse("demo.yaml", GOOD).unwrap();
        assert_eq!(c.tools.len(), 2);
        assert_eq!(c.timeout_ms, 10_000);
        assert!(c.tools[0].core);
    }

    #[test]
    fn a_packed_catalog_loads_as_it_was_and_anything_else_names_its_file() {
        let loaded = parse("demo.yaml", GOOD).unwrap();
        let (model, strings) = pack(&loaded).unwrap();
        // The embedded table lives as long as the program; so does this one.
        let strings: &'static str = strings.leak();
        assert!(strings.contains("Lists invoices.") && strings.matches("demo_").count() == 2);
        assert_eq!(
            load_packed(&[("demo.yaml", &model, strings)]).unwrap(),
            vec![loaded]
        );

        let not_a_model = rmp_serde::to_vec_named(&serde_json::json!({"connector": true})).unwrap();
        let cut = &model[..model.len() / 2];
        let bad_models = [&not_a_model[..], cut, &b"\xc1 not MessagePack"[..], &[]];
        let bad = bad_models.iter().map(|m| (*m, strings));
        // The right model with a table that is not its own: spans past the table's end.
        let other = bad.chain([(&model[..], ""), (&model[..], &strings[1..])]);
        for (model, strings) in other {
            let err = load_packed(&[("demo.yaml", model, strings)]).unwrap_err();
            assert!(
                err.to_string()
                    .starts_with("demo.yaml:1: not a packed catalog"),
                "{err}"
            );
        }
    }

    #[test]
    fn unknown_key_names_file_and_line() {
        let text = GOOD.replace("    list: true\n", "    list: true\n    lsit: true\n");
        let err = parse("demo.yaml", &text).unwrap_err().to_string();
        assert!(err.starts_with("demo.yaml:11: "), "{err}");
        assert!(err.contains("lsit"), "{err}");
    }

    #[test]
    fn path_hole_without_param_names_the_tool_line() {
        let text = GOOD.replace("/invoices/{id}", "/invoices/{invoice_id}");
        let err = parse("demo.yaml", &text).unwrap_err().to_string();
        assert!(
            err.starts_with("demo.yaml:13: tool `demo_invoice_get`"),
            "{err}"
        );
        assert!(err.contains("{invoice_id}"), "{err}");
    }

    #[test]
    fn duplicate_tools_across_catalogs_are_rejected() {
        // `demo_eu_invoices_list` is a name both `demo` and `demo_eu` may declare.
        let one = GOOD.replace("demo_invoices_list", "demo_eu_invoices_list");
        let other = one
            .replace("connector: demo", "connector: demo_eu")
            .replace("demo_invoice_get", "demo_eu_invoice_get");
        let err = load_sources(&[("a.yaml", &one), ("b.yaml", &other)]).unwrap_err();
        assert!(err.to_string().contains("declared by two connectors"));
    }

    #[test]
    fn a_name_inside_another_connectors_space_refuses_the_set() {
        // `demo_eu_invoices_list` is `demo_eu`'s by the longest prefix, which a remote `demo_eu`
        // could list as `invoices_list` at run time: declared by `demo`, the set is refused.
        let one = GOOD.replace("demo_invoices_list", "demo_eu_invoices_list");
        let remote = "connector: demo_eu\nmcp:\n  url: https://x.test/mcp\n  allow: [\"*\"]\n";
        let err = load_sources(&[("a.yaml", &one), ("b.yaml", remote)])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "tool of connector `demo`: `demo_eu_invoices_list` begins with `demo_eu_`"
            ),
            "{err}"
        );
        let overlay = format!("{remote}  overlays:\n    x: {{ name: demo_eu_b_x }}\n");
        let nested = "connector: demo_eu_b\nmcp:\n  url: https://x.test/mcp\n  allow: [\"*\"]\n";
        let err = load_sources(&[("b.yaml", &overlay), ("c.yaml", nested)])
            .unwrap_err()
            .to_string();
        assert!(err.contains("belongs to connector `demo_eu_b`"), "{err}");
        assert!(load_sources(&[("a.yaml", GOOD), ("b.yaml", remote), ("c.yaml", nested)]).is_ok());
    }
}
