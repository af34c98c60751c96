#!/usr/bin/env bash
# Create .venv (Python 3.11) with the pinned wheels, once per level:
#   scripts/setup_venv.sh run    what `make run` needs: requirements/core.txt + ros.txt (the
#                                runtime, the ROS 2 Kilted wheels and the build tools colcon needs)
#   scripts/setup_venv.sh test   that and requirements/test.txt (`make test`, `make bench`,
#                                `make fuzz`: Pinocchio, MuJoCo, the linters, the optional extras)
# A stamp per level (a digest of the requirements files it installs and of this script) makes
# reruns a no-op until they change. pip prints its own progress.
set -euo pipefail
cd "$(dirname "$0")/.."
level=${1:-run}
run_files=(requirements/core.txt requirements/ros.txt)
test_files=("${run_files[@]}" requirements/test.txt)
case "$level" in
  run) files=("${run_files[@]}")
       what='the runtime: numpy, scipy, numba, the ROS 2 Kilted wheels, colcon' ;;
  test) files=("${test_files[@]}")
        what='the runtime and the test stack: Pinocchio, MuJoCo, cvxpy, Dask, the linters' ;;
  *) echo "usage: $0 [run|test]" >&2; exit 2 ;;
esac
digest_of() { cat "$@" scripts/setup_venv.sh | sha256sum | cut -d' ' -f1; }
venv=.venv
python=${PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then python=$candidate; break; fi
  done
fi
version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
if [ "$version" != "3.11" ]; then
  echo "setup: Python 3.11 is required (the ROS 2 Kilted wheels are cp311), found $python = $version" >&2
  exit 1
fi
if [ ! -x "$venv/bin/python" ]; then
  echo "setup: creating $venv with $python"
  "$python" -m venv "$venv"
fi
digest=$(digest_of "${files[@]}")
if [ "$(cat "$venv/.setup-stamp-$level" 2>/dev/null)" = "$digest" ]; then
  exit 0
fi
echo "setup: installing $what (first time only)"
start=$(date +%s)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$venv/bin/python" -m pip install --disable-pip-version-check --progress-bar on \
  "${files[@]/#/-r}"
"$venv/bin/python" scripts/fix_ros_cmake_paths.py
echo "$digest" > "$venv/.setup-stamp-$level"
if [ "$level" = test ]; then   # what `make run` needs is there too
  digest_of "${run_files[@]}" > "$venv/.setup-stamp-run"
fi
echo "setup: $venv ready for \`make $level\` in $(( $(date +%s) - start )) s"
