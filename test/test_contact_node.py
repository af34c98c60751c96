# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Contact-consistent inverse dynamics over ROS: solo12 on its four feet, through a running node.

``~/contact_inverse_dynamics`` answers what ``RobotModel.contact_inverse_dynamics``
answers for the same state (to 1e-9); standing still, the feet's forces sum
to the robot's weight; a base acceleration the friction pyramids cannot
produce comes back ``limited`` with the closest feasible acceleration; bad
requests answer ``success: false`` naming the field. The stream with the
``contacts`` parameter publishes the service's torques for the state it
receives (joint_states and odometry), ``~/contacts`` switches the active
feet, and parameter mistakes are refused (at start-up: one ``[ERROR]`` line,
exit 1). A short seeded fuzz of the contact fields (ROS_DYNAMICS_FUZZ_SEED,
``ROS_DYNAMICS_FUZZ_SCALE`` as test/fuzzing.py).
"""

import math
import os
import random
import re
import types

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import Accel, Pose, Twist
from nav_msgs.msg import Odometry
import numpy as np
import pinocchio as pin
import pytest
from rcl_interfaces.srv import SetParameters
from rclpy.parameter import Parameter
from robot_data import example_urdf
from ros_dynamics import Contact, RobotModel
from ros_dynamics.msg import ContactSpec
from ros_dynamics.srv import ContactInverseDynamics
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectoryPoint

pytestmark = pytest.mark.ros

SOLO = example_urdf('solo_description/robots/solo12.urdf')
FEET = ('FL_FOOT', 'FR_FOOT', 'HL_FOOT', 'HR_FOOT')
MU = 0.7
ROBOT = RobotModel.from_urdf_file(SOLO, root_joint='floating')
JOINTS = list(ROBOT.joint_names[1:])
SERVICE = 'inverse_dynamics/contact_inverse_dynamics'
TOLERANCE = 1e-9
SCALE = float(os.environ.get('ROS_DYNAMICS_FUZZ_SCALE', '1'))
SEED = int(os.environ.get('ROS_DYNAMICS_FUZZ_SEED', random.SystemRandom().randint(0, 2**31)))


def standing() -> np.ndarray:
    """Return solo12's 'standing' configuration of its SRDF (x y z qx qy qz qw, joints)."""
    model = pin.buildModelFromUrdf(SOLO, pin.JointModelFreeFlyer())
    pin.loadReferenceConfigurations(model, example_urdf('solo_description/srdf/solo.srdf'))
    return model.referenceConfigurations['standing'].copy()


Q0 = standing()


def spec(frame: str, kind: str = 'point', friction: float = MU, **fields) -> ContactSpec:
    return ContactSpec(frame=frame, kind=kind, friction=friction, **fields)


def six(message_type, values):
    message = message_type()
    (message.linear.x, message.linear.y, message.linear.z,
     message.angular.x, message.angular.y, message.angular.z) = map(float, values)
    return message


def base_pose(q: np.ndarray) -> Pose:
    message = Pose()
    message.position.x, message.position.y, message.position.z = map(float, q[:3])
    (message.orientation.x, message.orientation.y, message.orientation.z,
     message.orientation.w) = map(float, q[3:7])
    return message


def request(q: np.ndarray, v: np.ndarray, a: np.ndarray, contacts: list,
            facets: int = 0) -> ContactInverseDynamics.Request:
    """Return the request of the state (q (19,), v, a (18,)) with ``contacts`` (ContactSpec)."""
    out = ContactInverseDynamics.Request(contacts=contacts, friction_facets=facets)
    out.state = JointState(name=JOINTS, position=list(q[7:]), velocity=list(v[6:]))
    out.accelerations = list(a[6:])
    out.base_pose, out.base_twist = base_pose(q), six(Twist, v[:6])
    out.base_acceleration = six(Accel, a[:6])
    return out


