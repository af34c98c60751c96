#!/usr/bin/env bash
# Run a command inside the project's ROS environment: the .venv is the ROS prefix (wheels),
# the colcon workspace's install/ is overlaid when it exists, discovery stays on this host.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export VIRTUAL_ENV="$root/.venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
export AMENT_PREFIX_PATH="$VIRTUAL_ENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export HOME="${HOME:-$root}"
if [ -f "$root/install/setup.bash" ]; then
  set +u   # install/setup.bash is not nounset-safe
  # shellcheck disable=SC1091
  source "$root/install/setup.bash"
  set -u
fi
exec "$@"
