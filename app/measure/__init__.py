"""Real collectives on this machine: MPI (mpi4py) or torch.distributed processes, nccl-tests style.

`python -m app.measure` sweeps sizes like nccl-tests and prints its table; `sweep.sweep` is the
same run as a Python API (the /measure page streams its rows); `fit` turns the times into the
cost model's alpha and beta. Nothing here imports the web layer.
"""
