"""
One spec per parameter: a core's settings take their defaults and rules from the node's specs.

A value a node refuses at start is refused by the core's settings too, with the same message,
whether it comes from a parameter file or from Python; and a node declares exactly the specs its
core is configured by.
"""

import math
from typing import Any, Iterator, List, Sequence

import pytest
from robot_sm.drive.wheel_commander import WHEEL_PARAMETERS, WheelSettings
from robot_sm.mux import MUX_PARAMETERS, MuxConfig
from robot_sm.nodes import (
    base_controller,
    robot_control_mux,
    robot_sim,
    service_provider,
    teleop_retargeting,
)
from robot_sm.parameters import ConfigurationError, Param, validate
from robot_sm.sim import BASE_PARAMETERS, BaseSettings, SENSOR_PARAMETERS, SensorSettings
from robot_sm.teleop.settings import IK_PARAMETERS, IkSettings, TELEOP_PARAMETERS, TeleopSettings
from robot_sm.waypoints import STORE_PARAMETERS, StoreSettings

SETTINGS = [(MuxConfig, MUX_PARAMETERS), (TeleopSettings, TELEOP_PARAMETERS),
            (IkSettings, IK_PARAMETERS), (StoreSettings, STORE_PARAMETERS),
            (BaseSettings, BASE_PARAMETERS), (SensorSettings, SENSOR_PARAMETERS),
            (WheelSettings, WHEEL_PARAMETERS)]


def bad_values(spec: Param) -> Iterator[Any]:
    """Yield values the spec refuses: the wrong type, and each bound overstepped."""
    kind = spec.resolved_kind()
    yield {'float': 'fast', 'int': 1.5, 'bool': 'yes', 'str': 5}.get(kind, 'not a list')
    if kind == 'float':
        yield math.nan
    if spec.minimum is not None:
        yield spec.minimum if spec.exclusive_minimum else spec.minimum - 1
    if spec.maximum is not None:
        yield spec.maximum + 1
    if spec.choices:
        yield 'sideways'


def cases() -> List[Any]:
    return [pytest.param(settings, spec, value, id=f'{settings.__name__}.{spec.name}={value!r}')
            for settings, specs in SETTINGS for spec in specs for value in bad_values(spec)]


@pytest.mark.parametrize('settings, spec, value', cases())
def test_settings_refuse_what_the_node_refuses_with_the_same_message(
        settings: type, spec: Param, value: Any) -> None:
    with pytest.raises(ConfigurationError) as node_error:
        validate(spec, value)  # what declare_parameters raises at the node's start
    with pytest.raises(ConfigurationError) as core_error:
        settings(**{spec.name: value})
    assert str(core_error.value) == str(node_error.value)
    assert str(core_error.value).startswith(f"parameter '{spec.name}' ")


@pytest.mark.parametrize('settings, specs', SETTINGS, ids=[s.__name__ for s, _ in SETTINGS])
def test_settings_take_their_defaults_from_the_specs(settings: type,
                                                     specs: Sequence[Param]) -> None:
    defaults = settings()
    for spec in specs:
        value = getattr(defaults, spec.name)
        if value is not None:  # None: off, where the core allows it (no heartbeat watchdog)
            assert value == validate(spec, spec.default), spec.name


@pytest.mark.parametrize('declared, specs', [
    (robot_control_mux.parameters(), MUX_PARAMETERS),
    (teleop_retargeting.PARAMETERS, TELEOP_PARAMETERS + IK_PARAMETERS),
    (service_provider.parameters(), STORE_PARAMETERS),
    (robot_sim.PARAMETERS, BASE_PARAMETERS + SENSOR_PARAMETERS),
    (base_controller.PARAMETERS, WHEEL_PARAMETERS),
], ids=['robot_control_mux', 'teleop_retargeting', 'service_provider', 'robot_sim',
        'base_controller'])
def test_nodes_declare_the_specs_of_their_cores(declared: List[Param],
                                                specs: Sequence[Param]) -> None:
    for spec in specs:
        assert sum(item is spec for item in declared) == 1, spec.name
    names = [item.name for item in declared]
    assert len(names) == len(set(names))


def test_cross_checks_of_the_teleop_settings_use_the_same_format() -> None:
    with pytest.raises(ConfigurationError, match="^parameter 'button_release_threshold' must be "
                                                 r'<= button_threshold \(got 0.6\)$'):
        TeleopSettings(button_threshold=0.4, button_release_threshold=0.6)