def close(ours, reference, tolerance: float = TOLERANCE) -> bool:
    ours, reference = np.asarray(ours, dtype=float), np.asarray(reference, dtype=float)
    scale = max(1.0, float(np.max(np.abs(reference), initial=0.0)))
    return ours.shape == reference.shape and \
        float(np.max(np.abs(ours - reference), initial=0.0)) <= tolerance * scale


def forces_of(answer) -> np.ndarray:
    """Return the answer's wrenches as rows [f (3,), m (3,)]."""
    return np.array([[w.wrench.force.x, w.wrench.force.y, w.wrench.force.z,
                      w.wrench.torque.x, w.wrench.torque.y, w.wrench.torque.z]
                     for w in answer.contact_wrenches]).reshape(-1, 6)


def assert_as_core(answer, q, v, a, contacts: list, facets: int = 4) -> None:
    """Assert that the node's answer is the core's, field by field."""
    assert answer.success, answer.message
    core = ROBOT.contact_inverse_dynamics(q, v, a, contacts, friction_facets=facets)
    assert list(answer.joint_names) == JOINTS
    assert close(answer.effort, core.tau[6:])
    assert answer.limited == core.limited and answer.limit_active == core.active
    assert close(answer.accelerations, core.qdd[6:])
    accel = answer.base_acceleration
    assert close([accel.linear.x, accel.linear.y, accel.linear.z, accel.angular.x,
                  accel.angular.y, accel.angular.z], core.qdd[:6])
    rows, row = [], 0
    for contact in contacts:
        force = core.forces[row:row + contact.size]
        rows.append(np.concatenate([force, np.zeros(6 - contact.size)]))
        row += contact.size
    assert close(forces_of(answer), np.array(rows).reshape(-1, 6))
    for point, contact in zip(answer.contact_points, contacts):
        pose = ROBOT.link_pose(q, contact.frame)
        assert close([point.x, point.y, point.z], pose[:3, :3] @ contact.position + pose[:3, 3])
    assert all(w.header.frame_id == 'world' for w in answer.contact_wrenches)


@pytest.fixture(scope='module')
def solo():
    """Start an inverse_dynamics node of solo12 holding it on its four feet (stream contacts)."""
    namespace = unique_namespace()
    parameters = {'urdf_path': SOLO, 'root_joint': 'floating', 'contacts': list(FEET),
                  'contact_friction': MU, 'state_timeout': 2.0, 'diagnostics_period': 0.5}
    with NodeProcess('inverse_dynamics_node', namespace, parameters) as node, \
            RosClient(namespace) as ros:
        yield types.SimpleNamespace(ros=ros, node=node)
        assert node.alive(), node.output()


def feet(kind: str = 'point', **fields) -> list:
    return [Contact(f, kind, friction=MU, **fields) for f in FEET]


def consistent(q: np.ndarray, v: np.ndarray, base: np.ndarray, contacts: list) -> np.ndarray:
    """Return qdd with the base part ``base`` and J qdd + gamma = 0 (the feet held)."""
    jac = np.vstack([ROBOT.jacobian(q, c.frame)[:3] for c in contacts])
    gamma = np.concatenate([ROBOT.jacobian_dot_qd(q, v, c.frame)[:3] for c in contacts])
    legs = np.linalg.solve(jac[:, 6:], -gamma - jac[:, :6] @ base)
    return np.concatenate([base, legs])


