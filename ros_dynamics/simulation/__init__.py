# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Simulation: the simulator, its coordinates, closed chains and the node's runner."""

from ros_dynamics.simulation.simulator import (simulate, SimulationDiverged, SimulationSingular,
                                               Simulator)

__all__ = ['simulate', 'SimulationDiverged', 'SimulationSingular', 'Simulator']
