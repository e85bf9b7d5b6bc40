"""The subcommands, one module each: ``add_command(subparsers)`` registers the command's parser
and sets ``func`` (``args -> exit code``).

Adding a subcommand is one module here plus its name in :data:`COMMAND_MODULES` (the order of
``--help``) and its tests in ``tests/cli/``.
"""

#: Modules of the subcommands, in the order ``--help`` lists them.
COMMAND_MODULES: tuple[str, ...] = tuple(f"pipeline.cli.commands.{name}" for name in (
    "solve", "count", "build", "export", "check", "import_", "verify", "batch",
    "draw", "spy", "report", "generate", "rate", "explain", "convert",
))
