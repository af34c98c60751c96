# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Generate URDFs of serial chains with any number of revolute joints (scaling benchmarks).

Each link is a 0.1 m segment with its own mass, an off-axis centre of mass
and a full (non-diagonal) inertia tensor; joint axes cycle through z, y, x
and a skewed unit axis, and joint origins carry a small rotation, so no
algorithm can take a shortcut that a real robot would not allow.

    python benchmarks/chains.py 100 > chain100.urdf
"""

import math
import sys


def _inertia(k: int) -> str:
    a = 0.01 + 0.001 * (k % 7)
    b = 0.012 + 0.001 * (k % 5)
    c = 0.008 + 0.001 * (k % 3)
    return (f'<inertia ixx="{a:.6f}" iyy="{b:.6f}" izz="{c:.6f}" ixy="0.0005" '
            f'ixz="-0.0003" iyz="0.0002"/>')


def serial_chain_urdf(joints: int, name: str = 'chain') -> str:
    """Return the URDF text of a serial chain of ``joints`` revolute joints."""
    if joints < 1:
        raise ValueError(f'joints: expected at least 1, got {joints}')
    norm = math.sqrt(3.0)
    axes = ('0 0 1', '0 1 0', '1 0 0', f'{1 / norm:.15f} {1 / norm:.15f} {1 / norm:.15f}')
    parts = [f'<robot name="{name}">', '<link name="base"/>']
    for k in range(joints):
        mass = 1.0 + 0.1 * (k % 4)
        parts.append(
            f'<link name="link{k}"><inertial><origin xyz="0.05 0.01 -0.005" rpy="0.1 0 0.2"/>'
            f'<mass value="{mass:.3f}"/>{_inertia(k)}</inertial></link>')
        parent = 'base' if k == 0 else f'link{k - 1}'
        offset = '0 0 0.05' if k == 0 else '0.1 0 0'
        parts.append(
            f'<joint name="joint{k}" type="revolute"><parent link="{parent}"/>'
            f'<child link="link{k}"/><origin xyz="{offset}" rpy="0 0.05 0"/>'
            f'<axis xyz="{axes[k % 4]}"/>'
            '<limit lower="-3.1" upper="3.1" effort="100" velocity="2"/></joint>')
    parts.append('</robot>')
    return '\n'.join(parts)


def main(argv: list) -> int:
    """Print the URDF of a chain with argv[1] joints."""
    if len(argv) != 2 or not argv[1].isdigit():
        print('usage: chains.py JOINTS > chain.urdf', file=sys.stderr)
        return 2
    print(serial_chain_urdf(int(argv[1])))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
