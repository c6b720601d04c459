//! Microsoft 365 as each person, end to end against the offline Graph twin (tests/src/graph/):
//! the shipped m365 catalog with Entra's endpoints pointed at one local oidc-provider, which is
//! both our authorization server and the one playing Entra (Graph's tokens are its JWTs for the
//! resource `<our resource>/graph`, the only audience the twin honours; the provider needs the
//! resource indicator to issue a JWT, which Entra takes from the scopes instead). Two people
//! connect through /connect in a simulated browser; each then reads only their own mail and
//! events (counted at the twin, ten calls each at once); times come back in the zone asked for
//! (`Prefer: outlook.timezone`); a list pages across `@odata.nextLink`; Graph's throttling
//! reaches the model as `rate_limited` with the twin's `Retry-After`; a mail goes out only once a
//! person confirms it (the Python SDK, one process), its preview naming the recipient and the
//! subject; every tool's example fits; and no token, address or subject reaches the output.

use std::collections::BTreeMap;
use std::time::Duration;

use integration_tests::graph::{Account, Mail, Twin};
use integration_tests::oidc::Op;
use integration_tests::{Rpc, free_port, interleaved_calls, repo};
use serde_json::json;

const SCOPES: &str = "offline_access User.Read Mail.Read Mail.ReadWrite Mail.Send Calendars.Read \
    Calendars.ReadWrite Calendars.Read.Shared Files.Read Contacts.Read";

/// The shipped catalog, with Entra's endpoints at `op` and its tokens for `graph`.
fn catalog(op: &Op, graph: &str) -> String {
    let shipped =
        std::fs::read_to_string(repo().join("shared/connector/catalogs/m365.yaml")).unwrap();
    let entra = "https://login.microsoftonline.com/{tenant}/oauth2/v2.0";
    let issuer = op.issuer();
    let replaced = shipped
        .replace(
            &format!("{entra}/authorize"),
            &format!("{issuer}/{{tenant}}"),
        )
        .replace(&format!("{entra}/token"), &format!("{issuer}/token"))
        .replace(
            "    scopes: [offline_access,",
            &format!("    resource: \"{graph}\"\n    scopes: [offline_access,"),
        );
    assert_eq!(replaced.matches(issuer).count(), 2, "both endpoints moved");
    assert!(replaced.contains(&format!("{issuer}/{{tenant}}")));
    assert!(replaced.contains("resource: "));
    replaced
}

fn mail(id: String, from: String, subject: String, important: bool) -> Mail {
    let text = format!("Hallo, hier ist {id}.");
    Mail {
        id,
        from,
        subject,
        text,
        read: false,
        important,
    }
}

fn mailbox(who: &str) -> Account {
    let mails = (1..=3)
        .map(|i| {
            let from = format!("friend-of-{who}@muster.example");
            mail(
                format!("{who}-m{i}"),
                from,
                format!("Subject {i} for {who}"),
                i == 1,
            )
        })
        .collect();
    // 07:00 UTC is 09:00 in Berlin in May.
    let events = vec![
        json!({"id": format!("{who}-e1"), "subject": format!("Standup of {who}"),
        "start": {"dateTime": "2026-05-04T07:00:00.0000000", "timeZone": "UTC"},
        "end": {"dateTime": "2026-05-04T07:15:00.0000000", "timeZone": "UTC"},
        "location": {"displayName": "Raum 1"}, "showAs": "busy", "attendees": []}),
    ];
    Account {
        mails,
        events,
        ..Account::default()
    }
}

