#!/bin/sh
# The installed package, used as an SoC team uses it (ctest: package:soc-example):
#   1. cmake --install BUILD --prefix TMP/prefix; the installed gpuvp runs a bundled scenario
#      from PREFIX/share/gpuvp, and gpuvp_bench defaults to it
#   2. a copy of examples/soc, outside the source tree, configured with
#      -DCMAKE_PREFIX_PATH=TMP/prefix (same compiler, build type and generator), built
#   3. run it: exit code 0, "kernel done at X ns, signal 0" and "barrier released X ns after its signal's store"
#   4. run it with --check-protocol: the same, zero violations, and the CPU's DMI request granted
#   5. a project with folders of its own named models/ and platform/ builds against the package:
#      gpuvp's headers include each other as <gpuvp/...> and never reach the project's; the
#      0.1 include paths ("platform/gpu.h") still compile, through forwarding headers that say so
# Usage: build_example.sh CMAKE BUILD_DIR EXAMPLE_DIR CXX BUILD_TYPE GENERATOR LIBRARY
set -eu
cmake=$1 build=$2 example=$3 cxx=$4 build_type=$5 generator=$6 library=$7

if [ ! -f "$library" ]; then
    echo "FAIL: $library is not built: build the project before ctest" >&2
    exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuvp-package.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
prefix=$tmp/prefix

echo "== cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }

# The programs and their data: gpuvp runs a bundled scenario from the prefix alone, and the
# bench finds its scenarios there.
echo "== the installed gpuvp and gpuvp_bench"
"$prefix/bin/gpuvp" run "$prefix/share/gpuvp/scenarios/default.yaml" --quiet || { echo "FAIL: the installed gpuvp" >&2; exit 1; }
"$prefix/bin/gpuvp" validate "$prefix/share/gpuvp/traces/a100-triton-one-kernel.json.gz" >/dev/null ||
    { echo "FAIL: the installed traces" >&2; exit 1; }
"$prefix/bin/gpuvp_bench" --help | grep -qF "$prefix/share/gpuvp/scenarios/bench" ||
    { echo "FAIL: the installed bench does not default to the installed scenarios" >&2; exit 1; }

# The package must not point back into the source or build tree.
source_root=$(cd "$example/../.." && pwd)
if grep -rlF -e "$source_root" -e "$build" "$prefix/lib"*/cmake/gpuvp 2>/dev/null; then
    echo "FAIL: the package's CMake files above name the source or build tree" >&2
    exit 1
fi

# The example as an outside project: a copy, so nothing beside it in the source tree is seen.
cp -R "$example" "$tmp/soc"
echo "== configure examples/soc against the package ($build_type, $cxx)"
"$cmake" -S "$tmp/soc" -B "$tmp/soc-build" -G "$generator" -DCMAKE_BUILD_TYPE="$build_type" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }
grep -q "^gpuvp_DIR:PATH=$prefix/" "$tmp/soc-build/CMakeCache.txt" || {
    echo "FAIL: gpuvp was not found in the temporary prefix:" >&2
    grep "^gpuvp_DIR" "$tmp/soc-build/CMakeCache.txt" >&2
    exit 1
}

echo "== build"
"$cmake" --build "$tmp/soc-build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
if grep -F -e "$source_root" "$tmp/soc-build/compile_commands.json"; then
    echo "FAIL: the compile command above names the source tree" >&2
    exit 1
fi

echo "== run"
status=0
"$tmp/soc-build/soc_example" >"$tmp/run.log" 2>&1 || status=$?
cat "$tmp/run.log"
if [ "$status" -ne 0 ]; then
    echo "FAIL: soc_example exited with $status" >&2
    exit 1
fi
if ! grep -Eq "^kernel done at [0-9]+(\.[0-9]+)? ns, signal 0$" "$tmp/run.log"; then
    echo "FAIL: soc_example did not print 'kernel done at X ns, signal 0'" >&2
    exit 1
fi
# Its host memory ignores the CP's watch: the barrier's signal, stored through DMI, is polled.
if ! grep -Eq "^barrier released [0-9]+(\.[0-9]+)? ns after its signal's store$" "$tmp/run.log"; then
    echo "FAIL: soc_example did not print 'barrier released X ns after its signal's store'" >&2
    exit 1
fi
echo "== run with --check-protocol"
status=0
"$tmp/soc-build/soc_example" --check-protocol >"$tmp/checked.log" 2>&1 || status=$?
cat "$tmp/checked.log"
if [ "$status" -ne 0 ]; then
    echo "FAIL: soc_example --check-protocol exited with $status" >&2
    exit 1
fi
grep -Eq "^kernel done at [0-9]+(\.[0-9]+)? ns, signal 0$" "$tmp/checked.log" || {
    echo "FAIL: soc_example --check-protocol did not complete the kernel" >&2
    exit 1
}
# 4 SoC bindings + the GPU's inner ones (11 per SM + 18: 62 with 4 SMs); the ring went in by DMI.
grep -Eq "^TLM-2.0 base protocol: 66 checkers, [1-9][0-9]* b_transport, .* [1-9][0-9]* DMI requests \([1-9][0-9]* granted\), .*; 0 violations$" "$tmp/checked.log" || {
    echo "FAIL: expected 66 checkers, DMI granted and 0 violations" >&2
    exit 1
}
echo "== an integrator's own models/ and platform/ folders beside the package"
own=$tmp/own
mkdir -p "$own/src/models/memory" "$own/src/platform"
# Were gpuvp's headers to reach these, the build would stop here.
echo '#error "gpuvp reached the integrator'"'"'s models/memory/memory.h"' >"$own/src/models/memory/memory.h"
echo '#pragma once
namespace own { inline int gpu() { return 7; } }' >"$own/src/platform/gpu.h"
cat >"$own/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(own LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(gpuvp 0.1 REQUIRED)
add_executable(own_new new.cpp)  # the integrator's "platform/gpu.h" and gpuvp's <gpuvp/platform/gpu.h>
target_include_directories(own_new PRIVATE src)
target_link_libraries(own_new PRIVATE gpuvp::gpuvp)
add_library(own_old OBJECT old.cpp)  # release 0.1's include paths, no folders of its own
target_link_libraries(own_old PRIVATE gpuvp::gpuvp)
CMAKE
cat >"$own/new.cpp" <<'CPP'
#include "platform/gpu.h"
#include <gpuvp/platform/gpu.h>
int sc_main(int, char**) { gpuvp::GpuConfig c; return own::gpu() == 7 && c.platform.sms > 0 ? 0 : 1; }
CPP
cat >"$own/old.cpp" <<'CPP'
#include "platform/gpu.h"
#include "models/common/aql.h"
gpuvp::GpuConfig config_of_release_0_1;
CPP
"$cmake" -S "$own" -B "$own/build" -G "$generator" -DCMAKE_BUILD_TYPE="$build_type" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON >"$tmp/own-configure.log" 2>&1 ||
    { cat "$tmp/own-configure.log"; exit 1; }
"$cmake" --build "$own/build" >"$tmp/own-build.log" 2>&1 || { cat "$tmp/own-build.log"; exit 1; }
"$own/build/own_new" >/dev/null 2>&1 || { echo "FAIL: own_new did not run" >&2; exit 1; }
grep -q '"platform/gpu.h" is deprecated: include <gpuvp/platform/gpu.h>' "$tmp/own-build.log" || {
    cat "$tmp/own-build.log"
    echo "FAIL: the old include path compiled without saying it is deprecated" >&2
    exit 1
}
echo "PASS"
