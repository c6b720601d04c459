//! Fixed counting windows: a minute, or a UTC day. A window is named by its start, so every
//! instance counting into a shared store agrees on it without coordination.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    Minute,
    UtcDay,
}

impl Window {
    pub fn seconds(self) -> u64 {
        match self {
            Window::Minute => 60,
            Window::UtcDay => 86_400,
        }
    }

    /// The start of the window `now` falls in, seconds since the epoch.
    pub fn start(self, now: u64) -> u64 {
        now - now % self.seconds()
    }

    /// Whole seconds until the window `now` falls in ends (at least 1).
    pub fn reset_after(self, now: u64) -> u64 {
        (self.start(now) + self.seconds() - now).max(1)
    }

    /// The `w=` of a `RateLimit-Policy` header.
    pub fn name(self) -> &'static str {
        match self {
            Window::Minute => "minute",
            Window::UtcDay => "utc_day",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_start_on_the_minute_and_at_utc_midnight() {
        // 2026-12-01T10:21:17Z
        let now = 1_796_120_477;
        assert_eq!(Window::Minute.start(now), now - 17);
        assert_eq!(Window::Minute.reset_after(now), 43);
        assert_eq!(Window::UtcDay.start(now) % 86_400, 0);
        assert_eq!(
            Window::UtcDay.reset_after(now),
            86_400 - (10 * 3600 + 21 * 60 + 17)
        );
        assert_eq!(
            Window::Minute.reset_after(Window::Minute.start(now) + 59),
            1
        );
    }
}
