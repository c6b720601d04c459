//! What the per-person connectors' tests share: every tool's own example, called as a person
//! who has connected, answers `ok`, whole, within the result budget the budget test holds the
//! other connectors to (their tools answer `connection_required` to the budget test's API key).

use integration_tests::Rpc;
use serde_json::{Value, json};

/// Calls each tool of `connector` with its description's example as `bearer` (a write as its
/// dry run): `ok`, not cut, within 25 KB. Prints the sizes.
pub(crate) async fn every_example_fits(url: &str, bearer: &str, connector: &str) {
    let catalog = connector::load(None)
        .unwrap()
        .into_iter()
        .find(|c| c.connector == connector)
        .unwrap();
    for tool in &catalog.tools {
        let (_, example) = tool.description.rsplit_once("Example: ").unwrap();
        let mut args: Value = serde_json::from_str(example.trim()).unwrap();
        if !tool.is_read_only() && tool.aggregate.is_none() {
            args["dry_run"] = json!(true);
        }
        let answer = Rpc::with_bearer(url, bearer).tool(&tool.name, args).await;
        assert_eq!(answer["status"], "ok", "{}: {answer}", tool.name);
        assert_ne!(answer["truncated"], true, "{}: cut", tool.name);
        let bytes = answer.to_string().len();
        println!("{:40} {bytes:6} B", tool.name.to_string());
        assert!(bytes <= 25 * 1024, "{}: {bytes} B", tool.name);
    }
}
