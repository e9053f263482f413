"""Hazards: eager-ns. Exact rewrite: yes.

GluonNLP-style LSTM language model that applies output dropout with the eager `nd.Dropout`
to the outputs it unpacks from its LSTM layer; under hybridize those outputs are Symbols and
`nd.Dropout` rejects them. `F.Dropout` is exact (both are the identity outside training).
"""
from mxnet import gluon, nd
from mxnet.gluon import nn, rnn


class DropoutLSTMLanguageModel(gluon.HybridBlock):
    """Embedding -> LSTM -> output dropout -> tied-size decoder; returns logits and states."""

    def __init__(self, vocab_size, embed_size, hidden_size, dropout=0.4, **kwargs):
        super(DropoutLSTMLanguageModel, self).__init__(**kwargs)
        self._dropout = dropout
        with self.name_scope():
            self.embedding = nn.Embedding(vocab_size, embed_size)
            self.rnn = rnn.LSTM(hidden_size, layout='TNC', input_size=embed_size)
            self.decoder = nn.Dense(vocab_size, flatten=False, in_units=hidden_size)

    def hybrid_forward(self, F, inputs, h, c):
        encoded = self.embedding(inputs)
        output, states = self.rnn(encoded, [h, c])
        output = nd.Dropout(output, p=self._dropout)
        return self.decoder(output), states


EXAMPLES = {
    "DropoutLSTMLanguageModel": {
        "kwargs": {"vocab_size": 7, "embed_size": 4, "hidden_size": 5},
        "args": [
            {"shape": [3, 2], "dtype": "int32", "low": 0, "high": 7},
            [1, 2, 5],
            [1, 2, 5],
        ],
    }
}
