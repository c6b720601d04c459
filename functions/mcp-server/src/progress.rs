//! Progress of a long call as plain data: what a stage reports (pages read of pages known, a
//! short message) and the sink it reports into. A leaf: it depends on nothing in the crate.
//!
//! The pipeline never knows who listens. The MCP adapter passes a [`Progress`] that feeds a
//! bounded channel it drains into `notifications/progress` when the client asked for them (a
//! `progressToken`); every other call gets [`Progress::none`], and reporting costs nothing.

use std::time::Duration;

use tokio::sync::mpsc;

/// Steps a slow reader may leave undelivered before newer ones are dropped (each step carries
/// the whole count, so a dropped one loses nothing the next does not say).
pub(crate) const CHANNEL_STEPS: usize = 32;

/// How long one upstream request runs before a watching client is told the call waits for it.
pub(crate) const SLOW_AFTER: Duration = Duration::from_secs(1);

/// The longest message a step carries, in characters.
const MAX_MESSAGE: usize = 120;

/// One report: `done` of `total` units (pages read of pages known, or a remote MCP server's
/// own figures passed through), and what is happening.
#[derive(Debug, Clone, PartialEq)]
pub struct Update {
    pub done: f64,
    /// What is known so far; it may grow as pages reveal more.
    pub total: Option<f64>,
    pub message: String,
}

/// The sink nobody reads, for calls made without one.
pub(crate) static NONE: Progress = Progress { sender: None };

/// Where a call reports its progress: nowhere, or a bounded channel.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    sender: Option<mpsc::Sender<Update>>,
}

impl Progress {
    /// A sink nobody reads: reports go nowhere.
    pub fn none() -> Self {
        Progress::default()
    }

    /// A sink and the receiver its steps arrive at, in order. When the sink and its clones are
    /// dropped, the receiver ends.
    pub fn channel() -> (Self, mpsc::Receiver<Update>) {
        let (sender, receiver) = mpsc::channel(CHANNEL_STEPS);
        (
            Progress {
                sender: Some(sender),
            },
            receiver,
        )
    }

    /// Whether anyone listens (a stage can skip working out a report nobody reads).
    pub fn wanted(&self) -> bool {
        self.sender.is_some()
    }

    /// Reports a step; never waits: a full channel drops it (the next one says more).
    pub fn report(&self, step: Update) {
        if let Some(sender) = &self.sender {
            let message = step.message.chars().take(MAX_MESSAGE).collect();
            let _ = sender.try_send(Update { message, ..step });
        }
    }
}

/// Runs `work`; when someone listens and it takes longer than `after`, reports `step` once
/// (0 of 1: a slow single request has nothing to count but that it still runs).
pub(crate) async fn noting_slow<F: Future>(
    progress: &Progress,
    after: Duration,
    step: impl FnOnce() -> Update,
    work: F,
) -> F::Output {
    if !progress.wanted() {
        return work.await;
    }
    let mut work = std::pin::pin!(work);
    tokio::select! {
        out = &mut work => return out,
        () = tokio::time::sleep(after) => progress.report(step()),
    }
    work.await
}

/// Pages of a call over several paged sources: how many were read, and how many are known.
/// A source not yet started counts as one page, a source that says how many items it holds
/// counts its pages, and one that only says more follows counts one more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pages {
    read: u64,
    /// Sources not started yet.
    waiting: u64,
}

impl Pages {
    pub(crate) fn new(sources: usize) -> Self {
        Pages {
            read: 0,
            waiting: sources as u64,
        }
    }

    /// A source starts.
    pub(crate) fn start_source(&mut self) {
        self.waiting = self.waiting.saturating_sub(1);
    }

    /// One page of the current source was read; `ahead` pages of it are known to follow.
    pub(crate) fn page_read(&mut self, ahead: u64) -> (u64, u64) {
        self.read += 1;
        (self.read, self.read + ahead + self.waiting)
    }
}

/// Pages known to follow page `page` of a list: from its item count when it says one, else
/// one while more follow.
pub(crate) fn pages_ahead(page: u32, page_size: u32, total_items: Option<u64>, more: bool) -> u64 {
    if !more {
        return 0;
    }
    match total_items {
        Some(items) if page_size > 0 => items
            .div_ceil(u64::from(page_size))
            .saturating_sub(u64::from(page))
            .max(1),
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_count_what_is_known_and_grow_as_sources_tell() {
        let mut pages = Pages::new(2);
        pages.start_source();
        // 230 items at 100 a page: three pages, two to follow; the second source counts one.
        assert_eq!(
            pages.page_read(pages_ahead(1, 100, Some(230), true)),
            (1, 4)
        );
        assert_eq!(
            pages.page_read(pages_ahead(2, 100, Some(230), true)),
            (2, 4)
        );
        assert_eq!(
            pages.page_read(pages_ahead(3, 100, Some(230), false)),
            (3, 4)
        );
        pages.start_source();
        // No item count: one more while more follow.
        assert_eq!(pages.page_read(pages_ahead(1, 100, None, true)), (4, 5));
        assert_eq!(pages.page_read(pages_ahead(2, 100, None, false)), (5, 5));
    }

    #[test]
    fn a_count_that_disagrees_with_more_still_counts_one_page_ahead() {
        // The upstream says more follow though its count is reached.
        assert_eq!(pages_ahead(3, 100, Some(300), true), 1);
        assert_eq!(pages_ahead(1, 0, Some(300), true), 1);
    }

    #[tokio::test]
    async fn a_slow_request_is_noted_once_and_a_quick_one_not_at_all() {
        let step = || Update {
            done: 0.0,
            total: Some(1.0),
            message: "waiting".into(),
        };
        let (progress, mut steps) = Progress::channel();
        // Work that lasts until the note about it arrives.
        let slow = async { steps.recv().await };
        let noted = noting_slow(&progress, Duration::from_millis(1), step, slow).await;
        assert_eq!(noted, Some(step()));
        let quick = async { 7 };
        assert_eq!(noting_slow(&progress, SLOW_AFTER, step, quick).await, 7);
        drop(progress);
        assert_eq!(steps.recv().await, None);
    }

    #[tokio::test]
    async fn steps_arrive_in_order_bounded_and_end_with_the_sink() {
        let (progress, mut steps) = Progress::channel();
        assert!(progress.wanted() && !Progress::none().wanted());
        for done in 1..=(CHANNEL_STEPS as u64 + 5) {
            progress.report(Update {
                done: done as f64,
                total: Some(100.0),
                message: "x".repeat(500),
            });
        }
        drop(progress);
        let mut got = Vec::new();
        while let Some(step) = steps.recv().await {
            assert_eq!(step.message.len(), MAX_MESSAGE);
            got.push(step.done as u64);
        }
        assert_eq!(got, (1..=CHANNEL_STEPS as u64).collect::<Vec<_>>());
        Progress::none().report(Update {
            done: 1.0,
            total: None,
            message: String::new(),
        });
    }
}
