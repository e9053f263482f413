# Extracted verbatim from /work/shared/seeds/002_1dbcf68d16d15cf1.txt ("Fast, portable neural networks with Gluon HybridBlocks"):
# its python code blocks in document order; only these comment lines were added.
# NOTE: the published page lost the indentation of its code (and the net.add(...) lines of
# get_net), so this file is not valid Python; it is kept as found and tests/test_seeds.py
# checks it fails to compile as-is. The MLP it describes is tested in tests/test_gluon_block.py.
# --- code block 1 ---
import mxnet as mx
from mxnet.gluon import nn
from mxnet import nd

def get_net():
# construct a MLP
net = nn.HybridSequential()
with net.name_scope():
# initialize the parameters
net.collect_params().initialize()
return net

# forward
x = nd.random_normal(shape=(1, 512))
net = get_net()
print('=== net(x) ==={}'.format(net(x)))
# --- code block 2 ---
net.hybridize()
print('=== net(x) ==={}'.format(net(x)))
# --- code block 3 ---
from time import time
def bench(net, x):
mx.nd.waitall()
start = time()
for i in range(1000):
y = net(x)
mx.nd.waitall()
return time() - start

net = get_net()
print('Before hybridizing: %.4f sec'%(bench(net, x)))
net.hybridize()
print('After hybridizing: %.4f sec'%(bench(net, x)))
# --- code block 4 ---
from mxnet import sym
x = sym.var('data')
print('=== input data holder ===')
print(x)

y = net(x)
print('\n=== the symbolic program of net===')
print(y)

y_json = y.tojson()
print('\n=== the according json definition===')
print(y_json)
# --- code block 5 ---
net.export('my_model', epoch=0)
# --- code block 6 ---
from mxnet import gluon

class Net(gluon.HybridBlock):
def __init__(self, **kwargs):
super(Net, self).__init__(**kwargs)
with self.name_scope():
self.fc1 = nn.Dense(256)
self.fc2 = nn.Dense(128)
self.fc3 = nn.Dense(2)

def hybrid_forward(self, F, x):
# F is a function space that depends on the type of x
# If x's type is NDArray, then F will be mxnet.nd
# If x's type is Symbol, then F will be mxnet.sym
print('type(x): {}, F: {}'.format(
type(x).__name__, F.__name__))
x = F.relu(self.fc1(x))
x = F.relu(self.fc2(x))
return self.fc3(x)
# --- code block 7 ---
net = Net()
net.collect_params().initialize()
x = nd.random_normal(shape=(1, 512))
print('=== 1st forward ===')
y = net(x)
print('=== 2nd forward ===')
y = net(x)
# --- code block 8 ---
net.hybridize()
print('=== 1st forward ===')
y = net(x)
print('=== 2nd forward ===')
y = net(x)
