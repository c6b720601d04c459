//! The vault on Lambda's store: the real DynamoDB and KMS SDK clients against `moto_server`,
//! through counting relays (which also pass one request at a time, as DynamoDB serializes the
//! writes to one item). Two people's grants never cross, nothing readable lands in the table, a
//! sealed grant moved to another person's item does not open, one refresh wins across two
//! instances, and the requests a read costs are counted.

use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use integration_tests::Moto;
use integration_tests::proxy::CountingProxy;
use mcp_server::{
    EntryKey, Grant, KmsKeys, PARTITION_KEY, Person, SORT_KEY, TableVault, VaultError, VaultStore,
};

pub(crate) const TABLE: &str = "hosted-mcp-vault";
const ISSUER: &str = "https://id.example.test";

/// moto with the vault's table and KMS key, behind two counting relays (the table's reads, KMS).
pub(crate) struct Aws {
    pub(crate) moto: Moto,
    /// Counts `GetItem` (the reads); relays every other table request too.
    pub(crate) dynamodb: CountingProxy,
    pub(crate) kms: CountingProxy,
    pub(crate) key_id: String,
}

impl Aws {
    pub(crate) async fn start() -> Aws {
        Aws::counting("DynamoDB_20120810.").await
    }

    /// With the table's relay counting only requests whose target starts with `operation`.
    pub(crate) async fn counting(operation: &str) -> Aws {
        let moto = Moto::start();
        let target = moto.endpoint.trim_start_matches("http://").parse().unwrap();
        let dynamodb = CountingProxy::start(target, operation).await;
        let kms = CountingProxy::start(target, "TrentService.").await;
        moto.create_table(TABLE, PARTITION_KEY, Some(SORT_KEY))
            .await;
        let key_id = kms_client(&moto.endpoint)
            .create_key()
            .description("hosted-mcp vault")
            .send()
            .await
            .expect("create the KMS key")
            .key_metadata
            .unwrap()
            .key_id;
        Aws {
            moto,
            dynamodb,
            kms,
            key_id,
        }
    }

    /// One instance's vault: its own clients and data-key cache, the shared table and key.
    pub(crate) fn vault(&self) -> TableVault {
        let moto = Moto::dynamodb_client_for(&self.dynamodb.endpoint());
        TableVault::new(
            moto,
            TABLE,
            KmsKeys::new(kms_client(&self.kms.endpoint()), self.key_id.clone()),
        )
    }

    /// A server's environment for this vault: its table and key, the table and KMS through
    /// their relays, the rest of AWS at moto.
    pub(crate) fn server_env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("MCP_VAULT_TABLE", TABLE.to_string()),
            ("MCP_VAULT_KEY_ID", self.key_id.clone()),
            ("AWS_ENDPOINT_URL", self.moto.endpoint.clone()),
            ("AWS_ENDPOINT_URL_DYNAMODB", self.dynamodb.endpoint()),
            ("AWS_ENDPOINT_URL_KMS", self.kms.endpoint()),
            ("AWS_ACCESS_KEY_ID", "testing".into()),
            ("AWS_SECRET_ACCESS_KEY", "testing".into()),
            ("AWS_REGION", "eu-central-1".into()),
            ("AWS_EC2_METADATA_DISABLED", "true".into()),
        ]
    }

    pub(crate) fn table(&self) -> aws_sdk_dynamodb::Client {
        Moto::dynamodb_client_for(&self.dynamodb.endpoint())
    }
}

pub(crate) fn kms_client(endpoint: &str) -> aws_sdk_kms::Client {
    let config = aws_sdk_kms::Config::builder()
        .behavior_version_latest()
        .region(aws_sdk_kms::config::Region::new("eu-central-1"))
        .endpoint_url(endpoint)
        .credentials_provider(aws_sdk_kms::config::Credentials::new(
            "testing", "testing", None, None, "moto",
        ))
        .build();
    aws_sdk_kms::Client::from_conf(config)
}

fn key(subject: &str, connector: &str, scopes: &[&str]) -> EntryKey {
    let person = Person::new(ISSUER, subject).unwrap();
    EntryKey::new(person, connector, scopes.iter().copied()).unwrap()
}

