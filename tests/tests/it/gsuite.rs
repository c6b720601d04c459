//! Google Workspace as each person, end to end against the offline twin (tests/src/google/):
//! the shipped gsuite catalog with its endpoints pointed at one local oidc-provider, which is
//! both our authorization server and the one playing Google (Google's tokens are its JWTs for
//! the resource `<our resource>/google`, the only audience the twin honours). Two people connect
//! through /connect in a simulated browser; each then reads only their own mail and events
//! (counted at the twin, ten calls each at once: the fifty belong to a benchmark); a
//! meeting invitation needs a person's confirmation and its preview names the attendee and the
//! title; an access token the twin stops honouring is refreshed through the vault with the
//! provider's refresh token; a person who disconnects is asked again on the next call, their
//! grant revoked; and no token, address or subject reaches the server's output. Drive,
//! contacts, attachments, a free hour, throttling and a week-old refresh token are steps of the
//! same setup, in `gsuite/drive.rs`.

use std::collections::BTreeMap;

use integration_tests::google::{Account, Twin};
use integration_tests::look::{assert_clear, look_at};
use integration_tests::oidc::Op;
use integration_tests::person::claims;
use integration_tests::{Rpc, free_port, interleaved_calls, repo};
use serde_json::json;

use crate::connect::Browser;

mod drive;

pub(crate) const SCOPES: &str = "https://www.googleapis.com/auth/gmail.readonly \
    https://www.googleapis.com/auth/gmail.modify \
    https://www.googleapis.com/auth/gmail.compose \
    https://www.googleapis.com/auth/gmail.send \
    https://www.googleapis.com/auth/calendar.events.readonly \
    https://www.googleapis.com/auth/calendar.events \
    https://www.googleapis.com/auth/calendar.calendarlist.readonly \
    https://www.googleapis.com/auth/calendar.freebusy \
    https://www.googleapis.com/auth/drive.readonly \
    https://www.googleapis.com/auth/contacts.readonly";

/// The shipped catalog, with Google's endpoints at `op`, its tokens for `google`, and People's
/// own host at the twin `api`.
pub(crate) fn catalog(op: &Op, google: &str, api: &str) -> String {
    let shipped =
        std::fs::read_to_string(repo().join("shared/connector/catalogs/gsuite.yaml")).unwrap();
    let issuer = op.issuer();
    let replaced = shipped
        .replace(
            "https://accounts.google.com/o/oauth2/v2/auth?access_type=offline&prompt=consent",
            &format!("{issuer}/auth?prompt=consent"),
        )
        .replace(
            "https://oauth2.googleapis.com/token",
            &format!("{issuer}/token"),
        )
        .replace(
            "https://oauth2.googleapis.com/revoke",
            &format!("{issuer}/token/revocation"),
        )
        .replace("https://people.googleapis.com", api)
        // oidc-provider hands out a refresh token for `offline_access` (Google: access_type).
        .replace(
            "      - \"https://www.googleapis.com/auth/calendar.freebusy\"\n",
            &format!(
                "      - \"https://www.googleapis.com/auth/calendar.freebusy\"\n      - offline_access\n    resource: \"{google}\"\n"
            ),
        );
    assert_ne!(replaced, shipped);
    assert!(replaced.contains("offline_access"));
    replaced
}

pub(crate) fn mailbox(who: &str) -> Account {
    let mails = (1..=3)
        .map(|i| {
            (
                format!("{who}-m{i}"),
                format!("friend-of-{who}@muster.example"),
                format!("Subject {i} for {who}"),
                format!("Hallo {who}, Nachricht {i}."),
            )
        })
        .collect();
    let events = vec![json!({"id": format!("{who}-e1"), "status": "confirmed",
        "summary": format!("Standup of {who}"),
        "start": {"dateTime": "2026-05-04T09:00:00+02:00", "timeZone": "Europe/Berlin"},
        "end": {"dateTime": "2026-05-04T09:15:00+02:00", "timeZone": "Europe/Berlin"}})];
    let mut account = Account {
        mails,
        events,
        ..Account::default()
    };
    drive::add_to(&mut account, who);
    account
}

