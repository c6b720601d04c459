//! Tasks on Lambda: one DynamoDB item per task in the ledger's table (key `task:<id>`, beside
//! the ledger's claims, with the same `expires_at` for DynamoDB's TTL). Creating is one
//! conditional `PutItem`, reading one strongly consistent `GetItem` (so a task answered at
//! creation is found by the next request on any instance), and every change one conditional
//! `UpdateItem` that holds only while the task still works (and, for a poll, while the claim
//! it was made under still holds).

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::Value;

use super::{Task, TaskStatus, Unavailable};

/// The table's partition key and TTL attribute: the ledger's table, as infra creates it.
const KEY: &str = "pk";
const EXPIRES: &str = "expires_at";
/// The most one request of the table may take.
const TIMEOUT: std::time::Duration = std::time::Duration::from_millis(1500);

const OWNER: &str = "owner";
const CONNECTOR: &str = "connector";
const TOOL: &str = "tool";
const JOB: &str = "job_id";
const STATUS: &str = "status";
const STATE: &str = "state";
const CREATED: &str = "created_ms";
const UPDATED: &str = "updated_ms";
const TTL: &str = "ttl_ms";
const EVERY: &str = "poll_every_ms";
const NEXT: &str = "next_poll_ms";
const END: &str = "end";
const ASKED: &str = "asked";
/// The conditions of a write to a task that is not finished: it works or waits for input.
const UNFINISHED: &str = "#status IN (:working, :input)";

pub struct TableTasks {
    client: Client,
    name: String,
}

