//! The scheduled functions' AWS calls: signed JSON requests to the two services they use beyond
//! what mcp-server links, CloudWatch Logs (Logs Insights, `awsJson1.1`) and SES v2 (`SendEmail`,
//! REST-JSON).
//!
//! Why not the generated SDK crates: the functions call five operations, and
//! `aws-sdk-cloudwatchlogs` and `aws-sdk-sesv2` compile every operation of both services, about
//! a tenth of the workspace's whole build. What the SDK would add is kept from the well-kept
//! crates it is made of: credentials and region from `aws-config` (the same chain, cached here
//! until shortly before they expire), SigV4 from `aws-sigv4`, HTTP from `reqwest`. What is
//! written here is the small rest: the endpoint ([`endpoint`]), the two request shapes
//! ([`AwsJson::json11`], [`AwsJson::rest`]), the error answers ([`AwsError`]) and a retry of
//! throttling and server errors ([`Retry`]).

mod client;
mod error;
mod service;

pub use client::{AwsJson, Retry};
pub use error::AwsError;
pub use service::{CLOUDWATCH_LOGS, SESV2, Service, endpoint};

#[cfg(test)]
mod tests;
