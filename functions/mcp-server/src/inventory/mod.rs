//! The deployment inventory: what this deployment serves and to whom, worked out once at start.
//! `registry` (connectors, their tools and prompts), `views` (what each profile of
//! [`crate::config::profiles`] lists, may call and may find, and which prompts it may use,
//! computed once) and `drafts` (an uncurated imported catalog refused, or served marked).
//!
//! The search index and each view's search visibility are the exception: built on first use
//! ([`Inventory::search`], [`Inventory::visibility`]), exactly once, so a cold instance whose
//! first request is an `initialize` or a `tools/call` does not pay for them.
//!
//! It depends on `config`, `contract`, `search` and `random`; every stage of a call reads from it.

pub(crate) mod drafts;
pub(crate) mod registry;
pub(crate) mod views;

pub(crate) use crate::config::profiles::Scope;
pub(crate) use registry::{DeployedCatalog, Registry};
pub(crate) use views::View;

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::config::profiles;
use crate::search;

/// Everything a request looks up about the deployment, immutable after start.
pub struct Inventory {
    pub registry: Registry,
    pub profiles: profiles::Profiles,
    /// BM25 index over every exposed tool, built on first use: [`Inventory::search`].
    search: OnceLock<search::Index>,
    views: HashMap<Scope, View>,
}

impl Inventory {
    pub fn new(registry: Registry, profiles: profiles::Profiles) -> Self {
        let views = std::iter::once(Scope::Deployment)
            .chain(profiles.names().map(|n| Scope::Profile(n.to_string())))
            .map(|scope| {
                let view = View::new(&registry, &profiles, &scope);
                (scope, view)
            })
            .collect();
        Inventory {
            registry,
            profiles,
            search: OnceLock::new(),
            views,
        }
    }

    /// The BM25 index over every exposed tool. Built by the first request that searches (a
    /// `search_tools`, a `call_tool` of an unknown name), exactly once: concurrent first
    /// requests wait for that one build.
    pub fn search(&self) -> &search::Index {
        self.search.get_or_init(|| {
            search::Index::build(
                self.registry
                    .exposed()
                    .map(|(c, t)| search::Doc::from_tool(&c.catalog, t))
                    .collect(),
            )
        })
    }

    /// Whether a request has needed the search index yet (a cold instance has not).
    pub fn search_is_built(&self) -> bool {
        self.search.get().is_some()
    }

    /// The tools of [`Inventory::search`] a scope may find, worked out on its first search.
    pub fn visibility(&self, scope: &Scope) -> &search::Visibility {
        self.view(scope).visibility(self.search())
    }

    /// Every scope this deployment serves: the deployment's and each profile's.
    pub fn scopes(&self) -> impl Iterator<Item = &Scope> {
        self.views.keys()
    }

    /// The view of a scope. Scopes come from `Profiles`, so every one has a view;
    /// an unknown one (a bug) sees nothing rather than everything.
    pub fn view(&self, scope: &Scope) -> &View {
        static NOTHING: std::sync::OnceLock<View> = std::sync::OnceLock::new();
        self.views
            .get(scope)
            .unwrap_or_else(|| NOTHING.get_or_init(View::empty))
    }

    /// A callable tool by name within a scope's view.
    pub fn find(&self, scope: &Scope, name: &str) -> Option<(&DeployedCatalog, &catalog::Tool)> {
        self.registry
            .find(name)
            .filter(|(_, t)| self.view(scope).allows(&t.name))
    }
}

/// The shipped catalogs deployed as `serve` deploys them (raw tools hidden), with `profiles`
/// (an `MCP_PROFILES` value): the inventory the unit tests of its readers share.
#[cfg(test)]
pub(crate) fn shipped(profile_spec: &str) -> Inventory {
    let catalogs = catalog::load_sources(crate::EMBEDDED_CATALOGS).expect("shipped catalogs");
    let deployed = catalogs
        .into_iter()
        .map(|catalog| DeployedCatalog {
            base_url: catalog.base_url.to_string(),
            expose_raw: false,
            catalog,
        })
        .collect();
    let env = crate::config::EnvSnapshot::from_pairs([(profiles::PROFILES, profile_spec)]);
    let profiles = profiles::Profiles::from_env(&env).expect("profiles");
    Inventory::new(Registry::new(deployed), profiles)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::SearchRequest;

    const PROFILES: &str = "accounting=papierkram/*,sevdesk/*;calendar=+calcom/*";

    fn names(answer: &search::SearchAnswer) -> Vec<String> {
        answer.structured["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_str().or(t["name"].as_str()).map(str::to_string))
            .collect()
    }

    #[test]
    fn the_search_index_is_built_on_first_search_only_and_once() {
        let inventory = shipped(PROFILES);
        assert!(!inventory.search_is_built(), "not at start");
        // What a tool call reads: views, the registry.
        let (_, tool) = inventory
            .find(&Scope::Deployment, "papierkram_invoices_list")
            .expect("a shipped tool");
        assert_eq!(tool.name, "papierkram_invoices_list");
        assert!(inventory.view(&Scope::Deployment).allows(&tool.name));
        assert!(!inventory.search_is_built(), "a tool call needs no index");
        let first = inventory.search();
        assert!(inventory.search_is_built());
        assert!(std::ptr::eq(first, inventory.search()), "built once");
        assert_eq!(first.len(), inventory.registry.exposed().count());
    }

    #[test]
    fn concurrent_first_searches_share_one_index_and_visibility() {
        let inventory = shipped(PROFILES);
        let scope = Scope::Profile("calendar".into());
        let (inventory, scope) = (&inventory, &scope);
        let seen: Vec<(usize, usize)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(move || {
                        let visibility: *const search::Visibility = inventory.visibility(scope);
                        let index: *const search::Index = inventory.search();
                        (index as usize, visibility as usize)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:?}");
    }

    #[test]
    fn a_scope_finds_only_what_it_may_call() {
        let inventory = shipped(PROFILES);
        let request = SearchRequest {
            query: "list".into(),
            ..Default::default()
        };
        let calendar = Scope::Profile("calendar".into());
        let answer = inventory
            .search()
            .search_in(&request, inventory.visibility(&calendar));
        let found = names(&answer);
        assert!(
            !found.is_empty() && found.iter().all(|n| n.starts_with("calcom_")),
            "{found:?}"
        );
        let accounting = Scope::Profile("accounting".into());
        let found = names(
            &inventory
                .search()
                .search_in(&request, inventory.visibility(&accounting)),
        );
        assert!(
            found.iter().any(|n| n.starts_with("papierkram_")),
            "{found:?}"
        );
        assert!(!found.iter().any(|n| n.starts_with("calcom_")), "{found:?}");
        // The same answer as a search that checks each tool against the view.
        let view = inventory.view(&accounting);
        let checked = inventory.search().search(&request, &|n| view.allows(n));
        let lazy = inventory
            .search()
            .search_in(&request, inventory.visibility(&accounting));
        assert_eq!(checked.text, lazy.text);
        assert_eq!(checked.structured, lazy.structured);
    }
}
