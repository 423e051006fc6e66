#!/usr/bin/env bash
# The Python package safetune-triton, as a Triton user meets it: pip-installed offline into a
# fresh venv (--system-site-packages, for Debian's setuptools and wheel; no index), then, from a
# folder outside the checkout:
# 1. `from safetune_triton import Recorder, SingleFlightFix` imports the installed copy, whose
#    version is safetune's;
# 2. `safetune-triton --help` lists its commands;
# 3. a round trip through the entry point: `record --fix` of a program with racing threads (on
#    the fake triton of tests/triton/fake_gpu/), then `check` with the binary found through
#    $SAFETUNE: a pass with one attempt; with no binary to be found, check says so (exit 2).
# Usage: python_package.sh PYTHON SOURCE_DIR SAFETUNE VERSION
set -euo pipefail
python=$1 source=$2 safetune=$3 version=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/safetune-triton-package.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() { echo "python package test: $*" >&2; exit 1; }

# pip builds in the folder it installs from: a copy keeps the checkout unwritten.
cp -r "$source/stress/triton" "$work/source"
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --no-build-isolation --no-index --no-deps --quiet "$work/source" \
  >"$work/pip.log" 2>&1 || { cat "$work/pip.log" >&2; fail "pip install failed"; }
rm -rf "$work/source"
cd "$work"

imported=$(venv/bin/python -c 'import importlib.metadata as m, safetune_triton
from safetune_triton import Recorder, SingleFlightFix
print(safetune_triton.__file__, m.version("safetune-triton"))')
read -r file installed_version <<<"$imported"
[[ $file == "$work/venv/"* ]] || fail "safetune_triton was imported from $file, not from the venv"
[[ $installed_version == "$version" ]] || fail "the package's version is $installed_version, safetune's is $version"

help=$(venv/bin/safetune-triton --help)
for command in record drive check; do
  grep -q "^    $command " <<<"$help" || fail "safetune-triton --help lists no '$command': $help"
done

fakes="$source/tests/triton/fake_gpu:$source/tests/triton"
PYTHONPATH=$fakes venv/bin/safetune-triton record --fix --out trace.jsonl "$source/tests/package/triton_round_trip.py" \
  2>record.log || { cat record.log >&2; fail "safetune-triton record failed"; }
set +e
SAFETUNE=$safetune venv/bin/safetune-triton check trace.jsonl --json >verdict.json
status=$?
set -e
((status == 0)) || { cat verdict.json >&2; fail "safetune-triton check exited $status on the fixed program's trace"; }
venv/bin/python - verdict.json <<'PY' || fail "the verdict is not a pass with one attempt: $(cat verdict.json)"
import json, sys
verdict = json.load(open(sys.argv[1]))
stats = verdict["stats"]
sys.exit(0 if (verdict["verdict"], stats["calls"], stats["attempts"]) == ("pass", 8, 1) else 1)
PY

set +e
env -u SAFETUNE PATH="$work/venv/bin:/usr/bin:/bin" venv/bin/safetune-triton check trace.jsonl >missing.log 2>&1
status=$?
set -e
((status == 2)) && grep -q "no safetune binary" missing.log \
  || { cat missing.log >&2; fail "with no binary to find, check exited $status"; }
echo "python package test: installed $installed_version into a venv; record --fix then check: pass, 8 calls, 1 attempt"
