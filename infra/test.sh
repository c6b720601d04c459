#!/usr/bin/env bash
# infra tests, offline after the first install:
#   1. npm ci from package-lock.json into infra/node_modules (only when missing or the lock changed)
#   2. type-check (tsc 7, no emit; Node runs the .ts files itself)
#   3. node:test suites in test/ (aws-cdk-lib/assertions on the synthesized stacks)
#   4. `cdk synth` of both stacks to infra/cdk.out with config/example.json, bundling skipped, and
#      of the three stacks of config/example-oauth.json (Cognito, CloudFront + Lambda@Edge in us-east-1)
#      to a temporary directory, and of config/example-per-user.json (the vault, its KMS key, /connect)
#   5. cfn-lint (pinned in tests/tools/requirements.txt) on the synthesized templates
# Needs tests/tools/install.sh to have run (Node 22 in .tools/node, cfn-lint in .tools/venv).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
# shellcheck source=../tests/tools/env.sh
source "$repo/tests/tools/env.sh"
cfn_lint="$HOSTED_MCP_TOOLS/venv/bin/cfn-lint"

# No network from here on: no CDK notices, no CLI telemetry, no Rust build at synth.
export CDK_DISABLE_CLI_TELEMETRY=true
export SKIP_BUNDLING=1

step() { printf '\n==> infra: %s  [%ss]\n' "$*" "$SECONDS"; }
cd "$here"

node_major="$(node -p 'process.versions.node.split(".")[0]')"
[[ "$node_major" -ge 22 ]] || { echo "infra/test.sh: needs Node >= 22 (got $(node --version)); run tests/tools/install.sh" >&2; exit 1; }
[[ -x "$cfn_lint" ]] || { echo "infra/test.sh: no $cfn_lint; run tests/tools/install.sh" >&2; exit 1; }

step "npm packages (locked)"
want="$(cat package.json package-lock.json | sha256sum | cut -d' ' -f1)"
if [[ ! -f node_modules/.installed || "$(cat node_modules/.installed)" != "$want" ]]; then
    # --prefer-offline: the npm cache answers when it can (no registry round trips).
    npm ci --prefer-offline --no-audit --no-fund --loglevel=error
    echo "$want" >node_modules/.installed
fi

step "type-check"
npx --no-install tsc -p .

step "unit tests (node --test)"
# One process for all files: aws-cdk-lib loads once instead of once per file (several times faster).
node --test --experimental-test-isolation=none --test-reporter=spec test/*.test.ts

step "synth both stacks (offline, bundling skipped)"
rm -rf cdk.out
npx --no-install cdk synth --no-notices --quiet -c config=config/example.json
templates=(cdk.out/*.template.json)
[[ ${#templates[@]} -eq 2 ]] || { echo "infra/test.sh: expected 2 templates, got ${templates[*]}" >&2; exit 1; }

step "synth with OAuth (config/example-oauth.json: ops, mcp, and the us-east-1 edge stack)"
oauth_out="$(mktemp -d)"
trap 'rm -rf "$oauth_out"' EXIT
npx --no-install cdk synth --no-notices --quiet -c config=config/example-oauth.json -o "$oauth_out"
oauth_templates=("$oauth_out"/*.template.json)
[[ ${#oauth_templates[@]} -eq 3 ]] || { echo "infra/test.sh: expected 3 OAuth templates, got ${oauth_templates[*]}" >&2; exit 1; }
edge_template="$oauth_out/hosted-mcp-example-edge.template.json"
[[ -f "$edge_template" ]] || { echo "infra/test.sh: no $edge_template" >&2; exit 1; }

step "synth with per-user connectors (config/example-per-user.json: the vault, its key, /connect)"
per_user_out="$(mktemp -d)"
trap 'rm -rf "$oauth_out" "$per_user_out"' EXIT
npx --no-install cdk synth --no-notices --quiet -c config=config/example-per-user.json -o "$per_user_out"
per_user_mcp="$per_user_out/hosted-mcp-example-mcp.template.json"
grep -q '"AWS::KMS::Key"' "$per_user_mcp" || { echo "infra/test.sh: no vault key in $per_user_mcp" >&2; exit 1; }

step "cfn-lint $("$cfn_lint" --version | cut -d' ' -f2)"
"$cfn_lint" --regions eu-central-1 -- "${templates[@]}" "$oauth_out"/hosted-mcp-example-{ops,mcp}.template.json "$per_user_mcp"
"$cfn_lint" --regions us-east-1 -- "$edge_template"

step "infra passed"