/// The records the catalog's examples name (a mail, a conversation, an event).
fn examples() -> Account {
    let mut account = mailbox("erin");
    account.mails.push((
        "18f2c9a1b7e4d3c2".into(),
        "anna.berg@muster.example".into(),
        "Angebot".into(),
        "Hallo Erin, anbei das Angebot.".into(),
    ));
    account
        .events
        .push(json!({"id": "7c0ffee1abc", "status": "confirmed",
        "summary": "Projektabstimmung", "attendees": [{"email": "anna.berg@muster.example"}],
        "start": {"dateTime": "2026-05-05T14:00:00+02:00", "timeZone": "Europe/Berlin"},
        "end": {"dateTime": "2026-05-05T15:00:00+02:00", "timeZone": "Europe/Berlin"}}));
    account.files.push((
        json!({"id": "1AbCdEfGhIjKlMnOpQrStUvWxYz012345", "name": "Angebot Muster GmbH",
            "mimeType": "application/vnd.google-apps.document",
            "modifiedTime": "2026-05-03T08:00:00.000Z"}),
        "Angebot für die Muster GmbH.".into(),
    ));
    account.attachments.push((
        "18f2c9a1b7e4d3c2".into(),
        "ANGjdJ8angebot".into(),
        b"%PDF-1.4\n%%EOF\n".to_vec(),
    ));
    account
}

