"""hybridlint rules: one LibCST rule per module; ALL_RULES lists them in code order."""
from .base import Invalid, Rule, Valid  # noqa: F401
from .hl001_symbol_attribute import SymbolAttribute
from .hl003_tensor_indexing import TensorIndexing

ALL_RULES = [
    SymbolAttribute,
    TensorIndexing,
]
ALL_RULES.sort(key=lambda rule: rule.code)
