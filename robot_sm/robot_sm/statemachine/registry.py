"""
Plugin states from the entry-point group ``robot_sm.states``, pluginlib-style.

A robot package adds a state with one line in its ``setup.py``::

    entry_points={'robot_sm.states': ['MyMapping = my_robot.states:MyMapping']}

and names it in a parameter of the state interface (``mapping_plugin: MyMapping``). The
built-in states are registered in the same group, so a package can replace one (its own Boot,
say, with ``boot_state``). Plugins are listed without importing them; a missing or failing
plugin gives Idle, with an error that names the plugin and the reason.
"""

from importlib.metadata import entry_points, EntryPoint
from typing import Callable, Dict, List, Mapping, Optional, Tuple, Type

from robot_sm.statemachine.base_state import BaseState
from robot_sm.statemachine.constants import ENTRY_POINT_GROUP, ROUTINE_SUFFIX
from robot_sm.statemachine.context import Context, Logger
from robot_sm.statemachine.cycle import (
    check_outcomes,
    check_table,
    Handover,
    Role,
    ROLES,
    state_name,
)


class PluginError(LookupError):
    """A plugin that cannot be loaded; the message names it and says why."""


def installed_plugins() -> Dict[str, str]:
    """Return ``{name: 'module:Class'}`` of every installed plugin state, without importing."""
    return {entry.name: entry.value for entry in entry_points(group=ENTRY_POINT_GROUP)}


def routine_plugin(routine: str) -> str:
    """Return the plugin that runs waypoint routine ``routine``: ``Wait`` → ``WaitRoutine``."""
    return f'{routine}{ROUTINE_SUFFIX}'


class PluginRegistry:
    """Loads plugin classes by name (once each) from the installed entry points."""

    def __init__(self, extra: Optional[Mapping[str, Type[BaseState]]] = None) -> None:
        self._entries: Dict[str, EntryPoint] = {
            entry.name: entry for entry in entry_points(group=ENTRY_POINT_GROUP)}
        self._classes: Dict[str, Type[BaseState]] = dict(extra or {})

    def names(self) -> List[str]:
        """Return the names of all plugins, sorted."""
        return sorted(set(self._entries) | set(self._classes))

    def load(self, name: str) -> Type[BaseState]:
        """
        Return the class of plugin ``name``.

        :raises PluginError: if it is not installed, cannot be imported or is not a state.
        """
        if name in self._classes:
            return self._classes[name]
        entry = self._entries.get(name)
        if entry is None:
            known = ', '.join(self.names()) or 'none'
            raise PluginError(f"plugin '{name}' is not installed (entry-point group "
                              f'{ENTRY_POINT_GROUP}: {known})')
        try:
            loaded = entry.load()
        except Exception as error:  # noqa: B902 - any import failure is reported the same way
            raise PluginError(f"plugin '{name}' ({entry.value}) cannot be imported: "
                              f'{type(error).__name__}: {error}') from error
        if not (isinstance(loaded, type) and issubclass(loaded, BaseState)):
            raise PluginError(f"plugin '{name}' ({entry.value}) is not a BaseState subclass")
        self._classes[name] = loaded
        return loaded


class StateCreator:
    """The state machine's factory: the plugin of each role, created with its context."""

    def __init__(self, registry: PluginRegistry, plugins: Mapping[str, str],
                 context_for: Callable[[str], Context], logger: Logger,
                 idle_class: Type[BaseState],
                 on_error: Callable[[str], None] = lambda message: None) -> None:
        """
        Create states of the plugins ``plugins`` names (``{parameter: plugin}``).

        A role whose parameter is not in ``plugins`` is played by the parameter's default.
        """
        self._registry = registry
        self._plugins = dict(plugins)
        self._context_for = context_for
        self._logger = logger
        self._idle_class = idle_class
        self._on_error = on_error
        #: Why the last state created for a role is Idle instead ('' if it plays its role).
        self._failure = ''

    def plugin_for(self, role: Role, handover: Handover = Handover()) -> str:
        """Return the name of the plugin that plays ``role`` (with ``handover``'s routine)."""
        if role is Role.ROUTINE:
            return routine_plugin(handover.goal.routine if handover.goal is not None else '')
        part = ROLES[role]
        return self._plugins.get(part.parameter, part.default)

    def create(self, role: Role, handover: Handover = Handover()) -> BaseState:
        """Return a new state for ``role``; Idle (with an error) if its plugin fails."""
        name = self.plugin_for(role, handover)
        self._failure = ''
        try:
            state = self._registry.load(name)(self._context_for(name), role, handover)
            state.plugin = name
            return state
        except Exception as error:  # noqa: B902 - a plugin's constructor may raise anything
            message = (str(error) if isinstance(error, PluginError) else
                       f"plugin '{name}' could not be created: {type(error).__name__}: {error}")
            message = f'{message}; the {role.value} state falls back to Idle'
            self._logger.error(message)
            self._on_error(message)
            if role is Role.IDLE:
                idle = self.fallback()
            else:
                idle = self.create(Role.IDLE)
            self._failure = message
            return idle

    def failure(self, state: BaseState, role: Role) -> str:
        """Return why ``state`` does not play ``role`` (its plugin failed); '' if it does."""
        return self._failure if state.role is not role else ''

    def fallback(self) -> BaseState:
        """Return the built-in Idle state."""
        return self._idle_class(self._context_for(''), Role.IDLE)

    def _plugins_of(self, role: Role) -> List[str]:
        """Return the plugins that may play ``role``: every installed routine for routines."""
        if role is Role.ROUTINE:
            return [name for name in self._registry.names() if name.endswith(ROUTINE_SUFFIX)]
        return [self.plugin_for(role)]

    def check_cycle(self) -> Dict[Role, List[Tuple[str, str]]]:
        """
        Check the cycle with these plugins; return each role's ``(plugin, state name)``.

        A plugin that does not load is not checked (its role falls back to Idle at run time)
        and has no state name.

        :raises robot_sm.statemachine.cycle.CycleError: naming the role, plugin and outcome.
        """
        check_table()
        named: Dict[Role, List[Tuple[str, str]]] = {}
        for role in ROLES:
            named[role] = []
            for plugin in self._plugins_of(role):
                try:
                    state_class = self._registry.load(plugin)
                except PluginError:
                    named[role].append((plugin, ''))
                    continue
                check_outcomes(role, plugin, state_class.OUTCOMES)
                named[role].append(
                    (plugin, state_name(role, state_class.NAME or state_class.__name__)))
        return named
