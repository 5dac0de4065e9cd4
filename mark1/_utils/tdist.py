"""Student's t quantile of a 95 % interval, shared by the lab's studies and the theory's
measurements (both rooms sit above ``_utils``; neither may import the other's)."""

from __future__ import annotations

from mark1.exceptions import InputError

__all__ = ["t_quantile_975"]

# Two-sided 95 % quantiles of Student's t, t(0.975; df) for df = 1 .. 30 (standard tables).
_T975 = (12.7062047, 4.30265273, 3.18244631, 2.77644511, 2.57058184, 2.44691185, 2.36462425,
         2.30600414, 2.26215716, 2.22813885, 2.20098516, 2.17881283, 2.16036866, 2.14478669,
         2.13144955, 2.11990530, 2.10981558, 2.10092204, 2.09302405, 2.08596345, 2.07961384,
         2.07387307, 2.06865761, 2.06389856, 2.05953855, 2.05552944, 2.05183052, 2.04840714,
         2.04522964, 2.04227246)


def t_quantile_975(df: int) -> float:
    """t(0.975; df): the multiplier of the standard error in a two-sided 95 % interval.

    Exact table values for ``df <= 30``; beyond, the Cornish-Fisher expansion about
    the normal quantile 1.959964 (error below 1e-5 for df > 30).

    Parameters
    ----------
    df : int
        Degrees of freedom, at least 1 (``n - 1`` for ``n`` seeds).

    Returns
    -------
    float

    Raises
    ------
    InputError
        For ``df < 1``.

    Examples
    --------
    >>> t_quantile_975(4)                      # 5 seeds
    2.77644511
    >>> round(t_quantile_975(1000), 4)         # close to the normal quantile
    1.9623
    """
    if df < 1:
        raise InputError(f"df: expected a positive integer, got {df}")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959963984540054
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3
