//! The import pipeline: read the document once, draft each operation of the slice, name and
//! select the tools, propose the connector's habits, and check the draft loads.

use std::collections::{BTreeMap, BTreeSet};

use catalog::{Catalog, Provenance, Text};

use crate::draft::{self, Drafted, risk_entry};
use crate::habits::{self, ErrorShapes};
use crate::report::{OperationReport, Report};
use crate::schema::Resolver;
use crate::select::{self, Candidate, Selection};
use crate::spec::{self, Spec};
use crate::{Draft, ImportError, MAX_CORE, Options, Slice, auth, naming, propose, yaml_out};

/// Every operation of the slice drafted, named and selected, plus what the connector needs.
pub(crate) struct Drafts<'t> {
    pub(crate) spec: Spec<'t>,
    pub(crate) ops: Vec<(Drafted, Selection, String)>,
    pub(crate) total: usize,
    pub(crate) unmapped: Vec<String>,
    pub(crate) errors: ErrorShapes,
    pub(crate) rate_headers: BTreeSet<String>,
    /// Operations that declare an `Authorization: Bearer …` header parameter, for documents
    /// without a security scheme (Cal.com's).
    pub(crate) bearer_params: usize,
}

/// Two passes over the path items: the first sketches every operation (what naming and
/// selection need), the second drafts in full only what the draft keeps (or every operation
/// with `full_all`, for a re-import). Memory stays bounded by the kept tools, not the document.
pub(crate) fn drafts<'t>(
    text: &'t str,
    options: &Options,
    full_all: bool,
) -> Result<Drafts<'t>, ImportError> {
    if !valid_connector(&options.connector) {
        return Err(ImportError::Connector(options.connector.clone()));
    }
    let spec = spec::read(text, &options.limits)?;
    let (auth, _, _) = auth::auth(&spec.root);
    let auth_header = auth.header.clone().or(auth.query.clone());
    let mut ops: Vec<Drafted> = Vec::new();
    let mut total = 0;
    let mut unmapped = Vec::new();
    let mut errors = ErrorShapes::default();
    let mut rate_headers = BTreeSet::new();
    let mut bearer_params = 0;
    // Each path item read (its index) and where its operations start in `ops`; then the end.
    // Path items outside the slice's paths are never parsed.
    let mut first_op: Vec<(usize, usize)> = Vec::new();
    spec.for_each_path(
        |_, path| options.slice.may_hold(path),
        |k, path, item| {
            first_op.push((k, ops.len()));
            for op in draft::operations(path, item, &options.slice, &mut total, &mut unmapped)? {
                // A fresh budget per operation: one huge schema cannot starve the rest, and the
                // whole import stays within operations × budget.
                let mut r = Resolver::new(&spec.root, &options.limits);
                ops.push(draft::sketch(&mut r, &op)?);
                habits::errors(&mut r, op.op, &op.at, &mut errors)?;
                habits::rate_headers(op.op, &mut rate_headers);
                bearer_params += usize::from(auth::declares_bearer_header(op.op));
            }
            Ok(())
        },
    )?;
    if ops.is_empty() {
        return Err(ImportError::EmptySlice {
            slice: slice_words(&options.slice),
            total,
        });
    }
    let parts: Vec<naming::Parts> = ops.iter().map(|d| d.parts.clone()).collect();
    let names = naming::assign(&options.connector, &parts);
    let keep: Vec<bool> = select_all(&ops, &names, options.max_tools)
        .into_iter()
        .map(|(sel, why)| {
            full_all || sel != Selection::LeftOut || !why.starts_with(select::OVER_CAP)
        })
        .collect();
    first_op.push((usize::MAX, ops.len()));
    let (mut again, mut skipped) = (0, Vec::new());
    let read = |k: usize| first_op.binary_search_by_key(&k, |(at, _)| *at).ok();
    let wanted = |k: usize, _: &str| {
        read(k).is_some_and(|j| keep[first_op[j].1..first_op[j + 1].1].iter().any(|k| *k))
    };
    spec.for_each_path(wanted, |k, path, item| {
        let here = draft::operations(path, item, &options.slice, &mut again, &mut skipped)?;
        let start = read(k).map_or(ops.len(), |j| first_op[j].1);
        for (i, op) in (start..).zip(here) {
            if keep[i] {
                let mut r = Resolver::new(&spec.root, &options.limits);
                ops[i] = draft::draft(&mut r, &op, auth_header.as_deref())?;
            }
        }
        Ok(())
    })?;
    let selection = select_all(&ops, &names, options.max_tools);
    let ops = ops
        .into_iter()
        .zip(names)
        .zip(selection)
        .map(|((mut d, name), (sel, why))| {
            d.tool.name = name.into();
            (d, sel, why)
        })
        .collect();
    Ok(Drafts {
        spec,
        ops,
        total,
        unmapped,
        errors,
        rate_headers,
        bearer_params,
    })
}

/// The selection over all operations; a sketch counts as needing no person (the left-out
/// decision does not depend on it).
fn select_all(ops: &[Drafted], names: &[String], max_tools: usize) -> Vec<(Selection, String)> {
    let candidates: Vec<Candidate<'_>> = ops
        .iter()
        .zip(names)
        .map(|(d, name)| Candidate {
            method: d.method,
            path: &d.path,
            verb: name.rsplit('_').next().unwrap_or(""),
            risk: d.tool.risk,
            deprecated: d.deprecated,
            needs_person: !d.needs_person.is_empty(),
        })
        .collect();
    select::propose(&candidates, MAX_CORE, max_tools)
}

