"""
The operating cycle in one table: which state follows which, and where interrupts lead.

Read it top to bottom:

1. :class:`Role`: the parts states play. Each role is played by a plugin state that a parameter
   of the state interface names (:data:`ROLES`); the three navigation roles are played by the one
   ``navigation_plugin``, the two emergency stops by the one ``emergency_stop_state``, routines
   by the plugin the waypoint names (``Wait`` → ``WaitRoutine``). The state's name is the
   plugin's ``NAME`` after the prefix of the role's activity (``E: `` exploration, ``W: ``
   waypoint following, ``G: `` simple goal).
2. :data:`TRANSITIONS`: a state ends with an *outcome*, one of the names its class declares in
   ``OUTCOMES``, and the role that follows is ``TRANSITIONS[role][outcome]``. States never
   choose their successor.
3. :data:`INTERRUPTS`: what comes from outside (the mux's e-stop and teleoperation, operators'
   simple goals) and where it leads from each role that takes it; a role not listed for an
   interrupt ignores it. Of two interrupts in one tick the one of higher :data:`PRIORITY` wins,
   whatever their order: an e-stop always beats a simple goal.
4. :class:`Handover`: what travels with a transition to the next state. States share nothing
   else.

The state interface checks at start-up, as YASMIN's ``StateMachine.validate()`` does, that the
table is whole (:func:`check_table`) and that every outcome the configured plugins declare is
handled (:func:`check_outcomes`), and publishes the cycle (:func:`describe`) on
``robot_sm/cycle``; :func:`table` prints it.
"""

from dataclasses import dataclass
import enum
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from robot_sm.parameters import ConfigurationError
from robot_sm.waypoints.navigation_goal import NavigationGoal, NavigationMode


class Role(enum.Enum):
    """The part a state plays in the operating cycle."""

    BOOT = 'boot'
    BOOT_EMERGENCY_STOP = 'emergency stop during boot'
    IDLE = 'idle'
    TELEOPERATION = 'teleoperation'
    EMERGENCY_STOP = 'emergency stop'
    MAPPING = 'mapping'
    CALCULATE_GOAL = 'calculate goal'
    EXPLORATION_NAVIGATION = 'exploration navigation'
    WAYPOINT_FOLLOWING = 'waypoint following'
    WAYPOINT_NAVIGATION = 'waypoint navigation'
    ROUTINE = 'routine'
    SIMPLE_GOAL_NAVIGATION = 'simple goal navigation'
    PAUSED = 'paused'


@dataclass(frozen=True)
class Part:
    """Who plays a role: the state interface parameter naming the plugin, and what it does."""

    #: The parameter naming the plugin ('' for routines: the waypoint names them).
    parameter: str
    #: The parameter's default plugin.
    default: str
    #: What the state does, in a line.
    does: str
    #: The activity the role belongs to (what its goals are for); NONE outside activities.
    activity: NavigationMode = NavigationMode.NONE


E, W, G = (NavigationMode.EXPLORATION, NavigationMode.WAYPOINT_FOLLOWING,
           NavigationMode.SIMPLE_GOAL)

ROLES: Dict[Role, Part] = {
    Role.BOOT: Part('boot_state', 'Boot', 'waits until the service provider and the mux '
                    'answer and the robot says it is ready (`boot_up_service`)'),
    Role.BOOT_EMERGENCY_STOP: Part('emergency_stop_state', 'EmergencyStop',
                                   'the e-stop was engaged during boot; refuses everything'),
    Role.IDLE: Part('idle_state', 'Idle', 'waits for an operator'),
    Role.TELEOPERATION: Part('teleoperation_state', 'Teleoperation',
                             'an operator drives through the mux'),
    Role.EMERGENCY_STOP: Part('emergency_stop_state', 'EmergencyStop',
                              "the mux's e-stop is engaged; refuses everything"),
    Role.MAPPING: Part('mapping_plugin', 'MappingDummy', 'looks around at the reached goal '
                       '(and at the start of exploration)', E),
    Role.CALCULATE_GOAL: Part('calculate_goal_plugin', 'CalculateGoal',
                              'chooses the next exploration goal', E),
    Role.EXPLORATION_NAVIGATION: Part('navigation_plugin', 'Navigation',
                                      'drives to the exploration goal', E),
    Role.WAYPOINT_FOLLOWING: Part('waypoint_following_state', 'WaypointFollowing',
                                  'picks the next waypoint; at the end of a round asks the '
                                  'service provider to finish it (`finish_round`)', W),
    Role.WAYPOINT_NAVIGATION: Part('navigation_plugin', 'Navigation',
                                   'drives to the waypoint', W),
    Role.ROUTINE: Part('', '', 'runs the routine the reached waypoint names', W),
    Role.SIMPLE_GOAL_NAVIGATION: Part('navigation_plugin', 'Navigation',
                                      "drives to an operator's simple goal", G),
    Role.PAUSED: Part('paused_state', 'Paused', 'holds a paused activity at its place (the '
                      'robot at zero); continue resumes it where it was'),
}

