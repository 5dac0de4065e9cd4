"""Rosenblatt's (1958) learning curves, P_r and P_g against n_sr, with the constants his paper states.

Source: F. Rosenblatt, "The perceptron: a probabilistic model for information storage and
organization in the brain", *Psychological Review* 65(6):386-408 (1958), read in a public
OCR transcription. Page and equation are cited at every constant below. What the
transcription gives, and what is derived here:

* **Eq. 4 (p. 396)**, the general form: ``P = P(N_ar > 0) Φ(Z)``,
  ``P(N_ar > 0) = 1 - (1 - P_a)^N_e``, ``Z = (c1 n_sr + c2) / sqrt(c3 n_sr² + c4 n_sr)``;
  N_e the effective A-units of each source-set (those not common to both responses).
* **P_g (p. 396)**: "In the case of Pg, the constant c2 is always equal to zero, the other
  three constants being the same as for Pr."
* **Ideal environment (pp. 396-397)**: "the constant c1 is always equal to zero", so
  Z = 0 for P_g and P_g = P(N_ar > 0) / 2 ("Pg can never be any better than the random
  expectation of 0.5").
* **α Σ-system, n_sr fixed, eq. 5 (p. 397)** and **α μ-system, eq. 6 (p. 397)**: printed as
  images the transcription does not render. What the text says: eq. 6 has c3 = 0 ("The
  reduction of c3 to zero gives the μ-system a definite advantage over the Σ-system"), and
  eq. 7 (p. 398, the μ-system with n_sr random) begins c1 = 0, c2 = 1 - P_a and has
  c4 = 2(1 - P_a)[...]. The constants here are derived from the model of pp. 396-397
  (an A-unit gains one unit of value each time it is active while its response is forced)
  in that normalisation: see :func:`alpha_constants`.
* **γ-system (pp. 398-399)**: "it makes no difference in performance whether the
  Σ-system or μ-system is used. Moreover, the constants for the γ-system, with variable
  n_sr, are identical to the constants for the alpha μ-system, with n_sr fixed
  (Equation 6)." :func:`gamma_constants` is that statement.
* **β-system, eq. 8 (p. 398)** and the differentiated environment, eqs. 9-11
  (pp. 400-401): partly illegible (eq. 8: c1 = 0, c2 = (1 - P_a) N_e, c3 = 2(P_a N_e ...)),
  so not built in.

Figures 7-11 (pp. 397-401) are curves whose labels are in the images; their captions
give the parameters held fixed, kept here as :data:`FIGURES`.

Examples
--------
>>> c = alpha_constants("mu", p_a=0.1, n_e=100)
>>> round(p_r(1000, c, p_a=0.1, n_e=100), 3)      # the 1957 experiment's recall, as z_recall
0.584
>>> p_g(1000, c, p_a=0.1, n_e=100) <= 0.5        # ideal environment: chance at best
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mark1.exceptions import InputError
from mark1.machine.mark_i import MarkI
from mark1.theory.discrimination import _activation, _positive, learning_curve, phi
from mark1.theory.probabilities import p_a as _p_a

__all__ = ["Constants", "alpha_constants", "gamma_constants", "system_constants", "p_r", "p_g", "asymptote",
           "FIGURES", "P_A_FIG7", "P_A_FIG8", "N_SR_FIG9", "FIG10", "machine_spec", "machine_recall",
           "machine_p_a", "effective_units", "random_cards", "machine_spontaneous", "spontaneous_spec",
           "SPONTANEOUS_SYSTEMS", "S_POINTS_LIT"]

#: Fig. 7 (p. 397): "P_r(Σ) as function of ω n_sr, for discrete subsets. (ω_c = 0, P_a = .005.
#: Ideal environment assumed.)"
P_A_FIG7 = 0.005
#: Fig. 8 (p. 398): "P_r(μ) as function of ω n_sr. (For P_a = .07, ω_c = 0. Ideal environment assumed.)"
P_A_FIG8 = 0.07
#: Fig. 9 (p. 399): "P_r(μ) as function of P_a. (For n_sr = 1,000, ω_c = 0. Ideal environment assumed.)"
N_SR_FIG9 = 1000
#: Fig. 10 (p. 399): "Comparison of α, β, and γ systems, for variable n_sr (N_R = 100,
#: σ_nsr = .5 n_sr, N_A = 10,000, P_a = .07, ω = .2)."
FIG10 = {"n_r": 100, "sigma_over_n_sr": 0.5, "n_a": 10_000, "p_a": 0.07, "omega": 0.2}

#: Every figure's caption (pp. 397-401), what it plots and what it holds fixed.
FIGURES = {
    7: {"plots": "P_r, α Σ-system, against ω n_sr", "p_a": P_A_FIG7, "omega_c": 0.0, "page": 397},
    8: {"plots": "P_r, α μ-system, against ω n_sr", "p_a": P_A_FIG8, "omega_c": 0.0, "page": 398},
    9: {"plots": "P_r, α μ-system, against P_a", "n_sr": N_SR_FIG9, "omega_c": 0.0, "page": 399},
    10: {"plots": "P_r of the α, β, γ systems against n_sr (n_sr random)", **FIG10, "page": 399},
    11: {"plots": "P_r and P_g against n_sr, differentiated environment (square vs circle); "
                   "parameters not printed", "page": 401},
}


@dataclass(frozen=True)
class Constants:
    """The four constants of eq. 4 (p. 396) for P_r; P_g uses the same with c2 = 0 (p. 396).

    Examples
    --------
    >>> Constants(0.0, 0.9, 0.0, 0.018).for_generalization().c2
    0.0
    """

    c1: float
    c2: float
    c3: float
    c4: float

    def for_generalization(self) -> Constants:
        """P_g's constants: c2 = 0, the rest as for P_r (1958 p. 396)."""
        return Constants(self.c1, 0.0, self.c3, self.c4)


