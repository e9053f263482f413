"""Running the hybridlint CLI in-process for the CLI tests."""

from click.testing import CliRunner, Result

from hybridlint.cli import cli


def invoke(*args: str) -> Result:
    """`hybridlint ARGS...` with stdout and stderr kept apart (click < 8.2 mixes them unless
    told not to; click >= 8.2 always separates them and has no such argument)."""
    try:
        return CliRunner(mix_stderr=False).invoke(cli, list(args))
    except TypeError:
        return CliRunner().invoke(cli, list(args))
