"""MkDocs hooks of the documentation site (mkdocs.yml ``hooks:``), run by every ``mkdocs build``.

* ``<!-- generated: grpc -->`` in a page becomes the reference of every RPC, message and enum of
  ``proto/cardcore/v1/*.proto``, read from the proto files and their comments at build time;
* ``<!-- generated: rest -->`` becomes the reference of every operation and schema of the REST
  API, from the OpenAPI document the server itself publishes at ``/v1/openapi.json`` (built
  here from the same Litestar application, no server started);
* a link from a page to a file of the repository outside ``docs/`` (``../proto/...``), which
  works when the markdown is read on a forge but has no page on the site, is checked (a target
  that does not exist is a warning, so ``--strict`` fails) and shown as the file's path.

So the references cannot drift from the contract; ``tests/unit/test_docs.py`` checks the
hand-written route and RPC tables of those pages against the same sources. The functions that
build the text are importable (``proto_reference``, ``openapi``, ``rest_reference``) for it.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto" / "cardcore" / "v1"
log = logging.getLogger("mkdocs.plugins.cardcore_docs")

MARKER = re.compile(r"^<!-- generated: (\w+) -->$", re.M)

# --------------------------------------------------------------------------- proto


@dataclass
class ProtoField:
    label: str  # "", "optional", "repeated", "map" or "oneof NAME"
    type: str
    name: str
    number: int
    doc: str


@dataclass
class ProtoRpc:
    name: str
    request: str
    response: str
    server_streaming: bool
    doc: str
    client_streaming: bool = False


@dataclass
class ProtoBlock:
    """A message, an enum or a service: its name, comment and members (fields, values, RPCs)."""

    kind: str
    name: str
    doc: str
    members: list[Any] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class ProtoFile:
    path: Path
    package: str
    doc: str
    blocks: list[ProtoBlock]

    def rpcs(self) -> list[ProtoRpc]:
        return [r for b in self.blocks if b.kind == "service" for r in b.members]


_FIELD = re.compile(r"^(?:(optional|repeated)\s+)?([\w.]+)\s+(\w+)\s*=\s*(\d+)\s*;$")
_MAP = re.compile(r"^map<\s*([\w.]+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)\s*;$")
_RPC = re.compile(
    r"^rpc\s+(\w+)\s*\(\s*(stream\s+)?(\w+)\s*\)\s*returns\s*\(\s*(stream\s+)?(\w+)\s*\)\s*;$"
)
_ONEOF = re.compile(r"^oneof\s+(\w+)\s*\{$")
_ENUM_VALUE = re.compile(r"^(\w+)\s*=\s*(-?\d+)\s*;$")
_OPEN = re.compile(r"^(message|enum|service)\s+(\w+)\s*\{\s*(\})?$")


def parse_proto(path: Path) -> ProtoFile:
    """The services, messages and enums of one proto file with their leading ``//`` comments.
    Enough of proto3 for this contract (no nested messages, options or oneofs); anything else
    raises ``ValueError`` naming the line, so a new construct cannot be left out silently."""
    package, file_doc = "", ""
    blocks: list[ProtoBlock] = []
    comment: list[str] = []
    current: ProtoBlock | None = None
    oneof = ""  # the oneof being read, inside the current message
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if line.startswith("//"):
            comment.append(line[2:].strip())
            continue
        doc = " ".join(c for c in comment if c) if comment else ""
        if not line:
            if comment and current is None and not blocks and not file_doc:
                file_doc = "\n".join(comment)
            elif comment and current is not None:
                current.notes.append(doc)
            comment = []
            continue
        comment = []
        if current is None:
            if line.startswith("syntax"):
                if doc and not file_doc:
                    file_doc = doc
                continue
            if line.startswith("package "):
                package = line.removeprefix("package ").rstrip(";").strip()
                continue
            if m := _OPEN.match(line):
                block = ProtoBlock(m.group(1), m.group(2), doc)
                blocks.append(block)
                current = None if m.group(3) else block
                continue
        else:
            if line == "}":
                if oneof:  # the end of a oneof, not of its message
                    oneof = ""
                else:
                    current = None
                continue
            if current.kind == "message" and (m := _ONEOF.match(line)):
                oneof = m.group(1)
                continue
            if current.kind == "service" and (m := _RPC.match(line)):
                current.members.append(
                    ProtoRpc(
                        m.group(1), m.group(3), m.group(5), bool(m.group(4)), doc, bool(m.group(2))
                    )
                )
                continue
            if current.kind == "message" and (m := _FIELD.match(line)):
                label = f"oneof {oneof}" if oneof else m.group(1) or ""
                current.members.append(
                    ProtoField(label, m.group(2), m.group(3), int(m.group(4)), doc)
                )
                continue
            if current.kind == "message" and (m := _MAP.match(line)):
                kv = f"map<{m.group(1)}, {m.group(2)}>"
                current.members.append(ProtoField("map", kv, m.group(3), int(m.group(4)), doc))
                continue
            if current.kind == "enum" and (m := _ENUM_VALUE.match(line)):
                current.members.append((m.group(1), int(m.group(2)), doc))
                continue
        raise ValueError(f"{path.name}:{number}: not understood by the docs generator: {line}")
    return ProtoFile(path, package, file_doc, blocks)


def proto_files() -> list[ProtoFile]:
    return [parse_proto(p) for p in sorted(PROTO_DIR.glob("*.proto"))]


def _anchor(name: str) -> str:
    return name.lower()


def _type_link(type_name: str, known: set[str]) -> str:
    inner = type_name
    if type_name.startswith("map<"):
        return f"`{type_name}`"
    return f"[`{inner}`](#{_anchor(inner)})" if inner in known else f"`{inner}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def proto_reference() -> str:
    """Markdown: every service with its RPCs, then every message and enum, from proto/."""
    out: list[str] = []
    for pf in proto_files():
        known = {b.name for b in pf.blocks if b.kind != "service"}
        rel = pf.path.relative_to(ROOT)
        out.append(f"## `{pf.package}` ({rel.name})\n")
        out.append(f"Generated from `{rel}` at build time.\n")
        for block in (b for b in pf.blocks if b.kind == "service"):
            out.append(f"### Service `{pf.package}.{block.name}` {{#{_anchor(block.name)}}}\n")
            out.append(f"{block.doc}\n")
            out.append("| RPC | request | response | what it does |")
            out.append("|---|---|---|---|")
            for rpc in block.members:
                resp = ("stream of " if rpc.server_streaming else "") + _type_link(
                    rpc.response, known
                )
                req = ("stream of " if rpc.client_streaming else "") + _type_link(
                    rpc.request, known
                )
                out.append(
                    f"| [`{rpc.name}`](#{_anchor(rpc.name)}) | {req} | {resp} | {_cell(rpc.doc)} |"
                )
            out.append("")
            for note in block.notes:
                out.append(f"{note}\n")
            for rpc in block.members:
                out.append(f"#### `{rpc.name}` {{#{_anchor(rpc.name)}}}\n")
                stream = "stream " if rpc.server_streaming else ""
                in_stream = "stream " if rpc.client_streaming else ""
                out.append(
                    f"`rpc {rpc.name}({in_stream}{rpc.request}) returns "
                    f"({stream}{rpc.response})`: {rpc.doc}\n"
                )
        out.append("### Messages\n")
        for block in (b for b in pf.blocks if b.kind == "message"):
            out.append(f"#### `{block.name}` {{#{_anchor(block.name)}}}\n")
            out.append(f"{block.doc}\n")
            if block.members:
                out.append("| field | type | number | meaning |")
                out.append("|---|---|---|---|")
                for f in block.members:
                    shown = f.label.startswith(("optional", "repeated", "oneof"))
                    label = f"{f.label} " if shown else ""
                    out.append(
                        f"| `{f.name}` | {label}{_type_link(f.type, known)} | {f.number} "
                        f"| {_cell(f.doc)} |"
                    )
                out.append("")
            else:
                out.append("No fields.\n")
        out.append("### Enums\n")
        for block in (b for b in pf.blocks if b.kind == "enum"):
            out.append(f"#### `{block.name}` {{#{_anchor(block.name)}}}\n")
            out.append(f"{block.doc}\n")
            out.append("| value | number | meaning |")
            out.append("|---|---|---|")
            for name, number, doc in block.members:
                out.append(f"| `{name}` | {number} | {_cell(doc)} |")
            out.append("")
    return "\n".join(out)


# --------------------------------------------------------------------------- OpenAPI


@functools.cache
def openapi() -> dict[str, Any]:
    """The OpenAPI document ``cardcore serve`` publishes at ``/v1/openapi.json``, built from the
    same Litestar application over an in-memory store (no server is started)."""
    with warnings.catch_warnings():  # Litestar's deprecation notices are not the docs'
        warnings.simplefilter("ignore")
        from cardcore_server.app import Application
        from cardcore_server.store import SqliteStore
        from cardcore_server.transports.rest import RestApi, openapi_document

        app = RestApi(Application(SqliteStore(":memory:"))).build()
        doc = openapi_document(app.openapi_schema.to_schema())
    plain: dict[str, Any] = json.loads(json.dumps(doc))  # plain JSON values only
    return plain


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """``(METHOD, path, operation)`` of every operation, in document order."""
    return [
        (method.upper(), path, op)
        for path, methods in doc["paths"].items()
        for method, op in methods.items()
        if isinstance(op, dict) and "responses" in op
    ]


def _schema_anchor(name: str) -> str:
    return "schema-" + name.lower()


def _schema_type(schema: dict[str, Any]) -> str:
    """A JSON Schema as a short type text, with links to the named schemas."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[`{name}`](#{_schema_anchor(name)})"
    if "anyOf" in schema or "oneOf" in schema:
        parts = [_schema_type(s) for s in schema.get("anyOf", schema.get("oneOf", []))]
        return " or ".join(parts)
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    t = schema.get("type")
    if t == "array":
        return f"array of {_schema_type(schema.get('items', {}))}"
    if t == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"object of {_schema_type(schema['additionalProperties'])}"
    if isinstance(t, list):
        return " or ".join(f"`{x}`" for x in t)
    return f"`{t}`" if t else "any JSON"


