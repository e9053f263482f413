"""``python -m hybridlint``: the same as the ``hybridlint`` command."""

from .cli import main

if __name__ == "__main__":
    main()
