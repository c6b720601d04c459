//! Documents and links in results: a tool's document answer (`answer.binary`) as an embedded
//! resource, image content or a `resource_link`, and a list page's items as links to their
//! records (`links`). Pure functions over the tool, its validated arguments and the answer;
//! the MCP adapter turns the [`Attachment`] and [`ItemLink`]s into content blocks.

use catalog::{BinaryForm, Catalog, Pager, Tool};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value};

use super::outcome::Outcome;
use crate::contract::args::{ListOptions, ValidArgs};
use crate::upstream::Document;

/// What a file name keeps unescaped at the end of a URI.
const FILE_NAME: &AsciiSet = &NON_ALPHANUMERIC.remove(b'.').remove(b'-').remove(b'_');

/// A document that rides along with a result, in the form its tool declares.
#[derive(Debug, Clone, PartialEq)]
pub enum Attachment {
    /// The bytes embedded as a resource (base64 blob with its MIME type) under `uri`.
    Embedded { uri: String, document: Document },
    /// An image answer: image content.
    Image(Document),
    /// An audio answer: audio content.
    Audio(Document),
    /// A `resource_link` the client reads with `resources/read` (which answers the bytes).
    Link {
        uri: String,
        name: String,
        document: Document,
    },
}

impl Attachment {
    /// The document, whatever form it takes in a tool result.
    pub fn document(&self) -> &Document {
        match self {
            Attachment::Embedded { document, .. } | Attachment::Link { document, .. } => document,
            Attachment::Image(document) | Attachment::Audio(document) => document,
        }
    }
}

/// One list item as a link to its record; `index` is the item's place on the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemLink {
    pub index: usize,
    pub uri: String,
    pub title: Option<String>,
}

/// The ok outcome of a document answer: `document` (type, size, URI) as the structured
/// result, the document itself as the attachment.
pub(super) fn answer(catalog: &Catalog, tool: &Tool, valid: &ValidArgs, doc: Document) -> Outcome {
    let form = tool
        .answer
        .as_ref()
        .and_then(|a| a.binary.as_ref())
        .map_or(BinaryForm::Resource, |b| b.form);
    let uri =
        record_uri(tool, valid).unwrap_or_else(|| format!("{}://{}", catalog.connector, tool.name));
    let size = doc.bytes.len() as u64;
    let mut described = Map::new();
    described.insert("mime_type".into(), doc.mime.clone().into());
    described.insert("size_bytes".into(), size.into());
    described.insert("uri".into(), uri.clone().into());
    let kind = doc.mime.split('/').next().unwrap_or_default().to_string();
    let (how, attachment) = match (kind.as_str(), form) {
        ("image", _) => ("image content", Attachment::Image(doc)),
        ("audio", _) => ("audio content", Attachment::Audio(doc)),
        (_, BinaryForm::Resource) => (
            "embedded resource",
            Attachment::Embedded { uri, document: doc },
        ),
        (_, BinaryForm::Link) => (
            "resource_link: read it with resources/read",
            Attachment::Link {
                name: file_name(&tool.name, valid, &doc.mime),
                document: doc,
                uri,
            },
        ),
    };
    described.insert("delivered_as".into(), how.into());
    let mut fields = Map::new();
    fields.insert("document".into(), Value::Object(described));
    Outcome {
        attachments: vec![attachment],
        ..Outcome::ok(fields)
    }
}

/// A JSON answer's inline documents (`answer.inline`): each base64 (or base64url) string is
/// taken out of the body and decoded into an attachment, its place in the JSON saying what it
/// became. A type or name declared as `{param}` is the call's argument. A value that is missing
/// is skipped; one that is no base64 or over its cap is an error, never sent half.
pub(super) fn take_inline(
    catalog: &Catalog,
    tool: &Tool,
    valid: &ValidArgs,
    body: &mut Value,
) -> Result<Vec<Attachment>, Box<Outcome>> {
    let Some(answer) = &tool.answer else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for doc in &answer.inline {
        let Some(slot) = body.pointer_mut(&doc.pointer) else {
            continue;
        };
        let Value::String(encoded) = slot.take() else {
            return Err(not_inline(catalog, &doc.pointer, "is not a base64 string"));
        };
        // Base64 is 4 characters per 3 bytes: a string that cannot fit the cap is not decoded.
        if encoded.len() / 4 * 3 > doc.max_bytes + 2 {
            return Err(not_inline(catalog, &doc.pointer, "is over its cap"));
        }
        let bytes = catalog::decode_base64(encoded.trim())
            .ok_or_else(|| not_inline(catalog, &doc.pointer, "is not base64"))?;
        if bytes.len() > doc.max_bytes {
            return Err(not_inline(catalog, &doc.pointer, "is over its cap"));
        }
        let (mime, name) = doc.resolve(|p| match valid.values.get(p)? {
            Value::String(s) => Some(s.clone()),
            _ => None,
        });
        *slot = Value::String(match &name {
            Some(name) => format!("({} bytes of {mime}, {name}, sent as content)", bytes.len()),
            None => format!("({} bytes of {mime}, sent as content)", bytes.len()),
        });
        let tail = match &name {
            Some(name) => format!("/{}", utf8_percent_encode(name, FILE_NAME)),
            None => doc.pointer.to_string(),
        };
        let kind = mime.split('/').next().unwrap_or_default().to_string();
        let document = Document { mime, bytes };
        out.push(match kind.as_str() {
            "image" => Attachment::Image(document),
            "audio" => Attachment::Audio(document),
            _ => Attachment::Embedded {
                uri: format!("{}://{}{tail}", catalog.connector, tool.name),
                document,
            },
        });
    }
    Ok(out)
}

