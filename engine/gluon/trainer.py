"""`mx.gluon.Trainer`, as far as the engine can honour it: built and checked as MXNet 1.9.1 builds it.

Real blocks build their Trainer in `__init__` (accel-brain-base's models call
`gluon.Trainer(self.collect_params(), "adam", {...})` there), so without one `--verify` could not
even construct them. Construction checks what MXNet checks, in its order and with its messages:
the parameters (a dict or ParameterDict, sorted by key, or a list of Parameters), that each is
initialised (or deferred) on the same contexts, the optimizer's name and the keyword arguments
its constructor takes (`hybridlint/mxnet_names.py`'s OPTIMIZERS and OPTIMIZER_KEYWORDS,
generated from MXNet). The learning rate can be read and set. The engine keeps no gradients
(`autograd.backward` says so), so `step`, `update` and `allreduce_grads` raise the engine's "not
implemented" error, and a check that reaches them reports that it cannot verify on the engine
rather than guessing.
"""

from typing import Any, Dict, List, Optional

from ...mxnet_names import OPTIMIZER_KEYWORDS, OPTIMIZERS
from ..base import engine_not_implemented
from .parameter import Parameter, ParameterDict


class _Optimizer:
    """What `mx.optimizer.create(name, **optimizer_params)` gives a Trainer: a learning rate."""

    def __init__(self, name: str, optimizer_params: Dict[str, Any]) -> None:
        default_lr, keywords = OPTIMIZERS[name]
        for key in optimizer_params:
            # MXNet: the constructor's own TypeError
            if key not in keywords and key not in OPTIMIZER_KEYWORDS:
                raise TypeError(
                    "Optimizer.__init__() got an unexpected keyword argument '%s'" % key
                )
        self.name = name
        learning_rate = optimizer_params.get("learning_rate")
        self.lr = float(default_lr if learning_rate is None else learning_rate)
        self.lr_scheduler = optimizer_params.get("lr_scheduler")
        self.rescale_grad = optimizer_params.get("rescale_grad", 1.0)
        self.wd = optimizer_params.get("wd", 0.0)


class Trainer:
    """Applies an optimizer to a set of Parameters (MXNet 1.9.1's `gluon.Trainer`; no gradients)."""

    def __init__(
        self,
        params: Any,
        optimizer: Any,
        optimizer_params: Optional[Dict[str, Any]] = None,
        kvstore: str = "device",
        compression_params: Optional[Dict[str, Any]] = None,
        update_on_kvstore: Optional[bool] = None,
    ) -> None:
        if isinstance(params, (dict, ParameterDict)):
            params = [params[key] for key in sorted(params.keys())]
        if not isinstance(params, (list, tuple)):
            raise ValueError(
                "First argument must be a list or dict of Parameters, got %s." % (type(params))
            )
        self._params: List[Parameter] = []
        self._param2idx: Dict[str, int] = {}
        for i, param in enumerate(params):
            if not isinstance(param, Parameter):
                raise ValueError(
                    "First argument must be a list or dict of Parameters, "
                    "got list of %s." % (type(param))
                )
            self._param2idx[param.name] = i
            self._params.append(param)
        self._contexts = self._check_contexts()
        if not isinstance(optimizer, str):  # an mx.optimizer.Optimizer: the engine has none
            engine_not_implemented("gluon.Trainer with an Optimizer instance")
        if optimizer.lower() not in OPTIMIZERS:
            raise ValueError("Cannot find optimizer %s" % optimizer)
        self._optimizer = _Optimizer(optimizer.lower(), dict(optimizer_params or {}))
        self._scale = self._optimizer.rescale_grad
        self._kvstore_params = {"kvstore": kvstore, "update_on_kvstore": update_on_kvstore}
        self._compression_params = compression_params

    def _check_contexts(self) -> Optional[list]:
        contexts = None
        for param in self._params:
            ctx = param.list_ctx()  # raises for a Parameter not initialised (nor deferred)
            assert contexts is None or contexts == ctx, (
                "All Parameters must be initialized on the same set of contexts, "
                "but Parameter %s is initialized on %s while previous Parameters "
                "are initialized on %s." % (param.name, str(ctx), str(contexts))
            )
            contexts = ctx
        return contexts

    @property
    def learning_rate(self) -> float:
        if self._optimizer.lr_scheduler is not None:  # the engine has no lr_scheduler to call
            engine_not_implemented("lr_scheduler")
        return self._optimizer.lr

    @property
    def optimizer(self) -> _Optimizer:
        return self._optimizer

    def set_learning_rate(self, lr: float) -> None:
        if self._optimizer.lr_scheduler is not None:
            raise UserWarning(
                "LRScheduler of the optimizer has already been "
                "defined. Note that set_learning_rate can mutate "
                "the value of the learning rate of the optimizer "
                "only when the LRScheduler of the optimizer is "
                "undefined."
            )
        self._optimizer.lr = lr

    def step(self, batch_size: int, ignore_stale_grad: bool = False) -> None:  # noqa: ARG002
        engine_not_implemented("gluon.Trainer.step (gradients)")

    def allreduce_grads(self) -> None:
        engine_not_implemented("gluon.Trainer.allreduce_grads (gradients)")

    def update(self, batch_size: int, ignore_stale_grad: bool = False) -> None:  # noqa: ARG002
        engine_not_implemented("gluon.Trainer.update (gradients)")

    def save_states(self, fname: str) -> None:  # noqa: ARG002
        engine_not_implemented("gluon.Trainer.save_states")

    def load_states(self, fname: str) -> None:  # noqa: ARG002
        engine_not_implemented("gluon.Trainer.load_states")
