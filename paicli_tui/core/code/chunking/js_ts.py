"""JavaScript and TypeScript through tree-sitter: classes, interfaces, methods, functions and
arrow functions bound to names; imports, heritage and visible calls for the graph."""

from __future__ import annotations

from typing import Any

from ..chunk import Chunk
from .common import (
    CLASS_HEAD_LINES,
    ChunkedFile,
    Edge,
    call_edges,
    clean_comment,
    comment_above,
    leftover_file_chunks,
    line_slice,
    source_lines,
)
from .ts_base import end_line, parse, preceding_comment, squash, start_line, text_of, walk

CLASS_NODES = ("class_declaration", "abstract_class_declaration", "class",
               "interface_declaration", "enum_declaration", "type_alias_declaration")
"""Declarations of a type (``type Props = {…}`` as much as ``interface Props``)."""
ALIAS_SIGNATURE_CHARS = 200
"""Characters of a type alias's text kept as its signature (the type may be long)."""
FUNCTION_NODES = ("function_declaration", "generator_function_declaration")
METHOD_NODES = ("method_definition", "method_signature", "abstract_method_signature")
FUNCTION_VALUES = ("arrow_function", "function_expression", "function",
                   "generator_function")


def chunk_js(path: str, text: str, language: str) -> ChunkedFile:
    """Chunks and graph edges of one JavaScript / TypeScript file."""
    lines = source_lines(text)
    tree = parse(language, text.encode("utf-8"))
    module = path.rsplit(".", 1)[0]
    lang_name = "javascript" if language == "javascript" else "typescript"
    result = ChunkedFile(path=path, language=lang_name, parser="tree-sitter")
    imports: list[str] = []
    for node in tree.root_node.named_children:
        if node.type == "import_statement":
            source = node.child_by_field_name("source")
            if source is not None:
                name = text_of(source).strip("'\"`")
                imports.append(name)
                result.edges.append(Edge(module, name, "imports", path, start_line(node)))
    context = f"file {path}"
    if imports:
        context += "; imports " + ", ".join(imports[:12])
    covered: list[tuple[int, int]] = []
    stack: list[tuple[Any, str | None]] = [(tree.root_node, None)]
    while stack:
        container, owner = stack.pop()
        for node in reversed(container.named_children):
            outer = node.parent if node.parent is not None and \
                node.parent.type == "export_statement" else node
            if node.type == "export_statement":
                stack.append((node, owner))
                continue
            if node.type in CLASS_NODES and node.child_by_field_name("name") is not None:
                name = text_of(node.child_by_field_name("name"))
                result.chunks.append(_class_chunk(path, lines, node, outer, name, owner,
                                                  context))
                result.edges.append(Edge(owner or module, name, "contains", path,
                                         start_line(node)))
                result.edges.extend(_heritage(path, node, name))
                covered.append((start_line(outer), end_line(node)))
                body = node.child_by_field_name("body")
                if body is not None:
                    stack.append((body, name))
            elif node.type in FUNCTION_NODES or (node.type in METHOD_NODES and owner):
                name = text_of(node.child_by_field_name("name"))
                _function_chunk(result, lines, node, outer, name, owner, context)
                covered.append((start_line(outer), end_line(node)))
            elif node.type in ("lexical_declaration", "variable_declaration"):
                for declarator in node.named_children:
                    value = declarator.child_by_field_name("value")
                    if declarator.type == "variable_declarator" and value is not None and \
                            value.type in FUNCTION_VALUES:
                        name = text_of(declarator.child_by_field_name("name"))
                        _function_chunk(result, lines, value, outer, name, owner, context,
                                        span=node)
                        covered.append((start_line(outer), end_line(node)))
            elif node.type == "public_field_definition" and owner:
                value = node.child_by_field_name("value")
                if value is not None and value.type in FUNCTION_VALUES:
                    name = text_of(node.child_by_field_name("name"))
                    _function_chunk(result, lines, value, node, name, owner, context, span=node)
                    covered.append((start_line(node), end_line(node)))
    result.chunks.sort(key=lambda c: (c.start_line, c.name))
    leftover_file_chunks(result, lines, covered, context)
    return result


