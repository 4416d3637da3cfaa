"""Java through tree-sitter-java: records, sealed types, switch expressions, text blocks and
pattern matching all parse, so Java 17+ files still get class and method chunks."""

from __future__ import annotations

from typing import Any

from .java_model import JavaCall, JavaFileModel, JavaMethod, JavaType, strip_generics
from .ts_base import (
    end_line,
    normalise_type,
    parse,
    preceding_comment,
    squash,
    start_line,
    text_of,
)

TYPE_NODES = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "record_declaration": "record",
    "annotation_type_declaration": "annotation",
}
METHOD_NODES = ("method_declaration", "constructor_declaration",
                "compact_constructor_declaration", "annotation_type_element_declaration")
COMMENTS = ("block_comment", "line_comment", "comment")


def java_model_treesitter(text: str) -> tuple[JavaFileModel, bool]:
    """The file's model and whether the tree had syntax errors."""
    tree = parse("java", text.encode("utf-8"))
    root = tree.root_node
    model = JavaFileModel()
    # explicit stack (node, owner, method): deep expressions must not hit the recursion limit
    stack: list[tuple[Any, str, JavaMethod | None]] = [(root, "", None)]
    types: dict[str, JavaType] = {}
    while stack:
        node, owner, method = stack.pop()
        for child in reversed(node.named_children):
            kind = child.type
            if kind == "package_declaration":
                model.package = squash(text_of(child)).removeprefix("package").strip(" ;")
            elif kind == "import_declaration":
                name = squash(text_of(child)).removeprefix("import").strip(" ;")
                name = name.removeprefix("static ").replace(" ", "")
                model.imports.append((name, start_line(child)))
            elif kind in TYPE_NODES:
                declared = _type(child, owner)
                model.types.append(declared)
                types[declared.name] = declared
                body = child.child_by_field_name("body")
                _record_components(child, declared)
                if body is not None:
                    stack.append((body, declared.name, None))
            elif kind in METHOD_NODES and owner:
                new_method = _method(child, owner)
                model.methods.append(new_method)
                stack.append((child, owner, new_method))
            elif kind == "field_declaration" and owner and method is None:
                declared_type = strip_generics(normalise_type(text_of(
                    child.child_by_field_name("type"))))
                for declarator in child.children_by_field_name("declarator"):
                    field_name = text_of(declarator.child_by_field_name("name"))
                    if owner in types:
                        types[owner].field_types[field_name] = declared_type
                stack.append((child, owner, method))
            elif kind == "enum_constant" and child.child_by_field_name("body") is not None:
                name = f"{owner}${text_of(child.child_by_field_name('name'))}"
                anon = _anonymous(child, name)
                model.types.append(anon)
                types[name] = anon
                stack.append((child.child_by_field_name("body"), name, None))
            elif kind == "object_creation_expression":
                type_node = child.child_by_field_name("type")
                type_name = strip_generics(normalise_type(text_of(type_node)))
                if method is not None:
                    method.creations.append((type_name, start_line(child)))
                body = next((c for c in child.named_children if c.type == "class_body"), None)
                for sub in child.named_children:
                    if sub is not body:
                        stack.append((sub, owner, method))
                if body is not None:
                    name = f"{owner}${type_name.split('.')[-1]}"
                    anon = _anonymous(child, name)
                    model.types.append(anon)
                    types[name] = anon
                    stack.append((body, name, None))
            else:
                if method is not None:
                    _note_in_method(child, method)
                stack.append((child, owner, method))
    model.types.sort(key=lambda t: (t.start, t.name))
    model.methods.sort(key=lambda m: (m.start, m.owner, m.name))
    return model, root.has_error


