#!/usr/bin/env bash
# Run a command in the built environment, with DDS kept on loopback and a ROS domain of its own.
#
#   tools/with_ros_env.sh COMMAND [ARGS...]
#
# The domain id is taken from 1..100 with a lock file under the temporary directory, held for as
# long as the command runs, so concurrent runs on one machine never share a domain. An id already
# given in ROS_DOMAIN_ID is kept.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
set +u  # the colcon and venv scripts read unset variables
# shellcheck disable=SC1091
source "$root/setup.env"
set -u
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
if [ -z "${ROS_DOMAIN_ID:-}" ]; then
  lock_dir="${TMPDIR:-/tmp}/robot_sm-domains"
  mkdir -p "$lock_dir"
  first=$(( RANDOM % 100 ))
  for i in $(seq 0 99); do
    domain=$(( (first + i) % 100 + 1 ))
    exec {lock_fd}>"$lock_dir/$domain.lock"
    if flock -n "$lock_fd"; then
      export ROS_DOMAIN_ID=$domain
      break
    fi
    exec {lock_fd}>&-
  done
  if [ -z "${ROS_DOMAIN_ID:-}" ]; then
    echo 'with_ros_env: every ROS domain 1..100 is in use here' >&2
    exit 1
  fi
fi
exec "$@"
