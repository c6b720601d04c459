//! Scale benchmark for `search_tools` (progressive disclosure): a generated catalog of 5,000
//! tools over 50 connectors (seeded, so every run sees the same catalog), measuring index build
//! time, search latency p50/p99, answer bytes per detail level, and the `tools/list` size with
//! every tool listed against a core set plus the two meta tools.
//!
//! Run: `cargo bench -p mcp-server --bench search` (a plain `harness = false` binary timed with
//! `std::time`, no criterion: one dependency less to build on 2 cores, and the figures are
//! distributions over varied queries rather than one repeated call).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use mcp_server::{Detail, Doc, Index, MAX_ANSWER_BYTES, SearchAnswer, SearchRequest};
use serde_json::{Map, Value, json};

const CONNECTORS: [&str; 50] = [
    "hubspot",
    "salesforce",
    "pipedrive",
    "zendesk",
    "freshdesk",
    "intercom",
    "jira",
    "confluence",
    "github",
    "gitlab",
    "bitbucket",
    "slack",
    "teams",
    "zoom",
    "stripe",
    "paypal",
    "mollie",
    "shopify",
    "woocommerce",
    "xero",
    "quickbooks",
    "datev",
    "lexoffice",
    "sevdesk",
    "papierkram",
    "personio",
    "bamboohr",
    "workday",
    "asana",
    "trello",
    "notion",
    "clickup",
    "monday",
    "airtable",
    "mailchimp",
    "brevo",
    "sendgrid",
    "twilio",
    "docusign",
    "dropbox",
    "google_drive",
    "onedrive",
    "box",
    "calendly",
    "harvest",
    "toggl",
    "clockify",
    "moco",
    "billomat",
    "fastbill",
];

/// One resource a line: singular | plural | German words | item fields.
const RESOURCE_TABLE: &str = "\
invoice | invoices | Rechnungen, Ausgangsrechnungen | number due_date total_gross state customer\n\
contact | contacts | Kontakte, Ansprechpartner | first_name last_name email phone company\n\
deal | deals | Geschäfte, Verkaufschancen | title value stage owner close_date\n\
ticket | tickets | Tickets, Supportanfragen | subject status priority requester assignee\n\
issue | issues | Vorgänge, Fehler | key summary status assignee labels\n\
project | projects | Projekte | name start_date end_date budget owner\n\
user | users | Benutzer, Nutzer | name email role active last_login\n\
payment | payments | Zahlungen, Zahlungseingänge | amount currency paid_at method status\n\
order | orders | Bestellungen, Aufträge | number total status customer shipped_at\n\
product | products | Produkte, Artikel | name sku price stock category\n\
customer | customers | Kunden | name email customer_no city created_at\n\
employee | employees | Mitarbeiter, Angestellte | first_name last_name department position hire_date\n\
absence | absences | Abwesenheiten, Urlaub, Krankheit | employee type start_date end_date status\n\
time_entry | time_entries | Zeiteinträge, Zeiterfassung, Stunden | started_at duration project task billable\n\
expense | expenses | Ausgaben, Belege, Quittungen | amount category date supplier receipt\n\
file | files | Dateien, Dokumente | name size mime_type modified_at owner\n\
folder | folders | Ordner, Verzeichnisse | name path parent shared modified_at\n\
message | messages | Nachrichten | text author channel sent_at thread\n\
channel | channels | Kanäle | name topic members private created_at\n\
meeting | meetings | Besprechungen, Meetings | topic start_time duration host join_url\n\
event | events | Termine, Ereignisse | title start end location attendees\n\
campaign | campaigns | Kampagnen, Newsletter | name status sent_at open_rate click_rate\n\
subscriber | subscribers | Abonnenten, Empfänger | email status tags subscribed_at source\n\
subscription | subscriptions | Abonnements, Abos | plan status current_period_end customer amount\n\
refund | refunds | Erstattungen, Rückzahlungen | amount reason status payment created_at\n\
payout | payouts | Auszahlungen | amount arrival_date status bank_account currency\n\
account | accounts | Konten, Sachkonten | number name type balance currency\n\
transaction | transactions | Buchungen, Kontobewegungen, Umsätze | date amount purpose counterparty state\n\
journal_entry | journal_entries | Buchungssätze, Journal | date debit_account credit_account amount text\n\
tax_rate | tax_rates | Steuersätze, Umsatzsteuer | name percentage country valid_from type\n\
repository | repositories | Repositories, Code | name visibility default_branch stars updated_at\n\
pull_request | pull_requests | Pull Requests, Merge Requests | title state author base head\n\
commit | commits | Commits, Änderungen | sha message author date branch\n\
branch | branches | Branches, Zweige | name protected last_commit ahead behind\n\
page | pages | Seiten, Wiki | title space author version updated_at\n\
space | spaces | Bereiche | key name type owner created_at\n\
board | boards | Boards, Tafeln | name columns owner archived created_at\n\
card | cards | Karten | title list due members labels\n\
task | tasks | Aufgaben, To-dos | title due_date assignee completed project\n\
comment | comments | Kommentare | body author created_at parent reactions\n\
label | labels | Labels, Schlagwörter | name color description usage created_at\n\
team | teams | Teams, Gruppen | name members lead created_at description\n\
webhook | webhooks | Webhooks | url events active secret_set created_at\n\
report | reports | Berichte, Auswertungen | name period created_at format owner\n\
estimate | estimates | Angebote, Kostenvoranschläge | number date total state customer\n\
credit_note | credit_notes | Gutschriften | number amount invoice date reason\n\
supplier | suppliers | Lieferanten | name supplier_no email city payment_terms\n\
lead | leads | Interessenten, Leads | name email source score status\n\
company | companies | Firmen, Unternehmen | name domain industry employees city\n\
note | notes | Notizen | body author created_at pinned related_to\n\
call | calls | Anrufe, Telefonate | from to duration direction recorded\n\
envelope | envelopes | Umschläge, Verträge zur Unterschrift | subject status signers sent_at completed_at\n\
template | templates | Vorlagen | name type updated_at owner shared\n\
document | documents | Dokumente, Unterlagen | title type size created_at owner\n\
booking | bookings | Buchungen, Reservierungen | start end invitee event_type status\n\
shift | shifts | Schichten, Dienstplan | employee start end location role\n\
department | departments | Abteilungen | name head parent cost_center members\n\
sprint | sprints | Sprints, Iterationen | name start_date end_date goal state\n\
release | releases | Releases, Versionen | tag name published_at draft author\n\
attachment | attachments | Anhänge | file_name size mime_type uploaded_at parent\n\
";

