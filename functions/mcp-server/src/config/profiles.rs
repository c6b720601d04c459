//! Tool profiles: a profile is a named set of tools (`connector/tool` patterns with `*`),
//! chosen per URL path (`/mcp/<profile>`) or per API key. This is the one place the visibility
//! rule is written; `views` applies it once per profile at start.

use std::collections::BTreeMap;

use env_config::ConfigError;

use super::env::EnvSnapshot;

/// `MCP_PROFILES`: `name=connector/tool-glob,…;name2=…`; a pattern written `+connector/glob`
/// also lists its tools in that profile's `tools/list` when they are `core: false`.
pub(crate) const PROFILES: &str = "MCP_PROFILES";
/// `MCP_KEY_PROFILES`: `key_id=profile,…`: limits an API key to one profile.
pub(crate) const KEY_PROFILES: &str = "MCP_KEY_PROFILES";
/// `MCP_DEFAULT_PROFILE`: the profile of an API key missing from `MCP_KEY_PROFILES` once that
/// maps any key; unset, such a key is refused (fail closed).
pub(crate) const DEFAULT_PROFILE: &str = "MCP_DEFAULT_PROFILE";

#[derive(Debug, Clone, Default)]
pub struct Profiles {
    sets: BTreeMap<String, Vec<String>>,
    keys: BTreeMap<String, String>,
    default: Option<String>,
}

/// Whose view a request has: the whole deployment, or one named profile.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Scope {
    Deployment,
    Profile(String),
}

impl Scope {
    /// The profile name, `None` for the whole deployment.
    pub fn profile(&self) -> Option<&str> {
        match self {
            Scope::Deployment => None,
            Scope::Profile(p) => Some(p),
        }
    }
}

/// Why a request gets no scope; each names what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    #[error("This API key is limited to the profile `{0}`: use /mcp/{0}.")]
    KeyLimitedTo(String),
    #[error(
        "This API key has no tool profile: an operator must map it in MCP_KEY_PROFILES (or set MCP_DEFAULT_PROFILE)."
    )]
    Unmapped,
    /// The name asked for, and the profiles there are (their names are the OAuth scopes the
    /// resource metadata publishes anyway).
    #[error("No tool profile `{0}` here. {known}", known = known_profiles(.1))]
    NoSuchProfile(String, Vec<String>),
}

