"""The engine's gluon.Trainer: built and checked as MXNet 1.9.1 builds it; no gradients.

Blocks that build their Trainer in `__init__` (accel-brain-base's models) must be constructible
on the engine for `--verify` to run them; what a Trainer refuses must be refused the same way.
The MXNet-marked tests run each case on both and compare the outcome.
"""

import pytest

import hybridlint.engine as engine
from hybridlint.engine.base import EngineGap


def _initialised(mx, units=3, in_units=2):
    net = mx.gluon.nn.Dense(units, in_units=in_units, prefix="d_")
    net.initialize()
    return net


def _deferred(mx):
    net = mx.gluon.nn.Dense(3, prefix="d_")  # in_units unknown until the first call
    net.initialize()
    return net


# Each case: a function of the library giving the Trainer's arguments.
CASES = {
    "adam with a learning rate": lambda mx: (
        (_initialised(mx).collect_params(), "adam", {"learning_rate": 0.1}),
        {},
    ),
    "sgd's default learning rate": lambda mx: ((_initialised(mx).collect_params(), "sgd"), {}),
    "adam's default learning rate": lambda mx: ((_initialised(mx).collect_params(), "Adam"), {}),
    "a list of parameters, deferred": lambda mx: (
        (list(_deferred(mx).collect_params().values()), "rmsprop", {"wd": 0.01}),
        {},
    ),
    "an unknown optimizer": lambda mx: ((_initialised(mx).collect_params(), "nosuch"), {}),
    "not parameters": lambda mx: ((5, "sgd"), {}),
    "a list of ints": lambda mx: (([5], "sgd"), {}),
    "an argument the optimizer does not take": lambda mx: (
        (_initialised(mx).collect_params(), "sgd", {"beta1": 0.9}),
        {},
    ),
    "uninitialised parameters": lambda mx: (
        (mx.gluon.nn.Dense(3, in_units=2, prefix="d_").collect_params(), "sgd"),
        {},
    ),
}


def _outcome(mx, case):
    args, kwargs = CASES[case](mx)
    try:
        trainer = mx.gluon.Trainer(*args, **kwargs)
    except Exception as err:  # noqa: BLE001 - the type and message are what is compared
        return type(err).__name__, str(err)
    learning_rate = trainer.learning_rate
    trainer.set_learning_rate(0.5)
    return "ok", (learning_rate, trainer.learning_rate)


def test_construction_and_learning_rate_on_the_engine():
    assert _outcome(engine, "adam with a learning rate") == ("ok", (0.1, 0.5))
    assert _outcome(engine, "sgd's default learning rate") == ("ok", (0.01, 0.5))
    assert _outcome(engine, "adam's default learning rate") == ("ok", (0.001, 0.5))
    assert _outcome(engine, "an unknown optimizer") == (
        "ValueError",
        "Cannot find optimizer nosuch",
    )
    kind, message = _outcome(engine, "uninitialised parameters")
    assert kind == "RuntimeError" and "has not been initialized" in message


def test_block_building_a_trainer_in_init_runs_eagerly_and_hybridized():
    """The shape of accel-brain-base's models: the Trainer is part of the constructor."""
    mx = engine

    class Model(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = mx.gluon.nn.Dense(4, in_units=3)
            self.initialize()
            self.trainer = mx.gluon.Trainer(self.collect_params(), "adam", {"learning_rate": 0.1})

        def hybrid_forward(self, F, x):
            return self.dense(x)

    model = Model()
    x = mx.nd.ones((2, 3))
    eager = model(x).asnumpy()
    model.hybridize()
    assert (model(x).asnumpy() == eager).all()


def test_step_is_an_engine_gap():
    trainer = engine.gluon.Trainer(_initialised(engine).collect_params(), "sgd")
    for call in (lambda: trainer.step(1), trainer.allreduce_grads, lambda: trainer.update(1)):
        with pytest.raises(EngineGap, match="gluon.Trainer"):
            call()


@pytest.mark.mxnet
@pytest.mark.parametrize("case", sorted(CASES))
def test_trainer_matches_real_mxnet(case):
    mx_real = pytest.importorskip("mxnet")
    assert _outcome(engine, case) == _outcome(mx_real, case)
