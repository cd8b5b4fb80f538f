"""Readable `--help`: argument names in capitals, value types as words, nothing after a flag.

Typer (0.29) shows placeholders such as `<bool>` after flags, `<str>` after every value and
`{question}` in the usage line. This names each argument by itself (`QUESTION`, `PATHS...`) and
each option's value by its kind (`TEXT`, `INTEGER`, `NUMBER`, `PATH`), the way command-line
tools conventionally do; flags take no value and show none.
"""

from __future__ import annotations

from typing import Any


def _value_name(param: Any) -> str:
    shown = str(param.display_type(None) or "").lower()
    if "path" in shown:
        return "PATH"
    if "int" in shown:
        return "INTEGER"
    if "float" in shown:
        return "NUMBER"
    return "TEXT"


def tidy_help(command: Any) -> None:
    """Give every parameter of `command` and its subcommands a conventional, readable name."""
    for param in command.params:
        if param.param_type_name == "argument":
            name = param.metavar or str(param.name).upper()
            if param.nargs != 1 and not name.endswith("..."):
                name += "..."
            param.metavar = name
            usage = name if param.required else f"[{name}]"
            # Per instance: the usage line shows NAME (not {name}) and no type follows it.
            param._usage_display_name = lambda usage=usage: usage
            param.display_type_rich = lambda ctx=None: None
        elif getattr(param, "is_flag", False):
            param.display_type_rich = lambda ctx=None: None
        elif param.metavar is None:
            param.metavar = _value_name(param)
    make_help_option = command.get_help_option

    def help_option(ctx: Any) -> Any:
        option = make_help_option(ctx)
        if option is not None:  # --help is a flag too
            option.display_type_rich = lambda ctx=None: None
        return option

    command.get_help_option = help_option
    for sub in (getattr(command, "commands", None) or {}).values():
        tidy_help(sub)