pub(crate) fn import(text: &str, options: &Options) -> Result<Draft, ImportError> {
    let Drafts {
        spec,
        mut ops,
        total,
        unmapped,
        errors,
        rate_headers,
        bearer_params,
    } = drafts(text, options, false)?;
    let mut connector_notes: Vec<String> = Vec::new();
    let (auth, secrets, auth_notes) = auth::auth_or_bearer_header(&spec.root, bearer_params);
    connector_notes.extend(auth_notes);
    let base_url = propose::base_url(&spec.root, &mut connector_notes);
    let paging = propose::paging(&mut ops, &mut connector_notes);
    let errors = propose::error_proposal(&errors, &mut connector_notes);
    let quota = propose::quota_proposal(&rate_headers, &mut connector_notes);
    for (d, sel, why) in &mut ops {
        let t = &mut d.tool;
        t.core = *sel == Selection::Core;
        let mut curate = vec![
            risk_entry(t.risk, &d.risk_reason),
            "description: a scaffold; write what it returns, when to use it, aliases and check the example".to_string(),
            format!("selection: proposed {} because {why}", sel.as_str()),
        ];
        curate.extend(
            d.needs_person
                .iter()
                .map(|n| format!("needs a person: {n}")),
        );
        if !d.prose.is_empty() {
            curate.push(format!(
                "params mentioned only in prose: {}; declare them or drop the mention",
                d.prose.join(", ")
            ));
        }
        if let Some(style) = &d.style
            && !t.list
        {
            let items = d
                .answer
                .items
                .as_deref()
                .map(|i| format!(", items in `{i}`"))
                .unwrap_or_default();
            curate.push(format!(
                "paging: pages by {}{items}, unlike the connector's `paging`, so this stays a \
                 plain call unless a person gives it `list: true` and its own tool `paging`",
                style.words()
            ));
        }
        if t.list {
            curate.push("fields: proposed from the item schema; keep the few a person needs in default_fields".into());
        }
        t.curate = curate.into_iter().map(Text::from).collect();
    }
    let headers = propose::hoist_headers(&mut ops);
    let mut catalog_curate: Vec<String> = connector_notes.clone();
    catalog_curate.push("hints: declare not_found, unauthorized and rate_limited hints".into());
    let report = Report {
        connector: options.connector.clone(),
        title: spec.title.clone(),
        version: spec.version.clone(),
        sha256: spec.sha256.clone(),
        slice: slice_words(&options.slice),
        total_operations: total,
        unmapped,
        connector_notes,
        rate_limit_headers: rate_headers.into_iter().collect(),
        operations: ops
            .iter()
            .map(|(d, sel, why)| operation_report(d, *sel, why))
            .collect(),
    };
    let tools: Vec<catalog::Tool> = ops
        .into_iter()
        .filter(|(_, sel, _)| *sel != Selection::LeftOut)
        .map(|(d, _, _)| d.tool)
        .collect();
    if tools.is_empty() {
        return Err(ImportError::EmptySlice {
            slice: format!(
                "{} once plumbing and deprecated operations are left out",
                slice_words(&options.slice)
            ),
            total,
        });
    }
    let catalog = Catalog {
        connector: options.connector.as_str().into(),
        title: spec.title.as_deref().map(Text::from),
        // The company's words, not the vendor's: a person writes it (the lint asks for it).
        purpose: None,
        names_fixed_by: None,
        base_url: base_url.into(),
        secrets: secrets.into_iter().map(Text::from).collect(),
        auth,
        headers,
        trace_context: false,
        timeout_ms: 10_000,
        max_response_bytes: None,
        paging,
        list_envelope: None,
        error_message: None,
        errors,
        quota,
        prices: None,
        inbound: None,
        health: None,
        hints: BTreeMap::new(),
        tools,
        prompts: Vec::new(),
        mcp: None,
        curate: catalog_curate.into_iter().map(Text::from).collect(),
        imported_from: Some(Provenance {
            title: spec.title.as_deref().map(Text::from),
            version: spec.version.as_deref().map(Text::from),
            sha256: spec.sha256.as_str().into(),
        }),
    };
    let draft = Draft { catalog, report };
    // The promise: a draft always loads. A failure here is the importer's bug, named.
    let yaml = yaml_out::to_yaml(&draft.catalog)?;
    catalog::parse(&format!("{}.yaml", options.connector), &yaml).map_err(|e| {
        ImportError::invalid(
            "#",
            format!("the draft would not load ({e}); please report this document"),
        )
    })?;
    Ok(draft)
}

fn operation_report(d: &Drafted, sel: Selection, why: &str) -> OperationReport {
    OperationReport {
        method: d.method.as_str().to_string(),
        path: d.path.clone(),
        operation_id: d.operation_id.clone(),
        tool: d.tool.name.to_string(),
        selection: sel,
        reason: why.to_string(),
        risk: format!(
            "{} ({})",
            format!("{:?}", d.tool.risk).to_lowercase(),
            d.risk_reason
        ),
        needs_person: d.needs_person.clone(),
        prose_params: d.prose.clone(),
        notes: d.notes.clone(),
    }
}

fn valid_connector(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && name.len() < naming::MAX_EXPOSED_NAME / 2
}

fn slice_words(slice: &Slice) -> String {
    let quoted = |all: &[String]| {
        all.iter()
            .map(|x| format!("`{x}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match slice {
        Slice::All => "all operations".into(),
        Slice::Tags(t) => format!("operations tagged {}", quoted(t)),
        Slice::PathPrefixes(p) => format!("paths under {}", quoted(p)),
    }
}