def _bounds(schema: dict[str, Any]) -> str:
    out = []
    for key, text in (
        ("minimum", "≥ {}"),
        ("maximum", "≤ {}"),
        ("minLength", "length ≥ {}"),
        ("maxLength", "length ≤ {}"),
        ("minItems", "≥ {} items"),
        ("maxItems", "≤ {} items"),
        ("pattern", "matches `{}`"),
    ):
        if key in schema:
            out.append(text.format(schema[key]))
    for sub in schema.get("anyOf", []):
        out.extend(_bounds(sub).split("; ") if _bounds(sub) else [])
    return "; ".join(out)


def rest_reference() -> str:
    """Markdown: every operation of the OpenAPI document, then every schema."""
    doc = openapi()
    out: list[str] = ["## Operations\n"]
    out.append(
        f"Generated at build time from the OpenAPI {doc['openapi']} document the server "
        "publishes at `/v1/openapi.json`.\n"
    )
    for method, path, op in operations(doc):
        op_id = op.get("operationId", "")
        out.append(f"### `{method} {path}` {{#{op_id.lower()}}}\n")
        out.append(f"**{op_id}** — {op.get('summary', '')}.\n")
        if op.get("description"):
            out.append(f"{op['description']}\n")
        security = op.get("security")
        if security is not None:
            needs = [", ".join(s) for s in security if s]
            optional = any(not s for s in security)
            text = " or ".join(f"`{n}`" for n in needs) if needs else "none"
            if needs and optional:
                text += " (optional)"
            out.append(f"Authentication: {text}.\n")
        params = op.get("parameters", [])
        if params:
            out.append("| parameter | in | required | type | meaning |")
            out.append("|---|---|---|---|---|")
            for p in params:
                schema = p.get("schema", {})
                bounds = _bounds(schema)
                out.append(
                    f"| `{p['name']}` | {p['in']} | {'yes' if p.get('required') else 'no'} "
                    f"| {_schema_type(schema)}{' (' + bounds + ')' if bounds else ''} "
                    f"| {_cell(p.get('description', ''))} |"
                )
            out.append("")
        body = op.get("requestBody")
        if body:
            for media, content in body.get("content", {}).items():
                req = "" if body.get("required", False) else " (optional)"
                out.append(
                    f"Request body{req}: `{media}`, {_schema_type(content.get('schema', {}))}.\n"
                )
        out.append("| status | meaning | body |")
        out.append("|---|---|---|")
        for status, response in op["responses"].items():
            content = response.get("content") or {}
            bodies = ", ".join(
                f"`{media}` {_schema_type(c.get('schema', {}))}" for media, c in content.items()
            )
            out.append(f"| {status} | {_cell(response.get('description', ''))} | {bodies} |")
        out.append("")
    out.append("## Schemas\n")
    for name, schema in doc["components"]["schemas"].items():
        out.append(f"### `{name}` {{#{_schema_anchor(name)}}}\n")
        if schema.get("description"):
            out.append(f"{_cell(schema['description'])}\n")
        props = schema.get("properties", {})
        if props:
            required = set(schema.get("required", []))
            out.append("| field | type | required | default | bounds |")
            out.append("|---|---|---|---|---|")
            for pname, pschema in props.items():
                default = f"`{json.dumps(pschema['default'])}`" if "default" in pschema else ""
                out.append(
                    f"| `{pname}` | {_schema_type(pschema)} "
                    f"| {'yes' if pname in required else 'no'} | {default} "
                    f"| {_bounds(pschema)} |"
                )
            if schema.get("additionalProperties") is False:
                out.append("\nUnknown fields are refused.")
            out.append("")
        elif "oneOf" in schema or "anyOf" in schema or "enum" in schema:
            out.append(f"One of: {_schema_type(schema)}.\n")
    return "\n".join(out)