/// Connects `bearer`'s person (Erin), then calls each gsuite tool with its description's
/// example, and reads the day at a glance.
async fn every_example_fits(url: &str, bearer: &str) {
    let link = Rpc::with_bearer(url, bearer)
        .tool("gsuite_mail_profile_get", json!({}))
        .await["connect_url"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(Browser::new().open(&link, "erin", None).await.status, 200);
    crate::per_person::every_example_fits(url, ("erin", bearer), "gsuite").await;
    // The day at a glance read both sources (the twin ignores Gmail's search words).
    let day = Rpc::with_bearer(url, bearer)
        .tool(
            "gsuite_day_get",
            json!({"date": "2026-05-04", "time_zone": "Europe/Berlin"}),
        )
        .await;
    assert_eq!(day["data"]["events_count"], 1, "{day}");
    assert_eq!(day["data"]["events"][0]["summary"], "Standup of erin");
    assert_eq!(day["data"]["unread_important"], 4, "{day}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_people_read_only_their_own_google_mail_and_events() {
    // Google's refresh tokens of an app in testing mode live 7 days.
    let (port, resource, op) =
        crate::per_person::provider_with(SCOPES, &["--refresh-ttl", "604800"]);
    let google = format!("{resource}/google");
    let accounts = BTreeMap::from([
        ("alice".to_string(), mailbox("alice")),
        ("bob".to_string(), mailbox("bob")),
        ("erin".to_string(), examples()),
    ]);
    let twin = Twin::new(op.issuer(), &google, accounts);
    let api = twin.clone().serve(free_port()).await;
    let served = crate::per_person::serve(
        &op,
        port,
        "gsuite",
        (&catalog(&op, &google, &api), &api),
        &[],
    )
    .await;
    let server = &served.server;
    let alice = op.mint(json!({"claims": {"sub": "alice"}})).await;
    let bob = op.mint(json!({"claims": {"sub": "bob"}})).await;
    let inbox = json!({"query": "in:inbox"});

    // Each connects with their own link: signed in at ours, then at "Google".
    let people = [("alice", alice.as_str()), ("bob", bob.as_str())];
    let (tool, landed) = (
        "gsuite_mail_threads_search",
        "Google Workspace is connected",
    );
    let connected =
        crate::per_person::connect(&server.url, &people, tool, inbox.clone(), landed).await;
    assert_eq!(
        twin.gate.requests_of("alice") + twin.gate.requests_of("bob"),
        0
    );
    // What a person sees, as Chromium shows it (target/look/gsuite/, the README's pictures):
    // the page the connection lands on, and their own connections page with its button.
    let mine = Browser::new()
        .open(&server.url.replace("/mcp", "/connections"), "bob", None)
        .await;
    assert!(
        mine.body
            .contains("<strong>Google Workspace</strong>: connected"),
        "{}",
        mine.body
    );
    let look = repo().join("target/look/gsuite");
    let seen = look_at(
        &look,
        &[("connected", &connected), ("connections", &mine.body)],
    );
    assert_clear(&seen);

    // Ten calls each at once, mail and calendar: each sees their own, counted at the twin.
    let people = [("alice", alice.as_str()), ("bob", bob.as_str())];
    for (who, answer) in
        interleaved_calls(&server.url, "gsuite_mail_threads_search", &people, 20).await
    {
        assert_eq!(answer["status"], "ok", "{who}: {answer}");
        let items = answer["items"].as_array().unwrap();
        assert_eq!(items.len(), 3, "{answer}");
        assert!(
            items
                .iter()
                .all(|t| t["id"].as_str().unwrap().starts_with(&who)),
            "{who}: {answer}"
        );
    }
    let period = json!({"calendar_id": "primary", "time_min": "2026-05-04T00:00[Europe/Berlin]",
        "time_max": "2026-05-05T00:00[Europe/Berlin]", "time_zone": "Europe/Berlin"});
    for (who, bearer) in people {
        let events = Rpc::with_bearer(&server.url, bearer)
            .tool("gsuite_calendar_events_list", period.clone())
            .await;
        assert_eq!(events["status"], "ok", "{events}");
        assert_eq!(events["items"][0]["id"], format!("{who}-e1"), "{events}");
        assert_eq!(events["items"][0]["start"]["timeZone"], "Europe/Berlin");
    }
    assert_eq!(twin.gate.requests_of("alice"), 11);
    assert_eq!(twin.gate.requests_of("bob"), 11);

    // A free hour with Bob: free/busy is a POST that only reads (no confirmation), and shows
    // his busy time without its title.
    let busy = Rpc::with_bearer(&server.url, &alice)
        .tool(
            "gsuite_calendar_freebusy_get",
            json!({"time_min": "2026-05-04T08:00[Europe/Berlin]",
                "time_max": "2026-05-04T18:00[Europe/Berlin]", "time_zone": "Europe/Berlin",
                "calendars": [{"id": "primary"}, {"id": "bob@muster.example"}]}),
        )
        .await;
    assert_eq!(busy["status"], "ok", "{busy}");
    let bobs = &busy["data"]["calendars"]["bob@muster.example"]["busy"][0];
    assert_eq!(bobs["start"], "2026-05-04T09:00:00+02:00", "{busy}");
    assert!(!busy.to_string().contains("Standup"), "{busy}");

    // Google's paging: two threads a page, the cursor brings the third.
    let first = Rpc::with_bearer(&server.url, &alice)
        .tool(
            "gsuite_mail_threads_search",
            json!({"query": "in:inbox", "page_size": 2}),
        )
        .await;
    assert_eq!(first["has_more"], true, "{first}");
    let rest = Rpc::with_bearer(&server.url, &alice)
        .tool(
            "gsuite_mail_threads_search",
            json!({"cursor": first["next_cursor"]}),
        )
        .await;
    assert_eq!(rest["items"][0]["id"], "alice-m3", "{rest}");
    // A mail reads as text: Gmail's base64url body decoded by the catalog's `answer.parts`.
    let mail = Rpc::with_bearer(&server.url, &alice)
        .tool("gsuite_mail_message_get", json!({"id": "alice-m1"}))
        .await;
    assert_eq!(mail["status"], "ok", "{mail}");
    assert_eq!(
        mail["data"]["payload"]["body"]["data"],
        "Hallo alice, Nachricht 1."
    );
    assert_eq!(
        mail["data"]["payload"]["headers"][1]["value"],
        "Subject 1 for alice"
    );
    // Google's error envelope: a mail of Bob's is no mail of Alice's.
    let foreign = Rpc::with_bearer(&server.url, &alice)
        .tool("gsuite_mail_message_get", json!({"id": "bob-m1"}))
        .await;
    assert_eq!(foreign["status"], "not_found", "{foreign}");
    assert_eq!(
        foreign["upstream_message"],
        "Requested entity was not found. (code notFound)"
    );

    // An invitation reaches other people: a person confirms it, and its preview names them.
    let meeting = json!({"calendar_id": "primary", "summary": "Subject of the meeting",
        "start": "2026-05-05T14:00[Europe/Berlin]", "end": "2026-05-05T15:00[Europe/Berlin]",
        "time_zone": "Europe/Berlin", "attendees": [{"email": "carol@muster.example"}]});
    // Writing events needs calendar.events, asked for on first use.
    let tool = "gsuite_calendar_meeting_create";
    crate::per_person::more_access(&server.url, ("alice", &alice), tool, meeting.clone()).await;
    let asked = Rpc::with_bearer(&server.url, &alice)
        .tool(tool, meeting.clone())
        .await;
    assert_eq!(asked["status"], "confirmation_required", "{asked}");
    let mut dry = meeting.clone();
    dry["dry_run"] = json!(true);
    let preview = Rpc::with_bearer(&server.url, &alice)
        .tool("gsuite_calendar_meeting_create", dry)
        .await;
    let shown = preview.to_string();
    assert!(shown.contains("carol@muster.example"), "{preview}");
    assert!(shown.contains("Subject of the meeting"), "{preview}");
    assert_eq!(twin.events_of("alice").len(), 1, "nothing was created");

    // A mail goes out only once a person confirms it (the Python SDK answering the form), and
    // its preview names the recipient and the subject; Gmail gets the composed message.
    let mail = json!({"to": ["dora@muster.example"], "subject": "Subject of the send",
        "body": "Hallo Dora, bis morgen."});
    let people = ("dora@muster.example", "Subject of the send");
    let unsent = || twin.sent_by("alice").is_empty();
    let send = ("gsuite_mail_send", &mail);
    // Sending needs gmail.send, which Alice's first connection (reading) did not ask for; the
    // twin refuses a send without it (403 insufficientPermissions).
    crate::per_person::more_access(&server.url, ("alice", &alice), send.0, mail.clone()).await;
    assert!(unsent());
    crate::per_person::confirmed_write(&server.url, &alice, send, people, unsent).await;
    let sent = twin.sent_by("alice");
    assert_eq!(sent.len(), 1);
    assert!(
        sent[0].contains("\r\nTo: dora@muster.example\r\n"),
        "{}",
        sent[0]
    );
    assert!(
        sent[0].contains("\r\nSubject: Subject of the send\r\n"),
        "{}",
        sent[0]
    );
    assert!(twin.sent_by("bob").is_empty());

    // Alice's access token stops working (expired at Google): the vault's refresh token gets
    // a new one from the provider, and the call goes through with it.
    let used = twin.gate.tokens();
    let alices = used
        .iter()
        .rev()
        .find(|t| claims(t)["sub"] == "alice")
        .unwrap()
        .clone();
    twin.gate.refuse(&alices);
    let before = op.requests_to("/token").await;
    let again = Rpc::with_bearer(&server.url, &alice)
        .tool("gsuite_mail_threads_search", inbox.clone())
        .await;
    assert_eq!(again["status"], "ok", "{again}");
    assert_eq!(op.requests_to("/token").await, before + 1, "one refresh");
    let newest = twin.gate.tokens().last().unwrap().clone();
    assert_ne!(newest, alices);
    assert_eq!(claims(&newest)["sub"], "alice");

    // Bob disconnects: his grant is revoked at "Google", and his next call asks him to connect
    // again without reaching the twin; Alice's calls are untouched.
    let revocations = op.requests_to("/token/revocation").await;
    let gone = Rpc::with_bearer(&server.url, &bob)
        .tool(
            "connections",
            json!({"action": "disconnect", "connector": "gsuite"}),
        )
        .await;
    assert_eq!(gone["disconnected"], true, "{gone}");
    assert_eq!(op.requests_to("/token/revocation").await, revocations + 1);
    let bobs = twin.gate.requests_of("bob");
    let after = Rpc::with_bearer(&server.url, &bob)
        .tool("gsuite_mail_threads_search", inbox.clone())
        .await;
    assert_eq!(after["status"], "connection_required", "{after}");
    assert_eq!(
        twin.gate.requests_of("bob"),
        bobs,
        "nothing reached Google for Bob"
    );
    assert_eq!(
        Rpc::with_bearer(&server.url, &alice)
            .tool("gsuite_mail_threads_search", inbox.clone())
            .await["status"],
        "ok"
    );

    // Every tool's example, as Erin (whose account holds the examples' records), within the
    // result budget the budget test holds the other connectors to (a write as its dry run).
    let erin = op.mint(json!({"claims": {"sub": "erin"}})).await;
    every_example_fits(&server.url, &erin).await;
    drive::steps(&server.url, &alice, &op, &twin).await;

    // Neither tokens nor addresses nor subjects in what the server printed.
    let mut secrets = vec![alice.clone(), bob.clone()];
    for who in ["alice", "bob"] {
        secrets.push(format!("friend-of-{who}@muster.example"));
        secrets.push(format!("Subject 1 for {who}"));
        secrets.push(format!("Standup of {who}"));
    }
    secrets.extend(
        [
            "carol@muster.example",
            "Subject of the meeting",
            "dora@muster.example",
            "Subject of the send",
            "Hallo Dora",
        ]
        .map(String::from),
    );
    crate::per_person::nothing_printed(server, &secrets, &twin.gate.tokens(), &resource);
}