#: The prefix of the names of an activity's states, and what refusals call the activity.
ACTIVITIES: Dict[NavigationMode, Tuple[str, str]] = {
    NavigationMode.NONE: ('', ''),
    E: ('E: ', 'Exploration'),
    W: ('W: ', 'Waypoint following'),
    G: ('G: ', 'Simple Goal'),
}

#: A state's outcome → the role of the next state.
TRANSITIONS: Dict[Role, Dict[str, Role]] = {
    # Start-up: Boot waits for the suite, then the robot waits for an operator.
    Role.BOOT: {'booted': Role.IDLE},
    # An operator starts an activity (Idle answers the start requests).
    Role.IDLE: {'start_exploration': Role.MAPPING,
                'start_waypoint_following': Role.WAYPOINT_FOLLOWING},
    # Exploration: look around, choose a frontier, drive there, look around again, ...
    Role.MAPPING: {'succeeded': Role.CALCULATE_GOAL, 'failed': Role.CALCULATE_GOAL,
                   'aborted': Role.IDLE, 'stopped': Role.IDLE},
    Role.CALCULATE_GOAL: {'succeeded': Role.EXPLORATION_NAVIGATION,  # a goal was chosen
                          'finished': Role.IDLE,  # no frontier left: explored
                          'aborted': Role.IDLE,  # no map, or no robot pose
                          'failed': Role.IDLE, 'stopped': Role.IDLE},
    Role.EXPLORATION_NAVIGATION: {
        'succeeded': Role.MAPPING, 'failed': Role.CALCULATE_GOAL,
        # The goal is no longer a frontier (interrupt mode): look around if the robot moved.
        'obsolete_moved': Role.MAPPING, 'obsolete_not_moved': Role.CALCULATE_GOAL,
        'aborted': Role.IDLE, 'stopped': Role.IDLE,
        'routine': Role.MAPPING},  # (exploration goals name no routine)
    # Waypoint following: pick a waypoint, drive there, run its routine, pick the next, ...
    Role.WAYPOINT_FOLLOWING: {'next_waypoint': Role.WAYPOINT_NAVIGATION,
                              'finished': Role.IDLE,  # a SINGLE round is over
                              'failed': Role.IDLE, 'stopped': Role.IDLE},
    Role.WAYPOINT_NAVIGATION: {
        'succeeded': Role.WAYPOINT_FOLLOWING,  # the waypoint is marked visited
        'routine': Role.ROUTINE,  # arrived at a waypoint that names a routine
        'failed': Role.WAYPOINT_FOLLOWING,  # the waypoint is marked unreachable
        'aborted': Role.IDLE, 'stopped': Role.IDLE,
        'obsolete_moved': Role.IDLE, 'obsolete_not_moved': Role.IDLE},  # (exploration only)
    Role.ROUTINE: {'succeeded': Role.WAYPOINT_FOLLOWING,  # the waypoint is marked visited
                   'failed': Role.WAYPOINT_FOLLOWING,  # ... or unreachable
                   'aborted': Role.IDLE, 'stopped': Role.IDLE},
    # A simple goal: drive there, then wait for an operator again, however it ended.
    Role.SIMPLE_GOAL_NAVIGATION: {
        'succeeded': Role.IDLE, 'failed': Role.IDLE, 'aborted': Role.IDLE,
        'stopped': Role.IDLE, 'routine': Role.IDLE, 'obsolete_moved': Role.IDLE,
        'obsolete_not_moved': Role.IDLE},
    # A paused activity: stopped by an operator, or abandoned after max_pause. (Continue
    # leads back to the role it was paused in: RESUME_ROLE.)
    Role.PAUSED: {'stopped': Role.IDLE, 'abandoned': Role.IDLE},
}


class Interrupt(enum.IntEnum):
    """What comes from outside the cycle (numbers as in RSM)."""

    #: The e-stop or teleoperation that held has ended.
    INTERRUPT_END = 0
    #: The emergency stop was engaged (the mux's ``robot_sm/operation_mode``).
    EMERGENCY_STOP = 1
    #: An operator took over with teleoperation (the mux's mode).
    TELEOPERATION = 2
    #: An operator sent a simple goal (``robot_sm/simple_goal``, RViz "2D Goal Pose").
    SIMPLE_GOAL = 3
    #: An operator stopped the simple goal (``robot_sm/stop_2d_nav_goal``).
    SIMPLE_GOAL_STOP = 4
    #: An operator paused the activity (``robot_sm/pause``): it is held at its place.
    PAUSE = 5


