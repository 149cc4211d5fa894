#!/usr/bin/env python3
"""The walls between the blocks (docs/architecture.md, "Folders and their dependency rules"), checked on every
#include of the source tree. Usage: check_walls.py SOURCE_ROOT. Prints each breach as
FILE:LINE: the include, and why it is refused; exits 1 if there is any."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
include = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
installed = ("models", "firmware", "platform")
breaches = []


def allowed_gpuvp(path, target):
    """Whether a file at `path` (parts under the root) may include <gpuvp/target>."""
    top = path[0]
    t = target.split("/")
    if top == "models":
        return t[0] == "models" and t[1] in ("common", path[1])
    if top == "firmware":
        return t[0] == "firmware" or t[:2] == ["models", "common"]
    return t[0] in installed  # platform/, sc_main/, tests, tools: any installed header


def check(f):
    rel = f.relative_to(root)
    parts = rel.parts
    for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
        m = include.match(line)
        if not m:
            continue
        quote, target = m.groups()
        where = f"{rel}:{n}: #include {quote}{target}{'>' if quote == '<' else quote}"
        first = target.split("/")[0]
        if target.startswith("gpuvp/"):
            if quote != "<":
                breaches.append(f"{where}: an installed header is included as <gpuvp/...>")
            elif not (root / target[len("gpuvp/"):]).is_file():
                breaches.append(f"{where}: no such header in the source tree")
            elif not allowed_gpuvp(parts, target[len("gpuvp/"):]):
                breaches.append(f"{where}: {parts[0]}/{parts[1] + '/' if parts[0] == 'models' else ''} "
                                "may include only its own folder and models/common/")
        elif first in installed:
            breaches.append(f"{where}: an installed header is included as <gpuvp/{target}>")
        elif parts[0] in installed and quote == '"':
            breaches.append(f"{where}: the installed parts include nothing of the application or the tests")
        elif parts[0] in installed and first in ("nlohmann", "yaml-cpp"):
            breaches.append(f"{where}: the installed parts know no file format")
        if (first == "yaml-cpp" or target == "sc_main/scenario/yaml.h") and parts[:2] != ("sc_main", "scenario") \
                and parts[0] not in ("tests", "fuzz"):
            breaches.append(f"{where}: only the scenario loader (sc_main/scenario/) reads YAML")
        if target == "sqlite3.h" and rel.as_posix() != "sc_main/replay/database.cpp":
            breaches.append(f"{where}: only sc_main/replay/database.cpp uses SQLite (the others: database.h)")


for top in ("models", "firmware", "platform", "sc_main", "bench", "fuzz", "tests", "examples", "docs"):
    for f in sorted((root / top).rglob("*")):
        if f.suffix in (".h", ".cpp") and f.is_file():
            check(f)

for b in breaches:
    print(b)
print(f"walls: {len(breaches)} breach{'es' if len(breaches) != 1 else ''}")
sys.exit(1 if breaches else 0)
