"""A parser-neutral model of one Java file, and the chunks and graph edges built from it.

Both Java parsers (javalang, and tree-sitter-java for what javalang cannot read) fill the
same model, so chunk names, line ranges and edges do not depend on which parser ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..chunk import Chunk
from .common import CLASS_HEAD_LINES, ChunkedFile, Edge, clean_comment, comment_above, line_slice


@dataclass
class JavaCall:
    qualifier: str | None
    """What the call is made on as written (``helper``, ``Util``, ``this``); None: nothing."""
    member: str
    line: int
    chained: bool = False
    """Made on the result of another expression (``a().b()``): its type is unknown."""


@dataclass
class JavaMethod:
    owner: str
    """Qualified-in-file class name (``Outer.Inner``)."""
    name: str
    params: list[tuple[str, str]]
    """(type, name) pairs, types normalised."""
    start: int
    end: int
    signature: str
    doc: str = ""
    constructor: bool = False
    calls: list[JavaCall] = field(default_factory=list)
    creations: list[tuple[str, int]] = field(default_factory=list)
    """``new Type(...)`` sites: (type, line)."""
    local_types: dict[str, str] = field(default_factory=dict)
    """Parameter and local variable names -> declared type (generics stripped)."""

    @property
    def display_name(self) -> str:
        params = ", ".join(f"{t} {n}" for t, n in self.params)
        return f"{self.owner}.{self.name}({params})"


@dataclass
class JavaType:
    name: str
    """Qualified-in-file name (``Outer.Inner``; anonymous classes ``Outer$Runnable``)."""
    kind: str
    """class, interface, enum, record, annotation."""
    start: int
    end: int
    header_end: int
    """Line of the body's opening brace."""
    signature: str
    doc: str = ""
    extends: list[tuple[str, int]] = field(default_factory=list)
    implements: list[tuple[str, int]] = field(default_factory=list)
    field_types: dict[str, str] = field(default_factory=dict)
    anonymous: bool = False


@dataclass
class JavaFileModel:
    package: str = ""
    imports: list[tuple[str, int]] = field(default_factory=list)
    types: list[JavaType] = field(default_factory=list)
    methods: list[JavaMethod] = field(default_factory=list)


def strip_generics(type_name: str) -> str:
    """``Map<K, V>[]`` -> ``Map``; a qualified name keeps its dots."""
    depth = 0
    out = []
    for ch in type_name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0 and ch not in "[] ":
            out.append(ch)
    return "".join(out).replace("...", "").strip(".")


def _resolve_call(call: JavaCall, method: JavaMethod, types: dict[str, JavaType]) -> str:
    """Best static guess of the called ``Type.member`` (or just ``member``)."""
    owner = method.owner.split("$")[0]
    if call.chained:
        return call.member
    qualifier = call.qualifier
    if not qualifier or qualifier == "this":
        return f"{owner}.{call.member}"
    if qualifier == "super":
        parent = types.get(owner)
        if parent and parent.extends:
            return f"{parent.extends[0][0]}.{call.member}"
        return call.member
    head = qualifier.split(".")[0]
    if head in method.local_types:
        return f"{method.local_types[head]}.{call.member}"
    for scope in _enclosing(owner):
        declared = types.get(scope)
        if declared and head in declared.field_types:
            return f"{declared.field_types[head]}.{call.member}"
    if qualifier.startswith("this."):
        field_name = qualifier.split(".")[1]
        declared = types.get(owner)
        if declared and field_name in declared.field_types:
            return f"{declared.field_types[field_name]}.{call.member}"
    last = qualifier.split(".")[-1]
    if last[:1].isupper():
        return f"{last}.{call.member}"
    return call.member


def _enclosing(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]


