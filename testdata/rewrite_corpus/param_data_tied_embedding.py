"""Hazards: param-data. Exact rewrite: yes.

Language-model decoder tying its output layer to the input embedding with
`self.embed.weight.data()`; registering the shared parameter on the block (so Gluon passes
it to hybrid_forward) is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class TiedLMDecoder(gluon.HybridBlock):
    """logits = h W_embed^T for (B, T) tokens."""

    def __init__(self, vocab_size, units, **kwargs):
        super(TiedLMDecoder, self).__init__(**kwargs)
        self._vocab_size = vocab_size
        with self.name_scope():
            self.embed = nn.Embedding(vocab_size, units)
            self.cell = nn.Dense(units, flatten=False, activation='tanh')

    def hybrid_forward(self, F, tokens):
        h = self.cell(self.embed(tokens))
        return F.FullyConnected(h, self.embed.weight.data(), no_bias=True,
                                num_hidden=self._vocab_size, flatten=False)


EXAMPLES = {"TiedLMDecoder": {"kwargs": {"vocab_size": 6, "units": 4},
                              "args": [{"shape": [2, 3], "dtype": "int32", "high": 6}]}}
