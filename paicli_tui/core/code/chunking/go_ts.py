"""Go through tree-sitter: type (struct / interface) chunks, functions and methods (named
``Receiver.Method(params)``), imports and visible calls for the graph."""

from __future__ import annotations

import re
from typing import Any

from ..chunk import Chunk
from .common import (
    CLASS_HEAD_LINES,
    ChunkedFile,
    Edge,
    call_edges,
    clean_comment,
    leftover_file_chunks,
    line_slice,
    source_lines,
)
from .ts_base import end_line, parse, preceding_comment, squash, start_line, text_of, walk

_MAJOR_VERSION = re.compile(r"v\d+")


def default_package_name(import_path: str) -> str:
    """The name a Go import is used by when none is given: the package clause of the
    imported code, which by convention is the path's last element without the module's
    major version (``example.com/x/v2`` → x, ``gopkg.in/yaml.v3`` → yaml) or a ``go-``
    prefix (``github.com/mattn/go-sqlite3`` → sqlite3)."""
    parts = import_path.strip("/").split("/")
    last = parts[-1]
    if _MAJOR_VERSION.fullmatch(last) and len(parts) > 1:
        last = parts[-2]
    last = re.sub(r"\.v\d+$", "", last).removeprefix("go-").removesuffix("-go")
    return last.replace("-", "_").replace(".", "_")


def go_import_names(text: str) -> dict[str, str]:
    """Import path by the name a Go file uses it under (``osexec "os/exec"`` → osexec);
    dot and blank imports name nothing."""
    names: dict[str, str] = {}
    tree = parse("go", text.encode("utf-8"))
    for node in tree.root_node.named_children:
        if node.type != "import_declaration":
            continue
        for spec in walk(node):
            if spec.type != "import_spec":
                continue
            path = text_of(spec.child_by_field_name("path")).strip('"`')
            alias = spec.child_by_field_name("name")
            name = text_of(alias) if alias is not None else default_package_name(path)
            if name not in (".", "_"):
                names[name] = path
    return names


def chunk_go(path: str, text: str) -> ChunkedFile:
    """Chunks and graph edges of one Go file."""
    lines = source_lines(text)
    tree = parse("go", text.encode("utf-8"))
    result = ChunkedFile(path=path, language="go", parser="tree-sitter")
    package = ""
    imports: list[str] = []
    covered: list[tuple[int, int]] = []
    for node in tree.root_node.named_children:
        if node.type == "package_clause":
            package = text_of(node).removeprefix("package").strip()
        elif node.type == "import_declaration":
            for spec in walk(node):
                if spec.type == "import_spec":
                    name = text_of(spec.child_by_field_name("path")).strip('"`')
                    imports.append(name)
                    result.edges.append(Edge(package or path, name, "imports", path,
                                             start_line(spec)))
    context = f"file {path}; package {package}"
    if imports:
        context += "; imports " + ", ".join(imports[:12])
    for node in tree.root_node.named_children:
        if node.type == "type_declaration":
            for spec in node.named_children:
                if spec.type not in ("type_spec", "type_alias"):  # type ID = string too
                    continue
                name = text_of(spec.child_by_field_name("name"))
                start = start_line(node if len(node.named_children) == 1 else spec)
                end = min(end_line(spec), start + CLASS_HEAD_LINES + 1)
                doc = preceding_comment(node, ("comment",))
                result.chunks.append(Chunk(
                    path=path, kind="class", name=name, start_line=start, end_line=end,
                    source=line_slice(lines, start, end), language="go",
                    doc=clean_comment(doc), signature=squash(text_of(spec))[:200],
                    context=context))
                result.edges.append(Edge(package or path, name, "contains", path, start))
                covered.append((start, end_line(spec)))
        elif node.type in ("function_declaration", "method_declaration"):
            name = text_of(node.child_by_field_name("name"))
            owner = _receiver_type(node) if node.type == "method_declaration" else None
            qualified = f"{owner}.{name}" if owner else name
            params = squash(text_of(node.child_by_field_name("parameters")))[1:-1]
            body = node.child_by_field_name("body")
            head_end = body.start_byte if body is not None else node.end_byte
            signature = squash(node.text[: head_end - node.start_byte].decode("utf-8",
                                                                              "replace"))
            result.chunks.append(Chunk(
                path=path, kind="method" if owner else "function",
                name=f"{qualified}({params})", start_line=start_line(node),
                end_line=end_line(node), source=line_slice(lines, start_line(node),
                                                           end_line(node)),
                language="go", parent=owner,
                doc=clean_comment(preceding_comment(node, ("comment",))),
                signature=signature, context=context + (f"; type {owner}" if owner else "")))
            result.edges.append(Edge(owner or package or path, qualified, "contains", path,
                                     start_line(node)))
            result.edges.extend(_calls(path, node, qualified))
            covered.append((start_line(node), end_line(node)))
    result.chunks.sort(key=lambda c: (c.start_line, c.name))
    leftover_file_chunks(result, lines, covered, context)
    return result


def _receiver_type(node: Any) -> str | None:
    receiver = node.child_by_field_name("receiver")
    if receiver is None:
        return None
    for child in walk(receiver):
        if child.type == "type_identifier":
            return text_of(child)
    return None


def _calls(path: str, function: Any, source: str) -> list[Edge]:
    body = function.child_by_field_name("body")
    if body is None:
        return []

    def target_of(node: Any) -> str | None:
        target = node.child_by_field_name("function")
        if target is None:
            return None
        if target.type == "identifier":
            return text_of(target)
        if target.type == "selector_expression":
            operand = target.child_by_field_name("operand")
            field = text_of(target.child_by_field_name("field"))
            return f"{text_of(operand)}.{field}" if operand.type == "identifier" else field
        return None

    calls = (n for n in walk(body) if n.type == "call_expression")
    return call_edges(path, source, calls, target_of, start_line)
