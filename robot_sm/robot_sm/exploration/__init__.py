"""Frontier-based exploration: find the borders between known free space and the unknown."""

from robot_sm.exploration.frontier_search import (
    Frontier,
    FrontierSearch,
    is_blacklisted,
    select_goal,
)

__all__ = ['Frontier', 'FrontierSearch', 'is_blacklisted', 'select_goal']