GENERATORS = {"grpc": proto_reference, "rest": rest_reference}

# --------------------------------------------------------------------------- repository links

_LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\((\.\./[^)\s#]+)(#[^)\s]*)?\)")
_FENCE = re.compile(r"^(```|~~~)")


def repository_links(markdown: str, page_path: str, docs_dir: Path) -> str:
    """Links that leave ``docs/`` for a file of the repository, shown as the file's path (the
    site has no page for it); a link to nothing is a warning."""
    page_dir = (docs_dir / page_path).parent
    out, fenced = [], False
    for line in markdown.split("\n"):
        if _FENCE.match(line.strip()):
            fenced = not fenced
        if not fenced:
            line = _LINK.sub(lambda m: _repo_link(m, page_dir, docs_dir, page_path), line)
        out.append(line)
    return "\n".join(out)


def _repo_link(m: re.Match[str], page_dir: Path, docs_dir: Path, page_path: str) -> str:
    target = (page_dir / m.group(2)).resolve()
    if target.is_relative_to(docs_dir.resolve()):
        return m.group(0)  # a page of the site: MkDocs checks it
    if not target.is_relative_to(ROOT) or not target.exists():
        log.warning("%s links to %s, which is not a file of the repository", page_path, m.group(2))
        return m.group(0)
    rel = target.relative_to(ROOT).as_posix()
    text = m.group(1)
    return text if text.strip("`") == rel else f"{text} (`{rel}`)"


# --------------------------------------------------------------------------- the hook


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    def generate(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in GENERATORS:
            log.warning("%s: unknown generated section %r", page.file.src_path, name)
            return m.group(0)
        return GENERATORS[name]()

    markdown = MARKER.sub(generate, markdown)
    return repository_links(markdown, page.file.src_path, Path(config["docs_dir"]))
