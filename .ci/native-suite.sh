#!/usr/bin/env bash
# The native build's suite: the modules setup.py lists compiled by mypyc (ICEBERG_UDF_MYPYC=1) in a
# copy of this checkout, and the whole suite run against them. The checkout itself is never built
# in, so its modules stay the pure-Python ones. Arguments go to pytest.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
py="${PYTHON:-$root/.venv/bin/python}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tar -C "$root" --exclude=./.venv --exclude=./.git --exclude=./build -cf - . | tar -C "$work" -xf -
cd "$work"
find . -name '*.so' -delete
ICEBERG_UDF_MYPYC=1 "$py" setup.py -q build_ext --inplace -j 2 >"$work/build.log" 2>&1 || {
    tail -n 40 "$work/build.log"
    exit 1
}
# The compiled modules (and mypyc's shared library beside translator/) come first on the path,
# for pytest and for every process a test starts.
export PYTHONPATH="$work" ICEBERG_UDF_SHARED="${ICEBERG_UDF_SHARED:-$(dirname "$root")/shared}"
"$py" -c 'import translator.ir as m, sys; sys.exit(0 if m.__file__.endswith(".so") else f"not native: {m.__file__}")'
echo "native build: $(find translator -name '*.so' | wc -l) compiled modules"
"$py" -m pytest -q -p no:cacheprovider "$@"
