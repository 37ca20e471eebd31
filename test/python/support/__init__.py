"""Helpers shared by the pytest suites (importable as `support` because
test/python/conftest.py makes test/python the suites' root):

    gradcheck    central finite differences: THE gradient checker of every suite
    ir_autodiff  mindir.grad modules compiled in a forked child, checked by gradcheck
    examples     the programs of examples/ as modules
"""