def test_the_service_answers_the_core(solo):
    rng = np.random.default_rng(30)
    for k in range(4):
        q = Q0.copy()
        q[7:] += 0.1 * rng.standard_normal(12)
        v = 0.3 * rng.standard_normal(18) * (k > 0)
        base = 0.3 * rng.standard_normal(6)
        a = rng.standard_normal(18) if k == 3 else consistent(q, v, base, feet())
        answer = solo.ros.call(ContactInverseDynamics, SERVICE,
                               request(q, v, a, [spec(f) for f in FEET]))
        assert_as_core(answer, q, v, a, feet())
    assert answer.limited   # an acceleration moving the feet: the closest feasible one
    # flat soles: 6D contacts with centre-of-pressure limits, 6 facets
    sole = (-0.01, 0.02, -0.01, 0.01)
    answer = solo.ros.call(ContactInverseDynamics, SERVICE, request(
        Q0, np.zeros(18), np.zeros(18), [spec(f, '6d', sole=sole) for f in FEET], facets=6))
    assert answer.success, answer.message
    core = ROBOT.contact_inverse_dynamics(Q0, np.zeros(18), np.zeros(18), feet('6d', sole=sole),
                                          friction_facets=6)
    assert close(answer.effort, core.tau[6:])
    assert close(forces_of(answer), core.forces.reshape(4, 6))


def test_standing_still_the_feet_carry_the_weight(solo):
    answer = solo.ros.call(ContactInverseDynamics, SERVICE,
                           request(Q0, np.zeros(18), np.zeros(18), [spec(f) for f in FEET]))
    assert answer.success and not answer.limited, answer.message
    mass = ROBOT.mass_matrix(Q0)[0, 0]   # a free-flyer's M[0, 0]: the total mass (kg)
    total = forces_of(answer).sum(axis=0)
    weight = mass * np.linalg.norm(ROBOT.gravity)
    assert abs(total[2] - weight) <= 1e-9 * weight, (total, weight)
    assert np.abs(total[:2]).max() <= 1e-9 * weight
    assert np.all(forces_of(answer)[:, 2] > 0.0)
    # the torques hold it: the constrained forward dynamics of them does not move it
    q_dd, _ = ROBOT.constrained_forward_dynamics(
        Q0, np.zeros(18), np.concatenate([np.zeros(6), answer.effort]), feet())
    assert np.abs(q_dd).max() < 1e-8


def test_the_over_ros_example_of_docs_contacts_runs(solo):
    """The service call of docs/contacts.md ("Over ROS"), run as written on a live node."""
    path = os.path.join(os.path.dirname(__file__), '..', 'docs', 'contacts.md')
    with open(path, encoding='utf-8') as stream:
        ros_part = stream.read().split('## Over ROS')[1]
    blocks = re.findall(r'```python\n(.*?)```', ros_part, re.S)
    assert blocks, 'docs/contacts.md lost its example over ROS'
    # the service is up (client.call in the example would wait for ever otherwise)
    solo.ros.call(ContactInverseDynamics, SERVICE,
                  request(Q0, np.zeros(18), np.zeros(18), [spec(f) for f in FEET]))
    scope = {'node': solo.ros.node}
    exec(compile(blocks[0], 'docs/contacts.md', 'exec'), scope)
    answer = scope['answer']
    assert answer.success and not answer.limited, answer.message
    assert len(answer.effort) == 12
    weight = ROBOT.mass_matrix(Q0)[0, 0] * np.linalg.norm(ROBOT.gravity)
    assert abs(forces_of(answer).sum(axis=0)[2] - weight) <= 1e-9 * weight


def test_an_acceleration_the_cones_cannot_give_is_limited(solo):
    reachable = consistent(Q0, np.zeros(18), np.array([1.0, 0, 0, 0, 0, 0]), feet())
    answer = solo.ros.call(ContactInverseDynamics, SERVICE,
                           request(Q0, np.zeros(18), reachable, [spec(f) for f in FEET]))
    assert answer.success and not answer.limited, answer.message
    # Newton at v = 0: the feet's forces = m g + dp/dt, dp/dt = A_G(q) qdd (linear momentum)
    total = forces_of(answer).sum(axis=0)[:3]
    rate = ROBOT.centroidal_momentum_matrix(Q0)[:3] @ reachable
    weight = ROBOT.mass_matrix(Q0)[0, 0] * -ROBOT.gravity
    assert close(total, weight + rate) and rate[0] > 0.5, (total, weight, rate)
    # 12 m/s^2 sideways needs |f_t| / f_n = 12 / 9.81 > mu: the pyramid cannot
    pushed = consistent(Q0, np.zeros(18), np.array([12.0, 0, 0, 0, 0, 0]), feet())
    answer = solo.ros.call(ContactInverseDynamics, SERVICE,
                           request(Q0, np.zeros(18), pushed, [spec(f) for f in FEET]))
    assert_as_core(answer, Q0, np.zeros(18), pushed, feet())
    assert answer.success and answer.limited and answer.limit_active, answer.message
    assert 'limited' in answer.message
    assert answer.base_acceleration.linear.x < 12.0 * MU   # the closest feasible one
    forces = forces_of(answer)
    assert np.all(np.abs(forces[:, :2]) <= MU / math.sqrt(2.0) * forces[:, 2:3] + 1e-9)