def alpha_constants(discrimination: str, *, p_a: float, n_e: float, omega_n_r: float = 1.0) -> Constants:
    """The α-system's constants in the ideal environment, n_sr fixed (1958 eqs. 5-6, derived here).

    The model (1958 pp. 396-397): each of two responses has N_e effective A-units; an
    A-unit gains one unit of value each time it is active while one of its responses is
    forced; it belongs to ω N_R responses (``omega_n_r``; 1 for disjoint source-sets,
    ω = 1/N_R, p. 397), so after n_sr stimuli per response it has seen m = ω N_R n_sr.
    A unit of the correct response active to a learned test stimulus holds
    1 + Binomial(m - 1, P_a), one of the other response Binomial(m, P_a). Divided through
    by P_a N_e (the form of eq. 7, c2 = 1 - P_a):

    * μ (compare mean values, eq. 6): c1 = 0, c2 = 1 - P_a, c3 = 0,
      c4 = 2 (1 - P_a) ω N_R / N_e (the mean's variance, 2 m P_a (1 - P_a) / (P_a N_e));
    * Σ (compare summed values, eq. 5): the same plus the spread of the number of active
      units, Var(N_ar) (m P_a)² twice: c3 = 2 (1 - P_a) P_a (ω N_R)² / N_e.

    c1 = 0 (p. 396) and c3 = 0 for μ (p. 397) are the paper's; c2 and c4 agree with the
    legible part of eq. 7; the rest is derived, the printed eqs. 5-6 being illegible.

    Parameters
    ----------
    discrimination : {"mu", "sigma"}
        Mean- or sum-discriminating.
    p_a : float in (0, 1)
        Fraction of A-units a stimulus fires.
    n_e : float > 0
        Effective A-units in each source-set.
    omega_n_r : float > 0, default 1
        Responses each A-unit feeds (ω N_R).

    Returns
    -------
    Constants

    Examples
    --------
    >>> alpha_constants("mu", p_a=0.1, n_e=100)
    Constants(c1=0.0, c2=0.9, c3=0.0, c4=0.018)
    >>> round(alpha_constants("sigma", p_a=0.1, n_e=100).c3, 6)
    0.0018
    """
    p_a, n_e, k = _activation(p_a), _positive("n_e", n_e), _positive("omega_n_r", omega_n_r)
    c4 = 2.0 * (1.0 - p_a) * k / n_e
    if discrimination == "mu":
        return Constants(0.0, 1.0 - p_a, 0.0, c4)
    if discrimination == "sigma":
        return Constants(0.0, 1.0 - p_a, 2.0 * (1.0 - p_a) * p_a * k * k / n_e, c4)
    raise InputError(f"discrimination: expected 'mu' or 'sigma', got {discrimination!r}")


