"""`mindspore.log`: MindSpore's logger functions on a Python `logging` logger
named "msmlir" (level from GLOG_v as MindSpore: 0 debug, 1 info, 2 warning
(default), 3 error)."""
from __future__ import annotations

import logging
import os

__all__ = ["get_level", "get_log_config", "debug", "info", "warning", "error", "critical",
           "exception", "get_logger"]

_LEVELS = {"0": logging.DEBUG, "1": logging.INFO, "2": logging.WARNING, "3": logging.ERROR,
           "4": logging.CRITICAL}
_logger = logging.getLogger("msmlir")
_logger.setLevel(_LEVELS.get(os.environ.get("GLOG_v", "2"), logging.WARNING))


def get_logger():
    return _logger


def get_level() -> str:
    """The level as MindSpore's GLOG_v string ('0'..'4')."""
    lvl = _logger.getEffectiveLevel()
    for k, v in _LEVELS.items():
        if v == lvl:
            return k
    return "2"


def get_log_config() -> dict:
    return {"GLOG_v": get_level(), "GLOG_logtostderr": "1"}


def debug(msg, *args, **kwargs):
    _logger.debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    _logger.info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    _logger.warning(msg, *args, **kwargs)


def error(msg, *args, **kwargs):
    _logger.error(msg, *args, **kwargs)


def critical(msg, *args, **kwargs):
    _logger.critical(msg, *args, **kwargs)


def exception(msg, *args, **kwargs):
    _logger.exception(msg, *args, **kwargs)