@pytest.mark.parametrize('change, field', [
    (lambda r: setattr(r.contacts[1], 'frame', 'FL_FOOOT'), 'contacts[1].frame'),
    (lambda r: setattr(r.contacts[2], 'friction', 0.0), 'contacts[2].friction'),
    (lambda r: setattr(r.contacts[2], 'friction', -0.5), 'contacts[2].friction'),
    (lambda r: setattr(r.contacts[0], 'friction', math.nan), 'contacts[0].friction'),
    (lambda r: setattr(r.contacts[0], 'kind', 'foot'), 'contacts[0].kind'),
    (lambda r: setattr(r.contacts[3], 'sole', [-0.1, 0.1, -0.1, 0.1]), 'contacts[3].sole'),
    (lambda r: setattr(r.contacts[3].position, 'y', math.inf), 'contacts[3].position'),
    (lambda r: setattr(r.contacts[0], 'bilateral', True), 'contacts[0].friction'),
    (lambda r: setattr(r.state, 'position', [math.nan] * 12), 'state.position'),
    (lambda r: setattr(r.base_twist.angular, 'z', math.nan), 'base_twist'),
    (lambda r: setattr(r.base_acceleration.linear, 'x', math.inf), 'base_acceleration'),
    (lambda r: setattr(r.base_pose.orientation, 'w', 3.0), 'base_pose.orientation'),
    (lambda r: setattr(r, 'accelerations', [1.0]), 'accelerations'),
    (lambda r: setattr(r, 'friction_facets', 2), 'friction_facets'),
    (lambda r: setattr(r, 'friction_facets', 2**32 - 1), 'friction_facets'),
], ids=lambda value: value if isinstance(value, str) else '')
def test_a_bad_request_names_its_field(solo, change, field):
    bad = request(Q0, np.zeros(18), np.zeros(18), [spec(f) for f in FEET])
    change(bad)
    answer = solo.ros.call(ContactInverseDynamics, SERVICE, bad)
    assert not answer.success and field in answer.message, answer.message
    assert not answer.effort and not answer.contact_wrenches


def test_an_infeasible_request_is_refused(solo):
    """Upside down on flat soles: every sole can only push the robot down, none holds it up."""
    q = Q0.copy()
    q[3:7] = [1.0, 0.0, 0.0, 0.0]   # half a turn about x
    answer = solo.ros.call(ContactInverseDynamics, SERVICE,
                           request(q, np.zeros(18), np.zeros(18), [spec(f, '6d') for f in FEET]))
    assert not answer.success and 'contacts: no acceleration holds' in answer.message, \
        answer.message