def gamma_constants(*, p_a: float, n_e: float, omega_n_r: float = 1.0) -> Constants:
    """The γ-system's constants: those of the α μ-system with n_sr fixed, for Σ and μ alike (1958 pp. 398-399).

    Examples
    --------
    >>> gamma_constants(p_a=0.1, n_e=100) == alpha_constants("mu", p_a=0.1, n_e=100)
    True
    """
    return alpha_constants("mu", p_a=p_a, n_e=n_e, omega_n_r=omega_n_r)


def system_constants(system: str, discrimination: str, *, p_a: float, n_e: float,
                     omega_n_r: float = 1.0) -> Constants:
    """Constants for ``system`` in {"alpha", "gamma"} and ``discrimination`` in {"mu", "sigma"}.

    Examples
    --------
    >>> system_constants("gamma", "sigma", p_a=0.1, n_e=100).c3      # γ: Σ = μ (p. 398)
    0.0
    """
    if system == "alpha":
        return alpha_constants(discrimination, p_a=p_a, n_e=n_e, omega_n_r=omega_n_r)
    if system == "gamma":
        if discrimination not in ("mu", "sigma"):
            raise InputError(f"discrimination: expected 'mu' or 'sigma', got {discrimination!r}")
        return gamma_constants(p_a=p_a, n_e=n_e, omega_n_r=omega_n_r)
    raise InputError(f"system: expected 'alpha' or 'gamma' (β's eq. 8 is illegible), got {system!r}")


def p_r(n_sr: float, c: Constants, *, p_a: float, n_e: float) -> float:
    """P_r, the probability the learned response is preferred to one alternative (eq. 4, p. 396).

    Parameters
    ----------
    n_sr : float > 0
        Stimuli associated to each response.
    c : Constants
    p_a, n_e : float
        As in :func:`alpha_constants`.

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    >>> c = alpha_constants("mu", p_a=0.07, n_e=1000)
    >>> round(p_r(1, c, p_a=0.07, n_e=1000), 4)
    1.0
    """
    return learning_curve(n_sr, c.c1, c.c2, c.c3, c.c4, p_a=p_a, n_e=n_e)


def p_g(n_sr: float, c: Constants, *, p_a: float, n_e: float) -> float:
    """P_g, the probability of correct generalization: eq. 4 with c2 = 0 (p. 396).

    Examples
    --------
    >>> round(p_g(100, alpha_constants("mu", p_a=0.07, n_e=1000), p_a=0.07, n_e=1000), 4)
    0.5
    """
    return p_r(n_sr, c.for_generalization(), p_a=p_a, n_e=n_e)


def asymptote(c: Constants, *, p_a: float, n_e: float) -> float:
    """P_r and P_g as n_sr → ∞: P(N_ar > 0) Φ(c1 / √c3) (eq. 9, p. 400); Φ(0) = 1/2 when c1 = 0.

    Examples
    --------
    >>> round(asymptote(alpha_constants("mu", p_a=0.1, n_e=100), p_a=0.1, n_e=100), 4)
    0.5
    """
    p_a, n_e = _activation(p_a), _positive("n_e", n_e)
    reach = 1.0 - (1.0 - p_a) ** n_e
    if c.c3 > 0:
        return reach * phi(c.c1 / math.sqrt(c.c3))
    return reach * (0.5 if c.c1 == 0 else (1.0 if c.c1 > 0 else 0.0))


# -- the machine's own trainer on the paper's experiment ----------------------------------

#: S-units each random stimulus lights (the ideal environment's "random collections of
#: illuminated retinal points", p. 396): 40 of 400, R = 0.1.
S_POINTS_LIT = 40


def machine_spec(base, system: str, reinforcement: str, discrimination: str = "mean"):
    """``base`` (a MachineSpec: ``PRESETS["ibm704"]`` or ``MARK_I``) set up as the 1958 experiment.

    One R-unit per response (``response.code = "one-per-class"``), no bias pot (the 1958
    model has none), ``trainer.rule`` = ``system`` ("alpha" or "gamma"),
    ``trainer.reinforcement`` = ``reinforcement``; values only gain under α forced or
    spontaneous (monovalent, as in the paper's α), γ is bivalent (the machine's γ moves
    every pot of a reinforced unit, conserving its total). The source-sets stay as the
    base machine divides them.

    Examples
    --------
    >>> from mark1.specs import PRESETS
    >>> machine_spec(PRESETS["ibm704"], "alpha", "forced").trainer.valence
    'monovalent'
    """
    if system not in ("alpha", "gamma"):
        raise InputError(f"system: expected 'alpha' or 'gamma', got {system!r}")
    if reinforcement not in ("forced", "corrective", "spontaneous"):
        raise InputError(f"reinforcement: expected 'forced', 'corrective' or 'spontaneous', got {reinforcement!r}")
    valence = "monovalent" if system == "alpha" and reinforcement != "corrective" else "bivalent"
    return base.with_overrides({"response.code": "one-per-class", "rack.bias": False, "trainer.rule": system,
                                "trainer.reinforcement": reinforcement, "trainer.valence": valence,
                                "response.discrimination": discrimination})