def _doc(outer: Any, lines: list[str]) -> str:
    """The JSDoc above a declaration, else a plain comment right above it that reads like one
    (the same rule as Java's, :func:`comment_above`)."""
    doc = preceding_comment(outer, ("comment",), doc_only_prefix="/**")
    return clean_comment(doc or comment_above(lines, start_line(outer)))


def _class_chunk(path: str, lines: list[str], node: Any, outer: Any, name: str,
                 owner: str | None, context: str) -> Chunk:
    body = node.child_by_field_name("body")
    # a type alias has no body: its head is its first lines (a generated API type runs to
    # thousands), as a Go type's is
    head_end = start_line(body) if body is not None else start_line(node)
    end = min(end_line(node), head_end + CLASS_HEAD_LINES)
    head = node.text[: (body.start_byte if body is not None else node.end_byte) -
                     node.start_byte].decode("utf-8", "replace")
    if body is None:
        head = head[:ALIAS_SIGNATURE_CHARS]
    qualified = f"{owner}.{name}" if owner else name
    return Chunk(path=path, kind="class", name=qualified, start_line=start_line(node),
                 end_line=end, source=line_slice(lines, start_line(node), end),
                 language="typescript" if path.endswith(("ts", "tsx")) else "javascript",
                 parent=owner, doc=_doc(outer, lines), signature=squash(head), context=context)


def _function_chunk(result: ChunkedFile, lines: list[str], node: Any, outer: Any, name: str,
                    owner: str | None, context: str, span: Any | None = None) -> None:
    span = span or node
    params = node.child_by_field_name("parameters")
    param_text = squash(text_of(params))[1:-1] if params is not None else ""
    if params is None and node.child_by_field_name("parameter") is not None:
        param_text = text_of(node.child_by_field_name("parameter"))
    qualified = f"{owner}.{name}" if owner else name
    body = node.child_by_field_name("body")
    head_end = body.start_byte if body is not None else span.end_byte
    signature = squash(span.text[: max(0, head_end - span.start_byte)].decode("utf-8",
                                                                              "replace"))
    path = result.path
    result.chunks.append(Chunk(
        path=path, kind="method" if owner else "function", name=f"{qualified}({param_text})",
        start_line=start_line(span), end_line=end_line(span),
        source=line_slice(lines, start_line(span), end_line(span)), language=result.language,
        parent=owner, doc=_doc(outer if outer is not node else span, lines),
        signature=signature,
        context=context + (f"; class {owner}" if owner else "")))
    result.edges.append(Edge(owner or path.rsplit(".", 1)[0], qualified, "contains", path,
                             start_line(span)))
    result.edges.extend(_calls(path, node, qualified, owner))


def _heritage(path: str, node: Any, name: str) -> list[Edge]:
    edges: list[Edge] = []
    for child in walk(node):
        if child.type == "class_body" or child.type == "interface_body":
            break
        if child.type == "extends_clause" or child.type == "extends_type_clause":
            for value in child.named_children:
                if value.type in ("identifier", "member_expression", "type_identifier",
                                  "generic_type", "nested_type_identifier"):
                    edges.append(Edge(name, text_of(value).split("<")[0], "extends", path,
                                      start_line(value)))
        elif child.type == "implements_clause":
            for value in child.named_children:
                edges.append(Edge(name, text_of(value).split("<")[0], "implements", path,
                                  start_line(value)))
    return edges


def _calls(path: str, function: Any, source: str, owner: str | None) -> list[Edge]:
    body = function.child_by_field_name("body")
    if body is None:
        return []

    def target_of(node: Any) -> str | None:
        target = node.child_by_field_name("function") or node.child_by_field_name("constructor")
        if target is None:
            return None
        if target.type == "identifier":
            return text_of(target)
        if target.type != "member_expression":
            return None
        obj = target.child_by_field_name("object")
        prop = text_of(target.child_by_field_name("property"))
        if obj.type == "this" and owner:
            return f"{owner}.{prop}"
        if obj.type in ("identifier", "member_expression") and "(" not in text_of(obj):
            return f"{text_of(obj)}.{prop}"
        return prop

    calls = (n for n in walk(body) if n.type in ("call_expression", "new_expression"))
    return call_edges(path, source, calls, target_of, start_line)