# ---------------------------------------------------------------- the stream
class Stream:
    """The node's stream seen from the test: publish a state (joints, odometry), read commands."""

    def __init__(self, ros) -> None:
        self.commands = []
        ros.node.create_subscription(Float64MultiArray, 'commands',
                                     lambda m: self.commands.append(np.array(m.data)), 10)
        self.states = ros.node.create_publisher(JointState, 'joint_states', 10)
        self.odometry = ros.node.create_publisher(Odometry, 'odom', 10)
        self.references = ros.node.create_publisher(JointTrajectoryPoint, 'reference', 10)
        self.reference = None

    def publish(self, q: np.ndarray, v: np.ndarray) -> None:
        """Publish the base state (odometry: pose, twist in the base frame) and the joints'."""
        message = Odometry()
        message.pose.pose = base_pose(q)
        message.twist.twist = six(Twist, v[:6])
        self.odometry.publish(message)
        if self.reference is not None:
            self.references.publish(self.reference)
        self.states.publish(JointState(name=JOINTS, position=list(q[7:]), velocity=list(v[6:])))

    def sends(self, q: np.ndarray, v: np.ndarray, expected: np.ndarray) -> bool:
        """Publish the state; return whether the latest command is ``expected``."""
        self.publish(q, v)
        return bool(self.commands) and close(self.commands[-1], expected)


def test_the_stream_sends_the_services_torques_and_switches_contacts(solo):
    ros = solo.ros
    stream = Stream(ros)
    switch = ros.node.create_publisher(String, 'inverse_dynamics/contacts', 10)
    q, v = Q0.copy(), np.zeros(18)
    q[7:] += 0.05 * np.random.default_rng(3).standard_normal(12)

    def expected(frames) -> np.ndarray:
        answer = ros.call(ContactInverseDynamics, SERVICE,
                          request(q, v, np.zeros(18), [spec(f) for f in frames]))
        assert answer.success, answer.message
        return np.array(answer.effort)

    four = expected(FEET)
    assert close(four, ROBOT.contact_inverse_dynamics(q, v, np.zeros(18), feet()).tau[6:])
    wait_for(lambda: stream.sends(q, v, four), 60.0, 'the stream to send the four-foot torques')
    three = expected(FEET[:3])
    assert not close(three, four, 1e-3)   # a different answer: the switch is visible
    statuses = []
    ros.node.create_subscription(DiagnosticArray, '/diagnostics', lambda m: statuses.extend(
        {value.key: value.value for value in status.values} for status in m.status
        if status.name.startswith(solo.node.namespace + '/')), 10)
    switch.publish(String(data='FL_FOOT, FR_FOOT HL_FOOT'))
    wait_for(lambda: stream.sends(q, v, three), 30.0, 'the stream to send the three-foot torques')
    wait_for(lambda: statuses and statuses[-1].get('contacts_active') == 'FL_FOOT FR_FOOT HL_FOOT',
             30.0, 'the diagnostics to name the active contacts')
    assert int(statuses[-1]['contact_switches']) >= 1 and statuses[-1]['contact_failed'] == '0'
    # another parameter's set (the node reconfigures its stream) keeps the gait's set
    assert set_parameters(ros, kd=0.0) == (True, '')
    del stream.commands[:]
    wait_for(lambda: stream.sends(q, v, three) or len(stream.commands) > 3, 30.0, 'commands')
    assert close(stream.commands[-1], three)
    switch.publish(String(data='FL_FOOT NOPE'))   # refused: the three feet stay
    switch.publish(String(data='FL_FOOT FR_FOOT HL_FOOT HR_FOOT'))   # and back to four
    wait_for(lambda: stream.sends(q, v, four), 30.0, 'the four-foot torques again')
    assert 'refused' in solo.node.output() and "'NOPE' not in the contacts" in solo.node.output()


