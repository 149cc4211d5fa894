#!/usr/bin/env python3
"""The walls between the blocks and the application's floors (docs/architecture.md, "Folders and
their dependency rules"), checked on every #include of the source tree.

    check_walls.py SOURCE_ROOT     prints each breach as FILE:LINE: the include, and why it is
                                   refused; exits 1 if there is any
    check_walls.py --self-test     builds a tree that breaks each rule once, in a temporary
                                   folder, and checks that every breach is reported, and only those
"""
import pathlib
import re
import sys
import tempfile

include = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
installed = ("models", "firmware", "platform")

# The application's floors, lowest first: each folder of sc_main/ and the folders of sc_main/
# it may include besides its own. A folder includes only folders on floors below it.
APP = {
    "record": set(),
    "report": {"record"},
    "profiler": set(),
    "batch": set(),
    "scenario": {"record", "profiler"},
    "run": {"record", "report", "scenario", "batch"},
    "replay": {"record", "profiler", "scenario", "run", "batch"},
    "sweep": {"record", "report", "scenario", "run", "batch"},
    "regress": {"record", "scenario", "run", "batch"},
    "cluster": {"record", "scenario", "run", "batch", "sweep", "regress"},
}
MAIN = "main.cpp"  # sc_main/main.cpp: the command line, above every folder
# The folders of sc_main/ that may include the installed parts (<gpuvp/...>): all but these.
NOT_INSTALLED = {"report", "profiler", "batch"}
# The libraries the application's folders include, and where each may be included.
LIBRARIES = {
    "nlohmann": {"record", "report", "profiler", "run", "replay", "sweep", "regress", "cluster", MAIN},
    "yaml-cpp": {"scenario"},
    "zlib.h": {"profiler"},
    "sqlite3.h": {"profiler/database.cpp"},
    "CLI": {MAIN},
}


def allowed_gpuvp(path, target):
    """Whether a file at `path` (parts under the root) may include <gpuvp/target>."""
    top = path[0]
    t = target.split("/")
    if top == "models":
        return t[0] == "models" and t[1] in ("common", path[1])
    if top == "firmware":
        return t[0] == "firmware" or t[:2] == ["models", "common"]
    return t[0] in installed  # platform/, sc_main/, tests, tools: any installed header


def library_of(target):
    """The library of LIBRARIES an include names, or None."""
    first = target.split("/")[0]
    return first if first in LIBRARIES else target if target in LIBRARIES else None


def app_place(parts):
    """Where a file of sc_main/ sits: its folder, MAIN, or None outside sc_main/."""
    if parts[0] != "sc_main":
        return None
    return MAIN if len(parts) == 2 else parts[1]


def check(root, f, breaches):
    rel = f.relative_to(root)
    parts = rel.parts
    place = app_place(parts)
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
            elif place is not None and place in NOT_INSTALLED:
                breaches.append(f"{where}: sc_main/{place}/ includes none of the installed parts")
            elif not allowed_gpuvp(parts, target[len("gpuvp/"):]):
                breaches.append(f"{where}: {parts[0]}/{parts[1] + '/' if parts[0] == 'models' else ''} "
                                "may include only its own folder and models/common/")
        elif first in installed:
            breaches.append(f"{where}: an installed header is included as <gpuvp/{target}>")
        elif parts[0] in installed and quote == '"':
            breaches.append(f"{where}: the installed parts include nothing of the application or the tests")
        elif parts[0] in installed and first in ("nlohmann", "yaml-cpp"):
            breaches.append(f"{where}: the installed parts know no file format")
        if first == "sc_main" and quote == "<":
            breaches.append(f"{where}: the application's headers are included as \"sc_main/...\"")
        elif first == "sc_main":
            t = target.split("/")
            if not (root / target).is_file():
                breaches.append(f"{where}: no such header in the source tree")
            elif place is not None and place != MAIN and len(t) > 2 and t[1] != place and t[1] not in APP.get(place, ()):
                may = ", ".join(f"{d}/" for d in sorted(APP.get(place, ()))) or "no other folder of sc_main/"
                breaches.append(f"{where}: sc_main/{place}/ may include {may} (the application's floors)")
        if target == "sc_main/scenario/yaml.h" and place not in (None, "scenario"):
            breaches.append(f"{where}: only the scenario loader (sc_main/scenario/) reads YAML")
        lib = library_of(target) if quote == "<" else None
        if lib and place is not None:
            homes = LIBRARIES[lib]
            here = rel.relative_to("sc_main").as_posix()
            if place not in homes and here not in homes:
                said = ", ".join(f"sc_main/{h}" + ("/" if h in APP else "") for h in sorted(homes))
                breaches.append(f"{where}: only {said} include{'s' if len(homes) == 1 else ''} {lib}")
        elif lib in ("yaml-cpp", "sqlite3.h") and place is None and parts[0] not in ("tests", "fuzz"):
            home = "the scenario loader (sc_main/scenario/) reads YAML" if lib == "yaml-cpp" \
                else "sc_main/profiler/database.cpp uses SQLite (the others: database.h)"
            breaches.append(f"{where}: only {home}")