#: Of two interrupts in one tick the higher wins: e-stop, teleoperation, simple goals, the end.
PRIORITY: Dict[Interrupt, int] = {
    Interrupt.EMERGENCY_STOP: 3,
    Interrupt.TELEOPERATION: 2,
    Interrupt.SIMPLE_GOAL: 1,
    Interrupt.SIMPLE_GOAL_STOP: 1,
    Interrupt.PAUSE: 1,
    Interrupt.INTERRUPT_END: 0,
}

#: What Idle and every state of an activity take.
OPERATOR_INTERRUPTS: Dict[Interrupt, Role] = {
    Interrupt.EMERGENCY_STOP: Role.EMERGENCY_STOP,
    Interrupt.TELEOPERATION: Role.TELEOPERATION,
    Interrupt.SIMPLE_GOAL: Role.SIMPLE_GOAL_NAVIGATION,  # a new simple goal replaces the old
}

#: What every state of an activity takes: the operators' interrupts, and pause.
ACTIVITY_INTERRUPTS: Dict[Interrupt, Role] = {**OPERATOR_INTERRUPTS,
                                              Interrupt.PAUSE: Role.PAUSED}

#: An interrupt → the role of the next state, for each role that takes it.
INTERRUPTS: Dict[Role, Dict[Interrupt, Role]] = {
    Role.BOOT: {Interrupt.EMERGENCY_STOP: Role.BOOT_EMERGENCY_STOP},
    Role.BOOT_EMERGENCY_STOP: {Interrupt.INTERRUPT_END: Role.BOOT},  # released: boot again
    Role.IDLE: OPERATOR_INTERRUPTS,
    # (The end of teleoperation or of an e-stop leads back to Paused when an activity is.)
    Role.TELEOPERATION: {Interrupt.EMERGENCY_STOP: Role.EMERGENCY_STOP,
                         Interrupt.INTERRUPT_END: Role.IDLE},
    Role.EMERGENCY_STOP: {Interrupt.INTERRUPT_END: Role.IDLE},  # never resumes an activity
    Role.MAPPING: ACTIVITY_INTERRUPTS,
    Role.CALCULATE_GOAL: ACTIVITY_INTERRUPTS,
    Role.EXPLORATION_NAVIGATION: ACTIVITY_INTERRUPTS,
    Role.WAYPOINT_FOLLOWING: ACTIVITY_INTERRUPTS,
    Role.WAYPOINT_NAVIGATION: ACTIVITY_INTERRUPTS,
    Role.ROUTINE: ACTIVITY_INTERRUPTS,
    Role.SIMPLE_GOAL_NAVIGATION: {**ACTIVITY_INTERRUPTS,
                                  Interrupt.SIMPLE_GOAL_STOP: Role.IDLE},
    # The e-stop wins over pause; teleoperation while paused is allowed.
    Role.PAUSED: {Interrupt.EMERGENCY_STOP: Role.EMERGENCY_STOP,
                  Interrupt.TELEOPERATION: Role.TELEOPERATION},
}


@dataclass(frozen=True)
class Handover:
    """
    What travels from one state to the next with the transition.

    A state's outcome hands over what it received unless it says otherwise, so the goal reaches
    the mapping state or routine after navigation; Idle's starts and the interrupts hand over a
    fresh one (a simple goal carries its goal).
    """

    #: The goal to drive to, or the one just driven to (its routine names the routine to run).
    goal: Optional[NavigationGoal] = None
    #: Waypoint following: rounds in a row in which every waypoint was unreachable.
    unreachable_rounds: int = 0


#: Where a paused activity continues, by the role of the state it was paused in: the same role,
#: except that a waypoint's drive goes back to choosing it (the same waypoint, as it was not
#: reached, with the list as it is now).
RESUME_ROLE: Dict[Role, Role] = {
    Role.WAYPOINT_FOLLOWING: Role.WAYPOINT_FOLLOWING,
    Role.WAYPOINT_NAVIGATION: Role.WAYPOINT_FOLLOWING,
    Role.ROUTINE: Role.ROUTINE,
    Role.MAPPING: Role.MAPPING,
    Role.CALCULATE_GOAL: Role.CALCULATE_GOAL,
    Role.EXPLORATION_NAVIGATION: Role.EXPLORATION_NAVIGATION,
    Role.SIMPLE_GOAL_NAVIGATION: Role.SIMPLE_GOAL_NAVIGATION,
}


class CycleError(ConfigurationError):
    """The cycle cannot run with the configured plugins; the message names role and plugin."""


def next_role(role: Role, outcome: str) -> Optional[Role]:
    """Return the role that follows ``outcome`` of ``role``, or None if the cycle has none."""
    return TRANSITIONS.get(role, {}).get(outcome)


