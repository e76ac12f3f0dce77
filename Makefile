# robot_sm: the two commands are `make demo` and `make test`. Both set everything up first.
.PHONY: all setup test demo bench docs lint clean

# Tests run in parallel workers (pytest-xdist), each with a ROS domain of its own.
TEST_WORKERS ?= 2
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

docs: setup
	@tools/with_ros_env.sh python -m robot_sm.testing.reference_pages

clean:
	rm -rf build install log setup.env
