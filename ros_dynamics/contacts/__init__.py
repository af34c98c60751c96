# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Contacts in the core: constrained forward dynamics and contact-consistent inverse dynamics.

``Contact`` describes a point or 6D contact on a link frame (description.py);
``constrained_forward_dynamics`` (forward.py) and ``contact_inverse_dynamics``
(inverse.py) are also ``RobotModel`` methods. Conventions: docs/contacts.md.
"""

from ros_dynamics.contacts.description import Contact
from ros_dynamics.contacts.forward import constrained_forward_dynamics, ConstrainedDynamics
from ros_dynamics.contacts.inverse import (contact_inverse_dynamics, ContactInfeasibleError,
                                           ContactInverseDynamics)

__all__ = ['ConstrainedDynamics', 'Contact', 'ContactInfeasibleError', 'ContactInverseDynamics',
           'constrained_forward_dynamics', 'contact_inverse_dynamics']
