#!/usr/bin/env python3
"""Validate hosted-mcp catalog files against shared/catalog/catalog.schema.json.

    .tools/venv/bin/python tests/tools/validate_catalogs.py shared/connector/catalogs

Checks every *.yaml / *.yml file in each directory given (not recursive, like the Rust loader;
a file may be given too) and prints one line per file, `ok   FILE` or `FAIL FILE (N problems)`,
each problem then on its own line as `FILE:LINE: JSON-PATH: message`, e.g.

    FAIL catalogs/demo.yaml (1 problem)
      catalogs/demo.yaml:25: $.tools[0]: Additional properties are not allowed ('lsit' was
      unexpected); did you mean `list`?        <- one line in the real output

YAML is read the way the server's loader (yaml_serde) reads it, YAML 1.2 core: only true/false
are booleans (`yes`, `on`, `no` stay strings), dates stay strings, mapping keys are the text as
written (`values: {true: desc}` has the key "true"), and duplicate keys are an error.

The schema covers each file on its own; checks across fields and files (placeholders against
`secrets` and params, unique tool names) are the loader's: `cargo test -p catalog`.

Exit status: 0 when every file is valid, 1 when any is not (or cannot be read or parsed), 2 on
bad arguments. Needs `jsonschema` and `PyYAML` (pinned in tests/tools/requirements.txt); run it
with .tools/venv/bin/python after tests/tools/install.sh.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import yaml

REPO = Path(__file__).resolve().parents[2]
DEFAULT_SCHEMA = REPO / "shared" / "catalog" / "catalog.schema.json"

# Messages that embed a whole tool or catalog are cut to this length.
MAX_MESSAGE = 300


class CatalogLoader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core-schema scalars, raw-text keys and no duplicate keys."""

    yaml_implicit_resolvers: dict[str, list[tuple[str, re.Pattern[str]]]] = {}

    def construct_mapping(self, node: yaml.Node, deep: bool = False) -> dict[str, Any]:
        if not isinstance(node, yaml.MappingNode):
            raise yaml.constructor.ConstructorError(
                None, None, f"expected a mapping, found {node.id}", node.start_mark
            )
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark,
                    "keys must be plain text", key_node.start_mark,
                )
            key = key_node.value
            if key in mapping:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark,
                    f"duplicate key {key!r}", key_node.start_mark,
                )
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def _construct_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
    text = loader.construct_scalar(node).lower()
    if text.endswith(".inf"):
        return float("-inf") if text.startswith("-") else float("inf")
    if text == ".nan":
        return float("nan")
    return float(text)


for tag, pattern, first in [
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        list("-+.0123456789"),
    ),
]:
    CatalogLoader.add_implicit_resolver(f"tag:yaml.org,2002:{tag}", re.compile(pattern), first)
CatalogLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
CatalogLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)


def load_yaml(text: str) -> tuple[Any, yaml.Node | None]:
    """The document and its node tree (for line numbers)."""
    loader = CatalogLoader(text)
    try:
        node = loader.get_single_node()
        return (loader.construct_document(node) if node is not None else None), node
    finally:
        loader.dispose()


def line_of(node: yaml.Node | None, path: list[str | int]) -> int:
    """1-based line of the deepest node on `path` that exists in the YAML tree."""
    line = node.start_mark.line + 1 if node is not None else 1
    for part in path:
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            node = next((v for k, v in node.value if k.value == part), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            node = node.value[part] if part < len(node.value) else None
        else:
            node = None
        if node is None:
            break
        line = node.start_mark.line + 1
    return line


def json_path(path: list[str | int]) -> str:
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            out += f".{part}"
        else:
            out += f"[{json.dumps(part)}]"
    return out


def describe(error: jsonschema.ValidationError) -> str:
    """The error in words: the schema's own `errorMessage` where it has one."""
    schema = error.schema if isinstance(error.schema, dict) else {}
    custom = schema.get("errorMessage")
    message = error.message
    if error.validator in ("oneOf", "anyOf", "not", "maxItems") and custom:
        # jsonschema's text repeats the whole value; the rule says more.
        message = custom
    elif custom:
        message = f"{message} ({custom})"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = list(schema.get("properties", {}))
        for extra in sorted(set(error.instance) - set(known)):
            close = difflib.get_close_matches(extra, known, n=1)
            if close:
                message += f"; did you mean `{close[0]}`?"
    if "propertyNames" in error.absolute_schema_path:
        message = f"key {error.instance!r}: {message}"
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 1] + "…"
    return message


def validate_file(validator: jsonschema.protocols.Validator, file: Path) -> list[str]:
    """Problems of one file as `FILE:LINE: PATH: message`, in file order."""
    try:
        document, root = load_yaml(file.read_text(encoding="utf-8"))
    except OSError as e:
        return [f"{file}:1: cannot read: {e.strerror}"]
    except yaml.MarkedYAMLError as e:
        line = e.problem_mark.line + 1 if e.problem_mark is not None else 1
        return [f"{file}:{line}: not valid YAML: {e.problem or e.context}"]
    except (yaml.YAMLError, ValueError) as e:
        return [f"{file}:1: not valid YAML: {e}"]
    problems = []
    for error in validator.iter_errors(document):
        path = list(error.absolute_path)
        problems.append((line_of(root, path), json_path(path), describe(error)))
    return [f"{file}:{line}: {path}: {msg}" for line, path, msg in sorted(problems)]


def catalog_files(arg: str) -> list[Path]:
    """The catalog files in a directory (or the file itself); ValueError when there are none."""
    path = Path(arg)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise ValueError(f"{arg}: no such directory")
    files = sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    if not files:
        raise ValueError(f"{arg}: no catalog files (*.yaml)")
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", metavar="DIR", help="catalog directories (or files)")
    parser.add_argument("--schema", type=Path, default=DEFAULT_SCHEMA, help="default: %(default)s")
    args = parser.parse_args()

    schema = json.loads(args.schema.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)

    try:
        files = [f for arg in args.paths for f in catalog_files(arg)]
    except ValueError as e:
        print(f"validate_catalogs.py: {e}", file=sys.stderr)
        return 2
    failed = 0
    for file in files:
        problems = validate_file(validator, file)
        if not problems:
            print(f"ok   {file}")
            continue
        failed += 1
        print(f"FAIL {file} ({len(problems)} problem{'s' if len(problems) > 1 else ''})")
        for p in problems:
            print(f"  {p}")
    if failed:
        print(f"{failed} of {len(files)} catalog files invalid", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
