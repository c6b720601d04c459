//! Which service a client calls, and where: the endpoint as the SDKs resolve it for the
//! standard partition (`AWS_ENDPOINT_URL_<SERVICE>`, then `AWS_ENDPOINT_URL`, then
//! `https://<prefix>.<region>.amazonaws.com`). Pure: the environment is passed in.

/// One AWS service as a client needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Service {
    /// The name SigV4 signs for.
    pub signing_name: &'static str,
    /// The first label of the regional endpoint's host.
    pub endpoint_prefix: &'static str,
    /// The variable naming this service's endpoint, as the SDKs read it.
    pub endpoint_env: &'static str,
}

/// CloudWatch Logs (Logs Insights queries, log groups).
pub const CLOUDWATCH_LOGS: Service = Service {
    signing_name: "logs",
    endpoint_prefix: "logs",
    endpoint_env: "AWS_ENDPOINT_URL_CLOUDWATCH_LOGS",
};

/// SES v2 (e-mail).
pub const SESV2: Service = Service {
    signing_name: "ses",
    endpoint_prefix: "email",
    endpoint_env: "AWS_ENDPOINT_URL_SESV2",
};

/// The endpoint of `service` in `region`: the service's variable, else the global one
/// (`global`, what `aws-config` read as `AWS_ENDPOINT_URL`), else the regional endpoint. A
/// trailing `/` is dropped, so paths join with one.
pub fn endpoint(
    service: Service,
    region: &str,
    global: Option<&str>,
    env: impl Fn(&str) -> Option<String>,
) -> String {
    let chosen = env(service.endpoint_env)
        .filter(|v| !v.trim().is_empty())
        .or_else(|| global.map(str::to_string))
        .unwrap_or_else(|| format!("https://{}.{region}.amazonaws.com", service.endpoint_prefix));
    chosen.trim_end_matches('/').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_services_variable_wins_then_the_global_one_then_the_region() {
        let none = |_: &str| None;
        assert_eq!(
            endpoint(SESV2, "eu-central-1", None, none),
            "https://email.eu-central-1.amazonaws.com"
        );
        assert_eq!(
            endpoint(
                CLOUDWATCH_LOGS,
                "us-west-2",
                Some("http://127.0.0.1:5000/"),
                none
            ),
            "http://127.0.0.1:5000"
        );
        let logs_only = |k: &str| {
            (k == "AWS_ENDPOINT_URL_CLOUDWATCH_LOGS").then(|| "http://127.0.0.1:7000".to_string())
        };
        assert_eq!(
            endpoint(CLOUDWATCH_LOGS, "us-west-2", Some("http://moto"), logs_only),
            "http://127.0.0.1:7000"
        );
        assert_eq!(
            endpoint(SESV2, "us-west-2", Some("http://moto"), logs_only),
            "http://moto"
        );
        let blank = |_: &str| Some(" ".to_string());
        assert_eq!(
            endpoint(SESV2, "eu-west-1", None, blank),
            "https://email.eu-west-1.amazonaws.com"
        );
    }
}
