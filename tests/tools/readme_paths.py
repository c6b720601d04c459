#!/usr/bin/env python3
"""Every repository path a README names exists.

Checks each Markdown file of the repository (READMEs and the pages beside them), outside
generated folders: every relative link target, and every `code span` that reads as a path in
the repository (it starts with a top-level folder, or with a folder or file beside the page).
Paths that builds and tools create (target/, .tools/, cdk.out, node_modules) and patterns
(`<name>`, `*`, `{…}`) are not paths to check. Prints each missing path with its file and line;
exits 1 when there is one.

    python3 tests/tools/readme_paths.py [REPO]
"""

import re
import sys
from pathlib import Path

SKIP_DIRS = {"target", ".tools", "node_modules", "cdk.out", ".git"}
# Created by builds, installs and runs: named in the docs, never committed.
GENERATED = ("target/", ".tools/", "node_modules/", "cdk.out", "infra/cdk.out")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
PATTERN_CHARS = set("<>*{}$ …|?=")
# MCP methods read like paths (`tools/list`, `notifications/progress`).
MCP_METHOD = re.compile(
    r"^(tools|prompts|resources|completion|tasks|notifications|logging|sampling|elicitation"
    r"|roots|subscriptions)/[A-Za-z_/]+$"
)


def markdown_files(repo: Path):
    for path in sorted(repo.rglob("*.md")):
        if not any(part in SKIP_DIRS for part in path.relative_to(repo).parts):
            yield path


def candidate(token: str) -> str | None:
    """The path a code span names, or None when it is no plain path."""
    token = token.strip().rstrip(".,;:")
    token = re.sub(r":\d+(-\d+)?$", "", token)  # file.rs:12
    token = token.split("#", 1)[0]
    if not token or "/" not in token or token.startswith(("/", "http", "~")):
        return None
    if any(c in PATTERN_CHARS for c in token) or token.startswith(GENERATED):
        return None
    if MCP_METHOD.match(token):
        return None
    return token.rstrip("/")


def check(repo: Path) -> list[str]:
    top = {p.name for p in repo.iterdir() if p.name not in SKIP_DIRS}
    missing = []
    for md in markdown_files(repo):
        here = md.parent
        beside = {p.name for p in here.iterdir()}
        rel = md.relative_to(repo)
        in_fence = False
        for number, line in enumerate(md.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            for target in LINK.findall(line):
                target = target.split("#", 1)[0]
                if not target or re.match(r"^[a-z]+:", target):
                    continue
                if not (here / target).exists():
                    missing.append(f"{rel}:{number}: link to {target}")
            for span in CODE.findall(line):
                path = candidate(span)
                if path is None:
                    continue
                first = path.split("/", 1)[0]
                if first in (".", ".."):
                    found = (here / path).exists()
                elif first in beside:
                    found = (here / path).exists() or (first in top and (repo / path).exists())
                elif first in top:
                    found = (repo / path).exists()
                else:
                    continue  # not a path in this repository (a MIME type, an API path, …)
                if not found:
                    missing.append(f"{rel}:{number}: `{span}`")
    return missing


def main() -> int:
    repo = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
    missing = check(repo)
    for m in missing:
        print(m)
    if missing:
        print(f"{len(missing)} path(s) named in the docs do not exist", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