def interrupt_target(role: Role, interrupt: Interrupt) -> Optional[Role]:
    """Return where ``interrupt`` leads from ``role``, or None if the role ignores it."""
    return INTERRUPTS.get(role, {}).get(interrupt)


def plays(role: Role, plugin: str) -> str:
    """Name a role and its plugin for messages: ``role 'mapping' (mapping_plugin 'Spin')``."""
    parameter = ROLES[role].parameter or 'routine plugin'
    return f"role '{role.value}' ({parameter} '{plugin}')"


def check_outcomes(role: Role, plugin: str, outcomes: Iterable[str]) -> None:
    """
    Check that the cycle handles every outcome ``plugin`` declares when it plays ``role``.

    :raises CycleError: naming the role, the plugin and the first outcome not handled.
    """
    for outcome in outcomes:
        if next_role(role, outcome) is None:
            handled = ', '.join(TRANSITIONS.get(role, {})) or 'none'
            raise CycleError(f"{plays(role, plugin)} declares outcome '{outcome}', which the "
                             f'cycle does not handle (it handles: {handled})')


def check_table() -> None:
    """
    Check the table itself: every role has a part, every target exists, all reachable from Boot.

    :raises CycleError: naming the first role that breaks a rule.
    """
    edges: Dict[Role, List[Role]] = {role: [] for role in Role}
    for role, by_outcome in TRANSITIONS.items():
        edges[role].extend(by_outcome.values())
    for role, by_interrupt in INTERRUPTS.items():
        edges[role].extend(by_interrupt.values())
    for role in edges:
        if role not in ROLES:
            raise CycleError(f"role '{role.value}' has no plugin parameter (ROLES)")
    reached = {Role.BOOT}
    frontier = [Role.BOOT]
    while frontier:
        for target in edges[frontier.pop()]:
            if target not in reached:
                reached.add(target)
                frontier.append(target)
    for role in Role:
        if role not in reached:
            raise CycleError(f"role '{role.value}' cannot be reached from boot")


def state_name(role: Role, name: str) -> str:
    """Return the name operators see for a state called ``name`` playing ``role``."""
    return ACTIVITIES[ROLES[role].activity][0] + name


def describe(players: Mapping[Role, Sequence[Tuple[str, str]]]) -> Dict[str, Any]:
    """
    Return the cycle as a document a program can read (what ``robot_sm/cycle`` carries as JSON).

    ``players`` gives, for each role, the ``(plugin, state name)`` of the plugins that play it.
    The document: ``start`` (the first role), ``roles`` (for each: ``role``, ``parameter``,
    ``activity``, ``does``, ``plugins`` with ``plugin`` and ``state``, ``outcomes`` and
    ``interrupts`` mapping to the next role) and ``interrupt_priority`` (highest first).
    """
    return {
        'start': Role.BOOT.name.lower(),
        'roles': [{
            'role': role.name.lower(),
            'parameter': part.parameter,
            'activity': ACTIVITIES[part.activity][1],
            'does': part.does,
            'plugins': [{'plugin': plugin, 'state': name}
                        for plugin, name in players.get(role, ())],
            'outcomes': {outcome: target.name.lower()
                         for outcome, target in TRANSITIONS.get(role, {}).items()},
            'interrupts': {interrupt.name: target.name.lower()
                           for interrupt, target in INTERRUPTS.get(role, {}).items()},
        } for role, part in ROLES.items()],
        'interrupt_priority': [interrupt.name for interrupt in
                               sorted(PRIORITY, key=lambda i: (-PRIORITY[i], i.value))],
        # Continue leads from Paused back to the role of the state the activity was paused in.
        'continue': {paused.name.lower(): resumed.name.lower()
                     for paused, resumed in RESUME_ROLE.items()},
    }


def table(document: Mapping[str, Any]) -> str:
    """Return the cycle of a :func:`describe` document as a Markdown table."""
    lines = ['| role | state (plugin) | what it does | outcome → next role | '
             'interrupt → next role |', '|---|---|---|---|---|']
    for role in document['roles']:
        parameter = role['parameter']
        plugins = ', '.join(
            f"`{p['state'] or 'Idle'}` (" + (f'`{parameter}`: ' if parameter else '')
            + p['plugin'] + ('' if p['state'] else ', not loaded') + ')'
            for p in role['plugins'])
        lines.append('| ' + ' | '.join([
            role['role'], plugins, role['does'],
            ', '.join(f'{o} → {t}' for o, t in role['outcomes'].items()) or '—',
            ', '.join(f'{i} → {t}' for i, t in role['interrupts'].items()) or '—',
        ]) + ' |')
    return '\n'.join(lines)