struct Resource {
    one: &'static str,
    many: &'static str,
    de: &'static str,
    fields: Vec<&'static str>,
}

fn resources() -> Vec<Resource> {
    RESOURCE_TABLE
        .lines()
        .map(|line| {
            let cols: Vec<&str> = line.split(" | ").collect();
            Resource {
                one: cols[0],
                many: cols[1],
                de: cols[2],
                fields: cols[3].split(' ').collect(),
            }
        })
        .collect()
}

const VERBS: [&str; 8] = [
    "list", "get", "search", "create", "update", "delete", "export", "archive",
];

/// SplitMix64: small, seeded, good enough to vary a generated catalog.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

fn title(connector: &str) -> String {
    connector
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn param(kind: &str, description: String) -> Value {
    match kind {
        "date" => json!({"type": "string", "format": "date", "description": description}),
        "integer" => json!({"type": "integer", "minimum": 1, "description": description}),
        "boolean" => json!({"type": "boolean", "description": description}),
        _ => json!({"type": "string", "description": description}),
    }
}

/// One tool: name, description and input schema in the shape the shipped catalog uses.
fn tool(connector: &str, res: &Resource, related: &str, id: usize, verb: &str) -> Doc {
    let (one, many, de, fields) = (res.one, res.many, res.de, &res.fields);
    let app = title(connector);
    let resource = if matches!(verb, "list" | "search" | "export") {
        many
    } else {
        one
    };
    let name = format!("{connector}_{resource}_{verb}");
    let list = format!("{connector}_{many}_list");
    let f = |i: usize| fields[i % fields.len()].replace('_', " ");
    let mut props = Map::new();
    let mut required: Vec<&str> = Vec::new();
    let description = match verb {
        "list" => {
            props.insert(
                format!("{related}_id"),
                param(
                    "integer",
                    format!(
                        "Only {many} of this {related}; the id comes from the {related} list tool."
                    ),
                ),
            );
            props.insert(
                "created_from".into(),
                param("date", "First creation date, inclusive, YYYY-MM-DD.".into()),
            );
            props.insert(
                "created_to".into(),
                param("date", "Last creation date, inclusive, YYYY-MM-DD.".into()),
            );
            props.insert("order_by".into(), json!({"type": "string", "enum": fields, "description": "Field to sort by (default id)."}));
            props.insert(
                "descending".into(),
                param("boolean", "true: newest / largest first.".into()),
            );
            props.insert(
                "page".into(),
                json!({"type": "integer", "minimum": 1, "default": 1}),
            );
            props.insert(
                "page_size".into(),
                json!({"type": "integer", "minimum": 1, "maximum": 100, "default": 50}),
            );
            props.insert(
                "count_only".into(),
                param("boolean", "Return only the number of matches.".into()),
            );
            let ask = ["which", "how many", "the latest", "all open"][id % 4];
            format!(
                "Lists {many} ({de}) in {app} with {}, {}, {} and {}. Use it for \"{ask} {many} do we \
                 have\" or to find a {one} id for {connector}_{one}_get; filter by {related}, creation \
                 date or sort by {}, and use count_only for \"how many\". Example: \
                 {{\"created_from\": \"2026-05-01\", \"descending\": true}}",
                f(0),
                f(1),
                f(2),
                f(3),
                f(4)
            )
        }
        "get" => {
            props.insert(
                "id".into(),
                param(
                    "integer",
                    format!(
                        "{} id from {list} (not the number shown in {app}).",
                        title(one)
                    ),
                ),
            );
            required.push("id");
            format!(
                "Returns one {one} ({de}) from {app} in full: {}, {}, {}, {} and its {related}. Use \
                 it when the user asks about one {one} and you have its id from {list}. Example: \
                 {{\"id\": {}}}",
                f(0),
                f(1),
                f(2),
                f(3),
                id
            )
        }
        "search" => {
            props.insert(
                "query".into(),
                param("string", format!("Words to find in {} and {}.", f(0), f(1))),
            );
            props.insert(
                "limit".into(),
                json!({"type": "integer", "minimum": 1, "maximum": 100, "default": 20}),
            );
            required.push("query");
            format!(
                "Searches {many} in {app} by free text (Suche in {de}): matches {} and {}, best first. \
                 Use it when the user names a {one} by words rather than by id, e.g. \"the {one} about \
                 the {related}\". Example: {{\"query\": \"{related}\"}}",
                f(0),
                f(1)
            )
        }
        "create" => {
            for (i, field) in fields.iter().take(3).enumerate() {
                props.insert(
                    field.to_string(),
                    param("string", format!("The new {one}'s {}.", f(i))),
                );
            }
            props.insert(
                "confirm".into(),
                param(
                    "boolean",
                    "true to execute; without it the call answers with a preview.".into(),
                ),
            );
            required.extend(&fields[..2]);
            format!(
                "Creates {} {one} in {app} ({de} anlegen) with {}, {} and {}. Changes data in {app}: \
                 call without confirm first to get a preview, then with confirm=true. Example: \
                 {{\"{}\": \"…\", \"confirm\": true}}",
                if one.starts_with(['a', 'e', 'i', 'o', 'u']) {
                    "an"
                } else {
                    "a"
                },
                f(0),
                f(1),
                f(2),
                fields[0]
            )
        }
        "update" => {
            props.insert(
                "id".into(),
                param("integer", format!("{} id from {list}.", title(one))),
            );
            for (i, field) in fields.iter().enumerate().skip(1).take(3) {
                props.insert(
                    field.to_string(),
                    param("string", format!("New {}; omitted fields stay.", f(i))),
                );
            }
            props.insert(
                "confirm".into(),
                param("boolean", "true to execute.".into()),
            );
            required.push("id");
            format!(
                "Updates one {one} in {app} ({de} ändern): {}, {} or {}; fields left out stay as they \
                 are. Use it after reading the {one} with {connector}_{one}_get. Example: \
                 {{\"id\": 7, \"{}\": \"…\"}}",
                f(1),
                f(2),
                f(3),
                fields[1]
            )
        }
        "delete" => {
            props.insert(
                "id".into(),
                param("integer", format!("{} id from {list}.", title(one))),
            );
            props.insert(
                "confirm".into(),
                param("boolean", "true to execute.".into()),
            );
            required.push("id");
            format!(
                "Deletes one {one} from {app} ({de} löschen). Irreversible: {app} keeps no trash for \
                 {many}, so confirm with the user first. Example: {{\"id\": 7, \"confirm\": true}}"
            )
        }
        "export" => {
            props.insert("format".into(), json!({"type": "string", "enum": ["csv", "xlsx", "json"], "description": "File format (default csv)."}));
            props.insert(
                "created_from".into(),
                param("date", "First creation date, inclusive.".into()),
            );
            props.insert(
                "created_to".into(),
                param("date", "Last creation date, inclusive.".into()),
            );
            format!(
                "Exports {many} from {app} as a file (Export, {de} herunterladen) with {}, {} and {}; \
                 answers with a download link valid for 24 hours. Example: {{\"format\": \"csv\"}}",
                f(0),
                f(1),
                f(2)
            )
        }
        _ => {
            props.insert(
                "id".into(),
                param("integer", format!("{} id from {list}.", title(one))),
            );
            props.insert(
                "reason".into(),
                param("string", "Why it is archived (kept in the history).".into()),
            );
            required.push("id");
            format!(
                "Archives one {one} in {app} ({de} archivieren): it leaves the active lists but stays \
                 searchable and can be restored. Example: {{\"id\": 7}}"
            )
        }
    };
    // The notes real catalogs add (failure hints, quota, untrusted text), so descriptions are
    // as long as the shipped ones (about 300 bytes).
    let notes = [
        format!(
            "Fails with not_found when the id does not exist in {app}; look it up with {list} again."
        ),
        format!(
            "{app} counts every call against the monthly API quota; prefer {list} with fields for overviews."
        ),
        format!(
            "Text users wrote in {app} ({}, {}) comes back marked as untrusted data.",
            f(0),
            f(1)
        ),
    ];
    let description = if verb == "list" {
        description
    } else {
        format!("{description} {}", notes[id % notes.len()])
    };
    let params = props.keys().cloned().collect();
    Doc {
        name,
        connector: connector.to_string(),
        description,
        params,
        schema: json!({"type": "object", "properties": props, "required": required, "additionalProperties": false}),
        writes: !matches!(verb, "list" | "get"),
    }
}

/// 50 connectors × 20 resources × 5 verbs (list and get always, three of the others).
fn catalog(seed: u64) -> Vec<Doc> {
    let mut rng = Rng(seed);
    let mut docs = Vec::with_capacity(5_000);
    let all = resources();
    for connector in CONNECTORS {
        let mut order: Vec<usize> = (0..all.len()).collect();
        rng.shuffle(&mut order);
        for &r in &order[..20] {
            let mut verbs: Vec<&str> = VERBS[2..].to_vec();
            rng.shuffle(&mut verbs);
            for verb in ["list", "get"].into_iter().chain(verbs.into_iter().take(3)) {
                let related = all[rng.below(all.len())].one;
                let id = 100 + rng.below(9000);
                docs.push(tool(connector, &all[r], related, id, verb));
            }
        }
    }
    docs
}

/// A few hundred queries as people type them, over the generated vocabulary.
fn queries(seed: u64) -> Vec<String> {
    let mut rng = Rng(seed);
    let mut out: Vec<String> = [
        "",
        "list",
        "rechnungen",
        "welche rechnungen sind noch offen",
        "zeiterfassung letzte woche",
        "show me unpaid invoices",
        "kontoauszug",
        "xyzzy frobnicate",
        "invoce",
        "umsatz im mai",
        "delete",
        "export csv",
        "neuen kunden anlegen",
        "wer hat urlaub",
    ]
    .map(String::from)
    .to_vec();
    let all = resources();
    while out.len() < 400 {
        let res = rng.pick(&all);
        let (one, many, de, fields) = (res.one, res.many, res.de, &res.fields);
        let connector = rng.pick(&CONNECTORS);
        let word = de.split(", ").next().unwrap_or(de).to_lowercase();
        let field = rng.pick(fields).replace('_', " ");
        let q = match out.len() % 12 {
            0 => many.replace('_', " "),
            1 => word,
            2 => format!("list {}", many.replace('_', " ")),
            3 => format!("{connector} {}", many.replace('_', " ")),
            4 => format!(
                "show me {} {}",
                rng.pick(&["open", "recent", "new", "archived", "overdue"]),
                many.replace('_', " ")
            ),
            5 => format!("welche {word} gibt es in {}", title(connector)),
            6 => format!("create a {}", one.replace('_', " ")),
            7 => format!("{} details", one.replace('_', " ")),
            8 => format!("{word} nach {field} sortiert"),
            9 => format!("export {} as csv", many.replace('_', " ")),
            10 => format!("{} by {field}", many.replace('_', " ")),
            _ => format!("{connector} {word} löschen"),
        };
        out.push(q);
    }
    out
}

/// This thread's CPU time (user + system) from /proc; zero where that is not readable.
fn thread_cpu_time() -> Duration {
    let ticks = std::fs::read_to_string("/proc/thread-self/stat")
        .ok()
        .and_then(|stat| {
            let fields: Vec<u64> = stat
                .rsplit(')')
                .next()?
                .split_whitespace()
                .skip(11)
                .take(2)
                .filter_map(|f| f.parse().ok())
                .collect();
            Some(fields.iter().sum::<u64>())
        })
        .unwrap_or(0);
    // USER_HZ is 100 on Linux.
    Duration::from_millis(ticks * 10)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn kb(bytes: usize) -> String {
    format!("{:.1} KB", bytes as f64 / 1024.0)
}

/// One `tools/list` entry as the server sends it (`tools::definition`): name, title,
/// description, input schema, the shared output schema and annotations.
fn listed(name: &str, description: &str, schema: &Value, read_only: bool) -> Value {
    json!({
        "name": name,
        "title": name.replace('_', " "),
        "description": description,
        "inputSchema": schema,
        "outputSchema": Value::Object(mcp_server::output_schema()),
        "annotations": {"readOnlyHint": read_only, "destructiveHint": !read_only,
                        "idempotentHint": read_only, "openWorldHint": true},
    })
}

fn meta_tools() -> Vec<Value> {
    vec![
        listed(
            "search_tools",
            "Finds tools beyond the listed ones among every connector's tools (German or English \
             words, e.g. \"offene Rechnungen\" or \"unpaid invoices\"). Answers with full schemas \
             for a few matches, one-line summaries for more, names or counts per connector for \
             many, and a footer saying how to narrow down. Call the tool it finds with call_tool. \
             Example: {\"query\": \"zeiterfassung\", \"connector\": \"papierkram\"}",
            &json!({"type": "object", "properties": {
                "query": {"type": "string", "description": "Words describing the task."},
                "connector": {"type": "string", "description": "Only this connector's tools."},
                "detail": {"type": "string", "enum": ["full", "summary", "names", "counts"],
                           "description": "Force a detail level (default: by number of matches)."},
                "limit": {"type": ["integer", "string"], "description": "How many tools to show."}},
                "required": ["query"], "additionalProperties": false}),
            true,
        ),
        listed(
            "call_tool",
            "Calls a tool found with search_tools by name with its arguments, validated against \
             that tool's input schema. Example: {\"name\": \"papierkram_invoices_list\", \"arguments\": \
             {\"page_size\": 10}}",
            &json!({"type": "object", "properties": {
                "name": {"type": "string", "description": "The tool's name from search_tools."},
                "arguments": {"type": "object", "description": "The tool's arguments."}},
                "required": ["name"], "additionalProperties": false}),
            false,
        ),
    ]
}

fn tools_list_bytes(tools: Vec<Value>) -> usize {
    json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}})
        .to_string()
        .len()
}