def _note_in_method(node: Any, method: JavaMethod) -> None:
    kind = node.type
    if kind == "method_invocation":
        target = node.child_by_field_name("object")
        member = text_of(node.child_by_field_name("name"))
        line = start_line(node.child_by_field_name("name"))
        if target is None:
            method.calls.append(JavaCall(None, member, line))
        elif target.type in ("identifier", "field_access", "this", "super",
                             "scoped_identifier"):
            method.calls.append(JavaCall(squash(text_of(target)).replace(" ", ""), member, line))
        else:
            method.calls.append(JavaCall(None, member, line, chained=True))
    elif kind in ("local_variable_declaration", "formal_parameter", "resource"):
        type_text = strip_generics(normalise_type(text_of(node.child_by_field_name("type"))))
        declarators = node.children_by_field_name("declarator") or [node]
        for declarator in declarators:
            name = text_of(declarator.child_by_field_name("name"))
            value = declarator.child_by_field_name("value")
            declared = type_text
            if declared == "var" and value is not None and value.type == \
                    "object_creation_expression":
                declared = strip_generics(normalise_type(text_of(
                    value.child_by_field_name("type"))))
            if name and declared != "var":
                method.local_types[name] = declared


def _type(node: Any, owner: str) -> JavaType:
    name = text_of(node.child_by_field_name("name"))
    qualified = f"{owner}.{name}" if owner else name
    body = node.child_by_field_name("body")
    head_end = body.start_byte if body is not None else node.end_byte
    signature = squash(node.text[: head_end - node.start_byte].decode("utf-8", "replace"))
    declared = JavaType(
        name=qualified, kind=TYPE_NODES[node.type], start=start_line(node), end=end_line(node),
        header_end=start_line(body) if body is not None else end_line(node),
        signature=signature, doc=preceding_comment(node, COMMENTS, doc_only_prefix="/**"))
    for child in node.named_children:
        if child.type == "superclass":
            for type_node in child.named_children:
                declared.extends.append((_type_name(type_node), start_line(type_node)))
        elif child.type in ("super_interfaces", "extends_interfaces"):
            target = declared.implements if child.type == "super_interfaces" else declared.extends
            for type_list in child.named_children:
                for type_node in type_list.named_children:
                    target.append((_type_name(type_node), start_line(type_node)))
    return declared


def _record_components(node: Any, declared: JavaType) -> None:
    if node.type != "record_declaration":
        return
    params = node.child_by_field_name("parameters")
    for type_text, name in _parameters(params):
        declared.field_types[name] = strip_generics(type_text)


def _anonymous(node: Any, name: str) -> JavaType:
    return JavaType(name=name, kind="class", start=start_line(node), end=end_line(node),
                    header_end=start_line(node), signature="", anonymous=True)


def _type_name(node: Any) -> str:
    return strip_generics(normalise_type(text_of(node)))


def _parameters(params: Any) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if params is None:
        return found
    for param in params.named_children:
        if param.type == "formal_parameter":
            type_text = normalise_type(text_of(param.child_by_field_name("type")))
            dims = param.child_by_field_name("dimensions")
            if dims is not None:
                type_text += normalise_type(text_of(dims))
            found.append((type_text, text_of(param.child_by_field_name("name"))))
        elif param.type == "spread_parameter":
            type_node = next((c for c in param.named_children
                              if c.type not in ("modifiers", "variable_declarator")), None)
            declarator = next((c for c in param.named_children
                               if c.type == "variable_declarator"), None)
            name = text_of(declarator.child_by_field_name("name")) if declarator else ""
            found.append((normalise_type(text_of(type_node)) + "...", name))
    return found


def _method(node: Any, owner: str) -> JavaMethod:
    simple_owner = owner.split(".")[-1].split("$")[-1]
    constructor = node.type in ("constructor_declaration", "compact_constructor_declaration")
    name = simple_owner if constructor else text_of(node.child_by_field_name("name"))
    params_node = node.child_by_field_name("parameters")
    if node.type == "compact_constructor_declaration":
        params_node = _record_params_of(node)
    params = _parameters(params_node)
    body = node.child_by_field_name("body")
    head_end = body.start_byte if body is not None else node.end_byte
    signature = squash(node.text[: head_end - node.start_byte].decode("utf-8", "replace"))
    method = JavaMethod(
        owner=owner, name=name, params=params, start=start_line(node), end=end_line(node),
        signature=signature.rstrip(";").strip(), constructor=constructor,
        doc=preceding_comment(node, COMMENTS, doc_only_prefix="/**"))
    for type_text, param_name in params:
        method.local_types[param_name] = strip_generics(type_text)
    return method


def _record_params_of(node: Any) -> Any:
    current = node.parent
    while current is not None and current.type != "record_declaration":
        current = current.parent
    return current.child_by_field_name("parameters") if current is not None else None
