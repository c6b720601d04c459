//! Asking an upstream for only the fields a list shows (`paging.select_param`, OData's
//! `$select`): the top-level names of the dotted fields, each once, in order. Pure.

use crate::model::{Aggregate, Catalog, Measure};
use crate::paging::Pager;

impl Pager {
    /// The query pair asking for `fields` (dotted: `from.emailAddress.name` asks for `from`),
    /// when the paging declares a `select_param` and there are fields.
    pub fn select<'a>(
        &self,
        fields: impl IntoIterator<Item = &'a str>,
    ) -> Option<(String, String)> {
        let param = self.select_param.as_ref()?;
        let mut names: Vec<&str> = Vec::new();
        for field in fields {
            let top = field.split('.').next().unwrap_or(field);
            if !top.is_empty() && !names.contains(&top) {
                names.push(top);
            }
        }
        (!names.is_empty()).then(|| (param.clone(), names.join(",")))
    }
}

/// An aggregation reads a source that selects (`select_param`) with the source's
/// `default_fields`: each field its `where`, measures and sorts read must be among them.
pub(crate) fn aggregate_problems(c: &Catalog, agg: &Aggregate) -> Vec<String> {
    let mut out = Vec::new();
    for (source, field) in fields_read(agg) {
        let Some(tool) = agg
            .sources
            .get(source.as_str())
            .and_then(|s| c.tools.iter().find(|t| t.name == s.tool))
        else {
            continue;
        };
        let selects = c.pager_for(tool).is_some_and(|p| p.select_param.is_some());
        let top = |f: &str| f.split('.').next().unwrap_or(f).to_string();
        if selects && !tool.default_fields.iter().any(|d| top(d) == top(&field)) {
            out.push(format!(
                "source `{source}` reads `{field}`, but `{}` asks the upstream only for its \
                 default_fields (`select_param`): add it there",
                tool.name
            ));
        }
    }
    out
}

/// `(source, dotted field)` for every field an aggregation reads from its sources' items.
fn fields_read(agg: &Aggregate) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (name, source) in &agg.sources {
        out.extend(
            source
                .filter
                .keys()
                .map(|f| (name.to_string(), f.to_string())),
        );
    }
    for m in &agg.result {
        out.extend(measure_fields(m));
    }
    out
}

fn measure_fields(m: &Measure) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut of = |source: &str, field: &str| out.push((source.into(), field.into()));
    if let Some((source, field)) = m.sum.as_deref().and_then(|s| s.split_once('.')) {
        of(source, field);
    }
    if let Some(t) = &m.top {
        of(&t.of, &t.by);
        if let Some(sum) = &t.sum {
            of(&t.of, sum);
        }
    }
    if let Some(i) = &m.items {
        for f in i.fields.iter().chain([&i.sort]) {
            of(&i.of, f);
        }
    }
    if let Some(d) = &m.days {
        of(&d.of, &d.start);
        of(&d.of, &d.end);
    }
    let source = m
        .count
        .as_deref()
        .map(str::to_string)
        .or_else(|| out.first().map(|(s, _)| s.clone()));
    if let Some(source) = source {
        out.extend(m.filter.keys().map(|f| (source.clone(), f.to_string())));
    }
    out
}

#[cfg(test)]
mod tests {
    fn pager(yaml: &str) -> crate::Pager {
        crate::Pager::from_paging(&yaml_serde::from_str(yaml).unwrap())
    }

    #[test]
    fn the_top_level_names_of_the_fields_go_up_once_each() {
        let graph = pager(
            "{style: next_url, items: /value, next: /@odata.nextLink, select_param: $select}",
        );
        let fields = [
            "id",
            "from.emailAddress.name",
            "from.emailAddress.address",
            "subject",
        ];
        assert_eq!(
            graph.select(fields),
            Some(("$select".into(), "id,from,subject".into()))
        );
        assert_eq!(graph.select([]), None);
        assert!(graph.params().contains(&"$select"));
        let plain = pager("{style: next_url, items: /value, next: /@odata.nextLink}");
        assert_eq!(plain.select(["id"]), None);
    }

    #[test]
    fn an_aggregation_reads_only_what_a_selecting_source_asks_for() {
        let yaml = |sort: &str| {
            format!(
                "connector: mail\nbase_url: \"https://mail.example\"\n\
                 paging: {{ style: next_url, items: /value, next: /next, select_param: $select }}\n\
                 tools:\n  - name: mail_messages_list\n    description: \"Mails. Example: {{}}\"\n    \
                 risk: low\n    list: true\n    get: /messages\n    fields: [id, subject, received]\n    \
                 default_fields: [id, subject]\n  - name: mail_day_get\n    \
                 description: \"The day. Example: {{}}\"\n    risk: low\n    aggregate:\n      \
                 sources: {{ mail: {{ tool: mail_messages_list }} }}\n      result:\n        \
                 - {{ name: newest, items: {{ of: mail, fields: [subject], sort: {sort}, n: 5 }} }}\n"
            )
        };
        crate::parse("mail.yaml", &yaml("subject")).unwrap();
        let e = crate::parse("mail.yaml", &yaml("received"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("source `mail` reads `received`"), "{e}");
    }
}
