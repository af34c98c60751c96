# ros_dynamics: `make run` brings up the simulated arm, `make test` runs every test.
# Both set up whatever is missing first (.venv with pinned wheels, colcon build): `make run`
# installs what running needs (requirements/core.txt, ros.txt), `make test`, `make bench` and
# `make fuzz` add the test stack (requirements/test.txt).
SHELL := /bin/bash
WITH_ROS := scripts/with_ros.sh
PYTEST_ARGS ?=
BRINGUP_ARGS ?=   # e.g. make run BRINGUP_ARGS='--kick panda_joint1=0.5 kd:=[2.0]'
# colcon's status line (percent done) on a terminal only: elsewhere it would print 10 lines a second
COLCON_STATUS := $(shell [ -t 1 ] && echo status+ || echo status-)

.PHONY: all setup setup-test build test fuzz run bench clean

all: test

setup:
	@scripts/setup_venv.sh run

setup-test:
	@scripts/setup_venv.sh test

# colcon builds the package (its messages, the C extension), then the kernels are compiled into
# the kernel cache with a line per module (CMake does the same for a plain `colcon build`, where
# colcon holds its output until the end); `python -P`: the installed copy, not the source tree
build: setup
	@$(WITH_ROS) colcon build --symlink-install \
	  --event-handlers console_cohesion- console_start_end+ summary+ $(COLCON_STATUS) \
	  --cmake-args -DROS_DYNAMICS_WARM_KERNELS=OFF \
	  || { $(WITH_ROS) colcon build --symlink-install --cmake-args -DROS_DYNAMICS_WARM_KERNELS=OFF; exit 1; }
	@find install -xtype l -delete   # links to modules that moved or went (symlink install)
	@.venv/bin/python -S scripts/venv_pth.py   # .venv/bin/python imports install/ too, ros-dynamics
	@$(WITH_ROS) python -P -c 'import logging; \
	  logging.basicConfig(level=logging.INFO, format="build: %(message)s"); \
	  from ros_dynamics.runtime import jit; jit.warm_cache(last_first=False)' \
	  || echo "build: WARNING: the kernels were not compiled now (above), the first run compiles them"

test: setup-test build
	@$(WITH_ROS) python -m pytest test -p no:cacheprovider -ra --durations=25 $(PYTEST_ARGS)

# the fuzzers with 20 times the test budget (prints the cases per outcome class), then the
# 10-minute soak of the feedforward stream (SOAK_MINUTES)
fuzz: setup-test build
	@summary=$$(mktemp); \
	ROS_DYNAMICS_FUZZ_SCALE=$${ROS_DYNAMICS_FUZZ_SCALE:-20} ROS_DYNAMICS_FUZZ_SUMMARY=$$summary \
	  $(WITH_ROS) python -m pytest test -m fuzz -p no:cacheprovider -q $(PYTEST_ARGS); \
	status=$$?; echo "== fuzzing summary"; cat $$summary; rm -f $$summary; \
	[ $$status -eq 0 ] || exit $$status; \
	echo "== soak: the 1 kHz feedforward stream for $${SOAK_MINUTES:-10} minutes"; \
	$(WITH_ROS) python benchmarks/soak_feedforward.py --minutes $${SOAK_MINUTES:-10}

run: build
	@echo "make run: the Panda arm simulated (simulator_node) and held by gravity compensation"
	@echo "  (inverse_dynamics_node), as declared in config/bringup.yaml; ROS_DOMAIN_ID=$${ROS_DOMAIN_ID:-0},"
	@echo "  discovery on this host only. Ctrl-C stops every node. The command line:"
	@echo "  .venv/bin/ros-dynamics --help (on PATH after source .venv/bin/activate)."
	@$(WITH_ROS) install/ros_dynamics/lib/ros_dynamics/bringup $(BRINGUP_ARGS)   # the launcher: quiet on Ctrl-C from the first second

bench: setup-test build
	@for script in benchmarks/bench_*.py; do \
	  echo "== $$script"; $(WITH_ROS) python "$$script" || exit 1; done

clean:
	rm -rf build install log
