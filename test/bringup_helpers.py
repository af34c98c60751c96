# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""The command lines ``bringup --config config/feedforward_<recipe>.yaml ARGS`` runs."""

import os

from ros_dynamics.bringup import command, load_arguments, load_declaration, resolve_arguments

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECIPES = ('effort_interface', 'franka', 'ur', 'kinova')


def recipe_declaration(recipe: str) -> str:
    """Return the path of a recipe's declaration in this source tree."""
    return os.path.join(ROOT, 'config', f'feedforward_{recipe}.yaml')


def recipe_commands(recipe: str, given: dict) -> dict:
    """Return {node name: (executable, command line)} for the arguments ``given``."""
    return declaration_commands(recipe_declaration(recipe), given)


def declaration_commands(path: str, given: dict) -> dict:
    """Return {node name: (executable, command line)} of the declaration at ``path``."""
    _, nodes = load_declaration(path)
    values, extra = resolve_arguments(load_arguments(path), given)
    return {node.name: (node.executable, command(node, values, extra)) for node in nodes}
