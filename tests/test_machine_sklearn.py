"""MarkI inside scikit-learn's own tools: clone, cross_val_score, GridSearchCV, check_is_fitted."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import make_cards
from mark1 import MarkI, specs

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score  # noqa: E402
from sklearn.utils.validation import check_is_fitted  # noqa: E402

SPEC = specs.SMALL.ideal()


def test_get_set_params_and_clone():
    m = MarkI(spec=SPEC, seed=3, epochs=4, order="shuffled")
    assert m.get_params() == dict(spec=SPEC, seed=3, noise_seed=None, trace="summary", fast=True,
                                  epochs=4, order="shuffled")
    c = clone(m)
    assert c is not m and c.get_params() == m.get_params()
    assert m.set_params(epochs=2) is m and m.epochs == 2
    with pytest.raises(ValueError, match="'epoch' is not a parameter of MarkI"):
        m.set_params(epoch=2)


def test_not_fitted_is_scikit_learns_error():
    m = MarkI(spec=SPEC, seed=0)
    cards, _ = make_cards(4, np.random.default_rng(0))
    with pytest.raises(NotFittedError, match="fit"):
        m.predict(cards)
    with pytest.raises(NotFittedError):
        check_is_fitted(m)


@pytest.mark.parametrize("seed", [0, 1])
def test_cross_val_score_and_grid_search_over_epochs(seed):
    cards, labels = make_cards(48, np.random.default_rng(seed))
    folds = KFold(3, shuffle=True, random_state=seed)
    m = MarkI(spec=SPEC, seed=seed)
    scores = cross_val_score(m, cards, labels, cv=folds)
    manual = []
    for train, test in folds.split(cards):
        manual.append(MarkI(spec=SPEC, seed=seed).fit(cards[train], labels[train]).score(cards[test], labels[test]))
    assert np.array_equal(scores, manual)                # same seed, same bits, inside sklearn too
    grid = GridSearchCV(m, {"epochs": [1, 3]}, cv=folds).fit(cards, labels)
    assert grid.best_params_["epochs"] in (1, 3)
    check_is_fitted(grid.best_estimator_)
    assert grid.best_estimator_.epochs == grid.best_params_["epochs"]
    assert grid.best_estimator_.history_["epoch"].max() + 1 == grid.best_params_["epochs"]


def test_set_params_after_fit_asks_for_a_new_fit():
    """A new seed means a new patch board: the old weights would answer nonsense."""
    cards, labels = make_cards(16, np.random.default_rng(2))
    m = MarkI(spec=SPEC, seed=1).fit(cards, labels)
    m.set_params(epochs=3)                         # a fit setting: the trained machine still answers
    m.predict(cards)
    m.set_params(seed=7)
    with pytest.raises(NotFittedError, match="changed after fit"):
        m.predict(cards)
    assert m.fit(cards, labels).predict(cards).shape == (16,)
