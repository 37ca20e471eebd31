"""Embedding (mindspore.nn.Embedding; table initialised 'normal' (sigma 0.01))."""
from __future__ import annotations

from ... import dtype as mstype
from ... import ops
from ...common.initializer import initializer
from ...common.parameter import Parameter
from ..cell import Cell

__all__ = ["Embedding"]


class Embedding(Cell):
    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=mstype.int32, padding_idx=None):
        super().__init__()
        self.vocab_size, self.embedding_size = int(vocab_size), int(embedding_size)
        self.use_one_hot = bool(use_one_hot)
        table = initializer(embedding_table, (self.vocab_size, self.embedding_size), mstype.float32)
        if padding_idx is not None:
            arr = table.asnumpy().copy()
            arr[padding_idx] = 0
            from ...common.tensor import Tensor
            table = Tensor(arr)
        self.padding_idx = padding_idx
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids):
        if self.use_one_hot:
            flat = ops.reshape(ids, (-1,))
            oh = ops.one_hot(flat, self.vocab_size, 1.0, 0.0)
            out = ops.matmul(oh, self.embedding_table)
            return ops.reshape(out, tuple(ids.shape) + (self.embedding_size,))
        return ops.gather(self.embedding_table, ids, 0)

    def extend_repr(self):
        return f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}"
