#!/usr/bin/python3
"""Validates Kubernetes manifests offline against the API schema carried by the
Kubernetes Python client's generated models (Debian's python3-kubernetes).

Each document is walked against the model of its apiVersion/kind: a key the model does
not name is an error, every value must have the model's type (str, int, bool, list[...],
dict(str, ...), a nested model, or `object`, which takes anything), and each model is
constructed with client-side validation on, so a missing required field is an error.

usage: validate_k8s.py [--dump] FILE.yaml...   with --dump, the documents are printed as
one JSON list when valid (for tests to read without a YAML parser). Exit 0 when every document is valid; otherwise the
errors, one a line (path in the document), and exit 1. Exit 3 when the client is missing.
"""
import json
import re
import sys

try:
    import yaml
    from kubernetes import client
    from kubernetes.client import models
except ImportError as err:
    print(f"python3-kubernetes is missing: {err}", file=sys.stderr)
    sys.exit(3)

CONFIG = client.Configuration()
CONFIG.client_side_validation = True

# apiVersion "group/version" -> the model prefix: v1 -> V1, batch/v1 -> V1, apps/v1 -> V1.
KINDS = {
    ("v1", "ConfigMap"): models.V1ConfigMap,
    ("batch/v1", "Job"): models.V1Job,
    ("v1", "PersistentVolumeClaim"): models.V1PersistentVolumeClaim,
}


def check(value, type_name, path, errors):
    """Checks `value` against an openapi type name; returns the value to construct with."""
    if value is None:
        return None
    if type_name == "object":
        return value
    match = re.fullmatch(r"list\[(.+)\]", type_name)
    if match:
        if not isinstance(value, list):
            errors.append(f"{path}: a list expected, found {type(value).__name__}")
            return None
        return [check(v, match.group(1), f"{path}[{i}]", errors) for i, v in enumerate(value)]
    match = re.fullmatch(r"dict\(str, (.+)\)", type_name)
    if match:
        if not isinstance(value, dict):
            errors.append(f"{path}: a map expected, found {type(value).__name__}")
            return None
        return {k: check(v, match.group(1), f"{path}.{k}", errors) for k, v in value.items()}
    scalars = {"str": (str,), "int": (int,), "bool": (bool,), "float": (int, float)}
    if type_name in scalars:
        ok = isinstance(value, scalars[type_name]) and not (
            type_name in ("int", "float") and isinstance(value, bool))
        if not ok:
            errors.append(f"{path}: {type_name} expected, found {type(value).__name__} {value!r}")
        return value
    if type_name in ("datetime", "date"):
        if not isinstance(value, str):
            errors.append(f"{path}: a time string expected")
        return None
    model = getattr(models, type_name, None)
    if model is None:
        errors.append(f"{path}: the schema names an unknown type {type_name}")
        return None
    return build(value, model, path, errors)


def build(value, model, path, errors):
    """Walks a mapping against `model` and constructs it (required fields enforced)."""
    if not isinstance(value, dict):
        errors.append(f"{path}: an object ({model.__name__}) expected, found {type(value).__name__}")
        return None
    by_json = {json: attr for attr, json in model.attribute_map.items()}
    kwargs = {}
    for key, item in value.items():
        attr = by_json.get(key)
        if attr is None:
            errors.append(f"{path}.{key}: unknown field of {model.__name__}")
            continue
        kwargs[attr] = check(item, model.openapi_types[attr], f"{path}.{key}", errors)
    try:
        return model(local_vars_configuration=CONFIG, **kwargs)
    except (ValueError, TypeError) as err:
        errors.append(f"{path}: {model.__name__}: {err}")
        return None


def validate(document, where):
    errors = []
    if not isinstance(document, dict):
        return [f"{where}: not a mapping"]
    model = KINDS.get((document.get("apiVersion"), document.get("kind")))
    if model is None:
        return [f"{where}: no schema for apiVersion {document.get('apiVersion')!r} kind {document.get('kind')!r}"]
    build(document, model, f"{where}:{document['kind']}", errors)
    return errors


def main(args):
    dump = "--dump" in args
    files = [a for a in args if a != "--dump"]
    errors, documents = [], []
    for name in files:
        with open(name, encoding="utf-8") as f:
            for i, document in enumerate(yaml.safe_load_all(f)):
                if document is None:
                    continue
                documents.append(document)
                errors += validate(document, f"{name}#{i + 1}")
    for error in errors:
        print(error)
    if not errors and dump:
        print(json.dumps(documents))
    elif not errors:
        print(f"{len(documents)} documents valid")
    return 1 if errors or not documents else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
