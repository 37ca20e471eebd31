"""BatchNorm1d/2d, LayerNorm and GroupNorm (mindspore.nn).

BatchNorm: Parameters gamma (ones), beta (zeros) and the non-trainable moving
statistics `moving_mean` / `moving_variance` (named '<prefix>.mean' /
'<prefix>.variance'), updated in training as MindSpore: moving = momentum *
moving + (1 - momentum) * batch_stat, momentum=0.9. Normalisation uses the
biased batch variance; the variance folded into moving_variance is the
unbiased one (n / (n-1)) on every device_target -- measured on MindSpore 2.10's
CPU kernel (issue 12), as on GPU (cuDNN) and Ascend.
"""
from __future__ import annotations

from ... import dtype as mstype
from ... import ops
from ...common.initializer import initializer
from ...common.parameter import Parameter
from ..cell import Cell

__all__ = ["BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "SyncBatchNorm"]


def _unbiased_moving_variance():
    """Whether MindSpore's BatchNorm kernel folds the unbiased batch variance into
    moving_variance: yes on every device_target (MindSpore 2.10's CPU kernel
    measured, issue 12; GPU and Ascend too)."""
    return True


def _update_stats(moving_mean, moving_var, mean, var_unbiased, momentum):
    new_mean = ops.assign(moving_mean, moving_mean * momentum + mean * (1.0 - momentum))
    new_var = ops.assign(moving_var, moving_var * momentum + var_unbiased * (1.0 - momentum))
    return new_mean, new_var


class _BatchNorm(Cell):
    _ndim = 4

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=mstype.float32):
        super().__init__()
        if not 0 <= momentum <= 1:
            raise ValueError(f"BatchNorm: momentum must be in [0, 1], got {momentum}")
        self.num_features = int(num_features)
        self.eps = float(eps)
        self.momentum = float(momentum)
        self.affine = affine
        self.use_batch_statistics = use_batch_statistics
        c = (self.num_features,)
        self.gamma = Parameter(initializer(gamma_init, c, dtype), name="gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, c, dtype), name="beta", requires_grad=affine)
        self.moving_mean = Parameter(initializer(moving_mean_init, c, dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, c, dtype), name="variance",
                                         requires_grad=False)

    @property
    def _unbiased_moving_variance(self):
        # a property: evaluated by Python, also when construct is compiled
        return _unbiased_moving_variance()

    def _use_batch(self):
        if self.use_batch_statistics is None:
            return self.training
        return self.use_batch_statistics

    def construct(self, x):
        return self._normalize(x, self._ndim)

    def _normalize(self, x, ndim):
        if ndim == 4:
            axes = (0, 2, 3)
            bshape = (1, self.num_features, 1, 1)
        else:
            axes = (0,)
            bshape = (1, self.num_features)
        gamma = ops.reshape(self.gamma, bshape)
        beta = ops.reshape(self.beta, bshape)
        if self._use_batch():
            n = x.size // self.num_features
            mean = ops.reduce_mean(x, axes, keep_dims=True)
            d = x - mean
            var = ops.reduce_mean(d * d, axes, keep_dims=True)
            y = d * ops.rsqrt(var + self.eps) * gamma + beta
            if self.training:
                bm = ops.stop_gradient(ops.reshape(mean, (self.num_features,)))
                bv = ops.stop_gradient(ops.reshape(var, (self.num_features,)))
                if self._unbiased_moving_variance:
                    bv = bv * (n / max(n - 1, 1))
                _update_stats(self.moving_mean, self.moving_variance, bm, bv, self.momentum)
            return y
        mean = ops.reshape(self.moving_mean, bshape)
        var = ops.reshape(self.moving_variance, bshape)
        return (x - mean) * ops.rsqrt(var + self.eps) * gamma + beta

    def extend_repr(self):
        return f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}"


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over (N, C, H, W) inputs."""
    _ndim = 4


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over (N, C) inputs."""
    _ndim = 2


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over (N, C) or (N, C, H, W) inputs whose batch statistics span the
    ranks of `process_groups`. In one process that is BatchNorm1d/2d; across
    several MPI ranks the cross-rank statistics are not implemented and training
    refuses (rather than silently normalising per rank)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, process_groups=None, dtype=mstype.float32):
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init,
                         moving_mean_init, moving_var_init, use_batch_statistics, dtype=dtype)
        self.process_groups = process_groups

    def construct(self, x):
        if x.ndim not in (2, 4):
            raise ValueError(f"For 'SyncBatchNorm', the input must be 2-D or 4-D, got shape "
                             f"{tuple(x.shape)}")
        if self._use_batch() and self._ranks > 1:
            raise NotImplementedError(
                "SyncBatchNorm over several MPI ranks: cross-rank batch statistics are not "
                "implemented (use BatchNorm2d for per-rank statistics)")
        return self._normalize(x, x.ndim)

    @property
    def _ranks(self):
        # a property: evaluated by Python, also when construct is compiled
        from ...runtime import mpi
        return mpi.size() if mpi.initialized() else 1


