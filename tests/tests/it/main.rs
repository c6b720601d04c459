//! One test binary for this crate: each module below was a binary of its own.

mod aggregations;
mod budget;
mod clients;
mod digest_lambda;
mod disclosure;
mod fault_run;
mod federation;
mod fuzz;
mod health;
mod ledger_lambda;
mod limits;
mod logs_endpoint;
mod oauth;
mod oidc_harness;
mod papierkram;
mod prism;
mod progress;
mod prompts;
mod quota_lambda;
mod quota_sandbox;
mod resources;
mod robustness;
mod secrets;
mod server;
mod smoke;
mod writes;
