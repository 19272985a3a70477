#!/usr/bin/env python3
"""check_responses.py LOG_DIR: every API response of the test suite, checked
against the OpenAPI document the server publishes.

The API tests (tests/api, run with PETO_API_LOG_DIR=LOG_DIR) append one JSON
line per exchange to LOG_DIR/<pid>.jsonl:
    {"method", "path", "status", "content_type", "body"}
and write GET /api/v1/openapi.json to LOG_DIR/openapi.json. This script checks
that the document is OpenAPI 3.1 shaped, then finds for each exchange the
operation (path template and method), the response object for its status
(exact code, else "4XX"-style range, else "default") and validates the body
against that response's schema for the logged media type. It prints a summary
and exits 1 listing every failure.

Needs python3-jsonschema (Draft 2020-12, the dialect of OpenAPI 3.1 schemas).
"""
import glob
import json
import os
import re
import sys
import warnings

import jsonschema

MIN_EXCHANGES = 50
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
MAX_FAILURES_SHOWN = 200


def load_document(log_dir, failures):
    path = os.path.join(log_dir, "openapi.json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        failures.append(f"cannot read {path}: {e}")
        return None


def check_document(doc, failures):
    """The shape of an OpenAPI 3.1 document, as far as the checks below rely on it."""
    if not isinstance(doc, dict):
        failures.append("openapi.json is not a JSON object")
        return
    version = doc.get("openapi")
    if not isinstance(version, str) or not re.fullmatch(r"3\.1\.\d+", version):
        failures.append(f'document: "openapi" is {version!r}, wanted "3.1.x"')
    info = doc.get("info")
    if not isinstance(info, dict) or not isinstance(info.get("title"), str) \
            or not isinstance(info.get("version"), str):
        failures.append("document: info needs a title and a version (strings)")
    paths = doc.get("paths")
    if not isinstance(paths, dict) or not paths:
        failures.append("document: no paths")
        return
    seen_ids = {}
    for template, item in paths.items():
        if not template.startswith("/"):
            failures.append(f"document: path {template!r} does not start with '/'")
        if not isinstance(item, dict):
            failures.append(f"document: path {template} is not an object")
            continue
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            where = f"{method.upper()} {template}"
            responses = op.get("responses") if isinstance(op, dict) else None
            if not isinstance(responses, dict) or not responses:
                failures.append(f"document: {where} has no responses")
            op_id = op.get("operationId") if isinstance(op, dict) else None
            if op_id is not None:
                if op_id in seen_ids:
                    failures.append(
                        f"document: operationId {op_id!r} used by {seen_ids[op_id]} and {where}")
                seen_ids[op_id] = where
            for name in re.findall(r"{([^}]+)}", template):
                params = op.get("parameters", []) + item.get("parameters", [])
                if not any(deref(doc, p).get("name") == name and deref(doc, p).get("in") == "path"
                           for p in params if isinstance(p, dict)):
                    failures.append(f"document: {where} does not declare path parameter {name}")


def deref(doc, obj):
    """Follows a local "$ref" (responses, parameters) to its target."""
    seen = 0
    while isinstance(obj, dict) and "$ref" in obj and seen < 20:
        ref = obj["$ref"]
        if not ref.startswith("#/"):
            return obj
        target = doc
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or part not in target:
                return {}
            target = target[part]
        obj = target
        seen += 1
    return obj if isinstance(obj, dict) else {}


def server_prefixes(doc):
    """Path prefixes the servers' URLs add (so "/companies" may serve /api/v1/companies)."""
    prefixes = [""]
    for server in doc.get("servers", []) or []:
        url = server.get("url", "") if isinstance(server, dict) else ""
        path = re.sub(r"^[a-z]+://[^/]*", "", url).rstrip("/")
        if path and path not in prefixes:
            prefixes.append(path)
    return prefixes


def template_regex(template):
    parts = re.split(r"({[^}]+})", template)
    return re.compile("^" + "".join("[^/]+" if p.startswith("{") else re.escape(p)
                                    for p in parts) + "$")


def find_operation(doc, routes, method, path):
    """(template, operation) for an exchange; literal segments beat parameters."""
    matches = []
    for prefix, template, regex in routes:
        if prefix and not path.startswith(prefix + "/"):
            continue
        rest = path[len(prefix):] if prefix else path
        if regex.match(rest):
            op = doc["paths"][template].get(method.lower())
            if op is not None:
                # Fewer parameters first: /applications/{id}/status over {a}/{b}/{c}.
                matches.append((template.count("{"), template, op))
    if not matches:
        return None, None
    matches.sort(key=lambda m: m[0])
    return matches[0][1], matches[0][2]


def find_response(doc, op, status):
    responses = op.get("responses", {}) if isinstance(op, dict) else {}
    for key in (str(status), f"{str(status)[0]}XX", f"{str(status)[0]}xx", "default"):
        if key in responses:
            return key, deref(doc, responses[key])
    return None, None


def make_validator(doc):
    """A function validating (instance, schema); "#/components/..." refs resolve.

    The schema is wrapped with the document's components beside it, so a
    local ref finds its target in the wrapper whichever jsonschema (Debian
    12's 4.10 or a newer one) is installed.
    """
    components = doc.get("components", {})
    cache = {}

    def errors(instance, schema):
        key = json.dumps(schema, sort_keys=True)
        if key not in cache:
            wrapped = {"$schema": "https://json-schema.org/draft/2020-12/schema",
                       "allOf": [schema], "components": components}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                jsonschema.Draft202012Validator.check_schema(wrapped)
                # Formats (date, date-time, email) are checked where the
                # installed jsonschema can; unknown ones are skipped.
                cache[key] = jsonschema.Draft202012Validator(
                    wrapped, format_checker=jsonschema.FormatChecker())
        found = sorted(cache[key].iter_errors(instance), key=lambda e: list(e.path))
        return [f"{'/'.join(str(p) for p in e.absolute_path) or '(body)'}: {e.message}"
                for e in found[:3]]
    return errors


def load_exchanges(log_dir, failures):
    exchanges = []
    for name in sorted(glob.glob(os.path.join(log_dir, "*.jsonl"))):
        with open(name, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    exchanges.append(json.loads(line))
                except ValueError as e:
                    failures.append(f"{os.path.basename(name)}:{number}: not JSON: {e}")
    return exchanges


def check_exchange(doc, routes, validate, ex, covered):
    """The failures of one exchange (a list of strings)."""
    method, path, status = ex.get("method", ""), ex.get("path", ""), ex.get("status", 0)
    where = f"{method} {path} -> {status}"
    if isinstance(status, int) and status >= 500:
        return [f"{where}: a server error in the test suite (see the test's log)"]
    template, op = find_operation(doc, routes, method, path)
    if op is None:
        return [f"{where}: no operation in the document matches"]
    covered.add((method.upper(), template))
    key, response = find_response(doc, op, status)
    if response is None:
        return [f"{where}: {method.upper()} {template} declares no response for {status}"]
    content = response.get("content") or {}
    body = ex.get("body")
    media = (ex.get("content_type") or "").split(";")[0].strip().lower()
    if not content:
        if body is not None:
            return [f"{where}: response {key} declares no content, but a body came ({media})"]
        return []
    if body is None:
        # A declared body may be absent only for 204/304 or HEAD.
        if status in (204, 304) or method.upper() == "HEAD":
            return []
        return [f"{where}: response {key} declares content, but no body came"]
    media_object = content.get(media)
    if media_object is None:
        return [f"{where}: response {key} has no content for {media!r} "
                f"(declared: {', '.join(content)})"]
    schema = media_object.get("schema")
    if schema is None:
        return []
    return [f"{where}: {message}" for message in validate(body, schema)]


def main(argv):
    if len(argv) != 2:
        print("usage: check_responses.py LOG_DIR", file=sys.stderr)
        return 2
    log_dir = argv[1]
    failures = []
    doc = load_document(log_dir, failures)
    if doc is not None:
        check_document(doc, failures)
    exchanges = load_exchanges(log_dir, failures)
    if len(exchanges) < MIN_EXCHANGES:
        failures.append(f"only {len(exchanges)} exchanges logged in {log_dir} "
                        f"(at least {MIN_EXCHANGES} expected): did the API tests run?")
    covered = set()
    operations = 0
    if isinstance(doc, dict) and isinstance(doc.get("paths"), dict):
        prefixes = server_prefixes(doc)
        routes = [(prefix, template, template_regex(template))
                  for prefix in prefixes for template in doc["paths"]]
        operations = sum(1 for item in doc["paths"].values() if isinstance(item, dict)
                         for m in METHODS if m in item)
        validate = make_validator(doc)
        # One message per distinct problem: the suite repeats requests a lot.
        seen = set()
        for ex in exchanges:
            for failure in check_exchange(doc, routes, validate, ex, covered):
                if failure not in seen:
                    seen.add(failure)
                    failures.append(failure)

    print(f"check_responses: {len(exchanges)} exchanges, "
          f"{len(covered)} of {operations} operations covered")
    if operations:
        missing = sorted(f"{m.upper()} {t}" for t, item in doc["paths"].items()
                         if isinstance(item, dict) for m in METHODS
                         if m in item and (m.upper(), t) not in covered)
        if missing:
            print("not exercised: " + ", ".join(missing))
    if failures:
        print(f"{len(failures)} failure(s):")
        for f in failures[:MAX_FAILURES_SHOWN]:
            print("  " + f)
        if len(failures) > MAX_FAILURES_SHOWN:
            print(f"  … and {len(failures) - MAX_FAILURES_SHOWN} more")
        return 1
    print("check_responses: every response matches the document")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
