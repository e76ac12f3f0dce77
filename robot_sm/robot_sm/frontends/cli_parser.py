"""
How ``robot-sm``'s table of verbs becomes an argparse parser: groups, default verbs, lazy verbs.

:func:`add_verbs` adds a subcommand for each verb of a table (``'waypoint add'`` under
``waypoint``), with the first line of the verb function's docstring as its help. A command
parses with one verb of thirty, and argparse makes a help formatter for every argument added:
a verb's arguments (and ``-h``) are added when its parser is first used (:class:`LazyParser`),
unless argcomplete completes the line, which reads every parser.
"""

import argparse
import functools
import os
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence

from robot_sm.frontends.cli_arguments import common_options

AddArguments = Callable[[argparse.ArgumentParser], None]


def _add_help(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('-h', '--help', action='help', default=argparse.SUPPRESS,
                        help='show this help message and exit')


class LazyParser(argparse.ArgumentParser):
    """A parser whose arguments, ``-h`` too, are added when it first parses or shows help."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        wants_help = kwargs.get('add_help', True)
        kwargs['add_help'] = False
        super().__init__(*args, **kwargs)
        self.pending: List[AddArguments] = []
        if wants_help:
            self.defer([_add_help])

    def defer(self, adds: Sequence[AddArguments]) -> None:
        """Add arguments when the parser is first used (at once while argcomplete completes)."""
        self.pending.extend(adds)
        if '_ARGCOMPLETE' in os.environ:  # it reads every parser
            self.add_pending()

    def add_pending(self) -> None:
        """Add the arguments not added yet."""
        pending, self.pending = self.pending, []
        for add in pending:
            add(self)

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        self.add_pending()
        return super().parse_known_args(*args, **kwargs)

    def format_usage(self) -> str:
        self.add_pending()
        return super().format_usage()

    def format_help(self) -> str:
        self.add_pending()
        return super().format_help()


class _VerbsWithDefault(Mapping[str, argparse.ArgumentParser]):
    """A group's verbs where any other first word is let through, to start the default verb."""

    def __init__(self, parsers: Dict[str, argparse.ArgumentParser]) -> None:
        self._parsers = parsers

    def __contains__(self, word: object) -> bool:
        return True

    def __getitem__(self, word: str) -> argparse.ArgumentParser:
        return self._parsers[word]

    def __iter__(self) -> Iterator[str]:
        return iter(self._parsers)

    def __len__(self) -> int:
        return len(self._parsers)


class _DefaultVerbAction(argparse._SubParsersAction):
    """Subcommands where a first word that is not a verb starts the default verb."""

    default_verb = ''

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: Optional[str] = None) -> None:
        if values and values[0] not in self._name_parser_map:
            values = [self.default_verb, *values]
        super().__call__(parser, namespace, values, option_string)


def _help(function: Callable[..., Any]) -> str:
    """Return the first line of a verb's docstring, as argparse's help of it."""
    summary = (function.__doc__ or '').strip().splitlines()[0]
    return summary[0].lower() + summary[1:].rstrip('.')


def _group(commands: Any, command: str, help_text: str, default: Optional[str]) -> Any:
    """Add the group ``command`` (``default``: the verb another first word stands for)."""
    group = commands.add_parser(command, help=help_text)
    if default:
        group.register('action', 'parsers', _DefaultVerbAction)
    subparsers = group.add_subparsers(dest='verb', metavar='VERB', required=True)
    if default:
        subparsers.default_verb = default
        subparsers.choices = _VerbsWithDefault(subparsers._name_parser_map)
    return subparsers


def add_verbs(parser: argparse.ArgumentParser, verbs: Mapping[str, Any],
              groups: Mapping[str, str], default_verbs: Mapping[str, str]) -> None:
    """
    Add every verb of ``verbs`` (by its words) to ``parser``; ``set_defaults(run_verb=verb)``.

    A verb has ``function`` (its docstring is its help) and ``arguments`` (functions that add
    its arguments to its parser); ``--namespace``, ``--timeout``, ``--json`` and
    ``--no-daemon`` are added after every verb too. ``groups`` gives the help of each group's
    first word, ``default_verbs`` the verb a group's first word stands for otherwise.
    """
    commands = parser.add_subparsers(dest='command', metavar='COMMAND', required=True,
                                     parser_class=LazyParser)
    subcommands: Dict[str, Any] = {}
    verb_parsers: Dict[str, LazyParser] = {}
    for words, verb in verbs.items():
        command, _, name = words.partition(' ')
        if not name:
            subparsers, name = commands, command
        elif command in subcommands:
            subparsers = subcommands[command]
        elif command in verb_parsers:  # a verb with verbs of its own: fleet, fleet estop
            subparsers = subcommands[command] = verb_parsers[command].add_subparsers(
                dest='verb', metavar='VERB', required=False)
        else:
            subparsers = subcommands[command] = _group(commands, command, groups[command],
                                                       default_verbs.get(command))
        verb_parser = subparsers.add_parser(name, help=_help(verb.function),
                                            description=verb.function.__doc__)
        verb_parser.defer([*verb.arguments, functools.partial(
            common_options, after_verb=True, operator=verb.names_operator)])
        verb_parser.set_defaults(run_verb=verb)
        verb_parsers[words] = verb_parser
