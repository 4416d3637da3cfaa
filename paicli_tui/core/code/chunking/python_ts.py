"""Python through tree-sitter: class, method and function chunks with docstrings, imports,
base classes and visible calls for the graph; top-level code as file chunks."""

from __future__ import annotations

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
from .ts_base import end_line, parse, squash, start_line, text_of, walk


def module_name(path: str) -> str:
    """``pkg/sub/mod.py`` -> ``pkg.sub.mod`` (``__init__`` dropped)."""
    name = path.rsplit(".", 1)[0].replace("/", ".")
    return name.removesuffix(".__init__")


def docstring_of(body: Any) -> str:
    if body is None:
        return ""
    first = next((c for c in body.named_children if c.type != "comment"), None)
    if first is None or first.type != "expression_statement":
        return ""
    inner = first.named_children[0] if first.named_children else None
    if inner is None or inner.type not in ("string", "concatenated_string"):
        return ""
    raw = text_of(inner).lstrip("rRuUbBfF")
    return clean_comment(raw.strip("\"'") if not raw.startswith(('"""', "'''")) else raw)


def _params(node: Any) -> str:
    params = node.child_by_field_name("parameters")
    shown: list[str] = []
    for param in params.named_children if params is not None else []:
        if param.type in ("default_parameter", "typed_default_parameter"):
            name = text_of(param.child_by_field_name("name"))
            annotation = param.child_by_field_name("type")
            shown.append(f"{name}: {squash(text_of(annotation))}" if annotation else name)
        elif param.type != "comment":
            shown.append(squash(text_of(param)))
    return ", ".join(shown)


def _signature(node: Any) -> str:
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None else node.end_byte
    return squash(node.text[: end - node.start_byte].decode("utf-8", "replace")).rstrip(":")


def chunk_python(path: str, text: str) -> ChunkedFile:
    """Chunks and graph edges of one Python file."""
    lines = source_lines(text)
    tree = parse("python", text.encode("utf-8"))
    module = module_name(path)
    result = ChunkedFile(path=path, language="python", parser="tree-sitter")
    imports: list[str] = []
    for child in tree.root_node.named_children:
        node = child
        if node.type in ("import_statement", "import_from_statement"):
            for name in _imported_names(node, module, path.endswith("__init__.py")):
                imports.append(name)
                result.edges.append(Edge(module, name, "imports", path, start_line(node)))
    context = f"file {path}; module {module}"
    if imports:
        context += "; imports " + ", ".join(imports[:12]) + (" …" if len(imports) > 12 else "")
    covered: list[tuple[int, int]] = []
    stack: list[tuple[Any, str | None]] = [(tree.root_node, None)]
    while stack:
        container, owner = stack.pop()
        for child in reversed(container.named_children):
            node = child
            if node.type == "decorated_definition":
                node = node.child_by_field_name("definition")
                if node is None:
                    continue
            if node.type == "class_definition":
                name = text_of(node.child_by_field_name("name"))
                qualified = f"{owner}.{name}" if owner else name
                result.chunks.append(_class_chunk(path, lines, node, qualified, owner, context))
                result.edges.append(Edge(owner or module, qualified, "contains", path,
                                         start_line(node)))
                for base in _bases(node):
                    result.edges.append(Edge(qualified, base, "extends", path, start_line(node)))
                covered.append((start_line(child), end_line(child)))
                stack.append((node.child_by_field_name("body"), qualified))
            elif node.type == "function_definition":
                name = text_of(node.child_by_field_name("name"))
                qualified = f"{owner}.{name}" if owner else name
                body = node.child_by_field_name("body")
                result.chunks.append(Chunk(
                    path=path, kind="method" if owner else "function",
                    name=f"{qualified}({_params(node)})", start_line=start_line(node),
                    end_line=end_line(node), source=line_slice(lines, start_line(node),
                                                               end_line(node)),
                    language="python", parent=owner, doc=docstring_of(body),
                    signature=_signature(node),
                    context=context + (f"; class {owner}" if owner else "")))
                result.edges.append(Edge(owner or module, qualified, "contains", path,
                                         start_line(node)))
                result.edges.extend(_calls(path, node, qualified, owner))
                covered.append((start_line(child), end_line(child)))
    result.chunks.sort(key=lambda c: (c.start_line, c.name))
    leftover_file_chunks(result, lines, covered, context)
    return result


def _class_chunk(path: str, lines: list[str], node: Any, qualified: str, owner: str | None,
                 context: str) -> Chunk:
    body = node.child_by_field_name("body")
    first_def = next((c for c in (body.named_children if body is not None else [])
                      if c.type in ("function_definition", "decorated_definition",
                                    "class_definition")), None)
    head_end = start_line(body) if body is not None else start_line(node)
    end = min(end_line(node), head_end + CLASS_HEAD_LINES)
    if first_def is not None:
        end = min(end, max(start_line(node), start_line(first_def) - 1))
    while end > head_end and not lines[end - 1].strip():
        end -= 1
    return Chunk(path=path, kind="class", name=qualified, start_line=start_line(node),
                 end_line=end, source=line_slice(lines, start_line(node), end),
                 language="python", parent=owner, doc=docstring_of(body),
                 signature=_signature(node), context=context)


def _bases(node: Any) -> list[str]:
    arguments = node.child_by_field_name("superclasses")
    if arguments is None:
        return []
    return [text_of(a) for a in arguments.named_children
            if a.type in ("identifier", "attribute")]


def _absolute(base: str, module: str, is_package: bool) -> str:
    """``from .x import y`` inside ``pkg.mod`` -> ``pkg.x`` (relative imports resolved)."""
    dots = len(base) - len(base.lstrip("."))
    if not dots:
        return base
    parts = module.split(".") if is_package else module.split(".")[:-1]
    parts = parts[: len(parts) - (dots - 1)] if dots > 1 else parts
    rest = base[dots:]
    return ".".join(p for p in [*parts, rest] if p)


def _imported_names(node: Any, module: str, is_package: bool) -> list[str]:
    if node.type == "import_statement":
        names = []
        for child in node.named_children:
            target = child.child_by_field_name("name") if child.type == "aliased_import" \
                else child
            names.append(text_of(target))
        return names
    module_node = node.child_by_field_name("module_name")
    base = _absolute(text_of(module_node), module, is_package)
    names = []
    for child in node.children_by_field_name("name"):
        target = child.child_by_field_name("name") if child.type == "aliased_import" else child
        names.append(f"{base}.{text_of(target)}" if base else text_of(target))
    return names or [base]


def _calls(path: str, function: Any, source: str, owner: str | None) -> list[Edge]:
    """Calls whose target the syntax shows: ``f()``, ``self.m()``, ``Type.m()``, ``mod.f()``."""
    body = function.child_by_field_name("body")
    if body is None:
        return []

    def target_of(node: Any) -> str | None:
        target = node.child_by_field_name("function")
        if target is None:
            return None
        if target.type == "identifier":
            return text_of(target)
        if target.type != "attribute":
            return None
        obj = target.child_by_field_name("object")
        attr = text_of(target.child_by_field_name("attribute"))
        obj_text = text_of(obj)
        if obj.type == "identifier" and obj_text in ("self", "cls") and owner:
            return f"{owner}.{attr}"
        if obj_text.startswith(("self.", "cls.")):
            return attr  # a call on an attribute of unknown type: only the method is known
        if obj.type in ("identifier", "attribute") and "(" not in obj_text:
            return f"{obj_text}.{attr}"
        return attr

    calls = (n for n in walk(body) if n.type == "call")
    return call_edges(path, source, calls, target_of, start_line)
