//! The packed form of loaded catalogs: MessagePack and a string table, which the `connector`
//! crate's build writes and the server reads back without parsing YAML or checking again.

use crate::load::LoadError;
use crate::model::Catalog;

/// Catalogs that [`load_sources`](crate::load_sources) has already accepted, given as `(file name, model, string
/// table)` as [`pack`] wrote them: the shipped set, which the `connector` crate's build loads
/// and packs. Unpacking skips the YAML parser and the validation, which that load ran, and a
/// text format's scan for quotes and escapes; parts that are not such a catalog are still an
/// error naming their file, never a panic. The string table lives as long as the program (it is
/// compiled in), so the model's texts are slices of it ([`crate::Text`]), neither copied nor
/// checked again.
pub fn load_packed(sources: &[(&str, &[u8], &'static str)]) -> Result<Vec<Catalog>, LoadError> {
    sources
        .iter()
        .map(|(file, model, strings)| {
            crate::model::unpacking(strings, || rmp_serde::from_slice(model)).map_err(|e| {
                LoadError::Invalid {
                    file: file.to_string(),
                    line: 1,
                    problem: format!("not a packed catalog: {e}"),
                }
            })
        })
        .collect()
}

/// A loaded catalog in the form [`load_packed`] reads: the model in MessagePack (structs as maps
/// by field name, so optional fields may be left out, as in the YAML), each text in it a span of
/// the string table returned beside it, which holds each distinct text once. (Structs as arrays
/// by position, tried, unpack slower: every absent field then costs a read, and most are absent.)
pub fn pack(catalog: &Catalog) -> Result<(Vec<u8>, String), PackError> {
    let (model, strings) = crate::model::packing(|| rmp_serde::to_vec_named(catalog));
    Ok((model.map_err(PackError)?, strings))
}

/// A catalog the packed form cannot hold (a string table over 4 GiB).
#[derive(Debug, thiserror::Error)]
#[error("cannot pack the catalog: {0}")]
pub struct PackError(rmp_serde::encode::Error);
