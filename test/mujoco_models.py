# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The same robot in MuJoCo (test and benchmark only): a URDF loaded as our simulator sees it.

MuJoCo reads URDF through its own compiler; for a like-for-like comparison
with ``Simulator(robot, damping=False, friction=False, limits=False)`` the
URDF is loaded with its visual and collision geometry removed (no meshes
needed, nothing for contacts), its ``<dynamics>`` damping and friction
removed, and a ``<mujoco><compiler>`` element that keeps the URDF inertias
as given (``inertiafromgeom="false"``; ``balanceinertia`` only touches
inertias that violate the triangle inequality, which these do not) and
fuses fixed children into their parents, as our model builder does. The
options are then set on the compiled model: RK4 at the given step, contact,
joint limits and equality constraints (MuJoCo's translation of ``<mimic>``)
disabled. MuJoCo keeps no armature, damping or friction loss by default.
"""

import re

import mujoco
import numpy as np

COMPILER = ('<mujoco><compiler balanceinertia="true" discardvisual="true" fusestatic="true" '
            'inertiafromgeom="false"/></mujoco>')


def bare_urdf(urdf_path: str) -> str:
    """Return the URDF's text without visuals, collisions and <dynamics>, with COMPILER."""
    with open(urdf_path) as stream:
        xml = stream.read()
    for element in ('visual', 'collision'):
        xml = re.sub(rf'<{element}\b.*?</{element}>', '', xml, flags=re.S)
    xml = re.sub(r'<dynamics\b[^>]*/>', '', xml)
    return re.sub(r'(<robot\b[^>]*>)', lambda match: match.group(1) + COMPILER, xml, count=1)


def mujoco_model(urdf_path: str, dt: float = 1e-3) -> mujoco.MjModel:
    """Return the MuJoCo model of a URDF: bare bodies, RK4 at dt, no contact/limit/equality."""
    model = mujoco.MjModel.from_xml_string(bare_urdf(urdf_path))
    model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    model.opt.timestep = dt
    model.opt.disableflags |= (mujoco.mjtDisableBit.mjDSBL_CONTACT
                               | mujoco.mjtDisableBit.mjDSBL_LIMIT
                               | mujoco.mjtDisableBit.mjDSBL_EQUALITY)
    assert not model.dof_armature.any() and not model.dof_damping.any()
    assert not model.dof_frictionloss.any()
    return model


def coordinate_order(model: mujoco.MjModel, joint_names) -> np.ndarray:
    """Return MuJoCo's qpos index of each of our coordinates (1-DoF joints only)."""
    names = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(model.njnt)]
    assert model.nq == model.nv == len(names), 'only 1-DoF joints map one to one'
    return np.array([model.jnt_qposadr[names.index(name)] for name in joint_names])


def mujoco_ground_model(urdf_path: str, feet, radius: float, friction: float, dt: float = 1e-3,
                        timeconst: float = 0.02, noslip: int = 0, pd=None) -> mujoco.MjModel:
    """
    Return a floating robot on a plane in MuJoCo: spheres of ``radius`` at the ``feet`` links.

    mujoco_model's bare bodies with a free joint on the root, a sphere geom
    (no mass: inertiafromgeom="false") at each foot link's origin and a
    plane at z = 0, both with sliding friction ``friction`` (condim 3), the
    elliptic cone, MuJoCo's Euler integrator at ``dt``, joint limits and
    equalities off. Contacts are MuJoCo's soft ones: solref (timeconst, 1)
    (MuJoCo's default 0.02 s; 2 dt is the stiffest it advises) and
    ``noslip`` iterations of its no-slip post-solver (0: its default).
    Each sphere geom is named after its foot link. pd: None, or (kp, kd): a
    position actuator on every joint but the free one (force kp (ctrl - q) -
    kd qd, the controls in our joint order).
    """
    spec = mujoco.MjSpec.from_string(bare_urdf(urdf_path))
    spec.worldbody.first_body().add_freejoint()
    for foot in feet:
        spec.body(foot).add_geom(name=foot, type=mujoco.mjtGeom.mjGEOM_SPHERE,
                                 size=[radius, 0, 0], friction=[friction, 0, 0],
                                 solref=[timeconst, 1.0])
    if pd is not None:
        for joint in spec.joints:
            if joint.type != mujoco.mjtJoint.mjJNT_FREE:
                actuator = spec.add_actuator(target=joint.name,
                                             trntype=mujoco.mjtTrn.mjTRN_JOINT)
                actuator.set_to_position(kp=pd[0], kv=pd[1])
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 1],
                            friction=[friction, 0, 0], solref=[timeconst, 1.0])
    model = spec.compile()
    model.opt.timestep = dt
    model.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    model.opt.noslip_iterations = noslip
    model.opt.disableflags |= (mujoco.mjtDisableBit.mjDSBL_LIMIT
                               | mujoco.mjtDisableBit.mjDSBL_EQUALITY)
    return model
