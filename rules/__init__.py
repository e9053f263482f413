"""hybridlint rules: one LibCST rule per module; ALL_RULES lists them in code order."""

from typing import List, Type

from .base import Invalid, Rule, Valid  # noqa: F401
from .hl001 import SymbolAttribute
from .hl002_ndarray_only_method import NDArrayOnlyMethod
from .hl003_tensor_indexing import TensorIndexing
from .hl004_inplace_arithmetic import InplaceArithmetic
from .hl005_array_creation import ArrayCreation
from .hl006_eager_namespace_op import EagerNamespaceOp
from .hl007_non_broadcast_arithmetic import NonBroadcastArithmetic
from .hl008_tensor_control_flow import TensorControlFlow
from .hl009_len_or_print import LenOrPrint
from .hl010_non_hybrid_child import NonHybridChild
from .hl011_varargs_reshape import VarargsReshape
from .hl012_parameter_data import ParameterData
from .hl013_state_mutation import StateMutation
from .hl014_tensor_unpacking import TensorUnpacking
from .hl015_ndarray_only_function import NDArrayOnlyFunction
from .hl016_autograd_mode_branch import AutogradModeBranch
from .hl017_autograd_function_call import AutogradFunctionCall
from .hl018_non_array_input_output import NonArrayInputOutput

ALL_RULES: List[Type[Rule]] = [
    SymbolAttribute,
    NDArrayOnlyMethod,
    TensorIndexing,
    InplaceArithmetic,
    ArrayCreation,
    EagerNamespaceOp,
    NonBroadcastArithmetic,
    TensorControlFlow,
    LenOrPrint,
    NonHybridChild,
    VarargsReshape,
    ParameterData,
    StateMutation,
    TensorUnpacking,
    NDArrayOnlyFunction,
    AutogradModeBranch,
    AutogradFunctionCall,
    NonArrayInputOutput,
]
ALL_RULES.sort(key=lambda rule: rule.code)