fn not_inline(catalog: &Catalog, pointer: &str, what: &str) -> Box<Outcome> {
    let title = catalog.title.as_deref().unwrap_or(&catalog.connector);
    Box::new(Outcome::failed(
        catalog::Status::Unavailable,
        "upstream_not_document",
        format!(
            "{title}'s answer holds no usable document at {pointer}: it {what}. Nothing of it \
             was sent; retry later, or read the record without its document."
        ),
    ))
}

/// The tool's `resource` template filled from its validated path arguments.
fn record_uri(tool: &Tool, valid: &ValidArgs) -> Option<String> {
    let mut uri = tool.resource.as_deref()?.to_string();
    for name in catalog::placeholders(tool.resource.as_deref()?) {
        let value = match valid.values.get(name)? {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        uri = uri.replace(&format!("{{{name}}}"), &value);
    }
    Some(uri)
}

/// `papierkram_estimate_pdf_get` with `{"id": 1}` → `papierkram_estimate_pdf_get-1.pdf`.
fn file_name(tool: &str, valid: &ValidArgs, mime: &str) -> String {
    let ids: Vec<String> = valid
        .values
        .values()
        .filter_map(|v| match v {
            Value::Number(n) => Some(n.to_string()),
            Value::String(s) if s.len() <= 64 => Some(s.clone()),
            _ => None,
        })
        .collect();
    let ext = mime.rsplit('/').next().unwrap_or("bin");
    match ids.is_empty() {
        true => format!("{tool}.{ext}"),
        false => format!("{tool}-{}.{ext}", ids.join("-")),
    }
}

/// A list page's items as links to their records, for a tool declaring `links` (none for
/// `count_only`). Items without the fields the URI needs get none.
pub(super) fn item_links(
    pager: Option<Pager>,
    tool: &Tool,
    list: Option<&ListOptions>,
    body: &Value,
) -> Vec<ItemLink> {
    let (Some(links), Some(pager), Some(opts)) = (&tool.links, pager, list) else {
        return Vec::new();
    };
    if opts.count_only {
        return Vec::new();
    }
    let Some(read) = pager.page(body, opts.page, opts.page_size) else {
        return Vec::new();
    };
    read.items
        .iter()
        .enumerate()
        .filter_map(|(index, item)| {
            let (uri, title) = links.of_item(item)?;
            Some(ItemLink { index, uri, title })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;

    fn catalog() -> Catalog {
        catalog::parse(
            "t.yaml",
            r#"
connector: t
base_url: "http://x"
paging: { style: page, items: /data, page_param: page, size_param: per_page }
tools:
  - name: t_invoices_list
    risk: low
    list: true
    description: d
    get: /invoices
    fields: [id, name]
    links: { uri: "t://invoices/{id}", title: name }
  - name: t_invoice_get
    risk: low
    description: d
    get: /invoices/{id}
    resource: "t://invoices/{id}"
    params:
      id: { type: integer, in: path, min: 1 }
  - name: t_invoice_pdf_get
    risk: low
    description: d
    get: /invoices/{id}/pdf
    resource: "t://invoices/{id}/pdf"
    answer: { binary: { mime: [application/pdf, image/*], max_bytes: 100, as: link } }
    params:
      id: { type: integer, in: path, min: 1 }
"#,
        )
        .unwrap()
    }

    fn valid(id: i64) -> ValidArgs {
        ValidArgs {
            values: BTreeMap::from([("id".to_string(), Value::from(id))]),
            list: None,
            write: Default::default(),
            remote: Default::default(),
            named: Default::default(),
        }
    }

    #[test]
    fn a_linked_pdf_points_at_the_tools_record_uri_and_an_image_is_image_content() {
        let c = catalog();
        let pdf = Document {
            mime: "application/pdf".into(),
            bytes: b"%PDF-1.4".to_vec(),
        };
        let o = answer(&c, &c.tools[2], &valid(35), pdf.clone());
        assert_eq!(
            o.attachments,
            vec![Attachment::Link {
                uri: "t://invoices/35/pdf".into(),
                name: "t_invoice_pdf_get-35.pdf".into(),
                document: pdf,
            }]
        );
        assert_eq!(o.fields["document"]["size_bytes"], 8);
        let png = Document {
            mime: "image/png".into(),
            bytes: vec![0x89, b'P'],
        };
        let o = answer(&c, &c.tools[2], &valid(1), png.clone());
        assert_eq!(o.attachments, vec![Attachment::Image(png)]);
    }

    #[test]
    fn inline_documents_leave_the_json_and_become_content_and_a_bad_one_is_an_error() {
        let c = catalog::parse(
            "t.yaml",
            r#"
connector: t
base_url: "http://x"
tools:
  - name: t_mixed_get
    risk: low
    description: d
    get: /mixed
    answer:
      inline:
        - { pointer: /image, mime: image/png, max_bytes: 8 }
        - { pointer: /note, mime: text/plain, max_bytes: 8 }
"#,
        )
        .unwrap();
        let tool = &c.tools[0];
        let none = ValidArgs {
            values: BTreeMap::new(),
            ..valid(0)
        };
        // "iVBORw==" is 4 bytes, "aGk=" is "hi".
        let mut body = json!({"text": "t", "image": "iVBORw==", "note": "aGk="});
        let got = take_inline(&c, tool, &none, &mut body).unwrap();
        assert_eq!(got.len(), 2);
        assert!(matches!(&got[0], Attachment::Image(d) if d.bytes.len() == 4));
        assert!(
            matches!(&got[1], Attachment::Embedded { uri, document } if uri == "t://t_mixed_get/note" && document.bytes == b"hi")
        );
        assert_eq!(body["note"], "(2 bytes of text/plain, sent as content)");
        assert_eq!(body["text"], "t");
        let mut bad = json!({"image": "not base64!"});
        let refused = take_inline(&c, tool, &none, &mut bad).unwrap_err();
        assert_eq!(refused.reason.as_deref(), Some("upstream_not_document"));
        let mut big = json!({"image": "QUFBQUFBQUFBQUFB"});
        assert!(
            take_inline(&c, tool, &none, &mut big).is_err(),
            "12 bytes over a cap of 8"
        );
    }

    #[test]
    fn an_attachment_in_base64url_takes_its_type_and_name_from_the_call() {
        let c = catalog::parse(
            "t.yaml",
            r#"
connector: t
base_url: "http://x"
tools:
  - name: t_attachment_get
    risk: low
    description: d
    get: /attachments/{id}
    answer: { inline: [{ pointer: /data, mime: "{mime_type}", name: "{filename}", max_bytes: 8 }] }
    params:
      id: { type: string, in: path, max_length: 9 }
      mime_type: { type: string, max_length: 9 }
      filename: { type: string, max_length: 9 }
"#,
        )
        .unwrap();
        let args = ValidArgs {
            values: BTreeMap::from([
                ("mime_type".to_string(), json!("text/csv")),
                ("filename".to_string(), json!("a b.csv")),
            ]),
            ..valid(0)
        };
        // "Pz8-" is base64url for the bytes 3f 3f 3e ("??>"), no padding.
        let mut body = json!({"size": 3, "data": "Pz8-"});
        let got = take_inline(&c, &c.tools[0], &args, &mut body).unwrap();
        assert_eq!(
            got,
            vec![Attachment::Embedded {
                uri: "t://t_attachment_get/a%20b.csv".into(),
                document: Document {
                    mime: "text/csv".into(),
                    bytes: b"??>".to_vec()
                },
            }]
        );
        assert_eq!(
            body["data"],
            "(3 bytes of text/csv, a b.csv, sent as content)"
        );
    }

    #[test]
    fn list_items_link_to_their_records_unless_counting() {
        let c = catalog();
        let body = json!({"data": [{"id": 1, "name": "A"}, {"name": "no id"}, {"id": 3}]});
        let opts = ListOptions {
            page: 1,
            page_size: 10,
            fields: None,
            count_only: false,
            cursor: None,
            resumed: None,
        };
        let links = item_links(c.pager(), &c.tools[0], Some(&opts), &body);
        assert_eq!(
            links,
            vec![
                ItemLink {
                    index: 0,
                    uri: "t://invoices/1".into(),
                    title: Some("A".into())
                },
                ItemLink {
                    index: 2,
                    uri: "t://invoices/3".into(),
                    title: None
                },
            ]
        );
        let counting = ListOptions {
            count_only: true,
            ..opts
        };
        assert!(item_links(c.pager(), &c.tools[0], Some(&counting), &body).is_empty());
    }
}
