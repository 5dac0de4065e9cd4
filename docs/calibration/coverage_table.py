"""The coverage table of docs/guide/statistics.rst (needs SciPy): plain t, Hall's, and their hull (mark1.stats's
method), each clipped to [0, 1], over 20,000 simulated studies a cell (vectorized transcription of
the module's formulas; tests/test_stats_coverage.py checks the module itself)."""
import math
import numpy as np
from scipy import stats as st

rng = np.random.default_rng(2026)
def beta(m, sd):
    k = m * (1 - m) / sd ** 2 - 1
    return m * k, (1 - m) * k
def draw(m, sd, shape):
    return rng.binomial(1000, rng.beta(*beta(m, sd), size=shape)) / 1000
def intervals(x):
    n = x.shape[1]; m = x.mean(1); s = x.std(1, ddof=1)
    with np.errstate(all="ignore"):
        g = np.nan_to_num((((x - m[:, None]) / s[:, None]) ** 3).mean(1))
    a = g / (3 * math.sqrt(n)); b = g / (6 * math.sqrt(n))
    with np.errstate(all="ignore"):
        ginv = lambda y: np.where(np.abs(a) > 1e-12, (np.cbrt(1 + 3 * a * (y - b)) - 1) / a, y - b)
    q = st.t.ppf(0.975, n - 1); se = s / math.sqrt(n)
    t = (m - q * se, m + q * se)
    h = (m - se * ginv(q), m - se * ginv(-q))
    u = (np.minimum(t[0], h[0]), np.maximum(t[1], h[1]))
    return {"t": t, "Hall": h, "hull": u}
truths = [(0.5, 0.10, "50 ± 10"), (0.9, 0.05, "90 ± 5"), (0.9, 0.10, "90 ± 10 (skew −1.6)"),
          (0.98, 0.02, "98 ± 2 (skew −1.9)"), (0.995, 0.005, "99.5 ± 0.5 (skew −2.0)"),
          (0.97, 0.04, "97 ± 4 (skew −2.4)"), (0.995, 0.008, "99.5 ± 0.8 (skew −3.2)")]
print("| truth (% ± sd over machines) | seeds | Student t | Hall | hull (mark1.stats) |")
print("|---|---|---|---|---|")
for m, sd, name in truths:
    for n in (3, 5, 10, 20, 40):
        x = draw(m, sd, (20000, n))
        cov = {k: np.mean((np.clip(lo, 0, 1) <= m) & (m <= np.clip(hi, 0, 1))) for k, (lo, hi) in intervals(x).items()}
        print(f"| {name} | {n} | {100*cov['t']:.1f} | {100*cov['Hall']:.1f} | {100*cov['hull']:.1f} |", flush=True)
