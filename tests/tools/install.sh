#!/usr/bin/env bash
# Installs the pinned end-to-end test tools into <repo>/.tools/ (git-ignored):
#
#   .tools/venv               Python venv: moto[server] (moto_server) + the official `mcp` SDK +
#                             cfn-lint (infra/test.sh), from tests/tools/requirements.txt (every
#                             package pinned)
#   .tools/node               tests/tools/node/package-lock.json: Node 22 (npm package
#                             `node`), @modelcontextprotocol/conformance, @modelcontextprotocol/inspector,
#                             oidc-provider (the local OpenID provider tests/tools/oidc/op.mjs runs)
#   .tools/conformance-next   tests/tools/conformance-next/package-lock.json: the 0.2.0
#                             pre-release conformance suite (2026-07-28 scenarios), run with the Node 22 above
#   .tools/prism              tests/tools/prism/package-lock.json: Prism (@stoplight/prism-cli), the
#                             OpenAPI mock server with request validation that tests/tests/it/prism.rs
#                             starts, run with the Node 22 above
#   .tools/browser            tests/tools/browser/package-lock.json: headless Chromium (the npm
#                             package @sparticuz/chromium carries the browser) and puppeteer-core,
#                             for tests/look/pages.mjs
#
# Idempotent: each part records a hash of its pin/lock files (and the Python version) and is only
# rebuilt, from scratch, when they change; an up-to-date install just prints the versions.
# Needs python3 (>= 3.10, with venv) and npm (any Node >= 20 to bootstrap) on PATH, and the PyPI
# and npm registries. Override the interpreter with PYTHON=/path/to/python3.
# Afterwards: `source tests/tools/env.sh`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
tools="$repo/.tools"
python="${PYTHON:-python3}"
started=$SECONDS

log() { printf 'install.sh: %s\n' "$*" >&2; }

mkdir -p "$tools"
# Parallel test jobs may all call this script; let one install while the others wait.
exec 9>"$tools/.install.lock"
flock 9

# A hash of the inputs that define one installed part.
fingerprint() { cat "$@" | sha256sum | cut -d' ' -f1; }

up_to_date() { # dir stamp-file-name expected-hash
    [[ -f "$1/$2" && "$(cat "$1/$2")" == "$3" ]]
}

install_venv() {
    local dir="$tools/venv" want
    want="$(fingerprint "$here/requirements.txt" <("$python" -c 'import sys; print(sys.version)'))"
    if up_to_date "$dir" .installed "$want" && [[ -x "$dir/bin/moto_server" && -x "$dir/bin/cfn-lint" ]]; then
        return
    fi
    log "creating $dir"
    rm -rf "$dir"
    "$python" -m venv "$dir"
    # Wheels only: nothing gets compiled, so the install time does not depend on a toolchain.
    "$dir/bin/pip" install --quiet --disable-pip-version-check --no-input --only-binary=:all: \
        -r "$here/requirements.txt"
    "$dir/bin/pip" check --disable-pip-version-check >/dev/null
    "$dir/bin/moto_server" --help >/dev/null
    "$dir/bin/cfn-lint" --version >/dev/null
    echo "$want" >"$dir/.installed"
}

# Installs tests/tools/<name>/package{,-lock}.json into .tools/<name>, at the locked versions.
# `npm install` on a copy of the lock rather than `npm ci`: vite (under the inspector) has a
# Windows-only optional dependency, napi-windows-process-start-time, that the registry answered
# with 404 when the lock was first made, so the lock lacked it; `npm install` skips such an
# optional package, `npm ci` rejects a lock without it. (The regenerated lock records it now.)
install_npm() {
    local src="$here/$1" dir="$tools/$1" want
    want="$(fingerprint "$src/package.json" "$src/package-lock.json")"
    if up_to_date "$dir" .installed "$want" && [[ -d "$dir/node_modules" ]]; then
        return
    fi
    log "npm install (locked) into $dir"
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$src/package.json" "$src/package-lock.json" "$dir/"
    # --loglevel=error: the bootstrap npm may run on the system Node 20 and warns about the
    # packages that declare node >= 22 (they run on the Node 22 installed here).
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error)
    echo "$want" >"$dir/.installed"
}

install_venv
install_npm node
node22="$tools/node/node_modules/.bin/node"
[[ -x "$node22" ]] || { log "no node binary at $node22"; exit 1; }
# The rest runs npm on Node 22 first on PATH, so lifecycle scripts see the Node the tools need.
PATH="$tools/node/node_modules/.bin:$PATH" install_npm conformance-next
PATH="$tools/node/node_modules/.bin:$PATH" install_npm prism
PATH="$tools/node/node_modules/.bin:$PATH" install_npm browser

# One line per component with the version actually installed.
"$tools/venv/bin/python" - <<'EOF'
import importlib.metadata as md
import platform
print(f"python            {platform.python_version()}  (.tools/venv)")
print(f"moto[server]      {md.version('moto')}")
print(f"mcp (Python SDK)  {md.version('mcp')}")
print(f"cfn-lint          {md.version('cfn-lint')}")
EOF
"$node22" - "$tools" <<'EOF'
const fs = require("fs");
const tools = process.argv[2];
const version = (dir, pkg) =>
  JSON.parse(fs.readFileSync(`${tools}/${dir}/node_modules/${pkg}/package.json`, "utf8")).version;
console.log(`node              ${process.version}  (.tools/node)`);
console.log(`conformance       ${version("node", "@modelcontextprotocol/conformance")}`);
console.log(`conformance-next  ${version("conformance-next", "@modelcontextprotocol/conformance")}  (.tools/conformance-next)`);
console.log(`inspector         ${version("node", "@modelcontextprotocol/inspector")}`);
console.log(`oidc-provider     ${version("node", "oidc-provider")}`);
console.log(`prism             ${version("prism", "@stoplight/prism-cli")}  (.tools/prism)`);
console.log(`chromium          ${version("browser", "@sparticuz/chromium")}  (.tools/browser, puppeteer-core ${version("browser", "puppeteer-core")})`);
EOF
log "tools ready in $((SECONDS - started)) s"
