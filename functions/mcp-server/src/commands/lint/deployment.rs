//! The lint's rules over the whole deployment: how many tools are listed, and each scope's
//! `tools/list` within its budget.

use catalog::{Catalog, Risk};

use super::remote::Listed;
use super::{MAX_LISTED, Row, row};
use crate::config::Config;
use crate::inventory::{DeployedCatalog, Inventory, Registry, Scope};
use crate::mcp::lists::{self, MAX_BYTES, MAX_READ_BYTES};

/// `listed_tools`: the tools a client sees at once, within what it can choose among.
/// Remote MCP servers' tools: the ones named in `allow` count; what a glob matches is known only
/// at run time, so it widens the range without failing the rule.
pub(super) fn listed_row(catalogs: &[Catalog], remotes: &[Listed]) -> Row {
    let listed: usize = catalogs
        .iter()
        .map(|c| {
            c.tools
                .iter()
                .filter(|t| t.core && t.risk != Risk::Forbidden && !t.raw)
                .count()
        })
        .sum();
    let at_least = listed + remotes.iter().map(|r| r.at_least).sum::<usize>();
    let at_most = listed + remotes.iter().map(|r| r.at_most).sum::<usize>();
    let count = if remotes.is_empty() {
        format!("{listed} listed tools")
    } else if at_least == at_most {
        format!("{at_least} listed tools ({listed} from catalogs, the rest named in `mcp.allow`)")
    } else {
        format!(
            "{at_least} to {at_most} listed tools ({listed} from catalogs; what remote globs match \
             is unknown offline)"
        )
    };
    row(
        "listed_tools",
        "(deployment)",
        at_least <= MAX_LISTED,
        format!("{count} (max {MAX_LISTED}; beyond it, serve the rest through search)"),
    )
}

/// The catalogs as this configuration deploys them: the views the budgets and prompt rules
/// are judged on.
pub(super) fn deployed(catalogs: &[Catalog], config: &Config) -> Inventory {
    let connectors = catalogs
        .iter()
        .map(|c| DeployedCatalog {
            base_url: c.base_url.to_string(),
            expose_raw: config.expose_raw(&c.connector),
            catalog: c.clone(),
        })
        .collect();
    Inventory::new(Registry::new(connectors), config.profiles.clone())
}

/// `list_budget`: every scope's `tools/list` (the deployment's, each profile's) within what a
/// model can afford on every turn.
/// Remote MCP servers' tools are not in it: their descriptions and schemas arrive at run time.
pub(super) fn budget_rows(inventory: &Inventory, no_remotes: bool, rows: &mut Vec<Row>) {
    let mut scopes: Vec<(Scope, Vec<rmcp::model::Tool>)> =
        lists::build(inventory).into_iter().collect();
    scopes.sort_by_key(|(scope, _)| scope.profile().map(str::to_string));
    for (scope, tools) in scopes {
        let size = lists::Size::of(&tools);
        let subject = match scope.profile() {
            Some(p) => format!("(profile {p})"),
            None => "(deployment)".into(),
        };
        let mut detail = format!(
            "tools/list: {} B read (names, descriptions, input schemas; max {MAX_READ_BYTES}), \
             {} B in all (max {MAX_BYTES}); {} tools",
            size.read,
            size.total,
            tools.len()
        );
        if !no_remotes {
            detail.push_str(
                "; remote MCP tools not counted (their descriptions and schemas come from the \
                 remote at run time)",
            );
        }
        if !size.within_budget() {
            detail.push_str(
                ". List fewer core tools (`core: false`: found with search_tools) or shorten \
                 parameter descriptions",
            );
        }
        rows.push(row("list_budget", subject, size.within_budget(), detail));
    }
}

#[cfg(test)]
mod tests {
    use crate::commands::lint::tests::config;
    use crate::commands::lint::{Row, Verdict, lint};
    use crate::config::{Config, EnvSnapshot};

    #[test]
    fn the_shipped_connectors_and_their_profiles_stay_within_the_list_budget() {
        let catalogs = catalog::load_sources(crate::EMBEDDED_CATALOGS).unwrap();
        let names: Vec<&str> = catalogs.iter().map(|c| c.connector.as_str()).collect();
        assert_eq!(
            names,
            [
                "calcom",
                "gsuite",
                "lexware",
                "m365",
                "papierkram",
                "replicate",
                "runway",
                "sevdesk",
                "whatsapp"
            ]
        );
        let env = EnvSnapshot::from_pairs([(
            "MCP_PROFILES",
            "accounting=papierkram/*,sevdesk/*;calendar=+gsuite/calendar_events_list,\
             +gsuite/calendar_meeting_create,+gsuite/day_get,+calcom/bookings_list,\
             +calcom/slots_list,+calcom/week_get,+calcom/booking_create,\
             +m365/calendar_events_list,+m365/day_get,gsuite/calendar_*,calcom/*,\
             m365/calendar_*;mail=+gsuite/mail_threads_search,+gsuite/mail_messages_search,\
             +gsuite/mail_message_get,+gsuite/mail_thread_get,+gsuite/mail_send,\
             +m365/mail_inbox_list,+m365/mail_messages_search,+m365/mail_message_get,\
             +m365/mail_send,gsuite/mail_*,gsuite/day_get,m365/mail_*,m365/day_get,\
             m365/contacts_search,m365/files_*;ai=+replicate/*;messaging=+whatsapp/*",
        )]);
        let rows = lint(&catalogs, &Config::from(env).unwrap());
        let budgets: Vec<&Row> = rows.iter().filter(|r| r.rule == "list_budget").collect();
        let subjects: Vec<&str> = budgets.iter().map(|r| r.subject.as_str()).collect();
        assert_eq!(
            subjects,
            [
                "(deployment)",
                "(profile accounting)",
                "(profile ai)",
                "(profile calendar)",
                "(profile mail)",
                "(profile messaging)"
            ]
        );
        for row in &budgets {
            println!("{}: {}", row.subject, row.detail);
            assert_eq!(row.verdict, Verdict::Ok, "{}: {}", row.subject, row.detail);
        }
        // The ai, calendar and messaging profiles list Replicate's, Cal.com's and WhatsApp's
        // tools themselves (no meta tools needed).
        assert!(
            budgets[2].detail.ends_with("14 tools"),
            "{}",
            budgets[2].detail
        );
        // The calendar and mail profiles list the most asked of Google's, Microsoft's and
        // Cal.com's (the rest through search).
        assert!(
            budgets[3].detail.ends_with("12 tools"),
            "{}",
            budgets[3].detail
        );
        assert!(
            budgets[4].detail.ends_with("12 tools"),
            "{}",
            budgets[4].detail
        );
        assert!(
            budgets[5].detail.ends_with("9 tools"),
            "{}",
            budgets[5].detail
        );
    }

    #[test]
    fn a_list_over_its_budget_is_a_gap() {
        let mut yaml = String::from(
            "connector: big\nbase_url: \"http://x\"\nlist_envelope: { items: entries }\ntools:\n",
        );
        for i in 0..25 {
            yaml.push_str(&format!(
                "  - name: big_things{i}_list\n    risk: low\n    list: true\n    description: >-\n      {}\n    get: /things{i}\n",
                "Lists things with every detail a person could want to know about them. ".repeat(12)
            ));
        }
        let big = catalog::parse("big.yaml", &yaml).unwrap();
        let rows = lint(&[big], &config());
        let budget = rows.iter().find(|r| r.rule == "list_budget").unwrap();
        assert_eq!(budget.verdict, Verdict::Gap, "{}", budget.detail);
        assert!(budget.detail.contains("core: false"), "{}", budget.detail);
    }
}
