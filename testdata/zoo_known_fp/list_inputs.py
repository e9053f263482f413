"""Correct hybrid code that hybridlint still reports (known false positives, strict xfail).

Decoders in GluonCV's DLA/monodepth2 style take a *list* of feature maps as one input
(gluon flattens nested list inputs when hybridized). Nothing in the body proves it is a list
rather than a tensor, so `feats[-1]` reads as tensor indexing (HL003, with a "safe" fix that
would call F.slice_axis on a Python list and break the block) and `len(feats)` as HL009.
"""
from mxnet.gluon import HybridBlock, nn


class UpDecoder(HybridBlock):
    def __init__(self, channels=4, levels=3, **kwargs):
        super(UpDecoder, self).__init__(**kwargs)
        self._levels = levels
        with self.name_scope():
            self.convs = nn.HybridSequential()
            for _ in range(levels):
                self.convs.add(nn.Conv2D(channels, 3, padding=1))

    def hybrid_forward(self, F, feats):
        x = feats[-1]
        outs = [x]
        for i in range(len(feats) - 2, -1, -1):
            x = F.UpSampling(self.convs[i](x), scale=2, sample_type='nearest')
            x = F.slice_like(x, feats[i], axes=(2, 3)) + feats[i]
            outs.insert(0, x)
        return outs


class Net(HybridBlock):
    def __init__(self, **kwargs):
        super(Net, self).__init__(**kwargs)
        with self.name_scope():
            self.stem = nn.Conv2D(4, 3, padding=1)
            self.decoder = UpDecoder()

    def hybrid_forward(self, F, x):
        c1 = self.stem(x)
        c2 = F.Pooling(c1, kernel=(2, 2), stride=(2, 2), pool_type='max')
        c3 = F.Pooling(c2, kernel=(2, 2), stride=(2, 2), pool_type='max')
        return self.decoder([c1, c2, c3])


def build():
    return Net(prefix='net_'), [(2, 3, 8, 8)]
