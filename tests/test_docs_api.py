"""docs/api.md is the contract, and it cannot drift from the code:

- its routes are exactly the routes the service serves, each with the request and answer
  models the served OpenAPI document names;
- its models are exactly the OpenAPI document's, field by field (no field missing, none that
  does not exist), each with its required fields and scalar defaults as the pydantic models
  have them, every allowed value of a field spelt out, and each status word listed;
- its commands are exactly those of `verifier` and `grpo`, option by option;
- and, where the design's binding contract is at hand (the shared folder's DESIGN.md), every
  name that contract fixes appears in it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import typer

from tests.doc_blocks import REPO
from verifier.api.app import create_app
from verifier.config import Settings

API = REPO / "docs" / "api.md"
# FastAPI's own model of a 422, which this service does not send: its 422 body is documented
# under Errors (`{"detail": [...], "error": ...}`).
FASTAPI_OWN = {"HTTPValidationError", "ValidationError"}
LINK = re.compile(r"\[(\w+)\]\(#[\w-]+\)")


def sections(level: int) -> dict[str, str]:
    """Heading text -> the text under it, for headings of exactly `level` (## is 2)."""
    text = API.read_text()
    parts = re.split(rf"^{'#' * level} (.+)$", text, flags=re.M)
    found: dict[str, str] = {}
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        assert heading not in found, f"two sections named {heading!r}"
        found[heading.strip()] = re.split(rf"^#{{1,{level}}} ", body, flags=re.M)[0]
    return found


def subsections(parent: str) -> dict[str, str]:
    """The ### sections under the ## section `parent`."""
    body = sections(2)[parent]
    names = set(re.findall(r"^### (.+)$", body, flags=re.M))
    return {name: text for name, text in sections(3).items() if name in names}


def table(body: str) -> list[list[str]]:
    """The rows of the first table in `body`, as cells (header and rule left out)."""
    rows = []
    for line in body.splitlines():
        if line.startswith("|"):
            rows.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]])
        elif rows:
            break
    assert len(rows) > 2, "no table"
    return rows[2:]


def code(cell: str) -> str:
    match = re.fullmatch(r"`([^`]+)`", cell)
    assert match, f"{cell!r} should be one name in backticks"
    return match.group(1)


@pytest.fixture(scope="module")
def openapi(verifier_url: str) -> dict[str, Any]:
    """The document the service serves."""
    return httpx.get(f"{verifier_url}/openapi.json", timeout=60).raise_for_status().json()


def served_routes() -> set[tuple[str, str]]:
    """(method, path) of every route the app serves, in the OpenAPI document or not."""
    def walk(routes: list[Any], prefix: str) -> set[tuple[str, str]]:
        found = set()
        for route in routes:
            if hasattr(route, "methods") and hasattr(route, "path"):
                found |= {(m, prefix + route.path) for m in route.methods if m != "HEAD"}
            elif hasattr(route, "original_router"):  # an included router (newer FastAPI)
                found |= walk(route.original_router.routes, prefix + getattr(
                    route.include_context, "prefix", ""))
        return found

    return walk(create_app(Settings(workers=1)).routes, "")


def documented_routes() -> dict[tuple[str, str], list[str]]:
    return {(code(row[0]), code(row[1])): row for row in table(sections(2)["Routes"])}


def schema_name(holder: dict[str, Any]) -> str | None:
    ref = holder.get("schema", {}).get("$ref")
    return ref.rsplit("/", 1)[1] if ref else None


def test_the_routes_are_the_served_routes(openapi: dict[str, Any]) -> None:
    documented = documented_routes()
    served = served_routes()
    assert set(documented) == served, (f"served, not documented: {served - set(documented)}; "
                                       f"documented, not served: {set(documented) - served}")
    for path, operations in openapi["paths"].items():
        for method, operation in operations.items():
            _, _, request, answer = documented[(method.upper(), path)]
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            assert LINK.findall(request) == ([schema_name(body)] if body else []), (path, request)
            success = min(code for code in operation["responses"] if code.startswith("2"))
            assert re.match(r"\d+", answer)[0] == success, (path, answer, success)
            answer_model = schema_name(operation["responses"][success]
                                       .get("content", {}).get("application/json", {}))
            if answer_model:  # else not JSON (a stream, a page), described in words
                assert LINK.findall(answer)[:1] == [answer_model], (path, answer)


