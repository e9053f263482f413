"""Regenerate tests/recordings/: real MXNet 1.9.1's results for the differential tests.

Why: without MXNet (numpy 2.x, a newcomer's machine) the differential tests replay these
recordings instead of skipping (tests/mxnet_record.py). Run this in the MXNet environment
after adding or changing a differential test case, or when the engine's exported JSON
changes (real MXNet re-runs it):

    python tools/record_mxnet.py                      # every test module
    python tools/record_mxnet.py tests/test_ops_misc.py   # only these modules

Each module's recording is rebuilt from scratch from the tests that ran, so pass whole test
files (no -k): a partial run would drop the other tests' recordings. Test failures do not
stop the recording (real MXNet's result is the reference whatever the engine does); they
are reported at the end.
"""

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="test files (default: the whole tests/ folder)")
    args = ap.parse_args(argv)
    try:
        import mxnet
    except ImportError:
        sys.exit("record_mxnet: real MXNet 1.9.1 is needed (pip install -e '.[mxnet]')")
    if mxnet.__version__ != "1.9.1":
        sys.exit("record_mxnet: MXNet 1.9.1 is needed, found " + mxnet.__version__)
    files = args.files or ["tests"]
    recordings = ROOT / "tests" / "recordings"
    if not args.files and recordings.exists():  # a full run: no stale module files
        for old in recordings.glob("*.npz"):
            old.unlink()
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-n",  # one process (the project's addopts need xdist loaded: `-p no:xdist` fails)
        "0",
        "--record-mxnet",
        "-m",
        "mxnet",
        *files,
    ]
    print(" ".join(cmd))
    rc = subprocess.call(cmd, cwd=ROOT)
    size = sum(p.stat().st_size for p in recordings.glob("*.npz"))
    print(
        "tests/recordings/: {} files, {:.1f} MB".format(
            len(list(recordings.glob("*.npz"))), size / 1e6
        )
    )
    return rc


if __name__ == "__main__":
    sys.exit(main())
