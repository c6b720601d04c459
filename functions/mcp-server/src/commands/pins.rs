//! `mcp-server pins [DIR]`: the pins of each remote MCP server's tools as they are listed now,
//! for a person reviewing them. It contacts every `mcp:` connector of the catalogs with the
//! deployment's credentials (as `serve` would), and prints per connector the `pins:` block its
//! catalog takes: each allowed tool's remote name and the fingerprint of its title,
//! description, input schema and annotations. Review what each remote lists, then paste the
//! block under `mcp:`; from then on a tool whose listing changes is withheld until reviewed
//! again (`upstream/remote/pins.rs`).

use std::fmt::Write as _;

use crate::upstream::remote::RemoteSet;

/// What one connector gave: its pins, or why there are none.
pub(super) enum Listed<'a> {
    Pins(&'a RemoteSet),
    /// The remote acts as each person: its list is theirs, never fetched as the deployment.
    PerPerson,
    Unavailable(String),
}

/// The printed block for one connector.
pub(super) fn render(connector: &str, listed: Listed<'_>) -> String {
    let mut out = format!("# {connector}\n");
    match listed {
        Listed::Pins(set) if set.reviewed.is_empty() => {
            out.push_str("# the remote lists no tool `allow` lets through\n");
        }
        Listed::Pins(set) => {
            out.push_str("  pins:\n");
            for (name, pin) in &set.reviewed {
                let _ = writeln!(out, "    {}: \"{pin}\"", yaml_key(name));
            }
        }
        Listed::PerPerson => out.push_str(
            "# acts with each person's own account (auth: oauth_user): not listed as the deployment\n",
        ),
        Listed::Unavailable(why) => {
            let _ = writeln!(out, "# not listed: {why}");
        }
    }
    out
}

/// A remote tool name as a YAML key: quoted unless it is plain (the names `allow` accepts).
fn yaml_key(name: &str) -> String {
    let plain = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c));
    if plain {
        name.to_string()
    } else {
        serde_json::Value::String(name.to_string()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_connector_gets_a_pins_block_or_says_why_not() {
        let mut set = RemoteSet::default();
        set.reviewed = vec![
            ("search_notes".into(), "sha256:aa".into()),
            ("9 odd".into(), "sha256:bb".into()),
        ];
        assert_eq!(
            render("notes", Listed::Pins(&set)),
            "# notes\n  pins:\n    search_notes: \"sha256:aa\"\n    \"9 odd\": \"sha256:bb\"\n"
        );
        assert!(render("mail", Listed::PerPerson).contains("oauth_user"));
        assert!(
            render("gone", Listed::Unavailable("unreachable".into()))
                .contains("not listed: unreachable")
        );
    }
}