class LayerNorm(Cell):
    """LayerNorm(normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
    gamma_init='ones', beta_init='zeros', epsilon=1e-7)."""

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1, gamma_init="ones",
                 beta_init="zeros", epsilon=1e-7, dtype=mstype.float32):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError("LayerNorm: normalized_shape must be a tuple or list")
        self.normalized_shape = tuple(int(s) for s in normalized_shape)
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = float(epsilon)
        self.gamma = Parameter(initializer(gamma_init, self.normalized_shape, dtype), name="gamma")
        self.beta = Parameter(initializer(beta_init, self.normalized_shape, dtype), name="beta")

    def construct(self, x):
        nd = x.ndim
        b = self.begin_norm_axis % nd
        axes = tuple(range(b, nd))
        mean = ops.reduce_mean(x, axes, keep_dims=True)
        d = x - mean
        var = ops.reduce_mean(d * d, axes, keep_dims=True)
        return d * ops.rsqrt(var + self.epsilon) * self.gamma + self.beta

    def extend_repr(self):
        return f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}"


class GroupNorm(Cell):
    """GroupNorm(num_groups, num_channels, eps=1e-5, affine=True, gamma_init='ones',
    beta_init='zeros'): over (N, C, *) inputs, each sample's channels split into
    num_groups groups normalised by their mean and biased variance:
    y = (x - mean) / sqrt(var + eps) * gamma[c] + beta[c]."""

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=mstype.float32):
        super().__init__()
        for name, v in (("num_groups", num_groups), ("num_channels", num_channels)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"For 'GroupNorm', '{name}' must be an int >= 1, got {v!r}.")
        if num_channels % num_groups:
            raise ValueError(f"For 'GroupNorm', num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups}).")
        if not isinstance(affine, bool):
            raise TypeError("For 'GroupNorm', 'affine' must be a bool.")
        self.num_groups, self.num_channels = num_groups, num_channels
        self.eps = float(eps)
        self.affine = affine
        c = (num_channels,)
        self.gamma = Parameter(initializer(gamma_init, c, dtype), name="gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, c, dtype), name="beta", requires_grad=affine)

    def construct(self, x):
        shape = tuple(x.shape)
        g = ops.reshape(x, (shape[0], self.num_groups, -1))
        mean = ops.reduce_mean(g, 2, keep_dims=True)
        d = g - mean
        var = ops.reduce_sum(d * d, 2, keep_dims=True) / float(g.shape[2])
        y = ops.reshape(d / ops.sqrt(var + self.eps), shape)
        bshape = (1, self.num_channels) + (1,) * (len(shape) - 2)
        return y * ops.reshape(self.gamma, bshape) + ops.reshape(self.beta, bshape)

    def extend_repr(self):
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"
