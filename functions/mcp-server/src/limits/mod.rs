//! Edge protection: how many requests a client IP, tool calls a caller and tool calls the whole
//! deployment may make per window, counted in fixed windows (`window`) in a store (`store`).
//! Pure counting over plain data; the HTTP edge decides what to count and answers 429.
//!
//! Every limit is configurable and `0` turns it off (see `inventory::config`).

pub mod cidr;
pub mod store;
pub mod window;

use store::{Hit, MemoryStore};
use window::Window;

/// Which limit a request ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Requests per client IP per minute, before authentication.
    Ip,
    /// Tool calls per caller (API key or user) per minute.
    Caller,
    /// Tool calls of the whole deployment per UTC day.
    Daily,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Ip => "ip",
            Scope::Caller => "caller",
            Scope::Daily => "daily",
        }
    }
}

/// The configured limits; `0` is off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub per_ip_per_minute: u64,
    pub per_caller_per_minute: u64,
    pub daily_calls: u64,
}

impl Settings {
    /// The defaults, sized for a ten-person company.
    pub const DEFAULT: Settings = Settings {
        per_ip_per_minute: 120,
        per_caller_per_minute: 60,
        daily_calls: 20_000,
    };
    /// Every limit off (`MCP_LIMITS=off`).
    pub const OFF: Settings = Settings {
        per_ip_per_minute: 0,
        per_caller_per_minute: 0,
        daily_calls: 0,
    };
}

/// A limit that was reached: which, its size and window, and when it resets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the {} limit of {limit} per {} is reached; it resets in {retry_after_s} s", scope.as_str(), window.name())]
pub struct Exceeded {
    pub scope: Scope,
    pub limit: u64,
    pub window: Window,
    pub retry_after_s: u64,
}

/// The counters of one request that passed: what is left of the tightest limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Passed {
    pub scope: Scope,
    pub limit: u64,
    pub remaining: u64,
    pub window: Window,
    pub reset_after_s: u64,
}

pub struct Limits {
    settings: Settings,
    store: MemoryStore,
}

impl Limits {
    pub fn new(settings: Settings) -> Self {
        Limits {
            settings,
            store: MemoryStore::default(),
        }
    }

    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// One request from `ip` (any request to `/mcp`, before authentication).
    pub fn request_from(&self, ip: &str, now: u64) -> Result<Option<Passed>, Exceeded> {
        self.count(
            &[(
                Scope::Ip,
                self.settings.per_ip_per_minute,
                Window::Minute,
                ip,
            )],
            now,
        )
    }

    /// One tool call by `caller`: the caller's minute and the deployment's day, counted together
    /// (one store round trip).
    pub fn tool_call_by(&self, caller: &str, now: u64) -> Result<Option<Passed>, Exceeded> {
        self.count(
            &[
                (
                    Scope::Caller,
                    self.settings.per_caller_per_minute,
                    Window::Minute,
                    caller,
                ),
                (
                    Scope::Daily,
                    self.settings.daily_calls,
                    Window::UtcDay,
                    "all",
                ),
            ],
            now,
        )
    }

    /// Adds one to each limit that is on; the first one over its limit refuses.
    fn count(
        &self,
        limits: &[(Scope, u64, Window, &str)],
        now: u64,
    ) -> Result<Option<Passed>, Exceeded> {
        let on: Vec<&(Scope, u64, Window, &str)> = limits.iter().filter(|l| l.1 > 0).collect();
        if on.is_empty() {
            return Ok(None);
        }
        let hits: Vec<Hit> = on
            .iter()
            .map(|(scope, _, window, id)| {
                let start = window.start(now);
                Hit {
                    key: format!("{}:{id}:{start}", scope.as_str()),
                    expires: start + window.seconds(),
                }
            })
            .collect();
        let counts = self.store.hit(&hits, now);
        let mut tightest: Option<Passed> = None;
        for ((scope, limit, window, _), count) in on.into_iter().zip(counts) {
            if count > *limit {
                return Err(Exceeded {
                    scope: *scope,
                    limit: *limit,
                    window: *window,
                    retry_after_s: window.reset_after(now),
                });
            }
            let passed = Passed {
                scope: *scope,
                limit: *limit,
                remaining: limit - count,
                window: *window,
                reset_after_s: window.reset_after(now),
            };
            if tightest.is_none_or(|t| passed.remaining < t.remaining) {
                tightest = Some(passed);
            }
        }
        Ok(tightest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_796_120_477; // 10:21:17 UTC: 43 s left in the minute

    #[test]
    fn the_request_at_the_limit_passes_and_the_next_is_refused_until_the_window_ends() {
        let limits = Limits::new(Settings {
            per_ip_per_minute: 3,
            ..Settings::OFF
        });
        for left in [2, 1, 0] {
            let passed = limits.request_from("192.0.2.1", NOW).unwrap().unwrap();
            assert_eq!(passed.remaining, left);
        }
        let refused = limits.request_from("192.0.2.1", NOW).unwrap_err();
        assert_eq!(refused.scope, Scope::Ip);
        assert_eq!(refused.retry_after_s, 43);
        assert!(limits.request_from("192.0.2.2", NOW).is_ok(), "per IP");
        assert!(
            limits.request_from("192.0.2.1", NOW + 43).is_ok(),
            "the next minute"
        );
    }

    #[test]
    fn tool_calls_count_per_caller_and_against_the_daily_cap() {
        let limits = Limits::new(Settings {
            per_caller_per_minute: 2,
            daily_calls: 3,
            ..Settings::OFF
        });
        assert!(limits.tool_call_by("a", NOW).is_ok());
        assert!(limits.tool_call_by("a", NOW).is_ok());
        assert_eq!(
            limits.tool_call_by("a", NOW).unwrap_err().scope,
            Scope::Caller
        );
        // b's own minute is fresh, but the deployment's day is used up (a's refused call counted).
        let daily = limits.tool_call_by("b", NOW).unwrap_err();
        assert_eq!(daily.scope, Scope::Daily);
        assert_eq!(daily.retry_after_s, 86_400 - (10 * 3600 + 21 * 60 + 17));
    }

    #[test]
    fn zero_turns_a_limit_off() {
        let limits = Limits::new(Settings::OFF);
        for _ in 0..1000 {
            assert_eq!(limits.tool_call_by("a", NOW), Ok(None));
            assert_eq!(limits.request_from("192.0.2.1", NOW), Ok(None));
        }
    }
}