fn grant(token: &str, expires_at: Option<u64>) -> Grant {
    Grant {
        access_token: token.to_string(),
        refresh_token: Some(format!("{token}-refresh")),
        expires_at,
        scopes: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_peoples_grants_are_sealed_apart_and_never_cross() {
    let aws = Aws::start().await;
    let vault = aws.vault();
    let alice = key("alice@example.com", "mail", &["mail.read", "mail.send"]);
    let bob = key("bob@example.com", "mail", &["mail.send", "mail.read"]);
    vault
        .put(
            &alice,
            &grant("alice-access-7f3a", Some(2_000_000_000)),
            100,
        )
        .await
        .unwrap();
    vault
        .put(&bob, &grant("bob-access-91c2", None), 101)
        .await
        .unwrap();

    let a = vault.get(&alice).await.unwrap().expect("alice's entry");
    let b = vault.get(&bob).await.unwrap().expect("bob's entry");
    assert_eq!(a.grant.access_token, "alice-access-7f3a");
    assert_eq!(
        a.grant.refresh_token.as_deref(),
        Some("alice-access-7f3a-refresh")
    );
    assert_eq!(a.grant.expires_at, Some(2_000_000_000));
    assert_eq!(b.grant.access_token, "bob-access-91c2");
    assert_eq!((a.version, b.version), (1, 1));
    // Less than the whole key finds nothing: other scopes, another connector.
    assert_eq!(
        vault
            .get(&key("alice@example.com", "mail", &["mail.read"]))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        vault
            .get(&key(
                "alice@example.com",
                "calendar",
                &["mail.read", "mail.send"]
            ))
            .await
            .unwrap(),
        None
    );
    // The same subject at another issuer is another person.
    let elsewhere = EntryKey::new(
        Person::new("https://other-issuer.test", "alice@example.com").unwrap(),
        "mail",
        ["mail.read", "mail.send"],
    )
    .unwrap();
    assert_eq!(vault.get(&elsewhere).await.unwrap(), None);

    // Nothing readable in the table: no token, no subject.
    let scan = aws.table().scan().table_name(TABLE).send().await.unwrap();
    let items = scan.items.unwrap();
    assert_eq!(items.len(), 2);
    let dump = format!("{items:?}");
    for secret in [
        "alice-access",
        "bob-access",
        "refresh",
        "alice@",
        "bob@",
        "example.com",
    ] {
        assert!(
            !dump.contains(secret),
            "`{secret}` is readable in the table"
        );
    }
    for item in &items {
        let sealed = item["sealed"].as_b().unwrap().as_ref();
        assert!(
            !sealed.windows(6).any(|w| w == b"access"),
            "the grant is sealed"
        );
    }

    // Alice's sealed grant copied onto Bob's item does not open as Bob's (nor as Alice's).
    let alice_item = items
        .iter()
        .find(|i| i[PARTITION_KEY].as_s().unwrap() == &alice.person().id())
        .unwrap();
    aws.table()
        .update_item()
        .table_name(TABLE)
        .key(PARTITION_KEY, AttributeValue::S(bob.person().id()))
        .key(SORT_KEY, AttributeValue::S(bob.slot()))
        .update_expression("SET data_key = :k, sealed = :s")
        .expression_attribute_values(":k", alice_item["data_key"].clone())
        .expression_attribute_values(":s", alice_item["sealed"].clone())
        .send()
        .await
        .unwrap();
    assert_eq!(vault.get(&bob).await, Err(VaultError::Corrupt));
    // A fresh instance (no cached data keys) asks KMS, which refuses Bob's context for Alice's key.
    assert_eq!(aws.vault().get(&bob).await, Err(VaultError::Corrupt));
    assert_eq!(
        aws.vault()
            .get(&alice)
            .await
            .unwrap()
            .unwrap()
            .grant
            .access_token,
        "alice-access-7f3a"
    );

    // The list shows each person their own connections, without tokens; disconnecting removes one.
    let listed = vault.list(alice.person()).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].connector, "mail");
    assert_eq!(listed[0].scopes, ["mail.read", "mail.send"]);
    assert_eq!(
        (listed[0].expires_at, listed[0].connected_at),
        (Some(2_000_000_000), 100)
    );
    assert!(!serde_json_text(&listed).contains("alice-access"));
    // A grant that names its scopes (more after an incremental consent) lists those.
    let mut more = vault.get(&alice).await.unwrap().unwrap();
    more.grant.scopes = Some(vec!["mail.read".into(), "contacts.read".into()]);
    assert!(
        vault
            .replace(&alice, more.version, &more.grant)
            .await
            .unwrap()
    );
    let listed = vault.list(alice.person()).await.unwrap();
    assert_eq!(listed[0].scopes, ["mail.read", "contacts.read"]);
    assert_eq!(
        vault.get(&alice).await.unwrap().unwrap().grant.scopes,
        more.grant.scopes
    );
    assert!(vault.remove(&alice).await.unwrap());
    assert!(!vault.remove(&alice).await.unwrap());
    assert_eq!(vault.get(&alice).await.unwrap(), None);
    assert!(vault.list(alice.person()).await.unwrap().is_empty());
    assert_eq!(vault.list(bob.person()).await.unwrap().len(), 1);
}