def effective_units(spec) -> int:
    """N_e: A-units feeding each of two responses on ``spec``'s rack (disjoint source-sets, ω_c = 0).

    Examples
    --------
    >>> from mark1.specs import PRESETS
    >>> effective_units(machine_spec(PRESETS["ibm704"], "alpha", "forced"))
    256
    """
    n_a = spec.patchboard.n_associators
    topology = spec.rack.topology
    if topology == "split":
        return n_a // spec.response.n_responses
    if topology in ("split-in-use", "all-to-all"):          # two responses in use: each holds its half
        return n_a // 2 if topology == "split-in-use" else n_a
    raise InputError(f"rack.topology: no N_e known for {topology!r}")


def random_cards(rng, k: int, shape=(20, 20), lit: int = S_POINTS_LIT) -> np.ndarray:
    """k white cards of ``shape``, each with exactly ``lit`` black squares at random (ink lights an S-unit).

    Examples
    --------
    >>> cards = random_cards(np.random.default_rng(0), 3)
    >>> cards.shape, int((cards == 0).sum(axis=(1, 2))[0])
    ((3, 20, 20), 40)
    """
    cards = np.ones((k, *shape))
    dark = np.argsort(rng.random((k, cards[0].size)), axis=1)[:, :lit]
    np.put_along_axis(cards.reshape(k, -1), dark, 0.0, axis=1)
    return cards


def machine_p_a(spec, lit: int = S_POINTS_LIT) -> float:
    """P_a of ``spec``'s patch board for stimuli of ``lit`` random S-units (1957 finite form).

    Examples
    --------
    >>> from mark1.specs import PRESETS
    >>> round(machine_p_a(PRESETS["ibm704"]), 4)
    0.1805
    """
    pb = spec.patchboard
    n = int(np.prod(spec.retina.shape))
    return _p_a(pb.excitatory, pb.inhibitory, pb.a_threshold, lit / n, n=n)


def machine_recall(spec, n_sr: int, seed: int, *, test: int = 200, lit: int = S_POINTS_LIT) -> tuple[float, float]:
    """(P_r, P_g) of one machine taught 2 n_sr random stimuli, n_sr to each of two responses, shown once.

    P_r is its score on the learned stimuli (the "frozen" machine shown the learning series
    again, p. 395), P_g its score on ``test`` new random stimuli with coin-toss labels.

    Examples
    --------
    >>> from mark1.specs import PRESETS
    >>> r, g = machine_recall(machine_spec(PRESETS["ibm704"], "alpha", "forced"), 5, 0, test=20)
    >>> 0.5 <= r <= 1.0 and 0.0 <= g <= 1.0
    True
    """
    rng = np.random.default_rng([seed, n_sr])
    shape = tuple(spec.retina.shape)
    cards, labels = random_cards(rng, 2 * n_sr, shape, lit), rng.permutation(np.repeat(["A", "B"], n_sr))
    machine = MarkI(spec=spec, seed=seed).fit(cards, labels, epochs=1)
    new, new_labels = random_cards(rng, test, shape, lit), rng.choice(["A", "B"], test)
    return float(machine.score(cards, labels)), float(machine.score(new, new_labels))


#: The spontaneous systems :func:`machine_spontaneous` runs (name -> what it is).
SPONTANEOUS_SYSTEMS = {
    "bivalent": "1958 pp. 402-404: one binary response (one R-unit, lamp on or off) with its source-set, the "
                "machine's bivalent γ, every answer reinforced: the active units of the source-set gain when "
                "the response is on and lose when it is off (γ conserving the unit's total), Σ, no bias pot",
    "monovalent": "two responses (one R-unit each, split source-sets), α monovalent (values only gain), μ, every "
                  "answer reinforced, no bias pot: a setting the paper does not describe for spontaneous learning",
}


