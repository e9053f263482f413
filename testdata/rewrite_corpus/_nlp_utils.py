"""Project helpers shared by several corpus blocks (imported relatively, as zoos do)."""
import math


def split_heads(F, x, num_heads):
    """(B, L, C) -> (B * heads, L, C / heads), sizes from the shape."""
    batch, length, units = x.shape
    x = x.reshape((batch, length, num_heads, units // num_heads))
    return F.transpose(x, axes=(0, 2, 1, 3)).reshape((-1, length, units // num_heads))


def scaled_scores(F, q, k):
    """q k^T / sqrt(d), d from the query's shape."""
    return F.batch_dot(q, k, transpose_b=True) / math.sqrt(q.shape[-1])
