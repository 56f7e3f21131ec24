"""Test helpers shipped with zarrhpc (used by its own tests and by downstream projects).

- :mod:`zarrhpc.testing.oracles`: plain-numpy reference implementations of every compiled
  kernel in :mod:`zarrhpc._kernels`; property tests compare the kernels against them.
- :mod:`zarrhpc.testing.strategies`: hypothesis strategies for array geometries and
  selections (needs ``hypothesis``).

Submodules are imported explicitly (``from zarrhpc.testing.oracles import ...``), so that
importing this package needs neither hypothesis nor pytest.
"""