fn known_profiles(known: &[String]) -> String {
    match known {
        [] => "This deployment has no profiles: connect to /mcp.".into(),
        _ => format!(
            "Profiles here: {}; or connect to /mcp for every tool you may use.",
            known
                .iter()
                .map(|n| format!("/mcp/{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

impl Profiles {
    /// `MCP_PROFILES`, then the keys (`MCP_KEY_PROFILES`) and the default
    /// (`MCP_DEFAULT_PROFILE`), which may name only profiles it defines.
    pub fn from_env(env: &EnvSnapshot) -> Result<Self, ConfigError> {
        let sets = profile_sets(env.get(PROFILES).unwrap_or(""))?;
        let keys = key_profiles(env.get(KEY_PROFILES).unwrap_or(""), &sets)?;
        let default = match env.get(DEFAULT_PROFILE).map(str::trim) {
            None => None,
            Some(p) if sets.contains_key(p) => Some(p.to_string()),
            Some(p) => {
                return Err(bad(
                    DEFAULT_PROFILE,
                    format!("profile `{p}` is not defined in {PROFILES}"),
                ));
            }
        };
        Ok(Profiles {
            sets,
            keys,
            default,
        })
    }

    /// Every profile name.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.sets.keys().map(String::as_str)
    }

    pub fn exists(&self, name: &str) -> bool {
        self.sets.contains_key(name)
    }

    /// The refusal of a profile that does not exist, naming those that do.
    pub fn no_such(&self, name: &str) -> ScopeError {
        ScopeError::NoSuchProfile(name.to_string(), self.sets.keys().cloned().collect())
    }

    /// The profile an API key is limited to.
    pub fn for_key(&self, key_id: &str) -> Option<&str> {
        self.keys.get(key_id).map(String::as_str)
    }

    /// Whether any API key is mapped to a profile (then unmapped keys fail closed).
    pub fn maps_keys(&self) -> bool {
        !self.keys.is_empty()
    }

    /// Key ids of `known` that no mapping names (worth a warning at start).
    pub fn unmapped<'a>(&self, known: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
        if !self.maps_keys() {
            return Vec::new();
        }
        known.filter(|k| !self.keys.contains_key(*k)).collect()
    }

    /// What a key may see on a path (`/mcp/<profile>` names `path`). Once any key is mapped,
    /// a key without a mapping gets the default profile or nothing, never the whole deployment.
    pub fn scope_for(&self, key_id: &str, path: Option<&str>) -> Result<Scope, ScopeError> {
        if let Some(p) = path
            && !self.exists(p)
        {
            return Err(self.no_such(p));
        }
        let key = match self.for_key(key_id) {
            Some(k) => Some(k),
            None if self.maps_keys() => Some(self.default.as_deref().ok_or(ScopeError::Unmapped)?),
            None => None,
        };
        match (path, key) {
            (Some(p), Some(k)) if p != k => Err(ScopeError::KeyLimitedTo(k.to_string())),
            (Some(p), _) | (None, Some(p)) => Ok(Scope::Profile(p.to_string())),
            (None, None) => Ok(Scope::Deployment),
        }
    }

    /// Whether a profile (`None`: the whole deployment) includes `connector/tool`. After the
    /// slash a pattern matches the tool's name with or without its connector's prefix:
    /// `papierkram/invoices_*` and `papierkram/papierkram_invoices_*` both reach
    /// `papierkram_invoices_list`, so profiles written before tool names carried the prefix
    /// keep their meaning.
    pub fn allows(&self, profile: Option<&str>, connector: &str, tool: &str) -> bool {
        let Some(name) = profile else {
            return true;
        };
        self.matching(name, connector, tool).next().is_some()
    }

    /// Whether a profile lists `connector/tool` although it is `core: false`: a pattern of
    /// that profile written `+connector/glob` matches it. The whole deployment lists core
    /// tools only, so a connector's tools can be listed where they belong (`calendar=+calcom/*`)
    /// without costing every other scope's `tools/list`.
    pub fn lists(&self, profile: Option<&str>, connector: &str, tool: &str) -> bool {
        profile.is_some_and(|name| {
            self.matching(name, connector, tool)
                .any(|p| p.starts_with('+'))
        })
    }

    /// The patterns of profile `name` that match `connector/tool`.
    fn matching<'a>(
        &'a self,
        name: &str,
        connector: &str,
        tool: &str,
    ) -> impl Iterator<Item = &'a String> {
        let full = format!("{connector}/{tool}");
        let short = tool
            .strip_prefix(connector)
            .and_then(|rest| rest.strip_prefix('_'))
            .map(|rest| format!("{connector}/{rest}"));
        self.sets.get(name).into_iter().flatten().filter(move |p| {
            let p = p.strip_prefix('+').unwrap_or(p);
            glob(p, &full) || short.as_ref().is_some_and(|s| glob(p, s))
        })
    }
}

/// `*` matches any run of characters; everything else literally.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first)
        || !text[first.len()..].ends_with(last)
        || text.len() < first.len() + last.len()
    {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(i) => rest = &rest[i + middle.len()..],
            None => return false,
        }
    }
    true
}

fn bad(name: &str, problem: String) -> ConfigError {
    ConfigError {
        name: name.into(),
        problem,
    }
}

/// `MCP_PROFILES`: `name=connector/tool,…` entries separated by `;`.
fn profile_sets(value: &str) -> Result<BTreeMap<String, Vec<String>>, ConfigError> {
    let mut sets = BTreeMap::new();
    for entry in value.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let (name, patterns) = entry.split_once('=').ok_or_else(|| {
            bad(
                PROFILES,
                format!("`{entry}`: expected name=connector/tool,…"),
            )
        })?;
        let name = name.trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(bad(
                PROFILES,
                format!("profile name `{name}` must be letters, digits, - or _"),
            ));
        }
        let patterns: Vec<String> = patterns
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        if let Some(p) = patterns
            .iter()
            .find(|p| !p.contains('/') || p[1..].contains('+'))
        {
            return Err(bad(
                PROFILES,
                format!(
                    "pattern `{p}` must be connector/tool (`*` allowed, a leading + lists them)"
                ),
            ));
        }
        sets.insert(name.to_string(), patterns);
    }
    Ok(sets)
}

