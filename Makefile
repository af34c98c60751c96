# ros_dynamics: `make run` brings up the simulated arm, `make test` runs every test.
# Both set up whatever is missing first (.venv with pinned wheels, colcon build).
SHELL := /bin/bash
WITH_ROS := scripts/with_ros.sh
PYTEST_ARGS ?=
BRINGUP_ARGS ?=   # e.g. make run BRINGUP_ARGS='--kick panda_joint1=0.5 kd:=[2.0]'

.PHONY: all setup build test fuzz run bench clean

all: test

setup:
	@scripts/setup_venv.sh

build: setup
	@$(WITH_ROS) colcon build --symlink-install --event-handlers console_cohesion- summary+ >/dev/null \
	  || { $(WITH_ROS) colcon build --symlink-install; exit 1; }
	@.venv/bin/python -S scripts/venv_pth.py   # .venv/bin/python imports install/ too

test: build
	@$(WITH_ROS) python -m pytest test -p no:cacheprovider -ra --durations=25 $(PYTEST_ARGS)

# the fuzzers with 20 times the test budget (prints the cases per outcome class), then the
# 10-minute soak of the feedforward stream (SOAK_MINUTES)
fuzz: build
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
	@echo "  discovery on this host only. Ctrl-C stops every node."
	@$(WITH_ROS) install/ros_dynamics/lib/ros_dynamics/bringup $(BRINGUP_ARGS)   # the launcher: quiet on Ctrl-C from the first second

bench: build
	@for script in benchmarks/bench_*.py; do \
	  echo "== $$script"; $(WITH_ROS) python "$$script" || exit 1; done

clean:
	rm -rf build install log
