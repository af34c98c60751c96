# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
PNG figures of ``--plot``: joint quantities against time, one line per joint.

matplotlib is an optional dependency (``pip install 'ros_dynamics[plot]'``);
``common.require_matplotlib`` checks for it and selects the file-only Agg
backend before this module is imported.
"""

import os
from typing import Optional, Sequence

import numpy as np


def _figure(title: str, ylabel: str, rows: int = 1):
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(rows, 1, figsize=(9, 3.2 * rows + 0.8), sharex=True,
                                squeeze=False, layout='constrained')
    axes = axes[:, 0]
    figure.suptitle(title)
    for ax in axes:
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel(ylabel)
    axes[-1].set_xlabel('time (s)')
    return figure, axes


def _save(figure, directory: str, name: str) -> str:
    import matplotlib.pyplot as plt
    path = os.path.join(directory, name)
    figure.legend(loc='outside right upper', fontsize='small')
    figure.savefig(path, dpi=110, bbox_inches='tight')
    plt.close(figure)
    return path


def joint_lines(directory: str, name: str, title: str, ylabel: str, times: np.ndarray,
                values: np.ndarray, joints: Sequence[str],
                lower: Optional[np.ndarray] = None, upper: Optional[np.ndarray] = None) -> str:
    """
    Plot values (N, dof) against times (N,) s, one line per joint; return the PNG's path.

    lower, upper (dof,): bounds drawn as dashed lines in the joint's colour where finite.
    """
    figure, (ax,) = _figure(title, ylabel)
    for k, joint in enumerate(joints):
        line, = ax.plot(times, values[:, k], label=joint, linewidth=1.2)
        for bounds in (lower, upper):
            if bounds is not None and np.isfinite(bounds[k]):
                ax.axhline(bounds[k], color=line.get_color(), linestyle='--', linewidth=0.8,
                           alpha=0.6)
    return _save(figure, directory, name)


def limit_use(directory: str, times: np.ndarray, efforts: np.ndarray, qd: np.ndarray,
              joints: Sequence[str], effort_limit: np.ndarray,
              velocity_limit: np.ndarray) -> str:
    """
    Plot |tau| / effort limit and |qd| / velocity limit in % against time; return the path.

    Joints without a finite, positive limit are left out of that panel.
    """
    figure, axes = _figure('limit use (100 % = the URDF limit)', 'effort (% of limit)', rows=2)
    axes[1].set_ylabel('speed (% of limit)')
    for ax, values, limits in ((axes[0], efforts, effort_limit),
                               (axes[1], qd, velocity_limit)):
        for k, joint in enumerate(joints):
            if np.isfinite(limits[k]) and limits[k] > 0.0:
                ax.plot(times, 100.0 * np.abs(values[:, k]) / limits[k],
                        label=joint if ax is axes[0] else None, linewidth=1.2,
                        color=f'C{k % 10}')
        ax.axhline(100.0, color='k', linestyle='--', linewidth=0.8)
    return _save(figure, directory, 'limits.png')


def joint_panels(directory: str, name: str, title: str, times: np.ndarray, panels: Sequence,
                 ylabels: Sequence[str], joints: Sequence[str], limits: Sequence) -> str:
    """
    Plot several (N, dof) quantities against times (N,) s, one panel each; return the path.

    limits: per panel, (dof,) symmetric bounds +-limit or (dof, 2) [lower, upper], drawn
    dashed in the joint's colour where finite.
    """
    figure, axes = _figure(title, ylabels[0], rows=len(panels))
    for ax, values, ylabel, bounds in zip(axes, panels, ylabels, limits):
        ax.set_ylabel(ylabel)
        bounds = np.asarray(bounds, dtype=float)
        if bounds.ndim == 1:
            bounds = np.column_stack([-bounds, bounds])
        for k, joint in enumerate(joints):
            line, = ax.plot(times, values[:, k], label=joint if ax is axes[0] else None,
                            linewidth=1.2, color=f'C{k % 10}')
            for bound in bounds[k]:
                if np.isfinite(bound):
                    ax.axhline(bound, color=line.get_color(), linestyle='--', linewidth=0.8,
                               alpha=0.6)
    return _save(figure, directory, name)


def measured_and_predicted(directory: str, name: str, title: str, times: np.ndarray,
                           measured: np.ndarray, predicted: np.ndarray,
                           joints: Sequence[str]) -> str:
    """Plot measured (solid) and predicted (dashed) torques, one panel per joint; return path."""
    figure, axes = _figure(title, '', rows=len(joints))
    for k, (ax, joint) in enumerate(zip(axes, joints)):
        ax.plot(times, measured[:, k], color='C0', linewidth=1.2,
                label='measured' if k == 0 else None)
        ax.plot(times, predicted[:, k], color='C3', linestyle='--', linewidth=1.2,
                label='predicted' if k == 0 else None)
        ax.set_ylabel(f'{joint}\n(N m or N)', fontsize='small')
    return _save(figure, directory, name)
