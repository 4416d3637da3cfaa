"""Java through javalang (the reference's parser): names, parameters, Javadoc and calls from
its AST, exact line ranges from its token stream.

javalang reports a declaration at its first token after the modifiers and has no end
positions, so the start is walked back over modifiers and annotations and the end is the
brace that closes the body (string and comment braces are already tokens, never counted).
"""

from __future__ import annotations

from typing import Any

from .java_model import JavaCall, JavaFileModel, JavaMethod, JavaType, strip_generics
from .ts_base import normalise_type, squash

_MODIFIERS = frozenset({"public", "private", "protected", "static", "final", "abstract",
                        "native", "synchronized", "transient", "volatile", "strictfp",
                        "default"})


class JavalangFailed(Exception):
    """javalang could not parse the file (Java 14+ syntax, or broken code)."""


def java_model_javalang(text: str) -> JavaFileModel:
    """The file's model; raises JavalangFailed when javalang cannot parse it."""
    import javalang

    try:
        tokens = list(javalang.tokenizer.tokenize(text))
        unit = javalang.parser.Parser(iter(tokens)).parse()
    except (javalang.parser.JavaSyntaxError, javalang.tokenizer.LexerError, TypeError,
            IndexError, StopIteration, AttributeError, RecursionError) as exc:
        raise JavalangFailed(str(exc) or type(exc).__name__) from None
    try:
        return _Builder(javalang, tokens, text).build(unit)
    except (KeyError, AttributeError, TypeError, IndexError) as exc:
        # a node without a usable position: let tree-sitter chunk the file instead
        raise JavalangFailed(f"no positions: {exc}") from None