/// The records the catalog's examples name (a mail, an event, a file, a contact).
fn examples() -> Account {
    let mut account = mailbox("erin");
    let id = "AAMkAGVmMDEzMTM4LTZmYWUtNDdkNC1hMDZiLTU1OGY5OTZhYmY4OABGAAAAAAAiQ8W967B7TKBjgx9rVEURBwAiIsqMbYjsT5e-T7KzowPTAAAAAAEMAAAiIsqMbYjsT5e-T7KzowPTAAAYbvZDAAA=";
    account.mails.push(mail(
        id.into(),
        "anna.berg@muster.example".into(),
        "Angebot".into(),
        false,
    ));
    account.events.push(json!({"id": "AAMkAGI2TG93AAA=", "subject": "Projektabstimmung",
        "start": {"dateTime": "2026-05-05T12:00:00.0000000", "timeZone": "UTC"},
        "end": {"dateTime": "2026-05-05T13:00:00.0000000", "timeZone": "UTC"},
        "attendees": [{"type": "required", "emailAddress": {"address": "anna.berg@muster.example"}}]}));
    account.files.push((
        "01BYE5RZ6QN3ZWBTUFOFD3GSPGOHDJD36K".into(),
        "Angebot 2026.pdf".into(),
        "application/pdf".into(),
        b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n".to_vec(),
    ));
    account
        .contacts
        .push(json!({"id": "c1", "displayName": "Anna Berg",
        "emailAddresses": [{"name": "Anna Berg", "address": "anna.berg@muster.example"}],
        "mobilePhone": "+49 170 0000000", "companyName": "Muster GmbH"}));
    account
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_people_read_only_their_own_outlook_mail_and_events() {
    let (port, resource, op) = crate::per_person::provider(SCOPES);
    let graph = format!("{resource}/graph");
    let accounts = BTreeMap::from([
        ("alice".to_string(), mailbox("alice")),
        ("bob".to_string(), mailbox("bob")),
        ("erin".to_string(), examples()),
    ]);
    let twin = Twin::new(op.issuer(), &graph, accounts);
    let api = twin.clone().serve(free_port()).await;
    // The tenant is a secret field filled into Entra's endpoints: here it names the provider's
    // authorization path, so connecting proves it was filled.
    let tenant = [("tenant", "auth")];
    let served =
        crate::per_person::serve(&op, port, "m365", (&catalog(&op, &graph), &api), &tenant).await;
    let server = &served.server;
    let alice = op.mint(json!({"claims": {"sub": "alice"}})).await;
    let bob = op.mint(json!({"claims": {"sub": "bob"}})).await;
    let erin = op.mint(json!({"claims": {"sub": "erin"}})).await;
    let call = |bearer: &str, tool: &'static str, args: serde_json::Value| {
        let rpc = Rpc::with_bearer(&server.url, bearer);
        async move { rpc.tool(tool, args).await }
    };

    // Each connects with their own link: signed in at ours, then at "Entra".
    let everyone = [("alice", alice.as_str()), ("bob", &bob), ("erin", &erin)];
    let (tool, landed) = ("m365_mail_inbox_list", "Microsoft 365 is connected");
    crate::per_person::connect(&server.url, &everyone, tool, json!({}), landed).await;
    assert_eq!(
        twin.gate.requests_of("alice") + twin.gate.requests_of("bob"),
        0
    );

    // Ten calls each at once: each sees their own inbox, counted at the twin.
    let people = [("alice", alice.as_str()), ("bob", bob.as_str())];
    for (who, answer) in interleaved_calls(&server.url, "m365_mail_inbox_list", &people, 20).await {
        assert_eq!(answer["status"], "ok", "{who}: {answer}");
        let items = answer["items"].as_array().unwrap();
        assert_eq!(items.len(), 3, "{answer}");
        assert!(
            items
                .iter()
                .all(|m| m["id"].as_str().unwrap().starts_with(who.as_str())),
            "{who}: {answer}"
        );
    }
    // The calendar in the person's zone: Graph writes 09:00 in Berlin for 07:00 UTC.
    let day = json!({"start": "2026-05-04T00:00[Europe/Berlin]",
        "end": "2026-05-05T00:00[Europe/Berlin]", "time_zone": "Europe/Berlin"});
    for (who, bearer) in people {
        let events = call(bearer, "m365_calendar_events_list", day.clone()).await;
        assert_eq!(events["status"], "ok", "{events}");
        assert_eq!(events["items"].as_array().unwrap().len(), 1, "{events}");
        assert_eq!(events["items"][0]["id"], format!("{who}-e1"), "{events}");
        let start = &events["items"][0]["start"];
        assert_eq!(start["timeZone"], "Europe/Berlin", "{events}");
        assert_eq!(start["dateTime"], "2026-05-04T09:00:00.0000000", "{events}");
    }
    assert_eq!(twin.gate.requests_of("alice"), 11);
    assert_eq!(twin.gate.requests_of("bob"), 11);

    // Graph's paging: two mails a page, `@odata.nextLink` brings the third.
    let first = call(&alice, "m365_mail_messages_search", json!({"page_size": 2})).await;
    assert_eq!(first["has_more"], true, "{first}");
    let rest = call(
        &alice,
        "m365_mail_messages_search",
        json!({"cursor": first["next_cursor"]}),
    )
    .await;
    assert_eq!(rest["items"].as_array().unwrap().len(), 1, "{rest}");
    assert_eq!(rest["items"][0]["id"], "alice-m3", "{rest}");
    assert_eq!(rest["has_more"], false, "{rest}");
    // Graph is asked for only the fields shown (`$select`), the next page too (its link).
    let selects = twin.selects();
    let last: Vec<&String> = selects.iter().rev().take(2).collect();
    assert_eq!(
        last, ["id,subject,from,receivedDateTime,isRead"; 2],
        "{selects:?}"
    );
    // Graph's error envelope and code: a mail of Bob's is no mail of Alice's.
    let foreign = call(&alice, "m365_mail_message_get", json!({"id": "bob-m1"})).await;
    assert_eq!(foreign["status"], "not_found", "{foreign}");
    assert!(
        foreign["upstream_message"]
            .as_str()
            .unwrap()
            .contains("ErrorItemNotFound"),
        "{foreign}"
    );
    // A mail reads as text (`Prefer: outlook.body-content-type="text"`).
    let read = call(&alice, "m365_mail_message_get", json!({"id": "alice-m2"})).await;
    assert_eq!(read["data"]["body"]["contentType"], "text", "{read}");

    // Throttled: Graph's 429 with Retry-After reaches the model as rate_limited, with the wait.
    twin.limit("alice", 0, Duration::from_secs(30));
    let throttled = call(&alice, "m365_mail_inbox_list", json!({})).await;
    assert_eq!(throttled["status"], "rate_limited", "{throttled}");
    let wait = throttled["retry_after_s"].as_u64().unwrap_or_default();
    assert!((1..=31).contains(&wait), "{throttled}");
    twin.limit("alice", 1000, Duration::from_secs(30));

    // A mail goes out only once a person confirms it (the Python SDK answering the form); its
    // preview names the recipient and the subject.
    let message = json!({"to": [{"address": "dora@muster.example"}],
        "subject": "Subject of the send", "body": "Hallo Dora, bis morgen."});
    let people = ("dora@muster.example", "Subject of the send");
    let unsent = || twin.sent_by("alice").is_empty();
    let send = ("m365_mail_send", &message);
    // Sending needs Mail.Send, which Alice's first connection did not ask for.
    crate::per_person::more_access(&server.url, ("alice", &alice), send.0, message.clone()).await;
    assert!(unsent());
    crate::per_person::confirmed_write(&server.url, &alice, send, people, unsent).await;
    let sent = twin.sent_by("alice");
    assert_eq!(sent.len(), 1);
    let to = &sent[0]["message"]["toRecipients"][0]["emailAddress"]["address"];
    assert_eq!(to, "dora@muster.example");
    assert_eq!(sent[0]["message"]["subject"], "Subject of the send");
    assert!(twin.sent_by("bob").is_empty());

    // A free hour with Bob: findMeetingTimes only reads (no confirmation) and skips his standup;
    // it needs Calendars.Read.Shared, asked for on first use.
    let find = json!({
        "attendees": [{"address": "bob@muster.example"}], "duration": "PT1H",
        "start": "2026-05-04T08:30[Europe/Berlin]", "end": "2026-05-04T12:00[Europe/Berlin]",
        "time_zone": "Europe/Berlin"});
    let tool = "m365_calendar_meeting_times_search";
    crate::per_person::more_access(&server.url, ("alice", &alice), tool, find).await;
    let free = call(
        &alice,
        "m365_calendar_meeting_times_search",
        json!({
        "attendees": [{"address": "bob@muster.example"}], "duration": "PT1H",
        "start": "2026-05-04T08:30[Europe/Berlin]", "end": "2026-05-04T12:00[Europe/Berlin]",
        "time_zone": "Europe/Berlin"}),
    )
    .await;
    assert_eq!(free["status"], "ok", "{free}");
    let first = &free["data"]["meetingTimeSuggestions"][0]["meetingTimeSlot"]["start"];
    assert_eq!(first["dateTime"], "2026-05-04T09:30:00.0000000", "{free}");

    // The day at a glance: Alice's events in her zone, her unread important mail.
    let glance = call(
        &alice,
        "m365_day_get",
        json!({"date": "2026-05-04", "time_zone": "Europe/Berlin"}),
    )
    .await;
    assert_eq!(glance["data"]["events_count"], 1, "{glance}");
    assert_eq!(glance["data"]["unread_important"], 1, "{glance}");
    assert_eq!(
        glance["data"]["unread_newest"][0]["subject"], "Subject 1 for alice",
        "{glance}"
    );

    // Bob disconnects (Entra has no revocation endpoint: his tokens are forgotten here); his
    // next call asks him to connect again without reaching the twin.
    let gone = call(
        &bob,
        "connections",
        json!({"action": "disconnect", "connector": "m365"}),
    )
    .await;
    assert_eq!(gone["disconnected"], true, "{gone}");
    let bobs = twin.gate.requests_of("bob");
    let after = call(&bob, "m365_mail_inbox_list", json!({})).await;
    assert_eq!(after["status"], "connection_required", "{after}");
    assert_eq!(
        twin.gate.requests_of("bob"),
        bobs,
        "nothing reached Graph for Bob"
    );

    // Every tool's example, as Erin (whose account holds the examples' records).
    crate::per_person::every_example_fits(&server.url, ("erin", &erin), "m365").await;
    // A cancellation Outlook mails to the attendees names them in its preview: the event is read
    // first (`current`), its attendees are the people told.
    let cancel = json!({"id": "AAMkAGI2TG93AAA=", "dry_run": true});
    let preview = call(&erin, "m365_calendar_event_cancel", cancel).await;
    let told = &preview["preview"]["notifies"];
    assert_eq!(told, &json!(["anna.berg@muster.example"]), "{preview}");
    let asked = call(
        &erin,
        "m365_calendar_event_cancel",
        json!({"id": "AAMkAGI2TG93AAA="}),
    )
    .await;
    assert_eq!(asked["status"], "confirmation_required", "{asked}");

    // Neither tokens nor addresses nor subjects in what the server printed.
    let mut secrets = vec![alice.clone(), bob.clone(), erin.clone()];
    for who in ["alice", "bob"] {
        secrets.push(format!("friend-of-{who}@muster.example"));
        secrets.push(format!("Subject 1 for {who}"));
        secrets.push(format!("Standup of {who}"));
    }
    secrets.extend(["dora@muster.example", "Subject of the send", "Hallo Dora"].map(String::from));
    crate::per_person::nothing_printed(server, &secrets, &twin.gate.tokens(), &resource);
}
