//! The deployment inventory: what this deployment serves and to whom, worked out once at start.
//! `registry` (connectors, their tools and prompts), `profiles` (named tool sets), `views`
//! (what each profile lists, may call and may find, and which prompts it may use, computed
//! once), `config`/`env` (every variable, parsed once) and `secrets` (the deployment secret,
//! cached and re-read on rotation).
//!
//! It depends on `contract`, `search`, `oauth` and `limits` (their settings are part of the
//! config) and `random`; every stage of a call reads from it.

pub mod config;
pub(crate) mod env;
pub(crate) mod profiles;
pub(crate) mod registry;
pub mod secrets;
pub(crate) mod views;

pub use profiles::Scope;
pub use registry::{DeployedCatalog, Registry};
pub use views::View;

use std::collections::HashMap;

use crate::search;

/// Everything a request looks up about the deployment, immutable after start.
pub struct Inventory {
    pub registry: Registry,
    pub profiles: profiles::Profiles,
    /// BM25 index over every exposed tool.
    pub search: search::Index,
    views: HashMap<Scope, View>,
}

impl Inventory {
    pub fn new(registry: Registry, profiles: profiles::Profiles) -> Self {
        let search = search::Index::build(
            registry
                .exposed()
                .map(|(c, t)| search::Doc::from_tool(&c.catalog, t))
                .collect(),
        );
        let views = std::iter::once(Scope::Deployment)
            .chain(profiles.names().map(|n| Scope::Profile(n.to_string())))
            .map(|scope| {
                let view = View::new(&registry, &profiles, &search, &scope);
                (scope, view)
            })
            .collect();
        Inventory {
            registry,
            profiles,
            search,
            views,
        }
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
