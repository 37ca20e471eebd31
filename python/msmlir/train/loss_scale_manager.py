"""MindSpore's loss-scale managers (mindspore.train.FixedLossScaleManager,
DynamicLossScaleManager): the scale and its update rule; `Model(...,
loss_scale_manager=...)` trains with nn.TrainOneStepWithLossScaleCell."""
from __future__ import annotations

__all__ = ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]


class LossScaleManager:
    def get_loss_scale(self):
        raise NotImplementedError

    def update_loss_scale(self, overflow):
        raise NotImplementedError

    def get_update_cell(self):
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    """A constant scale; with drop_overflow_update the steps whose gradients
    overflow are skipped."""

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        if loss_scale < 1:
            raise ValueError(f"For 'FixedLossScaleManager', 'loss_scale' must be >= 1, but got "
                             f"{loss_scale}")
        self._loss_scale = float(loss_scale)
        self._drop_overflow_update = bool(drop_overflow_update)

    def get_loss_scale(self):
        return self._loss_scale

    def get_drop_overflow_update(self):
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        pass

    def get_update_cell(self):
        if not self._drop_overflow_update:
            return None
        from ..nn.wrap import FixedLossScaleUpdateCell
        return FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """The scale halves (scale_factor) on overflow and doubles after scale_window
    clean steps; overflowing steps are skipped."""

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        if init_loss_scale < 1 or scale_factor <= 1 or scale_window < 1:
            raise ValueError("For 'DynamicLossScaleManager', init_loss_scale must be >= 1, "
                             "scale_factor > 1 and scale_window >= 1")
        self.loss_scale = float(init_loss_scale)
        self.scale_factor = float(scale_factor)
        self.scale_window = int(scale_window)
        self.increase_ratio = self.scale_factor
        self.decrease_ratio = 1 / self.scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0

    def get_loss_scale(self):
        return self.loss_scale

    def get_drop_overflow_update(self):
        return True

    def update_loss_scale(self, overflow):
        """The host-side rule (MindSpore's): used when a script drives the scale itself."""
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
        elif (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
            self.loss_scale *= self.increase_ratio
        self.cur_iter += 1

    def get_update_cell(self):
        from ..nn.wrap import DynamicLossScaleUpdateCell
        return DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)
