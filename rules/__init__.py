"""hybridlint rules: one LibCST rule per module."""
