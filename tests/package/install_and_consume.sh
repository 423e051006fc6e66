#!/usr/bin/env bash
# The CMake package, as a user meets it: install the build into a fresh prefix, then
# 1. every installed header compiles on its own (the set is closed under #include);
# 2. the installed `safetune --version` prints the project's version;
# 3. the cudnn-style cache adapter (stress/adapters/cudnn_style_cache/), configured out of tree
#    with only find_package(safetune REQUIRED) and the prefix, builds, and its binary catches the
#    cache's bug: exit 1 with R2 (exclusive tuning).
# Usage: install_and_consume.sh CMAKE BUILD_DIR SOURCE_DIR CXX VERSION
set -euo pipefail
cmake=$1 build=$2 source=$3 cxx=$4 version=$5
work=$(mktemp -d "${TMPDIR:-/tmp}/safetune-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

fail() { echo "package test: $*" >&2; exit 1; }

"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log" >&2; fail "cmake --install failed"; }
for path in bin/safetune lib/cmake/safetune/safetuneConfig.cmake lib/cmake/safetune/safetuneConfigVersion.cmake \
            lib/libsafetune_model.a lib/libsafetune_autotuner.a lib/libsafetune_harness.a \
            include/safetune/impl/autotuner.h include/safetune/model/checker.h \
            include/safetune/stress/cli/run_cli.h include/safetune/stress/subjects/subject.h; do
  [[ -e $prefix/$path ]] || fail "the install has no $path"
done

headers=0
while IFS= read -r header; do
  echo "#include \"$header\"" | "$cxx" -std=c++20 -fsyntax-only -I "$prefix/include/safetune" -x c++ - \
    || fail "the installed header $header does not compile on its own"
  headers=$((headers + 1))
done < <(cd "$prefix/include/safetune" && find . -name '*.h' | sed 's|^\./||' | sort)
echo "package test: $headers installed headers, each compiles on its own"

printed=$("$prefix/bin/safetune" --version)
[[ $printed == "safetune $version" ]] || fail "safetune --version printed '$printed', not 'safetune $version'"

# The consumer sees the prefix and nothing of this tree: no package registry, no build directory.
"$cmake" -S "$source/stress/adapters/cudnn_style_cache" -B "$work/consumer" -G Ninja \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$work/configure.log" \
  || { cat "$work/configure.log" >&2; fail "the out-of-tree consumer did not configure"; }
found=$(sed -n 's/^safetune_DIR:PATH=//p' "$work/consumer/CMakeCache.txt")
[[ $found == "$prefix/lib/cmake/safetune" ]] || fail "find_package found safetune at '$found', not in the prefix"
"$cmake" --build "$work/consumer" >"$work/build.log" || { cat "$work/build.log" >&2; fail "the consumer did not build"; }

set +e
"$work/consumer/safetune-example-cudnn-cache" stress --subject cudnn-cache --seed 7 >"$work/catch.log" 2>&1
status=$?
set -e
grep -q "VIOLATION R2 (exclusive tuning)" "$work/catch.log" && ((status == 1)) \
  || { cat "$work/catch.log" >&2; fail "the consumer's binary exited $status without catching R2"; }
echo "package test: the out-of-tree consumer built against $found and caught R2 (exit 1)"