def spontaneous_spec(base, decay_time: float, system: str = "bivalent"):
    """``base`` set up for spontaneous learning (:data:`SPONTANEOUS_SYSTEMS`) with ``rack.decay_time`` = ``decay_time``.

    Examples
    --------
    >>> from mark1.specs import PRESETS
    >>> spec = spontaneous_spec(PRESETS["ibm704"], 300.0)
    >>> spec.trainer.rule, spec.trainer.valence, spec.response.code, spec.rack.decay_time
    ('gamma', 'bivalent', 'single', 300.0)
    """
    if system == "bivalent":
        spec = base.with_overrides({"response.code": "single", "rack.bias": False, "trainer.rule": "gamma",
                                    "trainer.reinforcement": "spontaneous", "trainer.valence": "bivalent",
                                    "response.discrimination": "sum"})
    elif system == "monovalent":
        spec = machine_spec(base, "alpha", "spontaneous")
    else:
        raise InputError(f"system: expected one of {', '.join(map(repr, SPONTANEOUS_SYSTEMS))}, got {system!r}")
    return spec.with_overrides({"rack.decay_time": decay_time})


def machine_spontaneous(base, decay_time: float, seed: int, *, shown: int = 400, lit: int = S_POINTS_LIT,
                        kept: int = 30, shared: int = 0, system: str = "bivalent") -> tuple[float, float]:
    """(concept score, share of the busier response) of one machine after spontaneous learning (1958 pp. 402-404).

    p. 404: with values that "decay at a rate proportional to their magnitude", a system
    "exposed to a random series of stimuli from two 'dissimilar' classes", all of whose
    responses "are automatically reinforced", tends to answer one response for each class;
    the system described there is, "for each binary response", bivalent, with positive
    feedback to the response's source-set when it is on and negative when it is off
    (pp. 402-403), and γ is "the most efficient". ``system`` (:data:`SPONTANEOUS_SYSTEMS`):
    ``"bivalent"``, that system on one R-unit (its two answers, on and off, are the two
    concepts); ``"monovalent"``, the α monovalent two-response setting run before.

    Two classes, each a random prototype of ``lit`` S-units, the two prototypes sharing
    ``shared`` of them (0: disjoint); a member keeps ``kept`` of its prototype's points and
    lights ``lit - kept`` others; ``shown`` cards in random order, once; ``rack.decay_time`` =
    ``decay_time`` seconds (the machine's decay, proportional to the value). The concept
    score is the agreement of the answers with the classes on ``shown`` new members, either
    way round (max(a, 1 - a)): 1 when concepts formed, 0.5 when not.

    Examples
    --------
    >>> from mark1.specs import PRESETS
    >>> score, busier = machine_spontaneous(PRESETS["ibm704"], float("inf"), 0, shown=20)
    >>> 0.5 <= score <= 1.0 and 0.5 <= busier <= 1.0
    True
    """
    if not 0 <= shared < lit:
        raise InputError(f"shared: expected a number of points from 0 to {lit - 1}, got {shared!r}")
    spec = spontaneous_spec(base, decay_time, system)
    rng = np.random.default_rng(seed)
    shape = tuple(spec.retina.shape)
    n = int(np.prod(shape))
    points = rng.permutation(n)
    prototypes = (points[:lit], np.concatenate([points[:shared], points[lit:2 * lit - shared]]))

    def deck(k: int):
        classes = rng.permutation(np.repeat([0, 1], k // 2))
        cards = np.ones((k, n))
        for row, c in zip(cards, classes):
            others = np.setdiff1d(np.arange(n), prototypes[c])
            row[rng.choice(prototypes[c], kept, replace=False)] = 0.0
            row[rng.choice(others, lit - kept, replace=False)] = 0.0
        return cards.reshape(k, *shape), classes

    cards, classes = deck(shown)
    machine = MarkI(spec=spec, seed=seed).fit(cards, np.array(["A", "B"])[classes], epochs=1)
    new, new_classes = deck(shown)
    answer = (machine.predict(new) == "B").astype(int)
    agree = float(np.mean(answer == new_classes))
    return max(agree, 1 - agree), float(max(answer.mean(), 1 - answer.mean()))
