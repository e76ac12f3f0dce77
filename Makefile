# robot_sm: the two commands are `make demo` and `make test`. Both set everything up first.
.PHONY: all setup test demo bench docs lint clean

# Tests run in parallel workers (pytest-xdist), each with a ROS domain of its own: three on two
# cores, as many tests mostly wait (for a timeout, a robot to drive, a process to stop).
TEST_WORKERS ?= 3
PYTEST_ARGS ?=

all: test

setup:
	@bash tools/setup.sh

test: setup
	@cd robot_sm && ../tools/with_ros_env.sh python -m pytest -q -p no:cacheprovider \
		-n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

demo: setup
	@tools/with_ros_env.sh python -m robot_sm.demo

bench: setup
	@tools/with_ros_env.sh python bench/run_all.py

# The linters make test runs (flake8, pep257, mypy, the import layers), on their own: a quick
# check before a commit. Each prints its
# findings, or one line when it has none.
LINT_QUIETLY = out=$$($(2) 2>&1) && echo "$(1): no problems" || \
	{ echo "$$out" | sed '/^Checked files:/,$$d; /^checking /d'; exit 1; }
lint: setup
	@$(call LINT_QUIETLY,flake8,tools/with_ros_env.sh ament_flake8 robot_sm robot_sm_control \
		bench tools)
	@$(call LINT_QUIETLY,pep257,tools/with_ros_env.sh ament_pep257 robot_sm/robot_sm \
		robot_sm/test robot_sm_control/robot_sm_control robot_sm_control/test)
	@cd robot_sm && $(call LINT_QUIETLY,mypy,../tools/with_ros_env.sh mypy --config-file \
		setup.cfg robot_sm ../robot_sm_control/robot_sm_control)
	@cd robot_sm && $(call LINT_QUIETLY,import-linter,../tools/with_ros_env.sh lint-imports)

docs: setup
	@tools/with_ros_env.sh python -m robot_sm.testing.reference_pages

clean:
	rm -rf build install log setup.env
