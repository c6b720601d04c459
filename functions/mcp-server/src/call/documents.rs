//! Documents and links in results: a tool's document answer (`answer.binary`) as an embedded
//! resource, image content or a `resource_link`, and a list page's items as links to their
//! records (`links`). Pure functions over the tool, its validated arguments and the answer;
//! the MCP adapter turns the [`Attachment`] and [`ItemLink`]s into content blocks.

use catalog::{BinaryForm, Catalog, Pager, Tool};
use serde_json::{Map, Value};

use super::outcome::Outcome;
use crate::contract::args::{ListOptions, ValidArgs};
use crate::upstream::Document;

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
        attachment: Some(attachment),
        ..Outcome::ok(fields)
    }
}

/// The tool's `resource` template filled from its validated path arguments.
fn record_uri(tool: &Tool, valid: &ValidArgs) -> Option<String> {
    let mut uri = tool.resource.clone()?;
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
    let Some(read) = pager.read(body) else {
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
            o.attachment,
            Some(Attachment::Link {
                uri: "t://invoices/35/pdf".into(),
                name: "t_invoice_pdf_get-35.pdf".into(),
                document: pdf,
            })
        );
        assert_eq!(o.fields["document"]["size_bytes"], 8);
        let png = Document {
            mime: "image/png".into(),
            bytes: vec![0x89, b'P'],
        };
        let o = answer(&c, &c.tools[2], &valid(1), png.clone());
        assert_eq!(o.attachment, Some(Attachment::Image(png)));
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
