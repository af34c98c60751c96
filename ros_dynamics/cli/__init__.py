# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
``ros-dynamics``: the command line for offline jobs on a URDF (ROS-free).

One module per subcommand, listed in SUBCOMMANDS; each defines ``NAME``,
``HELP``, ``add_arguments(parser)`` and ``run(args) -> int`` (its docstring
is the subcommand's ``--help`` description). Adding a subcommand is adding a
module and its name here.

Warnings (the core's included) print as one line ``ros-dynamics: warning:
...`` on stderr. Exit status: 0 success; 1 an input file or the environment
is wrong (one line ``ros-dynamics: error: ...`` on stderr, no traceback), or
``identify --no-consistent`` found no physical estimate; 2 a usage error
(argparse); 3 ``torques --strict`` found a limit exceeded; 130 interrupted.
"""

import argparse
import importlib
from importlib import metadata
import os
import sys
from typing import Optional, Sequence
import warnings

from ros_dynamics.cli.common import CLIError, PROGRAM, show_warning

SUBCOMMANDS = ('info', 'torques', 'simulate', 'excite', 'identify', 'retime')


def version() -> str:
    """Return the installed distribution's version, or a note when running from a source tree."""
    try:
        return metadata.version('ros_dynamics')
    except metadata.PackageNotFoundError:
        return 'unknown (not installed: running from a source tree)'


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``ros-dynamics`` with every subcommand."""
    parser = argparse.ArgumentParser(
        prog=PROGRAM, description='Rigid-body dynamics of a URDF robot from the command line: '
        'describe it, size its actuators along a trajectory, simulate it, excite and '
        'identify its dynamics.',
        epilog=f'Run {PROGRAM} COMMAND --help for the options of a command.')
    parser.add_argument('--version', action='version', version=f'%(prog)s {version()}')
    shared = argparse.ArgumentParser(add_help=False)   # options of every subcommand
    shared.add_argument('--no-progress', dest='progress', action='store_false',
                        help='never show progress bars (they only appear on a terminal, '
                             'after a second)')
    commands = parser.add_subparsers(dest='command', metavar='COMMAND', required=True)
    for name in SUBCOMMANDS:
        module = importlib.import_module(f'ros_dynamics.cli.{name}')
        sub = commands.add_parser(module.NAME, help=module.HELP, parents=[shared],
                                  description=module.__doc__.replace('``', ''),
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``ros-dynamics`` with ``argv`` (default: the process arguments); return the status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():   # restores Python's printer afterwards
            warnings.showwarning = show_warning
            status = args.run(args)
        sys.stdout.flush()   # a closed pipe shows here, not at exit
        return status
    except BrokenPipeError:   # piped into head: the reader is gone, nothing to report
        # the interpreter flushes stdout again at exit: point it at /dev/null first
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (CLIError, ValueError, OSError) as error:   # the core's input errors are ValueError
        message = ' '.join(str(error).split()) or type(error).__name__
        print(f'{PROGRAM}: error: {message}', file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f'{PROGRAM}: interrupted', file=sys.stderr)
        return 130