fn key(id: &str) -> AttributeValue {
    AttributeValue::S(format!("task:{id}"))
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

fn n(v: u64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// A request's outcome: done, refused by its condition, or no answer.
async fn sent<T, E>(
    request: impl std::future::Future<Output = Result<T, SdkError<E>>>,
    refused: impl Fn(&E) -> bool,
) -> Result<bool, Unavailable>
where
    E: std::error::Error + Send + Sync + 'static,
{
    match tokio::time::timeout(TIMEOUT, request).await {
        Err(_) => Err(Unavailable(format!(
            "no answer within {} ms",
            TIMEOUT.as_millis()
        ))),
        Ok(Ok(_)) => Ok(true),
        Ok(Err(e)) if e.as_service_error().is_some_and(&refused) => Ok(false),
        Ok(Err(e)) => Err(Unavailable(
            aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string(),
        )),
    }
}

impl TableTasks {
    pub fn new(client: Client, name: impl Into<String>) -> Self {
        TableTasks {
            client,
            name: name.into(),
        }
    }

    pub async fn create(&self, task: &Task) -> Result<(), Unavailable> {
        let request = self
            .client
            .put_item()
            .table_name(&self.name)
            .set_item(Some(item(task)))
            .condition_expression("attribute_not_exists(#pk)")
            .expression_attribute_names("#pk", KEY)
            .send();
        match sent(request, |e| e.is_conditional_check_failed_exception()).await? {
            true => Ok(()),
            false => Err(Unavailable("the task id is taken".into())),
        }
    }

    pub async fn get(&self, id: &str) -> Result<Option<Task>, Unavailable> {
        let request = self
            .client
            .get_item()
            .table_name(&self.name)
            .key(KEY, key(id))
            .consistent_read(true)
            .send();
        match tokio::time::timeout(TIMEOUT, request).await {
            Err(_) => Err(Unavailable(format!(
                "no answer within {} ms",
                TIMEOUT.as_millis()
            ))),
            Ok(Err(e)) => Err(Unavailable(
                aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string(),
            )),
            Ok(Ok(out)) => Ok(out.item.as_ref().and_then(|i| task(id, i))),
        }
    }

    pub async fn claim_poll(&self, task: &Task, next_poll_ms: u64) -> Result<bool, Unavailable> {
        let request = self
            .client
            .update_item()
            .table_name(&self.name)
            .key(KEY, key(&task.id))
            .update_expression("SET #next = :next")
            .condition_expression(format!("{UNFINISHED} AND #next = :seen"))
            .expression_attribute_names("#next", NEXT)
            .expression_attribute_names("#status", STATUS)
            .expression_attribute_values(":next", n(next_poll_ms))
            .expression_attribute_values(":seen", n(task.next_poll_ms))
            .unfinished()
            .send();
        sent(request, |e| e.is_conditional_check_failed_exception()).await
    }

    pub async fn record(&self, found: &Task, claimed_next_ms: u64) -> Result<bool, Unavailable> {
        let set = "SET #status = :status, #state = :state, #updated = :updated, #next = :next";
        let mut request = self
            .client
            .update_item()
            .table_name(&self.name)
            .key(KEY, key(&found.id))
            .condition_expression(format!("{UNFINISHED} AND #next = :claimed"))
            .expression_attribute_names("#status", STATUS)
            .expression_attribute_names("#state", STATE)
            .expression_attribute_names("#updated", UPDATED)
            .expression_attribute_names("#next", NEXT)
            .expression_attribute_values(":status", s(found.status.as_str()))
            .expression_attribute_values(":state", s(&found.state))
            .expression_attribute_values(":updated", n(found.updated_ms))
            .expression_attribute_values(":next", n(found.next_poll_ms))
            .expression_attribute_values(":claimed", n(claimed_next_ms))
            .expression_attribute_names("#asked", ASKED)
            .unfinished();
        let mut set = set.to_string();
        if let Some(end) = &found.end {
            set.push_str(", #end = :end");
            request = request
                .expression_attribute_names("#end", END)
                .expression_attribute_values(":end", s(&end.to_string()));
        }
        request = match &found.asked {
            Some(asked) => request
                .update_expression(format!("{set}, #asked = :asked"))
                .expression_attribute_values(":asked", s(&asked.to_string())),
            None => request.update_expression(format!("{set} REMOVE #asked")),
        };
        sent(request.send(), |e| {
            e.is_conditional_check_failed_exception()
        })
        .await
    }

    pub async fn cancel(&self, cancelled: &Task) -> Result<bool, Unavailable> {
        let request = self
            .client
            .update_item()
            .table_name(&self.name)
            .key(KEY, key(&cancelled.id))
            .update_expression("SET #status = :cancelled, #updated = :updated")
            .condition_expression(UNFINISHED)
            .expression_attribute_names("#status", STATUS)
            .expression_attribute_names("#updated", UPDATED)
            .expression_attribute_values(":cancelled", s(TaskStatus::Cancelled.as_str()))
            .expression_attribute_values(":updated", n(cancelled.updated_ms))
            .unfinished()
            .send();
        sent(request, |e| e.is_conditional_check_failed_exception()).await
    }
}

/// A task as its item; `expires_at` in epoch seconds, rounded up, for DynamoDB's TTL.
fn item(t: &Task) -> HashMap<String, AttributeValue> {
    let mut item = HashMap::from([
        (KEY.to_string(), key(&t.id)),
        (OWNER.into(), s(&t.owner)),
        (CONNECTOR.into(), s(&t.connector)),
        (TOOL.into(), s(&t.tool)),
        (JOB.into(), s(&t.job_id)),
        (STATUS.into(), s(t.status.as_str())),
        (STATE.into(), s(&t.state)),
        (CREATED.into(), n(t.created_ms)),
        (UPDATED.into(), n(t.updated_ms)),
        (TTL.into(), n(t.ttl_ms)),
        (EVERY.into(), n(t.poll_every_ms)),
        (NEXT.into(), n(t.next_poll_ms)),
        (EXPIRES.into(), n(t.expires_ms().div_ceil(1000))),
    ]);
    if let Some(end) = &t.end {
        item.insert(END.into(), s(&end.to_string()));
    }
    if let Some(asked) = &t.asked {
        item.insert(ASKED.into(), s(&asked.to_string()));
    }
    item
}

/// The values [`UNFINISHED`] names.
trait Unfinished {
    fn unfinished(self) -> Self;
}

impl Unfinished for aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder {
    fn unfinished(self) -> Self {
        self.expression_attribute_values(":working", s(TaskStatus::Working.as_str()))
            .expression_attribute_values(":input", s(TaskStatus::InputRequired.as_str()))
    }
}

/// The task an item holds; an item missing a field is no task of ours.
fn task(id: &str, item: &HashMap<String, AttributeValue>) -> Option<Task> {
    let text = |name: &str| item.get(name)?.as_s().ok().cloned();
    let number = |name: &str| item.get(name)?.as_n().ok()?.parse::<u64>().ok();
    Some(Task {
        id: id.to_string(),
        owner: text(OWNER)?,
        connector: text(CONNECTOR)?,
        tool: text(TOOL)?,
        job_id: text(JOB)?,
        status: TaskStatus::parse(&text(STATUS)?)?,
        state: text(STATE)?,
        created_ms: number(CREATED)?,
        updated_ms: number(UPDATED)?,
        ttl_ms: number(TTL)?,
        poll_every_ms: number(EVERY)?,
        next_poll_ms: number(NEXT)?,
        end: match text(END) {
            Some(end) => Some(serde_json::from_str::<Value>(&end).ok()?),
            None => None,
        },
        asked: match text(ASKED) {
            Some(asked) => Some(serde_json::from_str::<Value>(&asked).ok()?),
            None => None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_reads_back_from_its_item() {
        let mut t = crate::tasks::tests::working("abc", "k|u|*", 1_500);
        assert_eq!(task("abc", &item(&t)), Some(t.clone()));
        t.end = Some(serde_json::json!({"output": ["https://x/1.png"]}));
        t.status = TaskStatus::Completed;
        let it = item(&t);
        assert_eq!(task("abc", &it), Some(t.clone()));
        let waiting = Task {
            status: TaskStatus::InputRequired,
            asked: Some(serde_json::json!({"confirm": "Delete a.txt?"})),
            ..crate::tasks::tests::working("abc", "k|u|*", 1_500)
        };
        assert_eq!(task("abc", &item(&waiting)), Some(waiting));
        assert_eq!(it[EXPIRES], n(3_602), "seconds, rounded up");
        let mut partial = it.clone();
        partial.remove(OWNER);
        assert_eq!(task("abc", &partial), None);
    }
}