/// `MCP_KEY_PROFILES`: `key_id=profile` pairs separated by `,`, each naming a defined profile.
fn key_profiles(
    value: &str,
    sets: &BTreeMap<String, Vec<String>>,
) -> Result<BTreeMap<String, String>, ConfigError> {
    let mut keys = BTreeMap::new();
    for pair in value.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (key, profile) = pair
            .split_once('=')
            .ok_or_else(|| bad(KEY_PROFILES, format!("`{pair}`: expected key_id=profile")))?;
        if !sets.contains_key(profile.trim()) {
            return Err(bad(
                KEY_PROFILES,
                format!("profile `{}` is not defined in {PROFILES}", profile.trim()),
            ));
        }
        keys.insert(key.trim().to_string(), profile.trim().to_string());
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plus_pattern_lists_its_tools_in_that_profile_only() {
        let p = Profiles::from_env(&EnvSnapshot::from_pairs([(
            PROFILES,
            "calendar=+calcom/*;books=papierkram/*",
        )]))
        .unwrap();
        assert!(p.allows(Some("calendar"), "calcom", "calcom_week_get"));
        assert!(p.lists(Some("calendar"), "calcom", "calcom_week_get"));
        assert!(!p.lists(Some("books"), "papierkram", "papierkram_invoices_list"));
        assert!(!p.lists(None, "calcom", "calcom_week_get"));
        assert!(!p.allows(Some("calendar"), "papierkram", "papierkram_invoices_list"));
        let err =
            Profiles::from_env(&EnvSnapshot::from_pairs([(PROFILES, "c=cal+com/*")])).unwrap_err();
        assert!(err.problem.contains("leading +"), "{err:?}");
    }

    #[test]
    fn profiles_parse_and_match_globs() {
        let env = EnvSnapshot::from_pairs([
            (
                PROFILES,
                "books=papierkram/*; reports=papierkram/*_get,papierkram/invoices_list",
            ),
            (KEY_PROFILES, "cursor=books"),
        ]);
        let p = Profiles::from_env(&env).unwrap();
        assert!(p.allows(Some("books"), "papierkram", "anything"));
        assert!(!p.allows(Some("books"), "mail", "messages_list"));
        assert!(p.allows(Some("reports"), "papierkram", "papierkram_month_close_get"));
        assert!(p.allows(Some("reports"), "papierkram", "papierkram_invoices_list"));
        assert!(!p.allows(Some("reports"), "papierkram", "papierkram_vouchers_list"));
        assert!(!p.allows(Some("nope"), "papierkram", "x"));
        assert!(p.allows(None, "mail", "messages_list"));
        assert_eq!(p.for_key("cursor"), Some("books"));
    }

    #[test]
    fn bad_profile_config_names_the_variable() {
        let err = Profiles::from_env(&EnvSnapshot::from_pairs([(PROFILES, "books")])).unwrap_err();
        assert_eq!(err.name, PROFILES);
        let err =
            Profiles::from_env(&EnvSnapshot::from_pairs([(KEY_PROFILES, "k=ghost")])).unwrap_err();
        assert_eq!(err.name, KEY_PROFILES);
    }

    #[test]
    fn unmapped_keys_fail_closed_once_any_key_is_mapped() {
        let env = EnvSnapshot::from_pairs([
            (PROFILES, "books=papierkram/*;reports=papierkram/*_get"),
            (KEY_PROFILES, "cursor=books"),
        ]);
        let p = Profiles::from_env(&env).unwrap();
        let books = Scope::Profile("books".into());
        assert_eq!(p.scope_for("cursor", None), Ok(books.clone()));
        assert_eq!(p.scope_for("cursor", Some("books")), Ok(books));
        assert_eq!(
            p.scope_for("cursor", Some("reports")),
            Err(ScopeError::KeyLimitedTo("books".into()))
        );
        assert_eq!(p.scope_for("other", None), Err(ScopeError::Unmapped));
        assert_eq!(
            p.scope_for("other", Some("reports")),
            Err(ScopeError::Unmapped)
        );
        assert_eq!(p.unmapped(["cursor", "other"].into_iter()), vec!["other"]);
        let p = Profiles::from_env(&env.with(DEFAULT_PROFILE, "reports")).unwrap();
        assert_eq!(
            p.scope_for("other", None),
            Ok(Scope::Profile("reports".into()))
        );
        assert_eq!(
            p.scope_for("other", Some("books")),
            Err(ScopeError::KeyLimitedTo("reports".into()))
        );
    }

    #[test]
    fn without_key_mappings_a_key_sees_the_deployment_or_the_path_profile() {
        let p = Profiles::from_env(&EnvSnapshot::from_pairs([(PROFILES, "books=papierkram/*")]))
            .unwrap();
        assert_eq!(p.scope_for("any", None), Ok(Scope::Deployment));
        assert_eq!(
            p.scope_for("any", Some("books")),
            Ok(Scope::Profile("books".into()))
        );
        let refused = p.scope_for("any", Some("nope")).unwrap_err();
        assert_eq!(
            refused,
            ScopeError::NoSuchProfile("nope".into(), vec!["books".into()])
        );
        assert_eq!(
            refused.to_string(),
            "No tool profile `nope` here. Profiles here: /mcp/books; or connect to /mcp for \
             every tool you may use."
        );
        assert!(p.unmapped(["any"].into_iter()).is_empty());
        let err =
            Profiles::from_env(&EnvSnapshot::from_pairs([(DEFAULT_PROFILE, "ghost")])).unwrap_err();
        assert_eq!(err.name, DEFAULT_PROFILE);
    }

    #[test]
    fn glob_matches_prefix_suffix_and_middle() {
        assert!(glob("a/*", "a/b"));
        assert!(glob("*/b_get", "x/b_get"));
        assert!(glob("a/*_*_get", "a/x_y_get"));
        assert!(!glob("a/*_get", "a/list"));
        assert!(glob("a/b", "a/b") && !glob("a/b", "a/bc"));
    }
}
