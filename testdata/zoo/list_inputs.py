"""A decoder whose hybrid_forward input is a *list* of feature maps (GluonCV DLA/monodepth2 style).

gluon flattens nested list inputs when hybridized, so `feats[-1]`, `feats[i]` and `len(feats)`
are correct code here. The analysis takes `feats` for a list because the body only takes its
len() and indexes it (never uses it whole as an array): see `rules.analysis.list_inputs`.
Formerly a known false positive (HL003 on `feats[-1]` with a "safe" F.slice_axis fix that broke
the block, HL009 on `len(feats)`).
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