fn row(metric: &str, value: String, target: &str, ok: Option<bool>) {
    let verdict = match ok {
        Some(true) => "ok",
        Some(false) => "MISSED",
        None => "",
    };
    println!("| {metric:<42} | {value:>14} | {target:<12} | {verdict:<6} |");
}

fn main() {
    let docs = catalog(0x5EED_2026);
    let queries = queries(7);
    let connectors: HashSet<&str> = docs.iter().map(|d| d.connector.as_str()).collect();
    let avg_desc = docs.iter().map(|d| d.description.len()).sum::<usize>() / docs.len();
    println!(
        "catalog: {} tools over {} connectors, descriptions {} bytes on average; {} queries",
        docs.len(),
        connectors.len(),
        avg_desc,
        queries.len()
    );

    // Index build: wall time of 21 builds (the clone is outside the timing), and the CPU time
    // this thread spent in them, which other load on a shared machine does not inflate.
    let mut builds = Vec::new();
    let mut index = None;
    let mut cpu_spent = Duration::ZERO;
    for _ in 0..21 {
        let input = docs.clone();
        let cpu = thread_cpu_time();
        let start = Instant::now();
        let built = Index::build(input);
        builds.push(start.elapsed());
        cpu_spent += thread_cpu_time().saturating_sub(cpu);
        index = Some(built);
    }
    let index = index.expect("built");
    builds.sort();
    let build_median = builds[builds.len() / 2];
    let build_min = builds[0];
    let build_cpu = cpu_spent / builds.len() as u32;

    // A profile that hides every delete tool, checked through a hash set as a server would.
    let visible_set: HashSet<String> = docs
        .iter()
        .filter(|d| !d.name.ends_with("_delete"))
        .map(|d| d.name.clone())
        .collect();
    let profile = |name: &str| visible_set.contains(name);
    let request = |q: &str, detail: Option<Detail>| SearchRequest {
        query: q.to_string(),
        detail,
        ..SearchRequest::default()
    };

    // Latency: 5 rounds over every query, auto detail, after a warm-up round. All samples, and
    // each query's best of 5 (what the code costs when no other process takes the core).
    let visibility = index.visibility(&profile);
    for q in &queries {
        std::hint::black_box(index.search_in(&request(q, None), &visibility));
    }
    let latency = |search: &dyn Fn(&SearchRequest) -> SearchAnswer| {
        let mut all = Vec::new();
        let mut best = vec![Duration::MAX; queries.len()];
        for _ in 0..5 {
            for (i, q) in queries.iter().enumerate() {
                let r = request(q, None);
                let start = Instant::now();
                let answer = search(&r);
                let took = start.elapsed();
                std::hint::black_box(answer);
                all.push(took);
                best[i] = best[i].min(took);
            }
        }
        all.sort();
        best.sort();
        (all, best)
    };
    let (times, best) = latency(&|r| index.search_in(r, &visibility));
    let (p50, p99, worst) = (
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        times[times.len() - 1],
    );
    let (best_p50, best_p99) = (percentile(&best, 0.5), percentile(&best, 0.99));
    let (per_call, _) = latency(&|r| index.search(r, &profile));
    let (call_p50, call_p99) = (percentile(&per_call, 0.5), percentile(&per_call, 0.99));

    // Answer sizes per level (auto, then each level forced), over every query.
    let mut largest = 0;
    let mut over_cap = 0;
    let mut footers_missing = 0;
    let mut per_level: Vec<(String, Vec<usize>, usize)> = Vec::new();
    for forced in [
        None,
        Some(Detail::Full),
        Some(Detail::Summary),
        Some(Detail::Names),
        Some(Detail::Counts),
    ] {
        let mut sizes = Vec::new();
        let mut degraded = 0;
        let mut auto_levels = [0usize; 4];
        for q in &queries {
            let answer: SearchAnswer = index.search(&request(q, forced), &profile);
            let bytes = answer.bytes();
            largest = largest.max(bytes);
            over_cap += usize::from(bytes > MAX_ANSWER_BYTES);
            footers_missing += usize::from(
                !answer
                    .text
                    .lines()
                    .last()
                    .is_some_and(|l| l.contains(" tools matched — detail: ")),
            );
            if answer.matched > 0 && forced.is_some_and(|f| f != answer.detail) {
                degraded += 1;
            }
            auto_levels[answer.detail as usize] += 1;
            sizes.push(bytes);
        }
        sizes.sort();
        let label = match forced {
            None => format!(
                "auto (full {}, summary {}, names {}, counts {})",
                auto_levels[0], auto_levels[1], auto_levels[2], auto_levels[3]
            ),
            Some(d) => format!("detail={d:?}").to_lowercase(),
        };
        per_level.push((label, sizes, degraded));
    }

    // The worst case: a query every one of the 5,000 tools matches (the empty query).
    let everything = index.search(&request("", None), &|_: &str| true);
    let everything_list = index.search(&request("list", None), &profile);

    // tools/list: every tool listed vs. a core set of 28 plus search_tools and call_tool.
    let all: Vec<Value> = docs
        .iter()
        .map(|d| {
            listed(
                &d.name,
                &d.description,
                &d.schema,
                !d.name.ends_with("_delete"),
            )
        })
        .collect();
    let lean = |tools: &[Value]| {
        let stripped = tools.iter().cloned().map(|mut t| {
            t.as_object_mut().map(|o| o.remove("outputSchema"));
            t
        });
        tools_list_bytes(stripped.collect())
    };
    let all_lean = lean(&all);
    let all_bytes = tools_list_bytes(all);
    let mut core: Vec<Value> = docs
        .iter()
        .filter(|d| d.name.ends_with("_list"))
        .step_by(36)
        .take(28)
        .map(|d| listed(&d.name, &d.description, &d.schema, true))
        .collect();
    let core_only = tools_list_bytes(core.clone());
    core.extend(meta_tools());
    let progressive_lean = lean(&core);
    let progressive_bytes = tools_list_bytes(core);

    println!();
    println!(
        "| {:<42} | {:>14} | {:<12} | {:<6} |",
        "metric", "value", "target", "verdict"
    );
    println!(
        "|{}|{}|{}|{}|",
        "-".repeat(44),
        "-".repeat(16),
        "-".repeat(14),
        "-".repeat(8)
    );
    row(
        "index build, median of 21 (wall)",
        ms(build_median),
        "≤ 50 ms",
        Some(build_median <= Duration::from_millis(50)),
    );
    row("index build, fastest of 21 (wall)", ms(build_min), "", None);
    row(
        "index build, CPU time per build",
        ms(build_cpu),
        "≤ 50 ms",
        Some(build_cpu <= Duration::from_millis(50)),
    );
    row(
        &format!("search p50, all {} samples", times.len()),
        ms(p50),
        "",
        None,
    );
    row(
        "search p99, all samples",
        ms(p99),
        "≤ 1 ms",
        Some(p99 <= Duration::from_millis(1)),
    );
    row("search, slowest sample", ms(worst), "", None);
    row("search p50, best of 5 per query", ms(best_p50), "", None);
    row(
        "search p99, best of 5 per query",
        ms(best_p99),
        "≤ 1 ms",
        Some(best_p99 <= Duration::from_millis(1)),
    );
    row(
        "p50 / p99, profile checked per call",
        format!("{} / {}", ms(call_p50), ms(call_p99)),
        "",
        None,
    );
    for (label, sizes, degraded) in &per_level {
        let median = sizes[sizes.len() / 2];
        let max = sizes[sizes.len() - 1];
        let note = if *degraded > 0 {
            format!(", {degraded} reduced by cap")
        } else {
            String::new()
        };
        row(
            &format!("answer bytes {label}{note}"),
            format!("{} / {}", kb(median), kb(max)),
            "median / max",
            None,
        );
    }
    row(
        "largest answer of all",
        kb(largest),
        "≤ 50 KB",
        Some(largest <= MAX_ANSWER_BYTES),
    );
    row(
        "answers over 50 KB",
        over_cap.to_string(),
        "0",
        Some(over_cap == 0),
    );
    row(
        "answers without footer",
        footers_missing.to_string(),
        "0",
        Some(footers_missing == 0),
    );
    row(
        &format!(
            "all {} tools match (empty query): {:?}",
            everything.matched, everything.detail
        )
        .to_lowercase(),
        format!("{} B", everything.bytes()),
        "< 2 KB",
        Some(everything.bytes() < 2048),
    );
    row(
        &format!(
            "\"list\" ({} matches): {:?}",
            everything_list.matched, everything_list.detail
        )
        .to_lowercase(),
        format!("{} B", everything_list.bytes()),
        "≤ 50 KB",
        Some(everything_list.bytes() <= MAX_ANSWER_BYTES),
    );
    row(
        "tools/list, all 5,000 tools (bytes/4)",
        format!("{} tok", all_bytes / 4),
        "",
        None,
    );
    row(
        "tools/list, 28 core tools only",
        format!("{} tok", core_only / 4),
        "",
        None,
    );
    row(
        "tools/list, 28 core + 2 meta tools",
        format!("{} tok", progressive_bytes / 4),
        "",
        None,
    );
    row(
        "tools/list reduction",
        format!("{:.0}×", all_bytes as f64 / progressive_bytes as f64),
        "",
        None,
    );
    row(
        "tools/list without outputSchema: all 5,000",
        format!("{} tok", all_lean / 4),
        "",
        None,
    );
    row(
        "tools/list without outputSchema: 28 + 2 meta",
        format!("{} tok", progressive_lean / 4),
        "",
        None,
    );
    println!();
    println!(
        "the 5,000-match answer ({} bytes text + structured):",
        everything.bytes()
    );
    println!("{}", everything.text);
}