def check_tree(root):
    breaches = []
    for top in ("models", "firmware", "platform", "sc_main", "bench", "fuzz", "tests", "examples", "docs"):
        for f in sorted((root / top).rglob("*")):
            if f.suffix in (".h", ".cpp") and f.is_file():
                check(root, f, breaches)
    return breaches


def self_test():
    """A tree with one file per breach of each rule of the application's floors and libraries,
    beside files that keep them; every breach must be reported, and nothing else."""
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "platform").mkdir()
        (root / "platform/gpu.h").write_text("")
        for d in APP:
            (root / "sc_main" / d).mkdir(parents=True)
            (root / "sc_main" / d / "x.h").write_text("")
        expected = []
        n = 0

        def write(folder, text, breach):
            nonlocal n
            n += 1
            path = root / "sc_main" / folder / f"t{n}.cpp" if folder != MAIN else root / "sc_main" / f"t{n}.cpp"
            if folder == "profiler/database.cpp":
                path = root / "sc_main/profiler/database.cpp"
            path.write_text(text + "\n")
            if breach:
                expected.append(f"{path.relative_to(root).as_posix()}:1: {text}")

        for d in APP:
            for other in APP:
                if other != d:
                    write(d, f'#include "sc_main/{other}/x.h"', other not in APP[d])
            write(d, "#include <gpuvp/platform/gpu.h>", d in NOT_INSTALLED)
            for lib in LIBRARIES:
                name = {"nlohmann": "nlohmann/json.hpp", "yaml-cpp": "yaml-cpp/parser.h", "CLI": "CLI/CLI.hpp"}.get(lib, lib)
                write(d, f"#include <{name}>", d not in LIBRARIES[lib])
        for d in APP:
            write(MAIN, f'#include "sc_main/{d}/x.h"', False)
        write(MAIN, "#include <CLI/CLI.hpp>", False)
        write(MAIN, "#include <yaml-cpp/parser.h>", True)
        write("profiler/database.cpp", "#include <sqlite3.h>", False)
        write("run", '#include "sc_main/run/missing.h"', True)
        write("run", "#include <sc_main/record/x.h>", True)

        # Each file made holds one include, on its line 1: a breach is known by its place.
        found = check_tree(root)
        wanted = {e.split(": ")[0] for e in expected}
        reported = {b.split(": ")[0] for b in found}
        missed = [e for e in expected if e.split(": ")[0] not in reported]
        extra = [b for b in found if b.split(": ")[0] not in wanted]
        for m in missed:
            print(f"not reported: {m}")
        for e in extra:
            print(f"reported, but keeps the rules: {e}")
        print(f"self-test: {len(expected)} breaches made, {len(expected) - len(missed)} reported, {len(extra)} wrongly")
        return 0 if not missed and not extra else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    breaches = check_tree(root)
    for b in breaches:
        print(b)
    print(f"walls: {len(breaches)} breach{'es' if len(breaches) != 1 else ''}")
    sys.exit(1 if breaches else 0)
