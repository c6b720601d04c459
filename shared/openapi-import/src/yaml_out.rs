//! The draft as YAML a person reads: the model's field order, without the noise of unset
//! fields, under a header saying it is a draft.

use catalog::Catalog;

use crate::ImportError;

pub(crate) fn to_yaml(c: &Catalog) -> Result<String, ImportError> {
    let fail = |e: String| ImportError::invalid("#", format!("cannot write the draft: {e}"));
    // A YAML value keeps the model's field order (`name` first), which a person reads.
    let mut value = yaml_serde::to_value(c).map_err(|e| fail(e.to_string()))?;
    prune(&mut value);
    let body = yaml_serde::to_string(&value).map_err(|e| fail(e.to_string()))?;
    Ok(format!(
        "# A DRAFT from `mcp-server import openapi`: every `curate` entry and `CURATE:` marker is a\n\
         # decision for a person; `mcp-server lint` refuses this catalog until they are all gone.\n{body}"
    ))
}

/// Drops what a person would not write and the model still serializes: nulls and empty lists
/// and maps. The model itself leaves out the defaults of the fields a draft sets (a tool's, a
/// param's, `errors.problem_details`), so `core: false` stays and `false` elsewhere is left out.
fn prune(v: &mut yaml_serde::Value) {
    use yaml_serde::Value as Y;
    match v {
        Y::Mapping(map) => {
            map.retain(|key, value| {
                prune(value);
                let key = key.as_str().unwrap_or("");
                !(value.is_null()
                    || value.as_sequence().is_some_and(Vec::is_empty)
                    || value
                        .as_mapping()
                        .is_some_and(|m| m.is_empty() && key != "auth"))
            });
        }
        Y::Sequence(items) => items.iter_mut().for_each(prune),
        _ => {}
    }
}