fn serde_json_text(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_costs_one_get_item_and_kms_once_per_person_and_instance() {
    let aws = Aws::start().await;
    let alice = key("alice", "calendar", &["calendar"]);
    let writer = aws.vault();
    writer.put(&alice, &grant("a1", Some(5)), 1).await.unwrap();
    writer.put(&alice, &grant("a2", Some(6)), 2).await.unwrap();
    assert_eq!(
        aws.kms.count(),
        1,
        "one data key for the person's two writes"
    );
    writer.get(&alice).await.unwrap().unwrap();
    assert_eq!(
        aws.kms.count(),
        1,
        "what an instance sealed it opens without KMS"
    );

    let reader = aws.vault();
    let (tables, keys) = (aws.dynamodb.count(), aws.kms.count());
    for _ in 0..10 {
        assert_eq!(
            reader
                .get(&alice)
                .await
                .unwrap()
                .unwrap()
                .grant
                .access_token,
            "a2"
        );
    }
    let (reads, unwraps) = (aws.dynamodb.count() - tables, aws.kms.count() - keys);
    println!("10 reads on a fresh instance: {reads} GetItem, {unwraps} KMS Decrypt");
    assert_eq!(reads, 10, "one GetItem per read");
    assert_eq!(
        unwraps, 1,
        "one Decrypt, then the unwrapped data key is cached"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_refresh_wins_across_two_instances_and_a_new_connection_beats_a_late_one() {
    let aws = Aws::start().await;
    let k = key("alice", "mail", &["mail.read"]);
    let (one, two) = (Arc::new(aws.vault()), Arc::new(aws.vault()));
    one.put(&k, &grant("old", Some(10)), 1).await.unwrap();
    let version = two.get(&k).await.unwrap().unwrap().version;

    let claims = [one.clone(), two.clone()].map(|v| {
        let k = k.clone();
        tokio::spawn(async move { v.claim_refresh(&k, version, 100, 130).await.unwrap() })
    });
    let mut won = Vec::new();
    for c in claims {
        won.push(c.await.unwrap());
    }
    assert_eq!(
        won.iter().filter(|w| **w).count(),
        1,
        "exactly one claim: {won:?}"
    );
    let (winner, loser) = if won[0] { (&one, &two) } else { (&two, &one) };
    let leased = loser.get(&k).await.unwrap().unwrap();
    assert_eq!(leased.refreshing_until, Some(130));
    assert!(
        winner
            .replace(&k, version, &grant("new", Some(3600)))
            .await
            .unwrap()
    );
    assert!(
        !loser
            .replace(&k, version, &grant("late", Some(3600)))
            .await
            .unwrap()
    );
    let now = loser.get(&k).await.unwrap().unwrap();
    assert_eq!(
        (now.grant.access_token.as_str(), now.version),
        ("new", version + 1)
    );
    assert_eq!(now.refreshing_until, None);

    // A refresh that claimed before the person connected again does not overwrite the new grant.
    assert!(one.claim_refresh(&k, now.version, 200, 230).await.unwrap());
    two.put(&k, &grant("reconnected", Some(9000)), 201)
        .await
        .unwrap();
    assert!(
        !one.replace(&k, now.version, &grant("stale", Some(9000)))
            .await
            .unwrap()
    );
    assert_eq!(
        one.get(&k).await.unwrap().unwrap().grant.access_token,
        "reconnected"
    );
    // A lease that ran out may be claimed again.
    let v = one.get(&k).await.unwrap().unwrap().version;
    assert!(one.claim_refresh(&k, v, 300, 330).await.unwrap());
    assert!(!two.claim_refresh(&k, v, 310, 340).await.unwrap());
    assert!(two.claim_refresh(&k, v, 331, 360).await.unwrap());

    // Versions never go back: a refresh claimed, then the person disconnects and connects
    // again before it ends; the late refresh neither restores nor overwrites anything.
    let b = key("bob", "mail", &["mail.read"]);
    one.put(&b, &grant("first", Some(10)), 400).await.unwrap();
    let first = one.get(&b).await.unwrap().unwrap().version;
    assert!(one.claim_refresh(&b, first, 401, 430).await.unwrap());
    assert!(two.remove(&b).await.unwrap(), "disconnected");
    assert!(!two.remove(&b).await.unwrap(), "nothing left to remove");
    assert_eq!(two.get(&b).await.unwrap(), None);
    assert!(
        !one.replace(&b, first, &grant("stale", Some(9000)))
            .await
            .unwrap(),
        "a disconnected account is not restored"
    );
    assert_eq!(one.get(&b).await.unwrap(), None);
    assert!(
        two.list(&Person::new(ISSUER, "bob").unwrap())
            .await
            .unwrap()
            .is_empty(),
        "a disconnected account is not listed"
    );
    two.put(&b, &grant("second", Some(9000)), 402)
        .await
        .unwrap();
    let second = two.get(&b).await.unwrap().unwrap().version;
    assert!(second > first, "{second} after {first}");
    assert!(
        !one.replace(&b, first, &grant("stale", Some(9000)))
            .await
            .unwrap()
    );
    assert_eq!(
        one.get(&b).await.unwrap().unwrap().grant.access_token,
        "second"
    );
}
