"""What every room of mark1 shares and none owns: atomic writes, BLAS threads, numba's
cache, progress bars, JSON-safe records and memory limits.

Nothing here knows about the machine, the cards or the studies; every module imports
only the standard library and third-party packages.
"""
