#!/usr/bin/env bash
# Create .venv (Python 3.11) with the pinned core, ROS 2 Kilted wheels and test tools, once:
# a stamp of the requirements files makes reruns a no-op until they change.
set -euo pipefail
cd "$(dirname "$0")/.."
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
stamp="$venv/.setup-stamp"
digest=$(cat requirements/*.txt scripts/setup_venv.sh | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" = "$digest" ]; then
  exit 0
fi
start=$(date +%s)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  -r requirements/core.txt -r requirements/ros.txt -r requirements/test.txt
"$venv/bin/python" scripts/fix_ros_cmake_paths.py
echo "$digest" > "$stamp"
echo "setup: $venv ready in $(( $(date +%s) - start )) s"