def test_the_stream_damps_and_tracks_with_the_feet_held(solo):
    """kd: the joints' desired acceleration -kd qd; computed_torque: its acceleration."""
    ros, rng = solo.ros, np.random.default_rng(5)
    stream = Stream(ros)
    q = Q0.copy()
    v = np.concatenate([0.1 * rng.standard_normal(6), 0.5 * rng.standard_normal(12)])
    q[7:] += 0.05 * rng.standard_normal(12)
    kd, kp = 2.0, 30.0
    try:
        assert set_parameters(ros, kd=kd) == (True, '')
        desired = np.concatenate([np.zeros(6), -kd * v[6:]])
        damped = ROBOT.contact_inverse_dynamics(q, v, desired, feet())
        assert damped.limited   # the feet held fix the joints' accelerations: the closest one
        wait_for(lambda: stream.sends(q, v, damped.tau[6:]), 30.0, 'the damped torques')
        q_ref = q[7:] + 0.1 * rng.standard_normal(12)
        qd_ref, qdd_ref = rng.standard_normal(12), rng.standard_normal(12)
        stream.reference = JointTrajectoryPoint(positions=list(q_ref), velocities=list(qd_ref),
                                                accelerations=list(qdd_ref))
        assert set_parameters(ros, mode='computed_torque', kp=kp) == (True, '')
        desired[6:] = qdd_ref + kd * (qd_ref - v[6:]) + kp * (q_ref - q[7:])
        tracked = ROBOT.contact_inverse_dynamics(q, v, desired, feet()).tau[6:]
        assert not close(tracked, damped.tau[6:], 1e-3)
        wait_for(lambda: stream.sends(q, v, tracked), 30.0, 'the computed-torque torques')
    finally:
        assert set_parameters(ros, mode='gravity_compensation', kd=0.0, kp=0.0)[0]


def set_parameters(ros, **values):
    request_ = SetParameters.Request(parameters=[
        Parameter(k, value=v).to_parameter_msg() for k, v in values.items()])
    results = ros.call(SetParameters, 'inverse_dynamics/set_parameters', request_).results
    return all(r.successful for r in results), '; '.join(r.reason for r in results if r.reason)


def test_runtime_parameter_mistakes_are_refused_with_the_reason(solo):
    for values, said in (({'contacts': ['FL_FOOT', 'NOPE']}, "contacts: 'NOPE' is not a link"),
                         ({'contacts': ['FL_FOOT', 'FL_FOOT']}, 'appears twice'),
                         ({'contact_friction': 0.0}, 'contact_friction: must be'),
                         ({'contact_friction': -1.0}, 'contact_friction'),
                         ({'contact_kind': 'foot'}, 'contact_kind'),
                         ({'include_gravity': False}, 'include_gravity')):
        ok, reason = set_parameters(solo.ros, **values)
        assert not ok and said in reason, (values, reason)
    # accepted sets apply: three feet, then flat soles, then back to the four point feet
    stream, q, v = Stream(solo.ros), Q0, np.zeros(18)
    try:
        assert set_parameters(solo.ros, contacts=list(FEET[1:])) == (True, '')
        three = ROBOT.contact_inverse_dynamics(q, v, v, feet()[1:]).tau[6:]
        wait_for(lambda: stream.sends(q, v, three), 30.0, 'the torques of the contacts parameter')
        assert set_parameters(solo.ros, contacts=list(FEET), contact_kind='6d',
                              contact_friction=0.5) == (True, '')
        soles = ROBOT.contact_inverse_dynamics(q, v, v, [Contact(f, '6d', friction=0.5)
                                                         for f in FEET]).tau[6:]
        wait_for(lambda: stream.sends(q, v, soles), 30.0, 'the torques of 6d contacts')
    finally:
        assert set_parameters(solo.ros, contacts=list(FEET), contact_kind='point',
                              contact_friction=MU) == (True, '')
    wait_for(lambda: stream.sends(q, v, ROBOT.contact_inverse_dynamics(q, v, v, feet()).tau[6:]),
             30.0, 'the four point feet again')


