//! Items scattered in one answer (Google's free/busy: `/calendars/*/busy/*`, one busy stretch
//! per calendar and time): every value a JSON pointer with `*` names, `*` standing for every
//! element of an array and every member of an object, in document order. Pure.

use serde_json::Value;

/// Every value `pattern` names in `body`, cloned; none when nothing matches.
pub fn gather(body: &Value, pattern: &str) -> Vec<Value> {
    let mut out = Vec::new();
    walk(body, pattern, &mut out);
    out
}

fn walk(v: &Value, pointer: &str, out: &mut Vec<Value>) {
    let Some(rest) = pointer.strip_prefix('/') else {
        out.push(v.clone());
        return;
    };
    let (step, tail) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    match (step, v) {
        ("*", Value::Array(items)) => items.iter().for_each(|i| walk(i, tail, out)),
        ("*", Value::Object(fields)) => fields.values().for_each(|i| walk(i, tail, out)),
        (key, Value::Object(fields)) => {
            let key = key.replace("~1", "/").replace("~0", "~");
            if let Some(next) = fields.get(&key) {
                walk(next, tail, out);
            }
        }
        (index, Value::Array(items)) => {
            if let Some(next) = index.parse::<usize>().ok().and_then(|i| items.get(i)) {
                walk(next, tail, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_star_spans_the_members_of_objects_and_the_elements_of_arrays() {
        let body = json!({"calendars": {
            "primary": {"busy": [{"start": "a"}, {"start": "b"}]},
            "anna@x": {"busy": [{"start": "c"}], "errors": [{"reason": "notFound"}]},
            "bob@x": {}}});
        let starts: Vec<Value> = gather(&body, "/calendars/*/busy/*/start");
        assert_eq!(starts, vec![json!("c"), json!("a"), json!("b")]);
        assert_eq!(
            gather(&body, "/calendars/anna@x/errors/0/reason"),
            vec![json!("notFound")]
        );
        assert!(gather(&body, "/nothing/*").is_empty());
        assert_eq!(gather(&json!([1, 2]), ""), vec![json!([1, 2])]);
    }
}
