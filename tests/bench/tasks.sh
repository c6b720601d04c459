#!/usr/bin/env bash
# How long task requests take (issue 43): a tools/call that starts an upstream job and answers its
# task once it is durable, a tasks/get that only reads the task, and one whose poll is due, against
# the in-memory store and DynamoDB on moto_server (both on loopback; moto is no measure of
# DynamoDB's own latency, only of what the server adds around it). Prints a Markdown table.
#   tests/bench/tasks.sh            # 40 of each
#   TASKS_N=200 tests/bench/tasks.sh
# Needs tests/tools/install.sh (moto). What each request costs the table is asserted, not timed,
# in tests/tests/it/tasks.rs (a_task_request_costs_one_read_and_a_due_poll_one_claim).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=../tools/env.sh
source "$repo/tests/tools/env.sh"
cd "$repo"
cargo test --release -q -p integration-tests --test it tasks::measure_task_requests -- --ignored --nocapture 2>&1 \
  | grep '^|'