class _Builder:
    def __init__(self, javalang: Any, tokens: list[Any], text: str) -> None:
        self.jl = javalang
        self.text = text
        self.line_starts = [0]
        for line in text.split("\n"):
            self.line_starts.append(self.line_starts[-1] + len(line) + 1)
        self.tree = javalang.tree
        self.tokens = tokens
        self.index = {(t.position.line, t.position.column): i for i, t in enumerate(tokens)}
        self.model = JavaFileModel()
        self.types: dict[str, JavaType] = {}

    def build(self, unit: Any) -> JavaFileModel:
        if unit.package is not None:
            self.model.package = unit.package.name
        for imp in unit.imports or []:
            name = imp.path + (".*" if imp.wildcard else "")
            line = imp.position.line if imp.position else self._line_of_import(imp.path)
            self.model.imports.append((name, line))
        for declared in unit.types or []:
            self._visit_type(declared, "")
        self.model.types.sort(key=lambda t: (t.start, t.name))
        self.model.methods.sort(key=lambda m: (m.start, m.owner, m.name))
        return self.model

    def _line_of_import(self, path: str) -> int:
        head = path.split(".")[0]
        for i, token in enumerate(self.tokens):
            if token.value == "import" and i + 1 < len(self.tokens):
                following = self.tokens[i + 1]
                if following.value in (head, "static"):
                    return token.position.line
        return 1

    # --- positions ----------------------------------------------------------------------
    def _token_index(self, node: Any) -> int:
        position = node.position
        return self.index[(position.line, position.column)]

    def _declaration_start(self, i: int) -> int:
        """Index of the first modifier/annotation token of the declaration at token i."""
        while i > 0:
            previous = self.tokens[i - 1]
            if previous.value in _MODIFIERS and not (
                    previous.value == "default" and self.tokens[i].value in (":", "->")):
                i -= 1
                continue
            start = self._annotation_start(i - 1)
            if start is None:
                break
            i = start
        return i

    def _annotation_start(self, j: int) -> int | None:
        """If token j ends an annotation (``@A``, ``@a.B``, ``@A(...)``), its '@' index."""
        tokens = self.tokens
        if j < 0:
            return None
        if tokens[j].value == ")":
            depth = 0
            while j >= 0:
                if tokens[j].value == ")":
                    depth += 1
                elif tokens[j].value == "(":
                    depth -= 1
                    if depth == 0:
                        break
                j -= 1
            j -= 1
        if j < 0 or not isinstance(tokens[j], self.jl.tokenizer.Identifier):
            return None
        while j >= 2 and tokens[j - 1].value == "." and \
                isinstance(tokens[j - 2], self.jl.tokenizer.Identifier):
            j -= 2
        if j >= 1 and tokens[j - 1].value == "@":
            return j - 1
        return None

    def _body_bounds(self, i: int, *, no_body: bool = False) -> tuple[int | None, int]:
        """(index of the body's '{' or None, index of the last token) from token i.

        ``no_body``: an annotation element, whose ``default {1, 2}`` braces are a value.
        """
        tokens = self.tokens
        depth = 0
        n = len(tokens)
        while i < n:
            value = tokens[i].value
            if value in ("(", "{") and (value == "(" or no_body):
                depth += 1
            elif value in (")", "}") and (value == ")" or no_body):
                depth -= 1
            elif depth == 0 and value == ";":
                return None, i
            elif depth == 0 and value == "{":
                open_index = i
                braces = 0
                while i < n:
                    if tokens[i].value == "{":
                        braces += 1
                    elif tokens[i].value == "}":
                        braces -= 1
                        if braces == 0:
                            return open_index, i
                    i += 1
                return open_index, n - 1
            i += 1
        return None, n - 1

    def _span(self, node: Any) -> tuple[int, int, int | None, int]:
        """(start token, start line, body-open token, end line) of a declaration."""
        i = self._token_index(node)
        start = self._declaration_start(i)
        open_index, last = self._body_bounds(
            i, no_body=isinstance(node, self.tree.AnnotationMethod))
        return start, self.tokens[start].position.line, open_index, self.tokens[last].position.line

    def _signature(self, start: int, stop: int) -> str:
        """The declaration's source text from token ``start`` up to token ``stop``."""
        begin = self._offset(self.tokens[start])
        end = self._offset(self.tokens[stop]) if stop < len(self.tokens) else len(self.text)
        return squash(self.text[begin:end]).rstrip(";").strip()

    def _offset(self, token: Any) -> int:
        return self.line_starts[token.position.line - 1] + token.position.column - 1

    # --- declarations -------------------------------------------------------------------
    def _visit_type(self, node: Any, owner: str) -> None:
        tree = self.tree
        kinds = {tree.ClassDeclaration: "class", tree.InterfaceDeclaration: "interface",
                 tree.EnumDeclaration: "enum", tree.AnnotationDeclaration: "annotation"}
        kind = next((k for cls, k in kinds.items() if isinstance(node, cls)), None)
        if kind is None:
            return
        name = f"{owner}.{node.name}" if owner else node.name
        start, start_line, open_index, end_line = self._span(node)
        header_end = self.tokens[open_index].position.line if open_index is not None else end_line
        stop = open_index if open_index is not None else len(self.tokens)
        declared = JavaType(name=name, kind=kind, start=start_line, end=end_line,
                            header_end=header_end, signature=self._signature(start, stop),
                            doc=node.documentation or "")
        line = header_end
        extends = getattr(node, "extends", None) or []
        if not isinstance(extends, list):
            extends = [extends]
        for ref in extends:
            declared.extends.append((strip_generics(_render(ref)), self._line(ref, line)))
        for ref in getattr(node, "implements", None) or []:
            declared.implements.append((strip_generics(_render(ref)), self._line(ref, line)))
        self.model.types.append(declared)
        self.types[name] = declared
        body = list(node.body or [])
        if isinstance(node, tree.EnumDeclaration):
            body = list(node.body.declarations or [])
            for constant in node.body.constants or []:
                if constant.body:
                    anon = f"{name}${constant.name}"
                    self._anonymous(anon, constant.body)
        self._visit_members(body, name, declared)

    def _line(self, node: Any, default: int) -> int:
        position = getattr(node, "position", None)
        return position.line if position else default

    def _anonymous(self, name: str, members: list[Any]) -> None:
        anon = JavaType(name=name, kind="class", start=0, end=0, header_end=0, signature="",
                        anonymous=True)
        self.model.types.append(anon)
        self.types[name] = anon
        self._visit_members(list(members), name, anon)

    def _visit_members(self, members: list[Any], owner: str, declared: JavaType) -> None:
        tree = self.tree
        for member in members:
            if isinstance(member, (tree.MethodDeclaration, tree.ConstructorDeclaration,
                                   tree.AnnotationMethod)):
                self._visit_method(member, owner)
            elif isinstance(member, tree.FieldDeclaration):
                type_name = strip_generics(_render(member.type))
                for declarator in member.declarators:
                    declared.field_types[declarator.name] = type_name
                self._scan_body(member, owner, None, member.position.line if member.position
                                else declared.start)
            elif isinstance(member, tree.TypeDeclaration):
                self._visit_type(member, owner)

    def _visit_method(self, node: Any, owner: str) -> None:
        constructor = isinstance(node, self.tree.ConstructorDeclaration)
        simple_owner = owner.split(".")[-1].split("$")[-1]
        params = [(_render(p.type) + ("..." if p.varargs else ""), p.name)
                  for p in getattr(node, "parameters", None) or []]
        start, start_line, open_index, end_line = self._span(node)
        stop = open_index if open_index is not None else len(self.tokens)
        if open_index is None:
            _, last = self._body_bounds(self._token_index(node), no_body=isinstance(
                node, self.tree.AnnotationMethod))
            stop = last
        method = JavaMethod(owner=owner, name=simple_owner if constructor else node.name,
                            params=params, start=start_line, end=end_line,
                            signature=self._signature(start, stop), doc=node.documentation or "",
                            constructor=constructor)
        for type_text, name in params:
            method.local_types[name] = strip_generics(type_text)
        self.model.methods.append(method)
        self._scan_body(node, owner, method, start_line)

    def _scan_body(self, node: Any, owner: str, method: JavaMethod | None, line: int) -> None:
        """Calls, creations, local types and anonymous classes below ``node``."""
        tree = self.tree
        stack: list[tuple[Any, int, bool]] = [(child, line, False) for child in _kids(node)]
        while stack:
            current, line, chained = stack.pop()
            position = getattr(current, "position", None)
            if position:
                line = position.line
            if isinstance(current, tree.ClassCreator):
                type_name = strip_generics(_render(current.type))
                if method is not None:
                    method.creations.append((type_name, line))
                if current.body:
                    self._anonymous(f"{owner}${type_name.split('.')[-1]}", current.body)
                    members = {id(m) for m in current.body}
                    stack.extend((c, line, False) for c in _kids(current) if id(c) not in members)
                    continue
            elif isinstance(current, tree.TypeDeclaration):
                self._visit_type(current, owner)
                continue
            elif method is not None:
                self._note(current, method, line, chained)
            selectors = getattr(current, "selectors", None) or []
            for child in _kids(current):
                in_selectors = any(child is s for s in selectors)
                stack.append((child, line, in_selectors))

    def _note(self, node: Any, method: JavaMethod, line: int, chained: bool) -> None:
        tree = self.tree
        if isinstance(node, tree.SuperMethodInvocation):
            method.calls.append(JavaCall("super", node.member, line))
        elif isinstance(node, tree.MethodInvocation):
            if getattr(node, "_paicli_seen", False):
                return
            if chained:
                method.calls.append(JavaCall(None, node.member, line, chained=True))
            else:
                method.calls.append(JavaCall(node.qualifier or None, node.member, line))
        elif isinstance(node, tree.This):
            selectors = node.selectors or []
            # this.m() and this.field.m(): the first call's target is known, not chained
            if selectors and isinstance(selectors[0], tree.MethodInvocation):
                selectors[0]._paicli_seen = True
                method.calls.append(JavaCall("this", selectors[0].member, line))
            elif len(selectors) >= 2 and isinstance(selectors[0], tree.MemberReference) and \
                    isinstance(selectors[1], tree.MethodInvocation):
                selectors[1]._paicli_seen = True
                method.calls.append(JavaCall(f"this.{selectors[0].member}", selectors[1].member,
                                             line))
        elif isinstance(node, (tree.LocalVariableDeclaration, tree.FormalParameter)):
            declared = strip_generics(_render(node.type))
            declarators = getattr(node, "declarators", None)
            if declarators is None:
                method.local_types[node.name] = declared
                return
            for declarator in declarators:
                local = declared
                if local == "var" and isinstance(declarator.initializer, tree.ClassCreator):
                    local = strip_generics(_render(declarator.initializer.type))
                if local != "var":
                    method.local_types[declarator.name] = local


def _kids(node: Any) -> list[Any]:
    """Child nodes of a javalang node, lists flattened."""
    from javalang.ast import Node

    found: list[Any] = []
    for child in node.children:
        if isinstance(child, Node):
            found.append(child)
        elif isinstance(child, list | tuple):
            for item in child:
                if isinstance(item, Node):
                    found.append(item)
                elif isinstance(item, list | tuple):
                    found.extend(x for x in item if isinstance(x, Node))
    found.reverse()  # the stack pops the first child first
    return found


def _render(node: Any) -> str:
    """A javalang type as source spelling: ``Map<String, List<T>>[]``."""
    if node is None:
        return "void"
    name = node.name
    arguments = getattr(node, "arguments", None)
    if arguments:
        rendered = []
        for argument in arguments:
            if argument.type is None:
                rendered.append("?")
            elif argument.pattern_type:
                rendered.append(f"? {argument.pattern_type} {_render(argument.type)}")
            else:
                rendered.append(_render(argument.type))
        name += "<" + ", ".join(rendered) + ">"
    sub = getattr(node, "sub_type", None)
    if sub is not None:
        name += "." + _render(sub)
    name += "[]" * len(node.dimensions or [])
    return normalise_type(name)
