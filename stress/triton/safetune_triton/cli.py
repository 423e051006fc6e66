"""The safetune-triton command.

    safetune-triton record --out TRACE [--fix] SCRIPT [ARGS...]
        runs a Python script with the recorder installed on Triton's Autotuner (with --fix, the
        fix under it) and writes its trace; exits with the script's status
    safetune-triton drive [DRIVER FLAGS...]
        the GPU scenarios from many threads, recorded and judged (safetune_triton.driver)
    safetune-triton check [--safetune PATH] TRACE [CHECK FLAGS...]
        `safetune check` on a trace, with the binary found as checker.find_safetune says

Exit status: record, the script's; drive, the driver's; check, safetune's (0 pass, 1 violation,
2 input error, 3 incomplete). 2 for a usage error (a script that is not a file, an --out whose
folder cannot be written), or when Triton or the safetune binary is not found, with a message
that says which.
"""

import argparse
import os
import runpy
import subprocess
import sys
import traceback

EXIT_USAGE = 2


def _parser():
    parser = argparse.ArgumentParser(
        prog="safetune-triton",
        description="Record, fix and check Triton's @triton.autotune with safetune.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    record = commands.add_parser("record", help="run a script under the recorder, write its trace")
    record.add_argument("--out", "-o", required=True, help="the trace file to write (JSON Lines)")
    record.add_argument("--fix", action="store_true", help="install the single-flight fix too")
    record.add_argument("script", help="the Python script to run")
    record.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    # drive's flags are the driver's own (main() hands them over before parsing), so that
    # `safetune-triton drive --help` shows them.
    commands.add_parser("drive", help="the GPU scenarios (safetune-triton drive --help)")
    check = commands.add_parser("check", help="safetune check on a trace")
    check.add_argument("--safetune", help="the safetune binary ($SAFETUNE, PATH, the build tree)")
    check.add_argument("args", nargs="*", help="TRACE and safetune check's flags")
    return parser


def _record_problem(args):
    """Why `record` cannot start (checked before the script runs, which may take long), or None."""
    if not os.path.isfile(args.script):
        return "the script {!r} is not a file".format(args.script)
    folder = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        return "--out {!r}: its folder {!r} is not a writable folder".format(args.out, folder)
    return None


def record(args):
    from .recorder import Recorder
    from .triton_api import TritonApiMismatch

    problem = _record_problem(args)
    if problem:
        print("safetune-triton record: {}".format(problem), file=sys.stderr)
        return EXIT_USAGE
    try:
        recorder = Recorder(fix=args.fix).install()
    except TritonApiMismatch as error:
        print("safetune-triton record: {}".format(error), file=sys.stderr)
        return EXIT_USAGE
    sys.argv = [args.script] + args.args
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.script)))
    status = 0
    try:
        runpy.run_path(args.script, run_name="__main__")
    except SystemExit as ended:
        status = ended.code if isinstance(ended.code, int) else (0 if ended.code is None else 1)
    except Exception:  # the script's own failure: shown, and its calls are still in the trace
        traceback.print_exc()
        status = 1
    finally:
        recorder.uninstall()
    recorder.write(args.out)
    print(
        "safetune-triton: recorded {} events into {}; judge it: safetune-triton check {}".format(
            len(recorder.log.events()), args.out, args.out
        ),
        file=sys.stderr,
    )
    return status


def check(args):
    from .checker import find_safetune

    try:
        binary = find_safetune(args.safetune)
    except ValueError as error:
        print("safetune-triton check: {}".format(error), file=sys.stderr)
        return EXIT_USAGE
    return subprocess.run([binary, "check", *args.args]).returncode


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["drive"]:
        from .driver.main import run

        return run(argv[1:])
    parser = _parser()
    args, unknown = parser.parse_known_args(argv)
    if args.command == "check":
        args.args = unknown + args.args  # safetune check's own flags (--json, --chrome FILE)
        return check(args)
    if unknown:
        parser.error("unrecognized arguments: {}".format(" ".join(unknown)))
    return record(args)
