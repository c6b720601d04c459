//! What stops an import: each error names the place in the document as a JSON pointer
//! (`#/paths/~1invoices/get/parameters/2`), so a person can find it.

/// Why a document could not be imported. Nothing is written when an import fails.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Over [`crate::Limits::max_bytes`]: refused before parsing, so memory stays bounded.
    #[error("the document is {size} bytes, over the limit of {limit} bytes; slice it first")]
    TooLarge {
        /// The document's size in bytes.
        size: usize,
        /// The limit it exceeded.
        limit: usize,
    },
    /// YAML flow collections nested deeper than [`crate::Limits::max_flow_depth`]: refused
    /// before parsing, so the YAML parser's work stays bounded.
    #[error(
        "line {line}, column {column}: YAML flow collections (`[…]`, `{{…}}`) nest deeper than \
         {limit} here; the YAML parser's work grows with size times nesting, so the document is \
         refused before parsing: write it in block style or as JSON"
    )]
    TooDeep {
        /// 1-based line of the collection over the limit.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The limit.
        limit: usize,
    },
    /// Neither JSON nor YAML.
    #[error("not JSON or YAML at line {line}, column {column}: {message}")]
    Syntax {
        /// 1-based line (0 when the parser gave none).
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// A Swagger 2.0 document: refused with the way out.
    #[error(
        "#/swagger: this is a Swagger {version} document; the importer reads OpenAPI 3.0 and 3.1. \
         Convert it first, e.g. with swagger2openapi (`npx swagger2openapi spec.json -o spec3.json`) \
         or the Swagger Editor's \"Convert to OpenAPI 3\", then import the result"
    )]
    Swagger {
        /// The `swagger` field's value.
        version: String,
    },
    /// Not an OpenAPI 3.0/3.1 document.
    #[error("{at}: {problem}")]
    NotOpenApi {
        /// JSON pointer of the offending field.
        at: String,
        /// What is wrong there.
        problem: String,
    },
    /// A structural fault at a place: a field of the wrong shape, a dangling `$ref`.
    #[error("{at}: {problem}")]
    Invalid {
        /// JSON pointer of the place.
        at: String,
        /// What is wrong there.
        problem: String,
    },
    /// The work budget for resolving schemas ran out (deep or huge schemas): bounded work.
    #[error(
        "{at}: resolving schemas took more than {limit} steps; the document is too deeply nested or self-referential to import"
    )]
    Budget {
        /// Where the budget ran out.
        at: String,
        /// The step budget.
        limit: usize,
    },
    /// The slice selected no operation.
    #[error(
        "no operation matches {slice}; {total} operations were read (a path slice reads only the paths under its prefixes)"
    )]
    EmptySlice {
        /// The slice, in words.
        slice: String,
        /// How many operations were read: the whole document's, or a path slice's paths'.
        total: usize,
    },
    /// The connector name cannot name a catalog.
    #[error("connector `{0}` must be snake_case (lower-case letters, digits, `_`)")]
    Connector(String),
}

impl ImportError {
    pub(crate) fn invalid(at: &str, problem: impl Into<String>) -> Self {
        ImportError::Invalid {
            at: at.to_string(),
            problem: problem.into(),
        }
    }
}