@pytest.mark.parametrize('parameters, said', [
    ({'contacts': ['FL_FOOT', 'NOPE']}, "parameter contacts: 'NOPE' is not a link"),
    ({'contact_friction': 0.0}, 'parameter contact_friction: must be a finite coefficient > 0'),
    ({'contact_kind': 'foot'}, "parameter contact_kind: 'foot' is not one of point, 6d"),
    ({'contacts': list(FEET), 'mode': 'inverse_dynamics', 'include_gravity': False},
     'parameter contacts: the contact-consistent stream carries the robot with gravity'),
], ids=['unknown frame', 'friction 0', 'kind', 'without gravity'])
def test_a_start_up_mistake_is_one_error_line(parameters, said):
    node = NodeProcess('inverse_dynamics_node', unique_namespace(),
                       dict({'urdf_path': SOLO, 'root_joint': 'floating'}, **parameters))
    with node:
        wait_for(lambda: not node.alive(), 60.0, 'the node to exit')
    output = node.output()
    errors = [line for line in output.splitlines() if '[ERROR]' in line]
    assert node.process.returncode == 1 and len(errors) == 1, output
    assert said in errors[0] and 'Traceback' not in output, output


# ---------------------------------------------------------------- a short fuzz
def fuzzed_spec(rng: random.Random) -> ContactSpec:
    """Return a ContactSpec, each field good (the first choice) or odd or invalid."""
    def pick(good, *others):
        return good() if rng.random() < 0.8 else rng.choice(others)
    kind = pick(lambda: rng.choice(('point', '6d', '')), 'PD', '3D', ' point')
    bilateral = rng.random() < 0.2
    out = ContactSpec(
        frame=pick(lambda: rng.choice(FEET + ('base_link', 'FL_LOWER_LEG')), '', 'FL_foot',
                   'world', 'x' * 40),
        kind=kind, bilateral=bilateral,
        friction=pick(lambda: 0.0 if bilateral else rng.uniform(0.05, 2.0), 0.0, -0.3,
                      math.nan, math.inf, -math.inf, 1e-300, 1e300),
        sole=pick(lambda: [-0.01, 0.02, -0.01, 0.01] if kind == '6d' and not bilateral else [],
                  [0.01, 0.02, -0.01, 0.01], [0.0] * 3, [-0.1, 0.1, -0.1, math.nan]))
    if rng.random() < 0.3:   # a point off the link origin, sometimes not finite
        out.position.x = rng.uniform(-0.05, 0.05)
        out.position.z = pick(lambda: 0.01, math.nan, math.inf)
    return out


def test_fuzzed_contacts_answer_the_core_or_name_a_field(solo):
    """Random contact sets: the core's answer (finite), or success false naming a field."""
    rng = random.Random(SEED)
    outcomes = {'refused': 0, 'answered': 0, 'no contact': 0}
    for case in range(int(40 * SCALE)):
        contacts = [fuzzed_spec(rng) for _ in range(rng.randint(0, 4))]
        a = np.concatenate([[rng.uniform(-2.0, 2.0) for _ in range(6)], np.zeros(12)])
        facets = rng.choice((0, 0, 3, 4, 8, 64, 1, 2, 65, 2**32 - 1))
        answer = solo.ros.call(ContactInverseDynamics, SERVICE,
                               request(Q0, np.zeros(18), a, contacts, facets))
        where = f'seed {SEED} case {case}: {contacts}, {facets} facets'
        if not answer.success:
            assert answer.message.startswith(('contacts', 'friction_facets')), \
                (where, answer.message)
            outcomes['refused'] += 1
            continue
        outcomes['answered' if contacts else 'no contact'] += 1
        assert all(c.bilateral or (math.isfinite(c.friction) and c.friction > 0.0)
                   for c in contacts), where
        core = [Contact(c.frame, c.kind or 'point', (c.position.x, c.position.y, c.position.z),
                        friction=None if c.bilateral else c.friction,
                        sole=tuple(c.sole) or None, bilateral=c.bilateral) for c in contacts]
        assert 3 <= (facets or 4) <= 64, where
        assert_as_core(answer, Q0, np.zeros(18), a, core, facets or 4)
    assert outcomes['refused'] and outcomes['answered'], (SEED, outcomes)   # both exercised