def java_chunks(path: str, lines: list[str], model: JavaFileModel, parser: str) -> ChunkedFile:
    """Class chunks (declaration + first body lines) and method chunks (full source), plus
    the graph edges of the file."""
    result = ChunkedFile(path=path, language="java", parser=parser)
    imports = [name for name, _ in model.imports]
    context_parts = [f"file {path}"]
    if model.package:
        context_parts.append(f"package {model.package}")
    if imports:
        shown = ", ".join(imports[:12]) + (" …" if len(imports) > 12 else "")
        context_parts.append(f"imports {shown}")
    file_context = "; ".join(context_parts)
    types = {t.name: t for t in model.types}
    # a class chunk is its shape (declaration, fields), not its members' text: it stops
    # before the first method or nested type, so it does not compete with their chunks
    first_member: dict[str, int] = {}
    for start, owner in [(m.start, m.owner) for m in model.methods] + \
            [(t.start, t.name.rsplit(".", 1)[0]) for t in model.types
             if "." in t.name and not t.anonymous]:
        first_member[owner] = min(first_member.get(owner, start), start)
    for declared in model.types:
        if declared.anonymous:
            continue
        end = min(declared.end, declared.header_end + CLASS_HEAD_LINES)
        if declared.name in first_member:
            end = min(end, max(declared.header_end, first_member[declared.name] - 1))
        while end > declared.header_end and _is_blank_or_comment(lines[end - 1]):
            end -= 1  # the next member's Javadoc belongs to it
        parent = declared.name.rsplit(".", 1)[0] if "." in declared.name else None
        result.chunks.append(Chunk(
            path=path, kind="class", name=declared.name, start_line=declared.start,
            end_line=end, source=line_slice(lines, declared.start, end), language="java",
            parent=parent, doc=_doc(declared.doc, lines, declared.start),
            signature=declared.signature,
            context=file_context, extra={"type_kind": declared.kind}))
    for method in model.methods:
        result.chunks.append(Chunk(
            path=path, kind="method", name=method.display_name, start_line=method.start,
            end_line=method.end, source=line_slice(lines, method.start, method.end),
            language="java", parent=method.owner, doc=_doc(method.doc, lines, method.start),
            signature=method.signature, context=f"{file_context}; class {method.owner}"))
    result.edges.extend(_java_edges(path, model, types))
    return result


def _doc(javadoc: str, lines: list[str], start: int) -> str:
    """The Javadoc, else the plain comment right above the declaration (see comment_above)."""
    return clean_comment(javadoc or comment_above(lines, start))


def _is_blank_or_comment(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith(("/*", "*", "//"))


def _java_edges(path: str, model: JavaFileModel, types: dict[str, JavaType]) -> list[Edge]:
    edges: list[Edge] = []
    top_level = [t for t in model.types if "." not in t.name and "$" not in t.name]
    for declared in top_level:
        for name, line in model.imports:
            edges.append(Edge(declared.name, name, "imports", path, line))
    for declared in model.types:
        if declared.anonymous:
            continue
        for name, line in declared.extends:
            edges.append(Edge(declared.name, name, "extends", path, line))
        for name, line in declared.implements:
            edges.append(Edge(declared.name, name, "implements", path, line))
        if "." in declared.name:
            outer = declared.name.rsplit(".", 1)[0]
            edges.append(Edge(outer, declared.name, "contains", path, declared.start))
    for method in model.methods:
        source = f"{method.owner}.{method.name}"
        if "$" not in method.owner:
            edges.append(Edge(method.owner, source, "contains", path, method.start))
        seen: set[tuple[str, int]] = set()
        for call in method.calls:
            target = _resolve_call(call, method, types)
            if (target, call.line) not in seen:
                seen.add((target, call.line))
                edges.append(Edge(source, target, "calls", path, call.line))
        for type_name, line in method.creations:
            simple = type_name.split(".")[-1]
            target = f"{simple}.{simple}"
            if (target, line) not in seen:
                seen.add((target, line))
                edges.append(Edge(source, target, "calls", path, line))
    return edges