def enum_values(schema: dict[str, Any]) -> list[Any]:
    """The values a field allows when they are a fixed set (Literal, const), refs not followed."""
    values = list(schema.get("enum", []))
    if "const" in schema:
        values.append(schema["const"])
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key, []):
            values += enum_values(option)
    return values


def states_default(cell: str, field: dict[str, Any]) -> bool:
    """Whether the default column states the field's default as the model has it."""
    if cell == "required":
        return False
    if "default" not in field or isinstance(field["default"], list | dict):
        return True  # none in the document (null or a factory), or a list spelt out in words
    literal = re.fullmatch(r"`([^`]+)`", cell)
    if literal is None:
        return False
    value, default = json.loads(literal.group(1)), field["default"]
    return value == default and (type(value) is type(default)
                                 or {type(value), type(default)} <= {int, float})


def test_every_model_is_documented_field_by_field(openapi: dict[str, Any]) -> None:
    schemas = {name: schema for name, schema in openapi["components"]["schemas"].items()
               if name not in FASTAPI_OWN}
    documented = subsections("Models")
    assert set(documented) == set(schemas), (
        f"undocumented: {set(schemas) - set(documented)}; "
        f"documented, not served: {set(documented) - set(schemas)}")
    for name, schema in schemas.items():
        rows = table(documented[name])
        if "enum" in schema:  # a status word's model: one row per value
            assert [code(row[0]) for row in rows] == schema["enum"], name
            assert all(row[1] for row in rows), name
            continue
        fields = schema["properties"]
        assert sorted(code(row[0]) for row in rows) == sorted(fields), f"{name}: fields differ"
        for field_cell, type_cell, default_cell, meaning in rows:
            field = fields[code(field_cell)]
            where = f"{name}.{code(field_cell)}"
            required = code(field_cell) in schema.get("required", [])
            assert (default_cell == "required") == required, f"{where}: required is {required}"
            if not required:
                assert states_default(default_cell, field), \
                    f"{where}: the page says {default_cell}, the model {field.get('default')!r}"
            row = f"{type_cell} {meaning}"
            for value in enum_values(field):
                assert re.search(rf'`"?{re.escape(str(value))}"?`', row), \
                    f"{where}: the value {value!r} is not spelt out"
            assert meaning, where


def options(command: Any) -> set[str]:
    """A click command's documented names: its options' long names, its arguments in caps."""
    names = set()
    for param in command.params:
        if getattr(param, "hidden", False):
            continue
        if param.param_type_name == "argument":
            names.add(param.name.upper())
        else:
            names.add(max(param.opts, key=len))
    return names


def test_every_command_and_option_is_documented() -> None:
    from trainer.cli import app as grpo
    from verifier.cli import app as verifier

    commands = {f"{program} {name}": command
                for program, app in (("verifier", verifier), ("grpo", grpo))
                for name, command in typer.main.get_command(app).commands.items()}
    documented = subsections("Command line")
    assert set(documented) == set(commands)
    for name, command in commands.items():
        rows = table(documented[name])
        assert {code(row[0]) for row in rows} == options(command), name
        assert all(row[1] for row in rows), name


def design_file() -> Path | None:
    """The design's binding contract, in the shared folder beside the checkout (if any)."""
    return next((folder / "shared" / "DESIGN.md" for folder in REPO.parents[:4]
                 if (folder / "shared" / "DESIGN.md").is_file()), None)


def binding_names(design: str) -> set[str]:
    """The names the design's binding sections fix: fields and values in its JSON, routes and
    options in its backticks."""
    binding = design[design.index("## 3."):design.index("## 5.")]
    names = set(re.findall(r'"([A-Za-z_][\w]*)"', binding))
    for span in re.findall(r"`([^`\n]+)`", binding):
        names |= set(re.findall(r"(?:/[\w{}]+)+|--[\w-]+|\b[a-z_]+\b", span))
    return {name for name in names if len(name) > 1}


def test_the_page_keeps_every_binding_name_of_the_design() -> None:
    design = design_file()
    if design is None:
        pytest.skip("the shared folder's DESIGN.md is not beside this checkout")
    page = API.read_text()
    # the design's path parameter is a placeholder: /v1/jobs/{id} is the page's /v1/jobs/{job_id}
    missing = sorted(name for name in binding_names(design.read_text()) if not re.search(
        re.escape(name).replace(re.escape("{id}"), r"\{\w+\}"), page))
    assert not missing, f"the design's binding names missing from docs/api.md: {missing}"
