#!/usr/bin/env bash
# Runs one Spin check of a Promela model: spin -a -> cc pan.c -> pan, and judges pan's output.
#
# Usage: check.sh --model FILE --workdir DIR --mode safety|liveness --expect pass|fail
#                 [--expect-error REGEX] [--define NAME[=VALUE]]... [--spin PATH] [--cc PATH]
#
#   safety    pan compiled with -DNOCLAIM: assertions and invalid end states (deadlocks).
#   liveness  pan -a -f: acceptance cycles of the model's LTL claim under weak fairness. The
#             model must have a claim (pan -d lists it, checked before the search) and pan must
#             say that it used it ("never claim + (name)"): without one it searches nothing of
#             the claim's and reports no errors, so the check fails.
#   --expect pass  succeeds only when pan reports `errors: 0` AND the search was complete
#                  (a truncated search proves nothing, so it fails rather than passes).
#   --expect fail  succeeds only when pan reports errors > 0 (a mutation must be caught), and,
#                  with --expect-error, when pan's first error line matches REGEX.
# pan exits 0 even when it finds errors, so the verdict comes from its `errors: N` line.
# Prints the states stored and pan's elapsed time; on an error, the command that replays it.
# pan.c is compiled with plain cc, never with the project's (sanitizer) flags: -O1 for a check
# that must pass (the search dominates: a full search), -O0 for one that must fail (pan stops at
# the first error, so compiling pan.c dominates; -O0 compiles it 6x faster than -O2).
set -euo pipefail

model="" workdir="" mode="" expect="" expect_error="" spin=spin cc=cc
defines=()
while (($#)); do
  case "$1" in
    --model) model=$2; shift 2 ;;
    --workdir) workdir=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --expect) expect=$2; shift 2 ;;
    --expect-error) expect_error=$2; shift 2 ;;
    --define) defines+=("-D$2"); shift 2 ;;
    --spin) spin=$2; shift 2 ;;
    --cc) cc=$2; shift 2 ;;
    *) echo "check.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -f $model ]] || { echo "check.sh: --model: no such file '$model'" >&2; exit 2; }
[[ -n $workdir ]] || { echo "check.sh: --workdir is required" >&2; exit 2; }
case "$mode" in
  safety) cc_flags=(-DNOCLAIM -DCOLLAPSE); pan_flags=() ;;
  liveness) cc_flags=(-DCOLLAPSE); pan_flags=(-a -f) ;;
  *) echo "check.sh: --mode must be safety or liveness, not '$mode'" >&2; exit 2 ;;
esac
case "$expect" in
  pass) opt=-O1 ;;
  fail) opt=-O0 ;;
  *) echo "check.sh: --expect must be pass or fail, not '$expect'" >&2; exit 2 ;;
esac

# A fresh folder per check: spin and pan write pan.* and the trail into the current folder.
rm -rf "$workdir"
mkdir -p "$workdir"
cp "$model" "$workdir/"
cd "$workdir"
name=$(basename "$model")

if ! "$spin" -a "${defines[@]}" "$name" >spin.log 2>&1; then
  echo "check.sh: spin -a ${defines[*]} $name failed:" >&2
  cat spin.log >&2
  exit 1
fi
if ! "$cc" "$opt" "${cc_flags[@]}" -o pan pan.c >cc.log 2>&1; then
  echo "check.sh: $cc $opt ${cc_flags[*]} pan.c failed:" >&2
  cat cc.log >&2
  exit 1
fi
# A liveness check of a model with no never claim would search nothing of the claim's: pan -d
# lists the claim ("claim returns") when there is one, so a missing claim fails before the search.
# (Into a file first: under pipefail, grep -q closing the pipe early would fail pan with SIGPIPE.)
if [[ $mode == liveness ]] && { ./pan -d >pan-d.log 2>&1 || true; ! grep -q '^claim ' pan-d.log; }; then
  echo "FAIL: pan used no never claim (pan -d lists none), so the liveness check would check nothing" >&2
  exit 1
fi
# -m: the search depth limit; the model's depth is a few hundred, and a hit is reported below.
./pan "${pan_flags[@]}" -m100000 >pan.log 2>&1 || true

errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' pan.log | head -n 1)
if [[ -z $errors ]]; then
  echo "check.sh: no 'errors: N' line in pan's output ($workdir/pan.log):" >&2
  tail -n 20 pan.log >&2
  exit 1
fi
stored=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' pan.log | head -n 1)
elapsed=$(sed -n 's/^pan: elapsed time \(.*\)/\1/p' pan.log | head -n 1)
first_error=$(grep -m 1 -E '^pan:[0-9]+: ' pan.log || true)
incomplete=$(grep -m 1 -E 'Search not completed|max search depth too small' pan.log || true)

claim=$(sed -n 's/^[[:space:]]*never claim[[:space:]]*\([+-].*\)$/\1/p' pan.log | head -n 1)
if [[ $mode == liveness && $claim != +* ]]; then
  echo "FAIL: pan used no never claim (it says: never claim ${claim:-?}), so the liveness check checked nothing" >&2
  exit 1
fi

echo "spin $mode ${defines[*]}: errors: $errors, states stored: ${stored:-?}, time: ${elapsed:-?}${claim:+, never claim $claim}"
[[ -z $first_error ]] || echo "  first error: $first_error"
# pan stops at its first error, so "Search not completed" matters only when none was found.
((errors > 0)) || [[ -z $incomplete ]] || echo "  search incomplete: $incomplete"
if ((errors > 0)); then
  echo "  replay: cd $workdir && $spin -t -p -g -l ${defines[*]} $name"
fi

if [[ $expect == pass ]]; then
  if ((errors != 0)); then
    echo "FAIL: expected no errors" >&2
    exit 1
  fi
  if [[ -n $incomplete ]]; then
    echo "FAIL: the search was not complete, so it proves nothing" >&2
    exit 1
  fi
  echo "PASS: exhaustive, no errors"
  exit 0
fi
if ((errors == 0)); then
  echo "FAIL: expected pan to find an error (the mutation was not caught)" >&2
  exit 1
fi
if [[ -n $expect_error ]] && ! grep -qE "$expect_error" <<<"$first_error"; then
  echo "FAIL: expected an error matching '$expect_error'" >&2
  exit 1
fi
echo "PASS: the error was found, as expected"
