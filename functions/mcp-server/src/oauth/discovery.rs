//! What tells a client where to sign in: the protected resource metadata (RFC 9728) for `/mcp`
//! and each `/mcp/<profile>`, and the `WWW-Authenticate` challenges (RFC 6750) pointing at it.

use serde_json::{Value, json};

use super::settings::Settings;
use super::url::origin_and_path;

/// The RFC 9728 well-known path; the resource's own path follows it.
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The metadata document of `/mcp` (`None`) or `/mcp/<profile>`.
pub(crate) fn metadata(settings: &Settings, profile: Option<&str>) -> Value {
    json!({
        "resource": settings.resource_for(profile),
        "authorization_servers": [settings.issuer],
        "scopes_supported": settings.values_for(profile),
        "bearer_methods_supported": ["header"],
        "resource_name": match profile {
            None => "hosted-mcp".to_string(),
            Some(p) => format!("hosted-mcp ({p})"),
        },
    })
}

/// Where the metadata of a resource lives: the well-known segment between host and path.
pub(crate) fn metadata_url(settings: &Settings, profile: Option<&str>) -> String {
    let resource = settings.resource_for(profile);
    let (origin, path) = origin_and_path(&resource);
    format!("{origin}{WELL_KNOWN}{path}")
}

/// Which resource a well-known request is for: `rest` is the path after [`WELL_KNOWN`]. The
/// root document (empty rest) describes `/mcp`. `Some(None)`: `/mcp`; `None`: no resource here.
pub(crate) fn resource_of_path<'a>(settings: &Settings, rest: &'a str) -> Option<Option<&'a str>> {
    if rest.is_empty() || rest == "/" {
        return Some(None);
    }
    let own = resource_path(settings);
    for base in [own, "/mcp"] {
        if let Some(after) = rest.strip_prefix(base) {
            if after.is_empty() {
                return Some(None);
            }
            if let Some(profile) = after
                .strip_prefix('/')
                .filter(|p| !p.is_empty() && !p.contains('/'))
            {
                return Some(Some(profile));
            }
        }
    }
    None
}

fn resource_path(settings: &Settings) -> &str {
    origin_and_path(&settings.resource).1
}

/// The 401 challenge: where the metadata is, the scopes to ask for, and with a refused token
/// `error="invalid_token"` and why.
pub(crate) fn unauthorized(
    settings: &Settings,
    profile: Option<&str>,
    refusal: Option<&str>,
) -> String {
    let mut out = format!(
        r#"Bearer resource_metadata="{}", scope="{}""#,
        metadata_url(settings, profile),
        settings.values_for(profile).join(" ")
    );
    if let Some(why) = refusal {
        out.push_str(&format!(
            r#", error="invalid_token", error_description="{}""#,
            quoted(why)
        ));
    }
    out
}

/// The 403 challenge when the token's grants do not open this path: the scope that would.
pub(crate) fn insufficient_scope(settings: &Settings, profile: Option<&str>) -> String {
    format!(
        r#"Bearer error="insufficient_scope", scope="{}", resource_metadata="{}", error_description="{}""#,
        settings.values_for(profile).join(" "),
        metadata_url(settings, profile),
        match profile {
            None => "this token does not open every tool; ask for the scope named here, or use /mcp/<profile>".to_string(),
            Some(p) => format!("this token does not open the profile {p}"),
        }
    )
}

/// A quoted-string's content: no quotes or backslashes, printable ASCII only.
fn quoted(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' | '\\' => '\'',
            c if c.is_ascii_graphic() || c == ' ' => c,
            _ => '?',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(resource: &str) -> Settings {
        let pairs = [
            (super::super::settings::ISSUER, "https://login.example.com"),
            (super::super::settings::RESOURCE_URL, resource),
            (
                super::super::settings::PROFILES,
                "mcp:tools=*,books:rw=books",
            ),
        ];
        Settings::from_env(&env_config::Env::new(env_config::pairs(&pairs)))
            .unwrap()
            .unwrap()
    }

    #[test]
    fn metadata_names_the_resource_of_the_path_and_its_scopes() {
        let s = settings("https://mcp.example.com/mcp");
        let m = metadata(&s, Some("books"));
        assert_eq!(m["resource"], "https://mcp.example.com/mcp/books");
        assert_eq!(m["authorization_servers"][0], "https://login.example.com");
        assert_eq!(m["scopes_supported"], json!(["books:rw", "mcp:tools"]));
        assert_eq!(metadata(&s, None)["scopes_supported"], json!(["mcp:tools"]));
        assert_eq!(
            metadata_url(&s, Some("books")),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp/books"
        );
    }

    #[test]
    fn well_known_paths_map_to_resources() {
        let s = settings("https://mcp.example.com/prod/mcp");
        assert_eq!(resource_of_path(&s, ""), Some(None));
        assert_eq!(resource_of_path(&s, "/prod/mcp"), Some(None));
        assert_eq!(resource_of_path(&s, "/mcp"), Some(None));
        assert_eq!(resource_of_path(&s, "/mcp/books"), Some(Some("books")));
        assert_eq!(resource_of_path(&s, "/mcp/books/x"), None);
        assert_eq!(resource_of_path(&s, "/other"), None);
    }

    #[test]
    fn challenges_carry_the_metadata_url_and_a_safe_description() {
        let s = settings("https://mcp.example.com/mcp");
        assert_eq!(
            unauthorized(&s, None, None),
            r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:tools""#
        );
        let refused = unauthorized(&s, None, Some("the \"token\" has expired\n"));
        assert!(
            refused.ends_with(
                r#"error="invalid_token", error_description="the 'token' has expired?""#
            ),
            "{refused}"
        );
        let c = insufficient_scope(&s, Some("books"));
        assert!(
            c.starts_with(r#"Bearer error="insufficient_scope", scope="books:rw mcp:tools""#),
            "{c}"
        );
    }
}
