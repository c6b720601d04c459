//! What local `serve` says about each connector at start, so a newcomer is never left guessing
//! why tools are missing or answer with demo data: live, answering from the offline sandbox, or
//! not configured and which variables to set.

use crate::config::EnvSnapshot;

/// One connector's state for a local run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum LocalState {
    /// Every secret field is set: calls reach the real upstream.
    Live,
    /// Calls answer from the offline sandbox's demo data.
    Demo,
    /// These variables are missing; its tools answer `unauthorized` with a hint until set.
    Missing(Vec<String>),
}

/// The state of each catalog's connector in a run whose secrets come from variables.
/// `sandboxed` names the connector the offline sandbox stands in for, if it was started.
pub(super) fn local_states(
    catalogs: &[catalog::Catalog],
    env: &EnvSnapshot,
    sandboxed: Option<&str>,
) -> Vec<(String, LocalState)> {
    catalogs
        .iter()
        .map(|c| {
            let state = if sandboxed == Some(c.connector.as_str()) {
                LocalState::Demo
            } else {
                let missing: Vec<String> = c
                    .secrets
                    .iter()
                    .map(|field| format!("_{}", field.to_ascii_uppercase()))
                    .filter(|suffix| env.per_connector(&c.connector, suffix).is_none())
                    .map(|suffix| format!("{}{suffix}", c.connector.to_ascii_uppercase()))
                    .collect();
                if missing.is_empty() {
                    LocalState::Live
                } else {
                    LocalState::Missing(missing)
                }
            };
            (c.connector.to_string(), state)
        })
        .collect()
}

/// The state as one line for the log.
pub(super) fn describe(state: &LocalState) -> String {
    match state {
        LocalState::Live => "live: calls reach the real upstream".into(),
        LocalState::Demo => "demo: calls answer from the offline sandbox's demo data".into(),
        LocalState::Missing(vars) => format!(
            "not configured: its tools answer `unauthorized` until {} set (in .env.local)",
            if vars.len() == 1 {
                format!("{} is", vars[0])
            } else {
                format!("{} are", vars.join(", "))
            }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog(connector: &str, secrets: &str) -> catalog::Catalog {
        catalog::parse(
            "c.yaml",
            &format!(
                "connector: {connector}\nbase_url: \"https://x.test\"\nsecrets: {secrets}\n\
                 tools:\n  - name: {connector}_thing_get\n    risk: low\n    description: d\n    get: /t\n"
            ),
        )
        .unwrap()
    }

    #[test]
    fn each_connector_is_live_demo_or_names_what_to_set() {
        let catalogs = [
            catalog("papierkram", "[subdomain, token]"),
            catalog("sevdesk", "[api_key]"),
            catalog("calcom", "[api_key]"),
            catalog("open", "[]"),
        ];
        let env = EnvSnapshot::from_pairs([("CALCOM_API_KEY", "k")]);
        let states = local_states(&catalogs, &env, Some("papierkram"));
        assert_eq!(
            states,
            [
                ("papierkram".to_string(), LocalState::Demo),
                (
                    "sevdesk".to_string(),
                    LocalState::Missing(vec!["SEVDESK_API_KEY".into()])
                ),
                ("calcom".to_string(), LocalState::Live),
                ("open".to_string(), LocalState::Live),
            ]
        );
        assert_eq!(
            describe(&states[1].1),
            "not configured: its tools answer `unauthorized` until SEVDESK_API_KEY is set (in .env.local)"
        );
        let both = LocalState::Missing(vec!["A_X".into(), "A_Y".into()]);
        assert!(describe(&both).contains("A_X, A_Y are set"));
    }
}
